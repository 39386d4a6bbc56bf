"""Certified (IBP) victims: the bounds hold on every synonym combination, training certifies, `certify` works.

Tiny word models built here (random or briefly trained weights, a dozen words); the bound is checked
against the model's own forward pass on every combination of swaps of short sentences.
"""

import itertools
import json

import numpy as np
import pytest
import torch

from textattack_secondorder.models import training, victims
from textattack_secondorder.models.catalogue import VICTIMS
from textattack_secondorder.models.ibp.bounds import certified_margins
from textattack_secondorder.models.ibp.certification import TOLERANCE, certified_accuracy, certify_texts
from textattack_secondorder.models.ibp.objective import IBPObjective, IBPSchedule
from textattack_secondorder.models.ibp.substitutions import SubstitutionSets, batch_choices
from textattack_secondorder.models.word_models import build_word_model, build_word_tokenizer

WORDS = "the a film movie picture is was good fine great nice bad awful poor dull boring plot".split()
SYNONYMS = {
    "good": ["fine", "great", "nice", "decent"],  # "decent" is outside the vocabulary: [UNK]
    "bad": ["awful", "poor"],
    "film": ["movie", "picture"],
    "movie": ["film"],
    "dull": ["boring"],
    "is": ["was"],
    "m": ["plot", "film"],  # reached through "'m" (TextAttack strips the apostrophe)
}
SENTENCES = [
    "the good film is dull",
    "a bad movie",
    "good film , bad plot",
    "the film 'm good",
    "the picture was nice",
    "xyz good movie",
    "dull",
    "",
]


def _random_model(arch, seed, scale=1.0, word_layer=False, **config):
    tok = build_word_tokenizer(WORDS)
    torch.manual_seed(seed)
    size = len(tok.get_vocab())
    vectors = torch.randn(size, 6) * scale
    vectors[:2] = 0  # [PAD], [UNK]: zero rows, as glove_matrix makes them
    model = build_word_model(
        arch, size, vectors, embedding_dim=6, hidden_size=7, word_layer=word_layer, **config
    ).eval()
    return model, tok


def _true_margins(model, choices, pred):
    """The smallest ``z_pred - z_j`` over every combination of the choices (the model's own forward pass)."""
    worst = float("inf")
    for combo in itertools.product(*choices) if choices else [()]:
        ids = torch.tensor([list(combo)], dtype=torch.long).reshape(1, len(combo))
        with torch.no_grad():
            z = model(input_ids=ids, attention_mask=torch.ones_like(ids)).logits[0]
        worst = min(worst, float(z[pred] - torch.cat([z[:pred], z[pred + 1 :]]).max()))
    return worst


@pytest.mark.parametrize("word_layer", [False, True], ids=["base", "word-layer"])
@pytest.mark.parametrize("arch", ["bow", "cnn", "lstm", "cnn-mean"])
def test_certified_sentences_keep_their_prediction_under_every_synonym_combination(arch, word_layer):
    sets = SubstitutionSets(build_word_tokenizer(WORDS), SYNONYMS)
    certified = uncertified = 0
    arch, config = ("cnn", {"pool": "mean"}) if arch == "cnn-mean" else (arch, {})
    for seed in range(4):
        model, _ = _random_model(arch, seed, scale=0.5 + seed, word_layer=word_layer, **config)
        for text, (pred, cert, margin) in zip(SENTENCES, certify_texts(model, sets, SENTENCES)):
            _, choices = sets.encode_text(text)
            true = _true_margins(model, choices, pred)
            assert margin <= true + 1e-5, (text, margin, true)  # the bound is below every real margin
            if cert:
                assert true > 0, f"{text!r} certified but a combination flips it"
            certified += cert
            uncertified += not cert
    # the check is not vacuous: both kinds occur
    assert certified >= 5 and uncertified >= 5


