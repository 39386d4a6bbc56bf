"""SP-Defense's augmentations as token-id operations give what writing and re-tokenizing the text gave.

``defend`` used to write every augmented sentence (and, for the gradient mode, K rewrites per sentence)
as text and tokenize it again; now the sentences are tokenized once and a substitution is a splice of
token ids on the device (docs/design/defenses.md, speed). These tests pin that nothing changed: a seeded
run feeds the model the same batches as the previous implementation (kept as a reference copy in
``sp_defense_reference.py``), on the word CNN and on tiny BERTs with a lower-casing and a cased
vocabulary, truncation and a sentence whose words the tokenizer does not split apart included.
"""

import pytest
import torch

from conftest import Wrapper, bert_tokenizer, tiny_word_cnn
from sp_defense_reference import reference_batches
from test_sp_defense_parts import DATA as PARTS_DATA  # the part-by-part tests' sentences, and more below
from test_sp_defense_parts import WORDS as PARTS_WORDS
from textattack_secondorder.augmentation.token_edits import (
    ALL_CAPS,
    AS_IS,
    CAPITALISED,
    EncodedExamples,
    SurfaceTable,
    case_of,
    spelled,
    splice,
)
from textattack_secondorder.defense.training import train_defense
from textattack_secondorder.models.token_classifier import TokenClassifier
from textattack_secondorder.shared.text import match_case

WORDS = PARTS_WORDS + ["and", "don", "t", "miss", "it"]
DATA = PARTS_DATA + [
    ("The Movie was GREAT, don't miss it!", 1),
    ("a ™film is good", 1),  # BERT reads "™film" as one unknown token: the word "film" is not separable
    (" ".join(["the good film , and"] * 30), 1),  # longer than max_length: truncated
]
BERT_VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] + WORDS + ["an", "acting", ",", "!", "'"]
BERT_VOCAB += ["Good", "Great", "GOOD", "The", "Movie", "GREAT", "##s", "go", "##od", "G", "##OO", "##D"]


def tiny_bert(lowercase):
    from transformers import BertConfig, BertForSequenceClassification

    tok = bert_tokenizer(BERT_VOCAB, lowercase=lowercase, model_max_length=128)
    torch.manual_seed(0)
    cfg = BertConfig(
        vocab_size=len(BERT_VOCAB),
        hidden_size=16,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=32,
        max_position_embeddings=128,
        num_labels=2,
        initializer_range=0.5,
    )
    return Wrapper(BertForSequenceClassification(cfg).eval(), tok)


def fed_batches(wrapper, **kwargs):
    """The (input_ids, attention_mask) of every training forward of ``train_defense``."""
    got = []

    def record(module, args, kw):
        if module.training:
            got.append((kw["input_ids"].clone().cpu(), kw["attention_mask"].clone().cpu()))

    handle = wrapper.model.register_forward_pre_hook(record, with_kwargs=True)
    try:
        train_defense(wrapper, DATA * 5, progress=False, **kwargs)
    finally:
        handle.remove()
    return got


@pytest.mark.parametrize(
    "make,defense,candidates",
    [(m, "sp-defense", k) for m in ("word-cnn", "bert-uncased", "bert-cased") for k in (1, 4)]
    + [("word-cnn", "rand", 1)],
)
def test_seeded_training_feeds_the_same_batches_as_the_text_implementation(make, defense, candidates):
    def build():
        return tiny_word_cnn(WORDS) if make == "word-cnn" else tiny_bert(lowercase=make == "bert-uncased")

    settings = {"steps": 10, "batch_size": 8, "defense": defense, "seed": 3}
    ref = reference_batches(build(), DATA * 5, candidates=candidates, **settings)
    new = fed_batches(build(), gradient_candidates=candidates, **settings)
    assert len(new) == len(ref) == 10
    for step, ((ids, mask), (ref_ids, ref_mask, texts)) in enumerate(zip(new, ref)):
        assert torch.equal(ids, ref_ids) and torch.equal(mask, ref_mask), (step, texts)
    # the batches are augmented, not the originals: some step differs from its unaugmented sentences
    assert any(len(set(texts)) > 1 for _, _, texts in ref)


def test_a_word_next_to_a_symbol_is_rewritten_as_text():
    clf = TokenClassifier.from_model_wrapper(tiny_bert(lowercase=True))
    enc = EncodedExamples(clf, ["a ™film is good", "the film is good"])
    assert enc.separable.tolist() == [False, True]


def test_splice_replaces_a_span_by_a_sequence_of_any_length():
    content = torch.tensor([[1, 2, 3, 4, 0], [5, 6, 7, 0, 0]])
    lengths = torch.tensor([4, 3])
    new = torch.tensor([[9, 9, 9], [8, -1, -1]])
    out, n = splice(
        content, lengths, torch.tensor([1, 0]), torch.tensor([2, 2]), new.clamp(min=0), torch.tensor([3, 1])
    )
    assert n.tolist() == [6, 2]
    assert out[0, :6].tolist() == [1, 9, 9, 9, 3, 4] and out[1, :2].tolist() == [8, 7]


def test_surface_table_spells_each_word_as_match_case_does():
    tok = bert_tokenizer(BERT_VOCAB, lowercase=False)
    table = SurfaceTable(tok, ["good", "great"], torch.device("cpu"))
    ids = {c: [tok.convert_ids_to_tokens(t) for t in table.ids[c, 0, : table.lengths[c, 0]].tolist()] for c in range(3)}
    assert ids[AS_IS] == ["good"] and ids[CAPITALISED] == ["Good"] and ids[ALL_CAPS] == ["GOOD"]
    assert [case_of(w) for w in ("film", "Film", "FILM", "I")] == [AS_IS, CAPITALISED, ALL_CAPS, CAPITALISED]
    for like in ("film", "Film", "FILM", "I", "fILM", "", "3D", "Ünïcode"):
        for word in ("good", "éclair", "a"):
            assert spelled(word, case_of(like)) == match_case(word, like), (word, like)
