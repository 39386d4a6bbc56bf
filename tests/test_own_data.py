"""A researcher's own data (issue 50): a CSV of ``text,label`` rows, labels as class numbers or as the model's
own names, through both command lines; a wrong column, an unusable data set or a pair no sentence holds is
one line and exit code 2, with nothing written.

The victim is a tiny seeded BERT classifier saved as a model folder whose ``id2label`` is
``{0: "negative", 1: "positive"}``, as a user's ``save_pretrained`` folder would be.
"""

import json

import pandas as pd
import pytest

from conftest import stock_textattack, write_tiny_bert
from test_hostile_input import no_sentence_encoder  # noqa: F401 - a fixture

VOCAB = "[PAD] [UNK] [CLS] [SEP] [MASK] the a film is good bad and cast fine dull movie plot".split()
NAMES = ["negative", "positive"]
# labels as a user writes them: the model's names in any case, and class numbers
REVIEWS = [
    ("a good film", "positive"),
    ("a bad film", "Negative"),
    ("the cast is fine", "POSITIVE"),
    ("a dull movie", "negative"),
    ("the plot is bad", "0"),
    ("good and fine", "1"),
]


@pytest.fixture(scope="module")
def named_model(tmp_path_factory):
    from transformers import BertForSequenceClassification

    folder = tmp_path_factory.mktemp("own") / "my_model"
    return write_tiny_bert(
        folder,
        VOCAB,
        BertForSequenceClassification,
        num_labels=2,
        id2label=dict(enumerate(NAMES)),
        label2id={n: i for i, n in enumerate(NAMES)},
    )


def write_csv(path, rows, columns=("text", "label")):
    pd.DataFrame(rows, columns=list(columns)).to_csv(path, index=False)
    return path


def last_error_line(err):
    lines = err.strip().splitlines()
    assert lines and "Traceback" not in err, err[-2000:]
    return lines[-1]


# --------------------------------------------------------------------------------------------- the rules
def test_label_names_map_to_class_numbers_case_insensitively():
    from textattack_secondorder.shared.inputs import label_reason

    assert label_reason("Positive", 2, NAMES) == (1, None)
    assert label_reason(" negative ", None, NAMES) == (0, None)
    assert label_reason("1", 2, NAMES) == (1, None)
    assert label_reason(0, 2, NAMES) == (0, None)
    value, reason = label_reason("pos", 2, NAMES)
    assert value is None and "'pos'" in reason and "negative, positive" in reason and "0..1" in reason
    value, reason = label_reason("positive", 2, None)  # a model without names: the reason says what a name needs
    assert value is None and "id2label" in reason


def test_an_out_of_range_label_names_the_number_of_classes_also_in_the_summary():
    from textattack_secondorder.shared.inputs import label_reason, screen_examples, skipped_summary_text

    _, reason = label_reason(2, 2, NAMES)
    assert reason == "label 2 is outside the model's classes 0..1 (2 classes: negative, positive)"
    _, skipped = screen_examples([("a good film", 2), ("", 1), ("a bad film", 7)], 2, label_names=NAMES)
    # was "label 2 is outside the model's classes 1": the count read as the number of classes
    assert skipped_summary_text(skipped) == (
        "label 2 is outside the model's classes 0..1 (2 classes: negative, positive): 1 row; empty text: 1 row; "
        "label 7 is outside the model's classes 0..1 (2 classes: negative, positive): 1 row"
    )
    assert skipped_summary_text(skipped, kinds=1).endswith("1 row; and 2 other kinds of reason")


def test_model_label_names_come_from_id2label(named_model):
    from textattack_secondorder.models.loading import load_model_wrapper
    from textattack_secondorder.models.probe import model_label_names

    wrapper = load_model_wrapper(str(named_model), "cpu")
    assert model_label_names(wrapper) == NAMES
    assert model_label_names(wrapper, num_classes=3) is None  # names that do not fit the outputs are not used
    assert model_label_names(object()) is None


