"""``attack`` check: any recipe (sp-attack, textfooler-offline, bae-offline, TextAttack's ...) through the
attack sweep of ``textattack-so attack-sweep`` (sharded, resumable, ``--ray``): success rate, ASR1,
accuracy under attack (docs/design/gate.md)."""

import re

from ..shared.errors import UsageError
from ..shared.recipe_params import SPLIT, parse_recipe_params
from .base import (
    AT_LEAST,
    AT_MOST,
    COUNT,
    EXECUTION_PARAMS,
    NON_NEGATIVE,
    SAMPLING_SETTINGS,
    Check,
    ConfigError,
    Evaluation,
    Metric,
)

SWEEP_SETTINGS = {
    "recipe": ("sp-attack", str, "recipe name, with parameters as NAME^a=1,b='x'"),
    "seed": (765, int, "seed of example i is seed + i (TextAttack: 765)", NON_NEGATIVE),
    "query_budget": (None, int, "model queries per attacked example", COUNT),
    "dataset": (None, str, "dataset (default: the config's)"),
    "split": (None, str, "split (default: the config's)"),
    "num_examples": (None, int, "first N examples (default: the config's)", COUNT),
}
EXAMPLES_SHOWN = 3


def _number(value):
    """``85.0%`` / ``1.2`` / ``n/a`` of a TextAttack summary row as a float (``None`` for n/a)."""
    if isinstance(value, (int, float)):
        return float(value)
    m = re.search(r"-?\d+(\.\d+)?", str(value))
    return float(m.group()) if m else None


def recipe_measured_with(recipe, prefix="recipe"):
    """What one of our recipes measures with beyond the string's own parameters: every parameter with
    its default filled in, and each resource slot it takes resolved to what loads here
    (docs/design/offline-resources.md, docs/design/gate.md). TextAttack's recipes: their name says it all (``{}``)."""
    from ..attack_recipes.build import attack_recipes
    from ..resources.resolution import resolve
    from ..resources.slots import SLOTS

    name, _, params = recipe.partition(SPLIT)
    cls = attack_recipes().get(name)
    if cls is None:
        return {}
    out = {}
    for k, v in sorted(cls.check_params(parse_recipe_params(params)).items()):
        if k in SAMPLING_SETTINGS + EXECUTION_PARAMS:
            continue
        out[f"{prefix}.{k}"] = resolve(k, v).value if k in SLOTS and (v is None or isinstance(v, str)) else v
    return out


def validate_recipe(recipe):
    """The recipe's name is known and its parameters are allowed (one line, exit code 2)."""
    from ..attack_recipes.build import attack_recipes, checked_recipe, textattack_recipes

    name = recipe.partition(SPLIT)[0]
    if name not in attack_recipes() and name not in textattack_recipes():
        known = ", ".join(sorted(set(attack_recipes()) | set(textattack_recipes())))
        raise UsageError(f"recipe {name!r}: unknown; valid: {known}")
    checked_recipe(recipe)


def recipe_kappa_file(recipe):
    """The saved κ a recipe string names (``sp-attack^kappa='FILE'``), or None."""
    try:
        kappa = parse_recipe_params(recipe.partition(SPLIT)[2]).get("kappa")
    except ValueError:
        return None
    return kappa if isinstance(kappa, str) else None


def refuse_other_models_kappa(context, recipe):
    """A recipe's saved ``kappa=`` file must be the κ of the model under test (:mod:`~..evaluation.flip_capability.
    ownership`): another model's κ is a :class:`ConfigError` naming both, since the gate would judge this model by a
    transfer attack (weaker: it passes for that reason alone); a κ that cannot be checked is said and used."""
    from ..evaluation.flip_capability.ownership import KappaModelError, load_kappa

    kappa = recipe_kappa_file(recipe)
    if kappa is None:
        return
    try:
        load_kappa(kappa, context.model, refuse=True, say=lambda line: context.say(f"  warning: {line}"))
    except KappaModelError as e:
        raise ConfigError(f"recipe {recipe!r}: {e}") from None
    except (OSError, ValueError) as e:
        raise ConfigError(f"recipe {recipe!r}: kappa={kappa!r} cannot be read ({e})") from None


