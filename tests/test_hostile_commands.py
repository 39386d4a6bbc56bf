"""The long commands on the hostile-input corpus (tests/data/hostile.csv): exit 0, bad rows skipped with a reason.

In-process ``textattack_secondorder.cli.main`` on a keyword victim (no training, no network).
"""

import json
import re
from pathlib import Path

import pandas as pd
import pytest

from conftest import tiny_bert_source

HOSTILE = Path(__file__).parent / "data" / "hostile.csv"
GOOD_CASES = {"normal_pos", "normal_neg", "normal_pos2", "one_word"}

MODEL = (
    "import re\nimport numpy as np\nfrom textattack.models.wrappers import ModelWrapper\n\n"
    "class KeywordModel(ModelWrapper):\n    model = None\n\n    def __call__(self, texts):\n"
    "        return np.array([[0.1, 0.9] if 'good' in re.findall(r'[a-z]+', t.lower()) else [0.9, 0.1]"
    " for t in texts])\n\nmodel = KeywordModel()\n"
)


# flip capability needs gradients through the input embeddings: a tiny BERT
TINY_BERT_VOCAB = [
    "[PAD]",
    "[UNK]",
    "[CLS]",
    "[SEP]",
    "[MASK]",
    "the",
    "a",
    "film",
    "is",
    "good",
    "bad",
    "and",
    "cast",
    "fine",
]


@pytest.fixture
def model_file(tmp_path):
    path = tmp_path / "keyword_model.py"
    path.write_text(MODEL, encoding="utf-8")
    return path


def _check_skipped(path):
    rows = pd.read_csv(HOSTILE, keep_default_na=False)
    skipped = pd.read_csv(path, keep_default_na=False)
    assert "skip_reason" in skipped.columns
    assert (skipped["skip_reason"].str.len() > 0).all()
    # every skipped row is a hostile one, and the clean rows are never skipped
    assert len(skipped) >= 8
    clean_rows = set(rows.index[rows["case"].isin(GOOD_CASES)])
    assert len(clean_rows) == len(GOOD_CASES)
    assert not clean_rows & set(skipped["row"])
    assert set(rows.index[rows["case"].str.startswith("duplicate")]) <= set(skipped["row"])
    return skipped


def test_flip_capability_on_hostile_rows(tmp_path, capsys):
    from textattack_secondorder.cli import main

    model_file = tmp_path / "tiny_bert.py"
    model_file.write_text(tiny_bert_source(TINY_BERT_VOCAB), encoding="utf-8")
    out = tmp_path / "kappa.json"
    assert (
        main(
            [
                "flip-capability",
                "--model",
                str(model_file),
                "--dataset",
                str(HOSTILE),
                "--vocab-limit",
                "40",
                "--out",
                str(out),
            ]
        )
        == 0
    )
    assert out.is_file() and json.loads(out.read_text())
    _check_skipped(out.with_suffix(".skipped.csv"))
    assert "skipping" in capsys.readouterr().out


def test_robustness_on_hostile_rows(model_file, tmp_path, capsys):
    from textattack_secondorder.cli import main

    syn = tmp_path / "syn.json"
    syn.write_text(json.dumps({"good": ["fine"], "film": ["movie"], "cast": ["actors"]}), encoding="utf-8")
    out = tmp_path / "report"
    assert (
        main(
            [
                "robustness",
                "--model",
                str(model_file),
                "--dataset",
                str(HOSTILE),
                "--levels",
                "char,word",
                "--synonyms",
                str(syn),
                "--out",
                str(out),
            ]
        )
        == 0
    )
    assert (out / "robustness.json").is_file()
    _check_skipped(out / "skipped_rows.csv")


@pytest.mark.parametrize("content, fragment", [(None, "does not exist"), ("{}", "empty")])
def test_robustness_with_a_bad_synonyms_file_is_one_line_before_anything_runs(
    model_file, tmp_path, capsys, content, fragment
):
    from textattack_secondorder.cli import main

    syn = tmp_path / "syn.json"
    if content is not None:
        syn.write_text(content)
    out = tmp_path / "report"
    assert (
        main(
            [
                "robustness",
                "--model",
                str(model_file),
                "--dataset",
                str(HOSTILE),
                "--levels",
                "char,word",
                "--synonyms",
                str(syn),
                "--out",
                str(out),
            ]
        )
        == 2
    )
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert str(syn) in err and fragment in err and "Traceback" not in err
    assert not out.exists()


def _hostile():
    return pd.read_csv(HOSTILE, keep_default_na=False)


