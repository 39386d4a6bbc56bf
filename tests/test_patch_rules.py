"""Patch rules (docs/design/patch-rules.md): which synonym swaps may be the patch pair of a second-order attack.

The in-context rule's parts are TextAttack constraints on ``x ⊕ p`` against ``x``; they are tested here
with stub taggers and scorers (fast, exact), then once with the real spaCy tagger, the packaged WordNet
table and a tiny masked LM built in the test. The masked LM's word and sentence scores are checked
against the model's own log-probabilities.
"""

import numpy as np
import pytest
import textattack
from textattack.shared import AttackedText

from conftest import write_tiny_mlm
from textattack_secondorder.attack_recipes import SOBeam
from textattack_secondorder.constraints import CausalLMFit, PatchPartOfSpeech, PseudoLogLikelihoodDrop, WordNetSynonym
from textattack_secondorder.goal_functions import PatchWordSelector, apply_patch
from textattack_secondorder.goal_functions.patch_rules import (
    CHUNK,
    NO_PAIR_KEPT,
    PATCH_RULES,
    PatchRule,
    build_patch_rule,
)
from textattack_secondorder.goal_functions.patch_words import PatchPair
from textattack_secondorder.resources.proposers import MaskedLMProposer, WordProposer
from textattack_secondorder.shared.recipe_params import RecipeParameterError

torch = pytest.importorskip("torch")


class StubTagger:
    """Tags from a table keyed by the text; unknown texts get the tags of ``default``."""

    def __init__(self, table):
        self.table = table

    def tags(self, attacked_text):
        return self.table[attacked_text.text]

    def tag_many(self, texts):
        return [self.tags(t) for t in texts]


class StubScorer(WordProposer):
    """Masked LM stand-in: a fixed pseudo-log-likelihood per sentence."""

    scores_sentences = True

    def __init__(self, pll=None):
        super().__init__(device="cpu")
        self.pll = pll or {}

    def pseudo_log_likelihood(self, sentences):
        return [self.pll[" ".join(s)] for s in sentences]


class StubCausalLM:
    """Causal LM stand-in: a fixed log-likelihood per text (unknown texts: -50); counts its calls."""

    def __init__(self, table):
        self.table, self.calls = table, 0

    def log_likelihood(self, texts):
        self.calls += 1
        return np.array([self.table.get(t, -50.0) for t in texts])

    def log_likelihood_differences(self, reference, texts):
        ll = self.log_likelihood([reference, *texts])
        return ll[1:] - ll[0]


def swap(text, i, word):
    at = AttackedText(text)
    return at, apply_patch(at, PatchPair(at.words[i].lower(), word, i, 0.0))


# ---------------------------------------------------------------------------------------- constraints
def test_part_of_speech_keeps_content_words_and_their_inflection():
    x = "it captures the mood at last"
    tags = ("PRP", "VBZ", "DT", "NN", "IN", "JJ")
    table = {x: tags}
    for word, new_tag in [("catches", "VBZ"), ("caught", "VBD"), ("mala", "VBZ")]:
        table[x.replace("captures", word)] = tags[:1] + (new_tag,) + tags[2:]
    table[x.replace("at", "en")] = tags
    c = PatchPartOfSpeech(tagger=StubTagger(table))
    ok = lambda i, w: c._check_constraint(swap(x, i, w)[1], AttackedText(x))  # noqa: E731
    assert ok(1, "catches")  # VBZ for VBZ
    assert not ok(1, "caught")  # other tense: the form is not VBZ
    assert not ok(1, "mala")  # not an English word
    assert not ok(4, "en")  # a preposition is not a content word


def test_part_of_speech_refuses_a_word_beside_a_name_and_a_retagged_word():
    x = "the disney film is a good film"
    tags = ("DT", "NNP", "NN", "VBZ", "DT", "JJ", "NN")
    table = {x: tags, "the disney movie is a good film": tags, "the disney film is a good movie": tags}
    table["the disney film is a good picture"] = tags[:6] + ("VB",)  # the tagger reads the new word otherwise
    c = PatchPartOfSpeech(tagger=StubTagger(table))
    ref = AttackedText(x)
    beside_name = swap(x, 2, "movie")[1]  # "film" is a common noun (NN), next to the proper noun "disney"
    assert not c._check_constraint(beside_name, ref)  # refused for its neighbour alone...
    assert PatchPartOfSpeech(tagger=StubTagger(table), names=False)._check_constraint(beside_name, ref)  # ...else kept
    assert c._check_constraint(swap(x, 6, "movie")[1], ref)  # the same swap away from the name
    assert not c._check_constraint(swap(x, 6, "picture")[1], ref)


