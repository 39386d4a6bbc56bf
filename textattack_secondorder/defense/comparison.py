"""``textattack-so defend --compare``: every defense trained, every model measured on the same sentences
(Xu et al., Table 5, with A2T and the second-order column; docs/design/defenses.md).

One *cell* is a defense and a seed (``vanilla``, the model as given, is one cell without a seed): the model
is trained by :func:`~.defend.defend_model` (what ``defend`` does) into ``OUT/models/<cell>`` and measured
by :mod:`.measure` into ``OUT/work/<cell>``; its row goes to ``OUT/rows/<cell>.json``. Everything is
written atomically as it finishes, so a killed comparison run again with the same ``--out`` reuses every
model and measurement it has (``OUT/settings.json`` refuses a re-run with other settings). The rows, and
their mean ± standard deviation over seeds, are written by :mod:`.comparison_report`.
"""

import json
import os
from pathlib import Path
from unittest import mock

from ..shared.errors import UsageError
from ..shared.files import atomic_write_text
from ..shared.processes import exit_with_parent
from .comparison_plan import cell_name

#: the defenses ``--compare`` knows, in the table's order
COMPARABLE = ("vanilla", "continue", "rand", "a2t", "sp-defense")

#: the settings a comparison's models and measurements depend on: a re-run must have the same
SETTINGS = (
    "model",
    "dataset",
    "split",
    "text_column",
    "label_column",
    "test_dataset",
    "holdout_share",
    "train_examples",
    "steps",
    "batch_size",
    "lr",
    "embeddings",
    "gradient_candidates",
    "a2t_rounds",
    "num_attacked",
    "num_kappa",
    "num_rho",
    "num_so_beam",
    "m",
    "vocab_limit",
    "vocab_from",
    "sp_attack_recipe",
    "textfooler_recipe",
    "so_beam_recipe",
)


def parse_defenses(text):
    """``"vanilla,rand,..."`` -> the names in the table's order; an unknown name is a :class:`UsageError`."""
    names = [n.strip() for n in str(text).split(",") if n.strip()]
    unknown = [n for n in names if n not in COMPARABLE]
    if unknown or not names:
        raise UsageError(
            f"--compare: unknown defense {', '.join(map(repr, unknown)) or '(none given)'}; "
            f"known: {', '.join(COMPARABLE)}"
        )
    return [n for n in COMPARABLE if n in names]


def check_recipes(settings):
    """Refuse (one line) a recipe string of the comparison that is unknown or has a bad parameter, before
    anything is trained."""
    from ..attack_recipes.build import attack_recipes, checked_recipe, textattack_recipes
    from ..shared.recipe_params import SPLIT

    for key in ("sp_attack_recipe", "textfooler_recipe", "so_beam_recipe"):
        recipe = settings[key]
        name = recipe.partition(SPLIT)[0]
        if name not in attack_recipes() and name not in textattack_recipes():
            raise UsageError(f"--{key.replace('_', '-')}: unknown attack recipe {name!r}")
        checked_recipe(recipe)


def check_settings(out, settings):
    """Write ``OUT/settings.json``, or refuse (one line) when ``OUT`` holds a comparison with other settings."""
    path = Path(out) / "settings.json"
    mine = {k: settings.get(k) for k in SETTINGS}
    if path.exists():
        theirs = json.loads(path.read_text())
        differ = [k for k in SETTINGS if json.dumps(theirs.get(k)) != json.dumps(mine[k])]
        if differ:
            shown = "; ".join(f"{k}: {theirs.get(k)!r} there, {mine[k]!r} now" for k in differ[:4])
            raise UsageError(f"--out {out} holds a comparison with other settings ({shown}): use another --out")
    else:
        atomic_write_text(path, json.dumps(mine, indent=2) + "\n")


