"""The gate against a baseline on the demo victim (docs/design/gate.md): no false alarm when only the
sampling seeds change, failures where a deliberately weakened copy got worse.

1. ``--init --model mr-cnn``: the starter checks measured on mr-cnn (thresholds at value + default tolerance),
   then the same run written as the baseline (``--update-baseline``, every evaluation reused);
2. mr-cnn again with other sampling seeds (``seed`` of every check that has one, sp-attack's pool seed),
   judged against the baseline: every check must pass;
3. a copy of mr-cnn fine-tuned ``--steps`` steps on MR training sentences with shuffled labels (the
   embedding kept frozen, as in training), judged against the baseline: the checks whose metric got
   worse beyond its tolerance fail, naming baseline, value and tolerance.

    python benchmarks/gate_regression.py --threads 1

Writes the configs, the weakened model and the gate's outputs under --work, and
benchmarks/results/gate_regression.json (each run's console table and verdicts). Finished checks are
reused from --work (resume).
"""

import argparse
import contextlib
import io
import json
import re
import sys
import time
from pathlib import Path

RESULTS = Path(__file__).parent / "results"


def weaken(out_dir, steps, seed=0, lr=1e-3, batch_size=32):
    """mr-cnn fine-tuned ``steps`` steps on shuffled training labels, saved to ``out_dir``."""
    import numpy as np
    import torch

    from textattack_secondorder.datasets.examples import load_examples
    from textattack_secondorder.defense.training import save_model
    from textattack_secondorder.models.loading import load_model_wrapper
    from textattack_secondorder.shared.padding import pad_right

    wrapper = load_model_wrapper("mr-cnn")
    model, tok = wrapper.model, wrapper.tokenizer
    train = load_examples("mr", "train")
    rng = np.random.default_rng(seed)
    labels = torch.tensor(rng.permutation([y for _, y in train]))
    ids = tok([t for t, _ in train], truncation=True)["input_ids"]
    torch.manual_seed(seed)
    params = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.Adam(params, lr=lr)
    model.train()
    for _ in range(steps):
        batch = rng.choice(len(ids), batch_size, replace=False)
        input_ids, mask = pad_right([ids[i] for i in batch], tok.pad_token_id)
        loss = model(input_ids=input_ids, attention_mask=mask, labels=labels[batch]).loss
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    model.eval()
    save_model(wrapper, out_dir, {"weakened": f"mr-cnn + {steps} steps on shuffled labels", "lr": lr, "seed": seed})


def reseeded(text, seed):
    """The config ``text`` with every sampling seed set from ``seed``."""
    out, kind = [], None
    for line in text.splitlines():
        m = re.match(r'kind = "(\w+)"', line)
        kind = m.group(1) if m else kind
        if line.startswith("recipe = ") and "sp-attack" in line:
            line = line.rstrip().rstrip('"') + f',seed={seed}"'
        out.append(line)
        if line == "[check.settings]" and kind in ("attack", "second_order", "bias", "perturbed_sets"):
            out.append(f"seed = {seed if kind in ('bias', 'perturbed_sets') else 765 + 1000 * seed}")
    return "\n".join(out) + "\n"


def gate(argv, out):
    """Run ``textattack-so`` with ``argv``; returns its exit code, console table and verdicts (the
    ``results.json`` it wrote to ``out``: value, baseline, status and the seconds each evaluation took)."""
    from textattack_secondorder.cli import main

    print("+ textattack-so " + " ".join(argv), flush=True)
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        code = main(argv)
    print(buf.getvalue(), flush=True)
    doc = json.loads((Path(out) / "results.json").read_text())
    keep = ("name", "metric", "value", "threshold", "tolerance", "status", "failed_rules", "seconds", "reused")
    checks = [dict({k: c[k] for k in keep}, baseline=(c["baseline"] or {}).get("value")) for c in doc["checks"]]
    return {
        "command": "textattack-so " + " ".join(argv),
        "exit_code": code,
        "table": table(buf.getvalue()),
        "checks": checks,
    }


def mr_test_accuracy(spec):
    from textattack_secondorder.datasets.examples import load_examples
    from textattack_secondorder.models.loading import load_model_wrapper
    from textattack_secondorder.models.training import accuracy

    wrapper = load_model_wrapper(spec)
    return round(accuracy(wrapper.model, wrapper.tokenizer, load_examples("mr", "test")), 4)


def table(printed):
    """The verdict table and what follows it, from a run's console output."""
    return printed[printed.index("check  ") :].strip() if "check  " in printed else printed


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--work", default="results/gate_regression")
    ap.add_argument("--steps", type=int, default=300, help="fine-tuning steps on shuffled labels")
    ap.add_argument("--seed", type=int, default=7, help="sampling seed of the re-check (the baseline: the defaults)")
    ap.add_argument("--threads", type=int, default=None, help="torch threads (1 on a shared machine)")
    ap.add_argument("--out", default=str(RESULTS / "gate_regression.json"))
    args = ap.parse_args()
    if args.threads:
        import torch

        torch.set_num_threads(args.threads)
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    cfg, out, base = work / "robustness.toml", str(work / "out"), str(work / "baseline.json")
    runs = {}
    start = time.time()
    if not cfg.exists():
        runs["init"] = gate(["check", "--init", str(cfg), "--model", "mr-cnn", "--out", out], out)
    runs["baseline"] = gate(["check", str(cfg), "--out", out, "--update-baseline", base], out)
    runs["rejudge"] = gate(["check", str(cfg), "--out", out, "--baseline", base], out)
    seeds = work / f"robustness-seed{args.seed}.toml"
    seeds.write_text(reseeded(cfg.read_text(), args.seed))
    runs["other seeds"] = gate(["check", str(seeds), "--out", out, "--baseline", base], out)
    weak = work / f"mr-cnn-shuffled-{args.steps}"
    if not weak.exists():
        weaken(weak, args.steps)
    weak_cfg = work / "robustness-weak.toml"
    weak_cfg.write_text(re.sub(r'^model = ".*"', f'model = "{weak}"', cfg.read_text(), count=1, flags=re.M))
    runs["weakened"] = gate(["check", str(weak_cfg), "--out", out, "--baseline", base], out)
    doc = {
        "steps": args.steps,
        "seed": args.seed,
        "mr_test_accuracy": {"mr-cnn": mr_test_accuracy("mr-cnn"), str(weak): mr_test_accuracy(str(weak))},
        "seconds": round(time.time() - start),
        "runs": runs,
    }
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(doc, indent=2))
    print(f"wrote {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
