"""``textattack-so meaning``: judge adversarial perturbations by meaning preservation (Michel et al., NAACL 2019).

Two inputs:

* a TextAttack CSV attack log (``textattack attack ... --log-to-csv``): classifier
  attacks, ``s_tgt`` = 0/1 label agreement;
* for sequence-to-sequence models, five text files with one sentence per line
  (``--src --adv --out-orig --out-adv --ref``), as TEAPOT takes them: ``s_tgt`` = chrF, so
  ``d_tgt`` = RDchrF.

Prints mean / std / 5–95 % of the source chrF and of ``d_tgt``, the success
percentage (``1 − s_src < d_tgt``), and writes the per-example CSV (+ a summary JSON).
"""

import json
import logging
from pathlib import Path

from ..shared.errors import UsageError

logger = logging.getLogger(__name__)


def add_parser(subparsers):
    p = subparsers.add_parser(
        "meaning",
        help="meaning preservation of adversarial examples: source chrF, target RDchrF, success rate "
        "(Michel et al. 2019)",
        description="Judge perturbations as Michel et al. (NAACL 2019) / TEAPOT do: source-side chrF s_src(x, x̂), "
        "target-side relative destruction d_tgt (RDchrF for seq2seq, 0/1 label agreement for classifiers) and the "
        "success rule 1 - s_src < d_tgt. Give either --log (a TextAttack CSV attack log) or the five text files "
        "--src --adv --out-orig --out-adv --ref.",
    )
    p.add_argument("--log", help="TextAttack CSV attack log (columns original_text, perturbed_text, ... result_type)")
    p.add_argument(
        "--include-failed",
        action="store_true",
        help="also judge Failed rows of the log (left out by default: a failed row's perturbed text is a candidate "
        "the attack rejected, not an adversarial example)",
    )
    p.add_argument(
        "--include-skipped",
        action="store_true",
        help="also judge Skipped rows of the log (the model was already wrong; left out by default)",
    )
    p.add_argument("--src", help="original source sentences x, one per line")
    p.add_argument("--adv", help="adversarial source sentences x̂, one per line")
    p.add_argument("--out-orig", help="model outputs on the original sources y_M, one per line")
    p.add_argument("--out-adv", help="model outputs on the adversarial sources ŷ_M, one per line")
    p.add_argument("--ref", help="reference outputs y, one per line")
    p.add_argument(
        "--output",
        "-o",
        default=None,
        help="per-example CSV (default: <log>.meaning.csv, or meaning.csv beside --adv); "
        "a summary JSON is written next to it",
    )
    p.set_defaults(func=run)


def _read_lines(path):
    with open(path, encoding="utf-8") as f:
        return [line.rstrip("\n") for line in f]


def run(args):
    import pandas as pd

    from ..evaluation import meaning as mp
    from ..shared.files import atomic_write_text

    seq2seq = [args.src, args.adv, args.out_orig, args.out_adv, args.ref]
    if args.log and any(seq2seq):
        raise SystemExit("meaning: give either --log or the seq2seq files, not both")
    skipped = []  # rows not judged for bad input (docs/design/hostile-input.md), listed with their reason
    if args.log:
        types = list(mp.JUDGED_BY_DEFAULT)
        types += ["Failed"] * args.include_failed + ["Skipped"] * args.include_skipped
        left_out = {}
        try:
            records = mp.read_attack_log(args.log, result_types=types, skipped=skipped, left_out=left_out)
        except ValueError as e:  # not an attack log: one line, exit code 2
            raise UsageError(str(e)) from None
        except FileNotFoundError:
            raise UsageError(f"--log {args.log}: no such file") from None
        rows = mp.evaluate_classification(records)
        target_name = "label agreement, 0/1"
        default_out = Path(args.log).with_suffix(".meaning.csv")
        source = args.log
    elif all(seq2seq):
        try:
            rows = mp.evaluate_seq2seq(*[_read_lines(p) for p in seq2seq], skipped=skipped)
        except ValueError as e:  # files of different lengths: one line, exit code 2
            raise UsageError(str(e)) from None
        except FileNotFoundError as e:
            raise UsageError(f"{e.filename}: no such file") from None
        target_name = "RDchrF"
        default_out = Path(args.adv).with_name("meaning.csv")
        source = args.adv
    else:
        raise SystemExit("meaning: give --log, or all five of --src --adv --out-orig --out-adv --ref")

    summary = mp.summary(rows)
    print(f"Meaning preservation of {source}")
    print(mp.format_summary(summary, target_name))
    if args.log:
        counts = pd.Series([r["result_type"] for r in rows]).value_counts().to_dict() if rows else {}
        print("result types judged: " + (", ".join(f"{k} {v}" for k, v in counts.items()) or "none"))
        if left_out:
            why = {
                "Failed": "its text is a candidate the attack rejected; --include-failed judges them",
                "Skipped": "never attacked; --include-skipped judges them",
            }
            parts = [f"{k} {v}" + (f" ({why[k]})" if k in why else "") for k, v in left_out.items()]
            print("not judged: " + ", ".join(parts))
        summary["result_types"] = counts
        summary["result_types_not_judged"] = left_out
    summary["rows skipped for bad input"] = len(skipped)
    if skipped:
        print(f"rows skipped for bad input (not judged, reason in skip_reason): {len(skipped)}")
        rows = sorted(rows + skipped, key=lambda r: r["index"])
    out = Path(args.output) if args.output else default_out
    atomic_write_text(out, pd.DataFrame(rows).to_csv(index=False))
    summary_path = out.with_suffix(".summary.json")
    summary.update(
        {
            "input": str(source),
            "target_score": target_name,
            "success_rule": "1 - s_src(x, x_adv) < d_tgt(y, y_M, y_M_adv)",
        }
    )
    atomic_write_text(summary_path, json.dumps(summary, indent=2, default=str))
    print(f"wrote {out} ({len(rows)} rows) and {summary_path}")
    return 0
