"""SP-Attack's search (Xu et al., §4): a shuffled pool of single-word perturbations, queried in batches.

The pool holds every sentence with exactly one word replaced by one of the top-M
words by flip capability κ (the transformation builds it). It is drawn in a
seeded random order and sent to the model in batches; the search stops when the
pool is exhausted or ``max_successes`` (paper: k = 50) misclassified sentences
are found. Among those whose sentence-encoder cosine with the original exceeds
``similarity_threshold`` (paper: USE > 0.8), it returns the one maximising the
joint criterion (paper Eq. 4)::

    α · cos(H(x'), H(x)) − β · PPL(x') / PPL(x)       (paper text: α = 3, β = 20)

The authors' released code weights the other way (20 on similarity, 3 on the
perplexity ratio): ``weighting="code"``.

With a label rule and a fluency rule (:class:`~..constraints.label_rules.LabelRule`,
:class:`~..constraints.fluency_rules.FluencyRule`), a misclassified candidate counts towards ``k`` only when their
success checks keep it — the label probe, told the sentence's label, then the causal LM's budget (not in the paper);
their other checks run earlier, as the attack's constraints, before the victim sees the candidate.
"""

import random

import numpy as np
from textattack.goal_function_results import GoalFunctionResultStatus
from textattack.search_methods import SearchMethod

from ..resources import load_causal_lm, load_sentence_encoder

WEIGHTS = {"paper": (3.0, 20.0), "code": (20.0, 3.0)}


class SPAttackSearch(SearchMethod):
    """SP-Attack's search: a shuffled pool of single-word perturbations, queried in batches (see the module).

    Args:
        max_successes: k, stop after this many misclassified candidates (paper: 50).
        query_batch_size: candidates per model query batch.
        alpha, beta: weights of the joint criterion (default: ``weighting``'s).
        weighting: "paper" (α = 3, β = 20) or "code" (α = 20, β = 3).
        similarity_threshold: minimum cosine with the original (paper: 0.8).
        sentence_encoder, causal_lm: resource-slot values (None = slot defaults) or loaded objects.
        seed: shuffle seed.
        fluency_rule: a :class:`~..constraints.fluency_rules.FluencyRule` whose success checks a misclassified
            candidate must pass to count (None: every one counts, the paper's search).
        label_rule: a :class:`~..constraints.label_rules.LabelRule` whose success checks (the label probe) a
            misclassified candidate must pass first, given the sentence's ground-truth label.
    """

    def __init__(
        self,
        max_successes=50,
        query_batch_size=32,
        weighting="paper",
        alpha=None,
        beta=None,
        similarity_threshold=0.8,
        sentence_encoder=None,
        causal_lm=None,
        seed=0,
        device=None,
        fluency_rule=None,
        label_rule=None,
    ):
        if weighting not in WEIGHTS:
            raise ValueError(f"weighting must be one of {list(WEIGHTS)}")
        a, b = WEIGHTS[weighting]
        self.max_successes = int(max_successes)
        self.query_batch_size = int(query_batch_size)
        self.weighting = weighting
        self.alpha = a if alpha is None else float(alpha)
        self.beta = b if beta is None else float(beta)
        self.similarity_threshold = similarity_threshold
        self._encoder = sentence_encoder
        self._lm = causal_lm
        self.seed = seed
        self.device = device
        self.fluency_rule = fluency_rule
        self.label_rule = label_rule
        self.refused_unfluent = 0  # misclassified candidates the fluency rule's success checks refused (all examples)
        self.refused_label = 0  # misclassified candidates the label rule's success checks refused (all examples)

    # lazily loaded resources ----------------------------------------------------
    def encoder(self):
        if self._encoder is None or isinstance(self._encoder, str):
            self._encoder = load_sentence_encoder(self._encoder, device=self.device)
        return self._encoder

    def language_model(self):
        if self._lm is None or isinstance(self._lm, str):
            self._lm = load_causal_lm(self._lm, device=self.device)
        return self._lm

    def joint_scores(self, original, candidates):
        """``(cos, ppl_ratio, score)`` arrays for candidate texts against ``original``."""
        emb = np.asarray(self.encoder().encode([original] + candidates), dtype=np.float64)
        emb /= np.linalg.norm(emb, axis=1, keepdims=True) + 1e-12
        cos = emb[1:] @ emb[0]
        ppl = self.language_model().perplexity([original] + candidates)
        ratio = ppl[1:] / ppl[0]
        return cos, ratio, self.alpha * cos - self.beta * ratio

    def perform_search(self, initial_result):
        x = initial_result.attacked_text
        pool = self.get_transformations(x, original_text=x)
        random.Random(f"{self.seed}|{x.text}").shuffle(pool)
        successes, best = [], initial_result
        for s in range(0, len(pool), self.query_batch_size):
            results, search_over = self.get_goal_results(pool[s : s + self.query_batch_size])
            misclassified = [r for r in results if r.goal_status == GoalFunctionResultStatus.SUCCEEDED]
            fluent = self._kept(x, misclassified, initial_result.ground_truth_output)
            for r in results:
                if r.goal_status == GoalFunctionResultStatus.SUCCEEDED and id(r) in fluent:
                    successes.append(r)
                elif r.score > best.score:
                    best = r
            if len(successes) >= self.max_successes or search_over:
                break
        if not successes:
            return best
        successes = successes[: self.max_successes]
        cos, ratio, score = self.joint_scores(x.text, [r.attacked_text.text for r in successes])
        ok = [
            i for i in range(len(successes)) if self.similarity_threshold is None or cos[i] > self.similarity_threshold
        ]
        if not ok:
            # misclassified, but no candidate is similar enough: not a success under the paper's rule
            top = successes[int(np.argmax(score))]
            top.goal_status = GoalFunctionResultStatus.SEARCHING
            return top
        pick = successes[max(ok, key=lambda i: score[i])]
        pick.attacked_text.attack_attrs["sp_attack"] = {
            "cos": float(cos[successes.index(pick)]),
            "ppl_ratio": float(ratio[successes.index(pick)]),
        }
        return pick

    def _kept(self, x, misclassified, label):
        """``id`` of each result of ``misclassified`` the label and fluency rules' success checks keep against ``x``
        (of class ``label``): the label probe first (one encoder pass), then the causal LM on what it kept."""
        texts = [r.attacked_text for r in misclassified]
        for rule, counter in ((self.label_rule, "refused_label"), (self.fluency_rule, "refused_unfluent")):
            if rule is None or not rule.success_checks or not texts:
                continue
            kept = rule.successes(x, texts, label)
            setattr(self, counter, getattr(self, counter) + len(texts) - len(kept))
            texts = kept
        kept = {id(t) for t in texts}
        out = {id(r) for r in misclassified if id(r.attacked_text) in kept}
        for r in misclassified:  # a refused one is not an adversarial example: it ranks below the unflipped
            if id(r) not in out:
                r.goal_status = GoalFunctionResultStatus.SEARCHING
                r.score = float("-inf")
        return out

    @property
    def is_black_box(self):
        return True

    def extra_repr_keys(self):
        keys = ["max_successes", "query_batch_size", "weighting", "alpha", "beta", "similarity_threshold", "seed"]
        return keys + ["label_rule", "fluency_rule"]
