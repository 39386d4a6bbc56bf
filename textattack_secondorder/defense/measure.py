"""What ``defend --compare`` measures on every model, each measurement kept as a file (docs/design/defenses.md).

One model, the same sentences for every model (:class:`ComparisonSets`):

* ``accuracy``: on the whole test set;
* ``rho`` / ``rho_star``: ρ by EUBA (docs/design/single-word.md) on the first training rows / on the attacked test
  sentences;
* ``kappa``: κ of THIS model from held-out test sentences, none of them attacked and none trained on, for
  its SP-Attack (from the sentences a defense was fine-tuned on, κ flatters it: docs/design/defenses.md);
* ``sp_attack``, ``textfooler``, ``so_beam``: the recipes on the attacked sentences, one row at a time
  through the recipe's ``GuardedAttack``; ASR = successes / attacked (correct) sentences, ASR1
  (docs/design/single-word.md), so-beam's vulnerable examples per 100 sentences given (its goal does not use the label,
  docs/design/search.md).

Every measurement is a JSON file in the model's work folder, written atomically when it is done; an attack
also saves its rows as it goes, so a killed run continues at the next sentence. κ and ρ go through the κ
shard store (:func:`~..evaluation.flip_capability.cache.cached_flip_capability`), which keeps the progress
of an unfinished EUBA run.
"""

import json
import random
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..shared.files import atomic_write_text

#: the seed of the order in which test sentences are attacked / kept for κ (the same for every model)
SETS_SEED = 12345
SAVE_EVERY = 1  # attacked sentences between two saves of an attack's rows (a so-beam sentence can take minutes)


@dataclass
class ComparisonSets:
    """The sentences every model of a comparison is measured on."""

    attacked: list  # test sentences the attacks run on (ρ* on the first ``rho`` of them)
    so_beam: list  # the first of them, for so-beam (a sentence costs it 10 s to minutes on a CPU)
    kappa: list  # held-out test sentences for SP-Attack's κ: not attacked, not trained on
    rho_train: list  # training rows for ρ
    rho_test: list  # test sentences for ρ*
    test: list  # the whole test set (accuracy)


def comparison_sets(train, test, num_attacked, num_kappa, num_rho, num_so_beam=None):
    """The sets of :class:`ComparisonSets` from a seeded order of ``test`` (:data:`SETS_SEED`): the first
    ``num_attacked`` are attacked (so-beam: the first ``num_so_beam`` of them), the next ``num_kappa`` give κ;
    ρ on the first ``num_rho`` training rows."""
    order = random.Random(SETS_SEED).sample(range(len(test)), len(test))
    attacked = [test[i] for i in order[:num_attacked]]
    kappa = [test[i] for i in order[num_attacked : num_attacked + num_kappa]]
    so_beam = attacked[: num_so_beam or num_attacked]
    return ComparisonSets(attacked, so_beam, kappa, list(train[:num_rho]), attacked[:num_rho], list(test))


class ConstantLM:
    """Perplexity 1 for every text. SP-Attack's language model only ranks the successes that already passed
    the similarity rule (docs/design/single-word.md), so ASR does not depend on it; this saves the offline causal
    LM's ~1 s per candidate on a CPU (under the label rule too: its constraints act before the victim, the language
    model still only ranks). Measured on the demo CNN: 5 s a sentence with it, 55 s with the causal LM."""

    def perplexity(self, texts):
        return np.ones(len(texts))


def saved(path, compute):
    """The JSON at ``path`` if it is there, else ``compute()`` written there atomically."""
    path = Path(path)
    if path.exists():
        return json.loads(path.read_text())
    value = compute()
    atomic_write_text(path, json.dumps(value, indent=1, default=str) + "\n")
    return value


def flip_capability(wrapper, examples, settings, store, vocab_rows=None):
    """κ/ρ of ``wrapper`` on ``examples`` by EUBA (m, vocabulary limit and ``vocab_from`` of ``settings``; its rows
    ``vocab_rows`` as the driver loaded them), through the κ store."""
    from ..evaluation.flip_capability.cache import cached_flip_capability

    result, _, _ = cached_flip_capability(
        wrapper,
        examples,
        m=settings["m"],
        vocab_limit=settings["vocab_limit"] or None,
        folder=store,
        progress=False,
        vocab_from=settings.get("vocab_from"),
        vocab_rows=vocab_rows,
    )
    return result


