"""``defend --compare`` over Ray (docs/design/sharding.md, docs/guide/ray.md): the model's files travel to a worker
without the driver's disk, a cell's files come back and land in ``OUT`` as a one-process run leaves them, a worker
that died mid-cell goes on from what it saved, and a real two-worker Ray run (slow) gives the one-machine rows.

Fast tests run the Ray code path in this process (the runner without ``--ray`` runs the same task and store); the
slow one starts a local Ray instance of two one-thread workers and kills one of them mid-cell.
"""

import json
import os
import signal
import sys
import time

import pytest

from test_defense_comparison import bert_folder, compare_settings, light_comparison, user_csv  # noqa: F401

#: the row's figures (everything but the seconds a cell took, which no two runs share)
TIMES = {"train_seconds", "train_cpu_seconds", "measure_seconds", "measure_cpu_seconds"}


def figures(rows):
    """The rows without their seconds, each model by its folder's name (the runs write into two folders)."""
    return [{**{k: v for k, v in r.items() if k not in TIMES}, "model": os.path.basename(r["model"])} for r in rows]


def without_seconds(value):
    """``value`` without the keys that hold seconds (at any depth)."""
    if isinstance(value, dict):
        return {k: without_seconds(v) for k, v in value.items() if "seconds" not in k}
    if isinstance(value, list):
        return [without_seconds(v) for v in value]
    return value


def measured(out):
    """Every measurement file of a comparison folder, without their seconds: ``{relative path: content}``."""
    return {
        p.relative_to(out).as_posix(): without_seconds(json.loads(p.read_text()))
        for p in sorted((out / "work").rglob("*.json"))
    }


@pytest.fixture(autouse=True)
def own_temporary_folder(tmp_path, monkeypatch):
    """A worker's folders (the driver's files unpacked, a cell's work) in the test's folder, not the machine's."""
    import tempfile

    (tmp_path / "tmp").mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))


def test_a_shipped_model_loads_on_a_machine_without_the_drivers_files(tmp_path, bert_folder):  # noqa: F811
    """A worker whose disk lacks the user's folder (or holds other files under its name) loads the driver's copy,
    unpacked once under its temporary folder; one with the same files loads the spec itself."""
    import shutil

    from textattack_secondorder.models.loading import load_model_wrapper
    from textattack_secondorder.models.shipping import ShippedModel

    texts = ["the film was good", "an awful movie"]
    expected = load_model_wrapper(str(bert_folder), device="cpu")(texts)
    shipped = ShippedModel(str(bert_folder))
    assert shipped.local_spec() == str(bert_folder)  # same files here: the spec itself
    shutil.move(bert_folder, tmp_path / "elsewhere")  # the worker's machine has no such folder
    local = shipped.local_spec()
    assert local != str(bert_folder) and os.path.isdir(local)
    assert (load_model_wrapper(local, device="cpu")(texts) == expected).all()
    assert shipped.local_spec() == local  # unpacked once


def test_cells_through_the_runner_equal_the_one_process_run(
    tmp_path,
    bert_folder,  # noqa: F811
    light_comparison,  # noqa: F811
):
    """The Ray path (a task a cell, run in a folder of the worker's own, its files returned and installed by the
    driver) run here leaves the rows, the trained models and the measurements a one-process run leaves."""
    from textattack_secondorder.defense import comparison, comparison_cells
    from textattack_secondorder.distributed import ClusterOptions

    settings = compare_settings(bert_folder, user_csv(tmp_path / "my.csv"))
    one = comparison.run_comparison(settings, ["vanilla", "rand", "sp-defense"], [0], tmp_path / "one", progress=False)
    trained_once = list(light_comparison)
    light_comparison.clear()
    # the driver's side of `--ray`, with the runner in this process (ClusterOptions without --ray)
    real = comparison_cells.run_cells_on_cluster
    runs = []

    def here(settings, data, cells, out, options, done):
        runs.append(cells)
        return real(settings, data, cells, out, ClusterOptions(), done)

    comparison_cells.run_cells_on_cluster = here
    try:
        cluster = comparison.run_comparison(
            settings, ["vanilla", "rand", "sp-defense"], [0], tmp_path / "ray", options=ClusterOptions(ray="local")
        )
    finally:
        comparison_cells.run_cells_on_cluster = real
    # each trained once, on the same seeds (the longest cells first: the order is the plan's)
    assert len(runs[0]) == 3 and sorted(light_comparison) == sorted(trained_once)
    # the rows name the comparison's folder, not the worker's
    assert [r["model"] for r in cluster][1:] == [
        str(tmp_path / "ray" / "models" / c) for c in ("rand-seed0", "sp-defense-seed0")
    ]
    assert figures(cluster) == figures(one)
    assert measured(tmp_path / "ray") == measured(tmp_path / "one")
    for cell in ("rand-seed0", "sp-defense-seed0"):
        a, b = (tmp_path / run / "models" / cell for run in ("one", "ray"))
        assert sorted(p.name for p in a.iterdir()) == sorted(p.name for p in b.iterdir())
        assert (a / "model.safetensors").read_bytes() == (b / "model.safetensors").read_bytes()
    assert not list((tmp_path / "ray" / "models").glob(".*"))  # no half-installed folder


