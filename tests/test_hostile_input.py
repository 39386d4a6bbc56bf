"""No input kills a run (docs/design/hostile-input.md): hostile rows, bad victims and bad parameters.

Every recipe gets ``tests/data/hostile.csv`` (empty, whitespace, one word, 600 words,
non-ASCII/emoji/CJK, punctuation, markup, control characters, labels outside the classes,
duplicates) one row at a time and as one dataset, on a tiny word-level victim built here.
"""

import csv
import subprocess
import warnings
from pathlib import Path

import numpy as np
import pytest
import textattack

from conftest import console_script, offline_env, stock_textattack

HOSTILE = Path(__file__).parent / "data" / "hostile.csv"
# cases that must be skipped for bad input; every other case must be attacked (or skipped by the method)
BAD = {
    "empty",
    "whitespace",
    "punctuation",
    "emoji_only",
    "control",
    "label_out_of_range",
    "label_negative",
    "label_not_a_number",
    "label_missing",
    "duplicate",
}
RECIPES = ["so-beam", "so-enum", "so-random", "sp-attack", "textfooler-offline", "bae-offline", "alzantot-offline"]
VOCAB = "the a an film movie cast is and good fine nice dull boring bad not at all watch one very".split()


def hostile_rows():
    with open(HOSTILE, newline="", encoding="utf-8") as f:
        return [(r["text"], r["label"], r["case"]) for r in csv.DictReader(f)]


class TinyVictim(textattack.models.wrappers.ModelWrapper):
    """Positive iff 'good' is among the first ``max_length`` tokens of its word tokenizer."""

    def __init__(self, max_length=32):
        from textattack_secondorder.models.word_models import build_word_tokenizer

        self.model = None
        self.max_length = max_length
        self.tokenizer = build_word_tokenizer(VOCAB, max_length=max_length)
        self.good = self.tokenizer.convert_tokens_to_ids("good")

    def __call__(self, texts):
        ids = self.tokenizer(list(texts), truncation=True, max_length=self.max_length)["input_ids"]
        pos = np.array([1.0 if self.good in row else 0.0 for row in ids])
        return np.stack([1.0 - pos, pos], axis=1)


class _Encoder:  # sentence encoder stand-in for sp-attack
    def encode(self, texts):
        return np.array([[len(t) + 1.0, 1.0] for t in texts])


class _LM:  # causal LM stand-in for sp-attack
    def perplexity(self, texts):
        return np.array([10.0 + len(t) for t in texts])


def _light_params(name, cls):
    from textattack_secondorder.evaluation.flip_capability import FlipCapability, FlipCapabilityResult
    from textattack_secondorder.resources.proposers import WordProposer

    class FixedProposer(WordProposer):
        context_only = True

        def propose(self, sentences, positions, top_k=21):
            return [[[("fine", 1.0), ("nice", 0.5)] for _ in pos] for pos in positions]

    light = {
        "masked_lm": FixedProposer(device="cpu"),
        "synonyms": {"good": ["fine"], "film": ["movie"]},
        "patch_rule": "paper",  # the stub proposer scores no words (the rule: tests/test_patch_rules.py)
        "label_rule": "paper",  # sp-attack: no training sentences to read the label lean from
        "neighbor_rule": "paper",  # no tagger or causal LM for the stub texts (tests/test_second_order.py)
        "fluency_rule": "paper",  # sp-attack: the same (tests/test_fluency_rule.py)
        "use_sentence_encoder": False,
        "sentence_encoder": _Encoder(),
        "causal_lm": _LM(),
    }
    params = {k: v for k, v in light.items() if k in cls.PARAMS}
    if name == "sp-attack":
        params["kappa"] = FlipCapabilityResult(FlipCapability(["bad", "dull"], 2).update([0], 1))
    if name == "bae-offline":
        params.pop("sentence_encoder")
    if name == "alzantot-offline":  # a small population keeps the genetic search quick
        params.update(pop_size=4, max_iters=2)
    return params


