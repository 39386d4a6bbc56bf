"""κ and ρ (Xu et al.): EUBA with unbounded early stop equals brute force; ρ = 1 − mean κ."""

import json

import numpy as np
import pytest
import torch
from transformers import BertConfig, BertForSequenceClassification

from conftest import bert_tokenizer
from textattack_secondorder.distributed import ClusterOptions
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


class Interrupt(Exception):
    pass


def interrupted(monkeypatch, after):
    """Make κ stop (as a killed run would) after ``after`` sentences of D+; returns the list of sentences counted."""
    from textattack_secondorder.evaluation.flip_capability.computation import KappaSetup

    real, counted = KappaSetup._count_one, []

    def count_one(self, metric, text, *args):
        if after is not None and len(counted) >= after:
            raise Interrupt
        counted.append(text)
        return real(self, metric, text, *args)

    monkeypatch.setattr(KappaSetup, "_count_one", count_one)
    return counted


def test_interrupted_run_resumes_from_its_progress(tiny_bert, tmp_path, monkeypatch):
    """The default run is one shard that saves its progress: a re-run continues it, never from zero."""
    ex = examples_for(tiny_bert, n=10, seed=3)
    full = compute_flip_capability(tiny_bert, ex, method="euba", m=8, progress=False)
    folder = tmp_path / "kappa.shards"
    with monkeypatch.context() as mp:
        first = interrupted(mp, after=4)
        with pytest.raises(Interrupt):
            compute_flip_capability(
                tiny_bert, ex, method="euba", m=8, progress=False, folder=folder, checkpoint_seconds=0
            )
    assert len(list(folder.glob("*.progress.pkl"))) == 1 and not list(folder.glob("*[0-9a-f].pkl"))
    rest = interrupted(monkeypatch, after=None)
    resumed = compute_flip_capability(tiny_bert, ex, method="euba", m=8, progress=False, folder=folder)
    np.testing.assert_array_equal(resumed.metric.counts, full.metric.counts)
    assert resumed.metric.num_correct == full.metric.num_correct == len(first) + len(rest)
    assert resumed.metric.num_examples == full.metric.num_examples == len(ex) and resumed.stats.continued == 1
    assert not list(folder.glob("*.progress.pkl")) and len(list(folder.glob("*[0-9a-f].pkl"))) == 1
    # finished: a re-run computes nothing
    again = compute_flip_capability(tiny_bert, ex, method="euba", m=8, progress=False, folder=folder)
    assert (again.stats.computed, again.stats.reused) == (0, 1) and len(rest) == full.metric.num_correct - 4


def test_other_settings_block_only_while_a_run_is_unfinished(tiny_bert, tmp_path, monkeypatch):
    """An interrupted run with other settings is never mixed in (error); a finished one does not block."""
    from textattack_secondorder.distributed import CheckpointMismatch

    ex = examples_for(tiny_bert, n=6, seed=4)
    folder = tmp_path / "kappa.shards"
    compute_flip_capability(tiny_bert, ex, method="euba", m=8, progress=False, folder=folder)  # finished, m=8
    fresh = compute_flip_capability(tiny_bert, ex, method="euba", m=2, progress=False)
    again = compute_flip_capability(tiny_bert, ex, method="euba", m=2, progress=False, folder=folder)
    np.testing.assert_array_equal(again.metric.counts, fresh.metric.counts)
    with monkeypatch.context() as mp:
        interrupted(mp, after=2)
        with pytest.raises(Interrupt):  # now an unfinished run with m=3 ...
            compute_flip_capability(
                tiny_bert, ex, method="euba", m=3, progress=False, folder=folder, checkpoint_seconds=0
            )
    with pytest.raises(CheckpointMismatch, match="other settings"):  # ... asked again with m=8
        compute_flip_capability(tiny_bert, ex, method="euba", m=8, progress=False, folder=folder)
    with pytest.raises(CheckpointMismatch, match="other settings"):  # or with another layout
        compute_flip_capability(
            tiny_bert, ex, method="euba", m=3, progress=False, folder=folder, options=ClusterOptions(num_shards=2)
        )


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


def test_kappa_table_names_the_models_classes(tiny_bert, tmp_path):
    ex = examples_for(tiny_bert, n=6, seed=2)
    unnamed = compute_flip_capability(tiny_bert, ex, method="brute", progress=False)
    assert list(unnamed.to_frame().columns) == ["word", "kappa", "flips_class_0", "flips_class_1"]
    tiny_bert.model.config.id2label = {0: "billing", 1: "technical"}
    try:
        named = compute_flip_capability(tiny_bert, ex, method="brute", progress=False)
    finally:
        tiny_bert.model.config.id2label = {0: "LABEL_0", 1: "LABEL_1"}
    assert named.settings["label_names"] == ["billing", "technical"]
    path = named.save(tmp_path / "kappa.json")
    assert (tmp_path / "kappa.csv").read_text().startswith("word,kappa,flips_billing,flips_technical")
    frame = FlipCapabilityResult.load(path).to_frame()
    assert list(frame.columns) == ["word", "kappa", "flips_billing", "flips_technical"]
    np.testing.assert_array_equal(
        frame[["flips_billing", "flips_technical"]].to_numpy(), unnamed.to_frame().iloc[:, 2:]
    )
