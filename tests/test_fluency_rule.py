"""SP-Attack on the user's own task and data: a success reads as a sentence (the fluency rule) and keeps the label
by the user's data (the label rule's data, its smoothing, and the sentiment lexicon only on a sentiment task)."""

import json

import numpy as np
import pytest
import textattack
from textattack.attack_results import FailedAttackResult, SuccessfulAttackResult
from textattack.shared import AttackedText

from textattack_secondorder.attack_recipes import SPAttack
from textattack_secondorder.attack_recipes.recipe import RecipeParameterError
from textattack_secondorder.constraints import patch_part_of_speech
from textattack_secondorder.constraints.fluency_rules import build_fluency_rule
from textattack_secondorder.datasets.label_words import LabelLean, SynonymLabelLean
from textattack_secondorder.evaluation.flip_capability import FlipCapability, FlipCapabilityResult
from textattack_secondorder.metrics.label_rule import FLUENCY_ROW, ROW
from textattack_secondorder.metrics.seconds import ROW as SECONDS_ROW

TAGS = {"the": "DT", "a": "DT", "acting": "NN", "cast": "NN", "plot": "NN", "was": "VBD", "is": "VBZ"}
TAGS |= {"fine": "JJ", "dull": "JJ", "loud": "JJ", "zany": "JJ", "zebra": "NN", "wes": "NNP", "craven": "NNP"}


class WordTagger:
    """Tags each word from a table (unknown words: ``XX``)."""

    def tags(self, attacked_text):
        return tuple(TAGS.get(w.lower(), "XX") for w in attacked_text.words)

    def tag_many(self, texts):
        return [self.tags(t) for t in texts]


class LM:
    """Causal LM stand-in: every text costs 1 nat per word, 'zany' 9 nats more; perplexity for the joint score."""

    def __init__(self):
        self.scored = 0

    def _ll(self, text):
        return -float(len(text.split())) - 9.0 * ("zany" in text.split())

    def log_likelihood_differences(self, reference, texts):
        self.scored += len(texts)
        return np.array([self._ll(t) - self._ll(reference) for t in texts])

    def perplexity(self, texts):
        return np.array([10.0 + 5.0 * ("zany" in t) for t in texts])


class Encoder:
    def encode(self, texts):
        return np.ones((len(texts), 2))


class Planted(textattack.models.wrappers.ModelWrapper):
    """Class 0 iff one of ``flips`` appears, else class 1 (of ``classes``); no folder, no label names."""

    model = None

    def __init__(self, flips=("zebra", "zany", "loud"), classes=2):
        self.flips, self.classes = flips, classes

    def __call__(self, texts):
        hit = np.array([float(any(w in t.lower().split() for w in self.flips)) for t in texts])
        out = np.full((len(texts), self.classes), 0.1 / max(self.classes - 2, 1))
        out[:, 0], out[:, 1] = 0.05 + 0.8 * hit, 0.85 - 0.8 * hit
        return out


class Counting(Planted):
    """:class:`Planted`, keeping every text the victim is asked about in ``seen``."""

    def __init__(self, seen):
        super().__init__()
        self.seen = seen

    def __call__(self, texts):
        self.seen.extend(texts)
        return super().__call__(texts)


def kappa(words, settings=None):
    fc = FlipCapability(words, 2)
    for i in range(len(words)):
        fc.update(range(0, len(words) - i), 1)
    return FlipCapabilityResult(fc, settings or {"data": "synthetic"})


def train_csv(tmp_path, rows=None):
    path = tmp_path / "train.csv"
    rows = rows or [("the acting was fine", 1), ("the cast was dull", 0), ("a loud plot", 0), ("a fine cast", 1)]
    path.write_text("text,label\n" + "".join(f"{t},{y}\n" for t, y in rows))
    return str(path)


def run(attack, texts, label=1):
    ds = textattack.datasets.Dataset([(t, label) for t in texts])
    args = textattack.AttackArgs(num_examples=len(texts), silent=True, disable_stdout=True)
    return textattack.Attacker(attack, ds, args).attack_dataset()


def build(monkeypatch, tmp_path, words, **p):
    monkeypatch.setattr(patch_part_of_speech, "load_pos_tagger", WordTagger)
    # the paper's pool: these tests plant the κ words they attack with (the pool's own tests ask for 'admissible')
    params = {"kappa": kappa(words), "sentence_encoder": Encoder(), "causal_lm": LM(), "label_rule": "paper"}
    params["pool"] = "paper"
    return SPAttack.build(p.pop("model", Planted()), **{**params, **p})


