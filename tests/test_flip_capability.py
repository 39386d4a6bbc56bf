"""κ and ρ (Xu et al.): EUBA with unbounded early stop equals brute force; ρ = 1 − mean κ."""

import json

import numpy as np
import pytest
import torch
from transformers import BertConfig, BertForSequenceClassification

from conftest import bert_tokenizer
from textattack_secondorder.evaluation.flip_capability import (
    FlipCapability,
    FlipCapabilityResult,
    TokenClassifier,
    compute_flip_capability,
)

WORDS = [
    "good",
    "bad",
    "film",
    "movie",
    "plot",
    "great",
    "dull",
    "fine",
    "awful",
    "story",
    "actor",
    "scene",
    "script",
    "fun",
    "boring",
    "nice",
    "poor",
    "rich",
    "warm",
    "cold",
]


class Wrapper:
    def __init__(self, model, tokenizer):
        self.model, self.tokenizer = model, tokenizer


@pytest.fixture(scope="module")
def tiny_bert():
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "##s", "42", ",", "the", "a"] + WORDS
    tok = bert_tokenizer(vocab)
    torch.manual_seed(0)
    cfg = BertConfig(
        vocab_size=len(vocab),
        hidden_size=32,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=64,
        num_labels=2,
        initializer_range=0.5,
    )
    model = BertForSequenceClassification(cfg).eval()  # wide init: predictions depend on the words
    return Wrapper(model, tok)


def examples_for(wrapper, n=12, seed=0):
    rng = np.random.default_rng(seed)
    texts = [" ".join(rng.choice(["the", "a"] + WORDS, size=rng.integers(3, 7))) for _ in range(n)]
    clf = TokenClassifier.from_model_wrapper(wrapper)
    preds = clf.predict_texts(texts).argmax(1)
    # half labelled as predicted (in D+), a few flipped (not in D+)
    return [(t, int(p) if i % 4 else 1 - int(p)) for i, (t, p) in enumerate(zip(texts, preds))]


def test_vocabulary_is_letters_only_single_tokens(tiny_bert):
    ids, words = TokenClassifier.from_model_wrapper(tiny_bert).vocabulary()
    assert set(words) == set(WORDS) | {"the", "a"}
    assert not any(w.startswith("##") or w in ("42", ",", "[MASK]") for w in words)


def test_euba_unbounded_equals_brute_force(tiny_bert):
    ex = examples_for(tiny_bert)
    euba = compute_flip_capability(tiny_bert, ex, method="euba", m=None, progress=False)
    brute = compute_flip_capability(tiny_bert, ex, method="brute", progress=False)
    assert euba.metric.num_correct == brute.metric.num_correct == sum(1 for i in range(len(ex)) if i % 4)
    np.testing.assert_array_equal(euba.metric.counts, brute.metric.counts)
    assert euba.rho == pytest.approx(brute.rho)
    assert brute.metric.counts.sum() > 0  # the random model does get flipped


def test_euba_with_small_m_is_a_lower_bound_with_fewer_queries(tiny_bert):
    ex = examples_for(tiny_bert, n=16, seed=1)
    euba = compute_flip_capability(tiny_bert, ex, method="euba", m=4, progress=False)
    brute = compute_flip_capability(tiny_bert, ex, method="brute", progress=False)
    assert np.all(euba.metric.counts <= brute.metric.counts)
    assert euba.rho >= brute.rho - 1e-12
    assert euba.metric.queries < brute.metric.queries


def test_rho_is_one_minus_mean_kappa_and_denominator_is_d_plus():
    fc = FlipCapability(["a", "b", "c", "d"], 2)
    fc.update([0, 1], 0).update([1], 1).update([], 1)
    fc.num_examples = 5  # two misclassified examples do not count
    assert fc.kappa.tolist() == pytest.approx([1 / 3, 2 / 3, 0, 0])
    assert fc.rho == pytest.approx(1 - np.mean([1 / 3, 2 / 3, 0, 0]))