def run_cell(settings, data, defense, seed, out, progress=True, model=None, home=None):
    """Train (unless it is there) and measure one cell in ``out``; returns its row (also written to ``OUT/rows``).

    ``model``: the spec to load the given model from on this machine (default ``settings["model"]``; a Ray worker
    loads its copy of the driver's files, :class:`~..models.shipping.ShippedModel`); ``home``: the comparison's
    folder the row and messages name (default ``out``; a Ray worker works in a folder of its own)."""
    from .defend import a2t_examples_count, a2t_warning
    from .measure import measure_model

    out = Path(out)
    home = Path(home or out)
    name = cell_name(defense, seed)
    row_path = out / "rows" / f"{name}.json"
    if row_path.exists():
        return json.loads(row_path.read_text())
    kept = begun(out, name)
    if kept:  # an earlier run, or a worker of this one that died, saved part of the cell
        print(f"{name}: going on from what was saved: {kept}", flush=True)
    model = model or settings["model"]
    spec, train_seconds, train_cpu, record = model, 0.0, 0.0, {}
    if defense != "vanilla":
        folder = out / "models" / name
        if not (folder / "defense.json").exists():  # save_model writes the folder atomically: whole or absent
            _train(settings, data, defense, seed, folder, model, home / "models" / name, progress)
        record = json.loads((folder / "defense.json").read_text())
        spec, train_seconds, train_cpu = str(folder), record["seconds"], record.get("cpu_seconds")
    shown = settings["model"] if defense == "vanilla" else str(home / "models" / name)
    row = {"defense": defense, "seed": seed, "model": shown}
    row["train_seconds"] = round(train_seconds, 1)
    row["train_cpu_seconds"] = train_cpu
    if defense == "a2t":  # how many adversarial texts it trained on (0: its row measures `continue`'s training)
        row["adversarial_examples"] = a2t_examples_count(record)
        row["training_warning"] = a2t_warning(record)
    print(f"{name}: measuring accuracy, ρ, ρ*, κ and the three attacks", flush=True)
    row.update(measure_model(spec, settings, data, out / "work" / name, progress=progress))
    atomic_write_text(row_path, json.dumps(row, indent=1) + "\n")
    return row


def _train(settings, data, defense, seed, folder, model, shown, progress):
    from ..models.loading import load_model_wrapper
    from .defend import defend_model

    print(f"{cell_name(defense, seed)}: training ({settings['steps']} steps) -> {shown}", flush=True)
    wrapper = load_model_wrapper(model, settings["device"], settings["model_batch_size"])
    defend_model(
        wrapper,
        data["train"],
        data["test"],
        folder,
        defense=defense,
        steps=settings["steps"],
        batch_size=settings["batch_size"],
        lr=settings["lr"],
        seed=seed,
        device=settings["device"],
        embeddings=settings["embeddings"],
        gradient_candidates=settings["gradient_candidates"],
        model_batch_size=settings["model_batch_size"],
        a2t_rounds=settings["a2t_rounds"],
        info={"base_model": settings["model"], "data": data["train_source"], "test_data": data["test_source"]},
        progress=progress,
    )


def _table_order(cell):
    """Rows in the table's order: by defense, then seed."""
    return COMPARABLE.index(cell[0]), -1 if cell[1] is None else cell[1]


def _cell_worker(args):
    """One cell in a worker process (``--jobs`` > 1): one torch thread, quiet progress."""
    settings, data, defense, seed, out = args
    import torch

    torch.set_num_threads(int(os.environ.get("OMP_NUM_THREADS", "1") or 1))
    return run_cell(settings, data, defense, seed, out, progress=False)


def begun(out, name):
    """What an earlier run left of the unfinished cell ``name`` in ``out``, in words (``None``: nothing)."""
    out = Path(out)
    kept = ["its trained model"] if (out / "models" / name / "defense.json").exists() else []
    work = out / "work" / name
    done = sorted(p.stem for p in work.glob("*.json") if not p.stem.endswith("_rows") and p.stem != "kappa_attack")
    kept += [f"{', '.join(done)} measured"] if done else []
    for rows in sorted(work.glob("*_rows.json")):
        if rows.stem[: -len("_rows")] not in done:
            kept.append(f"{len(json.loads(rows.read_text()))} sentences of {rows.stem[: -len('_rows')]}")
    return "; ".join(kept) or None


