"""Counterfactual token bias B_{p,k} (Zhang et al. 2021, §4): sign, interval, debiasing, blacklist."""

import random

import numpy as np
import pandas as pd
import pytest
import textattack
import torch

from textattack_secondorder.evaluation.bias import (
    CounterfactualBias,
    TokenBiasMetric,
    bootstrap_ci,
    gendered_words,
    parse_pairs,
)
from textattack_secondorder.resources.proposers import WordProposer
from textattack_secondorder.transformations.neighborhood import WordSwapNeighborhood

POS = ["great", "wonderful", "brilliant", "moving", "fine"]
NEG = ["dull", "awful", "boring", "tedious", "weak"]
NOUNS = ["film", "movie", "story", "plot", "show", "script"]
VERBS = ["liked", "found", "called", "thought"]


class TableProposer(WordProposer):
    def __init__(self, table):
        super().__init__(device="cpu")
        self.table = table

    def propose(self, sentences, positions, top_k=21):
        return [[self.table.get(s[i].lower(), [])[:top_k] for i in pos] for s, pos in zip(sentences, positions)]


# neighbourhood: nouns and verbs swap among themselves; "king"/"her" are proposed to test the blacklist
TABLE = {n: [(m, 5.0 - 0.1 * j) for j, m in enumerate(x for x in NOUNS + ["king"] if x != n)] for n in NOUNS}
TABLE.update({v: [(m, 5.0 - 0.1 * j) for j, m in enumerate(x for x in VERBS + ["her"] if x != v)] for v in VERBS})
TABLE["the"] = [("this", 5.0), ("that", 4.5)]


def make_data(n, bias, seed):
    """'<pronoun> <verb> the <adj> <noun>'; label from the adjective; 'he' planted on positives."""
    rng = random.Random(seed)
    data = []
    for _ in range(n):
        y = rng.random() < 0.5
        adj = rng.choice(POS if y else NEG)
        pron = ("he" if rng.random() < bias else "she") if y else ("she" if rng.random() < bias else "he")
        data.append((f"{pron} {rng.choice(VERBS)} the {adj} {rng.choice(NOUNS)}", int(y)))
    return data


class BoW(textattack.models.wrappers.ModelWrapper):
    """Tiny bag-of-words logistic regression trained inside the test."""

    def __init__(self, data, epochs=60, seed=0):
        torch.manual_seed(seed)
        self.vocab = {w: i for i, w in enumerate(sorted({w for t, _ in data for w in t.split()}))}
        self.model = torch.nn.Linear(len(self.vocab), 2)
        x = self._x([t for t, _ in data])
        y = torch.tensor([label for _, label in data])
        opt = torch.optim.Adam(self.model.parameters(), lr=0.1)
        for _ in range(epochs):
            opt.zero_grad()
            torch.nn.functional.cross_entropy(self.model(x), y).backward()
            opt.step()

    def _x(self, texts):
        x = torch.zeros(len(texts), len(self.vocab))
        for i, t in enumerate(texts):
            for w in t.lower().split():
                if w in self.vocab:
                    x[i, self.vocab[w]] = 1.0
        return x

    def __call__(self, texts):
        with torch.no_grad():
            return torch.softmax(self.model(self._x(texts)), -1).numpy()


def measure(model, texts, **kw):
    bias = CounterfactualBias(
        model, WordSwapNeighborhood(TableProposer(TABLE)), max_k=2, progress=False, n_boot=500, **kw
    )
    return bias.run(texts, [("he", "she")])


def test_planted_bias_has_right_sign_interval_and_debiasing_shrinks_it():
    train = make_data(600, bias=0.9, seed=1)
    biased = BoW(train)
    # the paper's debiased model: gender-swap augmentation of the training data
    flip = {"he": "she", "she": "he"}
    swapped = [(" ".join(flip.get(w, w) for w in t.split()), y) for t, y in train]
    debiased = BoW(train + swapped)
    test_texts = [t for t, _ in make_data(40, bias=0.5, seed=2)]

    rep = measure(biased, test_texts).table.set_index("k")
    for k in (1, 2):
        # he -> she lowers the positive probability: B < 0, interval excluding 0
        assert rep.loc[k, "B"] < 0
        assert rep.loc[k, "ci_high"] < 0
    rep_d = measure(debiased, test_texts).table.set_index("k")
    for k in (0, 1, 2):
        assert abs(rep_d.loc[k, "B"]) < abs(rep.loc[k, "B"])


