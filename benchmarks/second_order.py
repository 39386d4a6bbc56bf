"""Second-order attacks beside TextAttack's BAE and Alzantot, same victims, same examples, one run.

For every victim and recipe: success rate, average perturbed words of successful
attacks (and how many successes lie 0, 1, 2, 3+ words away), average model queries,
seconds per attacked example (wall clock, the recipe's build time excluded) and, for
the second-order recipes, masked-LM inputs run per example. The recipes take turns
on each example, so load changes on a shared machine affect them alike. Offline, ``bae`` and ``alzantot`` are built from
the same TextAttack parts with this package's resource slots in place of the hub
models (``bae-offline``: masked-LM and sentence-encoder slots; ``alzantot-offline``:
synonyms slot, no Google LM) — see textattack_secondorder/attack_recipes/offline_baselines.py.

    python benchmarks/second_order.py --victims mr-cnn mr-lstm mr-bow mr-minilm --num-examples 100

Naturalness (on by default, ``--no-perplexity`` to skip): the causal-LM slot (GPT-2 online,
Gemma-3-270M offline) scores every successful example's original and vulnerable/adversarial
text; each (victim, recipe) row gets the median perplexity of both and their ratio
``median PPL(vulnerable) / median PPL(original)`` (the paper: GPT-2 165 -> 210, 1.27), and
``second_order_samples.txt`` shows ``--samples`` (30) randomly drawn successes per (victim,
recipe) beside their originals, for reading.

Several masked LMs (``--masked-lm distilbert-onnx minilm-mlm``) run side by side: every recipe
that uses the masked-LM slot (so-*, bae-offline) is built once per masked LM, all take turns on
each example, and each row names its ``masked_lm``.

Writes benchmarks/results/second_order.json and .csv, and one row per (victim, recipe, masked LM,
example) in second_order_examples.csv; re-running skips the (victim, recipe, masked LM) rows
already in the JSON (``--force`` recomputes those named on the command line).
"""

import argparse
import json
import logging
import os
import random
import sys
import time
from pathlib import Path

os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

RESULTS = Path(__file__).parent / "results"
DEFAULT_RECIPES = ["so-beam", "so-enum", "so-random", "bae-offline", "alzantot-offline"]


def words_changed(result):
    """Perturbed words of a result: ``||x̃0 - x0||_0`` for the second-order recipes, else words swapped."""
    pr = result.perturbed_result
    if hasattr(pr, "perturbed_words"):
        return pr.perturbed_words
    return len(result.original_result.attacked_text.all_words_diff(pr.attacked_text))


def summarize(results, seconds):
    from textattack.attack_results import FailedAttackResult, SkippedAttackResult, SuccessfulAttackResult

    succ = [r for r in results if isinstance(r, SuccessfulAttackResult)]
    failed = [r for r in results if isinstance(r, FailedAttackResult)]
    skipped = [r for r in results if isinstance(r, SkippedAttackResult)]
    attacked = len(succ) + len(failed)

    counts = [words_changed(r) for r in succ]
    return {
        "examples": len(results),
        "attacked": attacked,
        "skipped": len(skipped),
        "successful": len(succ),
        "success_rate": round(100.0 * len(succ) / attacked, 1) if attacked else None,
        "avg_perturbed_words": round(sum(counts) / len(succ), 2) if succ else None,
        # how far the successes lie: the time of SO-Beam grows ~beam width x with every level
        "succ_0_words": sum(c == 0 for c in counts),
        "succ_1_word": sum(c == 1 for c in counts),
        "succ_2_words": sum(c == 2 for c in counts),
        "succ_3plus_words": sum(c >= 3 for c in counts),
        "avg_queries": round(sum(r.num_queries for r in succ + failed) / attacked, 1) if attacked else None,
        "seconds_per_example": round(seconds / attacked, 3) if attacked else None,
        "seconds_total": round(seconds, 1),
    }


def texts_of(result):
    """Original and vulnerable (second-order: x̃0) / adversarial text of a successful result."""
    from textattack.attack_results import SuccessfulAttackResult

    pr = result.perturbed_result
    patch = getattr(pr, "patch", None)  # second-order results: the patch pair, for reading x̃0 beside x̃0 ⊕ p
    out = {
        "patch_p1": getattr(patch, "p1", None),
        "patch_p2": getattr(patch, "p2", None),
        "patch_index": getattr(patch, "index", None),
        "skip_reason": getattr(pr, "skip_reason", None),
    }
    if not isinstance(result, SuccessfulAttackResult):
        return {"original": None, "perturbed": None, **out}
    return {"original": result.original_result.attacked_text.text, "perturbed": pr.attacked_text.text, **out}