def rho_measurement(wrapper, examples, settings, store, vocab_rows=None):
    result = flip_capability(wrapper, examples, settings, store, vocab_rows)
    se = result.metric.rho_standard_error
    return {
        "rho": round(100 * result.rho, 2),
        "se": None if se is None else round(100 * se, 2),
        "correct": result.metric.num_correct,
        "sentences": len(examples),
    }


def attack_rows(attack, examples, path, progress=None):
    """Run ``attack`` on ``examples`` one row at a time; the rows (status, words changed, texts; a success's
    outputs, by the model's label names where it has them) are saved to ``path`` every :data:`SAVE_EVERY` rows
    and a re-run continues after the last saved one."""
    from textattack.shared.utils import set_seed

    from ..metrics.asr1 import words_changed
    from ..models.probe import model_label_names
    from ..shared.label_names import outputs_text

    path = Path(path)
    rows = json.loads(path.read_text()) if path.exists() else []
    names = model_label_names(getattr(getattr(attack, "goal_function", None), "model", None))
    set_seed(0)
    for i in range(len(rows), len(examples)):
        text, label = examples[i]
        t0 = time.perf_counter()
        result = attack.attack(text, int(label))
        kind = type(result).__name__.replace("AttackResult", "").lower()  # successful / failed / skipped / ...
        row = {"status": kind, "seconds": round(time.perf_counter() - t0, 2), "original": text}
        row["queries"] = getattr(result, "num_queries", None)
        if kind == "successful":
            row["perturbed"] = result.perturbed_result.attacked_text.text
            row["words_changed"] = words_changed(result)
            row["outputs"] = outputs_text(result.original_result.output, result.perturbed_result.output, names)
            patched = getattr(result.perturbed_result, "patched_text", None)
            if patched is not None:  # so-beam: the vulnerable pair (x̃0, x̃0 ⊕ p) and its two outputs
                row["patched"] = getattr(patched, "text", str(patched))
                row["outputs"] = outputs_text(
                    result.perturbed_result.output, result.perturbed_result.patched_output, names
                )
        rows.append(row)
        if progress is not None:
            progress.update(1)
        if (i + 1) % SAVE_EVERY == 0 or i + 1 == len(examples):
            atomic_write_text(path, json.dumps(rows, indent=0) + "\n")
    return rows


def attack_summary(rows):
    """ASR (successes / attacked, %), ASR1 (one-word successes / attacked, %), successes per 100 rows given."""
    attacked = [r for r in rows if r["status"] in ("successful", "failed")]
    ok = [r for r in rows if r["status"] == "successful"]
    n = max(len(attacked), 1)
    return {
        "asr": round(100.0 * len(ok) / n, 2) if attacked else None,
        "asr1": round(100.0 * sum(r.get("words_changed") == 1 for r in ok) / n, 2) if attacked else None,
        "per_100": round(100.0 * len(ok) / max(len(rows), 1), 2),
        "successes": len(ok),
        "attacked": len(attacked),
        "sentences": len(rows),
        "seconds": round(sum(r["seconds"] for r in rows), 1),
    }


def comparison_data(settings, wrapper=None):
    """The training rows, the test rows and the :class:`ComparisonSets` of a comparison (``settings`` as
    ``defend --compare`` gives them); the model (``wrapper``, else loaded here) screens the rows, and one without
    gradient access (ρ, κ, SP-Defense and A2T need it) is refused in one line."""
    from ..models.loading import load_model_wrapper
    from ..models.probe import model_label_names, screen_rows
    from ..models.token_classifier import TokenClassifier
    from .data import defense_data

    if wrapper is None:
        wrapper = load_model_wrapper(settings["model"], settings["device"], settings["model_batch_size"])
    TokenClassifier.require_access(wrapper, "defend --compare (ρ, κ, SP-Defense, A2T)", name=settings["model"])
    train, test, test_source = defense_data(
        settings["dataset"],
        settings["split"],
        settings["text_column"],
        settings["label_column"],
        settings["train_examples"],
        settings["test_dataset"],
        settings["holdout_share"],
    )
    train, _ = screen_rows(train, wrapper)
    test, _ = screen_rows(test, wrapper)
    vocab_rows = vocabulary_rows(settings.get("vocab_from"), settings["text_column"], wrapper)
    if not test:
        raise _usage(f"no test rows to measure on ({test_source}): give --test-dataset CSV or --holdout-share > 0")
    sets = comparison_sets(
        train, test, settings["num_attacked"], settings["num_kappa"], settings["num_rho"], settings.get("num_so_beam")
    )
    if not sets.kappa:
        raise _usage(
            f"no held-out test rows left for SP-Attack's κ after the {len(sets.attacked)} attacked ones "
            f"({test_source}): lower --num-examples or give a larger --test-dataset"
        )
    return {
        "train": train,
        "test": test,
        "sets": sets,
        "train_source": f"{settings['dataset']}:{settings['split']} ({len(train)} rows)",
        "test_source": test_source,
        "label_names": model_label_names(wrapper),
        "vocab_rows": vocab_rows,
    }


