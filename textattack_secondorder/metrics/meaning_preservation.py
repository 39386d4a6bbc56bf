"""Meaning preservation of adversarial perturbations (Michel et al., NAACL 2019; ALGORITHMS.md §3).

An adversarial perturbation ``x -> x̂`` of a model ``M`` is judged on both sides:

* source-side preservation ``s_src(x, x̂)``: chrF (character n-grams up to order
  6, β = 2; Popović 2015) of the perturbed input against the original, through
  sacrebleu's ``sentence_chrf`` and scaled to [0, 1] (:func:`source_chrf`);
* target-side relative meaning destruction (Michel et al., Eq. 1)::

      d_tgt(y, y_M, ŷ_M) = 0                                         if s_tgt(y, ŷ_M) >= s_tgt(y, y_M)
                         = (s_tgt(y, y_M) - s_tgt(y, ŷ_M)) / s_tgt(y, y_M)   otherwise

  where ``y`` is the reference, ``y_M = M(x)`` and ``ŷ_M = M(x̂)``
  (:func:`relative_destruction`). With ``s_tgt`` = chrF this is RDchrF
  (:func:`rdchrf`); for a classifier ``s_tgt`` is 0/1 label agreement
  (:func:`label_agreement`), so ``d_tgt`` is 1 exactly when a correct prediction
  was flipped to a wrong one;
* an adversarial example is *successful* when it destroys more meaning on the
  target than on the source (Michel et al., Eq. 2): ``1 - s_src(x, x̂) < d_tgt``
  (:func:`is_successful`).

Scores are summarised as TEAPOT does (mean, std, 5–95 % range, success
percentage; :func:`summarize`, :func:`summary`); unlike TEAPOT the per-example
rows are kept too (:func:`evaluate_classification`, :func:`evaluate_seq2seq`).

:class:`MeanChrF` is a TextAttack ``Metric`` (mean source chrF of successful
attacks) for ``textattack.AttackArgs(metrics={"Mean chrF:": MeanChrF()})``;
:func:`read_attack_log` reads TextAttack's CSV attack logs.
"""
import logging
import re

import numpy as np
from textattack.metrics import Metric

logger = logging.getLogger(__name__)

# chrF as Michel et al. (2019) use it: "chrF (Popović 2015)", sacrebleu's defaults.
CHAR_ORDER = 6  # character n-grams up to 6
WORD_ORDER = 0  # chrF, not chrF++
BETA = 2  # recall weighted twice as much as precision
# TEAPOT reports the 5 %-95 % range of each score
PERCENTILES = (5.0, 95.0)
# TextAttack's CSV logger marks changed words as [[word]] (color_method="file")
_MARKERS = re.compile(r"\[\[(.*?)\]\]", re.DOTALL)
SPLIT_TOKEN = "<SPLIT>"  # textattack.shared.AttackedText.SPLIT_TOKEN (multi-input texts)


# ------------------------------------------------------------------ scores
def chrf(hypothesis, reference, char_order=CHAR_ORDER, beta=BETA):
    """Sentence chrF of ``hypothesis`` against ``reference``, in [0, 1] (sacrebleu ``sentence_chrf`` / 100)."""
    from sacrebleu import sentence_chrf

    return sentence_chrf(str(hypothesis), [str(reference)], char_order=char_order, word_order=WORD_ORDER,
                         beta=beta).score / 100.0


def source_chrf(original, perturbed):
    """Source-side preservation ``s_src(x, x̂)`` (Michel et al. §2.2): chrF of ``x̂`` with ``x`` as reference."""
    return chrf(perturbed, original)


def relative_destruction(s_original, s_adversarial):
    """Relative meaning destruction ``d_tgt`` (Michel et al., Eq. 1) from ``s_tgt(y, y_M)`` and ``s_tgt(y, ŷ_M)``.

    ``0`` when the adversarial output is at least as good as the original one (this
    also covers ``s_tgt(y, y_M) = 0``), otherwise the relative decrease
    ``(s_tgt(y, y_M) - s_tgt(y, ŷ_M)) / s_tgt(y, y_M)``.
    """
    s_original, s_adversarial = float(s_original), float(s_adversarial)
    if s_adversarial >= s_original:
        return 0.0
    return (s_original - s_adversarial) / s_original