@pytest.fixture
def no_sentence_encoder(monkeypatch):
    """bae-offline's sentence-encoder constraint replaced by one that accepts everything (no model load)."""
    from textattack.constraints import Constraint

    from textattack_secondorder.attack_recipes import bae_offline, textfooler_offline

    class AcceptAll(Constraint):
        def __init__(self):
            super().__init__(compare_against_original=True)

        def _check_constraint(self, transformed_text, reference_text):
            return True

    for recipe in (bae_offline, textfooler_offline):
        monkeypatch.setattr(recipe, "sentence_encoder_constraint", lambda *a, **k: AcceptAll())


def build(name, model=None):
    from textattack_secondorder.attack_recipes.build import attack_recipes

    cls = attack_recipes()[name]
    return cls.build(model or TinyVictim(), **_light_params(name, cls))


def attack_rows(attack, rows, csv_path=None, label_names=None):
    from textattack_secondorder import register

    register()
    dataset = textattack.datasets.Dataset([(t, y) for t, y, _ in rows], label_names=label_names)
    args = textattack.AttackArgs(num_examples=len(rows), log_to_csv=csv_path, disable_stdout=True, silent=True)
    attacker = textattack.Attacker(attack, dataset, args)
    return attacker, attacker.attack_dataset()


def check_result(result, case, recipe):
    from textattack.attack_results import SkippedAttackResult

    assert hasattr(result, "skip_kind"), (recipe, case)
    if case in BAD:
        assert isinstance(result, SkippedAttackResult), (recipe, case)
        assert result.skip_kind == "input" and result.skip_reason, (recipe, case, result.skip_reason)
    else:
        assert result.skip_kind in (None, "method"), (recipe, case, result.skip_kind, result.skip_reason)
        if result.skip_kind == "method":
            assert result.skip_reason, (recipe, case)


@pytest.mark.parametrize("recipe", RECIPES)
def test_hostile_rows_through_every_recipe(recipe, tmp_path, no_sentence_encoder):
    import pandas as pd

    from textattack_secondorder.metrics.skipped_rows import SkippedRows

    rows = hostile_rows()
    attack = build(recipe)
    # one row at a time (a row alone is never a duplicate)
    for text, label, case in rows:
        attack.input_guard.reset()
        check_result(attack.attack(text, label), "normal_pos" if case == "duplicate" else case, recipe)
    # all rows in one run, logged to CSV
    log = tmp_path / "log.csv"
    attacker, results = attack_rows(attack, rows, str(log))
    assert len(results) == len(rows)
    for result, (_, _, case) in zip(results, rows):
        check_result(result, case, recipe)
    long_row = results[[c for _, _, c in rows].index("long")]
    assert "truncated" in long_row.input_note and len(long_row.original_result.attacked_text.words) < 40
    assert "Skipped for bad input:" in attacker.attack_log_manager.metrics
    assert SkippedRows(("input",)).calculate(results) == sum(c in BAD for _, _, c in rows)
    df = pd.read_csv(log, keep_default_na=False)
    assert len(df) == len(rows) and "skip_reason" in df.columns and "input_note" in df.columns
    for reason, (_, _, case) in zip(df["skip_reason"], rows):
        assert bool(reason) or case not in BAD, case


@pytest.mark.parametrize("recipe", RECIPES)
def test_every_recipe_builds_a_guarded_attack_in_its_own_build(recipe):
    from textattack_secondorder.attack_recipes.input_guard import GuardedAttack, InputGuard
    from textattack_secondorder.plugin.registry import attack_recipes

    cls = attack_recipes()[recipe]
    assert "build" in vars(cls)  # the recipe reads from its own file
    attack = build(recipe)
    assert isinstance(attack, GuardedAttack) and isinstance(attack.input_guard, InputGuard)
    assert "attack" not in vars(attack)  # guarded by its class, not by a patched instance
    assert "Skipped for bad input:" in attack.summary_metrics


def test_guarded_attack_pickles_with_its_guard():
    import pickle

    attack = build("textfooler-offline")
    copy = pickle.loads(pickle.dumps(attack))
    assert copy.input_guard.goal_function is copy.goal_function
    check_result(copy.attack("", 1), "empty", "textfooler-offline")
    check_result(copy.attack("a good film", 1), "normal_pos", "textfooler-offline")
    check_result(copy.attack("a good film", 1), "duplicate", "textfooler-offline")
    copy.input_guard.reset()
    check_result(copy.attack("a good film", 1), "normal_pos", "textfooler-offline")


