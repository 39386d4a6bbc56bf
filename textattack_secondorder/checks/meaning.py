"""``meaning`` check: chrF preservation of the successful adversarial examples of another check's attack
(``textattack-so meaning --log``, Michel et al. 2019; docs/design/meaning.md, docs/design/gate.md)."""

from .base import AT_LEAST, Check, Evaluation, Metric


class MeaningCheck(Check):
    """Meaning preservation of an attack's successful adversarial examples."""

    kind = "meaning"
    # default tolerances: above the spread of sp-attack's mean chrF over 6 seeds on mr-cnn; success % sat at its
    # ceiling (which hides its spread), so it takes the attack's own tolerance (docs/design/gate.md)
    METRICS = {
        "mean_chrf": Metric(
            AT_LEAST, "chrF", "mean source chrF s_src(x, x̂) of the successful adversarial examples (0-1)", 0.05, (0, 1)
        ),
        "success_pct": Metric(AT_LEAST, "%", "successful under Michel et al.'s rule 1 − s_src < d_tgt", 10.0, (0, 100)),
    }
    SETTINGS = {"attack": (None, str, "name of the attack or second_order check of this config whose log is judged")}
    DATA_SETTINGS = ()

    def depends_on(self):
        return [self.settings["attack"]] if self.settings.get("attack") else ["(missing)"]

    def evaluate(self, context, folder):
        from ..evaluation import meaning as mp

        source = context.finished(self.settings["attack"])
        log = source.folder / source.evaluation.files["log"]
        records = mp.read_attack_log(log, result_types=("Successful",))
        rows = mp.evaluate_classification(records)
        summary = mp.summary(rows)
        chrf = summary["source_chrf"]
        values = {"mean_chrf": chrf["mean"] if rows else None, "success_pct": summary["success_pct"] if rows else None}
        evidence = {
            "mean_chrf": (
                f"{summary['n']} successful adversarial examples of {source.name!r}: chrF mean "
                f"{chrf['mean']:.3f}, 5-95% {chrf['p5']:.3f}-{chrf['p95']:.3f}"
            )
            if rows
            else f"no successful adversarial example in {source.name!r}",
            "success_pct": f"{summary['n']} successful adversarial examples of {source.name!r}",
        }
        worst = sorted(rows, key=lambda r: r["source_chrf"])[:3]
        return Evaluation(
            values,
            evidence,
            rows=[
                {"row": "examples judged", "value": summary["n"]},
                {"row": "source chrF mean / std", "value": f"{chrf['mean']:.4f} / {chrf['std']:.4f}"},
                {"row": "success % (1 − s_src < d_tgt)", "value": summary["success_pct"]},
            ],
            examples=[
                {
                    "original": r["original_text"],
                    "perturbed": r["perturbed_text"],
                    "outputs": f"chrF {r['source_chrf']:.3f}",
                }
                for r in worst
            ],
            info={"attack log": str(log)},
            sentences={"success_pct": summary["n"]},
        )