def test_a_box_without_the_neighbours_would_certify_sentences_that_flip():
    """The test above can fail: bounds over the word alone (eps = 0) claim sentences that a swap flips."""
    sets = SubstitutionSets(build_word_tokenizer(WORDS), SYNONYMS)
    wrong = 0
    for seed in range(8):
        model, _ = _random_model("cnn", seed, scale=2.0)
        rows = [sets.encode_text(t) for t in SENTENCES]
        _, mask, choice_ids = batch_choices(rows, sets.pad_id)
        with torch.no_grad():
            pred = model(input_ids=choice_ids[..., 0], attention_mask=mask).logits.argmax(1)
            for eps, out in ((0.0, "alone"), (1.0, "box")):
                m = certified_margins(model, choice_ids, mask, pred, eps=eps)
                m[torch.arange(len(pred)), pred] = float("inf")
                if out == "alone":
                    claimed = m.min(1).values > TOLERANCE
                else:
                    sound = m.min(1).values > TOLERANCE
        for i, (_, choices) in enumerate(rows):
            flips = _true_margins(model, choices, int(pred[i])) <= 0
            wrong += bool(claimed[i] and flips)
            assert not (sound[i] and flips)
    assert wrong >= 1


def test_choice_sets_hold_every_swap_of_the_synonym_list_attacks():
    """Whatever alzantot-offline's transformation swaps in is in the position's choices (same list)."""
    from textattack.shared import AttackedText

    from textattack_secondorder.transformations.word_swap_synonym_list import WordSwapSynonymList

    tok = build_word_tokenizer(WORDS)
    sets = SubstitutionSets(tok, SYNONYMS)
    swap = WordSwapSynonymList(SYNONYMS)
    texts = SENTENCES[:-1] + ["'good' film -- *bad* movie", "it 's a good-looking film", "Good FILM is Dull ."]
    swaps = 0
    for text in texts:
        ids, choices = sets.encode_text(text)
        for new in swap(AttackedText(text)):
            new_ids = tok(new.text)["input_ids"]
            assert len(new_ids) == len(ids), (text, new.text)
            for t, i in enumerate(new_ids):
                assert i in choices[t], (text, new.text, t)
            swaps += 1
    assert swaps >= 20


@pytest.mark.parametrize("arch", ["bow", "cnn", "lstm"])
def test_a_larger_training_box_gives_looser_bounds(arch):
    """eps > 1 (a certified victim's training target) bounds a superset of the choices: every margin bound
    is at most the eps = 1 bound, so training against it never claims more than the certificate."""
    sets = SubstitutionSets(build_word_tokenizer(WORDS), SYNONYMS)
    model, _ = _random_model(arch, 0, scale=1.0, word_layer=True)
    _, mask, choice_ids = batch_choices([sets.encode_text(t) for t in SENTENCES], sets.pad_id)
    classes = torch.zeros(len(SENTENCES), dtype=torch.long)
    with torch.no_grad():
        one = certified_margins(model, choice_ids, mask, classes, eps=1.0)
        two = certified_margins(model, choice_ids, mask, classes, eps=2.0)
    finite = torch.isfinite(one)
    assert bool((two[finite] <= one[finite] + 1e-5).all()) and bool((two[finite] < one[finite] - 1e-4).any())


def test_schedule_ramps_kappa_and_eps_after_the_clean_epochs():
    s = IBPSchedule(kappa=0.8, eps=1.0, clean_epochs=1, ramp_epochs=10)
    assert s.at(0.5) == (0.0, 0.0)
    assert s.at(6.0) == pytest.approx((0.4, 0.5))
    assert s.at(11.0) == pytest.approx((0.8, 1.0)) and s.at(30) == pytest.approx((0.8, 1.0))


def _data(n=120, seed=0):
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n):
        label = i % 2
        cue = rng.choice(["good", "great", "nice"] if label else ["bad", "awful", "dull"])
        filler = list(rng.choice(["the", "a", "film", "movie", "is", "plot"], size=int(rng.integers(2, 6))))
        filler.insert(int(rng.integers(0, len(filler) + 1)), str(cue))
        out.append((" ".join(filler), label))
    return out