# ------------------------------------------------------------------------------------------- fluency rule
def test_a_kappa_word_where_no_word_of_its_kind_fits_is_refused_before_the_victim(monkeypatch, tmp_path):
    # "zebra" (a noun) flips the victim wherever it is put; the paper's pool reports it in any place
    paper = build(monkeypatch, tmp_path, ["zebra"], fluency_rule="paper")
    (res,) = run(paper, ["the acting was fine"])
    assert isinstance(res, SuccessfulAttackResult)
    seen = []
    natural = build(monkeypatch, tmp_path, ["zebra"], model=Counting(seen), fluency_slots="content")
    (res,) = run(natural, ["the acting was fine"])
    # only a noun's place takes "zebra": "the zebra was fine" keeps every tag, and no other place reached the victim
    assert not any(t.split()[i] == "zebra" for t in seen for i in (0, 2, 3) if len(t.split()) == 4)
    assert isinstance(res, SuccessfulAttackResult)
    assert res.perturbed_result.attacked_text.text == "the zebra was fine"
    (res,) = run(build(monkeypatch, tmp_path, ["zebra"], fluency_slots="content"), ["a fine"])  # no noun to replace
    assert isinstance(res, FailedAttackResult)


def test_by_default_the_kappa_word_replaces_only_an_adjective_or_adverb(monkeypatch, tmp_path):
    # readers marked a put-in noun down far more often than a put-in adjective: by default only modifiers are slots
    seen = []
    (res,) = run(build(monkeypatch, tmp_path, ["zebra"], model=Counting(seen)), ["the acting was fine"])
    assert isinstance(res, FailedAttackResult) and not any("zebra" in t.split() for t in seen)
    (res,) = run(build(monkeypatch, tmp_path, ["loud"]), ["the acting was fine"])
    assert res.perturbed_result.attacked_text.text == "the acting was loud"
    with pytest.raises(RecipeParameterError) as e:
        build(monkeypatch, tmp_path, ["loud"], fluency_slots="nouns")
    assert "fluency_slots='nouns' is not allowed: choose one of 'modifiers', 'content'" in str(e.value)


def test_the_causal_lm_budget_refuses_a_fitting_word_that_costs_too_much(monkeypatch, tmp_path):
    # "zany" (an adjective) fits "fine"'s place and flips the victim, but costs 9 nats; "loud" costs nothing
    (res,) = run(build(monkeypatch, tmp_path, ["zany", "loud"]), ["the acting was fine"])
    assert res.perturbed_result.attacked_text.text == "the acting was loud"
    attack = build(monkeypatch, tmp_path, ["zany"])
    (res,) = run(attack, ["the acting was fine"])
    assert isinstance(res, FailedAttackResult)
    assert attack.search_method.refused_unfluent >= 1
    (res,) = run(build(monkeypatch, tmp_path, ["zany"], fluency_lm_budget=10.0), ["the acting was fine"])
    assert res.perturbed_result.attacked_text.text == "the acting was zany"


def test_an_article_before_the_swapped_word_still_agrees():
    from textattack_secondorder.constraints.article_agreement import ArticleAgreement

    c = ArticleAgreement()
    x = AttackedText("a new art form")
    assert not c._check_constraint(_swap(x, 1, "uplifting"), x) and c._check_constraint(_swap(x, 1, "bold"), x)
    y = AttackedText("an hour long")  # the letter test misreads "hour": the slot is left unchecked
    assert c._check_constraint(_swap(y, 1, "day"), y)


def _swap(text, index, word):
    words = list(text.words)
    words[index] = word
    t = AttackedText(" ".join(words))
    t.attack_attrs["newly_modified_indices"] = {index}
    return t


def test_no_word_of_a_name_is_replaced_and_no_string_the_lexicon_lacks_is_put_in():
    rule = build_fluency_rule("pos", tagger=WordTagger(), slots="content")
    x = AttackedText("wes craven is fine")
    name = AttackedText("zebra craven is fine")
    assert rule.kept(x, [name]) == []
    y = AttackedText("the acting was fine")
    noun, junk = AttackedText("the zebra was fine"), AttackedText("the besco was fine")
    assert rule.kept(y, [noun, junk]) == [noun]  # "besco" is no English noun


def test_summary_names_the_rules_and_gives_seconds_per_attacked_example(monkeypatch, tmp_path):
    attack = build(monkeypatch, tmp_path, ["loud"])
    results = run(attack, ["the acting was fine"])
    fluency = attack.summary_metrics[FLUENCY_ROW].calculate(results)
    assert fluency.startswith(
        "natural (an adjective or adverb, its part of speech kept; causal-LM log-likelihood falls <= 4 nats"
    )
    assert attack.summary_metrics[SECONDS_ROW].calculate(results) >= 0.0
    assert results[0].seconds > 0.0
    paper = build(monkeypatch, tmp_path, ["loud"], fluency_rule="paper")
    assert paper.summary_metrics[FLUENCY_ROW].calculate([]) == "paper (no check)"