def test_shards_merge_and_results_round_trip(tiny_bert, tmp_path):
    ex = examples_for(tiny_bert, n=12, seed=2)
    whole = compute_flip_capability(tiny_bert, ex, method="brute", progress=False)
    a = compute_flip_capability(tiny_bert, ex[:6], method="brute", progress=False)
    b = compute_flip_capability(tiny_bert, ex[6:], method="brute", progress=False)
    a.metric.merge(b.metric)
    np.testing.assert_array_equal(a.metric.counts, whole.metric.counts)
    path = whole.save(tmp_path / "kappa.json")
    again = FlipCapabilityResult.load(path)
    assert again.kappa == pytest.approx(whole.kappa) and again.rho == pytest.approx(whole.rho)
    csv = (tmp_path / "kappa.csv").read_text().splitlines()
    assert csv[0].startswith("word,kappa,flips_class_0,flips_class_1")
    assert json.loads(path.read_text())["settings"]["method"] == "brute"
    whole.plot_histogram(tmp_path / "hist.png")
    assert (tmp_path / "hist.png").stat().st_size > 0


def test_interrupted_run_resumes_from_checkpoint(tiny_bert, tmp_path):
    ex = examples_for(tiny_bert, n=10, seed=3)
    full = compute_flip_capability(tiny_bert, ex, method="euba", m=8, progress=False)
    ckpt = tmp_path / "ckpt.json"
    # a run that stopped after 4 examples
    partial = compute_flip_capability(tiny_bert, ex[:4], method="euba", m=8, progress=False)
    from textattack_secondorder.evaluation.flip_capability.computation import _digest

    key = dict(method="euba", m=8, vocabulary=len(partial.metric.words), examples=len(ex), examples_digest=_digest(ex))
    ckpt.write_text(json.dumps({"key": key, "state": partial.metric.state(), "next": 4}))
    resumed = compute_flip_capability(tiny_bert, ex, method="euba", m=8, progress=False, checkpoint=ckpt)
    np.testing.assert_array_equal(resumed.metric.counts, full.metric.counts)


def test_checkpoint_of_other_settings_blocks_only_while_unfinished(tiny_bert, tmp_path):
    """An interrupted run with other settings is not mixed in (error); a finished one is just overwritten."""
    from textattack_secondorder.evaluation.flip_capability.computation import CheckpointMismatch

    ex = examples_for(tiny_bert, n=6, seed=4)
    ckpt = tmp_path / "kappa.partial.json"
    compute_flip_capability(tiny_bert, ex, method="euba", m=8, progress=False, checkpoint=ckpt)  # finished, m=8
    fresh = compute_flip_capability(tiny_bert, ex, method="euba", m=2, progress=False)
    again = compute_flip_capability(tiny_bert, ex, method="euba", m=2, progress=False, checkpoint=ckpt)
    np.testing.assert_array_equal(again.metric.counts, fresh.metric.counts)
    saved = json.loads(ckpt.read_text())
    saved["next"] = 3  # now an unfinished run with m=2, asked again with m=8
    ckpt.write_text(json.dumps(saved))
    with pytest.raises(CheckpointMismatch, match="other settings"):
        compute_flip_capability(tiny_bert, ex, method="euba", m=8, progress=False, checkpoint=ckpt)


def test_word_level_model_through_the_same_interface():
    from textattack_secondorder.models.word_models import build_word_model, build_word_tokenizer

    tok = build_word_tokenizer(WORDS + ["the", "a"])
    torch.manual_seed(0)
    model = build_word_model(
        "cnn", vocab_size=len(tok.get_vocab()), vectors=torch.randn(len(tok.get_vocab()), 8), embedding_dim=8
    ).eval()
    w = Wrapper(model, tok)
    ex = examples_for(w, n=10, seed=4)
    euba = compute_flip_capability(w, ex, method="euba", m=None, progress=False)
    brute = compute_flip_capability(w, ex, method="brute", progress=False)
    np.testing.assert_array_equal(euba.metric.counts, brute.metric.counts)