def run_comparison(settings, defenses, seeds, out, jobs=1, progress=True, options=None):
    """Every cell of ``defenses`` × ``seeds`` (vanilla once), ``jobs`` at a time in processes or, with ``options``
    (:class:`~..distributed.ClusterOptions` with ``--ray``), one Ray task a cell; returns the rows and writes
    ``OUT/comparison.json``, ``.md``, ``_summary.json`` and ``.html`` after each cell. Prints the plan first and a
    line after each cell (:class:`~.comparison_plan.ComparisonPlan`)."""
    from ..models.loading import load_model_wrapper
    from .comparison_plan import ComparisonPlan
    from .comparison_report import write_report
    from .comparison_warnings import plan_warnings
    from .measure import comparison_data

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    check_recipes(settings)
    check_settings(out, settings)
    wrapper = load_model_wrapper(settings["model"], settings["device"], settings["model_batch_size"])
    data = comparison_data(settings, wrapper)
    # vanilla first, A2T (whose training attacks thousands of sentences) last: the other rows come early
    cells = [(d, None) for d in defenses if d == "vanilla"]
    cells += [(d, s) for s in seeds for d in defenses if d not in ("vanilla", "a2t")]
    cells += [(d, s) for s in seeds for d in defenses if d == "a2t"]
    finished = [c for c in cells if (out / "rows" / f"{cell_name(*c)}.json").exists()]
    todo = [c for c in cells if c not in finished]
    distributed = options is not None and options.distributed
    workers = jobs
    if distributed:  # --workers, else what a local Ray instance gives (a cluster's size is known once joined)
        workers = options.workers or max(1, (os.cpu_count() or 1) // options.threads_per_worker)
    plan = ComparisonPlan.calibrated(
        settings,
        data,
        wrapper,
        todo,
        reused=[cell_name(*c) for c in finished],
        begun={cell_name(*c): b for c in todo if (b := begun(out, cell_name(*c)))},
        workers=workers,
        trained=[c for c in todo if (out / "models" / cell_name(*c) / "defense.json").exists()],
    )
    warnings = plan_warnings(settings, data, wrapper)
    del wrapper
    for line in plan.lines() + [f"warning: {w}" for w in warnings]:
        print(line, flush=True)
    rows = {cell_name(*c): json.loads((out / "rows" / f"{cell_name(*c)}.json").read_text()) for c in finished}

    def done(row):
        rows[cell_name(row["defense"], row["seed"])] = row
        ordered = [rows[cell_name(d, s)] for d, s in sorted(cells, key=_table_order) if cell_name(d, s) in rows]
        write_report(ordered, settings, data, out)
        print(plan.progress(row), flush=True)
        if row.get("training_warning"):
            print(f"warning: {cell_name(row['defense'], row['seed'])}: {row['training_warning']}", flush=True)

    if finished:
        write_report([rows[cell_name(*c)] for c in sorted(finished, key=_table_order)], settings, data, out)
    if distributed or jobs > 1:  # longest first, so that no worker is left alone with a long cell at the end
        todo = sorted(todo, key=lambda c: -plan.estimate[c])
    if distributed:
        from .comparison_cells import run_cells_on_cluster

        run_cells_on_cluster(settings, data, todo, out, options, done)
    elif jobs <= 1:
        for d, s in todo:
            done(run_cell(settings, data, d, s, out, progress=progress))
    else:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor, as_completed

        context = multiprocessing.get_context("spawn")
        workers = dict(max_workers=jobs, mp_context=context, initializer=exit_with_parent, initargs=(os.getpid(),))
        with ProcessPoolExecutor(**workers) as pool:
            # the workers are spawned by these submits and inherit the environment: TQDM_DISABLE quiets the
            # bars of TextAttack's Attacker (A2T's sets), which it draws even when told to be silent
            with mock.patch.dict(os.environ, {"TQDM_DISABLE": "1"}):
                futures = [pool.submit(_cell_worker, (settings, data, d, s, str(out))) for d, s in todo]
            for f in as_completed(futures):
                done(f.result())
    return [rows[cell_name(d, s)] for d, s in sorted(cells, key=_table_order)]
