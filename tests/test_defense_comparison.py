"""A2T and the defense comparison (docs/design/defenses.md): the recipe, its part-of-speech rule, the adversarial
sets made from the model being trained, ``defend --compare`` (rows, resume, bad input), a test figure for a
user's CSV, and a defended Hugging Face folder that TextAttack loads again.

Tiny models built here; the recipes' heavy parts (sentence encoder, so-beam's language models) are replaced
by light attacks where only the orchestration is under test.
"""

import json

import numpy as np
import pandas as pd
import pytest
import torch

from conftest import tiny_word_cnn, write_tiny_bert

WORDS = ["good", "bad", "film", "movie", "plot", "great", "dull", "fine", "awful", "story", "the", "a", "is", "was"]
WORDS += ["nice", "boring", "an", "acting", ","]
DATA = [
    ("the film was good", 1),
    ("a great story", 1),
    ("the plot is dull", 0),
    ("an awful movie", 0),
    ("good acting , fine plot", 1),
    ("bad bad film", 0),
]
SYNONYMS = {"good": ["nice", "fine"], "great": ["good", "fine"], "dull": ["boring"], "awful": ["bad"], "bad": ["awful"]}


def so_wrapper(raw):
    from textattack_secondorder.models.wrappers import SOModelWrapper

    return SOModelWrapper(raw.model, raw.tokenizer, device="cpu", max_length=32)


def light_attack(wrapper):
    """A2T's search (gradient word importance, greedy swaps) over a small synonym list, without the
    sentence encoder and the tagger: cheap, and a real TextAttack ``Attack``."""
    from textattack import Attack
    from textattack.constraints.pre_transformation import RepeatModification
    from textattack.goal_functions import UntargetedClassification
    from textattack.search_methods import GreedyWordSwapWIR

    from textattack_secondorder.transformations.word_swap_synonym_list import WordSwapSynonymList

    return Attack(
        UntargetedClassification(wrapper),
        [RepeatModification()],
        WordSwapSynonymList(SYNONYMS, max_candidates=20),
        GreedyWordSwapWIR(wir_method="gradient"),
    )


# ----------------------------------------------------------------------------- the recipe
def test_universal_tags_are_nltks_reading_of_penn_tags():
    from textattack_secondorder.constraints.universal_part_of_speech import universal_tag

    expected = {"NN": "NOUN", "NNP": "NOUN", "VBZ": "VERB", "MD": "VERB", "JJR": "ADJ", "RB": "ADV", "WRB": "ADV"}
    expected.update({"IN": "ADP", "TO": "PRT", "DT": "DET", "PRP$": "PRON", "CC": "CONJ", "CD": "NUM", ",": "."})
    expected.update({"HYPH": ".", "FW": "X", "XX": "X"})
    assert {tag: universal_tag(tag) for tag in expected} == expected


class FixedTagger:
    """Penn tags by word (unknown words: NN); counts its calls."""

    TAGS = {"good": "JJ", "nice": "JJ", "run": "VB", "film": "NN", "movie": "NN", "the": "DT", "was": "VBD"}

    def __init__(self):
        self.calls = 0

    def tag_many(self, texts):
        self.calls += 1
        return [tuple(self.TAGS.get(w.lower(), "NN") for w in t.words) for t in texts]


def test_part_of_speech_rule_keeps_the_universal_tag_and_tags_a_step_in_one_call():
    from textattack.shared import AttackedText

    from textattack_secondorder.constraints.universal_part_of_speech import UniversalPartOfSpeech

    ref = AttackedText("the film was good")
    swaps = [ref.replace_word_at_index(3, w) for w in ("nice", "run", "movie")]  # ADJ, VERB, NOUN for an ADJ
    swaps += [ref.replace_word_at_index(1, "movie"), ref.replace_word_at_index(1, "run")]  # NOUN for NOUN, VERB
    tagger = FixedTagger()
    rule = UniversalPartOfSpeech(tagger=tagger, allow_verb_noun_swap=False)
    kept = rule._check_constraint_many(swaps, ref)
    assert [t.text for t in kept] == ["the film was nice", "the movie was good"]
    assert tagger.calls == 1
    # TextAttack's TextFooler setting lets a noun and a verb change places
    loose = UniversalPartOfSpeech(tagger=FixedTagger(), allow_verb_noun_swap=True)
    assert "the run was good" in [t.text for t in loose._check_constraint_many(swaps, ref)]


