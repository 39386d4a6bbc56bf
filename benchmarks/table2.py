"""Table 2 of the Double Perturbation paper on MR: base and certified (IBP) victims, through the stock CLI.

Zhang et al. (2021, Table 2 and §A.1): on robustly trained (IBP, Jia et al. 2019) models the Genetic
attack's success falls, and second-order attacks still find vulnerable examples. Here, on the same
first ``--num-examples`` MR test sentences, every (victim, recipe, rules) cell is one run of the stock
command line::

    textattack attack --recipe "so-beam^patch_rule='paper',neighbor_rule='paper'" --model mr-cnn-ibp \\
        --dataset-from-file "recipes/datasets/mr.py^dataset" --num-examples 200 --log-to-csv CELL.csv

with ``alzantot-offline`` (Genetic), ``bae-offline``, ``so-enum``, ``so-beam`` and ``so-random``; the
second-order recipes once with the paper's rules (``patch_rule='paper'``, ``neighbor_rule='paper'``:
counter-fitted patch words, Algorithm 1 alone) and once with the package's defaults. ``textattack-so
certify`` gives each victim's certified accuracy on the same sentences, and the Genetic attack's
successes are checked against the certificates: a success on a certified sentence would mean an
unsound bound (the certificate and alzantot-offline read the same synonym list), and the script says so
and exits 1.

    OMP_NUM_THREADS=1 nice -n 10 python benchmarks/table2.py --num-examples 200 \\
        --examples-for so-enum=50 bae-offline=100 "so-beam:default=50"

``--examples-for RECIPE[:RULES]=N`` runs fewer sentences in a cell (the first N). Each cell's CSV log and
timing are kept in ``--out``/cells as it finishes; a re-run skips finished cells (resume) and grows a finished
cell of fewer sentences by the missing ones (``run_cell``). Each cell and certificate records the digest of the
victim's weights it ran on; a cell or certificate of another model (a victim retrained with other settings, or on
another machine, whose float arithmetic trains another model) is neither reused nor grown: one line says so. A
victim trained again to the same weights is recognised by its certificates (``adopt_same_model``: every stored
margin equal) and its records are restamped. Writes
``table2.json``, ``table2.csv`` and ``table2.md`` (the table beside the paper's figures).

``--ray [ADDRESS]`` (with ``--workers``, ``--threads-per-worker``, ``--gpus-per-worker``; docs/guide/ray.md) runs the
cells left to run or to grow as Ray tasks through the package's runner, each the same stock command on a worker with
the driver's victim folder and data set file sent along (:class:`RayCell`); ``certify`` stays on this machine. The
cells and the table equal a run without ``--ray``.
"""

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from textattack_secondorder.cli.common import add_cluster_args

REPO = Path(__file__).resolve().parents[1]
RESULTS = Path(__file__).parent / "results" / "table2"
DATASET = REPO / "recipes" / "datasets" / "mr.py"
VICTIMS = ["mr-cnn", "mr-bow", "mr-lstm", "mr-cnn-ibp", "mr-bow-ibp", "mr-lstm-ibp"]
RECIPES = ["alzantot-offline", "bae-offline", "so-enum", "so-beam", "so-random"]
SECOND_ORDER = {"so-enum", "so-beam", "so-random"}
RULES = {"paper": "patch_rule='paper',neighbor_rule='paper'", "default": ""}
# Zhang et al. (2021): Table 2 (SST-2 validation; Genetic / BAE / SO-Enum / SO-Beam) and §A.1 (random
# baseline on the robust models; not reported for the base models)
PAPER = {
    ("base", "bow"): {"alzantot-offline": 57.0, "bae-offline": 69.7, "so-enum": 95.3, "so-beam": 99.7},
    ("base", "cnn"): {"alzantot-offline": 62.0, "bae-offline": 71.0, "so-enum": 95.3, "so-beam": 99.8},
    ("base", "lstm"): {"alzantot-offline": 60.0, "bae-offline": 68.3, "so-enum": 95.8, "so-beam": 99.5},
    ("ibp", "bow"): {
        "alzantot-offline": 28.0,
        "bae-offline": 63.1,
        "so-enum": 81.5,
        "so-beam": 88.4,
        "so-random": 18.8,
    },
    ("ibp", "cnn"): {
        "alzantot-offline": 23.0,
        "bae-offline": 64.4,
        "so-enum": 91.0,
        "so-beam": 96.0,
        "so-random": 22.3,
    },
    ("ibp", "lstm"): {
        "alzantot-offline": 24.0,
        "bae-offline": 61.0,
        "so-enum": 62.9,
        "so-beam": 77.5,
        "so-random": 15.2,
    },
}


