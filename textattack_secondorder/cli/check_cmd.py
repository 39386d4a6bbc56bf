"""``textattack-so check CONFIG``: one robustness gate for CI (docs/methods.md §8); parsing and printing only."""

# Library imports inside run(): `textattack-so --help` takes ~0.5 s, not ~20 s with TextAttack at the top (measured).

import sys
import time

from .common import positive_int


def add_parser(subparsers):
    p = subparsers.add_parser(
        "check",
        help="robustness gate: run the checks of a TOML config against thresholds (exit 0 pass, 1 fail, 2 bad config)",
        description="Run every check of CONFIG (second_order, attack, bias, single_word, perturbed_sets, meaning) "
        "through the commands' own code paths, judge each against its threshold and write report.html, "
        "results.json and junit.xml to --out. Finished evaluations are stored under a content key: a re-run "
        "recomputes only what changed (a threshold edit recomputes nothing). Exit code 0 when all pass, 1 when "
        "any fails, 2 for a bad config. `--init [PATH]` writes a commented starter config.",
    )
    p.add_argument("config", nargs="?", help="TOML config (see --init)")
    p.add_argument(
        "--init",
        nargs="?",
        const="robustness.toml",
        default=None,
        metavar="PATH",
        help="write a commented starter config for the demo victim (default robustness.toml; never overwrites)",
    )
    p.add_argument("--out", default="results/check", help="output folder (default results/check)")
    g = p.add_argument_group("cluster (override the config's [run] table)")
    g.add_argument(
        "--ray",
        nargs="?",
        const="local",
        default=None,
        metavar="ADDRESS",
        help="run the shards on Ray: no value starts a local Ray instance; 'auto' or HOST:PORT joins one",
    )
    g.add_argument("--shards", type=positive_int, default=None, help="cut each check's work into N shards")
    p.set_defaults(func=run)


def run(args):
    from ..checks.base import ConfigError
    from ..checks.config import load_config

    if args.init:
        from ..checks.starter import write_starter

        try:
            path = write_starter(args.init)
        except FileExistsError as e:
            print(f"textattack-so check: error: {e}", file=sys.stderr)
            return 2
        print(f"wrote {path}; run it with: textattack-so check {path}")
        return 0
    if not args.config:
        print("textattack-so check: error: config: missing; give CONFIG or write one with --init", file=sys.stderr)
        return 2
    start = time.time()
    try:
        config = load_config(args.config)
        if args.ray is not None or args.shards is not None:
            config.run.update({k: v for k, v in (("ray", args.ray), ("shards", args.shards)) if v is not None})
        from ..checks.report import format_table, write_reports
        from ..checks.runner import run_gate
        from ..plugin.extensions import extend_textattack

        extend_textattack()  # our CSV columns and summary rows in the attacks run here, also with the import hook off
        verdicts, context = run_gate(config, args.out)
    except ConfigError as e:
        print(f"textattack-so check: error: {e}", file=sys.stderr)
        return 2
    elapsed = time.time() - start
    paths = write_reports(config, verdicts, context, elapsed)
    print()
    print(format_table(verdicts))
    print(f"\n{elapsed:.1f} s; wrote {paths['html']}, {paths['json']}, {paths['junit']}")
    return 0 if all(v.passed for v in verdicts) else 1
