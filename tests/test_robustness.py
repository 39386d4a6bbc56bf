"""FlagEval robustness report: the RB-index, the perturbation levels and the report end to end (offline)."""

import json
import re
import shutil

import numpy as np
import pandas as pd
import pytest
from textattack.models.wrappers import ModelWrapper

from textattack_secondorder.evaluation import robustness as rb
from textattack_secondorder.evaluation.meaning import source_chrf

TEXTS = [
    ("a good and heartfelt film about growing up", 1),
    ("the acting is good , the story even better", 1),
    ("good fun from start to finish , with charming performances", 1),
    ("a tedious and lifeless mess that never takes off", 0),
    ("the plot is thin and the jokes fall flat", 0),
    ("good intentions cannot save this boring script", 0),  # the keyword model gets this one wrong
    ("an utterly forgettable slog through tired cliches", 0),
    ("a wonderful , good natured comedy", 1),
]
SYNONYMS = {
    "film": ["movie", "picture"],
    "good": ["nice", "fine"],
    "boring": ["dull"],
    "story": ["tale"],
    "tedious": ["wearisome"],
    "acting": ["performing"],
    "plot": ["storyline"],
    "comedy": ["farce"],
}


class KeywordModel(ModelWrapper):
    """Positive (class 1) exactly when the word 'good' occurs: fragile to typos and synonyms by construction."""

    model = None

    def __call__(self, texts):
        return np.array([[0.1, 0.9] if "good" in re.findall(r"[a-z]+", t.lower()) else [0.9, 0.1] for t in texts])


# ------------------------------------------------------------------ the index
def test_rb_index_on_hand_computed_accuracies():
    # RB = (1/T) Σ (Acc_org - Acc_i) / Acc_org
    assert rb.robustness_index(0.8, [0.6, 0.4]) == pytest.approx((0.25 + 0.5) / 2)
    assert rb.robustness_index(0.9, [0.9, 0.9, 0.9]) == 0.0
    assert rb.robustness_index(0.5, [0.0]) == 1.0


def test_rb_index_is_negative_when_perturbed_sets_are_easier():
    assert rb.robustness_index(0.5, [0.6, 0.55]) == pytest.approx((-0.2 - 0.1) / 2)
    assert rb.robustness_index(0.5, [0.6, 0.55]) < 0


def test_rb_index_rejects_degenerate_inputs():
    with pytest.raises(ValueError):
        rb.robustness_index(0.0, [0.1])
    with pytest.raises(ValueError):
        rb.robustness_index(0.7, [])


# ------------------------------------------------------------------ perturbations
def test_char_perturbations_are_seeded_realistic_and_change_the_text():
    texts = [t for t, _ in TEXTS]
    a = rb.CharPerturbation(seed=1)(texts)
    assert a == rb.CharPerturbation(seed=1)(texts)  # deterministic
    assert a != rb.CharPerturbation(seed=2)(texts)  # the seed matters
    # per-sentence seeding: a sentence gets the same typos in any set
    assert rb.CharPerturbation(seed=1)(texts[3:5]) == a[3:5]
    for original, perturbed in zip(texts, a):
        assert perturbed != original
        assert len(perturbed) == len(original)  # replacements and swaps only
        touched = sum(c != d for c, d in zip(original, perturbed))
        letters = sum(c.isalpha() for c in original)
        assert 1 <= touched <= min(15, max(1, int(rb.CHAR_MAX_FRACTION * letters)) + 1)
        assert original.split(" ").__len__() == perturbed.split(" ").__len__()  # word boundaries kept
    long_text = "this is a considerably longer sentence with many many letters to perturb for the test " * 2
    touched = sum(c != d for c, d in zip(long_text, rb.CharPerturbation(seed=0).perturb_one(long_text)))
    assert 3 <= touched <= 15  # FlagEval: 3 to 15 characters