def rdchrf(reference, output, adversarial_output):
    """RDchrF: ``d_tgt`` of Eq. 1 with ``s_tgt`` = chrF against the reference ``y`` (Michel et al. §2.3)."""
    return relative_destruction(chrf(output, reference), chrf(adversarial_output, reference))


def label_agreement(reference, prediction):
    """``s_tgt`` for a classifier: 1 when the predicted label equals the gold label, else 0."""
    return 1.0 if _same_label(reference, prediction) else 0.0


def is_successful(s_src, d_tgt):
    """Michel et al., Eq. 2: the perturbation destroys more meaning on the target than on the source."""
    return (1.0 - float(s_src)) < float(d_tgt)


def _same_label(a, b):
    try:
        return float(a) == float(b)
    except (TypeError, ValueError):
        return str(a).strip() == str(b).strip()


# ------------------------------------------------------------------ summaries
def summarize(values):
    """TEAPOT's aggregate of one score: ``{"n", "mean", "std", "p5", "p95"}`` (population std, NaN when empty)."""
    v = np.asarray([float(x) for x in values], dtype=float)
    if v.size == 0:
        nan = float("nan")
        return {"n": 0, "mean": nan, "std": nan, "p5": nan, "p95": nan}
    lo, hi = np.percentile(v, PERCENTILES)
    return {"n": int(v.size), "mean": float(v.mean()), "std": float(v.std()), "p5": float(lo), "p95": float(hi)}


def summary(rows):
    """Aggregates of per-example rows (from :func:`evaluate_classification` / :func:`evaluate_seq2seq`).

    Returns ``{"n", "source_chrf": summarize(...), "target_destruction": summarize(...), "success_pct"}``.
    """
    rows = list(rows)
    n = len(rows)
    return {
        "n": n,
        "source_chrf": summarize(r["source_chrf"] for r in rows),
        "target_destruction": summarize(r["target_destruction"] for r in rows),
        "success_pct": (100.0 * sum(bool(r["success"]) for r in rows) / n) if n else float("nan"),
    }


def format_summary(s, target_name="RDchrF"):
    """TEAPOT-style text block (scores × 100, as TEAPOT prints them)."""

    def block(title, d):
        return (f"{title}:\nMean: {100 * d['mean']:.3f}\nStd: {100 * d['std']:.3f}\n"
                f"5%-95%: {100 * d['p5']:.3f}-{100 * d['p95']:.3f}\n-----")

    return "\n".join([
        f"Examples: {s['n']}",
        block("Source side preservation (chrF)", s["source_chrf"]),
        block(f"Target side degradation ({target_name})", s["target_destruction"]),
        f"Success percentage: {s['success_pct']:.2f} %",
    ])


# ------------------------------------------------------------------ per-example evaluation
def _row(original, perturbed, s_tgt_orig, s_tgt_adv, **extra):
    s_src = source_chrf(original, perturbed)
    d_tgt = relative_destruction(s_tgt_orig, s_tgt_adv)
    row = {k: extra.pop(k) for k in ("index", "result_type") if k in extra}
    row.update({
        "original_text": original,
        "perturbed_text": perturbed,
        "source_chrf": s_src,
        "target_score_original": float(s_tgt_orig),
        "target_score_perturbed": float(s_tgt_adv),
        "target_destruction": d_tgt,
        "success": is_successful(s_src, d_tgt),
    })
    row.update(extra)  # model outputs, gold label, ...
    return row


def evaluate_classification(records):
    """Per-example rows for a classifier (``s_tgt`` = 0/1 label agreement).

    Args:
        records: iterable of dicts with ``original_text``, ``perturbed_text``,
            ``original_output``, ``perturbed_output``, ``ground_truth_output`` (other keys are kept).
    """
    rows = []
    for rec in records:
        extra = {k: v for k, v in rec.items() if k not in ("original_text", "perturbed_text")}
        gt = rec["ground_truth_output"]
        rows.append(_row(rec["original_text"], rec["perturbed_text"],
                         label_agreement(gt, rec["original_output"]), label_agreement(gt, rec["perturbed_output"]),
                         **extra))
    return rows