def run_key(row):
    """(victim, recipe, masked LM) of a run or per-example row."""
    lm = row.get("masked_lm")
    return row["victim"], row["recipe"], lm if isinstance(lm, str) else "-"


def add_naturalness(runs, per_example, args):
    """Median causal-LM perplexity of originals and vulnerable examples per (victim, recipe), and samples.

    Adds ``ppl_original``, ``ppl_vulnerable`` and ``ppl_ratio`` (median over successes of the
    vulnerable texts / median of their originals) to each run row that has texts in
    ``per_example``, and writes ``--samples`` random successes per pair beside their originals.
    """
    import math

    import numpy as np

    from textattack_secondorder.resources import load_causal_lm
    from textattack_secondorder.shared.files import atomic_write_text

    succ = [e for e in per_example if isinstance(e.get("perturbed"), str) and isinstance(e.get("original"), str)]
    if not succ:
        return
    from textattack_secondorder.resources.resolution import resolve

    lm = load_causal_lm()
    lm_name = resolve("causal_lm").value  # the slot's value (e.g. gemma), not the scorer object's repr
    texts = sorted({t for e in succ for t in (e["original"], e["perturbed"])})
    ppl = dict(zip(texts, lm.perplexity(texts)))
    lines = [
        f"# {args.samples} random successes per (victim, recipe); perplexity under the causal-LM slot's {lm_name}",
        "",
    ]
    for row in runs:
        mine = [e for e in succ if run_key(e) == run_key(row)]
        if not mine:
            continue
        po = float(np.nanmedian([ppl[e["original"]] for e in mine]))
        pv = float(np.nanmedian([ppl[e["perturbed"]] for e in mine]))
        row.update(
            ppl_original=round(po, 1),
            ppl_vulnerable=round(pv, 1),
            ppl_ratio=round(pv / po, 3) if po and not math.isnan(po) else None,
        )
        picked = random.Random(args.seed).sample(mine, min(args.samples, len(mine)))
        lines.append(
            f"## {' / '.join(run_key(row))}: {len(picked)} of {len(mine)} successes, "
            f"median PPL {po:.1f} -> {pv:.1f} (x{pv / po:.2f})"
        )
        for e in sorted(picked, key=lambda e: e["example"]):
            lines += [
                f"[{e['example']}] original   (PPL {ppl[e['original']]:7.1f}): {e['original']}",
                f"{'':>{len(str(e['example'])) + 2}} vulnerable (PPL {ppl[e['perturbed']]:7.1f}): {e['perturbed']}",
                "",
            ]
    out = Path(args.out)
    atomic_write_text(out.with_name(out.stem + "_samples.txt"), "\n".join(lines) + "\n")


def recipe_class(recipe):
    """Recipe class of a name, or of ``"name^param=value,..."`` (parameters given to ``build``)."""
    from textattack_secondorder.attack_recipes.build import attack_recipes

    return attack_recipes()[recipe.split("^")[0]]


def recipe_params(recipe):
    from textattack_secondorder.shared.recipe_params import parse_recipe_params

    return parse_recipe_params(recipe.partition("^")[2])


def takes_masked_lm(recipe):
    """Whether the recipe has a masked-LM parameter (so-*, bae-offline)."""
    return "masked_lm" in recipe_class(recipe).PARAMS


def load_benchmark_victim(spec):
    """A demo victim by name (the package's wrapper), or a Hugging Face folder loaded exactly as the stock
    command line's ``--model-from-huggingface DIR`` loads it (TextAttack's ``HuggingFaceModelWrapper``; our
    recipes swap it for the per-batch padding one unless ``TEXTATTACK_SECONDORDER_KEEP_HF_WRAPPER=1``)."""
    from textattack_secondorder.models.victims import VICTIMS, load_victim

    if spec in VICTIMS:
        return load_victim(spec)
    import textattack

    return textattack.ModelArgs._create_model_from_args(textattack.ModelArgs(model_from_huggingface=spec))


