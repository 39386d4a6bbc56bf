"""Reader of TextAttack's CSV attack logs for the meaning-preservation evaluation (docs/design/meaning.md)."""

import logging
import re

import pandas as pd

logger = logging.getLogger(__name__)

# TextAttack's CSV logger marks changed words as [[word]] (color_method="file")
_MARKERS = re.compile(r"\[\[(.*?)\]\]", re.DOTALL)
SPLIT_TOKEN = "<SPLIT>"  # textattack.shared.AttackedText.SPLIT_TOKEN (multi-input texts)


def strip_markers(text):
    """Remove TextAttack's ``[[changed word]]`` markers (and multi-input ``<SPLIT>`` tokens) from a logged text."""
    text = _MARKERS.sub(r"\1", str(text))
    return text.replace(SPLIT_TOKEN, "\n")


# the rows whose perturbed text is what the attack reports: a success, or the output of a goal function that
# maximises (a seq2seq attack); a Failed row's perturbed text is a candidate the attack itself rejected
JUDGED_BY_DEFAULT = ("Successful", "Maximized")


def read_attack_log(path, result_types=JUDGED_BY_DEFAULT, skipped=None, left_out=None):
    """Records of a TextAttack CSV attack log (``--log-to-csv``), markers stripped.

    Args:
        path: the CSV file.
        result_types: rows kept by ``result_type`` (``None`` keeps all). By default the attack's findings only
            (:data:`JUDGED_BY_DEFAULT`): a Failed row's perturbed text is the last candidate the attack tried and
            rejected (an SP-Attack candidate that flipped the label but broke its label rule reads as a success to
            the meaning rule), a Skipped row was never attacked (the model was already wrong).
        skipped: a list that receives ``{"index", "result_type", "skip_reason"}`` of the rows the
            recipes' input guard skipped for bad input (docs/design/hostile-input.md): they are always left out.
        left_out: a dict that receives ``{result_type: count}`` of the rows ``result_types`` left out.
    Returns:
        list of dicts with ``index`` (row in the log), ``result_type``, ``original_text``,
        ``perturbed_text``, ``original_output``, ``perturbed_output``, ``ground_truth_output``.
    """
    df = pd.read_csv(path, keep_default_na=False)
    needed = [
        "original_text",
        "perturbed_text",
        "original_output",
        "perturbed_output",
        "ground_truth_output",
        "result_type",
    ]
    missing = [c for c in needed if c not in df.columns]
    if missing:
        raise ValueError(f"{path} is not a TextAttack CSV attack log: missing column(s) {', '.join(missing)}")
    keep = None if result_types is None else {str(t).lower() for t in result_types}
    records = []
    for i, row in enumerate(df.to_dict("records")):
        if row.get("skip_reason") and row["original_output"] in ("", None):  # never reached the model
            if skipped is not None:
                skipped.append({"index": i, "result_type": row["result_type"], "skip_reason": row["skip_reason"]})
            continue
        if keep is not None and str(row["result_type"]).lower() not in keep:
            if left_out is not None:
                left_out[str(row["result_type"])] = left_out.get(str(row["result_type"]), 0) + 1
            continue
        records.append(
            {
                "index": i,
                "result_type": row["result_type"],
                "original_text": strip_markers(row["original_text"]),
                "perturbed_text": strip_markers(row["perturbed_text"]),
                "original_output": row["original_output"],
                "perturbed_output": row["perturbed_output"],
                "ground_truth_output": row["ground_truth_output"],
            }
        )
    logger.info("read %d of %d rows from %s", len(records), len(df), path)
    return records
