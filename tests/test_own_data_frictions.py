"""A researcher's own model and data (issue 68): the frictions of a first run on a three-class model with named
labels. ``bias --target-class`` takes a label name and says which class it measured; reports show outputs by
the model's label names; a row skipped for a label the model does not have says why on screen; a run whose
victim scored no row reads n/a, not 0 %; ``defend`` says its test rows were held out from this fine-tuning.

The victims are tiny seeded BERT classifiers saved as model folders whose ``id2label`` names their classes
(negative / positive, negative / neutral / positive), as a user's ``save_pretrained`` folder would be.
"""

import json
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from conftest import stock_textattack, write_tiny_bert, write_tiny_mlm
from test_hostile_input import no_sentence_encoder  # noqa: F401 - a fixture
from test_own_data import last_error_line, write_csv

VOCAB = "[PAD] [UNK] [CLS] [SEP] [MASK] the a film is good bad and cast fine dull movie plot he she".split()
TWO = ["negative", "positive"]
THREE = ["negative", "neutral", "positive"]
REVIEWS = [
    ("a good film", "positive"),
    ("a bad film", "negative"),
    ("the cast is fine", "positive"),
    ("a dull movie", "negative"),
    ("he is good", "positive"),
    ("she is bad", "negative"),
]


def named_folder(folder, names):
    from transformers import BertForSequenceClassification

    return write_tiny_bert(
        folder,
        VOCAB,
        BertForSequenceClassification,
        num_labels=len(names),
        id2label=dict(enumerate(names)),
        label2id={n: i for i, n in enumerate(names)},
    )


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    root = tmp_path_factory.mktemp("own")
    return {
        2: named_folder(root / "two_classes", TWO),
        3: named_folder(root / "three_classes", THREE),
        "mlm": write_tiny_mlm(root / "mlm", VOCAB),
    }


# ------------------------------------------------------------------------------------ bias --target-class
def run_bias(models, tmp_path, *extra):
    from textattack_secondorder.cli import main

    data = write_csv(tmp_path / "my.csv", REVIEWS)
    out = tmp_path / "bias"
    argv = ["bias", "--model", str(models[3]), "--dataset", str(data), "--pairs", "he/she", "--max-k", "1"]
    argv += ["--masked-lm", str(models["mlm"]), "--bootstrap", "10", "--out", str(out), *extra]
    return main(argv), out


def test_bias_names_its_default_target_class_on_a_three_class_model(models, tmp_path, capsys):
    code, out = run_bias(models, tmp_path)
    stdout = capsys.readouterr().out
    assert code == 0
    # was nowhere on screen: class 1 of this model is "neutral", not the positive class
    assert (
        "B_{p,k} compares the probability of class 1 (neutral), the default --target-class (a class number or "
        "one of: negative, neutral, positive)" in stdout
    )
    assert "B_{p,k}: change in the probability of class 1 (neutral)" in stdout
    assert json.loads((out / "bias_summary.json").read_text())["settings"]["target_class"] == 1


def test_bias_target_class_takes_a_label_name_in_any_case(models, tmp_path, capsys):
    code, out = run_bias(models, tmp_path, "--target-class", "Positive")
    stdout = capsys.readouterr().out
    assert code == 0
    assert "B_{p,k} compares the probability of class 2 (positive)\n" in stdout
    assert json.loads((out / "bias_summary.json").read_text())["settings"]["target_class"] == 2


@pytest.mark.parametrize("value, shown", [("happy", "'happy'"), ("3", "3")])
def test_bias_target_class_the_model_does_not_have_is_one_line_exit_2(models, tmp_path, capsys, value, shown):
    code, out = run_bias(models, tmp_path, "--target-class", value)
    assert code == 2
    assert last_error_line(capsys.readouterr().err) == (
        f"textattack-so bias: error: --target-class {shown} is neither one of the model's labels "
        "(negative, neutral, positive) nor a class number 0..2"
    )
    assert not out.exists()


def test_a_model_without_label_names_takes_class_numbers_only():
    from textattack_secondorder.evaluation.bias.target import resolve_target_class
    from textattack_secondorder.shared.errors import UsageError

    class Unnamed:  # a wrapper around no Hugging Face model: no config, no names
        model = None

        def __call__(self, texts):
            return np.full((len(texts), 2), 0.5)

    assert resolve_target_class("0", Unnamed()) == (0, None)
    with pytest.raises(UsageError, match=r"^--target-class 'positive' is not a class number 0..1 \(the model has 2"):
        resolve_target_class("positive", Unnamed())