def build(recipe, model_wrapper, masked_lm, synonyms=None):
    cls = recipe_class(recipe)
    kwargs = recipe_params(recipe)
    if takes_masked_lm(recipe) and masked_lm is not None:
        kwargs["masked_lm"] = masked_lm
    if "synonyms" in cls.PARAMS and synonyms is not None:
        kwargs["synonyms"] = synonyms
    return cls.build(model_wrapper, **kwargs)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--victims",
        nargs="+",
        default=["mr-cnn", "mr-lstm", "mr-bow", "mr-minilm"],
        help="demo victim names, or Hugging Face model folders (loaded as the stock CLI's --model-from-huggingface)",
    )
    ap.add_argument(
        "--recipes",
        nargs="+",
        default=DEFAULT_RECIPES,
        help="recipe names, or 'name^param=value,...' to run a variant beside the default "
        "(e.g. so-beam 'so-beam^expand_chunk=0')",
    )
    ap.add_argument("--num-examples", type=int, default=100)
    ap.add_argument(
        "--split",
        choices=("test", "train"),
        default="test",
        help="MR split the examples come from: test (the report set) or train (for development)",
    )
    ap.add_argument(
        "--offset",
        type=int,
        default=0,
        help="skip this many of the split's seeded sample first (e.g. --split train --offset 200 for a fresh set)",
    )
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--threads", type=int, default=None, help="torch threads (1 is fastest on a shared machine)")
    ap.add_argument(
        "--masked-lm",
        nargs="+",
        default=[None],
        help="masked-LM slot value(s), run side by side (default: the slot's default)",
    )
    ap.add_argument(
        "--masked-lm-dtype",
        default=None,
        help="weights dtype of the shared masked LM: float32 (default), bfloat16, float16 (CUDA), auto",
    )
    ap.add_argument("--model-batch-size", type=int, default=64)
    ap.add_argument(
        "--synonyms",
        default=None,
        help="word->synonyms JSON for patch words / synonym swaps (default: the synonyms slot), e.g. the "
        "paper's counter-fitted neighbour list (Jia et al. 2019) saved as JSON",
    )
    ap.add_argument("--out", default=str(RESULTS / "second_order.json"))
    ap.add_argument("--force", action="store_true")
    ap.add_argument(
        "--no-perplexity",
        dest="perplexity",
        action="store_false",
        help="skip the causal-LM perplexity of originals and vulnerable examples",
    )
    ap.add_argument("--samples", type=int, default=30, help="successes per (victim, recipe) in the samples file")
    ap.add_argument(
        "--profile",
        action="store_true",
        help="split each recipe's time per example into masked-LM forwards, victim forwards, "
        "neighbourhood rule, constraints, goal-function bookkeeping and the rest (a 'profile' "
        "entry per row; the wrappers add a few microseconds per call)",
    )
    args = ap.parse_args()
    if args.threads:
        import torch

        torch.set_num_threads(args.threads)
    logging.basicConfig(level=logging.WARNING)

    import pandas as pd
    import textattack

    import textattack_secondorder
    from textattack_secondorder.datasets.mr import load_mr
    from textattack_secondorder.resources import load_word_proposer
    from textattack_secondorder.shared.files import atomic_write_text

    textattack_secondorder.register()
    out = Path(args.out)
    done = json.loads(out.read_text()) if out.exists() else {"runs": []}
    # one proposer per masked LM, shared by every recipe that uses it (so-* and bae-offline)
    proposers = {}
    for value in args.masked_lm:
        proposer = load_word_proposer(value, dtype=args.masked_lm_dtype)
        proposers[proposer.name if value is None else value] = proposer
    lms = list(proposers)
    if args.force:  # recompute the rows named on this command line, keep the others
        done["runs"] = [
            r
            for r in done["runs"]
            if not (r["victim"] in args.victims and r["recipe"] in args.recipes and run_key(r)[2] in lms + ["-"])
        ]
    have = {run_key(r) for r in done["runs"]}

    pool = load_mr(args.split)
    rng = random.Random(args.seed)  # the split's seeded sample, less its first --offset sentences
    examples = rng.sample(pool, min(args.offset + args.num_examples, len(pool)))[args.offset :]
    dataset = textattack.datasets.Dataset(examples)
    synonyms = None
    if args.synonyms:
        from textattack_secondorder.resources import load_synonyms

        synonyms = load_synonyms(args.synonyms)
    done["settings"] = {
        "num_examples": len(examples),
        "split": args.split,
        "offset": args.offset,
        "seed": args.seed,
        "masked_lm": {k: repr(v) for k, v in proposers.items()},
        "synonyms": args.synonyms or "synonyms slot default",
        "model_batch_size": args.model_batch_size,
    }

    from textattack.shared.utils import set_seed
    from tqdm.auto import tqdm

    examples_csv = out.with_name(out.stem + "_examples.csv")
    per_example = pd.read_csv(examples_csv).to_dict("records") if examples_csv.exists() else []

    def variants(recipe):  # (recipe, masked LM) pairs: one per masked LM if the recipe takes one
        return [(recipe, lm) for lm in lms] if takes_masked_lm(recipe) else [(recipe, "-")]

    for victim in args.victims:
        todo = [v for r in args.recipes for v in variants(r) if (victim, *v) not in have]
        if not todo:
            continue
        model_wrapper = load_benchmark_victim(victim)
        attacks = {}
        for recipe, lm in todo:
            attacks[recipe, lm] = build(recipe, model_wrapper, proposers.get(lm), synonyms)
            attacks[recipe, lm].goal_function.batch_size = args.model_batch_size
        # Recipes take turns on each example, so a change in machine load during the run hits
        # all of them alike and the time ratios stay comparable.
        timer = None
        if args.profile:
            from stage_timer import StageTimer  # benchmarks/stage_timer.py, beside this script

            timer = StageTimer()
            timer.install([a.goal_function.model for a in attacks.values()], proposers.values())
        set_seed(args.seed)
        results = {r: [] for r in todo}
        seconds = {r: 0.0 for r in todo}
        per_example = [e for e in per_example if run_key(e) not in {(victim, *v) for v in todo}]
        for i in tqdm(range(len(dataset)), desc=victim, unit="example"):
            example, label = dataset[i]
            for recipe in todo:
                if timer is not None:
                    timer.current = recipe
                    before = dict(timer.totals.get(recipe, {}))
                t0, c0 = time.perf_counter(), time.process_time()
                res = attacks[recipe].attack(example, label)
                dt, cpu = time.perf_counter() - t0, time.process_time() - c0
                stages = {}
                if timer is not None:
                    timer.current = None
                    timer.example(recipe, dt)
                    after = timer.totals.get(recipe, {})
                    stages = {f"s_{k}": round(after.get(k, 0.0) - before.get(k, 0.0), 3) for k in timer.STAGES}
                seconds[recipe] += dt
                results[recipe].append(res)
                per_example.append(
                    {
                        "victim": victim,
                        "recipe": recipe[0],
                        "masked_lm": recipe[1],
                        "example": i,
                        "result": type(res).__name__.replace("AttackResult", ""),
                        "perturbed_words": words_changed(res),
                        "queries": res.num_queries,
                        "seconds": round(dt, 3),
                        # CPU seconds of this process: on a machine shared with other jobs, the time the
                        # example would take alone on one thread (with --threads 1)
                        "cpu_seconds": round(cpu, 3),
                        **stages,
                        **texts_of(res),
                        # so-beam's steps: depth, lowest loss, queries so far, candidates (docs/design/speed.md)
                        "trace": json.dumps(getattr(attacks[recipe].search_method, "trace", None)),
                    }
                )
            # every example's rows on disk as soon as they exist: a long run killed midway keeps them
            atomic_write_text(examples_csv, pd.DataFrame(per_example).to_csv(index=False))
        for recipe in todo:
            row = {
                "victim": victim,
                "recipe": recipe[0],
                "masked_lm": recipe[1],
                **summarize(results[recipe], seconds[recipe]),
            }
            tr = attacks[recipe].transformation
            if hasattr(tr, "proposer_calls") and row["attacked"]:  # masked-LM inputs actually run
                row["masked_lm_inputs_per_example"] = round(tr.proposer_calls / row["attacked"], 1)
                row["masked_lm_cache_hits"] = round(1 - tr.proposer_calls / max(tr.proposer_requests, 1), 3)
            if timer is not None:
                row["profile"] = timer.report(recipe)
            done["runs"].append(row)
            print(json.dumps(row), flush=True)
        if timer is not None:
            timer.uninstall()
        atomic_write_text(out, json.dumps(done, indent=2) + "\n")
        atomic_write_text(examples_csv, pd.DataFrame(per_example).to_csv(index=False))

    if args.perplexity and per_example:
        add_naturalness(done["runs"], per_example, args)
        atomic_write_text(out, json.dumps(done, indent=2) + "\n")
    df = pd.DataFrame(done["runs"])
    atomic_write_text(out.with_suffix(".csv"), df.to_csv(index=False))
    cols = [
        "victim",
        "recipe",
        "masked_lm",
        "success_rate",
        "avg_perturbed_words",
        "avg_queries",
        "seconds_per_example",
        "skipped",
    ]
    cols += [c for c in ("ppl_original", "ppl_vulnerable", "ppl_ratio") if c in df]
    print(df[cols].to_string(index=False))
    # ratio asked for: so-beam seconds per example over bae's, per victim and masked LM, same run
    for (victim, lm), g in df.groupby(["victim", "masked_lm"]):
        s = g.set_index("recipe")["seconds_per_example"]
        if "so-beam" in s and "bae-offline" in s and s["bae-offline"]:
            print(f"{victim} [{lm}]: so-beam / bae-offline time per example = {s['so-beam'] / s['bae-offline']:.2f}x")


if __name__ == "__main__":
    sys.exit(main())
