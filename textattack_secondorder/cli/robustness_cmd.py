"""``textattack-so robustness``: accuracy on perturbed copies of a test set and the RB-index (FlagEval).

Levels (docs/design/meaning.md): ``char`` (keyboard/CharSwap typos, 3–15 characters),
``word`` (synonym or masked-LM swaps), ``sentence`` (Apertium back-translation
English→Spanish→English; skipped with a message when Apertium is missing) and
``adversarial`` (any recipe of the registry or of TextAttack, against the model or
``--surrogate``). Writes a table, CSV, JSON, the perturbed sets and one HTML report.
"""

import logging
import time

from .common import add_cluster_args, add_dataset_args, add_model_args, non_negative_int, positive_int

logger = logging.getLogger(__name__)


def add_parser(subparsers):
    p = subparsers.add_parser(
        "robustness",
        help="robustness report: accuracy on char/word/sentence/adversarial perturbed sets and the RB-index",
        description="Perturb an evaluation set at several levels (FlagEval), evaluate the model on each, and report "
        "accuracy per set, RB = (1/T) Σ (Acc_org − Acc_i)/Acc_org and the mean chrF of each set against the "
        "originals. Writes robustness.csv/.json, sets/*.csv (reusable with --reuse) and report.html to --out. "
        "Each finished set is also saved in OUT/parts: an interrupted run, rerun with the same settings, reuses them.",
    )
    add_model_args(p)
    add_dataset_args(p)
    p.add_argument(
        "--levels",
        default="char,word,sentence,adversarial",
        help="comma-separated levels among char, word, sentence, adversarial",
    )
    p.add_argument(
        "--reuse",
        default=None,
        help="folder of a previous report (or its sets/ folder): evaluate --model on those perturbed sets "
        "instead of building new ones (--dataset and --levels are then ignored)",
    )
    p.add_argument(
        "--seed", type=non_negative_int, default=0, help="seed of the char/word perturbations and the attack"
    )
    g = p.add_argument_group("character level")
    g.add_argument(
        "--char-min", type=non_negative_int, default=3, help="fewest characters touched per sentence (FlagEval: 3)"
    )
    g.add_argument(
        "--char-max", type=non_negative_int, default=15, help="most characters touched per sentence (FlagEval: 15)"
    )
    g.add_argument(
        "--char-ops",
        default="keyboard,swap",
        help="typo kinds: keyboard (neighbouring key, "
        "TextAttack's WordSwapQWERTY), swap (two inner characters, CharSwap: "
        "WordSwapNeighboringCharacterSwap)",
    )
    g = p.add_argument_group("word level")
    g.add_argument(
        "--word-source",
        choices=["synonyms", "mlm"],
        default="synonyms",
        help="synonyms (the synonyms slot) or mlm (the masked-LM slot's proposals)",
    )
    g.add_argument("--synonyms", default=None, help="synonyms slot value (word->synonyms JSON); default: slot default")
    g.add_argument("--masked-lm", default=None, help="masked-LM slot value for --word-source mlm")
    g.add_argument("--word-rate", type=float, default=0.15, help="share of the words replaced (at least one)")
    g = p.add_argument_group("adversarial level")
    g.add_argument(
        "--recipe",
        default="textfooler-offline",
        help="attack recipe: one of this package's (so-beam, sp-attack, textfooler-offline, bae-offline, "
        "...; parameters as 'name^a=1') or a TextAttack recipe name",
    )
    g.add_argument(
        "--surrogate",
        default=None,
        help="model attacked to build the adversarial set (FlagEval's proxy model; same forms as --model); "
        "default: the evaluated model itself",
    )
    g.add_argument("--query-budget", type=positive_int, default=None, help="model queries per attacked example")
    p.add_argument(
        "--examples-per-set", type=non_negative_int, default=3, help="example perturbations shown per set in the HTML"
    )
    p.add_argument("--out", default="results/robustness", help="output folder")
    add_cluster_args(p, unit="examples of the adversarial level")
    p.set_defaults(func=run)


