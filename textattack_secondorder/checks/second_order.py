"""``second_order`` check: SO-Beam / SO-Enum through the attack sweep (docs/design/search.md, docs/design/gate.md):
vulnerable examples per 100 sentences, the rate over attacked sentences and the average perturbed words of
the vulnerable examples."""

from .attack import (
    SWEEP_SETTINGS,
    _number,
    recipe_measured_with,
    run_sweep_cell,
    successful_examples,
    summary_rows,
    validate_recipe,
)
from .base import AT_LEAST, AT_MOST, Check, Evaluation, Metric


class SecondOrderCheck(Check):
    """Second-order attack: how many test examples have a vulnerable example nearby, and how near."""

    kind = "second_order"
    # default tolerances: SO-Beam does not sample, so the smallest changes worth flagging: one sentence of the
    # starter's 30 and 0.2 words (docs/design/gate.md)
    METRICS = {
        "vulnerable_per_100": Metric(
            AT_MOST,
            "per 100",
            "vulnerable examples found per 100 sentences (found / all rows: a sentence the patch rule leaves "
            "without a pair counts as none found, so a rule that skips more cannot look more robust)",
            5.0,
            (0, 100),
        ),
        "vulnerable_rate": Metric(AT_MOST, "%", "examples with a vulnerable example found / attacked", 5.0, (0, 100)),
        "avg_perturbed_words": Metric(
            AT_LEAST,
            "words",
            "mean ||x̃0 − x0||_0 of the vulnerable examples (fewer: vulnerable examples lie closer to the test set)",
            0.2,
            (0, None),
        ),
    }
    SETTINGS = dict(SWEEP_SETTINGS, recipe=("so-beam", str, "so-beam or so-enum, with parameters as NAME^a=1"))

    def validate(self):
        validate_recipe(self.settings["recipe"])

    def evaluate(self, context, folder):
        row, csv_name, skipped = run_sweep_cell(context, self.settings, folder)
        succ = int(_number(row.get("Number of successful attacks")) or 0)
        attacked = succ + int(_number(row.get("Number of failed attacks")) or 0)
        words = _number(row.get("Avg perturbed words (vulnerable)"))
        rows = attacked + int(_number(row.get("Number of skipped attacks")) or 0)
        values = {
            "vulnerable_per_100": round(100.0 * succ / rows, 2) if rows else None,
            "vulnerable_rate": _number(row.get("Attack success rate")),
            "avg_perturbed_words": words,
        }
        evidence = {
            "vulnerable_per_100": f"{succ} vulnerable examples in {rows} sentences ({self.settings['recipe']}; "
            f"{rows - attacked} not attacked)",
            "vulnerable_rate": f"{succ} of {attacked} attacked examples have a vulnerable example "
            f"({self.settings['recipe']})",
            "avg_perturbed_words": (
                f"vulnerable examples lie {words:g} words from the test sentence on average"
                if words is not None
                else "no vulnerable example found"
            ),
        }
        return Evaluation(
            values,
            evidence,
            rows=summary_rows(row),
            examples=successful_examples(folder / csv_name, vulnerable=True, label_names=context.label_names),
            files={"log": csv_name},
            info={"rows skipped for bad input": skipped},
            measured_with=recipe_measured_with(self.settings["recipe"]),
            sentences={"vulnerable_per_100": rows, "vulnerable_rate": attacked},
        )
