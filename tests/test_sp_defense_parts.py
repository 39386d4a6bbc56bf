"""SP-Defense checked part by part against Xu et al. §5 / docs/design/defenses.md; defend's bad input; the benchmark.

Each test fails when its part is wrong: the augmentations (random, Eq. 5 gradient, Eq. 6 special
words), the vocabulary they draw from, the batch recipe, the fine-tuning schedule, the saved model,
and the benchmark's paper-scale path (a tiny random BERT, no network).
"""

import json
import math
import random
from pathlib import Path

import pytest
import torch

from conftest import tiny_word_cnn, write_tiny_bert
from textattack_secondorder.augmentation.augmented_batches import batch_modes
from textattack_secondorder.augmentation.sp_defense import (
    SPDefenseAugmenter,
    augmentation_vocabulary,
    gradient_augment,
    random_augment,
    special_word_table,
)
from textattack_secondorder.defense.training import train_defense

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
    "the",
    "a",
    "is",
    "was",
    "kuh",
    "nuh",
]  # "kuh", "nuh": in the model's vocabulary, in no training sentence
DATA = [
    ("the film was good", 1),
    ("a great story", 1),
    ("the plot is dull", 0),
    ("an awful movie", 0),
    ("good acting , fine plot", 1),
    ("bad bad film", 0),
]


@pytest.fixture()
def word_cnn():
    return tiny_word_cnn(WORDS)


def changed(a, b):
    from textattack.shared import AttackedText

    x, y = AttackedText(a).words, AttackedText(b).words
    assert len(x) == len(y)
    return [(i, u, v) for i, (u, v) in enumerate(zip(x, y)) if u != v]


# ----------------------------------------------------------------------------- random augmentation
def test_random_augmentation_puts_one_vocabulary_word_at_one_position():
    rng = random.Random(0)
    for text, _ in DATA:
        (diff,) = changed(text, random_augment(text, ["zebra"], rng))
        assert diff[2] == "zebra"


def test_augmentations_draw_only_words_of_the_training_data(word_cnn):
    from textattack_secondorder.models.token_classifier import TokenClassifier

    clf = TokenClassifier.from_model_wrapper(word_cnn)
    ids, words = augmentation_vocabulary(clf, DATA)
    assert "kuh" not in words and "nuh" not in words and {"good", "film", "awful"} <= set(words)
    assert [clf.tokenizer.convert_ids_to_tokens(int(i)) for i in ids] == words
    aug = SPDefenseAugmenter("random", model=clf, vocabulary=(ids, words), seed=0)
    for mode in ("random", "gradient"):
        out = aug.augment_examples(DATA * 20, [mode] * len(DATA) * 20)
        inserted = {d[2].lower() for (t, _), (n, _, _) in zip(DATA * 20, out) for d in changed(t, n)}
        assert inserted and not inserted & {"kuh", "nuh"}, (mode, inserted)
        assert [y for _, y, _ in out] == [y for _, y in DATA * 20]


def test_augmenter_vocab_data_drops_words_no_sentence_has(tmp_path, word_cnn):
    import pandas as pd

    csv = tmp_path / "train.csv"
    pd.DataFrame({"text": [t for t, _ in DATA], "label": [y for _, y in DATA]}).to_csv(csv, index=False)
    assert "kuh" in SPDefenseAugmenter("random", model=word_cnn, vocab_data=None).vocabulary
    assert "kuh" not in SPDefenseAugmenter("random", model=word_cnn, vocab_data=str(csv)).vocabulary


# ----------------------------------------------------------------------------- gradient augmentation (Eq. 5)
def eq5_reference(clf, text, label):
    """Eq. 5 written out: v_w^(i) = <∇_{e_{x_i}} log f(y|x), e_w − e_{x_i}> + log f(y|x); argmin over (i, w)."""
    ids = clf.tokenizer(text.split(), is_split_into_words=True, return_tensors="pt")["input_ids"]
    E = clf.model.get_input_embeddings().weight.detach()
    x = E[ids[0]].clone().requires_grad_(True)  # the embeddings of the words themselves (not a mask)
    logp = torch.log_softmax(clf.model(inputs_embeds=x[None]).logits[0], -1)[label]
    (g,) = torch.autograd.grad(logp, x)
    vocab_ids, vocab_words = clf.vocabulary()
    best = (math.inf, None, None)
    for i in range(ids.shape[1]):
        for wid, w in zip(vocab_ids, vocab_words):
            if int(wid) == int(ids[0, i]):
                continue
            v = float(g[i] @ (E[int(wid)] - x[i].detach()) + logp.detach())
            best = min(best, (v, i, w))
    return best


