"""SP-Defense (Xu et al., §5): one-word label-keeping augmentation, lossless CSV, training, stock CLI."""

import csv

import pandas as pd
import pytest
import torch

from conftest import stock_textattack, tiny_word_cnn
from textattack_secondorder.augmentation.sp_defense import (
    SPDefenseAugmenter,
    augment_examples,
    special_word_table,
)

WORDS = ["good", "bad", "film", "movie", "plot", "great", "dull", "fine", "awful", "story", "the", "a", "is", "was"]


@pytest.fixture()
def word_cnn():
    return tiny_word_cnn(WORDS)


DATA = [
    ("the film was good", 1),
    ("a great story", 1),
    ("the plot is dull", 0),
    ("an awful movie", 0),
    ("good acting, fine plot", 1),
    ("bad bad film", 0),
]


def diff_positions(a, b):
    from textattack.shared import AttackedText

    x, y = AttackedText(a), AttackedText(b)
    assert len(x.words) == len(y.words)
    return [i for i, (u, v) in enumerate(zip(x.words, y.words)) if u != v]


@pytest.mark.parametrize("mode", ["gradient", "random", "special"])
def test_augmented_example_keeps_label_and_changes_exactly_one_word(word_cnn, mode):
    table = special_word_table(DATA, min_count=1)
    out = augment_examples(DATA, model=word_cnn, mode=mode, special_words=table, seed=1)
    for (text, label), (new, new_label, used) in zip(DATA, out):
        assert new_label == label and used == mode
        assert len(diff_positions(text, new)) == 1, (text, new)


def test_gradient_augmentation_lowers_the_true_class_probability(word_cnn):
    from textattack_secondorder.models.token_classifier import TokenClassifier

    clf = TokenClassifier.from_model_wrapper(word_cnn)
    texts = [t for t, _ in DATA]
    preds = clf.predict_texts(texts).argmax(1)
    data = list(zip(texts, preds.tolist()))
    new = [t for t, _, _ in augment_examples(data, model=word_cnn, mode="gradient")]
    p_old = clf.predict_texts(texts)[range(len(texts)), preds]
    p_new = clf.predict_texts(new)[range(len(texts)), preds]
    assert (p_new < p_old).mean() >= 0.8


def test_special_words_are_more_frequent_under_another_label():
    table = special_word_table(DATA * 2, min_count=1)
    assert "awful" in table[1] and "great" in table[0]
    assert "awful" not in table[0]


def test_sp_augment_csv_round_trip_with_hard_characters(tmp_path, word_cnn):
    hard = [
        'She said "wow", twice',
        "a/b testing is dull/boring",
        "naïve café, 東京 film",
        "line one\nline two film",
        "commas, commas, commas",
        "slashes / and \\ back",
    ]
    src = tmp_path / "in.csv"
    pd.DataFrame(
        {"id": range(len(hard)), "text": hard, "label": [1, 0, 1, 0, 1, 0], "note": ["x/y", "", "é", '"q"', ",", "/"]}
    ).to_csv(src, index=False, quoting=csv.QUOTE_ALL)
    out = tmp_path / "out.csv"
    from textattack_secondorder.cli import main

    assert (
        main(["sp-augment", "--input-csv", str(src), "--output-csv", str(out), "--mode", "random", "--seed", "0"]) == 0
    )
    df = pd.read_csv(out, dtype=str, keep_default_na=False)
    orig = df[df["augmentation"] == "original"].reset_index(drop=True)
    assert orig["text"].tolist() == hard
    assert orig["note"].tolist() == ["x/y", "", "é", '"q"', ",", "/"]
    aug = df[df["augmentation"] == "random"].reset_index(drop=True)
    assert aug["label"].tolist() == ["1", "0", "1", "0", "1", "0"]
    for a, b in zip(hard, aug["text"]):
        assert len(diff_positions(a, b)) == 1


