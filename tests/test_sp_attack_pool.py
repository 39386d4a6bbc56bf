"""SP-Attack's word pool (docs/design/single-word.md): the top M by κ among the words its rules could keep, so that a
victim whose top of κ is opinion words is still attacked with words that can count."""

from textattack.attack_results import FailedAttackResult, SuccessfulAttackResult

from conftest import stock_textattack
from test_label_rule import DATA, LM, Encoder, Planted, kappa, run
from textattack_secondorder.attack_recipes import SPAttack
from textattack_secondorder.constraints.label_lean import LabelLeanShift
from textattack_secondorder.constraints.label_rules import build_label_rule
from textattack_secondorder.constraints.lexicon_swap import SentimentLexiconSwap
from textattack_secondorder.constraints.negation_swap import NegationSwap
from textattack_secondorder.constraints.patch_part_of_speech import PatchPartOfSpeech
from textattack_secondorder.datasets.label_words import LabelLean
from textattack_secondorder.metrics.label_rule import POOL_ROW


def build(tmp_path, words, **p):
    data = tmp_path / "train.csv"
    data.write_text("text,label\n" + "".join(f"{t},{y}\n" for t, y in DATA))
    params = dict(kappa=kappa(words), sentence_encoder=Encoder(), causal_lm=LM(), label_data=str(data))
    return SPAttack.build(Planted(), **{**params, "fluency_rule": "paper", **p})


def test_each_check_says_which_words_it_could_keep_in_a_slot_that_leans_nowhere():
    assert NegationSwap().admits_word("film") and not NegationSwap().admits_word("never")
    lexicon = SentimentLexiconSwap({"terrible": -2.1, "okay": 0.9})
    assert lexicon.admits_word("okay") and lexicon.admits_word("zebra") and not lexicon.admits_word("terrible")
    lean = LabelLeanShift(LabelLean.from_examples(DATA), max_shift=0.5)
    assert lean.admits_word("zebra") and lean.admits_word("film") and not lean.admits_word("bad")
    pos = PatchPartOfSpeech(tagger=object())
    assert pos.admits_word("zebra") and pos.admits_word("quickly") and not pos.admits_word("besco")
    rule = build_label_rule("lean", lean=LabelLean.from_examples(DATA), max_shift=0.5)
    assert rule.admits("zebra") and not rule.admits("bad") and not rule.admits("not")
    assert build_label_rule("paper").admits("bad")  # a rule with nothing to check admits every word


def test_the_admissible_pool_attacks_with_the_top_words_the_rules_can_keep(tmp_path):
    # "bad" has the largest κ and reverses every sentence it enters; "zebra", next by κ, flips the victim neutrally
    paper = build(tmp_path, ["bad", "zebra"], top_m=1, pool="paper")
    (res,) = run(paper, ["a superb film"])
    assert isinstance(res, FailedAttackResult)  # the paper's top 1 is "bad", which the label rule refuses everywhere
    admissible = build(tmp_path, ["bad", "zebra"], top_m=1)
    (res,) = run(admissible, ["a superb film"])
    assert isinstance(res, SuccessfulAttackResult) and "zebra" in res.perturbed_result.attacked_text.text
    assert admissible.transformation.words == ["zebra"]
    row = admissible.summary_metrics[POOL_ROW].calculate([])
    assert row.startswith("admissible: 1 words, κ ") and "1 words of higher κ the rules refuse left out" in row
    assert paper.summary_metrics[POOL_ROW].calculate([]).startswith("paper: 1 words")


def test_under_the_papers_rules_the_admissible_pool_is_the_papers(tmp_path):
    attack = build(tmp_path, ["bad", "zebra", "not"], label_rule="paper")
    assert attack.transformation.words == ["bad", "zebra", "not"]


def test_a_pool_the_rules_leave_empty_fails_every_sentence_and_the_summary_says_what_to_do(tmp_path):
    attack = build(tmp_path, ["bad", "not"])
    (res,) = run(attack, ["a superb film"])
    assert isinstance(res, FailedAttackResult)
    row = attack.summary_metrics[POOL_ROW].calculate([res])
    assert "none of the 2 words of κ can be kept" in row and "pool='paper'" in row


def test_an_unknown_pool_on_the_command_line_exits_2_in_one_line(capfd):
    code, out, err = stock_textattack(
        capfd, "attack", "--recipe", "sp-attack^pool='widest'", "--model", "lstm-mr", "--num-examples", "1"
    )
    assert code == 2
    assert "pool='widest' is not allowed: choose one of 'admissible', 'paper'" in err
