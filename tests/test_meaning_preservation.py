"""Meaning preservation (Michel et al., NAACL 2019): chrF, RDchrF, the success rule, logs, constraint, metric."""

import csv
import json

import numpy as np
import pandas as pd
import pytest
from sacrebleu import sentence_chrf
from textattack.models.wrappers import ModelWrapper

from textattack_secondorder.evaluation import meaning as mp
from textattack_secondorder.metrics.mean_chrf import MeanChrF

PAIRS = [
    ("the movie was a charming and witty delight", "the movie was a charming and witty delight"),
    ("the movie was a charming and witty delight", "the movie was a charmnig and wtity delight"),
    ("it is a boring , lifeless mess", "it is a tedious , lifeless mess"),
    (
        "Ils le réinvestissent directement en engageant plus de procès.",
        "Ilss le réinvestissent dierctement en engagaent plus de procès.",
    ),
    ("short", "completely different words here"),
]


@pytest.mark.parametrize("original,perturbed", PAIRS)
def test_source_chrf_is_sacrebleu_sentence_chrf_over_100(original, perturbed):
    expected = sentence_chrf(perturbed, [original], char_order=6, word_order=0, beta=2).score / 100
    assert mp.source_chrf(original, perturbed) == expected
    assert 0.0 <= expected <= 1.0


def test_identical_sentences_have_chrf_one_and_unrelated_ones_near_zero():
    assert mp.source_chrf("a fine film", "a fine film") == 1.0
    assert mp.source_chrf("abc", "xyz") == 0.0


def test_relative_destruction_eq1_hand_computed():
    # (s(y, y_M) - s(y, ŷ_M)) / s(y, y_M)
    assert mp.relative_destruction(0.8, 0.2) == pytest.approx(0.75)
    assert mp.relative_destruction(0.5, 0.25) == pytest.approx(0.5)
    # adversarial output at least as good: no destruction
    assert mp.relative_destruction(0.5, 0.5) == 0.0
    assert mp.relative_destruction(0.5, 0.9) == 0.0
    # the model was already useless: nothing to destroy (and no division by zero)
    assert mp.relative_destruction(0.0, 0.0) == 0.0


def test_rdchrf_uses_chrf_against_the_reference():
    ref, out, adv_out = (
        "They plow it right back into filing more lawsuits.",
        "They direct it by more cases.",
        ".. de plus.",
    )
    s_o = sentence_chrf(out, [ref], char_order=6, word_order=0, beta=2).score / 100
    s_a = sentence_chrf(adv_out, [ref], char_order=6, word_order=0, beta=2).score / 100
    assert s_a < s_o
    assert mp.rdchrf(ref, out, adv_out) == pytest.approx((s_o - s_a) / s_o)
    assert mp.rdchrf(ref, adv_out, out) == 0.0  # the "attack" improved the output


def test_success_rule_eq2():
    # 1 - s_src < d_tgt
    assert mp.is_successful(0.9, 0.5)  # 0.1 < 0.5
    assert not mp.is_successful(0.4, 0.5)  # 0.6 > 0.5
    assert not mp.is_successful(0.5, 0.5)  # 0.5 < 0.5 is false: strict
    assert not mp.is_successful(1.0, 0.0)  # unchanged source, unchanged output
    # the slide's example: source chrF 80.89, RDchrF 84.06 -> success; 54.46 / 0.00 -> failure
    assert mp.is_successful(0.8089, 0.8406)
    assert not mp.is_successful(0.5446, 0.0)


def test_classifier_target_score_is_label_agreement():
    rows = mp.evaluate_classification(
        [
            # correct -> flipped: d_tgt = 1, success because the source changed only a little
            {
                "original_text": "a fine film",
                "perturbed_text": "a fine flim",
                "original_output": 1,
                "perturbed_output": 0,
                "ground_truth_output": 1,
            },
            # already wrong: nothing to destroy
            {
                "original_text": "a dull film",
                "perturbed_text": "a dul film",
                "original_output": 1,
                "perturbed_output": 0,
                "ground_truth_output": 0,
            },
            # not flipped
            {
                "original_text": "a good film",
                "perturbed_text": "a goood film",
                "original_output": 1,
                "perturbed_output": 1,
                "ground_truth_output": 1,
            },
        ]
    )
    assert [r["target_destruction"] for r in rows] == [1.0, 0.0, 0.0]
    assert [r["success"] for r in rows] == [True, False, False]
    assert rows[0]["source_chrf"] == mp.source_chrf("a fine film", "a fine flim")
    s = mp.summary(rows)
    assert s["n"] == 3 and s["success_pct"] == pytest.approx(100 / 3)
    assert s["target_destruction"]["mean"] == pytest.approx(1 / 3)


