"""The review sheet's items and the score of its marks: the one place that decides both (docs/design/review.md).

A sheet is open or blind.

* **open**: one item per finding, the original beside it, system names shown; the reader marks per finding
  "reads as written by a person" (``natural``) and "keeps the label" (``keeps_label``: for an attack, the changed
  sentence states the original's label; for a second-order finding, the patch swap keeps x̃0's label).
* **blind**: one item per distinct sentence (the originals, the changed sentences and, for second-order findings,
  x̃0 ⊕ p), shuffled so that no two sentences of one finding stand side by side, no system named; the reader gives
  each sentence the label it states (``read_label``) and whether a person could have written it (``natural``).
  Whether a finding keeps the label is then the reader's own label of the changed sentence against the reader's own
  label of its original (x̃0 ⊕ p against x̃0 for a second-order finding); a reference the reader marked ``unsure``
  leaves the finding's label verdict open. The key (which sentence is which) is written beside the page.

A finding is **accepted** when it reads as written by a person AND keeps the label. The score of a run is its accepted
findings per 100 attacked sentences: the accepted share of the findings read times the run's findings over its
attacked sentences (exactly accepted / attacked x 100 when every finding was read).

A reader's fluency on Xu et al.'s 1-5 scale (the package's blind-read benchmarks) counts as ``natural`` from
:data:`FLUENT` up.
"""

import random
from pathlib import Path

import numpy as np
import pandas as pd

from ...shared.digest import content_digest
from ...shared.errors import UserError
from .marks import (
    BLIND,
    CHANGED,
    FLUENT,
    OPEN,
    ORIGINAL,
    PATCHED,
    UNSURE,
    BadMarks,
    check_marks,
    key_from_marks,
    mode_of,
    read_marks,
)
from .result import ReviewScore, ReviewSheet
from .runs import read_runs


class NoFindings(ValueError, UserError):
    """Nothing a sheet could hold: runs without a finding, or a blind sheet without label names (one line)."""


# ------------------------------------------------------------------------------------------------ items
def sample_findings(runs, size=None, seed=0):
    """The findings of ``runs`` (:class:`~.runs.Run`), at most ``size`` of each run drawn at random with ``seed``
    (in the run's order), each with its run's ``attacked`` and ``run_findings`` counts."""
    frames = []
    for run in runs:
        f = run.findings
        if size is not None and len(f) > size:
            f = f.sample(n=size, random_state=seed).sort_values("example")
        frames.append(f.assign(attacked=run.attacked, run_findings=len(run.findings)))
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def open_key(findings):
    """The open sheet's key: one row per finding, ``id`` first (0, 1, ...), and the sheet's id."""
    key = findings.reset_index(drop=True)
    key.insert(0, "id", range(len(key)))
    return with_sheet_id(key, OPEN)


def blind_rows(findings):
    """The sentences of each finding as blind key rows: its original, its changed sentence and (second order) x̃0 ⊕ p,
    with the finding's run, system, example and gold label (and its run's counts where given)."""
    counts = [c for c in ("attacked", "run_findings") if c in findings.columns]
    rows = []
    for f in findings.to_dict("records"):
        base = {"run": f["run"], "system": f["system"], "example": f["example"], "label": f["label"]}
        base |= {c: f[c] for c in counts}
        rows.append({"group": ORIGINAL, "system": "original", "text": f["original"]} | _without(base, "system"))
        rows.append({"group": CHANGED, "text": f["changed"]} | base)
        if f.get("patched"):
            rows.append({"group": PATCHED, "text": f["patched"]} | base)
    cols = ["group", "run", "system", "example", "label", "text", *counts]
    return pd.DataFrame(rows, columns=cols).drop_duplicates(["group", "run", "system", "example", "text"])


def _without(d, k):
    return {a: b for a, b in d.items() if a != k}


def apart_pairs(rows):
    """The pairs of texts (frozensets) that must not stand side by side in a blind sheet: each original with every
    changed or patched sentence of the same run and example, and each x̃0 with its x̃0 ⊕ p."""
    pairs = set()
    for _, g in rows.groupby(["run", "example"]):
        for a in g[g.group == ORIGINAL].text:
            pairs.update(frozenset((a, b)) for b in g[g.group != ORIGINAL].text)
    for _, g in rows[rows.group != ORIGINAL].groupby(["run", "system", "example"]):
        for a in g[g.group == CHANGED].text:
            pairs.update(frozenset((a, b)) for b in g[g.group == PATCHED].text)
    return pairs


def shuffle_apart(texts, pairs, seed, tries=200):
    """``texts`` in a seeded random order in which no two texts of a pair in ``pairs`` (frozensets) stand side by
    side (the first of ``tries`` shuffles that manages it; the last one tried otherwise)."""
    texts = list(texts)
    rng = random.Random(seed)
    for _ in range(tries):
        rng.shuffle(texts)
        if not any(frozenset(ab) in pairs for ab in zip(texts, texts[1:])):
            break
    return texts


