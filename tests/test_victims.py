"""Victim models: tiny word models trained here on synthetic sentences (no GloVe, no MR download)."""

import json

import numpy as np
import pytest
import torch

from textattack_secondorder.models import training, victims
from textattack_secondorder.models.catalogue import VICTIMS
from textattack_secondorder.models.word_models import (
    ARCHITECTURES,
    build_word_model,
    build_word_tokenizer,
    pretokenize,
    register_auto_classes,
)

POSITIVE = ["good", "great", "fine", "lovely"]
NEGATIVE = ["bad", "awful", "dull", "boring"]
FILLER = ["the", "film", "movie", "is", "was", "a", "plot", "acting", ".", ",", "really"]


def _fake_glove(dim=8, seed=0):
    rng = np.random.default_rng(seed)
    words = FILLER + POSITIVE + NEGATIVE + ["unseen", "'s", "n't", "does"]
    vectors = rng.normal(scale=0.3, size=(len(words), dim)).astype("float32")
    for w in POSITIVE:
        vectors[words.index(w), 0] += 1.0
    for w in NEGATIVE:
        vectors[words.index(w), 0] -= 1.0
    return words, vectors


def _synthetic(n=60, seed=0):
    rng = np.random.default_rng(seed)
    data = []
    for i in range(n):
        label = i % 2
        cue = rng.choice(POSITIVE if label else NEGATIVE)
        filler = list(rng.choice(FILLER, size=int(rng.integers(2, 7))))
        words = filler[:]
        words.insert(int(rng.integers(0, len(words) + 1)), str(cue))
        data.append((" ".join(words), label))
    return data


@pytest.fixture(scope="module")
def tiny_cnn():
    data = _synthetic()
    model, tok, metrics = training.train_word_model(
        "cnn",
        data[:48],
        data[48:],
        glove=_fake_glove(),
        epochs=10,
        batch_size=8,
        lr=1e-2,
        dev_fraction=0,
        progress=False,
    )
    return model, tok, metrics


def test_tokenizer_splits_like_glove_and_round_trips(tmp_path):
    from transformers import AutoTokenizer

    tok = build_word_tokenizer(["the", "film", "'s", "does", "n't", "work", "."])
    text = "The FILM's plot doesn't  work."
    ids = tok(text)["input_ids"]
    assert tok.convert_ids_to_tokens(ids) == ["the", "film", "'s", "[UNK]", "does", "n't", "work", "."]
    assert pretokenize(text) == ["the", "film", "'s", "plot", "does", "n't", "work", "."]
    assert "token_type_ids" not in tok(text)
    tok.save_pretrained(tmp_path)
    again = AutoTokenizer.from_pretrained(str(tmp_path))
    assert again(text)["input_ids"] == ids
    assert again.model_max_length == 64
    assert again.decode(ids) == "the film 's [UNK] does n't work ."


def test_tiny_cnn_learns_and_reloads_through_auto_classes(tiny_cnn, tmp_path):
    from transformers import AutoConfig, AutoModelForSequenceClassification, AutoTokenizer

    model, tok, metrics = tiny_cnn
    assert metrics["test_accuracy"] >= 0.75  # the cue word decides the label
    model.save_pretrained(str(tmp_path), safe_serialization=True)
    tok.save_pretrained(str(tmp_path))
    assert (tmp_path / "model.safetensors").exists() and not list(tmp_path.glob("*.bin"))
    register_auto_classes()
    register_auto_classes()  # idempotent
    assert AutoConfig.from_pretrained(str(tmp_path)).model_type == "so-word-cnn"
    loaded = AutoModelForSequenceClassification.from_pretrained(str(tmp_path)).eval()
    tok2 = AutoTokenizer.from_pretrained(str(tmp_path))
    texts = ["the film is good .", "a dull , boring movie", "unseen words only zzz"]
    a = training.predict_logits(model, tok, texts)
    b = training.predict_logits(loaded, tok2, texts)
    assert torch.equal(a, b)
    assert not loaded.get_input_embeddings().weight.requires_grad  # frozen GloVe stays frozen


@pytest.mark.parametrize("arch", sorted(ARCHITECTURES))
def test_padding_does_not_change_logits(arch):
    torch.manual_seed(0)
    words, vectors = _fake_glove()
    vocab = words
    tok = build_word_tokenizer(vocab)
    mat = np.concatenate([np.zeros((2, vectors.shape[1]), "float32"), vectors])
    model = build_word_model(arch, mat.shape[0], mat).eval()
    texts = ["good", "the film is really awful , the plot was dull", "a fine movie", ""]
    batch = training.predict_logits(model, tok, texts)
    single = torch.cat([training.predict_logits(model, tok, [t]) for t in texts])
    assert batch.shape == (4, 2)
    assert torch.allclose(batch, single, atol=1e-5)
    assert torch.isfinite(batch).all()


