"""Sharded runs (docs/design/sharding.md): content keys, resume, exact merges, and a real Ray.

Fast: shard keys, resume counts and the sharded κ merge in this process; one real
single-node Ray run whose actor is killed mid-shard. Slow (``-m slow``): a local
two-node Ray cluster on 127.0.0.1 running flip-capability, bias, an attack sweep and robustness,
each compared with the single-process result.
"""

import json
import os
import signal
import sys

import numpy as np
import pandas as pd
import pytest

from conftest import tiny_bert_source
from textattack_secondorder.distributed import ClusterOptions, ShardStore, make_shards, run_shards

VOCAB = [
    "[PAD]",
    "[UNK]",
    "[CLS]",
    "[SEP]",
    "[MASK]",
    "the",
    "a",
    "film",
    "is",
    "good",
    "bad",
    "and",
    "cast",
    "fine",
    "plot",
    "dull",
    "great",
    "movie",
    "acting",
    "not",
]
TEXTS = [
    ("the film is good", 1),
    ("a bad plot", 0),
    ("the cast is fine and good", 1),
    ("a dull movie", 0),
    ("great acting", 1),
    ("the plot is not good", 0),
    ("a fine film", 1),
    ("bad acting and a dull plot", 0),
]


class Doubler:
    """A task without torch: doubles its items; kills its own process once when ``kill_marker`` is set."""

    def __init__(self, kill_marker=None, stop_after=None):
        self.kill_marker, self.stop_after = kill_marker, stop_after
        self.ran = []

    def setup(self):
        return os.getpid()

    def run(self, pid, shard):
        if self.kill_marker and shard.index == 1 and not os.path.exists(self.kill_marker):
            open(self.kill_marker, "w").close()
            os.kill(os.getpid(), signal.SIGKILL)  # the actor's process dies mid-shard
        if self.stop_after is not None and len(self.ran) >= self.stop_after:
            raise KeyboardInterrupt
        self.ran.append(shard.index)
        return [2 * x for x in shard.items]


def test_shard_keys_follow_content_and_settings():
    a = make_shards(list(range(10)), {"m": 512}, 3)
    assert [len(s) for s in a] == [3, 4, 3] and [s.start for s in a] == [0, 3, 7]
    assert [s.key for s in a] == [s.key for s in make_shards(list(range(10)), {"m": 512}, 3)]
    other_setting = make_shards(list(range(10)), {"m": 256}, 3)
    other_data = make_shards([0, 1, 2, 3, 4, 5, 6, 7, 8, 99], {"m": 512}, 3)
    assert not {s.key for s in a} & {s.key for s in other_setting}
    assert [s.key for s in a][:2] == [s.key for s in other_data][:2] and a[2].key != other_data[2].key
    assert [len(s) for s in make_shards(list(range(10)), {}, size=4)] == [4, 4, 2]


def test_one_rule_decides_how_many_shards():
    from textattack_secondorder.distributed import ClusterOptions, shard_count

    assert shard_count(100, None, ray_size=25) == 1  # this process
    assert shard_count(100, ClusterOptions(), ray_size=25) == 1
    assert shard_count(100, ClusterOptions(ray="local"), ray_size=25) == 4  # Ray: shards of 25
    assert shard_count(101, ClusterOptions(ray="local"), ray_size=25) == 5
    assert shard_count(100, ClusterOptions(num_shards=3), ray_size=25) == 3  # --shards wins
    assert shard_count(2, ClusterOptions(ray="auto", num_shards=8), ray_size=25) == 2  # at most one per item
    assert shard_count(25, None, ray_size=10, local_size=10) == 3  # sweep: resume unit


def test_interrupted_run_resumes_without_recomputing(tmp_path):
    shards = make_shards(list(range(12)), {"x": 1}, 6)
    with pytest.raises(KeyboardInterrupt):
        run_shards(Doubler(stop_after=4), shards, ShardStore(tmp_path), progress=False)
    assert len(list(tmp_path.glob("*.pkl"))) == 4 and not list(tmp_path.glob(".*tmp*"))
    task = Doubler()
    results, stats = run_shards(task, shards, ShardStore(tmp_path), progress=False)
    assert (stats.computed, stats.reused) == (2, 4) and task.ran == [4, 5]
    assert sum(results, []) == [2 * x for x in range(12)]


