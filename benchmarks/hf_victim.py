"""A user's own Hugging Face classifier, loaded as the stock CLI loads it: TextAttack's wrapper vs ours.

The victim is a Hugging Face model folder (default: the mr-minilm demo victim's folder, a fine-tuned
all-MiniLM-L6-v2 saved with ``save_pretrained``, standing in for a user's model), loaded exactly as
``textattack attack`` loads it (``textattack.ModelArgs._create_model_from_args``). For each recipe and
configuration the attacks take turns on each example, so load changes on a shared machine hit them alike:

* ``fast`` — ``--model-from-huggingface DIR``, as our recipes run it today (the wrapper padded per batch);
* ``textattack`` — the same with ``TEXTATTACK_SECONDORDER_KEEP_HF_WRAPPER=1`` at build time: TextAttack's
  ``HuggingFaceModelWrapper``, every query padded to 512 tokens (what the package did before); it runs
  on the first ``--textattack-examples`` examples only (it is slow);
* ``model-dir`` / ``model-file`` (``--ways``) — the same folder as ``--model DIR`` and the demo victim as
  ``--model-from-file recipes/models/mr_minilm.py``.

Per configuration: seconds per attacked example (wall clock of ``Attack.attack``), successes, queries;
per pair of configurations on their common examples: whether every row is identical (result type,
perturbed text, queries). ``--forwards`` also times 64 copies of a 13-word sentence through both
wrappers and gives the largest logit difference. Writes ``benchmarks/results/hf_victim.json`` and one row
per (configuration, example) in ``hf_victim_examples.csv`` (docs/design/speed.md).

    python benchmarks/hf_victim.py --recipes so-beam --num-examples 50 --textattack-examples 3 --threads 1
"""

import argparse
import json
import os
import random
import sys
import time
from contextlib import contextmanager
from pathlib import Path

os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

RESULTS = Path(__file__).parent / "results"
REPO = Path(__file__).resolve().parents[1]
SENTENCE = "the jokes are genuinely clever and the acting is superb , but the ending drags on"


@contextmanager
def keep_textattack_wrapper(keep):
    """While building: ``$TEXTATTACK_SECONDORDER_KEEP_HF_WRAPPER`` set (keep TextAttack's wrapper) or not."""
    from textattack_secondorder.models.wrappers import KEEP_ENV

    before = os.environ.pop(KEEP_ENV, None)
    if keep:
        os.environ[KEEP_ENV] = "1"
    try:
        yield
    finally:
        os.environ.pop(KEEP_ENV, None)
        if before is not None:
            os.environ[KEEP_ENV] = before


def load_way(way, folder):
    """The victim as the stock CLI loads it for ``way``."""
    import textattack

    if way in ("fast", "textattack"):
        args = textattack.ModelArgs(model_from_huggingface=folder)
    elif way == "model-dir":
        args = textattack.ModelArgs(model=folder)
    elif way == "model-file":
        args = textattack.ModelArgs(model_from_file=str(REPO / "recipes" / "models" / "mr_minilm.py"))
    else:
        raise ValueError(way)
    return textattack.ModelArgs._create_model_from_args(args)


def forwards(folder, copies=64, repeats=3):
    """Seconds for ``copies`` copies of a 13-word sentence through TextAttack's wrapper and ours; max |Δ logit|."""
    import torch

    from textattack_secondorder.models.wrappers import fast_model_wrapper

    theirs = load_way("textattack", folder)
    ours = fast_model_wrapper(load_way("textattack", folder))
    texts = [SENTENCE] * copies
    out = {}
    for name, wrapper in (("textattack", theirs), ("fast", ours)):
        wrapper(texts[:2])  # warm
        best = float("inf")
        for _ in range(repeats):
            t0 = time.perf_counter()
            logits = wrapper(texts)
            best = min(best, time.perf_counter() - t0)
        out[name] = {"seconds": round(best, 3), "logits": torch.as_tensor(logits).float()}
    diff = float((out["textattack"]["logits"] - out["fast"]["logits"]).abs().max())
    # texts per forward: 256 one-word neighbours of the sentence through our wrapper at each batch size
    words = SENTENCE.split()
    neighbours = [" ".join(words[: k % len(words)] + ["film"] + words[k % len(words) + 1 :]) for k in range(256)]
    per_batch = {}
    for size in (8, 16, 32, 64, 128, 256):
        ours.batch_size = size
        t0 = time.perf_counter()
        ours(neighbours)
        per_batch[size] = round((time.perf_counter() - t0) / len(neighbours) * 1000, 2)
    return {
        "ms_per_text_by_batch_size": per_batch,
        "copies": copies,
        "words": len(SENTENCE.split()),
        "textattack_seconds": out["textattack"]["seconds"],
        "fast_seconds": out["fast"]["seconds"],
        "speedup": round(out["textattack"]["seconds"] / out["fast"]["seconds"], 1),
        "max_logit_difference": diff,
    }