def test_all_rows_skipped_summary_has_no_nan_or_warning(tmp_path, capsys):
    rows = [(t, y, c) for t, y, c in hostile_rows() if c in ("empty", "punctuation", "label_out_of_range")]
    attack = build("textfooler-offline")
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        _, results = attack_rows(attack, rows, str(tmp_path / "log.csv"))
    assert [r.skip_kind for r in results] == ["input"] * 3


def test_diff_color_survives_texts_without_letters():
    from textattack.attack_results import SkippedAttackResult
    from textattack.goal_function_results import ClassificationGoalFunctionResult, GoalFunctionResultStatus
    from textattack.shared import AttackedText

    from textattack_secondorder import register

    register()
    r = ClassificationGoalFunctionResult(
        AttackedText("!!! 123 ???"), np.array([0.5, 0.5]), 0, GoalFunctionResultStatus.SKIPPED, 0.0, 1, 0
    )
    assert SkippedAttackResult(r).diff_color("file") == ("!!! 123 ???", "!!! 123 ???")


# ------------------------------------------------------------------------------------ bad victims
class _Broken(textattack.models.wrappers.ModelWrapper):
    def __init__(self, kind):
        self.model, self.kind = None, kind

    def __call__(self, texts):
        n = len(texts)
        good = np.array([[0.0, 1.0] if "good" in t else [1.0, 0.0] for t in texts])
        if self.kind == "nan":
            return np.full((n, 2), np.nan)
        if self.kind == "rows":
            return good[:1]
        if self.kind == "columns":
            return good[:, :1]
        if self.kind == "raises":
            raise RuntimeError("victim is down")
        if self.kind == "raises_on_boom" and any("boom" in t for t in texts):
            raise RuntimeError("cannot read 'boom'")
        if self.kind == "nan_on_boom":
            good[[("boom" in t) for t in texts]] = np.nan
        return good


@pytest.mark.parametrize(
    "kind,words",
    [
        ("nan", "NaN"),
        ("rows", "shape (1, 2) for 2 texts"),
        ("columns", "1 column(s)"),
        ("raises", "raised RuntimeError"),
    ],
)
def test_bad_victim_is_a_clear_error_before_the_run(kind, words):
    from textattack_secondorder.models.probe import ModelProbeError

    attack = build("textfooler-offline", _Broken(kind))
    with pytest.raises(ModelProbeError) as e:
        attack_rows(attack, [("a good film", 1, "x"), ("a dull film", 0, "y")])
    assert "_Broken" in str(e.value) and words in str(e.value)


@pytest.mark.parametrize("kind,skip_kind", [("raises_on_boom", "error"), ("nan_on_boom", "model")])
def test_victim_failing_on_some_rows_skips_them(kind, skip_kind, tmp_path):
    import pandas as pd

    attack = build("textfooler-offline", _Broken(kind))
    rows = [("a good film", 1, "x"), ("a boom film", 1, "y"), ("a dull film", 0, "z")]
    log = tmp_path / "log.csv"  # with label names, as a CSV dataset gives them: the skipped row has no output to name
    _, results = attack_rows(attack, rows, csv_path=str(log), label_names=["negative", "positive"])
    assert [r.skip_kind for r in results] == [None, skip_kind, None]
    assert len(pd.read_csv(log)) == 3
    assert ("boom" if skip_kind == "error" else "NaN") in results[1].skip_reason


def test_probe_model_reports_shape_and_values():
    from textattack_secondorder.models.probe import ModelProbeError, check_outputs, probe_model

    assert probe_model(_Broken("fine"), ["a good film"]) == 2
    assert probe_model(_Broken("raises_on_boom"), ["boom"]) == 2  # only that text fails: its row is skipped later
    with pytest.raises(ModelProbeError, match=r"shape \(3,\)"):
        check_outputs(np.zeros(3), 3, "m")