def paper_figure(victim, recipe):
    arch = victim.split("-")[1]
    return PAPER[("ibp" if victim.endswith("-ibp") else "base", arch)].get(recipe)


def cells(victims, recipes, rules):
    """(victim, recipe, rules) in run order; first-order recipes have one cell ("-": no patch rules)."""
    out = []
    for victim in victims:
        for recipe in recipes:
            for rule in rules if recipe in SECOND_ORDER else ["-"]:
                out.append((victim, recipe, rule))
    return out


def cell_name(cell):
    return "__".join(cell)


def examples_for(cell, args):
    """Sentences of a cell: ``--examples-for`` by ``recipe:rules``, then by ``recipe``, else ``--num-examples``."""
    _, recipe, rule = cell
    return args.examples_for.get(f"{recipe}:{rule}", args.examples_for.get(recipe, args.num_examples))


def _env(threads):
    env = dict(os.environ)
    env.update({"OMP_NUM_THREADS": str(threads), "MKL_NUM_THREADS": str(threads), "TOKENIZERS_PARALLELISM": "false"})
    for k in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "HF_DATASETS_OFFLINE"):
        env.setdefault(k, "1")
    return env


def _bin(name):
    path = Path(sys.executable).parent / name
    return str(path) if path.exists() else name


def victim_weights(victim):
    """The cached victim's files as a digest (trained first if missing or stale; ``models/fingerprint.py``'s
    ``spec_fingerprint``, the gate's key of the same files): which model a cell's rows come from. Victims are trained
    on each machine, and another machine's training (another CPU's float arithmetic) gives another model; a cell's
    rows and a certificate belong to one of them."""
    from textattack_secondorder.models.fingerprint import spec_fingerprint
    from textattack_secondorder.models.victims import train_victim

    train_victim(victim, progress=False)
    return spec_fingerprint(victim)


def other_victim(record, weights, what):
    """Refuse (one line) to reuse or grow ``what`` when its recorded victim is not the cached one."""
    had = record.get("victim_weights")
    if had != weights:
        raise SystemExit(
            f"table2: {what} holds rows of another model (weights {had or 'not recorded'}, the cached victim's "
            f"{weights}); move it aside (as benchmarks/results/table2_bow_eps1/ was) to run it on this victim"
        )


def run_certify(victim, n, out, args):
    """``textattack-so certify`` of the first ``n`` sentences into ``out``, with the cells' thread settings."""
    cmd = [_bin("textattack-so"), "certify", "--model", victim, "--num-examples", str(n), "--out", str(out)]
    return subprocess.run(cmd, env=_env(args.threads), capture_output=True, text=True)


def same_margins(a, b):
    """Whether two certificates of the same sentences agree sentence for sentence: prediction, verdict and the
    worst margin bound (stored to 6 decimals). Every weight of the model moves these margins, so two models
    that agree on all of them are, for the table, one model."""
    keys = ("text", "prediction", "certified", "margin")
    return len(a) == len(b) and all(all(x[k] == y[k] for k in keys) for x, y in zip(a, b))