def blind_key(rows, seed=0):
    """The blind sheet's key: ``rows`` (:func:`blind_rows`' columns) with the id of each distinct text in a shuffled
    order (:func:`shuffle_apart` of :func:`apart_pairs`), sorted by id, and the sheet's id. A text in several rows
    (an original attacked by two systems) is one item."""
    texts = shuffle_apart(dict.fromkeys(rows.text), apart_pairs(rows), seed)
    ids = {t: n for n, t in enumerate(texts)}
    key = rows.copy()
    key.insert(0, "id", key.text.map(ids))
    key = key.sort_values(["id", "group"]).reset_index(drop=True)
    return with_sheet_id(key, BLIND)


def with_sheet_id(key, mode):
    """``key`` with the ``sheet`` column: a digest of its content and mode, which every marked file carries back."""
    key = key.drop(columns="sheet", errors="ignore")
    sheet = content_digest({"mode": mode, "key": key.astype(str).to_dict("split")}, length=12)
    return key.assign(sheet=sheet)


# ------------------------------------------------------------------------------------------------ judge
def judge_items(key, marks):
    """A blind key with each reader's verdicts (``marks``: one frame per reader, :func:`read_marks`), reader ``n``
    (1, 2, ...) in the columns

    * ``label_n`` — the label the reader read; ``natural_n`` — 1.0 / 0.0 (from ``fluency_n`` >= :data:`FLUENT`
      where the reader gave fluency instead); ``fluency_n`` where given;
    * ``kept_n`` — on changed and patched rows: the reader's label equals the reader's label of the reference (the
      original of the same run and example; for x̃0 ⊕ p the x̃0 of the same finding); NaN where that is ``unsure``
      or unread;
    * ``gold_n`` — the reader's label equals the key's gold label;
    * ``accepted_n`` — ``kept_n`` and the changed sentence's ``natural_n`` (on a patched row, its x̃0's).
    """
    judged = key.copy()
    at_original = list(zip(judged.run, judged.example))
    at_changed = list(zip(judged.run, judged.system, judged.example))
    group = judged.group.to_numpy()
    for n, m in enumerate(marks, 1):
        m = m[m.id.isin(judged.id)]
        cols = {"read_label": f"label_{n}", "natural": f"natural_{n}", "fluency": f"fluency_{n}"}
        judged = judged.merge(m[["id", *[c for c in cols if c in m.columns]]].rename(columns=cols), on="id", how="left")
        if f"natural_{n}" not in judged.columns and f"fluency_{n}" in judged.columns:
            fluency = judged[f"fluency_{n}"].to_numpy(dtype=float)
            judged[f"natural_{n}"] = np.where(np.isnan(fluency), np.nan, (fluency >= FLUENT).astype(float))
        label = judged[f"label_{n}"].astype(object).to_numpy() if f"label_{n}" in judged.columns else None
        originals = judged[group == ORIGINAL].drop_duplicates(["run", "example"]).set_index(["run", "example"])
        changed = judged[group == CHANGED].drop_duplicates(["run", "system", "example"])
        changed = changed.set_index(["run", "system", "example"])
        if label is not None:
            ref = np.where(
                group == PATCHED,
                changed[f"label_{n}"].reindex(at_changed).to_numpy(),
                originals[f"label_{n}"].reindex(at_original).to_numpy(),
            )
            read = (group != ORIGINAL) & ~pd.isna(ref) & ~np.isin(ref, [UNSURE, ""]) & (label != "")
            read &= ~pd.isna(label)
            judged[f"kept_{n}"] = np.where(read, (label == ref).astype(float), np.nan)
            gold = judged.label.astype(str).str.strip().str.lower().to_numpy()
            judged[f"gold_{n}"] = np.where((gold == "") | (label == ""), np.nan, (label == gold).astype(float))
        if f"natural_{n}" in judged.columns and label is not None:
            own = judged[f"natural_{n}"].to_numpy(dtype=float)
            x0 = changed[f"natural_{n}"].reindex(at_changed).to_numpy(dtype=float)
            natural = np.where(group == PATCHED, x0, own)
            judged[f"accepted_{n}"] = judged[f"kept_{n}"].to_numpy() * natural
    return judged


