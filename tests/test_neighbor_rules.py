"""Neighbour rules (docs/design/neighbours.md): a vulnerable example x̃0 is a sentence a reviewer could have written.

The natural rule's parts (part of speech kept at every changed word; the causal LM's budget per changed
word) are TextAttack constraints on ``x̃`` against ``x0``; they are tested with stub taggers and causal LMs,
then SO-Beam is run on a planted model whose closest vulnerable neighbour is a broken sentence.
"""

import numpy as np
import pytest
import textattack
import torch
from textattack.attack_results import SuccessfulAttackResult
from textattack.shared import AttackedText

from test_second_order import SYNONYMS, TABLE, Planted, TableProposer
from textattack_secondorder.attack_recipes import SOBeam, SOEnum
from textattack_secondorder.constraints import NeighborFluency, NeighborPartOfSpeech, neighbor_part_of_speech
from textattack_secondorder.goal_functions.neighbor_rules import NEIGHBOR_RULES, NeighborRule, build_neighbor_rule
from textattack_secondorder.search_methods import SecondOrderBeamSearch
from textattack_secondorder.shared.recipe_params import RecipeParameterError

TAGS = {"a": "DT", "the": "DT", "one": "CD", "good": "JJ", "fine": "JJ", "movie": "NN", "film": "NN", "show": "NN"}


class WordTagger:
    """Tags each word from a table (unknown words: ``XX``)."""

    def tags(self, attacked_text):
        return tuple(TAGS.get(w.lower(), "XX") for w in attacked_text.words)

    def tag_many(self, texts):
        return [self.tags(t) for t in texts]


class TableLM:
    """Causal LM stand-in: a log-likelihood per text (unknown texts: -50); counts the texts it scored."""

    def __init__(self, table):
        self.table, self.scored = table, 0

    def log_likelihood_differences(self, reference, texts):
        self.scored += len(texts)
        return np.array([self.table.get(t, -50.0) for t in texts]) - self.table.get(reference, -50.0)


# "a good show" is the closest vulnerable neighbour, and the causal LM finds it broken (10 nats below x0);
# "the good film", two words away, is vulnerable too and costs 2 nats.
LOG_P = {"a good movie": -10.0, "a good film": -11.0, "a good show": -20.0, "the good movie": -11.0}
LOG_P |= {"the good film": -12.0, "the good show": -22.0}


def fragile_at_show_or_the_film(words):
    if "fine" in words and ("show" in words or {"the", "film"} <= words):
        return False
    return "good" in words or "fine" in words


def attack_one(text, monkeypatch, recipe=SOBeam, **params):
    monkeypatch.setattr(neighbor_part_of_speech, "load_pos_tagger", WordTagger)
    lm = params.pop("lm", TableLM(LOG_P))
    encoder = params.pop("sentence_encoder", None)
    attack = recipe.build(
        Planted(fragile_at_show_or_the_film),
        synonyms=SYNONYMS,
        masked_lm=TableProposer(TABLE),
        patch_rule="paper",
        causal_lm=lm,
        perplexity=False,
        **params,
    )
    if encoder is not None:  # the word similarity's encoder (the recipe loads the slot's on first use)
        for c in attack.goal_function.neighbor_rule.constraints:
            if hasattr(c, "_encoder"):
                c._encoder = encoder
    dataset = textattack.datasets.Dataset([(text, 1)])
    args = textattack.AttackArgs(num_examples=1, disable_stdout=True, silent=True)
    [res] = textattack.Attacker(attack, dataset, args).attack_dataset()
    return res, attack


# ------------------------------------------------------------------------------------------ constraints
def test_fluency_budget_grows_with_the_changed_words():
    x0 = AttackedText("a good movie")
    check = NeighborFluency(TableLM(LOG_P), budget=2.0)
    texts = [AttackedText(t) for t in ("a good film", "a good show", "the good film", "the good show")]
    # 1 nat for one word: kept; 10 nats for one word: refused; 2 nats for two: kept; 12 for two: refused
    assert [t.text for t in check._check_constraint_many(texts, x0)] == ["a good film", "the good film"]
    assert [t.text for t in NeighborFluency(TableLM(LOG_P), budget=6.0)._check_constraint_many(texts, x0)] == [
        "a good film",
        "the good film",
        "the good show",
    ]


def test_fluency_verdicts_are_cached_per_text():
    lm = TableLM(LOG_P)
    check = NeighborFluency(lm, budget=2.0)
    x0, t = AttackedText("a good movie"), AttackedText("a good film")
    check._check_constraint_many([t], x0)
    check._check_constraint_many([t, AttackedText("a good film")], x0)
    assert lm.scored == 1