def row_of(result):
    from textattack.attack_results import SuccessfulAttackResult

    pr = result.perturbed_result
    return {
        "result": type(result).__name__.replace("AttackResult", ""),
        "queries": result.num_queries if hasattr(result, "num_queries") else pr.num_queries,
        "perturbed": pr.attacked_text.text if isinstance(result, SuccessfulAttackResult) else "",
        "patch": str(getattr(pr, "patch", "") or ""),
    }


def summarize(rows):
    attacked = [r for r in rows if r["result"] in ("Successful", "Failed")]
    seconds = [r["seconds"] for r in attacked]
    return {
        "examples": len(rows),
        "attacked": len(attacked),
        "successful": sum(r["result"] == "Successful" for r in rows),
        "failed": sum(r["result"] == "Failed" for r in rows),
        "skipped": sum(r["result"] == "Skipped" for r in rows),
        "seconds_per_attacked": round(sum(seconds) / len(seconds), 2) if seconds else None,
        "median_seconds_successful": median([r["seconds"] for r in attacked if r["result"] == "Successful"]),
        "median_seconds_failed": median([r["seconds"] for r in attacked if r["result"] == "Failed"]),
        "avg_queries": round(sum(r["queries"] for r in attacked) / len(attacked), 1) if attacked else None,
        "seconds_total": round(sum(r["seconds"] for r in rows), 1),
        "cpu_seconds_per_attacked": round(sum(r["cpu_seconds"] for r in attacked) / len(attacked), 2)
        if attacked
        else None,
    }


def median(values):
    values = sorted(values)
    if not values:
        return None
    mid = len(values) // 2
    return round(values[mid] if len(values) % 2 else (values[mid - 1] + values[mid]) / 2, 2)