def test_a2t_offline_is_a2t_with_the_offline_parts():
    from textattack.constraints.pre_transformation import MaxModificationRate
    from textattack.constraints.semantics.sentence_encoders import SBERT
    from textattack.search_methods import GreedyWordSwapWIR

    from textattack_secondorder.attack_recipes import A2TOffline
    from textattack_secondorder.constraints.universal_part_of_speech import UniversalPartOfSpeech

    wrapper = so_wrapper(tiny_word_cnn(WORDS))
    attack = A2TOffline.build(wrapper, synonyms=SYNONYMS)
    by_type = {type(c): c for c in attack.constraints + attack.pre_transformation_constraints}
    assert by_type[MaxModificationRate].max_rate == 0.1 and by_type[MaxModificationRate].min_threshold == 4
    assert by_type[SBERT].threshold == 0.9 and by_type[SBERT].metric == "cosine"
    assert by_type[UniversalPartOfSpeech].allow_verb_noun_swap is False
    assert isinstance(attack.search_method, GreedyWordSwapWIR) and attack.search_method.wir_method == "gradient"
    assert attack.transformation.max_candidates == 20
    result = attack.attack("the film was good", 1)
    assert type(result).__name__ in ("SuccessfulAttackResult", "FailedAttackResult", "SkippedAttackResult")


def test_a2t_refuses_a_victim_without_gradient_in_one_line(tmp_path, capfd):
    from textattack_secondorder.attack_recipes import A2TOffline
    from textattack_secondorder.cli import main
    from textattack_secondorder.shared.errors import UserError

    class PredictionOnly:
        model, tokenizer = None, None

    with pytest.raises(UserError, match="gradient"):
        A2TOffline.build(PredictionOnly())
    src = tmp_path / "blackbox.py"
    src.write_text(
        "import numpy as np, textattack\n"
        "class M(textattack.models.wrappers.ModelWrapper):\n"
        "    model = None\n"
        "    def __call__(self, texts):\n"
        "        return np.tile([[0.3, 0.7]], (len(texts), 1))\n"
        "model = M()\n"
    )
    csv = tmp_path / "d.csv"
    pd.DataFrame(DATA, columns=["text", "label"]).to_csv(csv, index=False)
    code = main(
        ["defend", "--defense", "a2t", "--model", str(src), "--dataset", str(csv), "--out", str(tmp_path / "o")]
    )
    err = capfd.readouterr().err.strip().splitlines()
    assert code == 2 and "A2T" in err[-1] and "gradients" in err[-1], err
    assert not (tmp_path / "o").exists()


# ----------------------------------------------------------------------------- A2T's training
def test_a2t_schedule_is_one_clean_epoch_then_evenly_spaced_sets():
    from textattack_secondorder.defense.a2t import round_steps

    assert round_steps(3000, 3200, 32) == [100, 1066, 2033]  # MR: 100 clean steps, then 3 sets
    assert round_steps(40, 200, 32, rounds=3) == [7, 18, 29]
    assert round_steps(3, 30, 4) == [0, 1, 2]  # tiny budgets: the clean share shrinks, the sets stay