def test_part_of_speech_refuses_a_changed_word_with_another_tag():
    check = NeighborPartOfSpeech(tagger=WordTagger())
    x0 = AttackedText("a good movie")
    texts = [AttackedText(t) for t in ("the good film", "one good movie", "a good movie")]
    assert [t.text for t in check._check_constraint_many(texts, x0)] == ["the good film", "a good movie"]


def test_part_of_speech_with_the_real_tagger():
    pytest.importorskip("spacy")
    check = NeighborPartOfSpeech()
    cases = [  # the broken x̃0 (the agreement, a function word in a content word's place) and a good one
        ("the actors are fantastic .", "the actors are because .", False),
        ("bisset delivers a game performance", "bisset have a game performance", False),
        (
            "the film thrusts the christian mythology into the machine",
            "the film thrusts the christian in into the machine",
            False,
        ),
        ("the film has several strong moments .", "the film has several strong portions .", True),
    ]
    for x0, x, kept in cases:
        assert bool(check._check_constraint_many([AttackedText(x)], AttackedText(x0))) is kept, x


def test_tagger_answers_every_text_of_a_call_longer_than_its_cache():
    """CI's so-beam smoke lost a row to a KeyError: a step of 5,000 neighbours evicted the original sentence's
    tags from the 4,096-entry cache in the same call that then looked them up."""
    pytest.importorskip("spacy")
    from textattack_secondorder.resources import load_pos_tagger
    from textattack_secondorder.resources.pos_tagger import PosTagger

    shared = load_pos_tagger()
    tagger = PosTagger(shared.name, cache_size=2)
    texts = [AttackedText(t) for t in ("a good movie", "the good film", "one fine show", "a good show")]
    tagger.tag_many(texts[:1])  # cached first: the oldest entry, dropped while the others are tagged
    tags = tagger.tag_many(texts)
    assert tags[0] == tagger.tags(texts[0]) and len(tags) == 4 and len(tagger._cache) <= 2


def test_rules_and_their_parameters():
    assert set(NEIGHBOR_RULES) == {"natural", "paper"}
    assert not build_neighbor_rule("paper")
    rule = build_neighbor_rule("natural", lm_budget=None, tagger=WordTagger())
    assert [type(c).__name__ for c in rule.constraints] == ["NeighborWordCount", "NeighborPartOfSpeech"]
    assert rule.max_words == 2 and rule.pick_among == 4
    uncapped = build_neighbor_rule("natural", lm_budget=None, tagger=WordTagger(), max_words=None, pick_among=1)
    assert [type(c).__name__ for c in uncapped.constraints] == ["NeighborPartOfSpeech"] and uncapped.max_words is None
    with pytest.raises(ValueError, match="not a neighbour rule"):
        build_neighbor_rule("fluent")
    capped = build_neighbor_rule(
        "natural", lm_budget=2.0, causal_lm=TableLM(LOG_P), tagger=WordTagger(), lm_max_scored=5
    )
    assert capped.constraints[-1].max_scored == 5
    bads = ({"neighbor_rule": "fluent"}, {"neighbor_lm_budget": -1.0}, {"neighbor_lm_budget": "2"})
    for bad in (*bads, {"neighbor_lm_max_scored": 0}):
        with pytest.raises(RecipeParameterError):
            SOBeam.build(Planted(fragile_at_show_or_the_film), synonyms=SYNONYMS, **bad)


# ---------------------------------------------------------------------------------------------- search
def test_so_beam_skips_a_broken_vulnerable_neighbour_and_finds_a_natural_one(monkeypatch):
    lm = TableLM(LOG_P)
    res, attack = attack_one("a good movie", monkeypatch, lm=lm, neighbor_lm_budget=2.0)
    assert isinstance(res, SuccessfulAttackResult)
    pr = res.perturbed_result
    assert pr.attacked_text.text == "the good film"  # not the closer, broken "a good show"
    assert pr.perturbed_words == 2
    assert attack.goal_function.refused_unnatural >= 1
    assert lm.scored >= 2  # the check ran on the vulnerable candidates


def test_paper_rule_reports_the_closest_vulnerable_neighbour_whatever_it_reads_like(monkeypatch):
    res, attack = attack_one("a good movie", monkeypatch, neighbor_rule="paper")
    assert res.perturbed_result.attacked_text.text == "a good show"
    assert not attack.goal_function.neighbor_rule and not attack.search_method.neighbor_rule


