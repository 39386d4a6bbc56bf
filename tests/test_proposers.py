"""Word proposers of the masked-LM slot (paper Algorithm 1's neighbourhood words).

Default tests are offline and fast: the real ``AutoModelForMaskedLM`` code path runs on a
tiny randomly initialised BERT built from a config here. Tests that load MiniLM or Gemma
are marked ``slow`` (run them with ``pytest -m slow``).
"""

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from conftest import bert_tokenizer  # noqa: E402
from textattack_secondorder import resources  # noqa: E402
from textattack_secondorder.resources import ResourceError, builders, resolution  # noqa: E402
from textattack_secondorder.resources import proposers as wp  # noqa: E402
from textattack_secondorder.transformations.neighborhood import select_neighbor_words  # noqa: E402

VOCAB = [
    "[PAD]",
    "[UNK]",
    "[CLS]",
    "[SEP]",
    "[MASK]",
    "the",
    "a",
    "film",
    "movie",
    "good",
    "bad",
    "is",
    "was",
    "very",
    "not",
    "and",
    ".",
    ",",
    "un",
    "##watch",
    "##able",
    "##s",
    "##ing",
    "great",
    "plot",
    "boring",
    "fun",
    "acting",
    "it",
    "21",
    "##st",
]


@pytest.fixture(scope="module")
def tiny_mlm():
    from transformers import BertConfig, BertForMaskedLM

    tok = bert_tokenizer(VOCAB)
    torch.manual_seed(0)
    cfg = BertConfig(
        vocab_size=len(VOCAB),
        hidden_size=16,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=32,
        max_position_embeddings=64,
        hidden_dropout_prob=0.0,
        attention_probs_dropout_prob=0.0,
    )
    model = BertForMaskedLM(cfg).eval()
    return model, tok


class _Recorder(torch.nn.Module):
    """Wraps a model and records the shapes of its inputs."""

    def __init__(self, model):
        super().__init__()
        self.inner = model
        self.config = model.config
        self.seen = []

    def forward(self, **kw):
        self.seen.append(kw["input_ids"].clone())
        return self.inner(**kw)


SENTS = [
    ["the", "film", "is", "very", "good", "."],
    ["it", "was", "unwatchable", "."],
    ["a", "movie", "with", "boring", "acting", "and", "a", "plot", "that", "is", "not", "fun", "."],
]
POS = [[0, 1, 4], [2], [1, 3, 11, 12]]


def test_masked_lm_shapes_and_sorted(tiny_mlm):
    model, tok = tiny_mlm
    p = wp.MaskedLMProposer(model, tok, device="cpu", batch_size=3)
    out = p.propose(SENTS, POS, top_k=7)
    assert [len(o) for o in out] == [len(x) for x in POS]
    for per_sentence in out:
        for cands in per_sentence:
            assert len(cands) == 7
            scores = [s for _, s in cands]
            assert scores == sorted(scores, reverse=True)
            assert all(isinstance(t, str) for t, _ in cands)


def test_batched_equals_one_by_one_and_pads_to_longest(tiny_mlm):
    model, tok = tiny_mlm
    rec = _Recorder(model)
    batched = wp.MaskedLMProposer(rec, tok, device="cpu", batch_size=64).propose(SENTS, POS, top_k=5)
    # One model call for all 8 positions of the 3 sentences, padded to the longest input only.
    assert len(rec.seen) == 1
    assert rec.seen[0].shape[0] == sum(len(p) for p in POS)
    longest = max(len(tok(" ".join(s))["input_ids"]) for s in SENTS)
    assert rec.seen[0].shape[1] == longest < 512
    single = wp.MaskedLMProposer(model, tok, device="cpu", batch_size=1)
    for s, (words, pos) in enumerate(zip(SENTS, POS)):
        for j, i in enumerate(pos):
            one = single.propose([words], [[i]], top_k=5)[0][0]
            assert [t for t, _ in one] == [t for t, _ in batched[s][j]]
            assert [v for _, v in one] == pytest.approx([v for _, v in batched[s][j]], abs=1e-4)


def test_multi_piece_word_becomes_one_mask(tiny_mlm):
    model, tok = tiny_mlm
    rec = _Recorder(model)
    wp.MaskedLMProposer(rec, tok, device="cpu").propose([["it", "was", "unwatchable", "."]], [[2]])
    ids = rec.seen[0][0].tolist()
    assert ids.count(tok.mask_token_id) == 1
    pieces = set(tok.convert_ids_to_tokens(ids))
    assert not pieces & {"un", "##watch", "##able"}


def test_is_word():
    p = wp.WordProposer(device="cpu")
    assert p.is_word("good") and p.is_word("Film") and p.is_word("café")
    for tok in ["##ing", "[SEP]", "<mask>", "21st", "don't", ".", "", "a_b"]:
        assert not p.is_word(tok), tok


def test_selection_rule_kappa_delta():
    # Paper Alg. 1: keep logit > max(L[kappa], L[0] - delta), then whole words other than the current one.
    cands = [("good", 10.0), ("##s", 9.5), ("great", 9.0), ("film", 8.0), ("fine", 7.0), ("ok", 6.9)]
    assert select_neighbor_words(cands, "film", wp.WordProposer(device="cpu").is_word, kappa=20, delta=3) == [
        "good",
        "great",
    ]
    # With kappa=2, L[2] = 9.0 is the floor (strict >).
    assert select_neighbor_words(cands, "x", wp.WordProposer(device="cpu").is_word, kappa=2, delta=3) == ["good"]