def test_gradient_augmentation_is_the_minimum_of_eq5(word_cnn):
    from textattack_secondorder.models.token_classifier import TokenClassifier

    clf = TokenClassifier.from_model_wrapper(word_cnn)
    texts = ["the film was good", "the plot is dull", "bad bad film"]
    for label in (0, 1):
        out = gradient_augment(clf, texts, [label] * len(texts))
        for text, new in zip(texts, out):
            _, i, w = eq5_reference(clf, text, label)
            assert changed(text, new) == [(i, text.split()[i], w)], (text, label, new)


def test_gradient_augmentation_differs_from_the_opposite_sign(word_cnn):
    """The Eq. 5 minimum is not the maximum: a sign error would be caught by the test above."""
    from textattack_secondorder.models.token_classifier import TokenClassifier

    clf = TokenClassifier.from_model_wrapper(word_cnn)
    new = gradient_augment(clf, ["the film was good"], [1])[0]
    p = clf.predict_texts(["the film was good", new])[:, 1]
    assert p[1] < p[0]  # the chosen word lowers f(y|x)


def test_gradient_augmentation_is_one_forward_and_backward_per_batch(word_cnn):
    from textattack_secondorder.models.token_classifier import TokenClassifier

    clf = TokenClassifier.from_model_wrapper(word_cnn)
    calls = {"forward": 0, "backward": 0}
    emb = clf.model.get_input_embeddings()
    h1 = clf.model.register_forward_hook(lambda *a: calls.__setitem__("forward", calls["forward"] + 1))
    h2 = clf.model.classifier.register_full_backward_hook(
        lambda *a: calls.__setitem__("backward", calls["backward"] + 1)
    )
    try:
        gradient_augment(clf, [t for t, _ in DATA] * 5, [y for _, y in DATA] * 5, batch_size=32)
    finally:
        h1.remove(), h2.remove()
    assert calls == {"forward": 1, "backward": 1}
    assert emb is clf.model.get_input_embeddings()


def test_gradient_candidates_apply_the_checked_substitution_that_hurts_most(word_cnn):
    """``candidates=K``: of the K lowest-v substitutions, the one with the lowest real f(y|x') is applied
    (so never a weaker one than the Eq. 5 minimum, which is among the K); K = 1 is the paper's rule."""
    from textattack_secondorder.models.token_classifier import TokenClassifier

    clf = TokenClassifier.from_model_wrapper(word_cnn)
    texts = ["the film was good", "the plot is dull", "bad bad film", "a great story"]
    labels = [1, 0, 0, 1]
    _, vocab_words = clf.vocabulary()
    paper = gradient_augment(clf, texts, labels, candidates=1)
    checked = gradient_augment(clf, texts, labels, candidates=8)
    p_paper = clf.predict_texts(paper)
    p_checked = clf.predict_texts(checked)
    for k, (text, y) in enumerate(zip(texts, labels)):
        words = text.split()
        # every single substitution by brute force, ranked by real f(y|x'); the K=8 choice is the best
        # of the 8 lowest-v ones, so at least as harmful as the Eq. 5 minimum
        assert p_checked[k, y] <= p_paper[k, y] + 1e-6, (text, paper[k], checked[k])
        assert len(changed(text, checked[k])) == 1
        alls = [" ".join(words[:i] + [w] + words[i + 1 :]) for i in range(len(words)) for w in vocab_words]
        assert p_checked[k, y] >= clf.predict_texts(alls)[:, y].min() - 1e-6
    assert any(a != b for a, b in zip(paper, checked))  # the check changes the choice on this model
    with pytest.raises(ValueError, match="candidates"):
        gradient_augment(clf, texts, labels, candidates=0)


# ----------------------------------------------------------------------------- special words (Eq. 6)
def test_special_words_follow_eq6_with_training_label_frequencies():
    data = [
        ("awful awful awful awful awful awful movie", 0),
        ("movie fine", 0),
        ("great great great great great great movie", 1),
        ("fine awful movie", 1),
    ]
    table = special_word_table(data, min_count=1)
    # add-one smoothed log-frequencies: awful 7/12 vs 2/12 under label 1 -> margin log(3.5) > 1: in T(1)
    assert "awful" in table[1] and "awful" not in table[0]
    assert "great" in table[0] and "great" not in table[1]
    # movie (3 vs 2 of 9 each) and fine (1 vs 1) are near-equal: in neither
    assert not {"movie", "fine"} & (set(table[0]) | set(table[1]))