def vocabulary_rows(vocab_from, text_column, wrapper):
    """The rows of ``--vocab-from`` (its training sentences; a CSV's ``text_column``), loaded here once: κ and ρ
    keep the vocabulary entries that occur in them (docs/design/single-word.md), on whichever machine measures.
    ``None`` without it; a data set none of whose words the model knows is refused in one line."""
    if not vocab_from:
        return None
    from ..augmentation.vocabulary import augmentation_vocabulary
    from ..datasets.examples import load_examples
    from ..models.token_classifier import TokenClassifier

    rows = [(t, None) for t, _ in load_examples(vocab_from, "train", text_column)]
    try:
        augmentation_vocabulary(TokenClassifier.from_model_wrapper(wrapper, "--vocab-from"), rows)
    except ValueError:
        raise _usage(f"--vocab-from {vocab_from}: none of its words is in the model's vocabulary") from None
    return rows


def _usage(message):
    from ..shared.errors import UsageError

    return UsageError(message)


def recipe_parts(recipe):
    """``(name, params)`` of a recipe string ``NAME^a=1,...``."""
    from ..shared.recipe_params import SPLIT, parse_recipe_params

    name, _, params = recipe.partition(SPLIT)
    return name, parse_recipe_params(params)


def sp_attack_label_rule(recipe):
    """The label rule SP-Attack runs under: its ``label_rule`` parameter as given or by default; ``"paper"``
    where the recipe has no such parameter (before issue 51)."""
    from ..attack_recipes.build import attack_recipes

    name, params = recipe_parts(recipe)
    cls = attack_recipes().get(name)
    return cls.check_params(params).get("label_rule", "paper") if cls is not None else "paper"


def sp_attack_key(rule):
    """The name of SP-Attack's measurement files under label rule ``rule`` (``sp_attack`` under ``'paper'``, else
    ``sp_attack_<rule>``): a measurement made under another rule is never reused."""
    return "sp_attack" if rule == "paper" else f"sp_attack_{rule}"


def build_recipe(recipe, wrapper, extra=None):
    """The attack of ``recipe`` on ``wrapper``; ``extra`` parameters go to our recipes unless the string sets them."""
    from ..attack_recipes.build import attack_recipes, build_attack

    name, params = recipe_parts(recipe)
    ours = attack_recipes()
    if name not in ours:
        return build_attack(recipe, wrapper)
    return ours[name].build(wrapper, **{**(extra or {}), **params})


def attack_measurement(recipe, wrapper, examples, work, key, extra=None, progress=True):
    """``recipe`` on ``examples`` (rows in ``work/<key>_rows.json``): :func:`attack_summary` and the recipe."""
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=len(examples), desc=f"{Path(work).name} {key}", unit="sentence")
    try:
        rows = attack_rows(build_recipe(recipe, wrapper, extra), examples, Path(work) / f"{key}_rows.json", bar)
    finally:
        if bar is not None:
            bar.close()
    return {**attack_summary(rows), "recipe": recipe}


