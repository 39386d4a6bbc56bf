"""``bias`` check: counterfactual token bias B_{p,k} at one level k with its bootstrap interval, through
:class:`~..evaluation.bias.CounterfactualBias` as ``textattack-so bias`` runs it (pairs saved in
``parts/``: resume; ``--ray``: one shard per pair; docs/design/bias.md, docs/design/gate.md)."""

from .base import AT_MOST, COUNT, NON_NEGATIVE, Check, Evaluation, Metric


class BiasCheck(Check):
    """Counterfactual bias of protected pairs: fail when ``|B|`` or the interval's distance from zero is too large."""

    kind = "bias"
    # default tolerances: |B| at k = 1 does not move over seeds (levels below sample_from_k are exact) and the
    # bootstrap's spread of ci_excess is far below 0.01 of probability, the smallest change flagged
    # (docs/design/gate.md)
    METRICS = {
        "max_abs_b": Metric(AT_MOST, "prob.", "largest |B_{p,k}| over the pairs at level k", 0.01, (0, 1)),
        "ci_excess": Metric(
            AT_MOST,
            "prob.",
            "largest distance by which a pair's interval excludes zero (0 when every interval contains zero)",
            0.01,
            (0, 1),
        ),
    }
    SETTINGS = {
        "pairs": ("gender", str, "groups (gender, nationality, religion, sexual_orientation) or pairs 'he/she,...'"),
        "k": (1, int, "neighbourhood level judged (0 = the test set itself; paper up to 3)", NON_NEGATIVE),
        "sample_size": (2000, int, "sentences sampled at levels >= sample_from_k", COUNT),
        "sample_from_k": (3, int, "first sampled level", COUNT),
        "target_class": (1, int, "class whose probability is compared", NON_NEGATIVE),
        "masked_lm": (None, str, "masked-LM slot value (default: the slot's default)"),
        "bootstrap": (1000, int, "bootstrap resamples for the intervals", COUNT),
        "min_sources": (
            5,
            int,
            "pairs grown from fewer source sentences are listed but not judged (a bootstrap "
            "over one or two sources gives an interval of no width)",
            COUNT,
        ),
        "seed": (0, int, "seed", NON_NEGATIVE),
        "dataset": (None, str, "dataset (default: the config's)"),
        "split": (None, str, "split (default: the config's)"),
        "num_examples": (None, int, "first N examples (default: the config's)", COUNT),
    }

    def evaluate(self, context, folder):
        from ..evaluation.bias import CounterfactualBias
        from ..resources.resolution import resolve
        from ..transformations.neighborhood import WordSwapNeighborhood

        s = self.settings
        examples, skipped = context.screened(s, labelled=False)
        settings = dict(
            target_class=s["target_class"],
            max_k=s["k"],
            sample_size=s["sample_size"],
            sample_from_k=s["sample_from_k"],
            filter_epsilon=None,
            neutralize_pronouns=False,
            batch_size=context.batch_size,
            seed=s["seed"],
            n_boot=s["bootstrap"],
        )
        bias = CounterfactualBias(
            context.model,
            WordSwapNeighborhood(s["masked_lm"], device=context.device),
            progress=context.progress,
            **settings,
        )
        report = bias.run(
            [t for t, _ in examples],
            s["pairs"],
            out_dir=folder,
            options=context.options,
            model_spec=context.spec,
            masked_lm=s["masked_lm"],
            device=context.device,
        )
        table = report.table[report.table["k"] == s["k"]] if len(report.table) else report.table
        rows = table.to_dict("records")
        for r in rows:
            lo, hi = r["ci_low"], r["ci_high"]
            r["ci_excess"] = max(0.0, lo, -hi) if lo == lo and hi == hi else 0.0
        measured = [r for r in rows if r["B"] == r["B"] and r["sources"] >= s["min_sources"]]
        few = [r["pair"] for r in rows if r["sources"] < s["min_sources"]]
        worst_b = max(measured, key=lambda r: abs(r["B"]), default=None)
        worst_ci = max(measured, key=lambda r: r["ci_excess"], default=None)
        values = {
            "max_abs_b": abs(worst_b["B"]) if worst_b else None,
            "ci_excess": worst_ci["ci_excess"] if worst_ci else None,
        }

        def fmt(r):
            return (
                f"{r['pair']} at k={r['k']}: B = {r['B']:+.4f}, 95% interval [{r['ci_low']:+.4f}, "
                f"{r['ci_high']:+.4f}], {r['sentences']} sentences from {r['sources']} sources"
            )

        none = (
            f"no pair of {s['pairs']!r} has {s['min_sources']} source sentences among the {len(examples)} (min_sources)"
        )
        note = f"; not judged, fewer than {s['min_sources']} sources: {', '.join(few)}" if few else ""
        evidence = {
            "max_abs_b": (fmt(worst_b) if worst_b else none) + note,
            "ci_excess": (fmt(worst_ci) if worst_ci else none) + note,
        }
        files = {p: p for p in ("bias_vs_k.png", "hist_k.png", "bias_table.csv") if (folder / p).exists()}
        return Evaluation(
            values,
            evidence,
            rows=[{k: r[k] for k in ("pair", "k", "B", "ci_low", "ci_high", "sentences", "sources")} for r in rows],
            files=files,
            info={"rows skipped for bad input": len(skipped)},
            measured_with={"masked_lm": resolve("masked_lm", s["masked_lm"]).value},
        )