# ----------------------------------------------------------------------------- batch recipe
def test_batch_recipe_half_gradient_rest_original_random_special():
    rng = random.Random(0)
    seen = set()
    for _ in range(50):
        modes = batch_modes("sp-defense", 32, rng)
        assert modes[:16] == ["gradient"] * 16 and "gradient" not in modes[16:]
        seen.update(modes[16:])
    assert seen == {"original", "random", "special"}
    assert batch_modes("rand", 32, rng) == ["random"] * 16 + ["original"] * 16
    assert batch_modes("continue", 32, rng) == ["original"] * 32


def test_training_uses_the_batch_recipe_and_the_model_being_trained(word_cnn, monkeypatch):
    from textattack_secondorder.augmentation.token_augmenter import TokenAugmenter

    recorded = []
    real = TokenAugmenter.augment_batch

    def spy(self, rows, modes):
        recorded.append((list(modes), self.clf.model is word_cnn.model))
        assert "kuh" not in self.words  # training words only
        return real(self, rows, modes)

    monkeypatch.setattr(TokenAugmenter, "augment_batch", spy)
    train_defense(word_cnn, DATA * 5, steps=3, batch_size=8, progress=False)
    assert len(recorded) == 3
    for modes, same_model in recorded:
        assert same_model and modes[:4] == ["gradient"] * 4 and "gradient" not in modes[4:]


# ----------------------------------------------------------------------------- fine-tuning
def test_fine_tuning_decays_the_learning_rate_to_zero_and_logs_the_loss(word_cnn, monkeypatch):
    made = []
    real = torch.optim.AdamW

    def adamw(*a, **k):
        made.append(real(*a, **k))
        return made[-1]

    monkeypatch.setattr(torch.optim, "AdamW", adamw)
    history = []
    train_defense(word_cnn, DATA * 20, steps=100, batch_size=8, progress=False, history=history)
    assert made[0].param_groups[0]["lr"] == pytest.approx(0.0)
    assert len(history) == 2 and all(math.isfinite(h) for h in history)


def test_transformers_fine_tune_at_the_paper_learning_rate():
    from transformers import BertConfig, BertForSequenceClassification

    from textattack_secondorder.defense.training import _default_lr

    cfg = BertConfig(vocab_size=10, hidden_size=8, num_hidden_layers=1, num_attention_heads=2, intermediate_size=8)
    assert _default_lr(BertForSequenceClassification(cfg)) == 2e-5


def test_defaults_by_model_kind(word_cnn):
    """Transformers: the paper's lr and Eq. 5 rule; the word models: 1e-3 and 32 checked candidates —
    decided in one place each, and the augmenter follows the same rule as ``defend``."""
    from transformers import BertConfig, BertForSequenceClassification

    from textattack_secondorder.augmentation.sp_defense import default_gradient_candidates
    from textattack_secondorder.defense.training import _default_lr

    bert = BertForSequenceClassification(
        BertConfig(vocab_size=10, hidden_size=8, num_hidden_layers=1, num_attention_heads=2, intermediate_size=8)
    )
    assert default_gradient_candidates(bert) == 1
    assert default_gradient_candidates(word_cnn.model) == 32 and _default_lr(word_cnn.model) == 1e-3
    assert default_gradient_candidates(word_cnn) == 32  # a wrapper holding the model
    assert SPDefenseAugmenter("gradient", model=word_cnn).gradient_candidates == 32
    assert SPDefenseAugmenter("gradient", model=word_cnn, gradient_candidates=1).gradient_candidates == 1


def test_training_refuses_non_positive_steps_and_unknown_mixes(word_cnn):
    with pytest.raises(ValueError, match="steps"):
        train_defense(word_cnn, DATA, steps=0, progress=False)
    with pytest.raises(ValueError, match="defense must be one of"):
        train_defense(word_cnn, DATA, steps=1, defense="nope", progress=False)


# ----------------------------------------------------------------------------- defend command
def tiny_bert_dir(folder, vocab):
    from transformers import BertForSequenceClassification

    return write_tiny_bert(
        folder, vocab, BertForSequenceClassification, model_max_length=32, num_labels=2, initializer_range=0.5
    )


BERT_VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] + WORDS + ["an", "acting", ","]


@pytest.fixture()
def tiny_setup(tmp_path):
    import pandas as pd

    csv = tmp_path / "data.csv"
    pd.DataFrame({"text": [t for t, _ in DATA] * 2, "label": [y for _, y in DATA] * 2}).to_csv(csv, index=False)
    return tiny_bert_dir(tmp_path / "bert", BERT_VOCAB), csv


def run_cli(capfd, *argv):
    from textattack_secondorder.cli import main

    try:
        code = main([str(a) for a in argv])
    except SystemExit as e:
        code = e.code
    out, err = capfd.readouterr()
    return code, out, err