def test_keyboard_typos_use_neighbouring_keys():
    from textattack.transformations import WordSwapQWERTY

    p = rb.CharPerturbation(min_chars=3, max_chars=3, operations=("keyboard",), seed=0)
    original = "abcdefghijklmnopqrstuvwxyz"
    perturbed = p.perturb_one(original)
    diffs = [(o, n) for o, n in zip(original, perturbed) if o != n]
    assert len(diffs) == 3
    keyboard = WordSwapQWERTY()
    assert all(n in keyboard._get_adjacent(o) for o, n in diffs)  # TextAttack's QWERTY neighbours
    upper = p.perturb_one(original.upper())
    assert all(n.isupper() and n in keyboard._get_adjacent(o) for o, n in zip(original.upper(), upper) if o != n)


def test_swap_typos_exchange_two_inner_characters():
    p = rb.CharPerturbation(min_chars=4, max_chars=4, operations=("swap",), seed=3)
    original = "considerably longer sentences"
    perturbed = p.perturb_one(original)
    assert perturbed != original and perturbed == p.perturb_one(original)
    for wo, wn in zip(original.split(), perturbed.split()):
        assert sorted(wo) == sorted(wn) and wo[0] == wn[0] and wo[-1] == wn[-1]  # CharSwap keeps the ends
        diff = [k for k in range(len(wo)) if wo[k] != wn[k]]
        assert len(diff) % 2 == 0 and all(wn[k] == wo[k + 1] and wn[k + 1] == wo[k] for k in diff[::2])


def test_word_perturbation_uses_the_synonym_list():
    p = rb.WordPerturbation(synonyms=SYNONYMS, rate=0.15, seed=0)
    out = p([t for t, _ in TEXTS])
    assert out == p([t for t, _ in TEXTS])
    changed = [(o, n) for (o, _), n in zip(TEXTS, out) if o != n]
    assert len(changed) >= 5
    for o, n in changed:
        for wo, wn in zip(o.split(), n.split()):
            if wo != wn:
                assert wn in SYNONYMS[wo]


@pytest.mark.skipif(not shutil.which("apertium"), reason="apertium is not installed")
def test_back_translation_keeps_one_line_per_sentence():
    try:
        bt = rb.BackTranslation()
    except rb.ApertiumUnavailable as e:
        pytest.skip(str(e))
    texts = ["the film is a charming , witty and moving tale .", "", "it is a boring mess ."]
    out = bt(texts)
    assert len(out) == 3 and all(out) and out[0] == out[0].lower()


# ------------------------------------------------------------------ the report
def _adversarial(model, labels, **kwargs):
    """The adversarial level with a tiny word-list attack on ``model`` (seed 0)."""
    from textattack_secondorder.sweeps.task import adversarial_task

    attack = _tiny_attack(model)
    return rb.AdversarialPerturbation("word-list", attack, labels, adversarial_task(attack), **kwargs)


def _tiny_attack(model):
    from textattack import Attack
    from textattack.constraints.pre_transformation import RepeatModification
    from textattack.goal_functions import UntargetedClassification
    from textattack.search_methods import GreedySearch

    from textattack_secondorder.transformations.word_swap_word_list import WordSwapWordList

    return Attack(
        UntargetedClassification(model), [RepeatModification()], WordSwapWordList(["nice", "good"]), GreedySearch()
    )