@pytest.mark.parametrize(
    "columns, kwargs, fragment",
    [
        (("sentence", "label"), {}, "has no column 'text' for the texts"),
        (("text", "y"), {"labelled": True}, "has no column 'label' for the labels"),
    ],
)
def test_load_examples_names_a_missing_column_and_the_columns_there(tmp_path, columns, kwargs, fragment):
    from textattack_secondorder.datasets.examples import load_examples
    from textattack_secondorder.shared.errors import UsageError

    path = write_csv(tmp_path / "my.csv", REVIEWS, columns)
    with pytest.raises(UsageError, match=fragment) as e:
        load_examples(str(path), **kwargs)
    assert f"its columns: {', '.join(columns)}" in str(e.value)
    with pytest.raises(UsageError, match="not found"):
        load_examples(str(tmp_path / "absent.csv"))


# --------------------------------------------------------------------------------- textattack-so commands
def test_defend_reads_label_names_and_skips_an_unknown_one_with_the_models_names(named_model, tmp_path, capsys):
    from textattack_secondorder.cli import main

    data = write_csv(tmp_path / "my.csv", REVIEWS + [("the film is fine", "great")])
    out = tmp_path / "defended"
    argv = ["defend", "--model", str(named_model), "--dataset", str(data), "--steps", "2", "--batch-size", "2"]
    assert main([*argv, "--out", str(out)]) == 0
    info = json.loads((out / "defense.json").read_text())
    assert info["training examples"] == len(REVIEWS) and info["rows skipped for bad input"] == 1
    skipped = pd.read_csv(out / "skipped_rows.csv", keep_default_na=False)
    assert list(skipped["label"]) == ["great"]
    assert "'great' is neither one of the model's label names (negative, positive)" in skipped["skip_reason"][0]
    assert json.loads((out / "config.json").read_text())["id2label"] == {"0": "negative", "1": "positive"}


def test_defend_on_data_without_a_usable_row_is_one_line_and_writes_nothing(named_model, tmp_path, capsys):
    from textattack_secondorder.cli import main

    data = write_csv(tmp_path / "my.csv", [("a good film", "great"), ("a bad film", "awful")])
    out = tmp_path / "defended"
    assert main(["defend", "--model", str(named_model), "--dataset", str(data), "--out", str(out)]) == 2
    line = last_error_line(capsys.readouterr().err)
    assert line.startswith("textattack-so defend: error: no usable row: all 2 rows were skipped (label 'great'")
    assert "negative, positive" in line and not out.exists()


@pytest.mark.parametrize(
    "command, flag, value",
    [
        ("flip-capability", "--text-column", "sentence"),
        ("flip-capability", "--label-column", "stars"),
        ("bias", "--text-column", "sentence"),
        ("defend", "--label-column", "stars"),
        ("robustness", "--text-column", "sentence"),
        ("sp-augment", "--label-column", "stars"),
    ],
)
def test_a_wrong_column_is_one_line_exit_2_before_anything_loads(tmp_path, capsys, command, flag, value):
    from textattack_secondorder.cli import main

    data = write_csv(tmp_path / "my.csv", REVIEWS)
    out = tmp_path / "out"
    if command == "sp-augment":
        argv = [command, "--input-csv", str(data), "--output-csv", str(out)]
    else:  # a victim that cannot load: the data is read first
        argv = [command, "--model", str(tmp_path / "no_such_model"), "--dataset", str(data), "--out", str(out)]
    assert main([*argv, flag, value]) == 2
    line = last_error_line(capsys.readouterr().err)
    assert line.startswith(f"textattack-so {command}: error: {data} has no column {value!r}"), line
    assert line.endswith("its columns: text, label") and not out.exists()


def test_bias_on_sentences_without_the_pair_says_so_in_one_line(named_model, tmp_path, capsys):
    from textattack_secondorder.cli import main

    data = write_csv(tmp_path / "my.csv", REVIEWS)
    out = tmp_path / "bias"
    assert (
        main(["bias", "--model", str(named_model), "--dataset", str(data), "--pairs", "he/she", "--out", str(out)]) == 2
    )
    line = last_error_line(capsys.readouterr().err)
    assert line.startswith("textattack-so bias: error: none of the 6 sentences holds a word of the pair he/she"), line
    assert "Empty DataFrame" not in line and not out.exists()