def test_a2t_batches_train_on_the_sets_made_from_the_current_model(monkeypatch):
    """Each set is made at its step from the model as it is then (in eval mode), and the following batches
    hold its texts with their own labels beside the training rows."""
    from textattack_secondorder.defense import a2t
    from textattack_secondorder.models.token_classifier import TokenClassifier

    raw = tiny_word_cnn(WORDS)
    clf = TokenClassifier(raw.model, raw.tokenizer, device="cpu")
    made = []

    def fake_sets(attack, examples, wanted, seed):
        made.append((clf.model.training, wanted, attack is unused))
        k = len(made)
        return [(t, t + " nice" * k, y) for t, y in examples[:wanted]], []  # set k: k times "nice"

    monkeypatch.setattr(a2t, "adversarial_examples", fake_sets)
    unused = object()  # the attack: never run, the sets are made by fake_sets
    batches = a2t.A2TBatches(clf, None, DATA, steps=12, batch_size=4, attack=unused, share=0.5)
    assert batches.rounds_at == {2, 5, 8}
    seen = []
    for step in range(12):
        clf.model.train()  # as the trainer leaves it
        ids, mask, y = batches()
        rows = [raw.tokenizer.decode(r[m.bool()]) for r, m in zip(ids, mask)]
        seen.append((step, rows, y.tolist()))
    assert made == [(False, 3, True)] * 3  # three sets, each attacked with the given attack in eval mode
    assert [e["step"] for e in batches.log] == [2, 5, 8]
    label_of = {t: y for t, y in DATA}
    for step, rows, ys in seen:
        for row, y in zip(rows, ys):
            k = row.count(" nice")
            assert label_of[row.replace(" nice", "")] == y  # an adversarial text keeps its original's label
            if k:
                assert [2, 5, 8][k - 1] <= step  # never before its set was made
    assert any(" nice" in r for _, rows, _ in seen for r in rows)
    assert all(" nice" not in r for s, rows, _ in seen if s < 2 for r in rows)  # the clean epoch


def test_a2t_sets_see_the_weights_of_their_step_not_a_cached_output():
    """The goal function caches model outputs by text: a set made after the weights changed must not reuse them."""
    from textattack_secondorder.defense.a2t import adversarial_examples

    raw = tiny_word_cnn(WORDS)
    wrapper = so_wrapper(raw)
    attack = light_attack(wrapper)
    with torch.no_grad():
        raw.model.classifier.bias.copy_(torch.tensor([0.0, 50.0]))  # everything positive
    first, results = adversarial_examples(attack, [("the film was good", 1)], 1, seed=0)
    assert type(results[0]).__name__ != "SkippedAttackResult"
    with torch.no_grad():
        raw.model.classifier.bias.copy_(torch.tensor([50.0, 0.0]))  # now everything negative
    _, again = adversarial_examples(attack, [("the film was good", 1)], 1, seed=0)
    assert type(again[0]).__name__ == "SkippedAttackResult"  # misclassified by the new weights: not attacked


def test_defend_a2t_trains_on_real_attacks_and_keeps_them(tmp_path):
    from textattack_secondorder.defense.defend import defend_model

    raw = tiny_word_cnn(WORDS)
    wrapper = so_wrapper(raw)
    before = [p.detach().clone() for p in raw.model.parameters()]
    # the attack that makes the sets is a parameter (a light one here; by default the a2t-offline recipe)
    record = defend_model(
        wrapper,
        DATA * 3,
        DATA,
        tmp_path / "a2t",
        defense="a2t",
        steps=9,
        batch_size=4,
        progress=False,
        attack=light_attack(wrapper),
    )
    assert record["defense"] == "a2t" and len(record["a2t_rounds"]) == 3
    assert [r["step"] for r in record["a2t_rounds"]] == [2, 4, 6]
    assert any(not torch.equal(a, b) for a, b in zip(before, raw.model.parameters()))
    examples = pd.read_csv(tmp_path / "a2t" / "a2t_examples.csv")
    assert list(examples.columns) == ["round", "step", "label", "original", "adversarial"]
    assert sum(r["successes"] for r in record["a2t_rounds"]) == len(examples)
    assert (examples["original"] != examples["adversarial"]).all()
    # the sets come from the attack given, whose swaps are the test's own synonym pairs
    for original, adversarial in zip(examples["original"], examples["adversarial"]):
        swaps = [(o, n) for o, n in zip(original.split(), adversarial.split()) if o != n]
        assert swaps and all(n in SYNONYMS.get(o, []) for o, n in swaps), (original, adversarial)