def test_gender_neighbourhoods_contain_no_blacklisted_word():
    model = BoW(make_data(200, 0.5, 3))
    texts = [t for t, _ in make_data(20, 0.5, 4)]
    report = measure(model, texts)
    bad = gendered_words() - {"he", "she"}
    inserted = report.sentences.loc[report.sentences["k"] > 0, "text"]
    assert len(inserted) > 0
    for text in inserted:
        words = set(text.lower().split())
        assert not (words & bad), text
    # a non-gender pair may use those words: the proposer's "king" shows up
    rep2 = CounterfactualBias(model, WordSwapNeighborhood(TableProposer(TABLE)), max_k=1, progress=False).run(
        texts, [("liked", "found")]
    )
    assert any("king" in t.split() for t in rep2.sentences["text"])


def test_filtered_test_set_and_counts():
    model = BoW(make_data(300, 0.9, 5))
    texts = [t for t, _ in make_data(30, 0.5, 6)]
    full = measure(model, texts)
    filt = measure(model, texts, filter_epsilon=0.0)
    assert full.counts["he/she"]["original"] > 0
    assert filt.counts["he/she"]["original"] == 0  # every naive difference is non-zero here


def test_metric_merges_shards_and_interval_covers_mean():
    a = TokenBiasMetric().update(("he", "she"), 1, [0, 0, 1], [0.1, 0.3, -0.2])
    b = TokenBiasMetric().update(("he", "she"), 1, [2, 3], [0.4, 0.0])
    row = a.merge(b).compute()[0]
    assert row["B"] == pytest.approx(np.mean([0.1, 0.3, -0.2, 0.4, 0.0]))
    assert row["sources"] == 4 and row["sentences"] == 5
    assert row["ci_low"] <= row["B"] <= row["ci_high"]
    assert bootstrap_ci([], []) != bootstrap_ci([], [])  # nan


def test_resume_reuses_finished_pairs(tmp_path):
    model = BoW(make_data(200, 0.9, 7))
    texts = [t for t, _ in make_data(15, 0.5, 8)]
    first = CounterfactualBias(model, WordSwapNeighborhood(TableProposer(TABLE)), max_k=1, progress=False)
    r1 = first.run(texts, "he/she", out_dir=tmp_path)
    calls = []
    second = CounterfactualBias(model, WordSwapNeighborhood(TableProposer(TABLE)), max_k=1, progress=False)
    second.run_pair = lambda *a: calls.append(a) or ([], 0)
    r2 = second.run(texts, "he/she", out_dir=tmp_path)
    assert not calls
    assert r2.table["B"].tolist() == pytest.approx(r1.table["B"].tolist())
    for name in ("bias_table.csv", "bias_sentences.csv", "bias_summary.json", "hist_k.png", "bias_vs_k.png"):
        assert (tmp_path / name).exists()


def test_parse_pairs():
    pairs = parse_pairs("gender")
    assert ("he", "she", "gender") in pairs and ("actor", "actress", "gender") in pairs
    assert parse_pairs("gay/straight")[0][:2] == ("gay", "straight")
    with pytest.raises(ValueError, match="Unknown pair spec"):
        parse_pairs("nonsense")


