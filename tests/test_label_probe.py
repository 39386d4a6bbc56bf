"""SP-Attack's label probe (docs/design/single-word.md): a sentence-level reader fitted on the user's data refuses a
swap that moves it off the label, where the word counts see nothing (a word the data never holds)."""

import numpy as np
import pytest
from textattack.attack_results import FailedAttackResult, SuccessfulAttackResult
from textattack.shared import AttackedText

from test_label_rule import LM, kappa, run, swap
from textattack_secondorder.attack_recipes import SPAttack
from textattack_secondorder.constraints.label_probe import LabelProbe, LabelProbeDrop
from textattack_secondorder.constraints.label_rules import label_rule_for_data
from textattack_secondorder.resources.paths import cache_dir

# the data: "boring" only in negative sentences, "superb" only in positive ones; "drab" never
DATA = [
    ("the acting was superb", 1),
    ("a superb cast", 1),
    ("the plot was superb", 1),
    ("the acting was boring", 0),
    ("a boring cast", 0),
    ("the plot was boring", 0),
]


class Encoder:
    """A stand-in sentence encoder that knows, as a pretrained one does, that "drab" means what "boring" does."""

    GROUPS = ({"boring", "drab"}, {"superb"})

    def __init__(self):
        self.calls = 0

    def encode(self, texts):
        self.calls += 1
        rows = [[sum(w in g for w in t.lower().split()) for g in self.GROUPS] + [1.0] for t in texts]
        return np.asarray(rows, dtype=np.float64)


class Planted:
    """Victim: class 0 iff 'boring' or 'drab' appears, else class 1."""

    model = None

    def __call__(self, texts):
        neg = np.array([float(any(w in t.split() for w in ("boring", "drab"))) for t in texts])
        return np.stack([0.1 + 0.8 * neg, 0.9 - 0.8 * neg], 1)


def csv(tmp_path):
    path = tmp_path / "train.csv"
    path.write_text("text,label\n" + "".join(f"{t},{y}\n" for t, y in DATA))
    return str(path)


def test_the_probe_refuses_a_swap_that_moves_it_off_the_label_and_keeps_one_that_does_not():
    check = LabelProbeDrop(LabelProbe(DATA, encoder=Encoder(), cache=False), max_drop=0.25)
    x = AttackedText("the acting was superb")
    turned, neutral = swap(x.text, 3, "drab"), swap(x.text, 1, "cast")
    assert check.kept_for_label([turned, neutral], x, label=1) == [neutral]
    drops = check.drops(x, [turned, neutral], label=1)
    assert drops[0] > 0.5 and abs(drops[1]) < 0.25
    # without a label it takes its own reading of x (positive here): the same verdict
    assert check.kept_for_label([turned, neutral], x) == [neutral]


def test_the_fitted_probe_is_cached_and_reused_for_the_same_rows_and_encoder(monkeypatch):
    from sklearn.linear_model import LogisticRegression

    first = LabelProbe(DATA, encoder=Encoder())
    a = first.log_probs(["a drab cast"])
    assert len(list(cache_dir("label_probes").glob("*.npz"))) >= 1

    def no_fit(*args, **kwargs):
        raise AssertionError("the probe was fitted again")

    monkeypatch.setattr(LogisticRegression, "fit", no_fit)  # a cache hit reads the weights, it fits nothing
    assert np.allclose(LabelProbe(DATA, encoder=Encoder()).log_probs(["a drab cast"]), a)
    with pytest.raises(AssertionError, match="fitted again"):  # other rows: a new fit
        LabelProbe(DATA[:-1], encoder=Encoder()).log_probs(["a drab cast"])


def test_sp_attack_refuses_a_flip_the_word_counts_miss_but_the_probe_reads(tmp_path):
    # "drab" flips the victim; the training data never holds it, so its lean is 0 and the lean rule keeps the swap
    params = dict(
        kappa=kappa(["drab"]),
        sentence_encoder=Encoder(),
        causal_lm=LM(),
        label_data=csv(tmp_path),
        label_rule="lean",
        fluency_rule="paper",
    )
    (res,) = run(SPAttack.build(Planted(), label_probe_max_drop=None, **params), ["the acting was superb"])
    assert isinstance(res, SuccessfulAttackResult) and "drab" in res.perturbed_result.attacked_text.text
    attack = SPAttack.build(Planted(), **params)
    (res,) = run(attack, ["the acting was superb"])
    assert isinstance(res, FailedAttackResult)
    assert attack.search_method.refused_label >= 1
    row = attack.summary_metrics["Label rule:"].calculate([])
    assert "a label probe's log P(label) falls <= 0.25 nat" in row


def test_the_probe_is_built_only_from_class_numbers_and_is_off_under_the_papers_rule(tmp_path):
    rule = label_rule_for_data("lean", csv(tmp_path), num_classes=2, sentence_encoder=Encoder())
    assert [type(c).__name__ for c in rule.success_checks] == ["LabelProbeDrop"]
    assert label_rule_for_data("lean", csv(tmp_path), probe_max_drop=None).success_checks == []
    assert label_rule_for_data("paper").success_checks == []