def test_report_end_to_end_on_a_tiny_model(tmp_path):
    model = KeywordModel()
    labels = [y for _, y in TEXTS]
    perturbations = [
        rb.CharPerturbation(seed=0),
        rb.WordPerturbation(synonyms=SYNONYMS, seed=0),
        _adversarial(model, labels),
    ]
    report = rb.run_robustness(model, TEXTS, perturbations, batch_size=3, settings={"model": "keyword"})
    names = [r["set"] for r in report.rows]
    assert names == ["original", "C-typo", "W-synonym", "Adv-word-list"]
    acc = {r["set"]: r["accuracy"] for r in report.rows}
    assert acc["original"] == pytest.approx(7 / 8)
    # every correct prediction is flipped: "good" leaves the positives, enters the negatives
    assert acc["Adv-word-list"] == 0.0
    assert report.settings["Adv-word-list"]["successful"] == 7
    assert report.settings["Adv-word-list"]["skipped"] == 1
    assert report.rb == pytest.approx(rb.robustness_index(acc["original"], [acc[n] for n in names[1:]]))
    chrf = {r["set"]: r["mean_chrf"] for r in report.rows}
    adv = report.sets[2].texts
    assert chrf["Adv-word-list"] == pytest.approx(np.mean([source_chrf(t, p) for (t, _), p in zip(TEXTS, adv)]))
    assert adv[5] == TEXTS[5][0]  # skipped (already wrong): keeps the original

    paths = rb.write_report(report, tmp_path, title="tiny")
    html = paths["html"].read_text(encoding="utf-8")
    assert html.startswith("<!DOCTYPE html>") and "data:image/png;base64," in html and "<mark>" in html
    assert "http://" not in html and "https://" not in html  # self-contained
    data = json.loads(paths["json"].read_text())
    assert data["rb"] == pytest.approx(report.rb) and len(data["sets"]) == 4
    assert list(pd.read_csv(paths["csv"])["set"]) == names
    # the perturbed sets can be evaluated again (against another model) without rebuilding them
    examples, sets = rb.load_sets(tmp_path)
    assert examples == TEXTS and [s.texts for s in sets] == [s.texts for s in report.sets]
    again = rb.evaluate_sets(model, [t for t, _ in examples], [y for _, y in examples], sets)
    assert again.rb == pytest.approx(report.rb)


class CountingTypos:
    """Char-level stand-in that counts how often it runs."""

    level, method = "char", "count"

    def __init__(self, rate):
        self.rate, self.calls = rate, 0

    def settings(self):
        return {"rate": self.rate}

    def __call__(self, texts):
        self.calls += 1
        return [t.upper() for t in texts]


class OtherKeywordModel(KeywordModel):
    def __call__(self, texts):
        return 1.0 - super().__call__(texts)


def test_finished_sets_are_saved_and_reused_only_under_the_same_key(tmp_path):
    """docs/design/hostile-input.md: a rerun reuses a saved set only for the same examples, settings and attacked
    model."""
    from textattack_secondorder.evaluation.robustness.sets import part_key

    model, parts = KeywordModel(), tmp_path / "parts"
    first_typos = CountingTypos(0.1)
    first = rb.run_robustness(model, TEXTS, [first_typos], parts_dir=parts)
    assert first_typos.calls == 1 and len(list(parts.glob("C-count-*.json"))) == 1
    again = CountingTypos(0.1)
    second = rb.run_robustness(model, TEXTS, [again], parts_dir=parts)
    assert again.calls == 0 and second.sets == first.sets
    pd.testing.assert_frame_equal(pd.DataFrame(second.rows), pd.DataFrame(first.rows))  # NaN == NaN here
    for typos, examples in ((CountingTypos(0.2), TEXTS), (CountingTypos(0.1), TEXTS[:-1])):
        rb.run_robustness(model, examples, [typos], parts_dir=parts)
        assert typos.calls == 1  # another setting or other examples: built again, never the stale part
    assert len(list(parts.glob("C-count-*.json"))) == 3

    texts, labels = [t for t, _ in TEXTS], [y for _, y in TEXTS]
    words = rb.WordPerturbation(synonyms=SYNONYMS, seed=0)
    assert part_key(words, texts, labels) == part_key(
        rb.WordPerturbation(synonyms=dict(SYNONYMS), seed=0), texts, labels
    )
    assert part_key(words, texts, labels) != part_key(
        rb.WordPerturbation(synonyms=dict(SYNONYMS, film=["flick"]), seed=0), texts, labels
    )
    adv = _adversarial(model, labels)
    assert part_key(adv, texts, labels) == part_key(_adversarial(KeywordModel(), labels), texts, labels)
    assert part_key(adv, texts, labels) != part_key(_adversarial(OtherKeywordModel(), labels), texts, labels)
    # the adversarial counts come back with a reused set
    adv_report = rb.run_robustness(model, TEXTS, [adv], parts_dir=parts)
    reused = rb.run_robustness(model, TEXTS, [_adversarial(model, labels)], parts_dir=parts)
    assert reused.settings["Adv-word-list"] == adv_report.settings["Adv-word-list"]
    assert reused.settings["Adv-word-list"]["successful"] == 7