def test_sp_augment_maps_label_names_with_a_model(named_model, tmp_path):
    from textattack_secondorder.cli import main

    data = write_csv(tmp_path / "my.csv", REVIEWS + [("the film is fine", "great")])
    out = tmp_path / "aug.csv"
    argv = ["sp-augment", "--input-csv", str(data), "--output-csv", str(out), "--mode", "random"]
    assert main([*argv, "--model", str(named_model)]) == 0
    rows = pd.read_csv(out, keep_default_na=False, dtype=str)
    bad = rows[rows["skip_reason"] != ""]
    assert list(bad["label"]) == ["great"] and "negative, positive" in bad["skip_reason"].iloc[0]
    good = rows[rows["skip_reason"] == ""]
    assert len(good) == 2 * len(REVIEWS) and set(good["label"]) == {label for _, label in REVIEWS}


def test_the_gate_reads_label_names(named_model, tmp_path):
    from types import SimpleNamespace

    from textattack_secondorder.checks.base import ConfigError
    from textattack_secondorder.checks.runner import GateContext

    config = SimpleNamespace(run={"device": "cpu"}, model=str(named_model), text_column="text", label_column="label")
    context = GateContext(config, tmp_path / "gate", progress=False, say=lambda *_: None)
    data = write_csv(tmp_path / "my.csv", REVIEWS)
    good, skipped = context.screened({"dataset": str(data), "split": "test", "num_examples": None})
    assert [y for _, y in good] == [1, 0, 1, 0, 0, 1] and not skipped
    bad = write_csv(tmp_path / "bad.csv", [("a good film", "great")])
    with pytest.raises(ConfigError, match="no usable row .* 'great' is neither one of the model's label names"):
        context.screened({"dataset": str(bad), "split": "test", "num_examples": None})


# -------------------------------------------------------------------------------- the stock command line
def test_stock_attack_takes_a_csv_with_label_names(named_model, tmp_path, capfd, caplog):
    """`textattack attack --dataset-from-file my.csv` with TextAttack's own recipe (not guarded): names mapped,
    a row whose label is no name left out with a warning, every other row attacked with its class number."""
    data = write_csv(tmp_path / "my.csv", REVIEWS[:4] + [("the film is fine", "great")])
    log = tmp_path / "log.csv"
    code, _, err = stock_textattack(
        capfd,
        "attack",
        "--recipe",
        "deepwordbug",
        "--model-from-huggingface",
        named_model,
        "--dataset-from-file",
        data,
        "--num-examples",
        "-1",
        "--log-to-csv",
        log,
        "--disable-stdout",
        "--silent",
    )
    assert code == 0, err[-3000:]
    logged = pd.read_csv(log, keep_default_na=False)
    assert len(logged) == 4 and list(logged["ground_truth_output"]) == [1, 0, 1, 0]
    # a log warning (pytest keeps log records off stderr)
    assert "leaving out 1 row(s) (label 'great' is neither one of the model's label names" in err + caplog.text


@pytest.mark.usefixtures("no_sentence_encoder")
def test_guarded_attack_on_a_csv_skips_an_unknown_name_with_the_reason(tmp_path):
    """One of our recipes: the row stays in the run and its skip_reason names the model's labels."""
    import textattack

    from test_hostile_input import TinyVictim, build
    from textattack_secondorder import register
    from textattack_secondorder.datasets.csv_dataset import CSVDataset

    register()
    victim = TinyVictim()
    victim.model = type("Named", (), {"config": type("Config", (), {"id2label": dict(enumerate(NAMES))})()})()
    data = write_csv(tmp_path / "my.csv", [("a good film", "Positive"), ("a dull film", "great")])
    args = textattack.AttackArgs(num_examples=2, disable_stdout=True, silent=True)
    results = textattack.Attacker(build("textfooler-offline", victim), CSVDataset(str(data)), args).attack_dataset()
    assert results[0].original_result.ground_truth_output == 1 and results[0].skip_reason != results[1].skip_reason
    assert "'great' is neither one of the model's label names (negative, positive)" in results[1].skip_reason


