"""The long commands on the hostile-input corpus (tests/data/hostile.csv): exit 0, bad rows skipped with a reason.

In-process ``textattack_secondorder.cli.main`` on a keyword victim (no training, no network).
"""
import json
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
TINY_BERT_VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "the", "a", "film", "is", "good", "bad", "and", "cast",
                   "fine"]


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
    assert main(["flip-capability", "--model", str(model_file), "--dataset", str(HOSTILE), "--vocab-limit", "40",
                 "--out", str(out)]) == 0
    assert out.is_file() and json.loads(out.read_text())
    _check_skipped(out.with_suffix(".skipped.csv"))
    assert "skipping" in capsys.readouterr().out


def test_robustness_on_hostile_rows(model_file, tmp_path, capsys):
    from textattack_secondorder.cli import main

    syn = tmp_path / "syn.json"
    syn.write_text(json.dumps({"good": ["fine"], "film": ["movie"], "cast": ["actors"]}), encoding="utf-8")
    out = tmp_path / "report"
    assert main(["robustness", "--model", str(model_file), "--dataset", str(HOSTILE), "--levels", "char,word",
                 "--synonyms", str(syn), "--out", str(out)]) == 0
    assert (out / "robustness.json").is_file()
    _check_skipped(out / "skipped_rows.csv")


PURPOSE = {"flip-capability": "flip capability κ/ρ", "defend": "SP-Defense training"}


@pytest.mark.parametrize("command", ["flip-capability", "defend"])
def test_model_without_gradient_access_is_one_line_error(model_file, tmp_path, capsys, command):
    """A prediction-only wrapper (no embeddings, no tokenizer): one line naming the model and the need, exit code 2."""
    from textattack_secondorder.cli import main

    assert main([command, "--model", str(model_file), "--dataset", str(HOSTILE), "--out", str(tmp_path / "out")]) == 2
    # (in-process, TextAttack's logger may also print into an earlier test's closed capture: last line only)
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert err == (f"textattack-so {command}: error: model '{model_file}' (KeywordModel) has no PyTorch `model` and "
                   f"no Hugging Face `tokenizer`: {PURPOSE[command]} needs gradients through the input embeddings (a "
                   "transformers classifier, a saved model folder or one of this package's victims such as mr-cnn; "
                   "a prediction-only wrapper cannot be used)"), err
    assert not (tmp_path / "out").exists()