# ------------------------------------------------------------------------------------ bad parameters
@pytest.mark.parametrize(
    "params,words",
    [
        ({"beam_width": 0}, "beam_width=0 is not allowed: must be an integer >= 1"),
        ({"beam_width": "wide"}, "beam_width='wide' is not allowed: must be an integer"),
        ({"kappa": 2.5}, "kappa=2.5 is not allowed: must be an integer"),
        ({"beam_widht": 3}, "Unknown parameter(s) 'beam_widht' for recipe 'so-beam'"),
        ({"masked_lm_dtype": "int8"}, "masked_lm_dtype='int8' is not allowed: choose one of"),
    ],
)
def test_bad_recipe_parameter_is_one_line(params, words):
    from textattack_secondorder.attack_recipes import SOBeam
    from textattack_secondorder.attack_recipes.recipe import RecipeParameterError

    with pytest.raises(RecipeParameterError) as e:
        SOBeam.build(TinyVictim(), **params)
    assert words in str(e.value) and "\n" not in str(e.value)


def test_missing_or_malformed_resource_files_are_one_line(tmp_path):
    from textattack_secondorder.attack_recipes import SOBeam, TextFoolerOffline
    from textattack_secondorder.resources.resolution import ResourceError

    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    for value in (str(tmp_path / "missing.json"), str(bad)):
        with pytest.raises(ResourceError) as e:
            TextFoolerOffline.build(TinyVictim(), synonyms=value, use_sentence_encoder=False)
        assert value in str(e.value) and "textfooler-offline" in str(e.value)
    with pytest.raises(ResourceError) as e:
        SOBeam.build(TinyVictim(), masked_lm=str(tmp_path / "no-such-mlm"), synonyms={"good": ["fine"]})
    assert "no-such-mlm" in str(e.value)


def test_recipe_argument_is_checked_and_quoted():
    from textattack_secondorder.attack_recipes.recipe import RecipeParameterError
    from textattack_secondorder.plugin.extensions import check_recipe_argument
    from textattack_secondorder.shared.errors import UsageError

    assert (
        check_recipe_argument("so-beam^synonyms=data/x.json,beam_width=3")
        == "so-beam^synonyms='data/x.json',beam_width=3"
    )
    assert check_recipe_argument("textfooler") == "textfooler"
    with pytest.raises(RecipeParameterError):
        check_recipe_argument("so-beam^beam_width=0")
    with pytest.raises(UsageError):
        check_recipe_argument("so-beam^beam_width=3,4")


def test_textattack_so_negative_num_examples_exits_2_in_one_line():
    out = subprocess.run(
        [console_script("textattack-so"), "bias", "--model", "mr-cnn", "--num-examples", "-5"],
        capture_output=True,
        text=True,
        env=offline_env(),
        timeout=600,
    )
    assert out.returncode == 2
    assert out.stderr.strip().count("\n") == 0 and "--num-examples" in out.stderr and "-5" in out.stderr
    assert "Traceback" not in out.stderr


def _user_error_classes():
    from textattack_secondorder.checks.base import ConfigError
    from textattack_secondorder.distributed import ClusterError
    from textattack_secondorder.models.probe import ModelProbeError
    from textattack_secondorder.models.token_classifier import GradientAccessError
    from textattack_secondorder.resources import ResourceError
    from textattack_secondorder.shared.errors import UsageError
    from textattack_secondorder.shared.recipe_params import RecipeParameterError

    return [
        ClusterError,
        ConfigError,
        ResourceError,
        RecipeParameterError,
        UsageError,
        ModelProbeError,
        GradientAccessError,
    ]


@pytest.mark.parametrize("error", _user_error_classes(), ids=lambda c: c.__name__)
def test_user_errors_are_one_line_and_exit_2_on_both_command_lines(monkeypatch, capfd, error):
    """One decision (shared/errors.py: UserError) for `textattack-so` and the stock `textattack` command line."""
    from textattack_secondorder import resources
    from textattack_secondorder.cli import main
    from textattack_secondorder.plugin import extensions

    def fail(*_args, **_kwargs):
        raise error("planted: bad value")

    monkeypatch.setattr(resources, "describe", fail)  # what `textattack-so resources` runs first
    capfd.readouterr()
    assert main(["resources"]) == 2
    err = capfd.readouterr().err.strip()
    assert err == "textattack-so resources: error: planted: bad value"

    monkeypatch.setattr(extensions, "_check_command_args", fail)  # what `textattack attack` runs first
    code, _, err = stock_textattack(capfd, "attack", "--recipe", "textfooler", "--model-from-file", "absent.py")
    assert code == 2 and err.strip() == "textattack: error: planted: bad value", err[-2000:]