def test_defense_training_runs_and_saves_a_loadable_model(tmp_path, word_cnn):
    from transformers import AutoModelForSequenceClassification

    from textattack_secondorder.defense import save_model, train_defense
    from textattack_secondorder.models.word_models import register_auto_classes

    secs = train_defense(word_cnn, DATA * 5, steps=3, batch_size=4, defense="sp-defense", progress=False)
    assert secs > 0
    path = save_model(word_cnn, tmp_path / "defended", {"defense": "sp-defense"})
    register_auto_classes()
    again = AutoModelForSequenceClassification.from_pretrained(str(path))
    x = word_cnn.tokenizer(["the film was good"], return_tensors="pt")
    with torch.no_grad():
        torch.testing.assert_close(
            again(input_ids=x["input_ids"]).logits, word_cnn.model(input_ids=x["input_ids"]).logits
        )


@pytest.mark.parametrize("train_embeddings", ["default", None, True, False])
def test_defense_trains_the_embeddings_unless_asked_not_to(word_cnn, train_embeddings):
    """Default: the embeddings are trained, also the word model's GloVe that was frozen in training;
    None leaves them as trained (frozen here); False freezes even a trainable embedding (a transformer's)."""
    from textattack_secondorder.defense import train_defense

    emb = word_cnn.model.get_input_embeddings().weight
    assert not emb.requires_grad  # demo word models freeze GloVe
    before = emb.detach().clone()
    asked = {} if train_embeddings == "default" else {"train_embeddings": train_embeddings}
    train_defense(word_cnn, DATA * 5, steps=3, batch_size=4, progress=False, **asked)
    moved = not torch.equal(before, word_cnn.model.get_input_embeddings().weight.detach())
    assert moved is (train_embeddings in ("default", True))
    if train_embeddings is False:
        word_cnn.model.get_input_embeddings().weight.requires_grad_(True)  # as a transformer's
        before = word_cnn.model.get_input_embeddings().weight.detach().clone()
        train_defense(word_cnn, DATA * 5, steps=3, batch_size=4, progress=False, train_embeddings=False)
        assert torch.equal(before, word_cnn.model.get_input_embeddings().weight.detach())


def test_the_augmenter_loads_its_model_on_first_use(monkeypatch, word_cnn):
    import textattack_secondorder.augmentation.sp_defense as sp

    loaded = []
    monkeypatch.setattr(sp, "load_model_wrapper", lambda spec, device=None: loaded.append(spec) or word_cnn)
    aug = SPDefenseAugmenter("gradient", model="mr-cnn", vocab_data=None)
    assert loaded == [] and aug.mode == "gradient" and "mr-cnn" in repr(aug)  # made without loading anything
    assert aug.gradient_candidates == 32 and loaded == ["mr-cnn"]  # the word model's default, read on first use
    assert aug.clf.model is word_cnn.model and loaded == ["mr-cnn"]  # loaded once


def test_modes_without_what_they_need_are_clear_errors():
    with pytest.raises(ValueError, match="needs a model"):
        SPDefenseAugmenter("gradient")
    with pytest.raises(ValueError, match="special-word table"):
        SPDefenseAugmenter("special", vocabulary=["x"])
    with pytest.raises(ValueError, match="unknown SP-Defense mode"):
        SPDefenseAugmenter("nope")


def test_stock_textattack_augment_cli_runs_sp_defense(tmp_path, capfd):
    src = tmp_path / "in.csv"
    src.write_text("text,label\nthe film was good,1\nan awful plot,0\n")
    out = tmp_path / "out.csv"
    recipe = "sp-defense^vocabulary=['splendid','dreary']"
    code, _, err = stock_textattack(
        capfd,
        "augment",
        "--input-csv",
        src,
        "--output-csv",
        out,
        "--input-column",
        "text",
        "--recipe",
        recipe,
        "--transformations-per-example",
        "1",
        "--exclude-original",
    )
    assert code == 0, err[-3000:]
    df = pd.read_csv(out)
    assert len(df) == 2
    for a, b in zip(["the film was good", "an awful plot"], df["text"]):
        assert len(diff_positions(a, b)) == 1
        assert {"splendid", "dreary"} & set(b.split())
