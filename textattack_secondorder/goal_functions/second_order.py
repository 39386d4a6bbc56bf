"""Goal function of the double-perturbation attack (Zhang et al. 2021, §3; docs/design/search.md).

For a candidate ``x`` (a neighbour of the input ``x0``) and the patch pair ``p``
chosen for ``x0``, the prediction difference is ``F(x; p) = f(x ⊕ p) - f(x)``;
``x`` is a *vulnerable example* when ``F(x; p) != 0``, i.e. when the predicted
labels of ``x`` and ``x ⊕ p`` differ. Every candidate costs two model outputs,
which are computed in the same model batch (and counted as two queries).

Search methods rank candidates by the beam loss of paper Eq. 4, to be minimised::

    L(x; p) = -log(1 - f_min) - log(f_max)

with ``f_min, f_max`` the smaller and larger of the positive-class probabilities
of ``x`` and ``x ⊕ p``. With more than two classes we use, for both texts, the
probability of ``c = f(x)`` (the class predicted for ``x``); for two classes this
is the same number as the positive-class formula (swapping the class swaps
``f_min``/``f_max`` with ``1 - f_max``/``1 - f_min``). The result score TextAttack
maximises is ``-L``, plus ``SUCCESS_BONUS`` for a vulnerable candidate (the
reference code's "large bonus"), so a vulnerable candidate always ranks first and
ties among them go to the lowest loss. The ground-truth label is not used.
"""

import logging
import time

import numpy as np
from textattack.goal_function_results import ClassificationGoalFunctionResult, GoalFunctionResultStatus
from textattack.goal_functions import ClassificationGoalFunction
from textattack.shared import utils

from .patch_rules import PatchRule, build_patch_rule
from .patch_words import PatchWordSelector, apply_patch

logger = logging.getLogger(__name__)

SUCCESS_BONUS = 1000.0
SUCCEEDED = GoalFunctionResultStatus.SUCCEEDED
# vulnerable candidates the neighbour rule judges per round, lowest loss first (docs/design/neighbours.md)
NATURAL_CHUNK = 8
_EPS = 1e-12


def disagreement_probability(loss):
    """``exp(−L) = f_max · (1 − f_min)`` of a beam loss ``L`` (Eq. 4), in [0, 1]: the probability that, each text's
    label drawn from the model's probabilities for class ``c``, the text with the larger probability of ``c`` is
    labelled ``c`` and the other is not; 1 when the two predictions are certain and differ. What the CSV log
    writes as a second-order row's score (TextAttack's score is ``−L`` plus the success bonus)."""
    return None if loss is None else float(np.exp(-float(loss)))


def beam_loss(prob_x, prob_xp, cls):
    """Paper Eq. 4 on the probabilities of class ``cls`` for ``x`` and ``x ⊕ p``."""
    a, b = float(prob_x[cls]), float(prob_xp[cls])
    f_min, f_max = min(a, b), max(a, b)
    return -np.log(max(1.0 - f_min, _EPS)) - np.log(max(f_max, _EPS))


