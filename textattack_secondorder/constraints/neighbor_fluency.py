"""A neighbour stays about as likely as the sentence it came from, word for word (docs/design/neighbours.md).

The masked LM judges each substitution alone at its slot (Algorithm 1's ``δ``); this judges the
sentence they make together with the causal-LM slot (GPT-2 online, Gemma-3-270M offline), with a
budget of ``b`` nats per changed word, or ``B`` nats for the whole sentence, or the smaller of the two::

    log P(x̃) >= log P(x0) - min(b * ||x̃ - x0||_0, B)

A per-word budget lets a neighbour that changed four words lose eight nats; the sentence budget holds every
neighbour, however deep, to the same loss.

Only the tokens after the part ``x̃`` shares with ``x0`` are scored
(:meth:`~textattack_secondorder.resources.perplexity.CausalLMScorer.log_likelihood_differences`); the
verdict of a text is cached, since the same candidate is asked about by the beam and by the goal. The causal
LM scores at most ``max_scored`` texts per reference (per attacked sentence): later ones are refused unscored,
so a sentence whose vulnerable neighbours are all broken costs a bounded time (docs/design/neighbours.md).
"""

from textattack.constraints import Constraint

from ..resources import load_causal_lm
from .known_verdicts import KnownVerdicts


class NeighborFluency(Constraint):
    """Refuse a neighbour whose causal-LM log-likelihood lies more than ``budget`` nats per changed word
    below the reference's.

    Args:
        causal_lm: an object with ``log_likelihood_differences(reference, texts)`` (a
            :class:`~textattack_secondorder.resources.perplexity.CausalLMScorer`), a name of the causal-LM
            slot, or None (its default); loaded on first use.
        budget: ``b``, nats of ``log P`` each changed word may cost (None: no per-word budget).
        total: ``B``, nats of ``log P`` the whole neighbour may cost (None: no sentence budget).
        max_scored: texts the causal LM scores per reference at most (None: no limit); later ones are refused.
        device: device of the causal LM when it is loaded here.
    """

    def __init__(
        self, causal_lm=None, budget=2.0, max_scored=None, device=None, total=None, compare_against_original=True
    ):
        super().__init__(compare_against_original)
        if budget is None and total is None:
            raise ValueError("NeighborFluency needs a per-word budget, a sentence budget, or both")
        self._causal_lm = causal_lm
        self.budget = None if budget is None else float(budget)
        self.total = None if total is None else float(total)
        self.max_scored = max_scored
        self.device = device
        self._verdicts = {}  # (reference, text) -> passed
        self._scored_for = {}  # reference -> texts scored against it
        self.scored = 0  # texts that went through the causal LM
        self.unscored = 0  # texts refused because the reference's max_scored was spent

    @property
    def causal_lm(self):
        if self._causal_lm is None or isinstance(self._causal_lm, str):
            self._causal_lm = load_causal_lm(self._causal_lm, device=self.device)
        return self._causal_lm

    def _check_constraint(self, transformed_text, reference_text):
        return bool(self._check_constraint_many([transformed_text], reference_text))

    def _check_constraint_many(self, transformed_texts, reference_text):
        ref = reference_text.text
        todo = {t.text: t for t in transformed_texts if (ref, t.text) not in self._verdicts}
        if len(self._verdicts) > 50_000:
            self._verdicts.clear()
            self._scored_for.clear()
        texts = list(todo.values())
        if self.max_scored is not None:
            left = max(self.max_scored - self._scored_for.get(ref, 0), 0)
            for t in texts[left:]:
                self._verdicts[ref, t.text] = False
            self.unscored += len(texts[left:])
            texts = texts[:left]
        if texts:
            diffs = self.causal_lm.log_likelihood_differences(ref, [t.text for t in texts])
            self.scored += len(texts)
            self._scored_for[ref] = self._scored_for.get(ref, 0) + len(texts)
            for t, d in zip(texts, diffs):
                self._verdicts[ref, t.text] = bool(d >= -self.allowed(len(t.all_words_diff(reference_text))) - 1e-6)
        return [t for t in transformed_texts if self._verdicts[ref, t.text]]

    def allowed(self, changed):
        """Nats of ``log P`` a neighbour that changed ``changed`` words may lose."""
        limits = [b for b in (None if self.budget is None else self.budget * changed, self.total) if b is not None]
        return min(limits)

    def known_verdict(self, reference_text, transformed_text):
        """This constraint's verdict on the text if it has given one, else None (nothing is scored)."""
        return self._verdicts.get((reference_text.text, transformed_text.text))

    def known_verdicts(self):
        """A constraint that refuses only the texts this one has already refused, scoring nothing: the beam
        leaves out what the goal function found broken, at no cost (docs/design/neighbours.md)."""
        return KnownVerdicts(self)

    def __getstate__(self):
        state = self.__dict__.copy()
        state["_verdicts"] = {}
        state["_scored_for"] = {}
        return state

    def extra_repr_keys(self):
        return ["budget", "total", "max_scored"] + super().extra_repr_keys()
