"""``textattack-so review``: a sheet to read a run's findings by hand, and the score of the readers' marks.

``textattack-so review RUN.csv [RUN.csv ...]`` writes one self-contained HTML page (and a CSV) of the runs' findings,
each beside its original, with the reader's marks ("reads as written by a person", "keeps the label", a note), which
the page keeps while it is open and downloads as CSV. ``--blind`` mixes the originals in, shuffled, without system
names (the key is written beside the page). ``textattack-so review --score MARKED.csv [...]`` turns the marks into
accepted findings per 100 attacked sentences, per run and reader (docs/guide/review.md).
"""

from pathlib import Path

from ..shared.errors import UsageError
from .common import non_negative_int, positive_int


def add_parser(subparsers):
    p = subparsers.add_parser(
        "review",
        help="a review sheet (HTML) of a run's findings to mark by hand; --score turns the marks into accepted "
        "findings per 100 attacked sentences",
        description="Write one self-contained HTML page (and a CSV) of the findings of one or more runs (TextAttack's "
        "--log-to-csv logs: any recipe, SP-Attack, so-beam / so-enum / so-random with their patch swap), each "
        "beside its original, for a reader to mark: reads as written by a person, keeps the label, a note. The "
        "page keeps the marks while it is open and downloads them as CSV. With --score, read marked CSVs (one per "
        "reader) and print accepted findings (natural AND label kept) per 100 attacked sentences per run and reader.",
    )
    p.add_argument("runs", nargs="*", metavar="RUN.csv", help="the runs' CSV logs (textattack attack --log-to-csv)")
    p.add_argument(
        "--out", "-o", default=None, help="the page to write (default: RUN.review.html beside the first run)"
    )
    p.add_argument(
        "--blind",
        action="store_true",
        help="mix the originals in, shuffle, name no system; the reader gives each sentence its label; the key "
        "(STEM_key.csv) is written beside the page, never inside it",
    )
    p.add_argument("--sample", type=positive_int, default=None, help="at most N findings of each run (default: all)")
    p.add_argument("--seed", type=non_negative_int, default=0, help="seed of the sample and the blind order (0)")
    p.add_argument(
        "--label-names",
        default=None,
        help="class names in class order, comma-separated (default: the names the runs carry; a blind sheet needs "
        "names)",
    )
    p.add_argument("--title", default=None, help="the page's title")
    p.add_argument(
        "--score",
        nargs="+",
        metavar="MARKED.csv",
        default=None,
        help="score marked CSVs (one per reader) instead of writing a sheet",
    )
    p.add_argument("--key", default=None, help="with --score: the sheet's key (needed for a blind sheet)")
    p.add_argument("--json", default=None, help="with --score: the JSON to write (default: MARKED.score.json)")
    p.set_defaults(func=run)


def run(args):
    if args.score is not None:
        if args.runs:
            raise UsageError("give either runs to make a sheet or --score MARKED.csv, not both")
        return score(args)
    if not args.runs:
        raise UsageError("give the run CSV(s) to review (textattack attack ... --log-to-csv RUN.csv), or --score")
    if args.key or args.json:
        raise UsageError("--key and --json go with --score")
    from ..evaluation.review import build_sheet

    names = [n.strip() for n in args.label_names.split(",")] if args.label_names else None
    sheet = build_sheet(args.runs, args.blind, args.sample, args.seed, names, args.title)
    out = Path(args.out) if args.out else Path(args.runs[0]).with_suffix(".review.html")
    if out.suffix != ".html":
        out = out.with_suffix(".html")
    for note in sheet.notes:
        print(f"note: {note}")
    for r in sheet.runs:
        print(
            f"{r['name']} ({r['kind']}): {r['findings']} findings of {r['attacked']} attacked sentences "
            f"({r['rows']} rows), {r['on_sheet']} on the sheet"
        )
    paths = sheet.save(out)
    items = sheet.key.id.nunique()
    what = f"{items} sentences, blind" if args.blind else f"{items} findings"
    print(f"wrote {paths['html']} ({what}; sheet {sheet.sheet}) and {paths['csv']}")
    if args.blind:
        print(f"the key {paths['csv']} says which sentence is which: keep it from the readers")
        print(f"readers who would rather write a CSV by hand: {paths['items']} (id,label,natural)")
    print(f"then: textattack-so review --score MARKED.csv{' --key ' + str(paths['csv']) if args.blind else ''}")
    return 0


def score(args):
    from ..evaluation.review import score_marked

    if args.blind or args.sample or args.label_names or args.out or args.title:
        raise UsageError("--blind, --sample, --label-names, --out and --title make a sheet; --score reads marks")
    result = score_marked(args.score, args.key)
    print(f"Review of sheet {result.sheet or '(no id)'} ({result.mode}), {len(result.readers)} reader(s)")
    print(result.format())
    out = Path(args.json) if args.json else Path(args.score[0]).with_suffix(".score.json")
    out, judged = result.save(out)
    print(f"wrote {out} and {judged}")
    return 0