def test_a_cell_whose_worker_died_goes_on_from_its_trained_model(
    tmp_path,
    bert_folder,  # noqa: F811
    light_comparison,  # noqa: F811
    monkeypatch,
):
    """A worker dies after training a cell, before its measurements: the retried cell (Ray restarts the worker on
    the same machine) finds the model in the cell's folder and measures it; nothing is trained twice."""
    from textattack_secondorder.defense import comparison_cells, measure
    from textattack_secondorder.defense.comparison import run_comparison
    from textattack_secondorder.distributed import ClusterOptions

    settings = compare_settings(bert_folder, user_csv(tmp_path / "my.csv"))
    real_measure = measure.measure_model

    def dies(spec, *args, **kwargs):
        if "rand-seed0" in spec:
            raise ConnectionError("the worker's process died")  # what Ray reports to the driver, then retries
        return real_measure(spec, *args, **kwargs)

    real = comparison_cells.run_cells_on_cluster
    monkeypatch.setattr(
        comparison_cells,
        "run_cells_on_cluster",
        lambda s, d, cells, out, options, done: real(s, d, cells, out, ClusterOptions(), done),
    )
    monkeypatch.setattr(measure, "measure_model", dies)
    with pytest.raises(ConnectionError):
        run_comparison(settings, ["vanilla", "rand"], [0], tmp_path / "cmp", options=ClusterOptions(ray="local"))
    assert light_comparison == [("rand", 0)]
    monkeypatch.setattr(measure, "measure_model", real_measure)
    rows = run_comparison(settings, ["vanilla", "rand"], [0], tmp_path / "cmp", options=ClusterOptions(ray="local"))
    assert light_comparison == [("rand", 0)] and [r["defense"] for r in rows] == ["vanilla", "rand"]


def test_a_cells_key_is_its_own_whatever_cells_run_beside_it(tmp_path, monkeypatch):
    """A cell's key (the name of its folder on a worker) depends on the settings and the cell alone: a rerun in
    which other cells are already finished finds the folder a dead worker left."""
    from types import SimpleNamespace

    from textattack_secondorder.defense import comparison_cells

    keys = []
    monkeypatch.setattr(comparison_cells, "ShippedModel", lambda spec: SimpleNamespace(fingerprint="f"))
    monkeypatch.setattr(
        comparison_cells,
        "run_shards",
        lambda task, shards, *a, **k: keys.append({tuple(s.items[0]): s.key for s in shards}) or (None, None),
    )
    settings = {"model": "m", "steps": 2}
    comparison_cells.run_cells_on_cluster(settings, None, [("vanilla", None), ("rand", 0)], tmp_path, None, None)
    comparison_cells.run_cells_on_cluster(settings, None, [("rand", 0)], tmp_path, None, None)
    comparison_cells.run_cells_on_cluster({**settings, "steps": 3}, None, [("rand", 0)], tmp_path, None, None)
    assert keys[0][("rand", 0)] == keys[1][("rand", 0)] != keys[2][("rand", 0)]