class SecondOrderGoalFunctionResult(ClassificationGoalFunctionResult):
    """A candidate ``x`` with its patched twin ``x ⊕ p`` and both predictions."""

    def __init__(
        self,
        *args,
        patch=None,
        patched_text=None,
        patched_raw_output=None,
        loss=None,
        perturbed_words=0,
        elapsed=None,
        skip_reason=None,
        patch_rule=None,
        **kwargs,
    ):
        super().__init__(*args, **kwargs)
        self.patch = patch
        self.patched_text = patched_text
        self.patched_raw_output = None if patched_raw_output is None else np.asarray(patched_raw_output)
        self.loss = loss
        self.perturbed_words = perturbed_words
        self.elapsed = elapsed
        self.skip_reason = skip_reason
        self.skip_kind = getattr(skip_reason, "kind", None)
        self.patch_rule = patch_rule

    @property
    def first_order(self):
        """Whether ``x̃0`` is ``x0`` itself (no word changed): the sentence is vulnerable as it stands, a first-order
        finding (the patch swap alone flips it), reported apart from the second-order ones (docs/design/search.md)."""
        return self.patch is not None and self.perturbed_words == 0

    @property
    def patched_output(self):
        return None if self.patched_raw_output is None else int(self.patched_raw_output.argmax())

    def _label(self, raw):
        idx = int(np.asarray(raw).argmax())
        names = self.attacked_text.attack_attrs.get("label_names")
        label = utils.process_label_name(names[idx]) if names is not None else idx
        return label, utils.color_from_label(idx), float(np.asarray(raw)[idx])

    def get_colored_output(self, color_method=None):
        label, color, conf = self._label(self.raw_output)
        out = utils.color_text(f"{label} ({conf:.0%})", color=color, method=color_method)
        if self.patch is None:
            return out + (f" [skipped: {self.skip_reason}]" if self.skip_reason else "")
        p_label, p_color, p_conf = self._label(self.patched_raw_output)
        patched = utils.color_text(f"{p_label} ({p_conf:.0%})", color=p_color, method=color_method)
        found = " (x̃0 = x0: vulnerable as it stands)" if self.first_order and self.goal_status == SUCCEEDED else ""
        return f"{out} | ⊕ [{self.patch}]: {patched}{found}"

    def log_fields(self):
        """Extra columns for TextAttack's CSV log (added by this package's logger extension). A skipped row has
        no vulnerable example: its vulnerable columns are empty (``""``, not None: pandas would turn a column of
        0/1 with None into 1.0/0.0)."""
        skipped = self.patch is None
        probs = [round(float(v), 6) for v in np.asarray(self.raw_output)]
        patched_probs = (
            None if self.patched_raw_output is None else [round(float(v), 6) for v in self.patched_raw_output]
        )
        return {
            "patch_p1": getattr(self.patch, "p1", None),
            "patch_p2": getattr(self.patch, "p2", None),
            "patch_rule": self.patch_rule,
            "vulnerable_text": "" if skipped else self.attacked_text.text,
            "vulnerable_patched_text": "" if self.patched_text is None else self.patched_text.text,
            "vulnerable_output": "" if skipped else int(np.asarray(self.raw_output).argmax()),
            "vulnerable_patched_output": "" if self.patched_output is None else self.patched_output,
            "vulnerable_probs": "" if skipped else probs,
            "vulnerable_patched_probs": "" if patched_probs is None else patched_probs,
            "perturbed_words": "" if skipped else self.perturbed_words,
            # x̃0 = x0: the sentence is vulnerable as it stands (a first-order finding, counted apart)
            "first_order": "" if skipped or self.goal_status != SUCCEEDED else self.first_order,
            "beam_loss": self.loss,
            "seconds": self.elapsed,
            "skip_reason": self.skip_reason,
            "patch_skip_kind": self.skip_kind,
        }