def test_so_enum_goes_one_level_deeper_past_a_broken_neighbour(monkeypatch):
    res, _ = attack_one("a good movie", monkeypatch, recipe=SOEnum)
    assert res.perturbed_result.attacked_text.text == "the good film"


def test_beam_survivors_are_the_best_the_rule_keeps():
    class Result:
        def __init__(self, text):
            self.attacked_text = AttackedText(text)

    search = SecondOrderBeamSearch(beam_width=2, neighbor_rule=NeighborRule("t", [NeighborPartOfSpeech(WordTagger())]))
    ranked = [Result(t) for t in ("one good movie", "a good film", "one good film", "the good movie", "a good show")]
    survivors = search._survivors(ranked, AttackedText("a good movie"))
    assert [r.attacked_text.text for r in survivors] == ["a good film", "the good movie"]
    search.neighbor_rule = None
    assert [r.attacked_text.text for r in search._survivors(ranked, None)] == ["one good movie", "a good film"]


# ------------------------------------------------------------------------------------------ summary rows
def test_perplexity_rows_say_over_which_rows_they_are_computed():
    from types import SimpleNamespace

    from textattack.attack_results import SkippedAttackResult

    from textattack_secondorder.metrics.second_order import (
        PERPLEXITY_ALL_ORIGINALS,
        PERPLEXITY_ORIGINAL,
        PERPLEXITY_VULNERABLE,
        second_order_summary_metrics,
    )

    class WordCountLM:  # "perplexity" = number of words
        def perplexity(self, texts):
            return np.array([len(t.split()) for t in texts], dtype=float)

    def row(cls, original, perturbed):
        r = cls.__new__(cls)
        r.original_result = SimpleNamespace(attacked_text=AttackedText(original))
        r.perturbed_result = SimpleNamespace(attacked_text=AttackedText(perturbed), patched_text=None)
        return r

    results = [
        row(SuccessfulAttackResult, "one two", "one two three"),
        row(SuccessfulAttackResult, "one two three four", "one two three four five six"),
        row(SkippedAttackResult, "one two three four five six seven eight nine ten", "-"),
    ]
    rows = second_order_summary_metrics(perplexity=True, causal_lm=WordCountLM())
    assert rows[PERPLEXITY_ALL_ORIGINALS].calculate(results) == 4.0  # the skipped row's original counts
    assert rows[PERPLEXITY_ORIGINAL].calculate(results) == 3.0
    assert rows[PERPLEXITY_VULNERABLE].calculate(results) == 4.5


def test_fluency_scores_at_most_max_scored_texts_per_sentence():
    lm = TableLM(LOG_P)
    check = NeighborFluency(lm, budget=2.0, max_scored=1)
    x0 = AttackedText("a good movie")
    assert check._check_constraint_many([AttackedText("a good film")], x0)
    # the sentence's one causal-LM judgement is spent: a natural neighbour is refused unscored
    assert not check._check_constraint_many([AttackedText("the good film")], x0)
    assert (lm.scored, check.unscored) == (1, 1)
    assert check._check_constraint_many([AttackedText("the good movie")], AttackedText("the good movie"))


def test_part_of_speech_leaves_names_and_split_words_alone():
    pytest.importorskip("spacy")
    check = NeighborPartOfSpeech()
    x0 = AttackedText("the talents of robert forster and a by-the-numbers effort .")
    name = AttackedText("the talents of robert de and a by-the-numbers effort .")
    split = AttackedText("the talents of robert forster and a clever effort .")
    other = AttackedText("the talents of robert forster and a by-the-numbers script .")
    assert [t.text for t in check._check_constraint_many([name, split, other], x0)] == [other.text]


def test_the_beam_leaves_out_what_the_causal_lm_already_refused():
    lm = TableLM(LOG_P)
    rule = build_neighbor_rule("natural", lm_budget=2.0, causal_lm=lm, tagger=WordTagger())
    beam_rule = rule.for_beam()
    x0 = AttackedText("a good movie")
    texts = [AttackedText(t) for t in ("a good show", "a good film", "the good film")]
    assert beam_rule.passes(x0, texts) == [True, True, True]  # nothing judged yet: nothing scored here
    assert lm.scored == 0
    assert rule.passes(x0, texts[:1]) == [False]  # the goal function's check refuses "a good show"
    assert beam_rule.passes(x0, texts) == [False, True, True]
    assert lm.scored == 1
    assert rule.for_beam(lm=True) is rule