# ------------------------------------------------------------------------------------ outputs by name
def test_label_text_shows_names_where_the_model_has_them():
    from textattack_secondorder.shared.label_names import label_text, outputs_text, target_text

    assert outputs_text(1, 2, THREE) == "neutral → positive"
    assert outputs_text("1", 2.0, THREE) == "neutral → positive"  # as a CSV log reads back
    assert outputs_text(1, 2, None) == "1 → 2"
    assert outputs_text(1, 0, ["LABEL_0", "LABEL_1"]) == "1 → 0"  # names that say no more than the numbers
    assert label_text("", THREE) == "" and label_text(5, THREE) == "5"
    assert target_text(1, THREE) == "1 (neutral)" and target_text(1, None) == "1"


def test_the_gate_shows_an_attacks_outputs_by_the_models_label_names(models, tmp_path):
    from textattack_secondorder.checks.attack import successful_examples
    from textattack_secondorder.checks.runner import GateContext

    config = SimpleNamespace(run={"device": "cpu"}, model=str(models[3]), text_column="text", label_column="label")
    context = GateContext(config, tmp_path / "gate", progress=False, say=lambda *_: None)
    context.screened({"dataset": str(write_csv(tmp_path / "my.csv", REVIEWS)), "split": "test", "num_examples": None})
    assert context.label_names == THREE
    log = tmp_path / "log.csv"
    pd.DataFrame(
        [
            ("a fine plot", "a [[dull]] plot", 1, 0, "Successful", 1, 0, "he", "she"),
            ("a good film", "a good film", 2, 2, "Failed", "", "", "", ""),
        ],
        columns=["original_text", "perturbed_text", "original_output", "perturbed_output", "result_type"]
        + ["vulnerable_output", "vulnerable_patched_output", "patch_p1", "patch_p2"],
    ).assign(vulnerable_text="a dull plot").to_csv(log, index=False)
    # was "1 → 0"
    assert [e["outputs"] for e in successful_examples(log, label_names=context.label_names)] == ["neutral → negative"]
    vulnerable = successful_examples(log, vulnerable=True, label_names=context.label_names)
    assert vulnerable[0]["outputs"] == "patch he → she: neutral → negative"
    assert successful_examples(log)[0]["outputs"] == "1 → 0"  # a model without names: the numbers


def test_the_robustness_report_shows_gold_and_predictions_by_name(models):
    from textattack_secondorder.evaluation.robustness import PerturbedSet
    from textattack_secondorder.evaluation.robustness.computation import evaluate_sets
    from textattack_secondorder.evaluation.robustness.report import render_html
    from textattack_secondorder.models.loading import load_model_wrapper

    wrapper = load_model_wrapper(str(models[3]), "cpu")
    texts, labels = ["a good film", "a dull movie"], [2, 0]
    perturbed = PerturbedSet("W-test", "word", "test", ["a fine film", "a bad movie"])
    report = evaluate_sets(wrapper, texts, labels, [perturbed])
    assert report.label_names == THREE
    page = render_html(report)
    predicted = [THREE[p] for p in report.predictions["W-test"]]
    assert "<td class=n>positive</td>" in page and "<td class=n>negative</td>" in page  # gold, was 2 and 0
    assert all(f">{name}</span>" in page for name in predicted)


def test_the_defense_comparison_names_the_classes_and_each_successs_outputs(tmp_path):
    from textattack.attack_results import SuccessfulAttackResult
    from textattack.goal_function_results import ClassificationGoalFunctionResult, GoalFunctionResultStatus
    from textattack.shared import AttackedText

    from textattack_secondorder.defense.comparison_report import settings_lines
    from textattack_secondorder.defense.measure import attack_rows, comparison_sets

    named = SimpleNamespace(model=SimpleNamespace(config=SimpleNamespace(id2label=dict(enumerate(THREE)))))

    class OneWordFlip:  # a success from class 1 to class 2, as an attack of the comparison returns it
        goal_function = SimpleNamespace(model=named)

        def attack(self, text, label):
            def result(t, output, status):
                raw = np.eye(3)[output]
                return ClassificationGoalFunctionResult(AttackedText(t), raw, output, status, 0.0, 1, label)

            return SuccessfulAttackResult(
                result(text, 1, GoalFunctionResultStatus.SEARCHING),
                result(text.replace("fine", "dull"), 2, GoalFunctionResultStatus.SUCCEEDED),
            )

    rows = attack_rows(OneWordFlip(), [("the cast is fine", 1)], tmp_path / "textfooler_rows.json")
    assert rows[0]["outputs"] == "neutral → positive"
    assert json.loads((tmp_path / "textfooler_rows.json").read_text())[0]["outputs"] == "neutral → positive"

    settings = {"model": "my_model", "steps": 2, "batch_size": 4, "lr": None, "embeddings": "default", "m": 4}
    settings.update(vocab_limit=0, sp_attack_recipe="sp-attack", textfooler_recipe="t", so_beam_recipe="so-beam")
    sets = comparison_sets(REVIEWS[:2], REVIEWS, 2, 2, 1)
    data = {"sets": sets, "train_source": "my.csv:train (2 rows)", "test_source": "test.csv (6 rows)"}
    assert not any(line.startswith("classes:") for line in settings_lines(settings, data))
    lines = settings_lines(settings, {**data, "label_names": THREE})
    assert lines[-1] == "classes: 0 negative, 1 neutral, 2 positive"