def test_resumed_pairs_are_exact_and_never_those_of_another_model(tmp_path):
    """docs/design/hostile-input.md: parts read back give the very same table; another model never reuses them."""
    texts = [t for t, _ in make_data(15, 0.5, 8)]
    model = BoW(make_data(200, 0.9, 7))
    r1 = CounterfactualBias(model, WordSwapNeighborhood(TableProposer(TABLE)), max_k=1, progress=False).run(
        texts, "he/she", out_dir=tmp_path
    )
    r2 = CounterfactualBias(model, WordSwapNeighborhood(TableProposer(TABLE)), max_k=1, progress=False).run(
        texts, "he/she", out_dir=tmp_path
    )
    pd.testing.assert_frame_equal(r2.table, r1.table, check_exact=True)
    pd.testing.assert_frame_equal(r2.sentences, r1.sentences, check_exact=True)
    calls = []
    other = CounterfactualBias(
        BoW(make_data(200, 0.1, 7)), WordSwapNeighborhood(TableProposer(TABLE)), max_k=1, progress=False
    )
    other.run_pair = lambda *a: calls.append(a) or ([], 0)
    other.run(texts, "he/she", out_dir=tmp_path)
    assert calls, "a pair measured on another model was reused"


class Words(textattack.models.wrappers.ModelWrapper):
    """P(class 1) rises with every 'she' and 'her' in the text: a model that tells the pair apart."""

    model = None

    def __call__(self, texts):
        p = np.array([0.2 + 0.1 * sum(w in ("she", "her") for w in t.lower().split()) for t in texts])
        return np.stack([1 - p, p], 1)


def versions(texts, pairs, **kw):
    """``{pair: [k = 0 texts]}``: both versions of every source sentence, as the bias run measures them."""
    bias = CounterfactualBias(Words(), WordSwapNeighborhood(TableProposer({})), max_k=0, progress=False, **kw)
    report = bias.run(texts, pairs)
    return {p: list(g["text"]) for p, g in report.sentences[report.sentences["k"] == 0].groupby("pair")}


def test_gender_swap_takes_the_pronoun_family_along_and_keeps_punctuation():
    texts = [
        "He changed jobs and needs to move his account.",
        "Her screen goes black when he starts a screen share!",
        "He told her the truth, twice.",
        "The keys are his, said the king.",
    ]
    got = versions(texts, [("he", "she"), ("king", "queen")])
    assert got["he/she"] == [
        "He changed jobs and needs to move his account.",
        "She changed jobs and needs to move her account.",
        "Her screen goes black when he starts a screen share!",  # Her: a determiner (PRP$), so his
        "His screen goes black when she starts a screen share!",
        "He told her the truth, twice.",  # her: an object (PRP), so him
        "She told him the truth, twice.",
    ]
    assert got["king/queen"] == ["The keys are his, said the king.", "The keys are hers, said the queen."]
    # the paper's swap: the pair's word alone
    kept = versions(texts[:1], [("he", "she")], swap_pronouns=False)["he/she"]
    assert kept[1] == "She changed jobs and needs to move his account."
    # --neutralize: the other pronouns become they/them, "her" by its role
    neutral = versions(["She told her the truth.", "He lost her keys."], [("he", "she")], neutralize_pronouns=True)
    assert neutral["he/she"] == [
        "He told them the truth.",
        "She told them the truth.",
        "He lost their keys.",
        "She lost their keys.",
    ]


def test_her_is_a_source_of_his_her_as_a_determiner_and_of_him_her_as_an_object():
    texts = ["I told her the truth.", "I lost her keys."]
    got = versions(texts, [("his", "her"), ("him", "her")])
    assert got["his/her"] == ["I lost his keys.", "I lost her keys."]
    assert got["him/her"] == ["I told him the truth.", "I told her the truth."]


def test_bias_table_prints_small_differences_with_their_digits_and_says_what_k_0_is():
    from textattack_secondorder.cli.bias_cmd import levels_line, signed

    assert signed(-3.5e-06) == "-3.5e-06" and signed(0.0) == "0" and signed(0.0123) == "+0.0123"
    assert signed(-1e-9) != "-0.0000" and signed(float("nan")) == "n/a"
    table = pd.DataFrame(
        [{"pair": "he/she", "k": 0, "B": -3.5e-06, "ci_low": -6.7e-05, "ci_high": 4.5e-05, "sources": 9}]
    )
    text = levels_line(table)
    assert "k = 0: the test sentences holding a word of the pair" in text and "naive" in text
    assert "1 of 1 rows move the class probability by less than 0.0005" in text