def evaluate_seq2seq(sources, adversarial_sources, outputs, adversarial_outputs, references):
    """Per-example rows for a sequence-to-sequence model (``s_tgt`` = chrF, so ``d_tgt`` = RDchrF).

    All five arguments are equally long lists of sentences: ``x``, ``x̂``, ``y_M``, ``ŷ_M``, ``y``.
    """
    lists = [list(sources), list(adversarial_sources), list(outputs), list(adversarial_outputs), list(references)]
    if len({len(v) for v in lists}) != 1:
        raise ValueError("src, adv, out-orig, out-adv and ref must have the same number of lines; got "
                         + ", ".join(str(len(v)) for v in lists))
    rows = []
    for i, (x, x_adv, y_m, y_m_adv, y) in enumerate(zip(*lists)):
        rows.append(_row(x, x_adv, chrf(y_m, y), chrf(y_m_adv, y), index=i, output=y_m,
                         perturbed_output=y_m_adv, reference=y))
    return rows


# ------------------------------------------------------------------ TextAttack logs
def strip_markers(text):
    """Remove TextAttack's ``[[changed word]]`` markers (and multi-input ``<SPLIT>`` tokens) from a logged text."""
    text = _MARKERS.sub(r"\1", str(text))
    return text.replace(SPLIT_TOKEN, "\n")


def read_attack_log(path, result_types=("Successful", "Failed", "Maximized")):
    """Records of a TextAttack CSV attack log (``--log-to-csv``), markers stripped.

    Args:
        path: the CSV file.
        result_types: rows kept by ``result_type`` (``None`` keeps all). Skipped rows
            (the model was already wrong) are left out by default: they were not attacked.
    Returns:
        list of dicts with ``index`` (row in the log), ``result_type``, ``original_text``,
        ``perturbed_text``, ``original_output``, ``perturbed_output``, ``ground_truth_output``.
    """
    import pandas as pd

    df = pd.read_csv(path, keep_default_na=False)
    needed = ["original_text", "perturbed_text", "original_output", "perturbed_output", "ground_truth_output",
              "result_type"]
    missing = [c for c in needed if c not in df.columns]
    if missing:
        raise ValueError(f"{path} is not a TextAttack CSV attack log: missing column(s) {', '.join(missing)}")
    keep = None if result_types is None else {str(t).lower() for t in result_types}
    records = []
    for i, row in enumerate(df.to_dict("records")):
        if keep is not None and str(row["result_type"]).lower() not in keep:
            continue
        records.append({
            "index": i,
            "result_type": row["result_type"],
            "original_text": strip_markers(row["original_text"]),
            "perturbed_text": strip_markers(row["perturbed_text"]),
            "original_output": row["original_output"],
            "perturbed_output": row["perturbed_output"],
            "ground_truth_output": row["ground_truth_output"],
        })
    logger.info("read %d of %d rows from %s", len(records), len(df), path)
    return records


# ------------------------------------------------------------------ TextAttack metric
class MeanChrF(Metric):
    """Mean source-side chrF ``s_src(x, x̂)`` (× 100) over successful attacks: a TextAttack ``Metric``.

    ``textattack.AttackArgs(metrics={"Mean chrF (successful):": MeanChrF()})`` adds a row to
    TextAttack's summary table. Accumulate-then-compute also works: :meth:`update` with results
    (from several runs or shards), then :meth:`compute`.
    """

    def __init__(self, char_order=CHAR_ORDER, beta=BETA):
        self.char_order = char_order
        self.beta = beta
        self.reset()

    def reset(self):
        self.total = 0.0
        self.count = 0

    def update(self, results):
        from textattack.attack_results import SuccessfulAttackResult

        for r in results:
            if isinstance(r, SuccessfulAttackResult):
                self.total += chrf(r.perturbed_result.attacked_text.text, r.original_result.attacked_text.text,
                                   self.char_order, self.beta)
                self.count += 1
        return self

    def compute(self):
        """Mean chrF × 100, rounded to 2 decimals; 0.0 when no attack succeeded."""
        return round(100.0 * self.total / self.count, 2) if self.count else 0.0

    def calculate(self, results):
        """TextAttack's entry point: the metric of ``results`` alone (state is reset)."""
        self.reset()
        return self.update(results).compute()


__all__ = [
    "BETA", "CHAR_ORDER", "MeanChrF", "chrf", "evaluate_classification", "evaluate_seq2seq", "format_summary",
    "is_successful", "label_agreement", "rdchrf", "read_attack_log", "relative_destruction", "source_chrf",
    "strip_markers", "summarize", "summary",
]