def _perturbations(args, examples, model):
    """The perturbation objects for ``--levels`` and the levels that had to be skipped (level -> reason)."""
    from ..attack_recipes.build import build_attack
    from ..distributed import ClusterOptions
    from ..evaluation import robustness as rb
    from ..models.loading import load_model_wrapper
    from ..plugin.extensions import extend_textattack
    from ..resources import load_word_proposer
    from ..sweeps.task import adversarial_task

    levels = [lv.strip() for lv in args.levels.split(",") if lv.strip()]
    unknown = [lv for lv in levels if lv not in rb.LEVELS]
    if unknown:
        raise SystemExit(f"robustness: unknown level(s) {', '.join(unknown)}; choose among {', '.join(rb.LEVELS)}")
    out, skipped = [], {}
    for level in levels:
        if level == "char":
            out.append(
                rb.CharPerturbation(
                    args.char_min,
                    args.char_max,
                    seed=args.seed,
                    operations=tuple(o.strip() for o in args.char_ops.split(",")),
                )
            )
        elif level == "word":
            if args.word_source == "mlm":
                out.append(
                    rb.WordPerturbation(
                        proposer=load_word_proposer(args.masked_lm, device=args.device),
                        rate=args.word_rate,
                        seed=args.seed,
                    )
                )
            else:
                try:
                    synonyms = rb.load_synonym_list(args.synonyms)
                except Exception as e:  # the slot's default is unavailable: say so, keep the other levels
                    print(
                        f"skipping the word level: no synonym list ({type(e).__name__}: {e}); "
                        "pass --synonyms FILE.json or --word-source mlm"
                    )
                    skipped[level] = f"no synonym list: {e}"
                    continue
                out.append(rb.WordPerturbation(synonyms=synonyms, rate=args.word_rate, seed=args.seed))
        elif level == "sentence":
            try:
                out.append(rb.BackTranslation())
            except rb.ApertiumUnavailable as e:
                print(f"skipping the sentence level: {e}")
                skipped[level] = str(e)
        elif level == "adversarial":
            extend_textattack()  # our CSV columns and summary rows in the attacks, also with the import hook off
            attacked = model
            if args.surrogate:
                attacked = load_model_wrapper(args.surrogate, args.device, args.model_batch_size, args.dtype)
            attack = build_attack(args.recipe, attacked)
            # the attacks are sharded (--shards/--ray; docs/design/sharding.md), each shard saved in
            # OUT/parts/adversarial
            out.append(
                rb.AdversarialPerturbation(
                    args.recipe,
                    attack,
                    [y for _, y in examples],
                    adversarial_task(attack, args.seed, args.query_budget, args.device),
                    surrogate_name=args.surrogate,
                    model_spec=args.surrogate or args.model,
                    options=ClusterOptions.from_settings(vars(args)),
                    shard_dir=f"{args.out}/parts/adversarial",
                )
            )
    return out, skipped


def run(args):
    from ..datasets.examples import load_examples
    from ..evaluation import robustness as rb
    from ..models.loading import load_model_wrapper
    from ..models.probe import screen_rows
    from ..resources.synonyms import read_synonym_file
    from ..shared.inputs import write_skipped

    start = time.time()
    if args.synonyms and not args.reuse and args.word_source == "synonyms" and "word" in args.levels:
        # a list the user named is read before anything loads: missing, malformed or empty is one
        # line naming it (SynonymFileError, exit code 2); only an unavailable slot default skips the level
        read_synonym_file(args.synonyms)
    examples = None
    if not args.reuse:  # the data first: a wrong column or file is one line before the model loads
        examples = load_examples(
            args.dataset, args.split, args.text_column, args.label_column, args.num_examples, labelled=True
        )
    model = load_model_wrapper(args.model, args.device, args.model_batch_size, args.dtype)
    settings = {"model": args.model, "command": "textattack-so robustness"}
    if args.reuse:
        examples, sets = rb.load_sets(args.reuse)
        print(f"reusing {len(sets)} perturbed sets of {len(examples)} examples from {args.reuse}")
        settings.update({"perturbed sets from": args.reuse})
        for s in sets:
            settings[s.name] = s.settings
        report = rb.evaluate_sets(
            model, [t for t, _ in examples], [y for _, y in examples], sets, args.model_batch_size, settings
        )
    else:
        examples, skipped = screen_rows(examples, model)
        write_skipped(skipped, f"{args.out}/skipped_rows.csv")
        settings.update(
            {
                "dataset": args.dataset,
                "split": args.split,
                "examples": len(examples),
                "rows skipped for bad input": len(skipped),
                "seed": args.seed,
            }
        )
        perturbations, skipped = _perturbations(args, examples, model)
        if not perturbations:
            raise SystemExit("robustness: no perturbation level could be built")
        # each finished set is saved at once in OUT/parts; a rerun with the same settings reuses it
        # (docs/design/hostile-input.md)
        report = rb.run_robustness(
            model, examples, perturbations, args.model_batch_size, settings, skipped, parts_dir=f"{args.out}/parts"
        )
    report.settings["elapsed_seconds"] = round(time.time() - start, 1)
    paths = rb.write_report(
        report, args.out, title=f"Robustness of {args.model}", examples_per_set=args.examples_per_set
    )
    print()
    print(rb.format_table(report))
    print(f"\nwrote {paths['csv']}, {paths['json']}, {paths['sets']}/*.csv and {paths['html']}")
    return 0
