"""SP-Attack's label rule (docs/design/single-word.md): a swap that reverses the sentence is not an adversarial
example."""

import numpy as np
import pytest
import textattack
from textattack.attack_results import FailedAttackResult, SuccessfulAttackResult
from textattack.shared import AttackedText

from conftest import stock_textattack
from textattack_secondorder.attack_recipes import SPAttack
from textattack_secondorder.constraints.label_lean import LabelLeanShift
from textattack_secondorder.constraints.label_rules import build_label_rule
from textattack_secondorder.constraints.lexicon_swap import SentimentLexiconSwap
from textattack_secondorder.constraints.negation_swap import NegationSwap, is_negator
from textattack_secondorder.datasets.label_words import LabelLean, SynonymLabelLean
from textattack_secondorder.evaluation.flip_capability import FlipCapability, FlipCapabilityResult
from textattack_secondorder.metrics.asr1 import ASR1
from textattack_secondorder.metrics.label_rule import ROW

POSITIVE = ["a superb film", "superb acting and a fine cast", "the cast is superb", "fine and superb work"]
NEGATIVE = ["a bad film", "bad acting and a dull cast", "the cast is bad", "dull and bad work"]
DATA = [(t, 1) for t in POSITIVE] + [(t, 0) for t in NEGATIVE] + [("a film with a cast", 1), ("a film", 0)]


def swap(text, index, word):
    words = text.split()
    words[index] = word
    t = AttackedText(" ".join(words))
    t.attack_attrs["newly_modified_indices"] = {index}
    return t


def test_lean_is_eq6_log_frequency_margin_and_shift_is_symmetric_for_two_labels():
    lean = LabelLean.from_examples(DATA)
    assert lean.lean("superb")[1] > 1.0 and lean.lean("superb")[0] < -1.0  # positive word, both views
    assert lean.lean("film") == pytest.approx([0.0, 0.0], abs=0.3)  # in both labels' sentences
    assert lean.lean("zebra").tolist() == [0.0, 0.0]  # unseen: leans nowhere
    assert lean.shift("superb", "bad") == pytest.approx(lean.shift("bad", "superb"))
    assert lean.shift("superb", "bad") > 2.0 and lean.shift("film", "movie") < 0.5


def test_lean_reads_more_than_two_labels():
    three = DATA + [("a loud action flick", 2), ("loud explosions , an action flick", 2)]
    lean = LabelLean.from_examples(three)
    assert lean.labels == [0, 1, 2]
    assert np.argmax(lean.lean("loud")) == 2 and lean.shift("a", "loud") > 1.0


def test_lean_of_data_too_small_for_any_word_leans_nowhere():
    lean = LabelLean.from_examples([("a good film", 1), ("a dull plot", 0)])  # no word twice
    assert lean.shift("good", "dull") == 0.0


def test_planted_reversal_is_refused_by_the_lean_rule_and_kept_by_the_papers():
    rule = build_label_rule("lean", lean=LabelLean.from_examples(DATA))
    x = AttackedText("the acting was superb and the cast fine")
    reversal, neutral = swap(x.text, 3, "bad"), swap(x.text, 5, "zebra")
    assert rule.kept(x, [reversal, neutral]) == [neutral]
    assert build_label_rule("paper").kept(x, [reversal, neutral]) == [reversal, neutral]
    # taking out the sentence's own evidence is refused too ("superb" -> an unseen word)
    assert rule.kept(x, [swap(x.text, 3, "zebra")]) == []


def test_rare_words_borrow_their_synonyms_lean_and_the_reversal_through_them_is_refused():
    # "dreary" and "splendid" occur once: alone they lean nowhere, pooled with "bad" / "superb" they lean far apart
    data = DATA + [("a dreary plot", 0), ("a splendid score", 1)]
    synonyms = {"dreary": ["bad", "dull"], "splendid": ["superb"], "plot": ["storyline"]}
    lean, pooled = LabelLean.from_examples(data), SynonymLabelLean.from_examples(data, synonyms)
    assert lean.shift("dreary", "splendid") == 0.0
    assert (
        pooled.lean("splendid")[1] > 1.0 and pooled.lean("dreary")[0] > 1.0 and pooled.shift("dreary", "splendid") > 2
    )
    assert pooled.lean("zebra").tolist() == [0.0, 0.0]  # neither it nor a synonym seen
    assert pooled.lean("Superb").tolist() == pooled.lean("superb").tolist()
    x = AttackedText("the plot was dreary and the score thin")
    reversal, neutral = swap(x.text, 3, "splendid"), swap(x.text, 1, "zebra")
    assert build_label_rule("lean", lean=lean).kept(x, [reversal, neutral]) == [reversal, neutral]
    rule = build_label_rule("lean-synonyms", lean=lean, synonym_lean=pooled)
    assert rule.kept(x, [reversal, neutral]) == [neutral]
    assert "also pooled with each word's synonyms" in rule.describe()
    with pytest.raises(ValueError, match="synonym-pooled"):
        build_label_rule("lean-synonyms", lean=lean)