def test_so_beam_checks_the_part_of_speech_before_the_victim_scores_a_neighbour(monkeypatch):
    """neighbor_pos_first=True (the default for a transformer on the CPU): a neighbour whose changed word lost its tag
    ('one good movie': CD for DT) never reaches the victim, and the finding is the one the after-scoring check gives."""
    found = {}
    for first in (True, False):
        res, attack = attack_one("a good movie", monkeypatch, neighbor_pos_first=first)
        seen = {t for batch in attack.goal_function.model.texts for t in batch}
        found[first] = (type(res).__name__, res.perturbed_result.attacked_text.text, seen)
    assert found[True][:2] == found[False][:2] == ("SuccessfulAttackResult", "the good film")
    assert "one good movie" in found[False][2] and "one good movie" not in found[True][2]
    assert "one good film" not in found[True][2]


def test_so_beam_tags_neighbours_before_a_transformer_on_the_cpu_by_default(monkeypatch):
    """neighbor_pos_first='auto' (the default): the part-of-speech check runs before the victim where a forward costs
    more than tagging (a transformer on the CPU: half the queries on MiniLM, docs/design/speed.md), after it for a
    word model or on a GPU, where the victim's forward is the cheap part."""
    from test_fast_wrapper import textattack_wrapper
    from textattack_secondorder.models.wrappers import transformer_on_cpu

    monkeypatch.setattr(neighbor_part_of_speech, "load_pos_tagger", WordTagger)

    def tags_first(victim, **params):
        attack = SOBeam.build(
            victim, synonyms=SYNONYMS, masked_lm=TableProposer(TABLE), patch_rule="paper", causal_lm=TableLM(LOG_P),
            perplexity=False, **params,
        )  # fmt: skip
        return any(isinstance(c, NeighborPartOfSpeech) for c in attack.constraints)

    monkeypatch.setattr(textattack.shared.utils, "device", torch.device("cpu"))  # where the Attacker puts the victim
    bert = textattack_wrapper("bert")
    assert transformer_on_cpu(bert) and tags_first(bert)
    assert not tags_first(bert, neighbor_pos_first=False)
    word_model = Planted(fragile_at_show_or_the_film)
    assert not transformer_on_cpu(word_model) and not tags_first(word_model)
    assert tags_first(word_model, neighbor_pos_first=True)
    assert not tags_first(bert, neighbor_rule="paper")  # the paper's rule has no part-of-speech check to move
    monkeypatch.setattr(textattack.shared.utils, "device", torch.device("cuda"))
    assert not transformer_on_cpu(bert) and not tags_first(bert)


# ------------------------------------------------------------------------- sentence budget, word similarity
def test_sentence_budget_holds_every_neighbour_to_the_same_loss_however_many_words_it_changed():
    x0 = AttackedText("a good movie")
    texts = [AttackedText(t) for t in ("a good film", "the good film", "the good show")]  # 1, 2 and 12 nats lost
    per_word = NeighborFluency(TableLM(LOG_P), budget=7.0)  # 7 nats a word: 14 for two words
    assert [t.text for t in per_word._check_constraint_many(texts, x0)] == [
        "a good film",
        "the good film",
        "the good show",
    ]
    both = NeighborFluency(TableLM(LOG_P), budget=7.0, total=1.5)  # the smaller of 7 a word and 1.5 for the sentence
    assert [t.text for t in both._check_constraint_many(texts, x0)] == ["a good film"]
    total = NeighborFluency(TableLM(LOG_P), budget=None, total=2.0)
    assert [t.text for t in total._check_constraint_many(texts, x0)] == ["a good film", "the good film"]
    with pytest.raises(ValueError, match="needs a per-word budget, a sentence budget, or both"):
        NeighborFluency(TableLM(LOG_P), budget=None, total=None)


class SimilarityTable:
    """Stands in for the sentence encoder's word similarity: the cosine of each (changed word, original word)."""

    def __init__(self, table):
        self.table, self.calls = table, 0

    def __call__(self, encoder, words, swaps):
        self.calls += 1
        return [np.array([[1.0, self.table.get((words[i], old[0]), 0.9)]]) for i, old in swaps]


