"""One place decides what loads: ``describe()`` (what ``textattack-so resources`` prints) and the
loaders agree for every slot, online and offline."""

import pytest

from textattack_secondorder import resources
from textattack_secondorder.resources import builders, resolution

PUBLIC_LOADERS = {
    "masked_lm": resources.load_word_proposer,
    "causal_lm": resources.load_causal_lm,
    "sentence_encoder": resources.load_sentence_encoder,
    "synonyms": resources.load_synonyms,
    "pos_tagger": resources.load_pos_tagger,
    "word_vectors": resources.load_word_vectors,
}


@pytest.fixture
def recorded(monkeypatch):
    """Every slot's builder records the value it is asked to build instead of loading it."""
    built = {}

    def recorder(slot):
        def build(value, **kwargs):
            built[slot] = value
            return ("built", slot, value)

        return build

    for slot in resources.SLOTS:
        monkeypatch.setitem(builders.BUILDERS, slot, recorder(slot))
        monkeypatch.delenv(resources.SLOTS[slot].env, raising=False)
    return built


def _agree(built):
    rows = {r["slot"]: r for r in resources.describe()}
    assert set(PUBLIC_LOADERS) == set(resources.SLOTS) == set(rows)
    for slot, load in PUBLIC_LOADERS.items():
        if not rows[slot]["available"]:  # what describe() reports missing, the loader refuses clearly
            with pytest.raises(resources.ResourceError):
                load()
            continue
        assert load() == ("built", slot, rows[slot]["resolves_to"]), slot
        assert built[slot] == rows[slot]["resolves_to"]
    return rows


def test_describe_and_loaders_agree_online(recorded, monkeypatch):
    monkeypatch.setattr(resolution, "hub_available", lambda: True)
    rows = _agree(recorded)
    for slot, s in resources.SLOTS.items():
        assert rows[slot]["resolves_to"] == s.online and rows[slot]["origin"].startswith("default (online")


def test_describe_and_loaders_agree_offline(recorded, monkeypatch):
    monkeypatch.setattr(resolution, "hub_available", lambda: False)
    monkeypatch.setattr(resolution, "in_hf_cache", lambda name: False)
    rows = _agree(recorded)
    for slot, s in resources.SLOTS.items():
        if rows[slot]["available"]:
            assert rows[slot]["resolves_to"] in (s.offline,) + s.alternatives


def test_offline_but_cached_online_model_is_what_both_say(recorded, monkeypatch):
    """The bug this layout removes: the hub down, distilbert in the HF cache -> both say distilbert."""
    monkeypatch.setattr(resolution, "hub_available", lambda: False)
    monkeypatch.setattr(resolution, "in_hf_cache", lambda name: name == "distilbert-base-uncased")
    rows = _agree(recorded)
    assert rows["masked_lm"]["resolves_to"] == "distilbert-base-uncased"
    assert rows["causal_lm"]["resolves_to"] == resources.SLOTS["causal_lm"].offline


def test_offline_alternative_is_never_silent(recorded, monkeypatch, caplog):
    """The offline default masked LM missing: the alternative loads, and the log and describe() say why."""
    from textattack_secondorder.resources import slots

    s = resources.SLOTS["masked_lm"]
    monkeypatch.setattr(resolution, "hub_available", lambda: False)
    monkeypatch.setattr(resolution, "in_hf_cache", lambda name: False)
    monkeypatch.setitem(slots.OFFLINE_CHECKS, ("masked_lm", s.offline), lambda: "its package is not installed")
    monkeypatch.setitem(slots.OFFLINE_CHECKS, ("masked_lm", s.alternatives[0]), lambda: "")
    row = {r["slot"]: r for r in resources.describe()}["masked_lm"]
    assert row["resolves_to"] == s.alternatives[0] and row["origin"] == "default (offline alternative)"
    assert s.offline in row["note"] and "its package is not installed" in row["note"]
    with caplog.at_level("WARNING", logger="textattack_secondorder.resources.loaders"):
        assert resources.load_word_proposer() == ("built", "masked_lm", s.alternatives[0])
    assert any(
        r.levelname == "WARNING" and s.offline in r.getMessage() and s.alternatives[0] in r.getMessage()
        for r in caplog.records
    )