def _tiny_bert(tmp_path):
    path = tmp_path / "tiny_bert.py"
    path.write_text(tiny_bert_source(VOCAB), encoding="utf-8")
    return str(path)


def test_a_model_file_has_one_fingerprint_whenever_it_is_loaded(tmp_path):
    """TextAttack loads a .py model as module temp_<time>: the shard keys must not depend on that name."""
    from textattack_secondorder.models.fingerprint import model_fingerprint
    from textattack_secondorder.models.loading import load_model_wrapper

    spec = _tiny_bert(tmp_path)
    a, b = load_model_wrapper(spec), load_model_wrapper(spec)
    assert type(a.model).__module__ != type(b.model).__module__  # two loads, two temp modules
    assert model_fingerprint(a) == model_fingerprint(b)


def test_sweep_shows_no_per_example_textattack_bars(tmp_path, capfd):
    """A sweep's only bar is over shards: TextAttack's one-example bars would flood a Ray driver's console."""
    from textattack_secondorder.sweeps import run_attack_sweep

    spec = _tiny_bert(tmp_path)
    table, _ = run_attack_sweep([spec], ["deepwordbug"], TEXTS[:3], tmp_path / "sweep", progress=False, batch_size=8)
    err = capfd.readouterr().err
    assert int(table["examples"].iloc[0]) == 3
    assert "[Succeeded / Failed / Skipped / Total]" not in err


@pytest.mark.parametrize("method,m", [("brute", None), ("euba", None)])
def test_sharded_kappa_equals_single_run(tmp_path, method, m):
    from textattack_secondorder.evaluation.flip_capability import compute_flip_capability
    from textattack_secondorder.models.loading import load_model_wrapper

    spec = _tiny_bert(tmp_path)
    model = load_model_wrapper(spec)

    def sharded(folder, **kw):
        return compute_flip_capability(
            model, TEXTS, method=method, m=m, options=ClusterOptions(num_shards=3), folder=folder, progress=False, **kw
        )

    single = compute_flip_capability(model, TEXTS, method=method, m=m, progress=False)
    assert single.stats.num_shards == 1  # the default run is the same path with one shard
    result = sharded(tmp_path / "shards")
    stats = result.stats
    assert stats.computed == 3 and single.metric.num_correct > 0
    assert np.array_equal(single.metric.counts, result.metric.counts)
    assert single.metric.num_correct == result.metric.num_correct and single.rho == result.rho
    assert result.settings["shards"] == 3 and "shards" not in single.settings
    # a re-run reuses every shard; a changed setting reuses none (and, the first run being finished, may start)
    again = sharded(tmp_path / "shards").stats
    assert (again.computed, again.reused) == (0, 3)
    other = sharded(tmp_path / "shards", vocab_limit=10).stats
    assert (other.computed, other.reused) == (3, 0)


def test_store_never_mixes_an_interrupted_run_with_other_settings(tmp_path):
    """A folder of one run: an unfinished run with another key blocks (CheckpointMismatch); a finished one does not."""
    from textattack_secondorder.distributed import CheckpointMismatch

    shards = make_shards(list(range(6)), {"x": 1}, 3)
    other = make_shards(list(range(6)), {"x": 2}, 3)
    with pytest.raises(KeyboardInterrupt):
        run_shards(Doubler(stop_after=1), shards, ShardStore(tmp_path, "run-1"), progress=False)
    with pytest.raises(CheckpointMismatch, match="other settings"):
        run_shards(Doubler(), other, ShardStore(tmp_path, "run-2"), progress=False)
    results, stats = run_shards(Doubler(), shards, ShardStore(tmp_path, "run-1"), progress=False)
    assert (stats.computed, stats.reused) == (2, 1) and sum(results, []) == [2 * x for x in range(6)]
    _, stats = run_shards(Doubler(), other, ShardStore(tmp_path, "run-2"), progress=False)  # run-1 finished
    assert stats.computed == 3