def label_data(settings, data, folder):
    """Where SP-Attack's label rule reads the words' label lean (docs/design/single-word.md): a named data set as
    itself (its training split); a user's CSV as the comparison's training rows only, written once to
    ``folder/label_data.csv`` (its held-out rows are attacked and give κ, so they must not teach the rule)."""
    if not str(settings["dataset"]).lower().endswith(".csv"):
        return settings["dataset"]
    path = Path(folder) / "label_data.csv"
    if not path.exists():
        import pandas as pd

        from ..shared.files import atomic_write_text

        atomic_write_text(path, pd.DataFrame(data["train"], columns=["text", "label"]).to_csv(index=False))
    return str(path)


def measure_model(spec, settings, data, work, progress=True):
    """Every measurement of the model ``spec`` (the row's figures), each kept in ``work`` (module docstring)."""
    from ..models.loading import load_model_wrapper
    from .defend import test_accuracy

    work = Path(work)
    work.mkdir(parents=True, exist_ok=True)
    store = work.parent.parent / "kappa_store"  # one κ shard store per comparison (keys name the model)
    sets = data["sets"]
    wrapper = load_model_wrapper(spec, settings["device"], settings["model_batch_size"])

    def timed(compute):
        def run():  # wall seconds, and CPU seconds of this process (the machine's load aside)
            t0, c0 = time.perf_counter(), time.process_time()
            value = compute()
            cpu = round(time.process_time() - c0, 1)
            return {**value, "measure_seconds": round(time.perf_counter() - t0, 1), "cpu_seconds": cpu}

        return run

    acc = saved(
        work / "accuracy.json", timed(lambda: {"accuracy": 100 * test_accuracy(wrapper, sets.test, settings["device"])})
    )
    vocab = data.get("vocab_rows")
    rho = saved(work / "rho.json", timed(lambda: rho_measurement(wrapper, sets.rho_train, settings, store, vocab)))
    rho_star = saved(
        work / "rho_star.json", timed(lambda: rho_measurement(wrapper, sets.rho_test, settings, store, vocab))
    )
    kappa_path = work / "kappa_attack.json"

    def kappa():  # κ of THIS model on held-out sentences, for its SP-Attack (module docstring)
        result = flip_capability(wrapper, sets.kappa, settings, store, vocab)
        result.save(kappa_path)
        return {"sentences": len(sets.kappa), "top_words": result.top_words(10)}

    kap = saved(work / "kappa.json", timed(kappa))
    rule = sp_attack_label_rule(settings["sp_attack_recipe"])
    extra = {"kappa": str(kappa_path), "causal_lm": ConstantLM()}
    if rule != "paper" and "label_data" not in settings["sp_attack_recipe"]:  # the label lean of the model's data
        extra["label_data"] = label_data(settings, data, work.parent.parent)
    key = sp_attack_key(rule)
    sp = saved(
        work / f"{key}.json",
        timed(
            lambda: attack_measurement(settings["sp_attack_recipe"], wrapper, sets.attacked, work, key, extra, progress)
        ),
    )
    tf = saved(
        work / "textfooler.json",
        timed(
            lambda: attack_measurement(
                settings["textfooler_recipe"], wrapper, sets.attacked, work, "textfooler", None, progress
            )
        ),
    )
    so = saved(
        work / "so_beam.json",
        timed(
            lambda: attack_measurement(
                settings["so_beam_recipe"], wrapper, sets.so_beam, work, "so_beam", None, progress
            )
        ),
    )
    parts = (("accuracy", acc), ("rho", rho), ("rho_star", rho_star), ("kappa", kap))
    parts += (("sp_attack", sp), ("textfooler", tf), ("so_beam", so))
    return {
        "accuracy": round(acc["accuracy"], 2),
        "rho": rho["rho"],
        "rho_star": rho_star["rho"],
        "sp_attack_asr": sp["asr"],
        "textfooler_asr": tf["asr"],
        "asr1": tf["asr1"],
        "so_beam_per_100": so["per_100"],
        "sp_attack_label_rule": rule,
        "rho_se": rho["se"],
        "rho_star_se": rho_star["se"],
        "sp_attack_attacked": sp["attacked"],
        "textfooler_attacked": tf["attacked"],
        "so_beam_vulnerable": so["successes"],
        "so_beam_sentences": so["sentences"],
        "measure_cpu_seconds": {k: v.get("cpu_seconds") for k, v in parts},
        "measure_seconds": {k: v["measure_seconds"] for k, v in parts},
    }