def test_so_model_wrapper_pads_dynamically(tiny_cnn):
    from textattack_secondorder.models.wrappers import SOModelWrapper

    model, tok, _ = tiny_cnn
    wrapper = SOModelWrapper(model, tok, device="cpu", batch_size=2)
    texts = ["good", "the film is really awful , the plot was dull", "a fine movie"]
    enc = wrapper.encode(texts)
    assert enc["input_ids"].shape == (3, len(pretokenize(texts[1])))  # longest input, not 64
    out = wrapper(texts)
    assert isinstance(out, torch.Tensor) and out.shape == (3, 2)
    single = torch.cat([wrapper([t]) for t in texts])
    assert torch.allclose(out, single, atol=1e-5)
    assert torch.allclose(wrapper([(t,) for t in texts]), out)  # TextAttack's 1-tuples
    long_text = " ".join(["good"] * 200)
    assert wrapper.encode([long_text])["input_ids"].shape[1] == 64  # truncated at model max length
    grad = wrapper.get_grad("the film is good")
    assert grad["gradient"].shape == (4, model.config.embedding_dim)
    assert np.abs(grad["gradient"]).sum() > 0
    assert not model.training
    assert not model.get_input_embeddings().weight.requires_grad


def test_stock_textattack_wrapper_loads_victim_dir(tiny_cnn, tmp_path):
    textattack = pytest.importorskip("textattack")
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    model, tok, _ = tiny_cnn
    model.save_pretrained(str(tmp_path))
    tok.save_pretrained(str(tmp_path))
    register_auto_classes()
    wrapper = textattack.models.wrappers.HuggingFaceModelWrapper(
        AutoModelForSequenceClassification.from_pretrained(str(tmp_path)),
        AutoTokenizer.from_pretrained(str(tmp_path)),
    )
    out = wrapper(["a fine film"])
    assert tuple(out.shape) == (1, 2)


def test_train_victim_saves_atomically_and_load_victim(tmp_path, monkeypatch):
    monkeypatch.setenv("TA_SO_CACHE_DIR", str(tmp_path))
    data = _synthetic(40)
    metrics = victims.train_victim("mr-bow", data=(data[:32], data[32:]), glove=_fake_glove(), epochs=2, progress=False)
    d = victims.victim_path("mr-bow")
    assert metrics["directory"] == str(d)
    assert {"config.json", "metrics.json", "model.safetensors", "tokenizer.json"} <= {p.name for p in d.iterdir()}
    stored = json.loads((d / "metrics.json").read_text())
    assert stored["test_accuracy"] == metrics["test_accuracy"] and stored["train_seconds"] > 0
    assert not [p for p in tmp_path.joinpath("victims").iterdir() if p.name.startswith(".")]  # no temp dirs left
    # cached: no retraining
    assert victims.train_victim("mr-bow", data=(data[:1], data[:1]))["test_accuracy"] == metrics["test_accuracy"]
    wrapper = victims.load_victim("mr-bow", device="cpu", train_if_missing=False)
    assert tuple(wrapper(["good film", "bad"]).shape) == (2, 2)
    with pytest.raises(FileNotFoundError, match="train-victims"):
        victims.victim_dir("mr-cnn", train_if_missing=False)


def test_unknown_victim_name_lists_valid_ones():
    with pytest.raises(victims.UnknownVictimError, match="mr-cnn, mr-lstm, mr-bow, mr-minilm"):
        victims.load_victim("mr-transformer")
    with pytest.raises(ValueError):
        victims.train_victim("sst-cnn")


def test_cli_rejects_unknown_victim(capsys):
    from textattack_secondorder.cli import main

    assert main(["train-victims", "--names", "nope"]) == 2
    assert "valid names" in capsys.readouterr().err


def test_certified_victim_trained_with_another_schedule_is_stale(tmp_path, monkeypatch, caplog):
    """A cached -ibp victim whose metrics.json names another IBP schedule than the catalogue's is trained
    again (an upgrade that changes the schedule must not leave the old victim behind the docs' figures)."""
    monkeypatch.setenv("TA_SO_CACHE_DIR", str(tmp_path))
    d = victims.victim_path("mr-bow-ibp")
    d.mkdir(parents=True)
    (d / "config.json").write_text("{}")
    schedule = dict(VICTIMS["mr-bow-ibp"].train_kwargs["ibp"])
    (d / "metrics.json").write_text(json.dumps({"ibp": {**schedule, "synonyms": "x.json"}}))
    assert victims.stale_reason("mr-bow-ibp") is None and victims.is_trained("mr-bow-ibp")
    # another optimiser weight decay than the catalogue's (none given: 0) is another victim too
    wd = VICTIMS["mr-bow-ibp"].train_kwargs.get("weight_decay", 0.0)
    (d / "metrics.json").write_text(json.dumps({"ibp": schedule, "weight_decay": wd + 1e-4}))
    assert "weight_decay" in victims.stale_reason("mr-bow-ibp")
    (d / "metrics.json").write_text(json.dumps({"ibp": {**schedule, "eps": schedule["eps"] + 0.5}}))
    assert "eps" in victims.stale_reason("mr-bow-ibp")
    assert not victims.is_trained("mr-bow-ibp")

    class Stop(Exception):
        pass

    def stop(spec, data):
        raise Stop

    # the retraining says why, once, before it starts (the data loading is where this test stops it)
    monkeypatch.setattr(victims, "_load_data", stop)
    with pytest.raises(Stop):
        victims.train_victim("mr-bow-ibp")
    assert caplog.text.count("training it again") == 1 and "eps" in caplog.text
    # a base victim records no schedule and is never stale
    b = victims.victim_path("mr-bow")
    b.mkdir(parents=True)
    (b / "config.json").write_text("{}")
    (b / "metrics.json").write_text("{}")
    assert victims.is_trained("mr-bow")
