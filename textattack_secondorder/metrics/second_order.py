"""Summary-table rows of the double-perturbation attacks (Zhang et al. 2021, §5 / Table 2).

TextAttack ``Metric`` objects: each reads the attack results and returns one
number for the summary table. The recipes add them automatically
(``Attack.summary_metrics``); from Python pass them as ``AttackArgs(metrics=...)``.
"""

import logging

import numpy as np
from textattack.attack_results import SkippedAttackResult, SuccessfulAttackResult
from textattack.metrics import Metric

from ..goal_functions.patch_rules import PAIR_NOT_KEPT
from ..resources import causal_lm_ready, load_causal_lm
from .seconds import ROW as SECONDS_ROW
from .seconds import SecondsPerExample

logger = logging.getLogger(__name__)


def _second_order(results):
    return [r for r in results if hasattr(r.perturbed_result, "patched_text")]


class VictimAccuracy(Metric):
    """The victim's accuracy on the attacked sentences x0, as ``"75.0%"`` (TextAttack's row format).

    TextAttack's "Original accuracy" is the share of results that were not skipped; our goal
    function skips a sentence for having no patch word pair, not for being misclassified, so that
    share says nothing about accuracy. This counts ``f(x0) == y`` over every result whose x0 the
    victim scored (rows the input guard skipped unread, or with no words, are left out).
    """

    def __init__(self):
        pass

    def calculate(self, results):
        right = scored = 0
        for r in results:
            o = r.original_result
            if o.output is None or o.ground_truth_output is None or not o.attacked_text.words:
                continue
            scored += 1
            right += int(o.output == o.ground_truth_output)
        return f"{round(100.0 * right / scored, 2)}%" if scored else "n/a"


class AveragePerturbedWords(Metric):
    """Mean ``||x̃0 - x0||_0`` over successful attacks (paper: 1.1–1.4 words for SO-Beam)."""

    def __init__(self):
        pass

    def calculate(self, results):
        vals = [
            r.perturbed_result.perturbed_words for r in _second_order(results) if isinstance(r, SuccessfulAttackResult)
        ]
        return round(float(np.mean(vals)), 2) if vals else 0.0


class FirstOrderFindings(Metric):
    """Successful rows whose ``x̃0`` is ``x0`` itself (no word changed): the sentence is vulnerable as it stands, a
    first-order finding, counted apart from the second-order ones (docs/design/search.md)."""

    def __init__(self):
        pass

    def calculate(self, results):
        return sum(
            1
            for r in _second_order(results)
            if isinstance(r, SuccessfulAttackResult) and r.perturbed_result.perturbed_words == 0
        )


class MedianPerplexity(Metric):
    """Median causal-LM perplexity of the originals or of the vulnerable examples, over the rows named by ``rows``.

    ``rows="successful"``: the successful attacks only, originals and vulnerable examples of the same rows (their
    ratio compares like with like; it changes with whatever changes which rows succeed, the patch rule among
    them). ``rows="all"`` (originals only): every row whose original has words, skipped and failed ones included,
    so the figure is the test set's whatever the rules (docs/design/search.md, with the paper's GPT-2 medians).
    The causal LM comes from the resources slot (GPT-2 online, Gemma-3-270M offline).
    """

    def __init__(self, which="vulnerable", causal_lm=None, device=None, rows="successful"):
        if which not in ("original", "vulnerable"):
            raise ValueError("which must be 'original' or 'vulnerable'")
        if rows not in ("successful", "all") or (rows == "all" and which != "original"):
            raise ValueError("rows must be 'successful', or 'all' for the originals")
        self.which = which
        self.rows = rows
        self.causal_lm = causal_lm
        self.device = device

    def calculate(self, results):
        if self.rows == "all":
            texts = [r.original_result.attacked_text.text for r in results if r.original_result.attacked_text.words]
        else:
            succ = [r for r in _second_order(results) if isinstance(r, SuccessfulAttackResult)]
            texts = [
                (r.original_result if self.which == "original" else r.perturbed_result).attacked_text.text for r in succ
            ]
        if not texts:
            return "n/a"
        lm = self.causal_lm
        if lm is None or isinstance(lm, str):
            lm = load_causal_lm(lm, device=self.device)
        return round(float(np.nanmedian(lm.perplexity(texts))), 1)


class PatchRuleName(Metric):
    """The patch rule of the run (docs/design/patch-rules.md), as its summary row."""

    def __init__(self, name):
        self.name = name

    def calculate(self, results):
        return self.name


class NoPatchPairKept(Metric):
    """Sentences skipped because the patch rule kept none of their candidate pairs."""

    def __init__(self):
        pass

    def calculate(self, results):
        return sum(
            1
            for r in _second_order(results)
            if isinstance(r, SkippedAttackResult) and getattr(r.perturbed_result, "skip_kind", None) == PAIR_NOT_KEPT
        )


FIRST_ORDER_ROW = "Of the successes, x̃0 = x0 (vulnerable as it stands):"
PERPLEXITY_ROW = "Median perplexity:"
# the rows each median covers are in its name (docs/design/search.md)
PERPLEXITY_ALL_ORIGINALS = "Median perplexity (original, all rows):"
PERPLEXITY_ORIGINAL = "Median perplexity (original, successful rows):"
PERPLEXITY_VULNERABLE = "Median perplexity (vulnerable, successful rows):"
PERPLEXITY_OFF = "off, causal LM not cached: add perplexity=True (one-off set-up, ~1 min)"


class PerplexityLeftOut(Metric):
    """The summary row that stands where the median-perplexity rows would be, saying why they are absent."""

    def __init__(self, message=PERPLEXITY_OFF):
        self.message = message

    def calculate(self, results):
        return self.message


def second_order_summary_metrics(perplexity=None, causal_lm=None, device=None, patch_rule=None):
    """The rows our second-order recipes add to TextAttack's summary table.

    ``patch_rule``: the run's patch rule name, shown with the count of sentences it left without a pair.

    ``perplexity``: True / False, or None = the median-perplexity rows are shown when the causal LM
    is already cached here (:func:`~textattack_secondorder.resources.causal_lm_ready`), so a
    summary never starts a one-off download or de-quantisation unasked; when they are left out for
    that reason, one row (:class:`PerplexityLeftOut`) says so and how to get them.
    """
    left_out = False
    if perplexity is None:
        perplexity = causal_lm_ready(causal_lm)
        left_out = not perplexity
        if left_out:
            logger.info(
                "median perplexity left out of the summary: the causal LM (%s) is not cached yet; pass "
                "perplexity=True to load it once",
                causal_lm or "slot default",
            )
    rows = {}
    if patch_rule is not None:
        rows["Patch rule:"] = PatchRuleName(patch_rule)
        rows["Skipped, no patch pair kept:"] = NoPatchPairKept()
    rows |= {
        FIRST_ORDER_ROW: FirstOrderFindings(),
        "Avg perturbed words (vulnerable):": AveragePerturbedWords(),
        SECONDS_ROW: SecondsPerExample(),
    }
    if perplexity:
        rows[PERPLEXITY_ALL_ORIGINALS] = MedianPerplexity("original", causal_lm, device, rows="all")
        rows[PERPLEXITY_ORIGINAL] = MedianPerplexity("original", causal_lm, device)
        rows[PERPLEXITY_VULNERABLE] = MedianPerplexity("vulnerable", causal_lm, device)
    elif left_out:
        rows[PERPLEXITY_ROW] = PerplexityLeftOut()
    return rows