def adopt_same_model(victim, folder, weights, args):
    """Restamp ``folder``'s records of ``victim`` with ``weights`` when they were made on a model whose digest
    differs but whose certificates are the cached victim's, margin for margin (the digest once counted the
    victim's training record, ``metrics.json``, whose seconds differ on every retraining of the same weights).
    The stored certificate's sentences are certified again here (``certify`` takes well under a second a
    sentence); any difference leaves every record as it is, for :func:`other_victim` to refuse."""
    from textattack_secondorder.shared.files import atomic_write_text

    out = folder / f"certify__{victim}.json"
    stored = json.loads(out.read_text()) if out.exists() else None
    if stored is None or stored.get("victim_weights") in (None, weights):
        return
    had = stored["victim_weights"]
    check = folder / f".certify__{victim}.check.json"
    proc = run_certify(victim, stored["summary"]["n"], check, args)
    fresh = json.loads(check.read_text())["examples"] if proc.returncode == 0 and check.exists() else None
    check.unlink(missing_ok=True)
    if fresh is None or not same_margins(stored["examples"], fresh):
        return
    records = [out] + [p for p in (folder / "cells").glob(f"{victim}__*.json")]
    for path in records:
        record = json.loads(path.read_text())
        if record.get("victim_weights") == had:
            record["victim_weights"] = weights
            record["earlier_weights_digests"] = [*record.get("earlier_weights_digests", []), had]
            atomic_write_text(path, json.dumps(record, indent=2) + "\n")
    print(
        f"table2: {victim}: weights digest {weights} (the records' {had}), the same certificate margins on all "
        f"{len(fresh)} stored sentences: the same model; its records in {folder} are restamped",
        flush=True,
    )


def run_cell(cell, n, folder, args, model=None, dataset=None):
    """One stock ``textattack attack`` run; its CSV log and ``{seconds, command}`` land in ``folder``. ``model`` and
    ``dataset``: where this machine has the victim and the data set file (a Ray worker's copies; default the
    victim's name and this checkout's ``recipes/datasets/mr.py``).

    A finished cell of fewer sentences grows: only sentences ``have .. n-1`` run (``--num-examples-offset``)
    and their rows are appended to its CSV, so a 50-sentence cell becomes a 200-sentence one for the cost of
    150. A recipe that draws random numbers (Genetic, so-random) sees another random stream on the added
    sentences than one run of ``n`` would; the record lists the parts. A cell of more than ``n`` sentences is
    kept as it is."""
    from textattack_secondorder.shared.files import atomic_write_text

    victim, recipe, rule = cell
    done = folder / f"{cell_name(cell)}.json"
    old = json.loads(done.read_text()) if done.exists() else None
    if old is not None:
        other_victim(old, args.weights[victim], f"cell {cell_name(cell)}")
    have = old.get("num_examples", 0) if old else 0
    if have >= n:  # a cell of more sentences is kept, never cut down (the table says how many it holds)
        return old
    start = have
    params = RULES.get(rule, "")
    spec = f"{recipe}^{params}" if params else recipe
    csv = folder / f"{cell_name(cell)}.csv"
    tmp = folder / f".{cell_name(cell)}.csv"
    cmd = [
        _bin("textattack"), "attack", "--recipe", spec, "--model", model or victim,
        "--dataset-from-file", f"{dataset or DATASET}^dataset", "--num-examples", str(n - start),
        "--log-to-csv", str(tmp), "--disable-stdout", "--random-seed", str(args.seed),
    ]  # fmt: skip
    if start:
        cmd += ["--num-examples-offset", str(start)]
    print(f"[{time.strftime('%H:%M:%S')}] {cell_name(cell)}: sentences {start}-{n - 1} ...", flush=True)
    begin = time.perf_counter()
    proc = subprocess.run(cmd, env=_env(args.threads), capture_output=True, text=True)
    seconds = time.perf_counter() - begin
    if proc.returncode != 0 or not tmp.exists():
        print(proc.stderr[-3000:], file=sys.stderr)
        raise SystemExit(f"{cell_name(cell)} failed (exit {proc.returncode}): {' '.join(cmd)}")
    if start:  # the earlier rows, then the new ones, matched by column (a newer log may have more columns)
        import pandas as pd

        both = pd.concat([pd.read_csv(csv), pd.read_csv(tmp)], ignore_index=True)
        tmp.write_text(both.to_csv(index=False), encoding="utf-8")
    os.replace(tmp, csv)
    parts = (old.get("parts") or [{"offset": 0, "num_examples": have, "seconds": old["seconds"]}]) if start else []
    parts = parts + [{"offset": start, "num_examples": n - start, "seconds": round(seconds, 1)}]
    record = {
        "cell": list(cell),
        "num_examples": n,
        "seconds": round(sum(p["seconds"] for p in parts), 1),
        "command": cmd[1:],
        "parts": parts,
        "victim_weights": args.weights[victim],
    }
    atomic_write_text(done, json.dumps(record, indent=2) + "\n")
    print(f"[{time.strftime('%H:%M:%S')}] {cell_name(cell)}: {seconds:.0f} s", flush=True)
    return record