def test_negators_in_or_out_are_refused_and_swapped_among_themselves_kept():
    x = AttackedText("the jokes are genuinely clever")
    c = NegationSwap()
    assert not c._check_constraint(swap(x.text, 3, "not"), x)
    assert c._check_constraint(swap(x.text, 3, "really"), x)
    y = AttackedText("the jokes are not clever")
    assert not c._check_constraint(swap(y.text, 3, "very"), y)
    assert c._check_constraint(swap(y.text, 3, "never"), y)
    assert is_negator("isn't") and is_negator("Nothing") and not is_negator("note")


def test_lexicon_refuses_opinion_words_in_or_out_that_the_training_data_does_not_lean_on():
    """A transformer's κ puts in common opinion words ("good", "amazing") that a small training set gives no lean:
    "good" is in as many negative sentences as positive ones here, so the lean rules keep the reversal, and the
    lexicon rule refuses it, and refuses taking one out too."""
    data = DATA + [("a good film", 1), ("not a good film", 0), ("good acting", 1), ("no good acting", 0)]
    lean, pooled = LabelLean.from_examples(data), SynonymLabelLean.from_examples(data, {})
    x = AttackedText("the plot was painfully slow and the cast thin")
    reversal, neutral = swap(x.text, 3, "good"), swap(x.text, 1, "storyline")
    assert lean.shift("painfully", "good") <= 1.0  # neither word leans in these sentences
    assert build_label_rule("lean-synonyms", lean=lean, synonym_lean=pooled).kept(x, [reversal, neutral]) == [
        reversal,
        neutral,
    ]
    rule = build_label_rule("lean-synonyms-lexicon", lean=lean, synonym_lean=pooled)
    assert rule.kept(x, [reversal, neutral]) == [neutral]
    assert rule.kept(x, [swap(x.text, 3, "zebra")]) == []  # "painfully" (VADER -2.4) taken out
    assert "VADER" in rule.describe() and "|valence| >= 1" in rule.describe()
    c = SentimentLexiconSwap(valences={"fine": 0.8, "great": 3.1})
    y = AttackedText("a fine film")
    assert c._check_constraint(swap(y.text, 2, "movie"), y) and not c._check_constraint(swap(y.text, 1, "great"), y)
    assert not c._check_constraint(AttackedText("a fine film indeed"), y)  # not a one-word swap


def test_lean_shift_refuses_what_is_not_a_one_word_swap():
    x = AttackedText("a superb film")
    c = LabelLeanShift(LabelLean.from_examples(DATA))
    assert not c._check_constraint(AttackedText("a superb film indeed"), x)


# ------------------------------------------------------------------------------------------- the recipe
class Planted(textattack.models.wrappers.ModelWrapper):
    """Negative iff 'bad' or 'zebra' appears (a word no training sentence has flips it too)."""

    model = None

    def __call__(self, texts):
        neg = np.array([float(any(w in t.lower().split() for w in ("bad", "zebra"))) for t in texts])
        return np.stack([0.1 + 0.8 * neg, 0.9 - 0.8 * neg], 1)


class Encoder:
    def encode(self, texts):
        return np.ones((len(texts), 2))


class LM:
    def perplexity(self, texts):
        return np.array([10.0 + 5.0 * ("zebra" in t) for t in texts])  # 'bad' reads better than 'zebra'


def kappa(words):
    fc = FlipCapability(words, 2)
    for i in range(len(words)):
        fc.update(range(0, len(words) - i), 1)
    return FlipCapabilityResult(fc, {"data": "synthetic"})


def sp_attack(tmp_path, **p):
    data = tmp_path / "train.csv"
    data.write_text("text,label\n" + "".join(f"{t},{y}\n" for t, y in DATA))
    return SPAttack.build(
        Planted(),
        kappa=kappa(["bad", "zebra"]),
        sentence_encoder=Encoder(),
        causal_lm=LM(),
        label_data=str(data),
        fluency_rule="paper",  # tests/test_fluency_rule.py
        **p,
    )