def test_summarize_is_teapots_mean_std_and_5_95_range():
    values = np.linspace(0, 1, 21)
    s = mp.summarize(values)
    assert s["mean"] == pytest.approx(0.5)
    assert s["std"] == pytest.approx(np.std(values))
    assert s["p5"] == pytest.approx(0.05) and s["p95"] == pytest.approx(0.95)
    assert np.isnan(mp.summarize([])["mean"])


def test_seq2seq_rows_and_mismatched_lengths():
    rows = mp.evaluate_seq2seq(["le chat"], ["le caht"], ["the cat"], ["the hat"], ["the cat"])
    assert rows[0]["target_destruction"] == pytest.approx(mp.rdchrf("the cat", "the cat", "the hat"))
    with pytest.raises(ValueError):
        mp.evaluate_seq2seq(["a", "b"], ["a"], ["a"], ["a"], ["a"])


def _write_log(path):
    """A TextAttack-style CSV log (CSVLogger writes QUOTE_NONNUMERIC with [[changed]] words)."""
    rows = [
        {
            "original_text": "a [[fine]] film",
            "perturbed_text": "a [[flne]] film",
            "original_score": 0.1,
            "perturbed_score": 0.7,
            "original_output": 1,
            "perturbed_output": 0,
            "ground_truth_output": 1,
            "num_queries": 12,
            "result_type": "Successful",
        },
        {
            "original_text": "a truly dull film",
            "perturbed_text": "a truly dull film",
            "original_score": 0.8,
            "perturbed_score": 0.8,
            "original_output": 1,
            "perturbed_output": 1,
            "ground_truth_output": 0,
            "num_queries": 0,
            "result_type": "Skipped",
        },
        {
            "original_text": "[[great]] acting , [[great]] fun",
            "perturbed_text": "[[grate]] acting , [[graet]] fun",
            "original_score": 0.2,
            "perturbed_score": 0.4,
            "original_output": 1,
            "perturbed_output": 1,
            "ground_truth_output": 1,
            "num_queries": 30,
            "result_type": "Failed",
        },
        {  # a candidate that flipped the label but that the attack rejected (SP-Attack's label rule): Failed
            "original_text": "a [[great]] film",
            "perturbed_text": "a [[grand]] film",
            "original_score": 0.1,
            "perturbed_score": 0.6,
            "original_output": 1,
            "perturbed_output": 0,
            "ground_truth_output": 1,
            "num_queries": 40,
            "result_type": "Failed",
        },
    ]
    pd.DataFrame(rows).to_csv(path, quoting=csv.QUOTE_NONNUMERIC, index=False)


def test_read_attack_log_strips_markers_and_judges_successes_only(tmp_path):
    log = tmp_path / "attack.csv"
    _write_log(log)
    left_out = {}
    records = mp.read_attack_log(log, left_out=left_out)
    assert [r["index"] for r in records] == [0]
    assert left_out == {"Skipped": 1, "Failed": 2}
    assert records[0]["original_text"] == "a fine film" and records[0]["perturbed_text"] == "a flne film"
    records = mp.read_attack_log(log, result_types=("Successful", "Failed"))
    assert [r["index"] for r in records] == [0, 2, 3]
    assert records[1]["perturbed_text"] == "grate acting , graet fun"
    rows = mp.evaluate_classification(records)
    assert rows[0]["source_chrf"] == sentence_chrf("a flne film", ["a fine film"]).score / 100
    assert [r["target_destruction"] for r in rows] == [1.0, 0.0, 1.0]
    # the rejected candidate passes the meaning rule: judged as a success it would be counted as one
    assert [r["success"] for r in rows] == [True, False, True]
    assert len(mp.read_attack_log(log, result_types=None)) == 4