def test_wordnet_synonym_of_the_usual_sense_in_its_part_of_speech():
    x = "you have to dig pretty deep in the old movie"
    tags = ("PRP", "VBP", "TO", "VB", "RB", "RB", "IN", "DT", "JJ", "NN")
    c = WordNetSynonym(max_sense=2, tagger=StubTagger({x: tags}))
    ref = AttackedText(x)
    ok = lambda i, w: c._check_constraint(swap(x, i, w)[1], ref)  # noqa: E731
    assert ok(9, "film")  # movie.n.01
    assert ok(4, "fairly")  # pretty as an adverb: reasonably.r.01
    assert not ok(4, "handsome")  # a sense of the adjective, not of the adverb
    assert not ok(8, "antiquated")  # not among "old"'s first two senses
    with pytest.raises(ValueError, match="max_sense"):
        WordNetSynonym(max_sense=0, tagger=StubTagger({}))


def test_causal_lm_fit_compares_the_sentences_log_likelihoods():
    lm = StubCausalLM({"after all it works": -20.0, "after everything it works": -22.5})
    lm.table["subsequently all it works"] = -31.0
    c = CausalLMFit(lm, max_log_prob_diff=3.0)
    ref = AttackedText("after all it works")
    texts = [swap(ref.text, 1, "everything")[1], swap(ref.text, 0, "subsequently")[1]]
    assert [t.text for t in c._check_constraint_many(texts, ref)] == ["after everything it works"]
    assert lm.calls == 1  # the reference and every swap in one batch
    assert c.get_log_probs_at_index(texts, 1) == [-22.5, -31.0]  # TextAttack's LanguageModelConstraint interface


class _NoScores(WordProposer):
    def propose(self, sentences, positions, top_k=21):
        return [[[] for _ in p] for p in positions]


def test_pseudo_log_likelihood_drop_is_the_authors_filter():
    scorer = StubScorer({"a good film": -10.0, "a fine film": -11.4, "a mala film": -12.0})
    c = PseudoLogLikelihoodDrop(scorer, max_drop=1.5)
    ref = AttackedText("a good film")
    kept = c._check_constraint_many([swap("a good film", 1, "fine")[1], swap("a good film", 1, "mala")[1]], ref)
    assert [t.text for t in kept] == ["a fine film"]
    with pytest.raises(ValueError, match="does not score sentences"):
        PseudoLogLikelihoodDrop(_NoScores())


# ---------------------------------------------------------------------------------------- the rule
class Counting:
    """A constraint that keeps texts containing ``word`` and counts what it was asked about."""

    def __init__(self, word):
        self.word, self.seen = word, 0

    def _check_constraint_many(self, texts, reference):
        self.seen += len(texts)
        return [t for t in texts if self.word in t.words]


def test_rule_returns_the_first_kept_and_checks_later_candidates_only_when_needed():
    ref = AttackedText("a good film")
    texts = [swap("a good film", 1, w)[1] for w in ["fine"] * 40 + ["nice"]]
    c = Counting("nice")
    k, refused = PatchRule("t", [c]).first_kept(ref, texts)
    assert k == 40 and refused == {"Counting": 40}
    c2 = Counting("fine")
    assert PatchRule("t", [c2]).first_kept(ref, texts)[0] == 0 and c2.seen == CHUNK  # one chunk was enough


def test_a_sure_bar_reads_on_past_the_first_kept_chunk_for_a_surer_pair():
    ref = AttackedText("a good film")
    words = ["fine"] * CHUNK + ["nice"] * CHUNK + ["great"] * CHUNK  # three chunks, every candidate kept
    texts = [swap("a good film", 1, w)[1] for w in words]
    surety = {"fine": 0.6, "nice": 0.8, "great": 0.9}

    def key(t):
        return surety[t.words[1]]

    def first(sure):
        c = Counting("")
        c._check_constraint_many = lambda ts, r: (setattr(c, "seen", c.seen + len(ts)), ts)[1]
        return PatchRule("t", [c], prefer=key, sure=sure).first_kept(ref, texts)[0], c.seen

    assert first(None) == (0, CHUNK)  # the first chunk with a kept pair ends the scan
    assert first(0.7) == (CHUNK, 2 * CHUNK)  # read on to the first chunk with a pair at the bar, no further
    assert first(0.95) == (2 * CHUNK, 3 * CHUNK)  # none reaches it: the surest kept pair of all