def test_bias_on_hostile_rows(model_file, tmp_path, capsys):
    """bias reads texts only: bad texts and duplicates are skipped, rows with bad labels are texts like the others."""
    from conftest import write_tiny_mlm
    from textattack_secondorder.cli import main

    mlm = write_tiny_mlm(tmp_path / "mlm", TINY_BERT_VOCAB)
    out = tmp_path / "bias"
    assert (
        main(
            [
                "bias",
                "--model",
                str(model_file),
                "--dataset",
                str(HOSTILE),
                "--pairs",
                "film/movie,good/great",
                "--masked-lm",
                str(mlm),
                "--max-k",
                "1",
                "--bootstrap",
                "50",
                "--out",
                str(out),
            ]
        )
        == 0
    )
    rows = _hostile()
    skipped = pd.read_csv(out / "skipped_rows.csv", keep_default_na=False)
    assert (skipped["skip_reason"].str.len() > 0).all()
    assert sorted(rows.loc[skipped["row"], "case"]) == sorted(
        ["empty", "whitespace", "punctuation", "emoji_only", "control", "duplicate", "duplicate"]
    )
    good = [i for i in rows.index if i not in set(skipped["row"])]
    sentences = pd.read_csv(out / "bias_sentences.csv", keep_default_na=False)
    sources = set(sentences.loc[sentences["k"] == 0, "source"])
    # every good row is measured, but the 600-word one: its pair words occur more than once (the method's rule)
    assert sources == {j for j, i in enumerate(good) if rows.loc[i, "case"] != "long"}
    assert (out / "bias_table.csv").is_file()
    assert "skipping 7 of 18 rows" in capsys.readouterr().out


@pytest.mark.parametrize("mode", ["random", "mix"])
def test_sp_augment_on_hostile_rows(tmp_path, mode):
    """Each bad row is written once, unchanged, with its reason; each good row as original + augmentation."""
    from textattack_secondorder.cli import main

    args = ["sp-augment", "--input-csv", str(HOSTILE), "--output-csv", str(tmp_path / "aug.csv"), "--mode", mode]
    if mode == "mix":  # gradient and special-word augmentation: a model, whose classes bound the labels
        model = tmp_path / "tiny_bert.py"
        model.write_text(tiny_bert_source(TINY_BERT_VOCAB), encoding="utf-8")
        args += ["--model", str(model)]
    assert main(args) == 0
    rows = _hostile()
    out = pd.read_csv(tmp_path / "aug.csv", keep_default_na=False, dtype=str)
    bad = out[out["skip_reason"] != ""]
    assert len(bad) >= 8 and (bad["augmentation"] == "original").all()
    # without a model the classes are unknown: label 7 is a class number like any other
    out_of_range = {"label_out_of_range"} if mode == "mix" else set()
    assert (
        set(bad["case"])
        == {
            "empty",
            "whitespace",
            "punctuation",
            "emoji_only",
            "control",
            "label_negative",
            "label_not_a_number",
            "label_missing",
            "duplicate",
        }
        | out_of_range
    )
    for case in GOOD_CASES | {"long", "unicode", "markup"} | ({"label_out_of_range"} - out_of_range):
        got = out[out["case"] == case]
        assert list(got["augmentation"])[0] == "original" and len(got) == 2 and (got["skip_reason"] == "").all(), case
    assert len(out) == len(rows) + (len(rows) - len(bad))
    skipped_text = bad.set_index("case")["text"].to_dict()
    assert skipped_text["control"] == rows.set_index("case").loc["control", "text"]  # kept as it was


def test_defend_on_hostile_rows(tmp_path):
    from textattack_secondorder.cli import main

    model = tmp_path / "tiny_bert.py"
    model.write_text(tiny_bert_source(TINY_BERT_VOCAB), encoding="utf-8")
    out = tmp_path / "defended"
    assert (
        main(
            [
                "defend",
                "--model",
                str(model),
                "--dataset",
                str(HOSTILE),
                "--steps",
                "2",
                "--batch-size",
                "4",
                "--holdout-share",
                "0",  # every row is a training row: each hostile one is screened here
                "--out",
                str(out),
            ]
        )
        == 0
    )
    skipped = _check_skipped(out / "skipped_rows.csv")
    info = json.loads((out / "defense.json").read_text())
    assert info["rows skipped for bad input"] == len(skipped) == 11
    assert info["training examples"] == len(_hostile()) - len(skipped)
    assert (out / "config.json").is_file()