def run(attack, texts):
    ds = textattack.datasets.Dataset([(t, 1) for t in texts])
    args = textattack.AttackArgs(num_examples=len(texts), silent=True, disable_stdout=True)
    return textattack.Attacker(attack, ds, args).attack_dataset()


def test_sp_attack_reports_the_reversal_under_the_papers_rule_and_not_under_lean(tmp_path):
    (paper,) = run(sp_attack(tmp_path, label_rule="paper"), ["the acting was superb"])
    assert isinstance(paper, SuccessfulAttackResult) and "bad" in paper.perturbed_result.attacked_text.words
    lean_attack = sp_attack(tmp_path)  # the default rule
    (lean,) = run(lean_attack, ["the acting was superb"])
    assert isinstance(lean, SuccessfulAttackResult)
    words = lean.perturbed_result.attacked_text.words
    assert "bad" not in words and "zebra" in words and "superb" in words  # zebra put in, superb left alone
    assert lean_attack.summary_metrics[ROW].calculate([]).startswith("lean-synonyms-lexicon (no negator in or out")
    paper_attack = sp_attack(tmp_path, label_rule="paper")
    assert paper_attack.summary_metrics[ROW].calculate([]) == "paper (cosine > 0.8 only)"


def test_sp_attack_fails_when_every_flip_reverses(tmp_path):
    attack = SPAttack.build(
        Planted(),
        kappa=kappa(["bad"]),
        sentence_encoder=Encoder(),
        causal_lm=LM(),
        label_data=_csv(tmp_path),
        fluency_rule="paper",
        pool="paper",  # the paper's pool holds "bad"; the admissible one would leave it out (test_sp_attack_pool.py)
    )
    (result,) = run(attack, ["a superb film"])
    assert isinstance(result, FailedAttackResult)


def _csv(tmp_path):
    data = tmp_path / "train.csv"
    data.write_text("text,label\n" + "".join(f"{t},{y}\n" for t, y in DATA))
    return str(data)


def test_unknown_label_rule_is_one_line_naming_the_choices():
    from textattack_secondorder.attack_recipes.recipe import RecipeParameterError

    with pytest.raises(RecipeParameterError) as e:
        SPAttack.build(Planted(), kappa=kappa(["bad"]), label_rule="strict")
    choices = "choose one of 'lean-synonyms-lexicon', 'lean-synonyms', 'lean', 'paper'"
    assert f"label_rule='strict' is not allowed: {choices}" in str(e.value)
    assert "\n" not in str(e.value)


def test_unknown_label_rule_on_the_command_line_exits_2_in_one_line(capfd):
    code, out, err = stock_textattack(
        capfd, "attack", "--recipe", "sp-attack^label_rule='strict'", "--model", "mr-cnn", "--num-examples", "1"
    )
    assert code == 2
    lines = [line for line in err.strip().splitlines() if line.strip()]
    assert len(lines) == 1 and "choose one of 'lean-synonyms-lexicon', 'lean-synonyms', 'lean', 'paper'" in lines[0]


def test_label_data_without_labels_is_one_line(tmp_path):
    from textattack_secondorder.attack_recipes.recipe import RecipeParameterError

    plain = tmp_path / "plain.txt"
    plain.write_text("a film\nanother film\n")
    with pytest.raises(RecipeParameterError, match="has no labels"):
        SPAttack.build(Planted(), kappa=kappa(["bad"]), label_data=str(plain))


def test_asr1_with_a_label_rule_counts_only_kept_one_word_successes():
    class R:
        def __init__(self, text):
            self.attacked_text = AttackedText(text)
            self.ground_truth_output = 1

    def make(cls, a, b):
        r = cls.__new__(cls)
        r.original_result, r.perturbed_result = R(a), R(b)
        return r

    results = [
        make(SuccessfulAttackResult, "a superb film", "a bad film"),  # reversal
        make(SuccessfulAttackResult, "a superb film indeed", "a superb zebra indeed"),  # kept
        make(FailedAttackResult, "a superb film", "a superb film"),
    ]
    rule = build_label_rule("lean", lean=LabelLean.from_examples(DATA))
    assert ASR1().calculate(results) == pytest.approx(200 / 3, abs=0.01)
    assert ASR1(label_rule=rule).calculate(results) == pytest.approx(100 / 3, abs=0.01)