# ------------------------------------------------------------------------------- rows skipped, on screen
@pytest.mark.usefixtures("no_sentence_encoder")
def test_rows_skipped_for_a_label_the_model_does_not_have_say_why_on_screen(models, tmp_path, capfd, caplog):
    """One of our recipes through the stock command line: a row whose label the model does not have stays in the
    run (its CSV row says why) and the screen says why too, each distinct reason once with its count, in
    TextAttack's log (``textattack: ...`` on stderr) as the summary table is drawn."""
    rows = REVIEWS[:2] + [("the cast is fine", "neutral"), ("a dull movie", "neutral"), ("the plot is bad", 7)]
    data = write_csv(tmp_path / "my.csv", rows)
    log = tmp_path / "log.csv"
    argv = ["attack", "--recipe", "textfooler-offline", "--model-from-huggingface", models[2]]
    argv += ["--dataset-from-file", data, "--num-examples", "-1", "--log-to-csv", log, "--disable-stdout"]
    code, out, err = stock_textattack(capfd, *argv)
    assert code == 0, err[-3000:]
    line = (
        "skipped 3 of 5 rows for bad input (label 'neutral' is neither one of the model's label names "
        "(negative, positive) nor a class number 0..1: 2 rows; label 7 is outside the model's classes 0..1 "
        "(2 classes: negative, positive): 1 row)"
    )
    said = [r.getMessage() for r in caplog.records if "for bad input (" in r.getMessage()]
    assert said == [line] and "Attack Results" in out, (said, err[-3000:])
    logged = pd.read_csv(log, keep_default_na=False)
    assert logged["skip_reason"].str.startswith("label ").sum() == 3


def run_guarded(rows, tmp_path):
    import textattack

    from test_hostile_input import TinyVictim, build
    from textattack_secondorder import register
    from textattack_secondorder.sweeps.merge import write_cell

    register()
    attack = build("textfooler-offline", TinyVictim())
    args = textattack.AttackArgs(num_examples=len(rows), disable_stdout=True, silent=True)
    results = textattack.Attacker(attack, textattack.datasets.Dataset(rows), args).attack_dataset()
    return write_cell(results, attack, tmp_path / "cell.csv")  # the summary table, as TextAttack computes it


@pytest.mark.usefixtures("no_sentence_encoder")
def test_a_run_whose_victim_scored_no_row_reads_n_a_not_zero(tmp_path, caplog):
    summary = run_guarded([("a good film", 7), ("a dull film", "neutral"), ("", 1)], tmp_path)
    assert summary["Number of skipped attacks"] == 3 and summary["Skipped for bad input"] == 3
    # were "0.0%": no row was scored, so there is no accuracy to report
    assert summary["Original accuracy"] == "n/a" and summary["Accuracy under attack"] == "n/a"
    assert "skipped 3 of 3 rows for bad input (label 7 is outside" in caplog.text


@pytest.mark.usefixtures("no_sentence_encoder")
def test_a_run_with_a_scored_row_keeps_textattacks_accuracies(tmp_path):
    summary = run_guarded([("a good film", 1), ("a dull film", 7)], tmp_path)
    assert summary["Original accuracy"].endswith("%") and summary["Accuracy under attack"].endswith("%")


# ------------------------------------------------------------------------------------ defend's test rows
def test_defend_says_its_test_rows_were_held_out_from_this_fine_tuning(models, tmp_path, capsys):
    from textattack_secondorder.cli import main

    data = write_csv(tmp_path / "my.csv", REVIEWS)
    out = tmp_path / "defended"
    argv = ["defend", "--model", str(models[2]), "--dataset", str(data), "--steps", "1", "--batch-size", "2"]
    assert main([*argv, "--out", str(out)]) == 0
    stdout = capsys.readouterr().out
    # was "held out (10%, seed 0; not trained on)": what the model saw before this fine-tuning is not known
    said = "1 rows of " + str(data) + " held out from this fine-tuning (10%, seed 0; the model may have seen them"
    assert said in stdout and "not trained on" not in stdout
    assert said in json.loads((out / "defense.json").read_text())["test_data"]
