"""``textattack-so check CONFIG``: one robustness gate for CI (docs/design/gate.md); parsing and printing only."""

import os
import sys
import time

from ..shared.specs import CLUSTER_FLAGS
from .common import add_cluster_args

# Exit codes (docs/design/gate.md): 0 every check passes; 1 a check fails (its threshold or its
# baseline); 2 a bad config, baseline or model (one line); 3 nothing fails, but a check could not be
# judged: its settings differ from the baseline's, the baseline lacks it, or it has neither threshold
# nor baseline. With --accept / --update-baseline the run becomes the baseline, and 3 is not used.
EXIT = {"pass": 0, "fail": 1, "not comparable": 3, "not judged": 3}


def add_parser(subparsers):
    p = subparsers.add_parser(
        "check",
        help="robustness gate: run the checks of a TOML config against thresholds and a baseline run "
        "(exit 0 pass, 1 fail, 2 bad config or baseline, 3 not comparable with the baseline)",
        description="Run every check of CONFIG (second_order, attack, bias, single_word, perturbed_sets, meaning) "
        "through the commands' own code paths, judge each against its threshold and, with --baseline, against "
        "an earlier run's value of the same metric within a tolerance, and write report.html, results.json, "
        "junit.xml and summary.md to --out. Finished evaluations are stored under a content key: a re-run "
        "recomputes only what changed (a threshold or tolerance edit recomputes nothing). Exit code 0 when all "
        "pass, 1 when any fails, 2 for a bad config or baseline, 3 when a check is not comparable with the "
        "baseline (its settings differ: the keys are named) or has neither threshold nor baseline. "
        "`--init [PATH]` writes a commented starter config; with --model it measures the thresholds on that model.",
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
    p.add_argument(
        "--model",
        default=None,
        help="with --init: run the starter checks once on this model (any --model form) and write thresholds at "
        "the measured value plus each metric's default tolerance, so the new gate passes on the model as it is",
    )
    p.add_argument("--out", default="results/check", help="output folder (default results/check)")
    g = p.add_argument_group("baseline (docs/design/gate.md)")
    g.add_argument(
        "--baseline",
        default=None,
        metavar="PATH",
        help="an earlier run's results.json (or its folder): each check is also judged against the baseline's "
        "value of its metric, within its tolerance (`tolerance =` in the check, or the metric's default)",
    )
    w = g.add_mutually_exclusive_group()
    w.add_argument(
        "--accept",
        action="store_true",
        help="after judging, write this run's results over the --baseline file (accept them as the new baseline)",
    )
    w.add_argument(
        "--update-baseline",
        default=None,
        metavar="PATH",
        help="after judging, write this run's results as the baseline at PATH (a file, or a folder: "
        "PATH/results.json), with the package version and the model's fingerprint",
    )
    add_cluster_args(p, unit="work of each check", overrides="config's [run] table")
    p.set_defaults(func=run)


def _error(message):
    print(f"textattack-so check: error: {message}", file=sys.stderr)
    return 2


def run(args):
    from ..checks.base import ConfigError

    if args.accept and not args.baseline:
        return _error("--accept: give --baseline PATH (the file it overwrites), or write one with --update-baseline")
    if args.init:
        return init(args)
    if args.model:
        return _error('--model: only with --init (a config names its model: model = "...")')
    if not args.config:
        return _error("config: missing; give CONFIG or write one with --init")
    start = time.time()
    try:
        config, baseline = load(args)
        verdicts, context = judge_run(config, args, baseline)
    except ConfigError as e:
        return _error(e)
    return finish(config, verdicts, context, baseline, args, time.time() - start)


def load(args):
    """The config (with the command line's [run] overrides) and the baseline, both checked before any
    model loads."""
    from ..checks.baseline import load_baseline
    from ..checks.config import load_config

    config = load_config(args.config)
    config.run.update({k: getattr(args, k) for k in CLUSTER_FLAGS if getattr(args, k) is not None})
    baseline = load_baseline(args.baseline) if args.baseline else None
    return config, baseline


def judge_run(config, args, baseline=None):
    from ..checks.runner import run_gate

    return run_gate(config, args.out, baseline=baseline, prepare=_extend_textattack)


def _extend_textattack():
    """Our CSV columns and summary rows in the attacks the gate runs, also with the import hook off;
    called only when a check is evaluated (a re-judge of stored evaluations loads no TextAttack)."""
    from ..plugin.extensions import extend_textattack

    extend_textattack()


def finish(config, verdicts, context, baseline, args, elapsed):
    """Write the outputs, print the table, write the baseline when asked; returns the exit code."""
    from ..checks.baseline import write_baseline
    from ..checks.report import write_reports
    from ..checks.results import overall_status
    from ..checks.summary import format_table

    paths, document = write_reports(config, verdicts, context, elapsed, baseline)
    print()
    print(format_table(verdicts, baseline))
    print(f"\n{elapsed:.1f} s; wrote {paths['html']}, {paths['json']}, {paths['junit']}, {paths['summary']}")
    target = args.baseline if args.accept else args.update_baseline
    status = overall_status(verdicts)
    if target:
        written = write_baseline(target, document)
        print(
            f"wrote the baseline {written} ({len(verdicts)} checks, model {config.model}, fingerprint "
            f"{document['model_fingerprint'][:12] or 'unknown'}, textattack-secondorder {document['package_version']})"
        )
        return 1 if status == "fail" else 0
    return EXIT[status]


def init(args):
    """``--init [PATH]``: the starter config; with ``--model``, thresholds measured on that model."""
    from ..checks.base import ConfigError
    from ..checks.baseline import load_baseline
    from ..checks.starter import measured_starter, starter_config, write_starter

    if not args.model:
        try:
            path = write_starter(args.init)
        except FileExistsError as e:
            return _error(e)
        print(f"wrote {path}; run it with: textattack-so check {path}")
        return 0
    if os.path.exists(args.init):
        return _error(f"{args.init} exists; not overwriting it (remove it or give another path: --init PATH)")
    start = time.time()
    try:
        if args.baseline:
            load_baseline(args.baseline)  # a bad baseline: said before the measurement, not after
        config = starter_config(args.model, args.init)
        print(f"measuring the starter checks on {args.model} (results in {args.out}) ...")
        verdicts, _ = judge_run(config, args)
        path = write_starter(args.init, measured_starter(args.model, verdicts))
        # the new gate, judged on the evaluations just made (all reused): green on the model as it is
        args.config = path
        config, baseline = load(args)
        verdicts, context = judge_run(config, args, baseline)
    except (ConfigError, FileExistsError) as e:
        return _error(e)
    code = finish(config, verdicts, context, baseline, args, time.time() - start)
    print(
        f"wrote {path}: thresholds at the values measured on {args.model} plus each metric's default "
        f"tolerance; run it with: textattack-so check {path} --out {args.out}"
    )
    return code
