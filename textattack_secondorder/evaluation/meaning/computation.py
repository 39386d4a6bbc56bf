"""Per-example meaning-preservation rows for classifiers and seq2seq models (docs/design/meaning.md).

Each row holds ``s_src``, both ``s_tgt`` scores, ``d_tgt`` and the success flag of
Michel et al. (Eq. 1–2); unlike TEAPOT the per-example rows are kept.
"""

from ...shared.inputs import bad_text_reason
from .chrf import chrf, is_successful, label_agreement, relative_destruction, source_chrf


def _row(original, perturbed, s_tgt_orig, s_tgt_adv, **extra):
    s_src = source_chrf(original, perturbed)
    d_tgt = relative_destruction(s_tgt_orig, s_tgt_adv)
    row = {k: extra.pop(k) for k in ("index", "result_type") if k in extra}
    row.update(
        {
            "original_text": original,
            "perturbed_text": perturbed,
            "source_chrf": s_src,
            "target_score_original": float(s_tgt_orig),
            "target_score_perturbed": float(s_tgt_adv),
            "target_destruction": d_tgt,
            "success": is_successful(s_src, d_tgt),
        }
    )
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
        rows.append(
            _row(
                rec["original_text"],
                rec["perturbed_text"],
                label_agreement(gt, rec["original_output"]),
                label_agreement(gt, rec["perturbed_output"]),
                **extra,
            )
        )
    return rows


def evaluate_seq2seq(sources, adversarial_sources, outputs, adversarial_outputs, references, skipped=None):
    """Per-example rows for a sequence-to-sequence model (``s_tgt`` = chrF, so ``d_tgt`` = RDchrF).

    All five arguments are equally long lists of sentences: ``x``, ``x̂``, ``y_M``, ``ŷ_M``, ``y``.
    A source ``x`` that is no sentence (docs/design/hostile-input.md: empty, whitespace, control characters,
    no letters or digits, ...) is not scored: ``skipped`` (a list) receives ``{"index", "skip_reason"}``.
    """
    lists = [list(sources), list(adversarial_sources), list(outputs), list(adversarial_outputs), list(references)]
    if len({len(v) for v in lists}) != 1:
        raise ValueError(
            "src, adv, out-orig, out-adv and ref must have the same number of lines; got "
            + ", ".join(str(len(v)) for v in lists)
        )
    rows = []
    for i, (x, x_adv, y_m, y_m_adv, y) in enumerate(zip(*lists)):
        reason = bad_text_reason(x)
        if reason:
            if skipped is not None:
                skipped.append({"index": i, "skip_reason": f"source: {reason}"})
            continue
        rows.append(
            _row(x, x_adv, chrf(y_m, y), chrf(y_m_adv, y), index=i, output=y_m, perturbed_output=y_m_adv, reference=y)
        )
    return rows