# ----------------------------------------------------------------------------- a user's data and folder
@pytest.fixture()
def bert_folder(tmp_path):
    from transformers import BertForSequenceClassification

    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] + WORDS
    return write_tiny_bert(
        tmp_path / "bert",
        vocab,
        BertForSequenceClassification,
        model_max_length=32,
        num_labels=2,
        initializer_range=0.5,
    )


def user_csv(path, n=40):
    rows = [(f"{t} {'good' if y else 'bad'} {i}", y) for i, (t, y) in enumerate(DATA * (n // len(DATA) + 1))][:n]
    pd.DataFrame(rows, columns=["text", "label"]).to_csv(path, index=False)
    return path


def test_defend_on_a_users_csv_measures_accuracy_on_held_out_rows(tmp_path, bert_folder, capfd):
    from textattack_secondorder.cli import main

    csv = user_csv(tmp_path / "my.csv")
    out = tmp_path / "defended"
    code = main(["defend", "--model", str(bert_folder), "--dataset", str(csv), "--steps", "2", "--out", str(out)])
    stdout = capfd.readouterr().out
    assert code == 0
    info = json.loads((out / "defense.json").read_text())
    assert info["test_accuracy_before"] is not None and info["test_accuracy_after"] is not None
    assert "n/a" not in stdout and "held out" in stdout and "held out" in info["test_data"]
    assert info["test_examples"] == 4 and info["training examples"] == 36  # 10 % held out, never trained on
    # the same rows for another seed; --test-dataset names them instead
    other = tmp_path / "other"
    assert main(["defend", "--model", str(bert_folder), "--dataset", str(csv), "--steps", "1", "--seed", "3",
                 "--out", str(other)]) == 0  # fmt: skip
    assert json.loads((other / "defense.json").read_text())["test_data"] == info["test_data"]
    test_csv = user_csv(tmp_path / "test.csv", n=6)
    third = tmp_path / "third"
    assert main(["defend", "--model", str(bert_folder), "--dataset", str(csv), "--test-dataset", str(test_csv),
                 "--steps", "1", "--out", str(third)]) == 0  # fmt: skip
    info3 = json.loads((third / "defense.json").read_text())
    assert info3["test_examples"] == 6 and info3["training examples"] == 40 and "test.csv" in info3["test_data"]


def test_a_defended_hugging_face_folder_loads_again_through_textattack(tmp_path, bert_folder):
    """The folder ``defend`` saves from a user's Hugging Face folder gives the defended model's logits through
    TextAttack's own loading path (``ModelArgs`` with ``model_from_huggingface``) and through ``--model OUT``."""
    import textattack

    from textattack_secondorder.defense.data import defense_data
    from textattack_secondorder.defense.defend import defend_model
    from textattack_secondorder.models.loading import load_model_wrapper

    train, test, _ = defense_data(str(user_csv(tmp_path / "my.csv")))
    defended = load_model_wrapper(str(bert_folder), device="cpu")
    out = tmp_path / "defended"
    defend_model(defended, train, test, out, steps=3, batch_size=4, progress=False)
    texts = ["the film was good", "an awful movie , bad plot"]
    expected = defended(texts).numpy()
    assert not np.allclose(load_model_wrapper(str(bert_folder), device="cpu")(texts).numpy(), expected)  # it trained
    for args in (textattack.ModelArgs(model_from_huggingface=str(out)), textattack.ModelArgs(model=str(out))):
        theirs = textattack.ModelArgs._create_model_from_args(args)  # --model-from-huggingface OUT / --model OUT
        np.testing.assert_allclose(np.asarray(theirs(texts)), expected, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(
        load_model_wrapper(str(out), device="cpu")(texts).numpy(), expected, rtol=1e-5, atol=1e-5
    )


# ----------------------------------------------------------------------------- defend --compare
def compare_settings(model, csv, **over):
    settings = {
        "model": str(model),
        "dataset": str(csv),
        "split": "train",
        "text_column": "text",
        "label_column": "label",
        "test_dataset": None,
        "holdout_share": 0.25,
        "train_examples": None,
        "steps": 2,
        "batch_size": 4,
        "lr": None,
        "embeddings": "default",
        "gradient_candidates": None,
        "a2t_rounds": None,
        "num_attacked": 4,
        "num_kappa": 4,
        "num_rho": 3,
        "num_so_beam": 3,
        "m": 4,
        "vocab_limit": 0,
        "sp_attack_recipe": "sp-attack",
        "textfooler_recipe": "textfooler-offline",
        "so_beam_recipe": "so-beam",
        "device": "cpu",
        "model_batch_size": 8,
    }
    settings.update(over)
    return settings


@pytest.fixture()
def light_comparison(monkeypatch):
    """Every recipe of the comparison, and A2T's attack, replaced by :func:`light_attack`; the trainings counted."""
    from textattack_secondorder.attack_recipes.a2t_offline import A2TOffline
    from textattack_secondorder.defense import comparison, measure

    monkeypatch.setattr(measure, "build_recipe", lambda recipe, wrapper, extra=None: light_attack(wrapper))
    monkeypatch.setattr(A2TOffline, "build", classmethod(lambda cls, wrapper, **params: light_attack(wrapper)))
    real_train = comparison._train
    trained = []
    monkeypatch.setattr(
        comparison,
        "_train",
        lambda s, d, defense, seed, *a: trained.append((defense, seed)) or real_train(s, d, defense, seed, *a),
    )
    return trained


def test_compare_measures_every_model_on_the_same_sentences_and_resumes(
    tmp_path, bert_folder, light_comparison, monkeypatch
):
    from textattack_secondorder.defense import comparison, measure
    from textattack_secondorder.shared.errors import UsageError

    csv = user_csv(tmp_path / "my.csv", n=40)
    settings = compare_settings(bert_folder, csv)
    out = tmp_path / "cmp"
    defenses = comparison.parse_defenses("sp-defense,vanilla,a2t,rand")
    assert defenses == ["vanilla", "rand", "a2t", "sp-defense"]  # the table's order

    # killed while a2t-seed0 is being measured: the models trained so far stay
    real_measure = measure.measure_model

    def killed(spec, *a, **k):
        if spec.endswith("a2t-seed0"):
            raise KeyboardInterrupt
        return real_measure(spec, *a, **k)

    monkeypatch.setattr(measure, "measure_model", killed)
    with pytest.raises(KeyboardInterrupt):
        comparison.run_comparison(settings, defenses, [0], out, progress=False)
    assert light_comparison == [("rand", 0), ("sp-defense", 0), ("a2t", 0)]  # A2T's long training last
    assert (out / "models" / "a2t-seed0" / "defense.json").exists() and (out / "rows" / "rand-seed0.json").exists()
    assert (out / "rows" / "sp-defense-seed0.json").exists()

    monkeypatch.setattr(measure, "measure_model", real_measure)
    rows = comparison.run_comparison(settings, defenses, [0], out, progress=False)
    assert light_comparison == [("rand", 0), ("sp-defense", 0), ("a2t", 0)]  # nothing trained twice
    table = json.loads((out / "comparison.json").read_text())
    assert table == rows and [(r["defense"], r["seed"]) for r in rows] == [
        ("vanilla", None),
        ("rand", 0),
        ("a2t", 0),
        ("sp-defense", 0),
    ]
    keys = ("accuracy", "rho", "rho_star", "sp_attack_asr", "textfooler_asr", "asr1", "so_beam_per_100")
    for r in rows:
        assert all(r[k] is not None for k in keys), r
        # the default rule, its label lean read from the CSV
        assert r["sp_attack_label_rule"] == "lean-synonyms-lexicon"

    # the same sentences for every model; κ from held-out test rows, never attacked, never trained on
    def originals(cell, attack):
        return [x["original"] for x in json.loads((out / "work" / cell / f"{attack}_rows.json").read_text())]

    attacked = {m: originals(m, "textfooler") for m in ("vanilla", "rand-seed0", "sp-defense-seed0")}
    assert len({tuple(v) for v in attacked.values()}) == 1 and len(attacked["vanilla"]) == 4
    assert originals("a2t-seed0", "so_beam") == attacked["vanilla"][:3]  # so-beam: the first 3 of them
    data = measure.comparison_data(settings)
    kappa_texts = {t for t, _ in data["sets"].kappa}
    assert kappa_texts and not kappa_texts & set(attacked["vanilla"])
    assert not kappa_texts & {t for t, _ in data["train"]}
    # SP-Attack's label rule reads the word lean from the training rows only, never the attacked or κ rows
    lean_rows = set(pd.read_csv(out / "label_data.csv").text)
    assert lean_rows == {t for t, _ in data["train"]} and not lean_rows & (kappa_texts | set(attacked["vanilla"]))
    kappa = json.loads((out / "work" / "rand-seed0" / "kappa_attack.json").read_text())
    assert kappa["settings"]["examples"] == len(kappa_texts)
    md = (out / "comparison.md").read_text()
    assert "so-beam per 100" in md and (out / "comparison.html").exists()
    # A2T's attack built no adversarial text on these rows: its row is marked, and the line under the table says why
    assert json.loads((out / "rows" / "a2t-seed0.json").read_text())["adversarial_examples"] == 0
    assert "| a2t ⚠ | 0 |" in md and "A2T built 0 adversarial examples" in md
    summary = json.loads((out / "comparison_summary.json").read_text())
    assert [s["defense"] for s in summary] == ["vanilla", "rand", "a2t", "sp-defense"]

    # a re-run is all reuse; another setting in the same --out is refused in one line
    comparison.run_comparison(settings, defenses, [0], out, progress=False)
    assert len(light_comparison) == 3
    with pytest.raises(UsageError, match="steps"):
        comparison.run_comparison({**settings, "steps": 3}, defenses, [0], out, progress=False)


@pytest.mark.parametrize(
    "bad,says",
    [
        (["--compare", "vanilla,nope"], "unknown defense 'nope'"),
        (["--compare", "vanilla", "--sp-attack-recipe", "sp-atack"], "unknown attack recipe 'sp-atack'"),
        (["--compare", "vanilla", "--sp-attack-recipe", "sp-attack^top_m=0"], "top_m"),
    ],
)
def test_compare_bad_input_is_one_line_exit_2(tmp_path, bert_folder, capfd, bad, says):
    from textattack_secondorder.cli import main

    csv = user_csv(tmp_path / "my.csv")
    out = tmp_path / "cmp"
    code = main(["defend", "--model", str(bert_folder), "--dataset", str(csv), "--out", str(out), *bad])
    err = capfd.readouterr().err.strip().splitlines()
    assert code == 2 and says in err[-1], err
    assert not (out / "models").exists()


def test_workers_are_spawned_with_progress_bars_off_and_the_parent_keeps_its_environment(monkeypatch, tmp_path):
    """``--jobs`` workers are spawned (by the pool's submits) with TQDM_DISABLE set: TextAttack's Attacker draws
    a bar even when silent, and three workers' bars interleave in one log. The parent's environment is restored."""
    import collections
    import concurrent.futures
    import os
    import subprocess
    import sys

    from textattack_secondorder.defense import (
        comparison,
        comparison_plan,
        comparison_report,
        comparison_warnings,
        measure,
    )
    from textattack_secondorder.models import loading

    seen = []

    made = {}

    class Pool:  # records the environment a worker spawned at submit time would inherit
        def __init__(self, *args, **kwargs):
            made.update(kwargs)

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

        def submit(self, fn, args):
            seen.append(dict(os.environ))
            future = concurrent.futures.Future()
            future.set_result({"defense": args[2], "seed": args[3]})
            return future

    monkeypatch.delenv("TQDM_DISABLE", raising=False)
    monkeypatch.setattr(concurrent.futures, "ProcessPoolExecutor", Pool)
    monkeypatch.setattr(comparison, "check_recipes", lambda settings: None)
    monkeypatch.setattr(comparison, "check_settings", lambda out, settings: None)
    monkeypatch.setattr(measure, "comparison_data", lambda settings, wrapper: None)
    monkeypatch.setattr(comparison_report, "write_report", lambda *args: None)
    monkeypatch.setattr(loading, "load_model_wrapper", lambda *args: None)
    monkeypatch.setattr(comparison_warnings, "plan_warnings", lambda *args: [])

    class Plan:  # no model to time: every cell estimated alike
        estimate = collections.defaultdict(float)
        lines = staticmethod(list)
        progress = staticmethod(str)

    monkeypatch.setattr(comparison_plan.ComparisonPlan, "calibrated", classmethod(lambda cls, *a, **k: Plan()))
    settings = {"model": "m", "device": None, "model_batch_size": 8}
    comparison.run_comparison(settings, ["vanilla", "continue"], [0, 1], tmp_path, jobs=2)
    assert len(seen) == 3 and all(env.get("TQDM_DISABLE") == "1" for env in seen)
    # and the workers end with the comparison's process (test_a_worker_ends_when_the_comparison_is_killed)
    from textattack_secondorder.shared.processes import exit_with_parent

    assert made["initializer"] is exit_with_parent and made["initargs"] == (os.getpid(),)
    assert "TQDM_DISABLE" not in os.environ
    # and tqdm reads it: a child with that environment draws no bar
    code = "import tqdm, sys; bar = tqdm.tqdm(range(3)); list(bar); sys.exit(0 if bar.disable else 1)"
    assert subprocess.run([sys.executable, "-c", code], env=seen[0]).returncode == 0


def test_a_worker_ends_when_the_comparison_is_killed(tmp_path):
    """``kill`` on ``defend --compare --jobs N`` must not leave its workers training on (for nobody, and beside a
    re-run that trains the same cell): a worker of the pool ends once its parent is gone (the pool
    ``run_comparison`` makes uses the initializer tried here)."""
    import os
    import signal
    import subprocess
    import sys
    import time

    code = """
import multiprocessing, os, sys, time
from concurrent.futures import ProcessPoolExecutor
from textattack_secondorder.shared.processes import exit_with_parent

if __name__ == "__main__":
    context = multiprocessing.get_context("spawn")
    pool = ProcessPoolExecutor(1, mp_context=context, initializer=exit_with_parent, initargs=(os.getpid(),))
    print(pool.submit(os.getpid).result(), flush=True)
    pool.submit(time.sleep, 120)  # a cell that trains for a long time
    time.sleep(120)
"""
    parent = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    worker = None
    try:
        worker = int(parent.stdout.readline())
        os.kill(parent.pid, signal.SIGKILL)  # killed: no handler runs, the pool is not shut down
        parent.wait()
        deadline = time.time() + 15
        while time.time() < deadline:
            try:
                os.kill(worker, 0)
            except ProcessLookupError:
                break
            time.sleep(0.2)
        else:
            raise AssertionError("the worker outlived the comparison's process")
        worker = None
    finally:
        parent.kill()
        if worker is not None:
            os.kill(worker, signal.SIGKILL)