def test_meaning_command_on_a_log_and_on_seq2seq_files(tmp_path, capsys):
    from textattack_secondorder.cli import main

    log = tmp_path / "attack.csv"
    _write_log(log)
    out = tmp_path / "judged.csv"
    assert main(["meaning", "--log", str(log), "-o", str(out)]) == 0
    printed = capsys.readouterr().out
    # the successes only: the failed rows (one of them a rejected candidate that flipped the label) are not judged
    assert "Examples: 1\n" in printed and "Success percentage: 100.00 %" in printed and "5%-95%" in printed
    assert "result types judged: Successful 1" in printed
    assert (
        "not judged: Skipped 1 (never attacked; --include-skipped judges them), Failed 2 (its text is a candidate the "
        "attack rejected; --include-failed judges them)" in printed
    )
    df = pd.read_csv(out)
    assert list(df["index"]) == [0]
    assert df.loc[0, "original_text"] == "a fine film"
    summary = json.loads((tmp_path / "judged.summary.json").read_text())
    assert summary["result_types"] == {"Successful": 1} and summary["result_types_not_judged"]["Failed"] == 2
    assert main(["meaning", "--log", str(log), "--include-failed", "-o", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "Success percentage: 66.67 %" in printed and "result types judged: Failed 2, Successful 1" in printed
    assert list(pd.read_csv(out)["success"]) == [True, False, True]

    files = {}
    for name, lines in {
        "src": ["le chat dort", "il pleut"],
        "adv": ["le caht dort", "il pleut"],
        "oo": ["the cat sleeps", "it rains"],
        "oa": ["the hat sleeps", "it rains"],
        "ref": ["the cat is sleeping", "it is raining"],
    }.items():
        files[name] = tmp_path / f"{name}.txt"
        files[name].write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert (
        main(
            [
                "meaning",
                "--src",
                str(files["src"]),
                "--adv",
                str(files["adv"]),
                "--out-orig",
                str(files["oo"]),
                "--out-adv",
                str(files["oa"]),
                "--ref",
                str(files["ref"]),
            ]
        )
        == 0
    )
    df = pd.read_csv(tmp_path / "meaning.csv")
    assert len(df) == 2 and df.loc[1, "target_destruction"] == 0.0
    assert df.loc[0, "target_destruction"] == pytest.approx(
        mp.rdchrf("the cat is sleeping", "the cat sleeps", "the hat sleeps")
    )


# ------------------------------------------------------------------ constraint and metric in a real attack
class KeywordModel(ModelWrapper):
    """Positive (class 1) exactly when the text contains 'good'."""

    model = None

    def __call__(self, texts):
        return np.array([[0.1, 0.9] if "good" in t.lower().split() else [0.9, 0.1] for t in texts])


def _attack(constraints):
    from textattack import Attack
    from textattack.goal_functions import UntargetedClassification
    from textattack.search_methods import GreedySearch

    from textattack_secondorder.transformations.word_swap_word_list import WordSwapWordList

    model = KeywordModel()
    return Attack(UntargetedClassification(model), constraints, WordSwapWordList(["goad", "bad"]), GreedySearch())


def test_minimum_chrf_accepts_and_rejects():
    from textattack.shared import AttackedText

    from textattack_secondorder.constraints.chrf import MinimumChrF

    x = AttackedText("a good and heartfelt film")
    typo = AttackedText("a goad and heartfelt film")
    other = AttackedText("a bad and heartfelt film")
    s_typo, s_other = mp.source_chrf(x.text, typo.text), mp.source_chrf(x.text, other.text)
    assert s_typo > s_other
    c = MinimumChrF(min_chrf=(s_typo + s_other) / 2)
    assert c._check_constraint(typo, x) and not c._check_constraint(other, x)
    assert MinimumChrF(min_chrf=80).min_chrf == 0.8  # 0-100 scale accepted
    with pytest.raises(ValueError):
        MinimumChrF(min_chrf=-1)
    assert "min_chrf" in repr(c)


def test_minimum_chrf_in_an_attack_and_mean_chrf_metric():
    from textattack.attack_results import FailedAttackResult, SuccessfulAttackResult

    from textattack_secondorder.constraints.chrf import MinimumChrF

    text, label = "a good and heartfelt film", 1
    loose = _attack([MinimumChrF(min_chrf=0.1)]).attack(text, label)
    assert isinstance(loose, SuccessfulAttackResult)
    strict = _attack([MinimumChrF(min_chrf=0.99)]).attack(text, label)
    assert isinstance(strict, FailedAttackResult)

    metric = MeanChrF()
    expected = 100 * mp.source_chrf(text, loose.perturbed_result.attacked_text.text)
    assert metric.calculate([loose, strict]) == round(expected, 2)
    assert metric.calculate([strict]) == 0.0
    # accumulate over shards, then compute
    metric.reset()
    assert metric.update([loose]).update([loose, strict]).compute() == round(expected, 2)

    from textattack.metrics import Metric

    assert isinstance(metric, Metric)


def test_meaning_on_a_log_without_successes_prints_no_scores(tmp_path, capsys):
    from textattack_secondorder.cli import main

    log = tmp_path / "attack.csv"
    _write_log(log)
    df = pd.read_csv(log)
    df[df["result_type"] != "Successful"].to_csv(log, index=False)
    assert main(["meaning", "--log", str(log)]) == 0
    printed = capsys.readouterr().out
    assert "Examples: 0 (no row to judge" in printed and "nan" not in printed and "Success percentage" not in printed


def test_meaning_on_a_missing_file_is_one_line_exit_2(tmp_path, capsys):
    from textattack_secondorder.cli import main

    assert main(["meaning", "--log", str(tmp_path / "nope.csv")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "nope.csv: no such file" in err
    files = [str(tmp_path / f"{n}.txt") for n in ("src", "adv", "oo", "oa", "ref")]
    args = ["meaning", "--src", files[0], "--adv", files[1], "--out-orig", files[2], "--out-adv", files[3]]
    assert main([*args, "--ref", files[4]]) == 2
    assert "src.txt: no such file" in capsys.readouterr().err