def test_stock_cli_bad_recipe_parameter_exits_2_without_traceback(tmp_path, capfd):
    (tmp_path / "model.py").write_text(
        "import numpy as np, textattack\n"
        "class M(textattack.models.wrappers.ModelWrapper):\n"
        "    model = None\n"
        "    def __call__(self, t):\n"
        "        return np.array([[0.5, 0.5]] * len(t))\n"
        "model = M()\n"
    )
    (tmp_path / "data.py").write_text(
        "import textattack\ndataset = textattack.datasets.Dataset([('a good film', 1)])\n"
    )
    code, _, err = stock_textattack(
        capfd,
        "attack",
        "--recipe",
        "so-beam^beam_width=0",
        "--model-from-file",
        tmp_path / "model.py",
        "--dataset-from-file",
        f"{tmp_path / 'data.py'}^dataset",
        "--num-examples",
        "1",
    )
    assert code == 2, err[-2000:]
    assert "beam_width=0 is not allowed" in err and "Traceback" not in err


@pytest.mark.parametrize(
    "content, fragment", [(None, "does not exist"), ("[1]", "expected a JSON object"), ("{}", "empty")]
)
def test_stock_cli_bad_synonyms_file_exits_2_with_one_line(tmp_path, capfd, content, fragment):
    (tmp_path / "model.py").write_text(
        "import numpy as np, textattack\n"
        "class M(textattack.models.wrappers.ModelWrapper):\n"
        "    model = None\n"
        "    def __call__(self, t):\n"
        "        return np.array([[0.5, 0.5]] * len(t))\n"
        "model = M()\n"
    )
    (tmp_path / "data.py").write_text(
        "import textattack\ndataset = textattack.datasets.Dataset([('a good film', 1)])\n"
    )
    syn = tmp_path / "syn.json"
    if content is not None:
        syn.write_text(content)
    code, _, err = stock_textattack(
        capfd,
        "attack",
        "--recipe",
        f"textfooler-offline^synonyms='{syn}'",
        "--model-from-file",
        tmp_path / "model.py",
        "--dataset-from-file",
        f"{tmp_path / 'data.py'}^dataset",
        "--num-examples",
        "1",
    )
    assert code == 2, err[-2000:]
    assert "Traceback" not in err
    line = [x for x in err.splitlines() if "synonym file" in x]
    assert len(line) == 1 and str(syn) in line[0] and fragment in line[0]


@pytest.mark.parametrize(
    "argv",
    [
        ["bias", "--model", "mr-cnn", "--max-k", "-1"],
        ["bias", "--model", "mr-cnn", "--num-examples", "0"],  # was: every example
        ["bias", "--model", "mr-cnn", "--bootstrap", "0"],
        ["bias", "--model", "mr-cnn", "--sample-masks", "-2"],
        ["flip-capability", "--model", "mr-cnn", "-m", "-3"],
        ["flip-capability", "--model", "mr-cnn", "--vocab-limit", "0"],
        ["robustness", "--model", "mr-cnn", "--char-max", "-2"],
        ["robustness", "--model", "mr-cnn", "--query-budget", "0"],
        ["sp-augment", "--input-csv", "x.csv", "--output-csv", "y.csv", "--transformations-per-example", "0"],
        ["train-victims", "--threads", "0"],
        ["defend", "--model", "mr-cnn", "--seed", "-1"],
        ["attack-sweep", "--models", "mr-cnn", "--recipes", "so-beam", "--random-seed", "-7"],
    ],
)
def test_count_flags_refuse_values_below_their_rule_before_anything_loads(argv, capsys):
    from textattack_secondorder.cli import main

    with pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert argv[-2] in err and argv[-1] in err and "must be a whole number >=" in err