def test_cluster_flags_belong_to_compare(tmp_path, bert_folder, capfd):  # noqa: F811
    from textattack_secondorder.cli import main

    csv = user_csv(tmp_path / "my.csv")
    base = ["defend", "--model", str(bert_folder), "--dataset", str(csv), "--out", str(tmp_path / "o")]
    for extra, says in (
        (["--ray"], "--ray and --workers run the cells of --compare"),
        (["--compare", "vanilla", "--ray", "--shards", "2"], "one cell (a defense and a seed) a shard"),
        (["--compare", "vanilla", "--ray", "--jobs", "2"], "with --ray give --workers instead"),
    ):
        assert main(base + extra) == 2
        assert says in capfd.readouterr().err.strip().splitlines()[-1]


# ------------------------------------------------------------------ slow: a real local Ray instance
@pytest.mark.slow
def test_ray_comparison_with_a_killed_worker_equals_the_one_machine_run(tmp_path, bert_folder, capfd):  # noqa: F811
    """Two one-thread workers on a local Ray instance; the worker measuring ``rand-seed0`` is killed (SIGKILL) once
    its model is trained: the run completes, its rows equal the one-machine run's, no cell is trained twice, and a
    second run reuses every cell and says so."""
    ray = pytest.importorskip("ray")

    from test_distributed import _start_local_ray
    from textattack_secondorder.defense import comparison_cells
    from textattack_secondorder.defense.comparison import run_comparison
    from textattack_secondorder.distributed import ClusterOptions

    __import__("ray.cloudpickle").cloudpickle.register_pickle_by_value(sys.modules[__name__])
    # TextAttack's own light recipes (a worker imports the package afresh: no test patch reaches it)
    settings = compare_settings(
        bert_folder,
        user_csv(tmp_path / "my.csv"),
        sp_attack_recipe="deepwordbug",
        textfooler_recipe="deepwordbug",
        so_beam_recipe="pruthi",
    )
    defenses = ["vanilla", "continue", "rand"]
    one = run_comparison(settings, defenses, [0], tmp_path / "one", progress=False)
    log, marker = tmp_path / "trained.log", tmp_path / "killed"

    class Dying(comparison_cells.CellTask):
        def run(self, state, shard):
            from textattack_secondorder.defense import comparison, measure

            real_train, real_measure = comparison._train, measure.measure_model

            def train(settings, data, defense, seed, *args):
                with open(log, "a") as f:
                    f.write(f"{defense}-{seed}\n")
                return real_train(settings, data, defense, seed, *args)

            def measure_model(spec, *args, **kwargs):
                if spec.endswith("rand-seed0") and not marker.exists():
                    marker.write_text("")
                    os.kill(os.getpid(), signal.SIGKILL)  # the worker's process dies mid-cell
                return real_measure(spec, *args, **kwargs)

            comparison._train, measure.measure_model = train, measure_model
            return super().run(state, shard)

    options = ClusterOptions(ray="local", workers=2, threads_per_worker=1)
    _start_local_ray()
    try:
        original = comparison_cells.CellTask
        comparison_cells.CellTask = Dying
        try:
            cluster = run_comparison(settings, defenses, [0], tmp_path / "ray", options=options)
        finally:
            comparison_cells.CellTask = original
        assert marker.exists()  # a worker did die
        assert sorted(log.read_text().split()) == ["continue-0", "rand-0"]  # and nothing was trained twice
        assert figures(cluster) == figures(one)
        assert measured(tmp_path / "ray") == measured(tmp_path / "one")
        # the restarted worker said what it reused (Ray forwards a worker's lines to the driver's output, later)
        said, deadline = "", time.time() + 20
        while "rand-seed0: going on from what was saved: its trained model" not in said and time.time() < deadline:
            said += capfd.readouterr().out
            time.sleep(0.5)
        assert "rand-seed0: going on from what was saved: its trained model" in said
        again = run_comparison(settings, defenses, [0], tmp_path / "ray", options=options)
        assert "3 finished earlier and reused: vanilla, continue-seed0, rand-seed0" in capfd.readouterr().out
        assert figures(again) == figures(cluster)
    finally:
        ray.shutdown()