def test_selector_takes_the_best_pair_the_rule_keeps_and_says_why_none():
    class Scores(textattack.models.wrappers.ModelWrapper):
        model = None

        def __call__(self, texts):
            table = {"good": 0.9, "mala": 0.0, "fine": 0.3, "movie": 0.5, "film": 0.55}
            return np.array([[1 - table.get(t, 0.5), table.get(t, 0.5)] for t in texts])

    syn = {"good": ["mala", "fine"], "movie": ["film"]}
    keep_fine = PatchRule("t", [Counting("fine")])
    pair, reason = PatchWordSelector(Scores(), syn, rule=keep_fine).select(AttackedText("a good movie"))
    assert (pair.p1, pair.p2) == ("good", "fine") and reason is None  # "mala" scores higher but is refused
    assert PatchWordSelector(Scores(), syn).select(AttackedText("a good movie"))[0].p2 == "mala"  # the paper's text
    pair, reason = PatchWordSelector(Scores(), syn, rule=PatchRule("t", [Counting("zzz")])).select(
        AttackedText("a good movie")
    )
    assert pair is None and reason.startswith(NO_PAIR_KEPT) and "3 candidate pairs" in reason


def test_synonyms_no_rule_can_score_are_no_candidates(tiny):
    """A user's list with empty strings, digits, punctuation, emoji or several words: those are left out,
    with every rule, and the pair is chosen among the rest (or the row is skipped, saying why)."""
    pytest.importorskip("spacy")

    class Scores(textattack.models.wrappers.ModelWrapper):
        model = None

        def __call__(self, texts):
            return np.array([[0.5, 0.5] if t == "movie" else [0.0, 1.0] for t in texts])

    x = AttackedText("i watched the movie yesterday")
    junk = ["", "  ", "m0vie!", "---", "\U0001f3ac", "motion picture", "-film", "2"]
    syn = {"movie": junk + ["film"], "watched": ["w@tched"]}
    lm = StubCausalLM({x.text: -30.0, "i watched the film yesterday": -31.0})
    rules = {
        "paper": build_patch_rule("paper"),
        "in-context": build_patch_rule("in-context", causal_lm=lm),
        "authors-code": build_patch_rule("authors-code", masked_lm=tiny[0]),
    }
    assert PatchWordSelector(Scores(), syn).candidates(x.words) == [("movie", "film", 3)]
    for name, rule in rules.items():
        pair, reason = PatchWordSelector(Scores(), syn, rule=rule).select(x)
        assert reason is None and (pair.p1, pair.p2) == ("movie", "film"), name
        pair, reason = PatchWordSelector(Scores(), {"movie": junk}, rule=rule).select(x)
        assert pair is None and reason.startswith("no patch word"), name


def test_rule_names_and_a_bad_name():
    assert set(PATCH_RULES) == {"judge", "in-context", "authors-code", "paper"}
    with pytest.raises(ValueError, match="'judge', 'in-context', 'authors-code', 'paper'"):
        build_patch_rule("strict")
    assert build_patch_rule("paper").constraints == []
    no_lm = build_patch_rule("in-context", causal_lm=StubCausalLM({}), lm_drop=None, tagger=StubTagger({}))
    assert [type(c).__name__ for c in no_lm.constraints] == ["PatchPartOfSpeech", "WordNetSynonym"]
    with pytest.raises(RecipeParameterError, match="patch_lm_drop=-1 is not allowed"):
        SOBeam.build(object(), patch_lm_drop=-1)
    with pytest.raises(RecipeParameterError, match="patch_rule='strict' is not allowed: choose one of"):
        SOBeam.build(object(), patch_rule="strict")


# ---------------------------------------------------------------------------------------- in the attack
class Planted(textattack.models.wrappers.ModelWrapper):
    """Negative when 'fine' and 'film' occur together, else positive when good/fine occur."""

    model = None

    def __call__(self, texts):
        out = []
        for t in texts:
            w = set(t.lower().split())
            pos = ("good" in w or "fine" in w) and not ("fine" in w and "film" in w)
            out.append([0.1, 0.9] if pos else [0.9, 0.1])
        return np.array(out)


class Table(WordProposer):
    def __init__(self, table):
        super().__init__(device="cpu")
        self.table = table

    def propose(self, sentences, positions, top_k=21):
        return [[self.table.get(s[i].lower(), [])[:top_k] for i in pos] for s, pos in zip(sentences, positions)]


class RefuseIn:
    """A rule constraint that refuses the patch swap in any sentence containing ``word``."""

    def __init__(self, word):
        self.word = word

    def _check_constraint_many(self, texts, reference):
        return [] if self.word in reference.words else list(texts)