def judge_findings(key, marks):
    """One row per finding, reader ``n``'s ``natural_n``, ``kept_n`` and ``accepted_n`` (1.0 / 0.0 / NaN unread).

    An open key takes each reader's marks as they are (``kept_n`` from ``keeps_label``); a blind key is judged by
    :func:`judge_items` and each finding takes the verdicts of its changed sentence's row (of its x̃0 ⊕ p row for
    a second-order finding, and x̃0's ``natural``)."""
    if mode_of(key) == OPEN:
        judged = key.copy()
        for n, m in enumerate(marks, 1):
            m = m[m.id.isin(judged.id)]
            for mark, col in (("natural", f"natural_{n}"), ("keeps_label", f"kept_{n}")):
                values = dict(zip(m.id, m[mark])) if mark in m.columns else {}
                judged[col] = judged.id.map(values).astype(float)
            judged[f"accepted_{n}"] = judged[f"natural_{n}"] * judged[f"kept_{n}"]
        return judged
    items = judge_items(key, marks)
    changed = items[items.group == CHANGED].drop_duplicates(["run", "system", "example"])
    patched = items[items.group == PATCHED].drop_duplicates(["run", "system", "example"])
    finding = ["run", "system", "example"]
    out = changed.set_index(finding)
    p = patched.set_index(finding)
    for n in range(1, len(marks) + 1):
        if len(p):
            out.loc[p.index, f"kept_{n}"] = p[f"kept_{n}"]
            out.loc[p.index, f"accepted_{n}"] = p[f"accepted_{n}"]
    return out.reset_index()


# ------------------------------------------------------------------------------------------------ score
def reader_means(frame, by, column, readers):
    """``{group: [mean of column_n over the group's rows with a verdict, for each reader n]}`` (NaN where none)."""
    out = {}
    for name, g in frame.groupby(by, sort=False):
        out[name] = [
            float(g[f"{column}_{n}"].dropna().mean()) if f"{column}_{n}" in g else float("nan") for n in readers
        ]
    return out


def every_reader(frame, column, readers):
    """``column`` of each row as every reader gave it: the least of the readers' verdicts, NaN unless all read it."""
    values = frame[[f"{column}_{n}" for n in readers]].to_numpy(dtype=float)
    return np.where(np.isnan(values).any(axis=1), np.nan, values.min(axis=1) if len(values) else np.nan)


def score_rows(findings, readers, names):
    """Per run and system, per reader (and, for several readers, their mean and the findings every reader
    accepted): findings, attacked, on the sheet, read, the shares natural / keeps the label / accepted (% of the
    findings read) and accepted findings per 100 attacked sentences (:func:`per_100`), rounded to 0.1 at the end."""
    findings = findings.copy()
    labels = list(names)
    if len(readers) > 1:
        for col in ("natural", "kept", "accepted"):
            findings[f"{col}_every"] = every_reader(findings, col, readers)
    shares = (("natural", "natural_pct"), ("kept", "keeps_label_pct"), ("accepted", "accepted_pct"))
    rows = []
    for (run, system), g in findings.groupby(["run", "system"], sort=False):
        counts = {"findings": _count(g, "run_findings", len(g)), "attacked": _count(g, "attacked", None)}
        per = []
        for n, name in zip([*readers, "every"] if len(readers) > 1 else readers, [*labels, "every reader"]):
            read = g[f"accepted_{n}"].notna() if f"accepted_{n}" in g else pd.Series(False, index=g.index)
            row = {"run": run, "system": system, "reader": name, **counts, "on_sheet": len(g), "read": int(read.sum())}
            for col, out in shares:
                v = g[f"{col}_{n}"].dropna() if f"{col}_{n}" in g else pd.Series(dtype=float)
                row[out] = 100.0 * float(v.mean()) if len(v) else None
            row["accepted_per_100"] = per_100(row["accepted_pct"], counts["findings"], counts["attacked"])
            per.append(row)
        if len(readers) > 1:  # the readers' mean, before the every-reader row
            mean = dict(per[0], reader="mean of readers", read=None)
            for out in [o for _, o in shares] + ["accepted_per_100"]:
                vals = [r[out] for r in per[:-1] if r[out] is not None]
                mean[out] = float(np.mean(vals)) if vals else None
            per.insert(len(per) - 1, mean)
        for row in per:
            row.update({k: round(v, 1) for k, v in row.items() if isinstance(v, float)})
        rows.extend(per)
    return rows


def _count(g, col, default):
    return int(g[col].iloc[0]) if col in g.columns and str(g[col].iloc[0]) != "" else default


def per_100(accepted_pct, findings, attacked):
    """Accepted findings per 100 attacked sentences: the accepted share of the findings read x findings / attacked
    (accepted / attacked x 100 when every finding was read)."""
    if accepted_pct is None or not attacked:
        return None
    return accepted_pct * findings / attacked