@pytest.mark.parametrize(
    "rows, columns, fragment",
    [
        (
            REVIEWS,
            ("sentence", "label"),
            "has no column 'text' for the texts (name other columns as FILE.csv^TEXT_COLUMN,LABEL_COLUMN)",
        ),
        ([("a good film", "great"), ("a bad film", 7)], ("text", "label"), "no usable row in"),
    ],
)
def test_stock_attack_on_an_unusable_csv_is_one_line_exit_2(named_model, tmp_path, capfd, rows, columns, fragment):
    data = write_csv(tmp_path / "my.csv", rows, columns)
    argv = ["attack", "--recipe", "deepwordbug", "--model-from-huggingface", named_model, "--dataset-from-file", data]
    code, _, err = stock_textattack(capfd, *argv)
    assert code == 2, err[-3000:]
    line = last_error_line(err)
    assert line.startswith("textattack: error: ") and fragment in line, line


def test_csv_dataset_maps_names_once_then_filters_by_class_number(tmp_path):
    from textattack_secondorder.datasets.csv_dataset import CSVDataset

    data = CSVDataset(str(write_csv(tmp_path / "my.csv", REVIEWS + [("the film is fine", "great")])), [1])
    data.adopt_model_labels(NAMES, guarded=False)  # TextAttack's --filter-by-labels 1: the positive rows
    assert [(t["text"], y) for t, y in data] == [("a good film", 1), ("the cast is fine", 1), ("good and fine", 1)]
    assert data.label_names == NAMES
    data.adopt_model_labels(["x", "y"], guarded=False)  # once: a resumed attack does not map twice
    assert len(data) == 3


def test_stock_attack_reads_other_column_names_after_a_caret(tmp_path, capfd):
    data = write_csv(tmp_path / "my.csv", [(t, i % 2) for i, (t, _) in enumerate(REVIEWS)], ("review", "stars"))
    code, out, err = stock_textattack(capfd, "peek-dataset", "--dataset-from-file", f"{data}^review,stars")
    assert code == 0, err[-3000:]
    assert out.startswith("a good film") and "good and fine" in out and "[0, 1]" in out  # first, last, labels


def test_stock_augment_keeps_every_row_and_character(tmp_path, capfd):
    """TextAttack's writer turned an empty text "" into a lone quote that swallowed the next row, and deleted "/"."""
    data = tmp_path / "my.csv"
    data.write_text('text,label\n"a good film",1\n"",0\n"a bad film and/or plot, really",0\n', encoding="utf-8")
    out = tmp_path / "aug.csv"
    code, _, err = stock_textattack(
        capfd,
        "augment",
        "--input-csv",
        data,
        "--output-csv",
        out,
        "--input-column",
        "text",
        "--recipe",
        "sp-defense^vocabulary=['splendid','dreary']",
        "--transformations-per-example",
        "1",
    )
    assert code == 0, err[-3000:]
    rows = pd.read_csv(out, keep_default_na=False, dtype=str)
    # each original, then its augmentation (one word swapped); the empty text is kept, not augmented
    assert list(rows.columns) == ["text", "label"] and list(rows["label"]) == ["1", "1", "0", "0", "0"]
    texts = list(rows["text"])
    assert texts[0] == "a good film" and texts[2] == "" and texts[3] == "a bad film and/or plot, really"
    assert {"splendid", "dreary"} & set(texts[1].split()) and {"splendid", "dreary"} & set(texts[4].split())


@pytest.mark.parametrize(
    "extra, fragment",
    [
        (["--input-column", "sentence"], "has no column 'sentence' (--input-column); its columns: text, label"),
        (["--input-column", "text", "--recipe", "eda"], None),
    ],
)
def test_stock_augment_bad_input_is_one_line_exit_2(tmp_path, capfd, extra, fragment):
    data = write_csv(tmp_path / "my.csv", REVIEWS)
    out = tmp_path / "aug.csv"
    if fragment is None:  # an output that exists, without --overwrite (TextAttack raised OSError)
        out.write_text("kept\n")
        fragment = "exists; pass --overwrite"
    argv = ["augment", "--input-csv", data, "--output-csv", out, *extra]
    if "--recipe" not in extra:
        argv += ["--recipe", "sp-defense"]
    code, _, err = stock_textattack(capfd, *argv)
    assert code == 2 and fragment in last_error_line(err), err[-3000:]
    assert not out.exists() or out.read_text() == "kept\n"