def test_meaning_on_a_log_of_the_hostile_rows(tmp_path, capsys):
    """A TextAttack CSV log of the hostile rows: bad rows listed with their reason, every good row judged."""
    from test_hostile_input import BAD, attack_rows, build, hostile_rows
    from textattack_secondorder.cli import main

    rows = hostile_rows()
    log = tmp_path / "log.csv"
    attack_rows(build("textfooler-offline"), rows, str(log))
    out = tmp_path / "meaning.csv"
    assert main(["meaning", "--log", str(log), "--include-failed", "--include-skipped", "-o", str(out)]) == 0
    judged = pd.read_csv(out, keep_default_na=False)
    cases = [c for _, _, c in rows]
    bad_rows = {i for i, c in enumerate(cases) if c in BAD}
    listed = judged[judged["skip_reason"] != ""] if "skip_reason" in judged else judged.iloc[:0]
    assert set(listed["index"]) == bad_rows and (listed["skip_reason"].str.len() > 0).all()
    scored = judged[judged["skip_reason"] == ""]
    assert set(scored["index"]) == set(range(len(rows))) - bad_rows
    assert scored["source_chrf"].astype(float).between(0, 1).all()
    summary = json.loads(out.with_suffix(".summary.json").read_text())
    assert summary["rows skipped for bad input"] == len(bad_rows)
    assert "rows skipped for bad input" in capsys.readouterr().out


def test_meaning_on_hostile_seq2seq_lines(tmp_path):
    """Five line files holding the hostile texts: a line pair that cannot be scored is listed with its reason."""
    from textattack_secondorder.cli import main

    texts = [t.replace("\n", " ") for t in _hostile()["text"]]
    files = {}
    for name, lines in (
        ("src", texts),
        ("adv", [t + " !" if t.strip() else t for t in texts]),
        ("oo", texts),
        ("oa", texts[::-1]),
        ("ref", texts),
    ):
        files[name] = tmp_path / f"{name}.txt"
        files[name].write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    out = tmp_path / "meaning.csv"
    assert (
        main(
            [
                "meaning",
                "--src",
                str(files["src"]),
                "--adv",
                str(files["adv"]),
                "--out-orig",
                str(files["oo"]),
                "--out-adv",
                str(files["oa"]),
                "--ref",
                str(files["ref"]),
                "-o",
                str(out),
            ]
        )
        == 0
    )
    judged = pd.read_csv(out, keep_default_na=False)
    assert len(judged) == len(texts)
    reasons = dict(zip(judged["index"], judged["skip_reason"]))
    cases = list(_hostile()["case"])
    for i, case in enumerate(cases):
        if case in ("empty", "whitespace", "punctuation", "emoji_only", "control"):
            assert reasons[i], case
        elif case in GOOD_CASES:
            assert not reasons[i], (case, reasons[i])


def test_stock_textattack_augment_sp_defense_on_hostile_rows(tmp_path, capfd, caplog):
    """`textattack augment --recipe sp-defense`: exit 0, bad texts left as they are with a warning naming the reason."""
    from conftest import stock_textattack

    out = tmp_path / "aug.csv"
    code, _, err = stock_textattack(
        capfd,
        "augment",
        "--input-csv",
        HOSTILE,
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
    for reason in ("empty text", "whitespace-only text", "no words", "control character"):
        assert reason in err + caplog.text, reason  # a log warning (pytest keeps log records off stderr)
    # our recipe's CSV is read and written losslessly (TextAttack's own writer deletes every "/" and turns the
    # empty text into a lone quote that swallows the next row): every row comes back, texts as they were
    rows = pd.read_csv(out, keep_default_na=False, dtype=str)
    assert list(rows.columns) == ["text", "label", "case"]
    originals = rows.drop_duplicates("case", keep="first")
    assert (
        originals[["text", "label", "case"]].values.tolist()
        == _hostile().astype(str).drop_duplicates("case", keep="first")[["text", "label", "case"]].values.tolist()
    )
    by_case = {}
    for text, case in zip(rows["text"], rows["case"]):
        by_case.setdefault(case, []).append(text)
    for case in ("empty", "whitespace", "punctuation", "emoji_only", "control"):
        assert len(by_case[case]) == 1, case  # the original only
    for case in GOOD_CASES:
        assert len(by_case[case]) == 2 and {"splendid", "dreary"} & set(re.findall(r"\w+", by_case[case][1])), case


PURPOSE = {"flip-capability": "flip capability κ/ρ", "defend": "SP-Defense training"}


@pytest.mark.parametrize("command", ["flip-capability", "defend"])
def test_model_without_gradient_access_is_one_line_error(model_file, tmp_path, capsys, command):
    """A prediction-only wrapper (no embeddings, no tokenizer): one line naming the model and the need, exit code 2."""
    from textattack_secondorder.cli import main

    assert main([command, "--model", str(model_file), "--dataset", str(HOSTILE), "--out", str(tmp_path / "out")]) == 2
    # (in-process, TextAttack's logger may also print into an earlier test's closed capture: last line only)
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert err == (
        f"textattack-so {command}: error: model '{model_file}' (KeywordModel) has no PyTorch `model` and "
        f"no Hugging Face `tokenizer`: {PURPOSE[command]} needs gradients through the input embeddings (a "
        "transformers classifier, a saved model folder or one of this package's victims such as mr-cnn; "
        "a prediction-only wrapper cannot be used)"
    ), err
    assert not (tmp_path / "out").exists()
