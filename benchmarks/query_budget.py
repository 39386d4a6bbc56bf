"""What a query budget or an early stop would cost so-beam, replayed from finished runs (docs/design/speed.md).

A search run with a budget ``B`` is the same search as the one run with the reference budget, cut where
its queries reach ``B`` (TextAttack counts a query per uncached model output and ends the search at the
budget), so one run at the reference budget answers every smaller budget: a success kept needs at most ``B``
queries; a row cut at ``B`` costs about ``B / q`` of its seconds (the victim's two forwards per neighbour
are most of a long row, docs/design/speed.md). ``patience`` is replayed from each row's ``trace`` (depth,
lowest loss of Eq. 4, queries so far per step): the search stops after ``patience`` steps in a row that do
not lower the lowest loss found so far; ``max_depth`` ``d`` likewise: the search ends after its ``d``-th step.

Reads the ``*_examples.csv`` of ``benchmarks/second_order.py`` (columns ``result``, ``queries``,
``cpu_seconds``/``seconds``, ``trace``) or a cell CSV of ``benchmarks/table2.py`` (TextAttack's log:
``result_type``, ``num_queries``, ``seconds``; no trace, budgets only)::

    python benchmarks/query_budget.py RUN_examples.csv [...] --budgets 5000 10000 20000 50000 \\
        --patience 1 2 --out benchmarks/results/query_budget.json

Prints one Markdown table per file and writes them all as JSON (and ``.md`` beside it).
"""

import argparse
import json
from pathlib import Path

import pandas as pd

from textattack_secondorder.shared.files import atomic_write_text


def read_rows(path, recipe="so-beam"):
    """One row per sentence ``recipe`` attacked: ``success`` (bool), ``queries``, ``seconds`` and ``trace`` (list or
    None). A file without a ``recipe`` column is one recipe's log."""
    d = pd.read_csv(path)
    if "recipe" in d:
        d = d[d.recipe == recipe]
    result = d["result"] if "result" in d else d["result_type"]
    d = d.assign(
        result=result.astype(str),
        queries=d["queries"] if "queries" in d else d["num_queries"],
        secs=d["cpu_seconds"] if "cpu_seconds" in d else d["seconds"],
    )
    d = d[d.result.isin(["Successful", "Failed"])]
    trace = d["trace"] if "trace" in d else [None] * len(d)
    return [
        {
            "success": r == "Successful",
            "queries": int(q),
            "seconds": float(s),
            "trace": json.loads(t) if isinstance(t, str) and t.startswith("[") else None,
        }
        for r, q, s, t in zip(d.result, d.queries, d.secs, trace)
    ]


def stop_queries(trace, patience):
    """Queries spent when a search with ``patience`` would have stopped, or None if it runs to its end."""
    lowest, stale = float("inf"), 0
    for step in trace[:-1]:  # the last step ends the search anyway
        stale = 0 if step["loss"] < lowest else stale + 1
        lowest = min(lowest, step["loss"])
        if stale >= patience:
            return step["queries"]
    return None


def depth_queries(trace, max_depth):
    """Queries spent when a search of at most ``max_depth`` steps ends, or None if it ran no deeper."""
    return trace[max_depth - 1]["queries"] if len(trace) > max_depth else None


def replay(rows, cut):
    """Successes and median seconds when each row is cut at ``cut(row)`` queries (None: not cut)."""
    kept, fail_secs, succ_secs = 0, [], []
    for r in rows:
        limit = cut(r)
        if limit is None or r["queries"] <= limit:
            (succ_secs if r["success"] else fail_secs).append(r["seconds"])
            kept += r["success"]
        else:
            fail_secs.append(r["seconds"] * limit / max(r["queries"], 1))
    med = lambda xs: float(pd.Series(xs).median()) if xs else None  # noqa: E731
    ms, mf = med(succ_secs), med(fail_secs)
    return {
        "successes": kept,
        "median_seconds_success": None if ms is None else round(ms, 1),
        "median_seconds_failure": None if mf is None else round(mf, 1),
        "failure_over_success": None if not (ms and mf) else round(mf / ms, 2),
        "seconds_per_attacked": round((sum(succ_secs) + sum(fail_secs)) / max(len(rows), 1), 1),
    }


def table(path, budgets, patiences, recipe="so-beam", depths=()):
    rows = read_rows(path, recipe)
    lines = [{"rule": "as run", **replay(rows, lambda r: None)}]
    lines += [{"rule": f"budget {b:,}", **replay(rows, lambda r, b=b: b)} for b in budgets]
    if rows and all(r["trace"] is not None for r in rows):
        for p in patiences:
            lines.append({"rule": f"patience {p}", **replay(rows, lambda r, p=p: stop_queries(r["trace"], p))})
        for d in depths:
            lines.append({"rule": f"max_depth {d}", **replay(rows, lambda r, d=d: depth_queries(r["trace"], d))})
    q = pd.DataFrame(rows)
    return {
        "file": str(path),
        "attacked": len(rows),
        "queries_success": q[q.success].queries.describe().round(0).to_dict() if len(q) else {},
        "queries_failure": q[~q.success].queries.describe().round(0).to_dict() if len(q) else {},
        "rules": lines,
    }


def markdown(t):
    head = f"**{t['file']}** ({t['attacked']} attacked)\n\n"
    cols = ["rule", "successes", "median_seconds_success", "median_seconds_failure", "failure_over_success",
            "seconds_per_attacked"]  # fmt: skip
    body = "| " + " | ".join(cols) + " |\n|" + "---|" * len(cols) + "\n"
    body += "".join("| " + " | ".join(str(r[c]) for c in cols) + " |\n" for r in t["rules"])
    return head + body


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("files", nargs="+", type=Path)
    ap.add_argument("--budgets", nargs="+", type=int, default=[2000, 5000, 10000, 15000, 20000])
    ap.add_argument("--patience", nargs="+", type=int, default=[1, 2])
    ap.add_argument("--max-depth", nargs="*", type=int, default=[], help="replay so-beam's max_depth (default 6)")
    ap.add_argument("--recipe", default="so-beam", help="the rows of this recipe, where a file holds several")
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    tables = [table(f, args.budgets, args.patience, args.recipe, args.max_depth) for f in args.files]
    text = "\n".join(markdown(t) for t in tables)
    print(text)
    if args.out:
        atomic_write_text(args.out, json.dumps(tables, indent=2) + "\n")
        atomic_write_text(args.out.with_suffix(".md"), text)


if __name__ == "__main__":
    main()
