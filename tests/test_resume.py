"""SIGKILL in the middle of a long command, rerun: the outputs equal an uninterrupted run's (docs/methods.md §6)."""
import hashlib
import json
import os
import signal
import subprocess
import sys
import time

import pandas as pd
import pytest

from conftest import offline_env, tiny_bert_source

WORDS = ["good", "bad", "film", "movie", "plot", "great", "dull", "fine", "awful", "story", "fun", "boring"]



def write_inputs(tmp_path, n=40):
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "the", "a"] + WORDS
    (tmp_path / "model.py").write_text(tiny_bert_source(vocab, sleep=0.02))
    rows = [(" ".join(WORDS[(3 * i + j * (i % 5 + 1)) % len(WORDS)] for j in range(3 + i % 4)), i % 2) for i in range(n)]
    pd.DataFrame(rows, columns=["text", "label"]).to_csv(tmp_path / "data.csv", index=False)


def so_command(*args):
    return [sys.executable, "-c", "import sys; from textattack_secondorder.cli import main; sys.exit(main())", *args]


def sha(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def run_killed(cmd, ready, timeout=600):
    """Start ``cmd``; SIGKILL it as soon as ``ready()`` says progress is on disk. Returns whether it was killed."""
    proc = subprocess.Popen(cmd, env=offline_env(PYTHONPATH=os.environ.get("PYTHONPATH", "")),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
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
        elif p.suffix == ".png":
            assert p.read_bytes()[-8:-4] == b"IEND", p


@pytest.mark.slow
def test_flip_capability_resumes_after_sigkill(tmp_path):
    write_inputs(tmp_path)
    base = ["flip-capability", "--model", str(tmp_path / "model.py"), "--dataset", str(tmp_path / "data.csv"),
            "--early-stop", "4", "--model-batch-size", "8"]
    env = offline_env(PYTHONPATH=os.environ.get("PYTHONPATH", ""))
    full = tmp_path / "full" / "kappa.json"
    subprocess.run(so_command(*base, "--out", str(full)), env=env, check=True, capture_output=True, timeout=900)

    out = tmp_path / "cut" / "kappa.json"
    partial = out.with_suffix(".partial.json")

    def progress():
        try:
            saved = json.loads(partial.read_text())
            return 0 < saved["next"] < saved["key"]["examples"]  # midway, not the final save
        except (OSError, ValueError, KeyError):
            return False

    assert run_killed(so_command(*base, "--out", str(out)), progress), "the run ended before it could be killed"
    resumed_from = json.loads(partial.read_text())["next"]
    check_whole([out, out.with_suffix(".csv"), out.with_suffix(".png"), partial])
    assert not out.exists()
    done = subprocess.run(so_command(*base, "--out", str(out)), env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-2000:]
    assert sha(out.with_suffix(".csv")) == sha(full.with_suffix(".csv"))
    a, b = json.loads(full.read_text()), json.loads(out.read_text())
    assert a["state"]["counts"] == b["state"]["counts"] and a["settings"] == b["settings"]
    print(f"flip-capability: killed at example {resumed_from}; CSV {len(pd.read_csv(out.with_suffix('.csv')))} rows, "
          f"sha256 {sha(out.with_suffix('.csv'))[:12]} equal")

    # other settings never mix with the saved progress
    other = subprocess.run(so_command(*base[:-4], "--early-stop", "8", "--model-batch-size", "8", "--out", str(out)),
                           env=env, capture_output=True, text=True, timeout=900)
    assert other.returncode != 0 and "other settings" in other.stderr and "Traceback" not in other.stderr