def test_cluster_flags_become_one_options_object():
    from textattack_secondorder.distributed import ClusterError

    flags = {"ray": "auto", "shards": 4, "workers": 2, "threads_per_worker": 3, "gpus_per_worker": 0.5, "out": "x"}
    assert ClusterOptions.from_settings(flags) == ClusterOptions("auto", 4, 2, 3, 0.5)
    assert ClusterOptions.from_settings({"shards": None}) == ClusterOptions()
    with pytest.raises(ClusterError, match="gpus-per-worker"):
        ClusterOptions.from_settings({"gpus_per_worker": -1})
    with pytest.raises(ClusterError, match="--shards 0"):
        ClusterOptions.from_settings({"shards": 0})


# ---------------------------------------------------------------------------------------------
ray = pytest.importorskip("ray")


def _register_this_module():
    """Pickle this module's classes by value, so Ray workers need not import the test module."""
    import ray.cloudpickle

    ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])


# Ray waits a fixed 30 s for a new node's raylet to register; on this project's 2-core CI machine a node
# takes 40 s or more to start, so a start-up can miss that window. That is the machine, not our code:
# try a few times, and skip (saying so) if Ray cannot start here at all.
os.environ.setdefault("RAY_gcs_server_port_wait_time_s", "120")
START_TRIES = 3


def _ray_cannot_start(error):
    pytest.skip(f"Ray could not start a local node on this machine after {START_TRIES} tries: {error}")


def _start_local_ray():
    """A local Ray instance (two CPUs), or a skip when Ray itself cannot start here."""
    for attempt in range(START_TRIES):
        try:
            return ray.init(num_cpus=2, include_dashboard=False)
        except Exception as error:  # noqa: BLE001 - Ray raises a bare Exception on a start-up timeout
            ray.shutdown()
            if attempt == START_TRIES - 1:
                _ray_cannot_start(error)


def test_ray_actor_killed_mid_shard_is_retried(tmp_path):
    _register_this_module()
    shards = make_shards(list(range(12)), {"x": 2}, 4)
    options = ClusterOptions(ray="local", workers=2)
    _start_local_ray()
    try:
        results, stats = run_shards(
            Doubler(kill_marker=str(tmp_path / "killed")), shards, ShardStore(tmp_path), options, progress=False
        )
    finally:
        ray.shutdown()
    assert (tmp_path / "killed").exists()  # one actor did die
    assert sum(results, []) == [2 * x for x in range(12)]  # nothing lost, nothing twice
    assert stats.computed == 4 and len(list(tmp_path.glob("*.pkl"))) == 4


# ------------------------------------------------------------------ slow: a two-node Ray cluster
@pytest.fixture(scope="module")
def cluster():
    from ray.cluster_utils import Cluster

    _register_this_module()
    for attempt in range(START_TRIES):  # a node can miss Ray's 30 s start-up window (see above)
        c = Cluster()
        try:
            c.add_node(num_cpus=1, include_dashboard=False)
            c.add_node(num_cpus=1)
            c.wait_for_nodes()
            break
        except Exception as error:  # noqa: BLE001 - Ray raises a bare Exception on a start-up timeout
            c.shutdown()
            if attempt == START_TRIES - 1:
                _ray_cannot_start(error)
    yield c
    c.shutdown()


@pytest.fixture
def connected(cluster):
    ray.init(address=cluster.address)
    yield cluster.address
    ray.shutdown()


def _cli(*argv):
    from textattack_secondorder.cli import main

    assert main([str(a) for a in argv]) == 0


@pytest.mark.slow
def test_two_node_flip_capability_equals_single_run(tmp_path, cluster, monkeypatch):
    data = tmp_path / "data.csv"
    pd.DataFrame(TEXTS, columns=["text", "label"]).to_csv(data, index=False)
    spec = _tiny_bert(tmp_path)
    common = ["flip-capability", "--model", spec, "--dataset", data, "--exact"]
    _cli(*common, "--out", tmp_path / "single.json")
    # the stock command line joins the running cluster by address, two actors, one per node
    _cli(*common, "--out", tmp_path / "ray.json", "--ray", cluster.address, "--shards", 4, "--workers", 2)
    single = json.loads((tmp_path / "single.json").read_text())
    sharded = json.loads((tmp_path / "ray.json").read_text())
    assert single["state"]["counts"] == sharded["state"]["counts"]
    for k in ("rho", "correct", "examples", "queries_per_sentence"):
        assert single["summary"][k] == sharded["summary"][k]
    assert sharded["settings"]["shards"] == 4
    pd.testing.assert_frame_equal(pd.read_csv(tmp_path / "single.csv"), pd.read_csv(tmp_path / "ray.csv"))
    assert len(list((tmp_path / "ray.shards").glob("*.pkl"))) == 4