def test_vulnerable_example_whose_patch_the_rule_refuses_is_not_reported():
    table = {"movie": [("film", 5.0)], "a": [("the", 5.0)], "the": [("a", 5.0)]}
    dataset = textattack.datasets.Dataset([("a good movie", 1)])
    args = textattack.AttackArgs(num_examples=1, disable_stdout=True, silent=True)
    attack = SOBeam.build(
        Planted(), synonyms={"good": ["fine"]}, masked_lm=Table(table), patch_rule="paper", neighbor_rule="paper"
    )
    (plain,) = textattack.Attacker(attack, dataset, args).attack_dataset()
    assert plain.perturbed_result.attacked_text.text == "a good film"
    # the same search with a rule that refuses good -> fine in any sentence with "film"
    rule = PatchRule("t", [RefuseIn("film")])
    attack = SOBeam.build(
        Planted(), synonyms={"good": ["fine"]}, masked_lm=Table(table), patch_rule=rule, neighbor_rule="paper"
    )
    assert attack.goal_function.patch_rule is rule
    (ruled,) = textattack.Attacker(attack, dataset, args).attack_dataset()
    assert type(ruled).__name__ == "FailedAttackResult"
    assert attack.goal_function.refused_vulnerable >= 1
    assert ruled.perturbed_result.log_fields()["patch_rule"] == "t"


# ---------------------------------------------------------------------------------------- masked-LM scores
VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "the", "a", "film", "movie", "good", "fine", "is", ".", "un"]
VOCAB += ["##watch", "##able", "it", "was"]


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    folder = write_tiny_mlm(tmp_path_factory.mktemp("mlm"), VOCAB)
    p = MaskedLMProposer(str(folder), device="cpu")
    return p, p.tokenizer


def _log_probs(model, ids):
    with torch.no_grad():
        return torch.log_softmax(model(input_ids=torch.tensor([ids])).logits[0], -1)


def test_pseudo_log_likelihood_masks_each_token_in_turn(tiny):
    p, tok = tiny
    words = ["the", "film", "is", "good", "."]
    ids = tok(" ".join(words))["input_ids"]
    want = 0.0
    for t in range(1, len(ids) - 1):
        x = list(ids)
        x[t] = tok.mask_token_id
        want += float(_log_probs(p.model, x)[t, ids[t]])
    got = p.pseudo_log_likelihood([words, ["a", "movie", "."]])
    assert got[0] == pytest.approx(want, abs=1e-4) and len(got) == 2


def test_in_context_rule_with_the_real_tagger_and_wordnet():
    pytest.importorskip("spacy")
    x = AttackedText("i watched the movie yesterday")
    texts = [swap(x.text, 3, w)[1] for w in ["film", "movies", "picture", "dashes"]]
    lm = StubCausalLM({x.text: -30.0, "i watched the film yesterday": -31.0, "i watched the picture yesterday": -30.5})
    rule = build_patch_rule("in-context", causal_lm=lm)
    kept, refused = rule.kept(x, texts)
    assert [t.words[3] for t in kept] == ["film"]
    assert refused == {"PatchPartOfSpeech": 2, "WordNetSynonym": 1}  # movies: NNS; dashes: no English NN form
    # picture shares movie's first sense, but a picture is first of all an image: refused by WordNet
    lm.table["i watched the film yesterday"] = -40.0
    assert rule.kept(x, texts)[1] == {"PatchPartOfSpeech": 2, "WordNetSynonym": 1, "CausalLMFit": 1}


def test_causal_lm_differences_score_only_after_the_shared_start_and_equal_the_full_sums():
    from transformers import GPT2Config, GPT2LMHeadModel

    from conftest import bert_tokenizer
    from textattack_secondorder.resources.perplexity import CausalLMScorer

    tok = bert_tokenizer(VOCAB)
    tok.bos_token = "[CLS]"
    torch.manual_seed(0)
    model = GPT2LMHeadModel(GPT2Config(vocab_size=len(VOCAB), n_positions=64, n_embd=16, n_layer=2, n_head=2))
    lm = CausalLMScorer(model.eval(), tok, device="cpu", batch_size=2)
    ref = "the film is good ."
    texts = ["the movie is good .", "the film is fine .", "the film was good ."]
    full = lm.log_likelihood([ref, *texts])
    np.testing.assert_allclose(lm.log_likelihood_differences(ref, texts), full[1:] - full[0], atol=1e-4)
    assert lm.log_likelihood_differences(ref, [ref])[0] == pytest.approx(0.0, abs=1e-6)
    assert np.isfinite(lm.perplexity([ref, "good"])).all()