class RayCell:
    """One cell as a Ray task (``--ray``): the stock command on a worker, in a folder of its own, with the driver's
    victim files (:class:`~textattack_secondorder.models.shipping.ShippedModel`: the worker's own victim when its
    files are the same) and data set file; an earlier record and CSV of the cell travel with it (to grow it).
    Returns the cell's record and CSV for the driver to write."""

    def __init__(self, args, victims, dataset):
        self.args, self.victims, self.dataset = args, victims, dataset

    def setup(self):
        return {}

    def run(self, state, shard):
        import tempfile

        ((victim, recipe, rule), n) = shard.items[0]
        cell = (victim, recipe, rule)
        dataset = str(self.dataset.materialize())
        model = self.victims[victim].local_spec()
        with tempfile.TemporaryDirectory() as tmp:
            for name, text in shard.context["files"].items():
                (Path(tmp) / name).write_text(text, encoding="utf-8")
            record = run_cell(cell, n, Path(tmp), self.args, model=model, dataset=dataset)
            csv = (Path(tmp) / f"{cell_name(cell)}.csv").read_text(encoding="utf-8")
        # the command as the driver's run would have recorded it
        named = {model: victim, f"{dataset}^dataset": f"{DATASET}^dataset"}
        record["command"] = [named.get(c, c.replace(tmp, shard.context["folder"])) for c in record["command"]]
        return {"record": record, "csv": csv}


def run_on_ray(todo, folder, args):
    """Run the ``(cell, n)`` of ``todo`` as Ray tasks (:class:`RayCell`) through the package's runner; each cell's
    CSV and record are written into ``folder`` as it arrives."""
    from textattack_secondorder.distributed import ClusterOptions, ShardStore, make_shards, run_shards
    from textattack_secondorder.models.shipping import ShippedModel
    from textattack_secondorder.shared.file_bundle import FileBundle
    from textattack_secondorder.shared.files import atomic_write_text

    class Cells(ShardStore):  # the cells folder: a cell's CSV, then its record (what marks it finished)
        def save(self, key, result):
            name = cell_name(tuple(result["record"]["cell"]))
            atomic_write_text(folder / f"{name}.csv", result["csv"])
            atomic_write_text(folder / f"{name}.json", json.dumps(result["record"], indent=2) + "\n")
            print(f"[{time.strftime('%H:%M:%S')}] {name}: {result['record']['seconds']:.0f} s", flush=True)
            super().save(key, result["record"])

    items = [[list(cell), n] for cell, n in todo]
    key = {"what": "table2", "seed": args.seed, "weights": args.weights}
    shards = [make_shards([item], key)[0] for item in items]  # a cell's key: its cell, not its place in the list
    for shard in shards:
        name = cell_name(tuple(shard.items[0][0]))
        files = [p for p in (folder / f"{name}.json", folder / f"{name}.csv") if p.exists()]
        shard.context = {"folder": str(folder), "files": {p.name: p.read_text(encoding="utf-8") for p in files}}
    victims = {v: ShippedModel(v) for v in {cell[0] for cell, _ in todo}}
    task = RayCell(args, victims, FileBundle.pack(DATASET))
    _, stats = run_shards(task, shards, Cells(), ClusterOptions.from_settings(vars(args)), desc="table2 cells")
    print(f"table2: {stats.computed} cells on {stats.workers} Ray workers in {stats.wall_seconds:.0f} s", flush=True)


