"""What one of A2T's adversarial sets costs on a victim, and where the time goes (docs/design/defenses.md).

``defend --defense a2t`` attacks shuffled training rows with the ``a2t-offline`` recipe until 20 % of the
rows have given a successful attack (A2T's set; TextAttack ``Trainer``'s rule). This benchmark runs that
attack on ``--rows`` of the defenses' training rows, shuffled (seed 0), on the model as given, one thread,
and reports the share of attacked rows that succeed, the seconds per attacked row, the time per row in the
sentence encoder, the victim's forwards, the gradient of the word importance and the part-of-speech check,
and the CPU time one set would take at that rate: ``ceil(0.2 * rows) / success share * seconds per row``.

    python benchmarks/a2t_cost.py --victim mr-minilm --rows 80

Writes ``benchmarks/results/a2t_cost_<victim>.json``.
"""

import argparse
import json
import math
import random
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from sp_defense import RESULTS, machine  # noqa: E402
from stage_timer import StageTimer  # noqa: E402

STAGES = ("sentence_encoder", "victim", "gradient", "part_of_speech")


def parse_args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--victim", default="mr-minilm", help="a victim name or model folder")
    ap.add_argument("--rows", type=int, default=80, help="training rows attacked (shuffled, seed 0)")
    ap.add_argument("--out", default=None, help="JSON file (default benchmarks/results/a2t_cost_<victim>.json)")
    return ap.parse_args(argv)


def install(timer, wrapper):
    from textattack.constraints.semantics.sentence_encoders import SentenceEncoder

    from textattack_secondorder.constraints.universal_part_of_speech import UniversalPartOfSpeech

    timer.wrap(SentenceEncoder, "_check_constraint_many", "sentence_encoder")
    timer.wrap(UniversalPartOfSpeech, "_check_constraint_many", "part_of_speech")
    timer.wrap(type(wrapper), "__call__", "victim")
    timer.wrap(type(wrapper), "get_grad", "gradient")


def main(argv=None):
    args = parse_args(argv)
    import torch

    from textattack_secondorder.attack_recipes.a2t_offline import A2TOffline
    from textattack_secondorder.defense.a2t import ADVERSARIAL_SHARE
    from textattack_secondorder.defense.data import defense_data, screen_defense_rows
    from textattack_secondorder.models.loading import load_model_wrapper

    torch.set_num_threads(1)
    wrapper = load_model_wrapper(args.victim)
    train_rows, test_rows, _ = defense_data("mr")
    train_rows, _, _ = screen_defense_rows(train_rows, test_rows, wrapper)
    attack = A2TOffline.build(wrapper)
    rows = list(train_rows)
    random.Random(0).shuffle(rows)  # a set's Attacker takes shuffled rows too
    rows = rows[: args.rows]
    timer, kinds = StageTimer(), Counter()
    install(timer, wrapper)
    timer.current = "a2t"
    start = time.perf_counter()
    try:
        for text, label in rows:
            t0 = time.perf_counter()
            kind = type(attack.attack(text, int(label))).__name__
            dt = time.perf_counter() - t0
            kinds[kind] += 1
            if kind != "SkippedAttackResult":
                timer.example("a2t", dt)  # the attacked rows' wall time, split by stage
    finally:
        timer.uninstall()
    attacked = kinds["SuccessfulAttackResult"] + kinds["FailedAttackResult"]
    share = kinds["SuccessfulAttackResult"] / attacked if attacked else 0.0
    totals = timer.totals.get("a2t", {})
    per_row = totals.get("wall", 0.0) / attacked if attacked else 0.0
    wanted = math.ceil(ADVERSARIAL_SHARE * len(train_rows))
    result = {
        "victim": args.victim,
        "machine": machine(),
        "threads": torch.get_num_threads(),
        "rows": len(rows),
        "results": dict(kinds),
        "success_share_of_attacked": round(share, 3),
        "seconds_per_attacked_row": round(per_row, 3),
        "seconds_per_attacked_row_by_stage": {s: round(totals.get(s, 0.0) / max(attacked, 1), 3) for s in STAGES},
        "training_rows": len(train_rows),
        "set_size": wanted,
        "rows_attacked_per_set": round(wanted / share) if share else None,
        "cpu_minutes_per_set": round(wanted / share * per_row / 60, 1) if share else None,
        "wall_seconds": round(time.perf_counter() - start, 1),
    }
    print(json.dumps(result, indent=1))
    out = Path(args.out) if args.out else RESULTS / f"a2t_cost_{Path(args.victim).name}.json"
    out.write_text(json.dumps(result, indent=1) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
