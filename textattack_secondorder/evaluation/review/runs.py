"""A run's findings, read from its CSV (docs/design/review.md).

A run is TextAttack's ``--log-to-csv`` log (``original_text``, ``perturbed_text``, ``result_type`` ... with the
changed words in ``[[ ]]``), of any recipe: SP-Attack, textfooler, or a second-order recipe (so-beam, so-enum,
so-random), whose rows carry this package's columns besides (``patch_p1``, ``patch_p2``, ``vulnerable_text``,
``vulnerable_patched_text`` ...). A **finding** is a ``Successful`` row: for an attack, the adversarial sentence beside
its original; for a second-order recipe, the vulnerable example x̃0 beside its original x0, with the patch swap
``p1 → p2`` whose two sides x̃0 and x̃0 ⊕ p the model labels differently. The **attacked** sentences are the run's
rows that are not ``Skipped`` (the model was already wrong, or the input guard refused the row): the denominator of
accepted findings per 100 attacked sentences.
"""

import re
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from ...shared.errors import UserError
from ...shared.label_names import label_text, readable_names
from ..meaning.attack_log import strip_markers

#: the columns every TextAttack CSV log has (``--log-to-csv``)
LOG_COLUMNS = ("original_text", "perturbed_text", "original_output", "perturbed_output", "result_type")
#: the columns a second-order recipe adds (``SecondOrderResult.log_fields``)
SECOND_ORDER_COLUMNS = ("patch_p1", "patch_p2", "vulnerable_text", "vulnerable_patched_text")
#: the model's outputs, whose names a log may carry in a column beside (``original_output_label`` ...)
OUTPUT_COLUMNS = ("ground_truth_output", "original_output", "perturbed_output")

ATTACK, SECOND_ORDER = "attack", "second-order"


class NotARun(ValueError, UserError):
    """A CSV that is not an attack run's log (one line, exit code 2)."""


@dataclass
class Run:
    """One run's findings and counts. ``findings``: a frame with one row per finding (columns of :data:`FINDING`);
    ``attacked``: its rows that were attacked (not skipped); ``rows``: all its rows; ``skipped_rows``: findings left
    out as unreadable, with the reason."""

    name: str
    path: str
    kind: str
    rows: int
    attacked: int
    findings: pd.DataFrame
    label_names: list = None
    skipped_rows: list = field(default_factory=list)


#: a finding's columns: where it comes from, its gold label, the texts a reader compares and the model's outputs
FINDING = ("run", "system", "example", "label", "original", "changed", "patched", "swap", "outputs")


def _names_from_columns(df):
    """The class names a log holds beside its class numbers (a column ``<output>_label`` / ``_name``, or
    ``ground_truth_label``), as a list in class order, or ``None``."""
    names = {}
    for output in OUTPUT_COLUMNS:
        if output not in df.columns:
            continue
        stem = output.removesuffix("_output")
        for col in (f"{output}_label", f"{output}_name", f"{stem}_label", f"{stem}_label_name"):
            if col in df.columns and col != output:
                for number, name in zip(df[output], df[col]):
                    if str(number).strip().isdigit() and str(name).strip():
                        names.setdefault(int(number), str(name).strip())
    if not names:
        return None
    return [names.get(i, str(i)) for i in range(max(names) + 1)]


def read_run(path, name=None, label_names=None):
    """The :class:`Run` of the CSV at ``path`` (``name``: how the sheet names it, default the file's stem).

    ``label_names``: the class names in class order (default: the names the log holds beside its numbers, else the
    numbers). Raises :class:`NotARun` for a file that is not an attack log."""
    path = Path(path)
    if not path.is_file():
        raise NotARun(f"{path}: no such file")
    try:
        df = pd.read_csv(path, keep_default_na=False, dtype=str)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as e:
        raise NotARun(f"{path} is not a CSV attack log ({type(e).__name__}: {str(e).splitlines()[0]})") from None
    missing = [c for c in LOG_COLUMNS if c not in df.columns]
    if missing:
        raise NotARun(
            f"{path} is not an attack run: missing column(s) {', '.join(missing)} (review reads the CSV of "
            "`textattack attack ... --log-to-csv FILE`)"
        )
    kind = SECOND_ORDER if all(c in df.columns for c in SECOND_ORDER_COLUMNS) else ATTACK
    names = readable_names(label_names) or readable_names(_names_from_columns(df))
    name = name or path.stem
    result = df.result_type.str.strip()
    findings, bad = [], []
    for i, row in df[result == "Successful"].iterrows():
        try:
            findings.append(_finding(row, kind, names) | {"run": name, "system": name, "example": int(i)})
        except ValueError as e:
            bad.append({"example": int(i), "reason": str(e)})
    frame = pd.DataFrame(findings, columns=list(FINDING))
    attacked = int((result != "Skipped").sum())
    return Run(name, str(path), kind, len(df), attacked, frame, names, bad)


def _finding(row, kind, names):
    original = strip_markers(row["original_text"]).strip()
    if kind == SECOND_ORDER:
        changed, patched = row["vulnerable_text"].strip(), row["vulnerable_patched_text"].strip()
        if not changed or not patched:
            raise ValueError("a Successful row without its vulnerable example")
        swap = f"{row['patch_p1']} → {row['patch_p2']}"
        before, after = row.get("vulnerable_output", ""), row.get("vulnerable_patched_output", "")
    else:
        changed, patched, swap = strip_markers(row["perturbed_text"]).strip(), "", ""
        if not changed:
            raise ValueError("a Successful row without its perturbed text")
        before, after = row["original_output"], row["perturbed_output"]
    outputs = f"{_label(before, names)} → {_label(after, names)}" if before != "" else ""
    gold = row.get("ground_truth_output", "")
    return {
        "label": _label(gold, names) if gold != "" else "",
        "original": original,
        "changed": changed,
        "patched": patched,
        "swap": swap,
        "outputs": outputs,
    }


def _label(value, names):
    """A class as the sheet shows it: its name where the run has names, else its number (``"1.0"`` read as 1)."""
    value = str(value).strip()
    if re.fullmatch(r"\d+\.0", value):
        value = value[:-2]
    return label_text(value, names)


def read_runs(paths, label_names=None):
    """The :class:`Run` of each CSV in ``paths``, named by their stems (by as much of their path as tells two runs of
    the same file name apart)."""
    paths = [Path(p) for p in paths]
    twice = [p for i, p in enumerate(paths) if p.resolve() in {q.resolve() for q in paths[:i]}]
    if twice:
        raise NotARun(f"{twice[0]} is given twice: each run once")
    return [read_run(p, n, label_names) for p, n in zip(paths, run_names(paths))]


def run_names(paths):
    """Short distinct names of ``paths``: the stem, or the last folders and the stem where stems repeat."""
    depth = 1
    while True:
        names = ["/".join((p.parent.parts[-(depth - 1) :] if depth > 1 else ()) + (p.stem,)) for p in paths]
        if len(set(names)) == len(names) or depth > max(len(p.parts) for p in paths):
            return names
        depth += 1