def certify(victim, n, folder, args):
    """``textattack-so certify`` of the first ``n`` sentences, kept as ``certify__VICTIM.json``; reused when it
    covers at least ``n`` sentences of the same model, read as its first ``n`` (the file is kept whole; with
    ``--only-table``, as stored)."""
    from textattack_secondorder.models.ibp.certification import shares
    from textattack_secondorder.shared.files import atomic_write_text

    out = folder / f"certify__{victim}.json"
    stored = json.loads(out.read_text()) if out.exists() else None
    if stored is not None and (args.only_table or stored["summary"]["n"] >= n):
        if args.only_table:
            return stored
        other_victim(stored, args.weights[victim], out.name)
        first = stored["examples"][:n]
        return {**stored, "summary": {**stored["summary"], **shares(first)}, "examples": first}
    proc = run_certify(victim, n, out, args)
    if proc.returncode != 0:
        print(proc.stderr[-3000:], file=sys.stderr)
        raise SystemExit(f"certify {victim} failed (exit {proc.returncode})")
    result = {**json.loads(out.read_text()), "victim_weights": args.weights.get(victim)}
    atomic_write_text(out, json.dumps(result, indent=2) + "\n")
    return result


def cell_row(cell, record, certificate):
    """Figures of one finished cell from its CSV log (one row per sentence, in order)."""
    import pandas as pd

    victim, recipe, rule = cell
    df = pd.read_csv(Path(record["csv"]))
    kinds = df["result_type"].astype(str)
    succ, failed = (kinds == "Successful"), (kinds == "Failed")
    attacked = int(succ.sum() + failed.sum())
    n = len(df)
    row = {
        "victim": victim,
        "recipe": recipe,
        "rules": rule,
        "sentences": n,
        "attacked": attacked,
        "skipped": int((kinds == "Skipped").sum()),
        "successful": int(succ.sum()),
        "success_%": round(100.0 * succ.sum() / attacked, 1) if attacked else None,
        "per_100_sentences": round(100.0 * succ.sum() / n, 1) if n else None,
        "paper_%": paper_figure(victim, recipe) if rule in ("-", "paper") else None,
        "seconds_per_sentence": round(record["seconds"] / n, 2) if n else None,
    }
    if "perturbed_words" in df:
        row["avg_perturbed_words"] = round(float(df.loc[succ, "perturbed_words"].mean()), 2) if succ.any() else None
    examples = certificate["examples"][:n]
    if len(examples) < n:  # a cell kept with more sentences than this run certified
        print(
            f"note: {victim} is certified on {len(examples)} sentences, {recipe} holds {n}; the certificate "
            f"check covers the first {len(examples)} (run with --num-examples {n})",
            file=sys.stderr,
        )
    certified = [e["certified"] and e["correct"] for e in examples]
    row["successes_on_certified"] = int(sum(bool(s) and c for s, c in zip(succ.tolist(), certified)))
    return row