class SecondOrderClassification(ClassificationGoalFunction):
    """Find ``x`` near ``x0`` with ``f(x ⊕ p) != f(x)`` (double perturbation, Zhang et al. 2021).

    Args:
        model_wrapper: TextAttack model wrapper of the victim.
        synonyms: word -> synonyms mapping for patch words (``SynonymList`` / dict).
        query_budget: model queries per example (each candidate costs two).
        model_batch_size: texts per model call; a candidate and its patched twin share a batch.
        patch_rule: the rule a patch pair must pass, in ``x0`` when it is chosen and in every vulnerable
            example reported: a :class:`~.patch_rules.PatchRule`, or a rule's name (built with the slots'
            default models; default ``"paper"``, the paper's text: no check).
        neighbor_rule: the :class:`~.neighbor_rules.NeighborRule` a vulnerable ``x`` must pass against ``x0``
            before it is reported (None: none, Algorithm 1 alone).

    The goal function owns both rules (``self.patch_rule``, ``self.neighbor_rule``); its
    :class:`~.patch_words.PatchWordSelector` applies the patch rule it is handed.
    """

    def __init__(
        self,
        model_wrapper,
        synonyms,
        query_budget=float("inf"),
        model_batch_size=32,
        patch_rule="paper",
        neighbor_rule=None,
        **kwargs,
    ):
        super().__init__(model_wrapper, query_budget=query_budget, model_batch_size=model_batch_size, **kwargs)
        self.patch_rule = patch_rule if isinstance(patch_rule, PatchRule) else build_patch_rule(patch_rule or "paper")
        self.neighbor_rule = neighbor_rule  # judges x̃ against x0 before it is reported (docs/design/neighbours.md)
        self.patch_selector = PatchWordSelector(model_wrapper, synonyms, batch_size=max(model_batch_size, 64))
        self.patch = None
        self.skip_reason = None
        self.refused_vulnerable = 0  # vulnerable candidates whose patch swap the rule refused in their context
        self.refused_unnatural = 0  # vulnerable candidates the neighbour rule refused
        self.raw_flips = 0  # candidates of this example whose label flips under the patch, before either rule

    # -- per example ----------------------------------------------------------
    def init_attack_example(self, attacked_text, ground_truth_output):
        self.initial_attacked_text = attacked_text
        self.ground_truth_output = ground_truth_output
        self.num_queries = 0
        self.raw_flips = 0
        self._start = time.perf_counter()
        self.patch, self.skip_reason = self.patch_selector.select(attacked_text, self.patch_rule)
        if self.patch is None:
            logger.info("skipping %r: %s", attacked_text.text[:80], self.skip_reason)
            probs = self._call_model([attacked_text])[0] if attacked_text.words else None
            result = SecondOrderGoalFunctionResult(
                attacked_text,
                probs if probs is not None else np.array([1.0, 0.0]),
                0,
                GoalFunctionResultStatus.SKIPPED,
                0.0,
                self.num_queries,
                ground_truth_output,
                skip_reason=self.skip_reason,
                elapsed=0.0,
                patch_rule=self.patch_rule.name,
            )
            if probs is not None:
                result.output = int(np.asarray(probs).argmax())
            return result, False
        results, search_over = self.get_results([attacked_text])
        return results[0], search_over

    # -- scoring --------------------------------------------------------------
    def get_results(self, attacked_text_list, check_skip=False):
        if self.patch is None:
            raise RuntimeError("init_attack_example must pick a patch pair before candidates are scored")
        if self.query_budget < float("inf"):
            left = int(self.query_budget - self.num_queries) // 2
            attacked_text_list = attacked_text_list[: max(left, 0)]
        if not attacked_text_list:
            return [], True
        patched = [apply_patch(t, self.patch) for t in attacked_text_list]
        # x and x ⊕ p in one call: TextAttack batches (and caches) them together.
        outputs = self._call_model(list(attacked_text_list) + patched)
        n = len(attacked_text_list)
        self.num_queries += 2 * n
        elapsed = time.perf_counter() - self._start
        raws = [np.asarray(r.cpu() if hasattr(r, "cpu") else r, dtype=np.float64) for r in outputs]
        classes = [int(r.argmax()) for r in raws]
        losses = [beam_loss(raws[k], raws[n + k], classes[k]) for k in range(n)]
        flips = [classes[k] != classes[n + k] for k in range(n)]
        self.raw_flips += sum(flips)
        flags = self._vulnerable(attacked_text_list, flips, losses)
        results = []
        for text, twin, raw, raw_p, cls, loss, vulnerable in zip(
            attacked_text_list, patched, raws[:n], raws[n:], classes, losses, flags
        ):
            score = -loss + (SUCCESS_BONUS if vulnerable else 0.0)
            status = GoalFunctionResultStatus.SUCCEEDED if vulnerable else GoalFunctionResultStatus.SEARCHING
            results.append(
                SecondOrderGoalFunctionResult(
                    text,
                    raw,
                    cls,
                    status,
                    score,
                    self.num_queries,
                    self.ground_truth_output,
                    patch=self.patch,
                    patched_text=twin,
                    patched_raw_output=raw_p,
                    loss=float(loss),
                    perturbed_words=len(text.all_words_diff(self.initial_attacked_text)),
                    elapsed=elapsed,
                    patch_rule=self.patch_rule.name,
                )
            )
        return results, self.num_queries >= self.query_budget

    def _vulnerable(self, texts, flips, losses):
        """Which candidates are vulnerable: those whose label flips, ``f(x ⊕ p) != f(x)`` (``flips``), with the
        patch swap kept by the rule in ``x`` itself and ``x`` itself kept by the neighbour rule against ``x0``.
        Checked in order of the beam loss (``losses``), lowest first (the order the search ranks them), a few
        at a time, until one passes; the ones after it keep their label and are never the one reported."""
        if not any(flips) or not (self.patch_rule.constraints or self.neighbor_rule):
            return flips
        order = sorted((k for k, f in enumerate(flips) if f), key=lambda k: losses[k])
        among = getattr(self.neighbor_rule, "pick_among", 1) if self.neighbor_rule else 1
        kept = []
        for start in range(0, len(order), NATURAL_CHUNK):
            part = order[start : start + NATURAL_CHUNK]
            natural = self._natural([texts[k] for k in part])
            for k, ok in zip(part, natural):
                if ok and self.patch_selector.keeps(texts[k], self.patch, self.patch_rule):
                    if among == 1:
                        return flips
                    kept.append(k)
                    if len(kept) >= among:
                        break
                    continue
                flips[k] = False
                if ok:
                    self.refused_vulnerable += 1
                else:
                    self.refused_unnatural += 1
            if len(kept) >= among:
                break
        if kept:  # the neighbour rule's choice among the first kept ones: the only one left vulnerable
            best = self.neighbor_rule.best(self.initial_attacked_text, [texts[k] for k in kept])
            return [k == kept[best] for k in range(len(flips))]
        return flips

    def _natural(self, texts):
        """The neighbour rule's verdict on each of ``texts`` against ``x0`` (all True without a rule)."""
        if not self.neighbor_rule:
            return [True] * len(texts)
        return self.neighbor_rule.passes(self.initial_attacked_text, texts)

    def _is_goal_complete(self, model_output, attacked_text):  # not used: get_results decides
        return False

    def _should_skip(self, model_output, attacked_text):
        return False

    def _get_score(self, model_output, attacked_text):  # not used: get_results scores pairs
        return 0.0

    def _goal_function_result_type(self):
        return SecondOrderGoalFunctionResult

    def extra_repr_keys(self):
        return super().extra_repr_keys()
