"""Does adversarial training miss TextFooler because of A2T's own attack? (docs/design/defenses.md)

A2T (`defend --defense a2t`) makes its adversarial sets with the `a2t-offline` recipe: gradient word importance,
at most max(10 %, 4) words changed, sentence-encoder cosine >= 0.9, a part-of-speech check. On the demo word
victims it left textfooler-offline's success where it was. This benchmark trains the same A2T schedule (the same
steps, batch, learning rate, rounds and share of successes) with another recipe making the sets, by default
textfooler-offline itself, the attack it is then measured against, and measures the model with
``textattack-so defend --compare vanilla --model FOLDER`` on the same sentences as every comparison (the fixed
seeded order of the test rows), so its row sits beside the A2T and vanilla rows of the victim's comparison.

    python benchmarks/a2t_attack_choice.py --victim mr-lstm --recipe textfooler-offline --seed 0

The model goes to ``--workdir``/<victim>-<recipe>-seed<S> (default under
``~/.cache/textattack/secondorder/a2t_attack_choice``); a second run reuses a finished model and a finished
measurement. The comparison's table is copied to ``benchmarks/results/a2t_attack_choice_<victim>-<recipe>-seed<S>.md``
(and the model's ``defense.json`` beside it).
"""

import argparse
import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from sp_defense import RESULTS, run_cli  # noqa: E402


def parse_args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--victim", default="mr-lstm", help="a victim name or model folder")
    ap.add_argument("--recipe", default="textfooler-offline", help="the recipe that makes the adversarial sets")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--steps", type=int, default=1000)
    ap.add_argument("--workdir", default="~/.cache/textattack/secondorder/a2t_attack_choice")
    return ap.parse_args(argv)


def train(args, folder):
    import torch

    from textattack_secondorder.defense.data import defense_data, screen_defense_rows
    from textattack_secondorder.defense.defend import defend_model
    from textattack_secondorder.defense.measure import build_recipe
    from textattack_secondorder.models.loading import load_model_wrapper

    torch.set_num_threads(1)
    wrapper = load_model_wrapper(args.victim)
    train_rows, test_rows, source = defense_data("mr")
    train_rows, test_rows, _ = screen_defense_rows(train_rows, test_rows, wrapper)
    attack = build_recipe(args.recipe, wrapper)  # on the wrapper of the model being trained: the current model
    info = {"model": args.victim, "a2t_attack": args.recipe, "test data": source}
    record = defend_model(
        wrapper,
        train_rows,
        test_rows,
        folder,
        defense="a2t",
        steps=args.steps,
        seed=args.seed,
        info=info,
        attack=attack,
    )
    print(f"trained {folder}: accuracy {record['test_accuracy_before']} -> {record['test_accuracy_after']}")


def main(argv=None):
    args = parse_args(argv)
    root = Path(args.workdir).expanduser()
    name = f"{Path(args.victim).name}-{args.recipe}-seed{args.seed}"
    folder = root / name
    if not (folder / "defense.json").exists():
        train(args, folder)
    out = root / f"{name}-measured"
    run_cli(
        ["defend", "--compare", "vanilla", "--model", str(folder), "--seeds", "1", "--so-beam-examples", "1"]
        + ["--out", str(out)]
    )
    RESULTS.mkdir(parents=True, exist_ok=True)
    target = RESULTS / f"a2t_attack_choice_{name}.md"
    shutil.copyfile(out / "comparison.md", target)
    shutil.copyfile(folder / "defense.json", target.with_suffix(".defense.json"))
    print(f"wrote {target}")


if __name__ == "__main__":
    main()