def markdown(rows, certificates, n):
    lines = [
        f"First {n} MR test sentences (fewer where the sentences column says so); success % of the attacked "
        "sentences (the paper's in brackets: SST-2, Table 2 and §A.1); `certified` = certified accuracy.",
        "",
        "| victim | accuracy | certified | rules | Genetic | BAE | SO-Enum | SO-Beam | SO-Random |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    by = {(r["victim"], r["recipe"], r["rules"]): r for r in rows}
    for victim in dict.fromkeys(r["victim"] for r in rows):
        s = certificates[victim]["summary"]
        for rule in ("paper", "default"):
            cells_ = []
            for recipe in RECIPES:
                r = by.get((victim, recipe, rule if recipe in SECOND_ORDER else "-"))
                if r is None or r["success_%"] is None:
                    cells_.append("–")
                    continue
                text = f"{r['success_%']:.1f}"
                if r["paper_%"] is not None and rule == "paper":
                    text += f" ({r['paper_%']:.1f})"
                if r["sentences"] != n:
                    text += f" [{r['sentences']}]"
                cells_.append(text)
            lines.append(
                f"| {victim} | {100 * s['accuracy']:.1f} | {100 * s['certified_accuracy']:.1f} | {rule} | "
                + " | ".join(cells_)
                + " |"
            )
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--victims", nargs="+", default=VICTIMS)
    ap.add_argument("--recipes", nargs="+", default=RECIPES, choices=RECIPES)
    ap.add_argument("--rules", nargs="+", default=["paper", "default"], choices=list(RULES))
    ap.add_argument("--num-examples", type=int, default=200)
    ap.add_argument(
        "--examples-for",
        nargs="*",
        default=[],
        metavar="RECIPE[:RULES]=N",
        help="fewer sentences for some cells, e.g. so-enum=50 so-beam:default=100",
    )
    ap.add_argument("--threads", type=int, default=1, help="torch threads of each run")
    ap.add_argument("--seed", type=int, default=765, help="TextAttack's --random-seed")
    ap.add_argument("--out", default=str(RESULTS))
    ap.add_argument(
        "--only-table",
        action="store_true",
        help="rebuild the table from the finished cells only (whatever their sentences; runs no attack)",
    )
    add_cluster_args(ap, unit="cells (one a shard)")
    args = ap.parse_args()
    args.examples_for = {k: int(v) for k, v in (item.split("=", 1) for item in args.examples_for)}
    if args.ray is not None:  # a cell's run takes the CPUs Ray gives its worker
        args.threads = args.threads_per_worker
    folder = Path(args.out)
    (folder / "cells").mkdir(parents=True, exist_ok=True)
    import pandas as pd

    from textattack_secondorder.shared.files import atomic_write_text

    # which model each victim name is here (--only-table reads the records as they are and trains nothing)
    args.weights = {} if args.only_table else {v: victim_weights(v) for v in args.victims}
    for v, w in args.weights.items():
        adopt_same_model(v, folder, w, args)
    certificates = {v: certify(v, args.num_examples, folder, args) for v in args.victims}
    for v, c in certificates.items():
        s = c["summary"]
        print(f"{v}: accuracy {100 * s['accuracy']:.1f} %, certified accuracy {100 * s['certified_accuracy']:.1f} %")
    if args.ray is not None and not args.only_table:  # the cells left to run (or to grow), on the cluster
        todo = []
        for cell in cells(args.victims, args.recipes, args.rules):
            done = folder / "cells" / f"{cell_name(cell)}.json"
            old = json.loads(done.read_text()) if done.exists() else None
            if old is not None:
                other_victim(old, args.weights[cell[0]], f"cell {cell_name(cell)}")
            if old is None or old.get("num_examples", 0) < examples_for(cell, args):
                todo.append((cell, examples_for(cell, args)))
        if todo:
            run_on_ray(todo, folder / "cells", args)
    rows = []
    for cell in cells(args.victims, args.recipes, args.rules):
        n = examples_for(cell, args)
        done = folder / "cells" / f"{cell_name(cell)}.json"
        if args.only_table and not done.exists():
            continue
        # --only-table runs nothing: a finished cell counts with the sentences it ran (the table says how many)
        record = json.loads(done.read_text()) if args.only_table else run_cell(cell, n, folder / "cells", args)
        record["csv"] = str(folder / "cells" / f"{cell_name(cell)}.csv")
        rows.append(cell_row(cell, record, certificates[cell[0]]))
        atomic_write_text(folder / "table2.json", json.dumps({"settings": vars(args), "rows": rows}, indent=2) + "\n")
    if not rows:
        print(f"table2: no finished cell of these victims, recipes and rules in {folder / 'cells'}", file=sys.stderr)
        return 2
    df = pd.DataFrame(rows)
    atomic_write_text(folder / "table2.csv", df.to_csv(index=False))
    atomic_write_text(folder / "table2.md", markdown(rows, certificates, args.num_examples))
    print(df.to_string(index=False))
    unsound = df[(df["recipe"] == "alzantot-offline") & (df["successes_on_certified"] > 0)]
    if len(unsound):
        print(f"UNSOUND: Genetic successes on certified sentences:\n{unsound.to_string(index=False)}")
        return 1
    print("Genetic successes on certified sentences: 0 (every certificate held)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