def _glove(seed=0):
    rng = np.random.default_rng(seed)
    vectors = rng.normal(scale=0.5, size=(len(WORDS), 8)).astype("float32")
    for w in ("good", "great", "nice", "fine"):
        vectors[WORDS.index(w), 0] += 1.5
    for w in ("bad", "awful", "dull", "poor", "boring"):
        vectors[WORDS.index(w), 0] -= 1.5
    # "poor" and "boring" lie elsewhere: a clean model may lean on where the cue words alone lie
    vectors[WORDS.index("poor"), 1:] += 2.0
    return WORDS, vectors


def test_ibp_training_certifies_what_clean_training_does_not():
    data, glove = _data(), _glove()
    common = dict(glove=glove, epochs=8, batch_size=8, lr=1e-2, dev_fraction=0.2, progress=False, dropout=0.0)
    objective = IBPObjective(IBPSchedule(clean_epochs=1, ramp_epochs=3), synonyms=SYNONYMS)
    robust, tok, metrics = training.train_word_model("cnn", data[:96], data[96:], objective=objective, **common)
    clean, tok2, _ = training.train_word_model("cnn", data[:96], data[96:], **common)
    test = data[96:]
    _, cert_robust = certified_accuracy(robust, SubstitutionSets(tok, SYNONYMS), test)
    _, cert_clean = certified_accuracy(clean, SubstitutionSets(tok2, SYNONYMS), test)
    assert metrics["test_certified_accuracy"] == pytest.approx(cert_robust)
    assert metrics["ibp"]["kappa"] == 0.8 and metrics["test_accuracy"] >= 0.8
    assert cert_robust >= 0.6 and cert_robust > cert_clean + 0.2  # measured: 0.67 against 0.33


def test_catalogue_has_the_certified_victims_with_the_base_architectures():
    for name, base in (("mr-cnn-ibp", "mr-cnn"), ("mr-bow-ibp", "mr-bow"), ("mr-lstm-ibp", "mr-lstm")):
        spec = VICTIMS[name]
        assert spec.kind == "word" and spec.train_kwargs["arch"] == VICTIMS[base].train_kwargs["arch"]
        assert spec.train_kwargs["ibp"]["kappa"] == 0.8
        # the bag of words trains on boxes twice the certified one: 51.3 % certified instead of 42.3
        # (docs/design/certified.md)
        assert spec.train_kwargs["ibp"]["eps"] == (2.0 if name == "mr-bow-ibp" else 1.0)
        # the CNN decays its weights instead: 53.4 % certified instead of 43.3 (docs/design/certified.md)
        assert spec.train_kwargs.get("weight_decay", 0.0) == (1e-3 if name == "mr-cnn-ibp" else 0.0)
        # without these two, IBP on MR collapsed to a constant classifier (docs/design/certified.md)
        assert spec.train_kwargs["word_layer"] and spec.train_kwargs["train_embeddings"]


def _write_victim(tmp_path, monkeypatch):
    """mr-bow-ibp trained on tiny data into a temporary cache, through train_victim (like train-victims)."""
    monkeypatch.setenv("TA_SO_CACHE_DIR", str(tmp_path / "cache"))
    data = _data(60)
    metrics = victims.train_victim(
        "mr-bow-ibp", data=(data[:48], data[48:]), glove=_glove(), epochs=3, batch_size=8, progress=False
    )
    assert "test_certified_accuracy" in metrics and metrics["ibp"]["synonyms"]
    assert metrics["word_layer"] and metrics["train_embeddings"]
    csv = tmp_path / "data.csv"
    csv.write_text("text,label\n" + "".join(f'"{t}",{y}\n' for t, y in data[48:]))
    return csv


def test_certify_command_writes_shares_per_example(tmp_path, monkeypatch, capsys):
    from textattack_secondorder.cli import main

    csv = _write_victim(tmp_path, monkeypatch)
    out = tmp_path / "cert.json"
    assert main(["certify", "--model", "mr-bow-ibp", "--dataset", str(csv), "--out", str(out)]) == 0
    result = json.loads(out.read_text())
    s, rows = result["summary"], result["examples"]
    assert s["n"] == len(rows) == 12
    assert 0 <= s["certified_accuracy"] <= s["accuracy"] <= 1
    assert s["certified_accuracy"] == sum(r["correct"] and r["certified"] for r in rows) / 12
    assert {"text", "label", "prediction", "correct", "certified"} <= set(rows[0])
    assert "certified accuracy" in capsys.readouterr().out