def test_environment_and_argument_win(recorded, monkeypatch, tmp_path):
    monkeypatch.setattr(resolution, "hub_available", lambda: False)
    monkeypatch.setenv("TA_SO_SYNONYMS", str(tmp_path / "mine.json"))
    row = {r["slot"]: r for r in resources.describe()}["synonyms"]
    assert row["resolves_to"] == str(tmp_path / "mine.json") and row["origin"] == "environment ($TA_SO_SYNONYMS)"
    assert resources.load_synonyms() == ("built", "synonyms", str(tmp_path / "mine.json"))
    assert resources.load_synonyms("other.json") == ("built", "synonyms", "other.json")


def test_real_offline_loads_match_describe(monkeypatch):
    """Without fakes: the offline masked LM, synonym list and word vectors are what describe() names."""
    for s in resources.SLOTS.values():
        monkeypatch.delenv(s.env, raising=False)
    monkeypatch.setattr(resolution, "in_hf_cache", lambda name: False)
    rows = {r["slot"]: r for r in resources.describe()}
    if rows["masked_lm"]["origin"] != "default (offline)":
        pytest.skip(f"the offline default masked LM is not installed: {rows['masked_lm']['note']}")
    proposer = resources.load_word_proposer(device="cpu")
    assert proposer.name == rows["masked_lm"]["resolves_to"]
    table = resources.load_synonyms()
    from textattack_secondorder.resources.synonyms import read_synonym_file

    assert table is read_synonym_file(resources.data_path(rows["synonyms"]["resolves_to"]))


def test_resources_command_prints_the_resolution(capsys):
    from textattack_secondorder.cli import main

    code = main(["resources"])
    out = capsys.readouterr().out
    for r in resources.describe():
        assert r["slot"] in out and r["resolves_to"] in out
    assert code in (0, 1)


def test_causal_lm_ready_follows_the_gemma_cache(tmp_path, monkeypatch):
    """Perplexity rows are on by default only when the causal LM loads without a one-off conversion."""
    from textattack_secondorder.resources import causal_lm_ready, resolve

    monkeypatch.setenv("TA_SO_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("TA_SO_CAUSAL_LM", raising=False)
    if resolve("causal_lm", online=False).value != "gemma" or not resolve("causal_lm", online=False).available:
        pytest.skip("the offline causal LM (gemma package) is not installed")
    assert causal_lm_ready() is False
    saved = tmp_path / "models" / "gemma3-270m"
    saved.mkdir(parents=True)
    (saved / "config.json").write_text("{}")
    (saved / "model.safetensors").write_bytes(b"")
    assert causal_lm_ready() is True
    assert causal_lm_ready(object()) is True  # a scorer object passed in
    assert causal_lm_ready(str(tmp_path / "no-such-model")) is False


@pytest.mark.parametrize("ready", [True, False])
def test_summary_shows_perplexity_by_default_when_cached(monkeypatch, ready):
    from textattack_secondorder.metrics import second_order
    from textattack_secondorder.metrics.second_order import second_order_summary_metrics

    monkeypatch.setattr(second_order, "causal_lm_ready", lambda value=None: ready)
    rows = second_order_summary_metrics()
    assert ("Median perplexity (vulnerable, successful rows):" in rows) is ready
    assert "Median perplexity (original, successful rows):" in second_order_summary_metrics(True)
    assert "Median perplexity (original, successful rows):" not in second_order_summary_metrics(False)


def test_cache_note_says_where_how_large_and_how_to_move_it(tmp_path, monkeypatch):
    from textattack_secondorder.resources.paths import cache_note, size_text

    assert (
        size_text(518_000_000) == "518 MB"
        and size_text(1_240_000_000) == "1.2 GB"
        and size_text(84_000_000) == "84 MB"
        and size_text(12) == "12 B"
    )
    monkeypatch.delenv("TA_SO_CACHE_DIR", raising=False)
    monkeypatch.delenv("TA_CACHE_DIR", raising=False)
    (tmp_path / "w").mkdir()
    (tmp_path / "w" / "a.bin").write_bytes(b"x" * 2_500_000)
    note = cache_note(tmp_path / "w")
    assert note.startswith(
        f"{tmp_path / 'w'} (2.5 MB, in the package cache: the default ~/.cache/textattack/secondorder"
    )
    assert note.endswith("set TA_SO_CACHE_DIR=FOLDER to keep it elsewhere)")
    monkeypatch.setenv("TA_SO_CACHE_DIR", str(tmp_path))
    assert "in the package cache: $TA_SO_CACHE_DIR;" in cache_note(tmp_path / "w")