def run_sweep_cell(context, settings, folder):
    """Attack the check's examples with ``settings['recipe']`` through :func:`~..sweeps.run_attack_sweep`;
    returns ``(summary row dict, path of the cell CSV, rows skipped for bad input)``."""
    from ..attack_recipes.build import checked_recipe
    from ..metrics import asr1
    from ..sweeps import cell_name, run_attack_sweep

    recipe = checked_recipe(settings["recipe"])
    examples, skipped = context.screened(settings)
    table, stats = run_attack_sweep(
        [context.spec],
        [recipe],
        examples,
        folder,
        context.options,
        seed=settings["seed"],
        query_budget=settings["query_budget"],
        device=context.device,
        batch_size=context.batch_size,
        metrics={asr1.ROW: asr1.ASR1()},
        progress=context.progress,
    )
    context.say(f"  {stats.num_shards} shards: {stats.computed} computed, {stats.reused} reused")
    row = table.to_dict("records")[0]
    return row, f"{cell_name(context.spec, recipe)}.csv", len(skipped)


def successful_examples(csv_path, n=EXAMPLES_SHOWN, vulnerable=False, label_names=None):
    """The first ``n`` successful rows of an attack CSV: original, perturbed (changed words marked as
    [[w]] by TextAttack), outputs (by the model's ``label_names`` where it has them: "neutral → positive")."""
    import pandas as pd

    from ..shared.label_names import outputs_text

    df = pd.read_csv(csv_path, keep_default_na=False)
    df = df[df["result_type"] == "Successful"].head(n)
    out = []
    for r in df.to_dict("records"):
        item = {
            "original": str(r["original_text"]),
            "perturbed": str(r["perturbed_text"]),
            "outputs": outputs_text(r["original_output"], r["perturbed_output"], label_names),
        }
        if vulnerable and r.get("vulnerable_text"):
            item["perturbed"] = str(r["vulnerable_text"])
            item["outputs"] = f"patch {r.get('patch_p1', '')} → {r.get('patch_p2', '')}: " + outputs_text(
                r.get("vulnerable_output", ""), r.get("vulnerable_patched_output", ""), label_names
            )
        out.append(item)
    return out


def summary_rows(row):
    return [{"row": k, "value": v} for k, v in row.items() if k not in ("model",)]


class AttackCheck(Check):
    """An adversarial attack: the share of examples it breaks, the one-word share, accuracy left."""

    kind = "attack"
    # default tolerances: above the spread over 6 sampling seeds of the starter's sp-attack on mr-cnn
    # (docs/design/gate.md, benchmarks/gate_spread.py)
    METRICS = {
        "success_rate": Metric(AT_MOST, "%", "attack success rate (successful / attacked)", 10.0, (0, 100)),
        "asr1": Metric(
            AT_MOST, "%", "ASR1: successes that changed one word / attacked (Xu et al. §6.3)", 10.0, (0, 100)
        ),
        "accuracy_under_attack": Metric(AT_LEAST, "%", "accuracy left after the attack", 10.0, (0, 100)),
    }
    SETTINGS = SWEEP_SETTINGS

    def validate(self):
        validate_recipe(self.settings["recipe"])

    def input_files(self):
        kappa = recipe_kappa_file(self.settings["recipe"])
        return [kappa] if kappa else []

    def check_inputs(self, context):
        refuse_other_models_kappa(context, self.settings["recipe"])

    def evaluate(self, context, folder):
        from ..metrics import asr1

        row, csv_name, skipped = run_sweep_cell(context, self.settings, folder)
        succ, failed = (
            int(_number(row.get("Number of successful attacks")) or 0),
            int(_number(row.get("Number of failed attacks")) or 0),
        )
        rows = succ + failed + int(_number(row.get("Number of skipped attacks")) or 0)
        values = {
            "success_rate": _number(row.get("Attack success rate")),
            "asr1": _number(row.get(asr1.ROW.rstrip(":").strip())),
            "accuracy_under_attack": _number(row.get("Accuracy under attack")),
        }
        evidence = {
            "success_rate": f"{succ} of {succ + failed} attacked examples broken by {self.settings['recipe']}",
            "asr1": f"one-word successes among {succ + failed} attacked examples ({self.settings['recipe']})",
            "accuracy_under_attack": f"original accuracy {row.get('Original accuracy')}, after "
            f"{self.settings['recipe']} {row.get('Accuracy under attack')}",
        }
        return Evaluation(
            values,
            evidence,
            rows=summary_rows(row),
            examples=successful_examples(folder / csv_name, label_names=context.label_names),
            files={"log": csv_name},
            info={"rows skipped for bad input": skipped},
            measured_with=recipe_measured_with(self.settings["recipe"]),
            sentences={"success_rate": succ + failed, "asr1": succ + failed, "accuracy_under_attack": rows},
        )