ENV = resources.SLOTS["masked_lm"].env
ONLINE = resources.SLOTS["masked_lm"].online
OFFLINE = resources.SLOTS["masked_lm"].offline


@pytest.fixture
def fake_builder(monkeypatch):
    """The masked-LM builder records the value it is asked for instead of loading a model."""
    built = []
    monkeypatch.setitem(builders.BUILDERS, "masked_lm", lambda value, **kw: built.append(value) or value)
    return built


def test_load_resolution_explicit_beats_env(monkeypatch, fake_builder):
    monkeypatch.setenv(ENV, "from-env")
    assert resources.load_word_proposer("explicit") == "explicit"
    assert resources.load_word_proposer() == "from-env"
    assert resources.resolve("masked_lm").origin == f"environment (${ENV})"
    monkeypatch.delenv(ENV)
    monkeypatch.setattr(resolution, "hub_available", lambda: False)
    monkeypatch.setattr(resolution, "in_hf_cache", lambda name: True)
    assert resources.load_word_proposer() == ONLINE
    assert "Hugging Face cache" in resources.resolve("masked_lm").origin
    monkeypatch.setattr(resolution, "in_hf_cache", lambda name: False)
    monkeypatch.setattr(resolution, "offline_missing", lambda slot, value: "")
    assert resources.load_word_proposer() == OFFLINE
    assert resources.resolve("masked_lm").value == OFFLINE


def test_offline_alternative_is_said_not_silent(monkeypatch, fake_builder):
    monkeypatch.delenv(ENV, raising=False)
    monkeypatch.setattr(resolution, "hub_available", lambda: False)
    monkeypatch.setattr(resolution, "in_hf_cache", lambda name: False)
    monkeypatch.setattr(resolution, "offline_missing", lambda slot, value: "" if value == "gemma" else "not installed")
    r = resources.resolve("masked_lm")
    assert (r.value, r.origin) == ("gemma", "default (offline alternative)")
    assert OFFLINE in r.note and "not installed" in r.note
    assert resources.load_word_proposer() == "gemma"


def test_one_clear_error_when_nothing_loads(monkeypatch):
    monkeypatch.delenv(ENV, raising=False)
    monkeypatch.setattr(resolution, "hub_available", lambda: False)
    monkeypatch.setattr(resolution, "in_hf_cache", lambda name: False)
    monkeypatch.setattr(resolution, "offline_missing", lambda slot, value: "not installed")
    with pytest.raises(ResourceError) as e:
        resources.load_word_proposer()
    msg = str(e.value)
    assert "pip install 'textattack-secondorder[offline]'" in msg and ENV in msg
    assert "nothing available" in resources.resolve("masked_lm").note


def test_explicit_bad_path_gives_clear_error(tmp_path, monkeypatch):
    monkeypatch.setattr(resolution, "hub_available", lambda: False)
    with pytest.raises(ResourceError) as e:
        resources.load_word_proposer(str(tmp_path / "no-such-model"))
    assert "no-such-model" in str(e.value) and ENV in str(e.value)


@pytest.mark.slow
def test_minilm_addon_proposes_the_masked_word():
    if not wp.default_addon_path().is_file():
        pytest.skip("add-on not trained")
    p = wp.MiniLMMLMProposer(device="cpu")
    out = p.propose([["the", "film", "is", "very", "good", "."]], [[1, 4]])
    assert len(out[0]) == 2 and len(out[0][0]) == wp.DEFAULT_TOP_K
    assert any(t == "movie" or t == "film" for t, _ in out[0][0][:10])


@pytest.mark.slow
def test_gemma_proposer_batched_equals_single():
    p = wp.CausalLMProposer(device="cpu", n_left=20)
    sents = [["a", "deep", "and", "meaningful", "film", "."], ["the", "acting", "is", "great", "."]]
    pos = [[1, 3, 4], [0, 3]]
    both = p.propose(sents, pos, top_k=5)
    one = p.propose(sents[1:], pos[1:], top_k=5)
    assert [t for t, _ in one[0][1]] == [t for t, _ in both[1][1]]
    assert all(p.is_word(t) for per in both for c in per for t, _ in c)


def test_masked_text_windows_around_the_word():
    """One masking rule for the masked-LM proposers (masked-lm, minilm-mlm, distilbert-onnx)."""
    from textattack_secondorder.resources.proposers.base import masked_text

    words = [str(n) for n in range(10)]
    assert masked_text(words, 5, "[M]", 200) == "0 1 2 3 4 [M] 6 7 8 9"
    assert masked_text(words, 0, "[M]", 4) == "[M] 1 2 3"
    assert masked_text(words, 9, "[M]", 4) == "6 7 8 [M]"
    assert masked_text(words, 5, "[M]", 4) == "3 4 [M] 6"


def test_both_proposer_transformations_take_a_proposer_the_same_way():
    """One rule (resources.word_proposer): an object as it is; dtype only when the masked LM is loaded here."""
    from textattack_secondorder.transformations.neighborhood import WordSwapNeighborhood
    from textattack_secondorder.transformations.word_swap_proposer import WordSwapProposer

    given = object()
    for cls in (WordSwapNeighborhood, WordSwapProposer):
        assert cls(proposer=given).proposer is given
        with pytest.raises(ValueError, match="dtype applies when the masked LM is loaded here"):
            cls(proposer=given, dtype="bfloat16")