def compare(rows_a, rows_b):
    """Rows of two configurations on their common examples: how many, identical or not, time ratio."""
    b = {r["example"]: r for r in rows_b}
    common = [(r, b[r["example"]]) for r in rows_a if r["example"] in b]
    keys = ("result", "queries", "perturbed", "patch")
    same = sum(all(x[k] == y[k] for k in keys) for x, y in common)
    sa, sb = sum(x["seconds"] for x, _ in common), sum(y["seconds"] for _, y in common)
    ca, cb = sum(x["cpu_seconds"] for x, _ in common), sum(y["cpu_seconds"] for _, y in common)
    return {
        "common": len(common),
        "identical": same,
        "seconds_ratio": round(sa / sb, 2) if sb else None,
        "cpu_seconds_ratio": round(ca / cb, 2) if cb else None,
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default=None, help="Hugging Face model folder (default: the mr-minilm victim's)")
    ap.add_argument("--recipes", nargs="+", default=["so-beam"])
    ap.add_argument("--num-examples", type=int, default=50)
    ap.add_argument("--textattack-examples", type=int, default=3, help="examples TextAttack's wrapper runs on")
    ap.add_argument(
        "--ways",
        nargs="+",
        default=["fast", "textattack"],
        choices=["fast", "textattack", "model-dir", "model-file"],
        help="configurations side by side (see the module docstring)",
    )
    ap.add_argument("--forwards", action="store_true", help="also time 64 copies of a sentence through both")
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--offset", type=int, default=0, help="skip this many of the seeded sample first")
    ap.add_argument(
        "--no-warm-up",
        dest="warm_up",
        action="store_false",
        help="time the first attack too (by default every configuration first attacks one MR training sentence, "
        "untimed, so that loading the recipe's shared parts is not charged to the first way)",
    )
    ap.add_argument("--out", default=str(RESULTS / "hf_victim.json"))
    args = ap.parse_args()
    if args.threads:
        import torch

        torch.set_num_threads(args.threads)

    import pandas as pd
    import textattack
    from tqdm.auto import tqdm

    import textattack_secondorder
    from textattack_secondorder.attack_recipes.build import build_attack
    from textattack_secondorder.datasets.mr import load_mr
    from textattack_secondorder.models.victims import victim_dir
    from textattack_secondorder.shared.files import atomic_write_text

    textattack_secondorder.register()
    folder = args.model or str(victim_dir("mr-minilm"))
    pool = load_mr("test")
    # the seeded sample of benchmarks/second_order.py (same seed, same offset: the same sentences)
    examples = random.Random(args.seed).sample(pool, min(args.offset + args.num_examples, len(pool)))[args.offset :]
    report = {
        "settings": {**vars(args), "model": folder, "load_average": os.getloadavg()},
        "forwards": forwards(folder) if args.forwards else None,
    }
    if report["forwards"]:
        print(json.dumps(report["forwards"]), flush=True)
    victims = {way: load_way(way, folder) for way in args.ways}
    attacks = {}
    for recipe in args.recipes:
        for way in args.ways:
            with keep_textattack_wrapper(way == "textattack"):
                attacks[recipe, way] = build_attack(recipe, victims[way])
            print(f"{recipe} [{way}]: victim wrapper {type(attacks[recipe, way].goal_function.model).__name__}")
    if args.warm_up:
        # one untimed attack per configuration first: the first attack of a process loads the recipe's shared
        # parts (sentence encoder, tagger, language models) and would charge them to whichever way runs first
        warm_text, warm_label = load_mr("train")[0]
        for attack in attacks.values():
            attack.attack(warm_text, warm_label)
            attack.clear_cache()
    textattack.shared.utils.set_seed(args.seed)
    rows = []
    for i, (text, label) in enumerate(tqdm(examples, desc="examples")):
        for (recipe, way), attack in attacks.items():
            if way == "textattack" and i >= args.textattack_examples:
                continue
            t0, c0 = time.perf_counter(), time.process_time()
            result = attack.attack(text, label)
            rows.append(
                {
                    "recipe": recipe,
                    "way": way,
                    "example": args.offset + i,
                    "seconds": round(time.perf_counter() - t0, 3),
                    # CPU seconds of this process: what the row costs alone on one thread, on a shared machine
                    "cpu_seconds": round(time.process_time() - c0, 3),
                    **row_of(result),
                }
            )
            attack.clear_cache()
    df = pd.DataFrame(rows)
    report["runs"] = []
    for (recipe, way), g in df.groupby(["recipe", "way"], sort=False):
        report["runs"].append({"recipe": recipe, "way": way, **summarize(g.to_dict("records"))})
    report["comparisons"] = []
    for recipe in args.recipes:
        mine = df[df.recipe == recipe]
        for way in args.ways:
            if way == "fast":
                continue
            pair = compare(mine[mine.way == way].to_dict("records"), mine[mine.way == "fast"].to_dict("records"))
            report["comparisons"].append({"recipe": recipe, "way": way, "against": "fast", **pair})
    out = Path(args.out)
    atomic_write_text(out, json.dumps(report, indent=2, default=str) + "\n")
    atomic_write_text(out.with_name(out.stem + "_examples.csv"), df.to_csv(index=False))
    print(pd.DataFrame(report["runs"]).to_string(index=False))
    print(pd.DataFrame(report["comparisons"]).to_string(index=False))


if __name__ == "__main__":
    sys.exit(main())