def test_word_similarity_refuses_a_neighbour_whose_least_similar_changed_word_is_below_the_threshold(monkeypatch):
    from textattack_secondorder.constraints import neighbor_word_similarity

    table = SimilarityTable({("show", "movie"): 0.2, ("the", "a"): 0.8})
    monkeypatch.setattr(neighbor_word_similarity, "encoder_signals_many", table)
    check = neighbor_word_similarity.NeighborWordSimilarity(0.35, sentence_encoder=object())
    x0 = AttackedText("a good movie")
    texts = [AttackedText(t) for t in ("a good film", "the good film", "the good show")]
    assert [t.text for t in check._check_constraint_many(texts, x0)] == ["a good film", "the good film"]
    assert check.least_similarity(texts[2], x0) == pytest.approx(0.2)  # the worst of "the" (0.8) and "show" (0.2)
    calls = table.calls
    check._check_constraint_many(texts, x0)
    assert table.calls == calls  # verdicts cached per (x0, x̃)
    beam = NeighborRule("t", [check]).for_beam()  # the beam reuses what the check found, computing nothing new
    unseen = AttackedText("one good show")
    assert beam.passes(x0, [texts[2], unseen]) == [False, True] and table.calls == calls
    assert NeighborRule("t", [check]).for_beam(similarity=True).constraints == [check]


def test_so_beam_with_the_word_similarity_skips_a_vulnerable_neighbour_that_changed_the_words_sense(monkeypatch):
    from textattack_secondorder.constraints import neighbor_word_similarity

    # "a good show" is vulnerable and fluent enough, but "show" reads unlike "movie" there; "the good film" does not
    table = SimilarityTable({("show", "movie"): 0.1})
    monkeypatch.setattr(neighbor_word_similarity, "encoder_signals_many", table)
    lm = TableLM(LOG_P | {"a good show": -11.0})
    res, attack = attack_one("a good movie", monkeypatch, lm=lm, neighbor_similarity=0.35, sentence_encoder=object())
    assert res.perturbed_result.attacked_text.text == "the good film"
    plain, _ = attack_one("a good movie", monkeypatch, lm=TableLM(LOG_P | {"a good show": -11.0}))
    assert plain.perturbed_result.attacked_text.text == "a good show"


def test_depth_slack_stops_the_beam_that_many_steps_after_the_first_vulnerable_neighbour_it_refused(monkeypatch):
    # "a good show" (one word) is vulnerable and refused by the causal LM; "the good film" lies one step deeper
    found, _ = attack_one("a good movie", monkeypatch, depth_slack=1)
    assert found.perturbed_result.attacked_text.text == "the good film"
    stopped, attack = attack_one("a good movie", monkeypatch, depth_slack=0)
    assert not isinstance(stopped, SuccessfulAttackResult)
    assert [s["depth"] for s in attack.search_method.trace] == [1] and attack.search_method.trace[0]["flips"] >= 1


# ------------------------------------------------------------------------------------- first-order findings
def test_a_sentence_vulnerable_as_it_stands_is_reported_and_counted_apart(monkeypatch):
    from textattack_secondorder.metrics.second_order import FIRST_ORDER_ROW

    # the patch alone flips "a good show" (good -> fine): x̃0 = x0, a first-order finding
    res, attack = attack_one("a good movie", monkeypatch, neighbor_rule="paper")
    first, _ = attack_one("a good show", monkeypatch, neighbor_rule="paper")
    assert first.perturbed_result.perturbed_words == 0 and first.perturbed_result.first_order
    assert first.perturbed_result.log_fields()["first_order"] is True
    assert "x̃0 = x0: vulnerable as it stands" in first.perturbed_result.get_colored_output()
    assert not res.perturbed_result.first_order and res.perturbed_result.log_fields()["first_order"] is False
    assert attack.summary_metrics[FIRST_ORDER_ROW].calculate([res, first]) == 1


def test_the_natural_rule_reports_no_x0_tilde_deeper_than_its_word_cap_and_the_beam_stops_there(monkeypatch):
    # "the good film" (two words) is the closest natural vulnerable neighbour: a cap of one word refuses it
    found, _ = attack_one("a good movie", monkeypatch, neighbor_lm_budget=2.0, neighbor_max_words=2)
    assert found.perturbed_result.attacked_text.text == "the good film"
    capped, attack = attack_one("a good movie", monkeypatch, neighbor_lm_budget=2.0, neighbor_max_words=1)
    assert not isinstance(capped, SuccessfulAttackResult)
    assert attack.search_method.max_depth == 1 and max(s["depth"] for s in attack.search_method.trace) == 1
    paper, attack = attack_one("a good movie", monkeypatch, neighbor_rule="paper")
    assert attack.search_method.max_depth == 6  # the paper's rule keeps Algorithm 2's depth