def test_certify_refuses_bad_input_in_one_line(tmp_path, monkeypatch, capsys):
    from conftest import write_tiny_bert
    from textattack_secondorder.cli import main

    csv = _write_victim(tmp_path, monkeypatch)
    out = str(tmp_path / "o.json")
    from transformers import BertForSequenceClassification

    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] + WORDS
    bert = write_tiny_bert(tmp_path / "bert", vocab, BertForSequenceClassification, num_labels=2)
    empty = tmp_path / "empty.csv"
    empty.write_text("text,label\n")
    for argv, words in (
        (["--model", str(bert), "--dataset", str(csv)], "word victims only"),
        (["--model", "mr-nope", "--dataset", str(csv)], "unknown demo victim"),
        (["--model", "mr-bow-ibp", "--dataset", str(empty)], "no usable row: the data set is empty"),
    ):
        capsys.readouterr()
        assert main(["certify", *argv, "--out", out]) == 2
        err = capsys.readouterr().err
        assert words in err and len(err.strip().splitlines()) == 1, err


def test_stock_cli_takes_a_certified_victim_by_name(tmp_path, monkeypatch, capfd):
    from conftest import stock_textattack

    _write_victim(tmp_path, monkeypatch)
    ds = tmp_path / "ds.py"
    ds.write_text("import textattack\ndataset = textattack.datasets.Dataset([('a good film', 1), ('bad plot', 0)])\n")
    common = ["--dataset-from-file", f"{ds}^dataset", "--num-examples", "2", "--disable-stdout"]
    recipe = "alzantot-offline^pop_size=4,max_iters=2"
    code, out, err = stock_textattack(capfd, "attack", "--recipe", recipe, "--model", "mr-bow-ibp", *common)
    assert code == 0 and "Attack Results" in out, err[-2000:]
    code, out, err = stock_textattack(capfd, "attack", "--recipe", recipe, "--model", "mr-nope", *common)
    assert code == 2 and "unknown demo victim" in err and len(err.strip().splitlines()) == 1, err


def test_word_vectors_train_only_when_asked():
    data, glove = _data(40), _glove()
    common = dict(glove=glove, epochs=1, batch_size=8, dev_fraction=0, progress=False)
    frozen, tok, _ = training.train_word_model("bow", data, **common)
    trained, _, metrics = training.train_word_model("bow", data, train_embeddings=True, word_layer=True, **common)
    row = tok.get_vocab()["good"]
    start = torch.as_tensor(glove[1][WORDS.index("good")])
    assert torch.equal(frozen.embeddings.weight[row], start)
    assert not torch.equal(trained.embeddings.weight[row], start)
    assert trained.word_layer is not None and frozen.word_layer is None and metrics["train_embeddings"]


def test_defend_on_a_word_victim_says_what_sp_defense_did_on_word_models(tmp_path, monkeypatch, capsys):
    """SP-Defense has not reliably lowered SP-Attack's success on the package's word models (issue 53): ``defend``
    says so after training one, with the measured figures, instead of handing back a model silently."""
    from textattack_secondorder.cli import main
    from textattack_secondorder.defense.defend import WORD_MODEL_NOTE

    csv = _write_victim(tmp_path, monkeypatch)
    out = tmp_path / "defended"
    argv = ["defend", "--model", "mr-bow-ibp", "--dataset", str(csv), "--steps", "2", "--batch-size", "4"]
    assert main([*argv, "--out", str(out)]) == 0
    assert WORD_MODEL_NOTE in capsys.readouterr().out
    assert json.loads((out / "defense.json").read_text())["note"] == WORD_MODEL_NOTE  # the summary keeps it