# ------------------------------------------------------------------------------------------------ one call
def build_sheet(paths, blind=False, sample=None, seed=0, label_names=None, title=None):
    """The :class:`~.result.ReviewSheet` of the runs at ``paths`` (CSV logs, :func:`~.runs.read_runs`): every
    finding (at most ``sample`` per run, drawn with ``seed``), open or ``blind`` (shuffled with ``seed``).
    ``label_names``: the class names in class order where the runs carry none."""
    runs = read_runs(paths, label_names)
    findings = sample_findings(runs, sample, seed)
    notes = [
        f"{r.name}: {len(r.skipped_rows)} Successful rows left out ({r.skipped_rows[0]['reason']}, row "
        f"{r.skipped_rows[0]['example']} ...)"
        for r in runs
        if r.skipped_rows
    ]
    notes += [
        f"{r.name} has no findings ({r.rows} rows, {r.attacked} attacked): nothing of it to read"
        for r in runs
        if not len(r.findings)
    ]
    if not len(findings):
        raise NoFindings(f"no findings to review in {', '.join(r.path for r in runs)} (no Successful row)")
    labels = list(dict.fromkeys(n for r in runs for n in (r.label_names or [])))
    if not labels:
        if blind:
            raise NoFindings(
                "a blind sheet asks each reader for the label a sentence states, and the runs carry no label names: "
                "give them with --label-names (class 0 first, e.g. negative,positive)"
            )
        notes.append("the runs carry no label names: labels are shown as class numbers (--label-names names them)")
    key = blind_key(blind_rows(findings), seed) if blind else open_key(findings)
    on_sheet = findings.groupby("run", sort=False).size()
    info = [
        {"name": r.name, "path": r.path, "kind": r.kind, "rows": r.rows, "attacked": r.attacked}
        | {"findings": len(r.findings), "on_sheet": int(on_sheet.get(r.name, 0)), "unreadable": len(r.skipped_rows)}
        for r in runs
    ]
    title = title or ("Review sheet" if blind else "Review: " + ", ".join(r.name for r in runs))
    return ReviewSheet(key, BLIND if blind else OPEN, labels, title, info, notes)


def read_key(path):
    """A sheet's key: the CSV ``review`` wrote beside the page (a blind sheet's ``_key.csv``, an open sheet's
    ``.csv``)."""
    try:
        key = pd.read_csv(path, keep_default_na=False)
    except (OSError, pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as e:
        raise BadMarks(f"{path}: not a readable CSV ({type(e).__name__})") from None
    blind = {"id", "group", "run", "system", "example", "text"}
    open_ = {"id", "run", "system", "example", "changed"}
    if not (blind <= set(key.columns) or open_ <= set(key.columns)):
        raise BadMarks(f"{path} is not a review sheet's key (the CSV textattack-so review writes beside the page)")
    return key


def score_marked(marked, key=None):
    """The :class:`~.result.ReviewScore` of the marked CSVs ``marked`` (one per reader), against the sheet's ``key``
    (a path or a frame; needed for a blind sheet; an open sheet's download carries its own)."""
    marked = [str(p) for p in marked]
    if key is not None and not isinstance(key, pd.DataFrame):
        key = read_key(key)
    marks = [read_marks(p, key) for p in marked]
    if key is None:
        key = key_from_marks(marks[0], marked[0])
        for m, p in zip(marks[1:], marked[1:]):
            check_marks(m, key, p)
    names = reader_names(marks, marked)
    readers = list(range(1, len(marks) + 1))
    findings = judge_findings(key, marks)
    rows = score_rows(findings, readers, names)
    warnings = []
    for n, name in zip(readers, names):
        unread = int(findings[f"accepted_{n}"].isna().sum())
        if unread:
            warnings.append(
                f"{name} left {unread} of {len(findings)} findings without a verdict (unmarked, or an original read "
                "unsure): the figures rest on the findings read"
            )
    originals = []
    if mode_of(key) == BLIND:
        items = judge_items(key, marks)
        items = items[items.group == ORIGINAL].drop_duplicates(["run", "example"])
        for run, g in items.groupby("run", sort=False):
            for n, name in zip(readers, names):
                v = g[f"natural_{n}"].dropna() if f"natural_{n}" in g else pd.Series(dtype=float)
                pct = round(100.0 * float(v.mean()), 1) if len(v) else None
                originals.append({"run": run, "reader": name, "read": len(v), "natural_pct": pct})
    sheet = str(key.sheet.iloc[0]) if "sheet" in key.columns and len(key) else ""
    return ReviewScore(sheet, mode_of(key), names, marked, rows, originals, findings, warnings)


def reader_names(marks, paths):
    """Each marked file's reader: the name the page recorded (``reader``), else the file's stem; made distinct."""
    names = []
    for m, p in zip(marks, paths):
        given = [r for r in dict.fromkeys(m.get("reader", pd.Series(dtype=str))) if str(r).strip()]
        name = str(given[0]).strip() if len(given) == 1 else Path(p).stem
        names.append(name if name not in names else f"{name} ({len(names) + 1})")
    return names
