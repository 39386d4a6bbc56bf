"""SP-Attack changes exactly one word; ASR1 counts one-word successes only (Xu et al.)."""

import numpy as np
import pytest
import textattack
from textattack.attack_results import FailedAttackResult, SuccessfulAttackResult

from textattack_secondorder.attack_recipes import SPAttack
from textattack_secondorder.evaluation.flip_capability import FlipCapability, FlipCapabilityResult
from textattack_secondorder.metrics.asr1 import ASR1


class Planted(textattack.models.wrappers.ModelWrapper):
    """Negative iff 'awful' or 'dreadful' appears."""

    model = None

    def __call__(self, texts):
        neg = np.array([float(any(w in t.lower().split() for w in ("awful", "dreadful"))) for t in texts])
        return np.stack([0.1 + 0.8 * neg, 0.9 - 0.8 * neg], 1)


class Encoder:
    """Cosine 1 for the original; lower for 'dreadful' (to test the similarity rule)."""

    def encode(self, texts):
        return np.array([[1.0, 0.0] if "dreadful" not in t else [0.5, 0.866] for t in texts])


class LM:
    def perplexity(self, texts):
        return np.array([10.0 + 5.0 * ("awful" in t) for t in texts])


def kappa(words):
    fc = FlipCapability(words, 2)
    for i in range(len(words)):
        fc.update(range(0, len(words) - i), 1)  # earlier words flip more sentences
    return FlipCapabilityResult(fc, {"data": "synthetic"})


def attack(texts, **p):
    a = SPAttack.build(
        Planted(),
        kappa=kappa(["dreadful", "awful", "nice"]),
        sentence_encoder=Encoder(),
        causal_lm=LM(),
        # the paper's rules: these swaps reverse the label (tests/test_label_rule.py) and drop words where no word of
        # their kind fits (tests/test_fluency_rule.py)
        **{"label_rule": "paper", "fluency_rule": "paper", **p},
    )
    ds = textattack.datasets.Dataset([(t, 1) for t in texts])
    return textattack.Attacker(
        a, ds, textattack.AttackArgs(num_examples=len(texts), silent=True, disable_stdout=True)
    ).attack_dataset()


def test_sp_attack_changes_exactly_one_word_and_respects_similarity():
    results = attack(["a good film with a fine cast", "good"])
    for r in results:
        assert isinstance(r, SuccessfulAttackResult)
        orig, adv = r.original_result.attacked_text, r.perturbed_result.attacked_text
        assert len(orig.all_words_diff(adv)) == 1
        # 'dreadful' also flips but its cosine (0.5) is below 0.8: 'awful' is chosen
        assert "awful" in adv.text.lower().split()


def test_sp_attack_fails_when_nothing_similar_flips():
    results = attack(["a good film"], similarity_threshold=1.0)  # strict: nothing is above
    assert isinstance(results[0], FailedAttackResult)


def test_top_m_words_come_from_kappa():
    a = SPAttack.build(
        Planted(),
        kappa=kappa(["dreadful", "awful", "nice"]),
        top_m=1,
        sentence_encoder=Encoder(),
        causal_lm=LM(),
        label_rule="paper",
    )
    assert a.transformation.words == ["dreadful"]


def test_kappa_file_round_trip(tmp_path):
    path = kappa(["dreadful", "awful", "nice"]).save(tmp_path / "k.json")
    a = SPAttack.build(
        Planted(), kappa=str(path), top_m=2, sentence_encoder=Encoder(), causal_lm=LM(), label_rule="paper"
    )
    assert a.transformation.words == ["dreadful", "awful"]


def test_asr1_counts_only_one_word_successes():
    from textattack.attack_results import SkippedAttackResult
    from textattack.shared import AttackedText

    class R:
        def __init__(self, a, b):
            self.attacked_text = AttackedText(a)
            self.perturbed = b

    def make(cls, a, b):
        r = cls.__new__(cls)
        r.original_result, r.perturbed_result = R(a, b), R(b, b)
        return r

    results = [
        make(SuccessfulAttackResult, "a good film", "a bad film"),
        make(SuccessfulAttackResult, "a good film", "the bad film"),
        make(FailedAttackResult, "a good film", "a good film"),
        make(SkippedAttackResult, "a good film", "a good film"),
    ]
    assert ASR1().calculate(results) == pytest.approx(100 / 3, abs=0.01)