def test_unknown_fluency_rule_is_one_line_naming_the_choices():
    with pytest.raises(RecipeParameterError) as e:
        SPAttack.build(Planted(), kappa=kappa(["loud"]), fluency_rule="strict")
    assert "fluency_rule='strict' is not allowed: choose one of 'natural', 'pos', 'paper'" in str(e.value)
    assert "\n" not in str(e.value)


# ------------------------------------------------------------------------------------- the label rule's data
def test_label_data_defaults_to_the_data_kappa_was_computed_on_and_never_to_mr(monkeypatch, tmp_path):
    from textattack_secondorder.datasets import examples, mr

    def no_mr(*a, **k):
        raise AssertionError("the movie reviews were loaded")

    monkeypatch.setattr(mr, "load_mr", no_mr)
    monkeypatch.setattr(examples, "load_mr", no_mr)
    data = train_csv(tmp_path)
    k = kappa(["loud"], {"data": f"{data}:train[:4]", "dataset": data})
    attack = build(monkeypatch, tmp_path, ["loud"], kappa=k, label_rule="lean-synonyms-lexicon")
    row = attack.summary_metrics[ROW].calculate([])
    assert f"label data {data} (the data κ was computed on)" in row
    assert "sentiment lexicon off (not a sentiment task)" in row  # the planted model has no label names
    # a κ file saved by `textattack-so flip-capability` records the data set; reloaded, it names it
    path = k.save(tmp_path / "kappa.json")
    assert FlipCapabilityResult.load(path).data_source() == data


def test_without_any_training_data_sp_attack_says_what_to_pass(monkeypatch, tmp_path):
    with pytest.raises(RecipeParameterError) as e:
        build(monkeypatch, tmp_path, ["loud"], label_rule="lean-synonyms-lexicon")
    assert "pass label_data=YOUR_TRAIN.csv (columns text,label), or label_rule='paper'" in str(e.value)
    assert "\n" not in str(e.value)
    with pytest.raises(RecipeParameterError) as e:
        SPAttack.build(Planted(), label_rule="paper", fluency_rule="paper")  # κ to compute, and no data named
    assert "pass kappa=KAPPA.json" in str(e.value) and "kappa_dataset=YOUR_TRAIN.csv" in str(e.value)


def test_label_data_without_the_models_labels_is_one_line(monkeypatch, tmp_path):
    data = train_csv(tmp_path, [("a loud plot", 7), ("a fine cast", 9)])
    with pytest.raises(RecipeParameterError) as e:
        build(monkeypatch, tmp_path, ["loud"], label_rule="lean", label_data=data)
    assert "has none of the model's labels (its labels: 7, 9; the model's: 0..1)" in str(e.value)
    with pytest.raises(RecipeParameterError, match="cannot be read|not found"):
        build(monkeypatch, tmp_path, ["loud"], label_rule="lean", label_data=str(tmp_path / "missing.csv"))


def test_one_negative_use_of_a_word_is_evidence_under_the_prior():
    data = [("the blender is muddy", 0), ("the jug is glass", 1), ("a fine sturdy jug", 2), ("the lid is fine", 2)]
    assert LabelLean.from_examples(data).shift("glass", "muddy") == 0.0  # Eq. 6: a word seen once leans nowhere
    lean = LabelLean.from_examples(data, prior=1.0)
    assert lean.lean("muddy")[0] == pytest.approx(np.log(4.0), abs=0.3)  # three labels: (1 + 1/3) / (1/3)
    assert lean.shift("glass", "muddy") > 1.0 and lean.lean("zebra").tolist() == [0.0, 0.0, 0.0]
    pooled = SynonymLabelLean.from_examples(data, {"murky": ["muddy"]}, prior=1.0)
    assert pooled.lean("murky")[0] > 1.0  # never seen, but its synonym was


def test_the_lexicon_applies_only_to_a_sentiment_task(monkeypatch, tmp_path):
    data = train_csv(tmp_path)
    k = kappa(["loud"], {"dataset": data})
    on = build(monkeypatch, tmp_path, ["loud"], kappa=k, label_rule="lean-synonyms-lexicon", task="sentiment")
    assert "VADER" in on.summary_metrics[ROW].calculate([])
    off = build(monkeypatch, tmp_path, ["loud"], kappa=k, label_rule="lean-synonyms-lexicon", task="topic")
    assert "sentiment lexicon off" in off.summary_metrics[ROW].calculate([])


def test_a_demo_victims_folder_records_its_data(tmp_path):
    from textattack_secondorder.models.provenance import recorded_training_data

    class Config:
        _name_or_path = str(tmp_path)

    class Model:
        config = Config()

    class Wrapper:
        model = Model()

    assert recorded_training_data(Wrapper()) is None
    (tmp_path / "metrics.json").write_text(json.dumps({"dataset": "mr"}))
    assert recorded_training_data(Wrapper()) == "mr"