def test_asr1_label_rule_flag_unknown_is_one_line_exit_2(capsys):
    from textattack_secondorder.cli import main

    assert main(["attack", "--asr1-label-rule", "strict", "--recipe", "textfooler"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "--asr1-label-rule: label_rule='strict' is not a label rule" in err
    assert "choose one of 'lean-synonyms-lexicon', 'lean-synonyms', 'lean', 'paper'" in err


# ----------------------------------------------------------------------------- blind-read benchmark's score
def test_read_score_counts_kept_against_gold_and_against_the_readers_own_reading(monkeypatch):
    """A changed sentence keeps the label against MR's gold label and, separately, against the label the same
    reader gave its original (blank where the reader found the original unsure)."""
    import importlib.util
    from pathlib import Path

    import pandas as pd

    bench_dir = Path(__file__).resolve().parents[1] / "benchmarks"
    monkeypatch.syspath_prepend(str(bench_dir))
    spec = importlib.util.spec_from_file_location("label_read_benchmark", bench_dir / "label_read.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    rows = [  # example 1: the reader misreads the original (gold positive); example 2: original unsure
        ("original", 1, "positive", "negative", "negative"),
        ("changed", 1, "positive", "negative", "positive"),
        ("original", 2, "negative", "unsure", "negative"),
        ("changed", 2, "negative", "negative", "negative"),
    ]
    key = pd.DataFrame(
        [
            {"group": g, "victim": "mr-cnn", "system": "original" if g == "original" else "sp", "example": e}
            | {"label": gold, "a": a, "b": b}
            for g, e, gold, a, b in rows
        ]
    )
    out = bench.kept_columns(key, ["a", "b"]).set_index(["group", "example"])
    changed1, changed2 = out.loc[("changed", 1)], out.loc[("changed", 2)]
    assert (changed1.kept_a, changed1.own_a) == (0.0, 1.0)  # not gold, but what reader a read in the original
    assert (changed1.kept_b, changed1.own_b) == (1.0, 0.0)
    assert changed1.own_mean == 0.5 and changed1.own_all == 0.0
    assert np.isnan(changed2.own_a) and changed2.own_b == 1.0  # a found the original unsure: nothing to keep
    assert changed2.own_mean == 1.0 and np.isnan(out.loc[("original", 1)].own_a)


def test_asr1_label_data_follows_the_recipes_kappa_then_the_model_and_never_falls_back_on_mr(tmp_path):
    """--asr1-label-rule without --asr1-label-data: the data of the recipe's κ (as SP-Attack's label_data), else the
    data set the model's folder records, else one line asking for it."""
    import json
    from types import SimpleNamespace

    import pandas as pd

    from textattack_secondorder.cli.textattack_passthrough import _asr1_label_rule
    from textattack_secondorder.metrics.asr1 import LabelRuleForModel
    from textattack_secondorder.shared.errors import UsageError

    train = tmp_path / "train.csv"
    pd.DataFrame(DATA, columns=["text", "label"]).to_csv(train, index=False)
    FlipCapabilityResult(FlipCapability(["dull"], 2), {"dataset": str(train)}).save(tmp_path / "k.json")

    def rule_for(*rest):
        args = SimpleNamespace(rest=list(rest))
        return _asr1_label_rule(args), args.rest

    rule, rest = rule_for("--asr1-label-rule", "lean", "--recipe", f"sp-attack^kappa='{tmp_path / 'k.json'}'")
    assert isinstance(rule, LabelRuleForModel) and rule.data == str(train) and "κ" in rule.origin
    assert rest == ["--recipe", f"sp-attack^kappa='{tmp_path / 'k.json'}'"]
    flagged, _ = rule_for("--asr1-label-rule", "lean", "--asr1-label-data", "mr", "--recipe", "textfooler")
    assert flagged.data == "mr"
    unknown, _ = rule_for("--asr1-label-rule", "lean", "--recipe", "textfooler")
    assert unknown.data is None

    class Folderless(textattack.models.wrappers.ModelWrapper):
        model = None

        def __call__(self, texts):
            return np.array([[0.5, 0.5] for _ in texts])

    with pytest.raises(UsageError, match="pass --asr1-label-data YOUR_TRAIN.csv"):
        ASR1(label_rule=unknown).bind_model(Folderless())
    # a model folder that records its training data (as the demo victims' do): read from there
    folder = tmp_path / "model"
    folder.mkdir()
    (folder / "metrics.json").write_text(json.dumps({"dataset": str(train)}))

    class Recorded(Folderless):
        model = SimpleNamespace(config=SimpleNamespace(_name_or_path=str(folder), id2label={0: "neg", 1: "pos"}))

    ASR1(label_rule=unknown).bind_model(Recorded())
    assert str(train) in unknown.describe() and "the data the model's folder records" in unknown.describe()