@pytest.mark.slow
def test_two_node_bias_equals_single_run(connected):
    import ray.cloudpickle

    from test_bias import TABLE, BoW, TableProposer, make_data
    from textattack_secondorder.evaluation.bias import CounterfactualBias
    from textattack_secondorder.transformations.neighborhood import WordSwapNeighborhood

    ray.cloudpickle.register_pickle_by_value(sys.modules["test_bias"])
    model = BoW(make_data(200, 0.9, 7))
    texts = [t for t, _ in make_data(30, 0.5, 8)]
    settings = dict(max_k=2, n_boot=200, progress=False)
    pairs = [("he", "she"), ("liked", "found"), ("called", "thought")]
    single = CounterfactualBias(model, WordSwapNeighborhood(TableProposer(TABLE)), **settings).run(texts, pairs)
    # the run builds its Ray task itself, as for every command: the model and proposer are pickled to the workers
    sharded = CounterfactualBias(model, WordSwapNeighborhood(TableProposer(TABLE)), **settings).run(
        texts, pairs, options=ClusterOptions(ray=connected, workers=2), masked_lm=TableProposer(TABLE)
    )
    pd.testing.assert_frame_equal(single.table, sharded.table)
    pd.testing.assert_frame_equal(single.sentences, sharded.sentences)


@pytest.mark.slow
def test_two_node_attack_sweep_equals_single_run(tmp_path, cluster):
    data = tmp_path / "data.csv"
    pd.DataFrame(TEXTS, columns=["text", "label"]).to_csv(data, index=False)
    spec = _tiny_bert(tmp_path)
    common = [
        "attack-sweep",
        "--models",
        spec,
        "--recipes",
        "deepwordbug",
        "pruthi",
        "--dataset",
        data,
        "--num-examples",
        len(TEXTS),
        "--model-batch-size",
        8,
    ]
    _cli(*common, "--out", tmp_path / "single")
    _cli(*common, "--out", tmp_path / "ray", "--ray", cluster.address, "--shards", 3, "--workers", 2)
    for name in ("tiny_bert__deepwordbug.csv", "tiny_bert__pruthi.csv"):
        a = pd.read_csv(tmp_path / "single" / name)
        b = pd.read_csv(tmp_path / "ray" / name)
        assert len(a) == len(TEXTS)
        pd.testing.assert_frame_equal(a, b)
    pd.testing.assert_frame_equal(
        pd.read_csv(tmp_path / "single" / "summary.csv"), pd.read_csv(tmp_path / "ray" / "summary.csv")
    )


@pytest.mark.slow
def test_two_node_robustness_equals_single_run(tmp_path, cluster):
    data = tmp_path / "data.csv"
    pd.DataFrame(TEXTS, columns=["text", "label"]).to_csv(data, index=False)
    spec = _tiny_bert(tmp_path)
    common = [
        "robustness",
        "--model",
        spec,
        "--dataset",
        data,
        "--levels",
        "char,adversarial",
        "--recipe",
        "deepwordbug",
        "--model-batch-size",
        8,
    ]
    _cli(*common, "--out", tmp_path / "single")
    _cli(*common, "--out", tmp_path / "ray", "--ray", cluster.address, "--shards", 3, "--workers", 2)
    pd.testing.assert_frame_equal(
        pd.read_csv(tmp_path / "single" / "robustness.csv"), pd.read_csv(tmp_path / "ray" / "robustness.csv")
    )
    for f in (tmp_path / "single" / "sets").glob("*.csv"):
        pd.testing.assert_frame_equal(pd.read_csv(f), pd.read_csv(tmp_path / "ray" / "sets" / f.name))
    assert len(list((tmp_path / "ray" / "parts" / "adversarial").glob("*.pkl"))) == 3
