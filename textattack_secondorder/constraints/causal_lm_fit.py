"""A word swap keeps the sentence about as likely under a causal language model (docs/design/patch-rules.md).

TextAttack's language-model constraints (``LanguageModelConstraint``: GPT-2, Google's LM) refuse a swap
that lowers a language model's log-probability by more than ``max_log_prob_diff``. This one reads the
causal-LM slot (GPT-2 online, Gemma-3-270M offline) and scores the whole sentence — the swapped word and
what it does to the words after it ("after all" -> "subsequently all" costs the next word too)::

    log P(x ⊕ p) >= log P(x) - max_log_prob_diff

All texts compared with one reference go through the model in one batch.
"""

from textattack.constraints.grammaticality.language_models import LanguageModelConstraint

from ..resources import load_causal_lm


class CausalLMFit(LanguageModelConstraint):
    """Refuse a transformed text whose causal-LM log-likelihood is ``max_log_prob_diff`` below the reference's.

    Args:
        causal_lm: an object with ``log_likelihood(texts)`` and ``log_likelihood_differences(reference, texts)``
            (:class:`~textattack_secondorder.resources.perplexity.CausalLMScorer`), a name of the causal-LM slot,
            or None (its default).
        max_log_prob_diff: largest allowed drop of ``log P(text)`` (nats).
        device: device of the causal LM when it is loaded here.
    """

    def __init__(self, causal_lm=None, max_log_prob_diff=2.0, device=None, compare_against_original=True):
        super().__init__(max_log_prob_diff=float(max_log_prob_diff), compare_against_original=compare_against_original)
        if causal_lm is None or isinstance(causal_lm, str):
            causal_lm = load_causal_lm(causal_lm, device=device)
        self.causal_lm = causal_lm

    def get_log_probs_at_index(self, text_list, word_index):
        return list(self.causal_lm.log_likelihood([t.text for t in text_list]))

    def _check_constraint(self, transformed_text, reference_text):
        return bool(self._check_constraint_many([transformed_text], reference_text))

    def _check_constraint_many(self, transformed_texts, reference_text):
        if not transformed_texts:
            return []
        diffs = self.causal_lm.log_likelihood_differences(reference_text.text, [t.text for t in transformed_texts])
        return [t for t, d in zip(transformed_texts, diffs) if d > -self.max_log_prob_diff]