def test_robustness_command_end_to_end(tmp_path, capsys):
    from textattack_secondorder.cli import main

    model_file = tmp_path / "keyword_model.py"
    model_file.write_text(
        "import re\nimport numpy as np\nfrom textattack.models.wrappers import ModelWrapper\n\n"
        "class KeywordModel(ModelWrapper):\n    model = None\n\n    def __call__(self, texts):\n"
        "        return np.array([[0.1, 0.9] if 'good' in re.findall(r'[a-z]+', t.lower()) else [0.9, 0.1]"
        " for t in texts])\n\nmodel = KeywordModel()\n",
        encoding="utf-8",
    )
    data = tmp_path / "data.csv"
    pd.DataFrame(TEXTS, columns=["text", "label"]).to_csv(data, index=False)
    syn = tmp_path / "syn.json"
    syn.write_text(json.dumps(SYNONYMS), encoding="utf-8")
    out = tmp_path / "report"
    # deepwordbug: a TextAttack recipe that needs no download; sentence level is skipped without apertium
    assert (
        main(
            [
                "robustness",
                "--model",
                str(model_file),
                "--dataset",
                str(data),
                "--levels",
                "char,word,sentence,adversarial",
                "--synonyms",
                str(syn),
                "--recipe",
                "deepwordbug",
                "--out",
                str(out),
            ]
        )
        == 0
    )
    printed = capsys.readouterr().out
    assert "RB = " in printed and "C-typo" in printed and "Adv-deepwordbug" in printed
    for name in ("robustness.csv", "robustness.json", "report.html", "sets/sets.json", "sets/C-typo.csv"):
        assert (out / name).exists(), name
    first = json.loads((out / "robustness.json").read_text())

    # reuse the sets against the same model: same figures, nothing rebuilt
    out2 = tmp_path / "again"
    assert main(["robustness", "--model", str(model_file), "--reuse", str(out), "--out", str(out2)]) == 0
    second = json.loads((out2 / "robustness.json").read_text())
    assert second["rb"] == pytest.approx(first["rb"])
    assert [r["accuracy"] for r in second["sets"]] == [r["accuracy"] for r in first["sets"]]


def test_commands_are_registered_and_their_help_renders(capsys):
    from textattack_secondorder.cli import build_parser, main

    text = build_parser().format_help()
    assert "meaning" in text and "robustness" in text
    for command in ("meaning", "robustness"):
        with pytest.raises(SystemExit) as exit_info:
            main([command, "--help"])
        assert exit_info.value.code == 0
    assert "--reuse" in capsys.readouterr().out


def test_adversarial_level_in_shards_equals_one_shard_and_resumes(tmp_path):
    """docs/design/sharding.md: text i is attacked with seed + i, so the shard layout cannot change the set."""
    from textattack_secondorder.distributed import ClusterOptions

    model, labels = KeywordModel(), [y for _, y in TEXTS]
    texts = [t for t, _ in TEXTS]
    whole = _adversarial(model, labels, progress=False)
    one = whole(texts)
    sharded = _adversarial(model, labels, options=ClusterOptions(num_shards=3), shard_dir=tmp_path, progress=False)
    assert sharded(texts) == one and sharded.counts == whole.counts and sharded.counts["successful"] == 7
    assert (sharded.stats.computed, sharded.stats.reused) == (3, 0) and len(list(tmp_path.glob("*.pkl"))) == 3
    again = _adversarial(model, labels, options=ClusterOptions(num_shards=3), shard_dir=tmp_path, progress=False)
    assert again(texts) == one and (again.stats.computed, again.stats.reused) == (0, 3)
    with pytest.raises(ValueError, match="model_spec"):  # Ray workers must be able to load the attacked model
        _adversarial(model, labels, options=ClusterOptions(ray="local"))
