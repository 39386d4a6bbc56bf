"""SIGKILL in the middle of a long command, rerun: the outputs equal an uninterrupted run's
(docs/design/hostile-input.md)."""

import hashlib
import json
import os
import pickle
import signal
import subprocess
import sys
import time

import pandas as pd
import pytest

from conftest import offline_env, tiny_bert_source

WORDS = ["good", "bad", "film", "movie", "plot", "great", "dull", "fine", "awful", "story", "fun", "boring"]


def write_inputs(tmp_path, n=40, sleep=0.02, max_length=None):
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "the", "a"] + WORDS
    (tmp_path / "model.py").write_text(tiny_bert_source(vocab, sleep=sleep, max_length=max_length))
    rows = [
        (" ".join(WORDS[(3 * i + j * (i % 5 + 1)) % len(WORDS)] for j in range(3 + i % 4)), i % 2) for i in range(n)
    ]
    pd.DataFrame(rows, columns=["text", "label"]).to_csv(tmp_path / "data.csv", index=False)


def so_command(*args):
    return [sys.executable, "-c", "import sys; from textattack_secondorder.cli import main; sys.exit(main())", *args]


def sha(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def run_killed(cmd, ready, timeout=600):
    """Start ``cmd``; SIGKILL it as soon as ``ready()`` says progress is on disk. Returns whether it was killed."""
    proc = subprocess.Popen(
        cmd,
        env=offline_env(PYTHONPATH=os.environ.get("PYTHONPATH", "")),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    start = time.time()
    try:
        while proc.poll() is None and time.time() - start < timeout:
            if ready():
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
                return True
            time.sleep(0.05)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    return False


def check_whole(paths):
    """Every output file present is whole: JSON parses, CSV reads, PNG ends with IEND."""
    for p in paths:
        if not p.exists():
            continue
        if p.suffix == ".json":
            json.loads(p.read_text())
        elif p.suffix == ".csv":
            pd.read_csv(p)
        elif p.suffix == ".pkl":
            pickle.loads(p.read_bytes())
        elif p.suffix == ".png":
            assert p.read_bytes()[-8:-4] == b"IEND", p


@pytest.mark.slow
def test_flip_capability_resumes_after_sigkill(tmp_path):
    # 0.1 s per forward: the κ loop must outlast the 2 s between progress saves (at 0.02 s it ran in
    # under 2 s and never saved midway, so there was nothing to kill it after)
    write_inputs(tmp_path, sleep=0.1)
    base = [
        "flip-capability",
        "--model",
        str(tmp_path / "model.py"),
        "--dataset",
        str(tmp_path / "data.csv"),
        "--early-stop",
        "4",
        "--model-batch-size",
        "8",
    ]
    env = offline_env(PYTHONPATH=os.environ.get("PYTHONPATH", ""))
    full = tmp_path / "full" / "kappa.json"
    subprocess.run(so_command(*base, "--out", str(full)), env=env, check=True, capture_output=True, timeout=900)

    out = tmp_path / "cut" / "kappa.json"
    shards = out.with_suffix(".shards")  # the default run: one shard, saving its progress while it runs

    def progress():
        try:
            saved = pickle.loads(next(shards.glob("*.progress.pkl")).read_bytes())
            return saved["next"] > 0  # midway: the shard is not finished (its progress file goes then)
        except (OSError, ValueError, KeyError, StopIteration, EOFError, pickle.UnpicklingError):
            return False

    assert run_killed(so_command(*base, "--out", str(out)), progress), "the run ended before it could be killed"
    partial = next(shards.glob("*.progress.pkl"))
    resumed_from = pickle.loads(partial.read_bytes())["next"]
    assert 0 < resumed_from < 40 and not list(shards.glob("*[0-9a-f].pkl"))
    check_whole([out, out.with_suffix(".csv"), out.with_suffix(".png"), partial])
    assert not out.exists()
    # other settings never mix with the progress of an interrupted run
    other = subprocess.run(
        so_command(*base[:-4], "--early-stop", "8", "--model-batch-size", "8", "--out", str(out)),
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert other.returncode != 0 and "other settings" in other.stderr and "Traceback" not in other.stderr
    assert not out.exists()
    done = subprocess.run(so_command(*base, "--out", str(out)), env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "1 shards: 1 computed (1 continued from saved progress)" in done.stdout, done.stdout[-2000:]
    assert sha(out.with_suffix(".csv")) == sha(full.with_suffix(".csv"))
    a, b = json.loads(full.read_text()), json.loads(out.read_text())
    assert a["state"]["counts"] == b["state"]["counts"] and a["settings"] == b["settings"]
    print(
        f"flip-capability: killed at example {resumed_from}; CSV {len(pd.read_csv(out.with_suffix('.csv')))} rows, "
        f"sha256 {sha(out.with_suffix('.csv'))[:12]} equal"
    )

    # a finished run is no progress to protect: a run with other settings starts afresh
    other = subprocess.run(
        so_command(*base[:-4], "--early-stop", "8", "--model-batch-size", "8", "--out", str(out)),
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert other.returncode == 0, other.stderr[-2000:]
    assert json.loads(out.read_text())["settings"]["m"] == 8


def parts_written(folder, pattern):
    return lambda: any(folder.glob(pattern)) if folder.exists() else False


@pytest.mark.slow
def test_bias_resumes_after_sigkill(tmp_path):
    from conftest import write_tiny_mlm

    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "the", "a", "he", "she", "found"] + WORDS
    (tmp_path / "model.py").write_text(tiny_bert_source(vocab, sleep=0.02, max_length=32))
    write_tiny_mlm(tmp_path / "mlm", vocab)
    texts = [f"{('he', 'she')[i % 2]} found the {WORDS[i % 12]} {WORDS[(5 * i + 2) % 12]}" for i in range(12)]
    pd.DataFrame({"text": texts}).to_csv(tmp_path / "data.csv", index=False)
    base = [
        "bias",
        "--model",
        str(tmp_path / "model.py"),
        "--dataset",
        str(tmp_path / "data.csv"),
        "--pairs",
        "he/she,good/bad,film/movie,fun/boring",
        "--masked-lm",
        str(tmp_path / "mlm"),
        "--max-k",
        "1",
        "--bootstrap",
        "100",
        "--model-batch-size",
        "8",
    ]
    env = offline_env(PYTHONPATH=os.environ.get("PYTHONPATH", ""))
    full = tmp_path / "full"
    subprocess.run(so_command(*base, "--out", str(full)), env=env, check=True, capture_output=True, timeout=1200)

    out = tmp_path / "cut"
    assert run_killed(so_command(*base, "--out", str(out)), parts_written(out / "parts", "*.pkl")), (
        "the run ended before it could be killed"
    )
    saved = sorted(p.name for p in (out / "parts").glob("*.pkl"))
    check_whole(
        [out / n for n in ("bias_table.csv", "bias_sentences.csv", "bias_summary.json", "hist_k.png", "bias_vs_k.png")]
        + list((out / "parts").glob("*.pkl"))
    )
    assert not (out / "bias_table.csv").exists()
    done = subprocess.run(so_command(*base, "--out", str(out)), env=env, capture_output=True, text=True, timeout=1200)
    assert done.returncode == 0, done.stderr[-2000:]
    for name in ("bias_table.csv", "bias_sentences.csv"):
        assert sha(out / name) == sha(full / name), name
    print(
        f"bias: killed with {saved} saved; bias_table.csv and bias_sentences.csv "
        f"({len(pd.read_csv(out / 'bias_sentences.csv'))} rows) byte-identical"
    )


@pytest.mark.slow
def test_robustness_resumes_after_sigkill(tmp_path):
    write_inputs(tmp_path, n=24, sleep=0.02, max_length=32)
    syn = {"good": ["fine"], "bad": ["awful"], "film": ["movie"], "plot": ["story"], "dull": ["boring"]}
    (tmp_path / "syn.json").write_text(json.dumps(syn))
    base = [
        "robustness",
        "--model",
        str(tmp_path / "model.py"),
        "--dataset",
        str(tmp_path / "data.csv"),
        "--levels",
        "char,word,adversarial",
        "--synonyms",
        str(tmp_path / "syn.json"),
        "--recipe",
        "deepwordbug",
        "--model-batch-size",
        "8",
    ]
    env = offline_env(PYTHONPATH=os.environ.get("PYTHONPATH", ""))
    full = tmp_path / "full"
    subprocess.run(so_command(*base, "--out", str(full)), env=env, check=True, capture_output=True, timeout=1200)

    out = tmp_path / "cut"
    assert run_killed(so_command(*base, "--out", str(out)), parts_written(out / "parts", "*.json")), (
        "the run ended before it could be killed"
    )
    saved = sorted(p.name.split("-")[0] + "-" + p.name.split("-")[1] for p in (out / "parts").glob("*.json"))
    check_whole([out / "robustness.csv", out / "robustness.json"] + list((out / "parts").glob("*.json")))
    assert not (out / "robustness.csv").exists() and len(saved) < 3
    done = subprocess.run(so_command(*base, "--out", str(out)), env=env, capture_output=True, text=True, timeout=1200)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "reusing the" in done.stderr
    assert sha(out / "robustness.csv") == sha(full / "robustness.csv")
    for f in (full / "sets").glob("*.csv"):
        assert sha(out / "sets" / f.name) == sha(f), f.name
    a, b = json.loads((full / "robustness.json").read_text()), json.loads((out / "robustness.json").read_text())
    a["settings"].pop("elapsed_seconds"), b["settings"].pop("elapsed_seconds")
    assert a == b
    print(
        f"robustness: killed with {saved} saved; robustness.csv and sets/*.csv byte-identical, "
        "robustness.json equal but for elapsed_seconds"
    )

    # another setting never reuses those sets: a new part per level, none of the saved ones read
    other = subprocess.run(
        so_command(*base, "--seed", "1", "--out", str(out)), env=env, capture_output=True, text=True, timeout=1200
    )
    assert other.returncode == 0 and "reusing the" not in other.stderr, other.stderr[-2000:]
    assert len(list((out / "parts").glob("*.json"))) == 6


# ------------------------------------------------ textattack attack --checkpoint-interval / attack-resume
SO_VOCAB = [
    "[PAD]",
    "[UNK]",
    "[CLS]",
    "[SEP]",
    "[MASK]",
    "the",
    "a",
    "he",
    "she",
    "is",
    "not",
    "at",
    "all",
    "and",
    "cast",
] + WORDS
# row 5 repeats row 1 after the first checkpoint (3 rows): only a resumed guard that replays rows 0-2 calls it a
# duplicate
SO_ROWS = [
    ("a good film", 1),
    ("the plot is dull", 0),
    ("", 1),
    ("he is not bad at all", 1),
    ("a great story", 0),
    ("the plot is dull", 0),
    ("she is a fine watch", 0),
    ("awful boring movie", 1),
]


@pytest.mark.slow
def test_attack_resume_of_so_beam_equals_an_uninterrupted_run(tmp_path):
    """so-beam survives TextAttack's checkpoint pickling; `textattack attack-resume` ends with the same CSV log."""
    from conftest import console_script, write_tiny_mlm

    textattack = console_script("textattack")
    (tmp_path / "model.py").write_text(tiny_bert_source(SO_VOCAB, max_length=32))
    write_tiny_mlm(tmp_path / "mlm", SO_VOCAB)
    (tmp_path / "syn.json").write_text(
        json.dumps({"good": ["fine"], "bad": ["awful"], "dull": ["boring"], "film": ["movie"], "great": ["fine"]})
    )
    (tmp_path / "data.py").write_text(f"import textattack\ndataset = textattack.datasets.Dataset({SO_ROWS!r})\n")
    recipe = (
        f"so-beam^masked_lm={str(tmp_path / 'mlm')!r},synonyms={str(tmp_path / 'syn.json')!r},beam_width=2,max_depth=2"
    )
    base = [
        textattack,
        "attack",
        "--recipe",
        recipe,
        "--model-from-file",
        "model.py",
        "--dataset-from-file",
        "data.py^dataset",
        "--num-examples",
        str(len(SO_ROWS)),
        "--disable-stdout",
        "--silent",
    ]
    env = offline_env(PYTHONPATH=os.environ.get("PYTHONPATH", ""))

    def run(*args):
        done = subprocess.run(list(args), cwd=tmp_path, env=env, capture_output=True, text=True, timeout=1200)
        assert done.returncode == 0, done.stderr[-3000:]
        assert "Traceback" not in done.stderr, done.stderr[-3000:]
        return done

    run(*base, "--log-to-csv", "full.csv")
    checkpoints = tmp_path / "ck"
    cmd = base + ["--log-to-csv", "cut.csv", "--checkpoint-interval", "3", "--checkpoint-dir", str(checkpoints)]
    killed = subprocess.Popen(
        cmd, cwd=tmp_path, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
    )
    try:
        start = time.time()
        while killed.poll() is None and time.time() - start < 1200 and not list(checkpoints.glob("*.ta.chkpt")):
            time.sleep(0.05)
        assert killed.poll() is None, "the run ended before it could be killed"
        os.killpg(killed.pid, signal.SIGKILL)
        killed.wait()
    finally:
        if killed.poll() is None:
            os.killpg(killed.pid, signal.SIGKILL)
            killed.wait()
    saved = list(checkpoints.glob("*.ta.chkpt"))
    assert len(saved) == 1 and not list(checkpoints.glob(".*tmp*")), sorted(checkpoints.iterdir())
    run(textattack, "attack-resume", "--checkpoint-file", str(checkpoints / "latest"))

    timing = ["seconds"]
    full = pd.read_csv(tmp_path / "full.csv", keep_default_na=False).drop(columns=timing)
    resumed = pd.read_csv(tmp_path / "cut.csv", keep_default_na=False).drop(columns=timing)
    assert len(full) == len(SO_ROWS)
    assert full["skip_reason"].tolist()[5] == "duplicate of row 2 (same text and label)"
    pd.testing.assert_frame_equal(resumed, full)
    print(
        f"so-beam attack-resume: killed after the first checkpoint ({len(SO_ROWS)} rows, interval 3); "
        f"resumed CSV equals the uninterrupted one: {full['result_type'].tolist()}"
    )