@pytest.mark.parametrize("bad", [["--defense", "nope"], ["--steps", "0"], ["--steps", "-3"]])
def test_defend_bad_arguments_are_one_line_exit_2(tmp_path, tiny_setup, capfd, bad):
    model, csv = tiny_setup
    code, _, err = run_cli(capfd, "defend", "--model", model, "--dataset", csv, "--out", tmp_path / "d", *bad)
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert not (tmp_path / "d").exists()


def test_defend_refuses_a_victim_without_gradient_access_in_one_line(tmp_path, tiny_setup, capfd):
    _, csv = tiny_setup
    src = tmp_path / "blackbox.py"
    src.write_text(
        "import numpy as np, textattack\n"
        "class M(textattack.models.wrappers.ModelWrapper):\n"
        "    model = None\n"
        "    def __call__(self, texts):\n"
        "        return np.tile([[0.3, 0.7]], (len(texts), 1))\n"
        "model = M()\n"
    )
    code, _, err = run_cli(capfd, "defend", "--model", src, "--dataset", csv, "--steps", 1, "--out", tmp_path / "d")
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert not (tmp_path / "d").exists()


def test_defended_model_is_a_loadable_directory_with_its_record(tmp_path, tiny_setup, capfd):
    from textattack_secondorder.models.loading import load_model_wrapper

    model, csv = tiny_setup
    out = tmp_path / "defended"
    code, _, err = run_cli(
        capfd, "defend", "--model", model, "--dataset", csv, "--steps", 2, "--batch-size", 4, "--seed", 7, "--out", out
    )
    assert code == 0, err
    info = json.loads((out / "defense.json").read_text())
    assert info["seed"] == 7 and info["steps"] == 2 and info["defense"] == "sp-defense" and info["lr"] == 2e-5
    assert {"test_accuracy_before", "test_accuracy_after", "schedule", "batch_size"} <= set(info)
    # a transformer: every weight trained, the paper's Eq. 5 rule unless asked otherwise
    assert info["embeddings"] == "train" and info["train_embeddings"] is True
    assert info["gradient_candidates"] == 1
    logits = load_model_wrapper(str(out))(["the film was good"])
    assert tuple(logits.shape) == (1, 2)


def test_interrupted_save_leaves_no_model_directory(tmp_path, word_cnn, monkeypatch):
    from textattack_secondorder.defense import save_model

    def boom(*a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr(word_cnn.tokenizer, "save_pretrained", boom)
    with pytest.raises(KeyboardInterrupt):
        save_model(word_cnn, tmp_path / "defended", {})
    assert list(tmp_path.iterdir()) == []


# ----------------------------------------------------------------------------- benchmark
def load_benchmark():
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "benchmarks" / "sp_defense.py"
    spec = importlib.util.spec_from_file_location("sp_defense_benchmark", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_benchmark_is_the_compare_command_with_the_papers_settings(tmp_path, monkeypatch):
    """``benchmarks/sp_defense.py`` runs ``defend --compare`` per victim and copies its tables to the results."""
    bench = load_benchmark()
    args = bench.parse_args(["--paper-scale", "--device", "cuda", "--", "--lr", "1e-4"])
    assert (args.victims, args.steps, args.num_examples, args.rho_sentences) == (
        [bench.PAPER_VICTIM],
        [20000],
        500,
        1000,
    )
    argv = bench.command(args, bench.PAPER_VICTIM, 20000, tmp_path / "c")
    assert argv[:3] == ["defend", "--compare", "vanilla,continue,rand,a2t,sp-defense"]
    assert argv[argv.index("--steps") + 1] == "20000" and argv[argv.index("--num-examples") + 1] == "500"
    assert argv[-2:] == ["--lr", "1e-4"] and "--device" in argv

    ran = []

    def fake_cli(argv):
        ran.append(argv)
        out = Path(argv[argv.index("--out") + 1])
        out.mkdir(parents=True, exist_ok=True)
        for suffix in (".json", ".md", "_summary.json"):
            (out / f"comparison{suffix}").write_text("[]" if "json" in suffix else "| table |\n")

    monkeypatch.setattr(bench, "run_cli", fake_cli)
    monkeypatch.setattr(bench, "RESULTS", tmp_path / "results")
    bench.main(["--victims", "mr-cnn", "mr-lstm", "--steps", "300", "--workdir", str(tmp_path / "w"), "--out", "t"])
    assert [a[a.index("--model") + 1] for a in ran] == ["mr-cnn", "mr-lstm"]
    md = (tmp_path / "results" / "t_mr-lstm.md").read_text()
    assert "textattack-so defend --compare" in md and "machine:" in md
