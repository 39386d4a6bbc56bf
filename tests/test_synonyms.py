"""Synonym lists (patch-word source, docs/design/patch-rules.md) and the list-based word swap."""

import importlib.util
import json
import os
from pathlib import Path

os.environ.setdefault("NLTK_DATA", str(Path(__file__).resolve().parents[1] / "data" / "nltk_data"))

import pytest  # noqa: E402

from textattack_secondorder.resources import SLOTS, load_synonyms  # noqa: E402
from textattack_secondorder.resources.synonyms import SynonymList, read_synonym_file  # noqa: E402

ENV = SLOTS["synonyms"].env

REPO = Path(__file__).resolve().parents[1]


def _write(tmp_path, obj, name="syn.json"):
    p = tmp_path / name
    p.write_text(obj if isinstance(obj, str) else json.dumps(obj), encoding="utf-8")
    return p


def test_load_user_json_normalises(tmp_path):
    p = _write(tmp_path, {"Good": ["fine", "good", "FINE", "nice"], "bad": [], "film": ["movie"]})
    table = read_synonym_file(p)
    assert table == {"good": ["fine", "nice"], "film": ["movie"]}
    assert read_synonym_file(str(p)) is table  # cached per path
    assert load_synonyms(str(p)) is table  # the slot with an explicit path reads the same file


@pytest.mark.parametrize(
    "content, fragment",
    [
        ("[1, 2]", "expected a JSON object"),
        ('{"good": "fine"}', "must be a list"),
        ('{"good": ["fine", 3]}', "must be strings"),
        ('{"good": ["fine"', "not valid"),
        ("{}", "empty"),
        ('{"good": []}', "empty"),
    ],
)
def test_malformed_json_names_file(tmp_path, content, fragment):
    p = _write(tmp_path, content, name=f"bad_{abs(hash(content))}.json")
    with pytest.raises(ValueError) as e:
        read_synonym_file(p)
    assert fragment in str(e.value)
    assert p.name in str(e.value)


def test_missing_file(tmp_path):
    from textattack_secondorder.resources import ResourceError

    with pytest.raises(ResourceError, match="nope.json does not exist"):
        read_synonym_file(tmp_path / "nope.json")


def test_env_var_overrides_default(tmp_path, monkeypatch):
    p = _write(tmp_path, {"alpha": ["beta"]}, name="env.json")
    monkeypatch.setenv(ENV, str(p))
    assert load_synonyms() == {"alpha": ["beta"]}


def test_patch_pair_candidates_follow_rules():
    from textattack_secondorder.goal_functions.patch_words import PatchWordSelector

    syn = SynonymList({"good": ["fine", "nice"], "film": ["movie", "picture"], "a": ["one"]})
    sel = PatchWordSelector(model_wrapper=None, synonyms=syn)
    words = ["A", "good", "film", "a", "nice", "movie", "Film"]
    # "a" occurs twice, "film" twice (case-insensitive): no pairs; "nice" is in the sentence
    assert sel.candidates(words) == [("good", "fine", 1)]
    assert sel.candidates(["The", "film", "is", "good"]) == [
        ("film", "movie", 1),
        ("film", "picture", 1),
        ("good", "fine", 3),
        ("good", "nice", 3),
    ]
    assert sel.candidates([]) == []


def test_synonym_list_mapping():
    syn = SynonymList({"Good": ["fine"]})
    assert "good" in syn and "GOOD" in syn and 3 not in syn
    assert syn["good"] == ("fine",) and syn.get("bad") == ()
    assert len(syn) == 1 and syn.num_pairs() == 1 and list(syn) == ["good"]
    assert SynonymList(syn)["good"] == ("fine",)


def test_packaged_list_loads(monkeypatch):
    monkeypatch.delenv(ENV, raising=False)
    path = REPO / "data" / SLOTS["synonyms"].offline
    assert path.is_file() and path.stat().st_size < 5_000_000
    table = load_synonyms()
    assert 3000 < len(table) < 60000
    assert all(1 <= len(v) <= 8 for v in table.values())
    assert all(k.isalpha() and k.islower() for k in table)
    assert "movie" in table.get("film", [])
    # the papers' candidates (issue: the earlier GloVe+WordNet list had none for these)
    assert {"nice", "decent"} <= set(table["good"]) and "actress" in table["actor"]
    assert len(table) > 20000 and sum(map(len, table.values())) > 100000
    assert "bad" not in table["good"] and "good" not in table["bad"]  # antonyms repelled
    meta = json.loads((REPO / "data" / "synonyms_counterfitted.meta.json").read_text())
    assert meta["counts"]["keys"] == len(table)


def test_transformation_swaps_keep_case():
    from textattack.shared import AttackedText

    from textattack_secondorder.transformations.word_swap_synonym_list import WordSwapSynonymList

    t = WordSwapSynonymList({"film": ["movie", "picture"], "good": ["fine"]})
    text = AttackedText("Film was good , GOOD film")
    out = sorted(x.text for x in t(text))
    assert out == sorted(
        [
            "Movie was good , GOOD film",
            "Picture was good , GOOD film",
            "Film was fine , GOOD film",
            "Film was good , FINE film",
            "Film was good , GOOD movie",
            "Film was good , GOOD picture",
        ]
    )
    t1 = WordSwapSynonymList({"film": ["movie", "picture"]}, max_candidates=1)
    assert [x.text for x in t1(AttackedText("a film"))] == ["a movie"]
    assert "max_candidates" in repr(t1)


def _load_build_script():
    spec = importlib.util.spec_from_file_location("build_synonyms", REPO / "scripts" / "build_synonyms.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_build_script_helpers(tmp_path):
    b = _load_build_script()
    lines = b.lexnames_text().splitlines()
    assert len(lines) == 45 and lines[0] == "00\tadj.all\t3" and lines[44] == "44\tadj.ppl\t3"
    with pytest.raises(SystemExit) as e:
        b.open_wordnet(tmp_path / "no_wordnet")
    assert "apt-get install -y wordnet-base wordnet-sense-index" in str(e.value)
    ours = {"a": ["b", "c"], "d": ["e"]}
    ref = {"a": ["b", "x"], "z": ["y"]}
    r = b.compare(ours, ref)
    assert r["our_pairs"] == 3 and r["precision_vs_reference"] == round(1 / 3, 4)
    assert r["recall_of_reference_on_our_keys"] == 0.5


@pytest.mark.skipif(not Path("/usr/share/wordnet/index.sense").is_file(), reason="Debian WordNet not installed")
def test_wordnet_synonymy_rules(tmp_path):
    b = _load_build_script()
    wn, _ = b.open_wordnet(link_root=tmp_path)
    vocab = ["film", "films", "movie", "movies", "good", "bad", "three", "seven", "beautiful", "lovely"]
    idx = b.wordnet_index(wn, vocab, similar_tos=True, max_senses=3)
    assert b.is_synonym("film", "movie", *idx)
    assert b.is_synonym("films", "movies", *idx)
    assert not b.is_synonym("films", "movie", *idx)  # inflection classes differ
    assert not b.is_synonym("film", "films", *idx)  # one lemma
    assert not b.is_synonym("good", "bad", *idx)  # antonyms
    assert not b.is_synonym("three", "seven", *idx)  # similar_to siblings
    assert b.is_synonym("beautiful", "lovely", *idx)  # head <-> satellite
