"""SP-Attack's κ is computed once per (model, κ data, settings) and reused; κ data must fit the model."""

import pandas as pd
import pytest
import textattack
import torch
from transformers import BertConfig, BertForSequenceClassification

from conftest import bert_tokenizer, stock_textattack

torch.set_num_threads(1)
WORDS = ["good", "bad", "film", "movie", "plot", "great", "dull", "fine", "awful", "story", "fun", "boring"]


def tiny_bert(tmp_path, num_labels=2, seed=0):
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "the", "a"] + WORDS
    tok = bert_tokenizer(vocab)
    torch.manual_seed(seed)
    cfg = BertConfig(
        vocab_size=len(vocab),
        hidden_size=16,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=32,
        max_position_embeddings=512,
        num_labels=num_labels,
        initializer_range=0.5,
    )
    return textattack.models.wrappers.HuggingFaceModelWrapper(BertForSequenceClassification(cfg).eval(), tok)


def kappa_csv(path, n=12, labels=(0, 1)):
    rows = [(" ".join(WORDS[(i + j) % len(WORDS)] for j in range(4)), labels[i % len(labels)]) for i in range(n)]
    pd.DataFrame(rows, columns=["text", "label"]).to_csv(path, index=False)
    return str(path)


@pytest.fixture
def counted(monkeypatch, tmp_path):
    """Cache in a fresh folder; counts the κ shards computed (not reused)."""
    from textattack_secondorder.evaluation.flip_capability.sharded import KappaTask

    monkeypatch.setenv("TA_SO_CACHE_DIR", str(tmp_path / "cache"))
    calls = []
    real = KappaTask.run

    def counting(self, *a, **k):
        calls.append(1)
        return real(self, *a, **k)

    monkeypatch.setattr(KappaTask, "run", counting)
    return calls


def build(model, data, **p):
    from textattack_secondorder.attack_recipes import SPAttack

    return SPAttack.build(
        model,
        kappa_dataset=data,
        kappa_examples=12,
        kappa_m=4,
        top_m=3,
        sentence_encoder=object(),
        causal_lm=object(),
        **p,
    )


def test_second_build_reuses_the_cached_kappa(tmp_path, counted, caplog):
    model = tiny_bert(tmp_path)
    data = kappa_csv(tmp_path / "k.csv")
    first = build(model, data)
    assert len(counted) == 1
    # the cache is the κ shard store: one finished shard, no progress left over
    files = list((tmp_path / "cache" / "kappa").iterdir())
    assert len(files) == 1 and files[0].suffixes == [".pkl"]
    with caplog.at_level("INFO"):
        second = build(model, data)
    assert len(counted) == 1, "the second build must not run EUBA again"
    assert any("reusing cached κ" in r.getMessage() and files[0].name in r.getMessage() for r in caplog.records)
    assert first.transformation.words == second.transformation.words


def test_key_changes_with_model_data_and_settings(tmp_path):
    from textattack_secondorder.evaluation.flip_capability.cache import cache_key
    from textattack_secondorder.models.fingerprint import model_fingerprint

    model = tiny_bert(tmp_path)
    ex = [("good film", 1), ("dull plot", 0)]
    s = {"method": "euba", "m": 4, "vocab_limit": None}
    key = cache_key(model, ex, s)
    assert cache_key(model, list(ex), dict(s)) == key
    assert model_fingerprint(tiny_bert(tmp_path)) == model_fingerprint(model)  # same seed, same weights
    assert cache_key(tiny_bert(tmp_path, seed=1), ex, s) != key
    with torch.no_grad():
        model.model.classifier.bias[0] += 1e-3
    assert cache_key(model, ex, s) != key
    with torch.no_grad():
        model.model.classifier.bias[0] -= 1e-3
    assert cache_key(model, ex[:1], s) != key
    assert cache_key(model, [("good film", 0), ("dull plot", 0)], s) != key
    assert cache_key(model, ex, dict(s, m=8)) != key


def test_four_class_model_with_mr_kappa_data_is_refused(tmp_path, counted):
    from textattack_secondorder.attack_recipes.recipe import RecipeParameterError

    with pytest.raises(RecipeParameterError) as e:
        build(tiny_bert(tmp_path, num_labels=4), "mr")
    msg = str(e.value)
    assert "4 outputs" in msg and "kappa_dataset=" in msg and "kappa=" in msg and "\n" not in msg
    assert not counted


def test_labels_the_model_cannot_have_are_refused(tmp_path, counted):
    from textattack_secondorder.attack_recipes.recipe import RecipeParameterError

    data = kappa_csv(tmp_path / "k.csv", labels=(0, 1, 2, 3))
    with pytest.raises(RecipeParameterError, match=r"label\(s\) \[2, 3\].*2 outputs.*kappa_dataset="):
        build(tiny_bert(tmp_path), data)
    assert not counted
    build(tiny_bert(tmp_path, num_labels=4), data)  # the same data fits a 4-class model
    assert len(counted) == 1


def test_stock_cli_four_class_model_on_mr_exits_2_without_traceback(tmp_path, capfd):
    (tmp_path / "model.py").write_text(
        "import numpy as np, textattack\n"
        "class M(textattack.models.wrappers.ModelWrapper):\n"
        "    model = None\n"
        "    def __call__(self, t):\n"
        "        return np.array([[0.25] * 4] * len(t))\n"
        "model = M()\n"
    )
    (tmp_path / "data.py").write_text(
        "import textattack\ndataset = textattack.datasets.Dataset([('a good film', 1)])\n"
    )
    code, _, err = stock_textattack(
        capfd,
        "attack",
        "--recipe",
        "sp-attack^kappa_dataset='mr'",  # named: a model with no record of its data gets no default (test_fluency_rule)
        "--model-from-file",
        tmp_path / "model.py",
        "--dataset-from-file",
        f"{tmp_path / 'data.py'}^dataset",
        "--num-examples",
        "1",
    )
    assert code == 2, err[-2000:]
    assert "4 outputs" in err and "kappa_dataset=" in err and "Traceback" not in err


def test_kappa_data_labelled_with_the_models_names(tmp_path, counted):
    """Labels written as the model's id2label names are its class numbers (the same κ as numbers give); a name
    the model does not have is refused in one line that lists its names."""
    from textattack_secondorder.attack_recipes.recipe import RecipeParameterError

    model = tiny_bert(tmp_path)
    model.model.config.id2label = {0: "negative", 1: "positive"}
    by_number = build(model, kappa_csv(tmp_path / "numbers.csv"))
    by_name = build(model, kappa_csv(tmp_path / "names.csv", labels=("Negative", "POSITIVE")))
    assert len(counted) == 1  # the same examples once the names are numbers: the cached κ is reused
    assert by_name.transformation.words == by_number.transformation.words
    with pytest.raises(RecipeParameterError, match=r"'great' is neither one of the model's label names \(negative"):
        build(model, kappa_csv(tmp_path / "bad.csv", labels=("negative", "great")))
