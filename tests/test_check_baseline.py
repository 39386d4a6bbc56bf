"""The gate against a baseline run (`textattack-so check CONFIG --baseline PATH`, docs/design/gate.md):
like compared only with like, tolerances, bad baselines, --accept, the measured starter, numeric settings."""

import json
import re
import shutil
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest

from test_check_gate import FRAGILE, fragile_checks, make_setup, write_config
from textattack_secondorder.cli import main

# A model the attacks cannot move (positive unless "bad" occurs) beside the planted fragile one:
# the weakened model of a regression.
STURDY = FRAGILE.replace(
    "model = Fragile()",
    '''

class Sturdy(ModelWrapper):
    """Positive unless the word 'bad' occurs: no word swap or typo of the test sentences flips it."""

    model = None

    def __call__(self, texts):
        return np.array([[0.9, 0.1] if "bad" in re.findall(r"[a-z]+", t.lower()) else [0.1, 0.9] for t in texts])


model = Sturdy()''',
)


@pytest.fixture
def setup(tmp_path):
    return make_setup(tmp_path)


@pytest.fixture
def gate(setup):
    """A gate on ``victim.py`` (sturdy), its baseline written by --update-baseline."""
    (setup / "victim.py").write_text(STURDY)
    config = write_config(setup, model="victim.py", checks=fragile_checks(setup, so_threshold=100.0))
    out, base = setup / "out", setup / "baseline"
    assert main(["check", str(config), "--out", str(out), "--update-baseline", f"{base}/"]) == 0
    return config, out, base / "results.json"


def test_weakened_model_fails_against_the_baseline_naming_baseline_value_and_tolerance(setup, gate, capsys):
    config, out, base = gate
    (setup / "victim.py").write_text(FRAGILE)  # the regression: a trigger word now flips the model
    capsys.readouterr()
    assert main(["check", str(config), "--out", str(out), "--baseline", str(base)]) == 1
    printed = capsys.readouterr().out
    # so: 0 -> 100 % beyond the default tolerance; its threshold (100) still passes: the baseline rule fails
    assert re.search(r"so\s+vulnerable_rate\s+100\s+<= 100\s+0\s+\+100\s+5\s+FAIL \(baseline\)", printed)
    assert re.search(r"typos\s+success_rate\s+100\s+<= 25\s+0\s+\+100\s+10\s+FAIL \(threshold, baseline\)", printed)
    assert "success_rate = 100 is worse than the baseline 0 by 100, more than the default tolerance 10" in printed
    assert "this run: another model" in printed
    suite = ET.parse(out / "junit.xml").getroot().find("testsuite")
    failures = {c.get("name").split(":")[0]: c.find("failure") for c in suite.findall("testcase")}
    assert failures["so"].get("type") == "WorseThanBaseline"
    assert "worse than the baseline 0 by 100, more than the default tolerance 5" in failures["so"].get("message")
    assert failures["typos"].get("type") == "ThresholdExceeded, WorseThanBaseline"
    results = json.loads((out / "results.json").read_text())
    so = results["checks"][0]
    assert so["baseline"]["value"] == 0.0 and so["baseline"]["worse_by"] == 100.0 and so["failed_rules"] == ["baseline"]
    assert results["baseline"]["same_model"] is False and results["status"] == "fail"
    summary = (out / "summary.md").read_text()
    assert len(summary) < 2000 and "FAIL" in summary.splitlines()[0]
    assert "| ❌ | so | vulnerable_rate (%) | 0 | 100 | +100 | 5 | ≤ 100 |" in summary
    page = (out / "report.html").read_text()
    assert page.count('<tr class="worse">') == 2  # so and typos: worse beyond tolerance; meaning n/a in the baseline


def test_same_model_passes_and_a_tolerance_edit_rejudges_without_recomputing(setup, gate, monkeypatch, capsys):
    config, out, base = gate
    from textattack_secondorder.checks import AttackCheck, MeaningCheck, SecondOrderCheck, runner

    calls = []
    for cls in (AttackCheck, MeaningCheck, SecondOrderCheck):
        monkeypatch.setattr(cls, "evaluate", lambda self, *a: calls.append(self.name))
    monkeypatch.setattr(runner, "load_model_wrapper", lambda *a, **k: calls.append("model loaded"))
    capsys.readouterr()
    assert main(["check", str(config), "--out", str(out), "--baseline", str(base)]) == 0
    printed = capsys.readouterr().out
    assert printed.count("(reused)") == 3 and "3 passed, 0 failed" in printed and "this run: the same model" in printed
    # a check without threshold is judged by the baseline alone; tolerance 0 still passes an equal value
    checks = fragile_checks(setup, so_threshold=100.0)
    del checks[0]["threshold"]
    checks[0]["tolerance"] = 0.0
    config = write_config(setup, model="victim.py", checks=checks)
    assert main(["check", str(config), "--out", str(out), "--baseline", str(base)]) == 0
    assert re.search(r"so\s+vulnerable_rate\s+0\s+—\s+0\s+\+0\s+0\s+PASS", capsys.readouterr().out)
    # ... and without a baseline it is not judged: exit code 3, never a silent pass
    assert main(["check", str(config), "--out", str(out)]) == 3
    assert "so: no threshold and no baseline" in capsys.readouterr().out
    assert ET.parse(out / "junit.xml").getroot().find("testsuite").get("skipped") == "1"
    assert calls == []


def test_other_settings_are_not_comparable_and_name_the_keys_but_other_seeds_are(setup, gate, capsys):
    config, out, base = gate
    checks = fragile_checks(setup, so_threshold=100.0)
    checks[0]["settings"]["recipe"] += ",max_depth=2"  # another measurement
    checks[0]["settings"]["seed"] = 1  # another sample of the same measurement
    checks[1]["settings"]["seed"] = 7
    config = write_config(setup, model="victim.py", checks=checks)
    capsys.readouterr()
    assert main(["check", str(config), "--out", str(out), "--baseline", str(base)]) == 3
    printed = capsys.readouterr().out
    assert "so: settings differ from the baseline's: recipe.max_depth (1 → 2)" in printed
    assert re.search(r"so\s+vulnerable_rate\s+0\s+<= 100\s+0\s+n/c\s+5\s+NOT COMPARABLE", printed)
    assert re.search(r"typos\s+success_rate\s+0\s+<= 25\s+0\s+\+0\s+10\s+PASS\s", printed)  # seed 7: comparable
    assert "1 not comparable (so)" in printed
    error = ET.parse(out / "junit.xml").getroot().find("testsuite/testcase/error")
    assert error.get("type") == "NotComparable" and "recipe.max_depth (1 → 2)" in error.get("message")
    # more examples: the count and the examples' digest are named
    config = write_config(setup, model="victim.py", checks=fragile_checks(setup, 100.0), num_examples=2)
    assert main(["check", str(config), "--out", str(out), "--baseline", str(base)]) == 3
    printed = capsys.readouterr().out
    assert re.search(r"typos: settings differ from the baseline's: examples \('4 rows \w+' → '2 rows \w+'\), ", printed)
    assert "num_examples (none → 2)" in printed
    # a check the baseline lacks
    checks = fragile_checks(setup, 100.0) + [dict(fragile_checks(setup, 100.0)[1], name="typos2")]
    config = write_config(setup, model="victim.py", checks=checks)
    assert main(["check", str(config), "--out", str(out), "--baseline", str(base)]) == 3
    assert "typos2: 'typos2' is not in the baseline" in capsys.readouterr().out
    # accepting the run as the baseline makes them comparable: exit code 0, the baseline rewritten
    assert main(["check", str(config), "--out", str(out), "--baseline", str(base), "--accept"]) == 0
    assert [c["name"] for c in json.loads(base.read_text())["checks"]] == ["so", "typos", "typos-meaning", "typos2"]
    assert main(["check", str(config), "--out", str(out), "--baseline", str(base)]) == 0


def _damaged(tmp):
    (tmp / "notjson.json").write_text("{not json")
    (tmp / "foreign.json").write_text(json.dumps({"rows": [1, 2]}))
    (tmp / "summary.json").write_text(json.dumps({"format": "attack-sweep", "checks": []}))
    (tmp / "old.json").write_text(json.dumps({"config": "c.toml", "checks": [{"name": "so", "value": 1.0}]}))
    (tmp / "binary.json").write_bytes(b"\xff\xfe\x00bad")
    (tmp / "emptydir").mkdir()


@pytest.mark.parametrize(
    "name,problem",
    [
        ("missing.json", "not found (write one with: textattack-so check CONFIG --update-baseline"),
        ("notjson.json", "not JSON (Expecting property name"),
        ("foreign.json", "not a results.json of textattack-so check (no 'checks' list)"),
        ("summary.json", "not a results.json of textattack-so check (format 'attack-sweep'"),
        ("old.json", "written by an older textattack-so check"),
        ("binary.json", "cannot be read (UnicodeDecodeError"),
        ("emptydir", "emptydir/results.json: not found"),
    ],
)
def test_bad_baseline_is_one_line_exit_2_before_any_model_loads_and_nothing_is_overwritten(
    setup, monkeypatch, capsys, name, problem
):
    from textattack_secondorder.checks import runner

    _damaged(setup)
    before = {p.name: p.read_bytes() for p in setup.glob("*.json")}
    monkeypatch.setattr(runner, "load_model_wrapper", lambda *a, **k: pytest.fail("model loaded"))
    config = write_config(setup, checks=fragile_checks(setup))
    args = ["check", str(config), "--out", str(setup / "out"), "--baseline", str(setup / name)]
    assert main(args + ["--accept"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and err.startswith(f"textattack-so check: error: baseline {setup / name}")
    assert problem in err
    assert not (setup / "out").exists()
    assert {p.name: p.read_bytes() for p in setup.glob("*.json")} == before


def test_accept_needs_a_baseline_path_and_update_baseline_writes_one(setup, capsys):
    config = write_config(setup, checks=fragile_checks(setup))
    assert main(["check", str(config), "--accept"]) == 2
    assert "--accept: give --baseline PATH" in capsys.readouterr().err
    assert main(["check", str(config), "--out", str(setup / "out"), "--update-baseline", str(setup / "b.json")]) == 1
    doc = json.loads((setup / "b.json").read_text())
    assert doc["format"] == "textattack-so check results" and doc["package_version"]
    assert doc["model_fingerprint"] and all(c["model_fingerprint"] == doc["model_fingerprint"] for c in doc["checks"])
    assert doc["checks"][0]["comparable"]["recipe"] == "so-beam"
    assert doc["checks"][0]["comparable"]["recipe.beam_width"] == 2  # defaults filled in: recipe.delta too
    assert "recipe.delta" in doc["checks"][0]["comparable"] and "seed" not in doc["checks"][0]["comparable"]


CHECK = '[[check]]\nkind = "attack"\nname = "a"\nmetric = "asr1"\n'
BAD_NUMBERS = [
    ("num_examples = -5\n" + CHECK + "threshold = 10\n", "num_examples = -5 is not allowed: must be >= 1"),
    (CHECK + "threshold = 10\n[run]\nshards = 0\n", "run.shards = 0 is not allowed: must be >= 1"),
    (CHECK + "threshold = 150\n", "check 'a'.threshold = 150 is not allowed: must be >= 0 and <= 100"),
    (
        CHECK + "[check.settings]\nnum_examples = 0\n",
        "check 'a'.settings.num_examples = 0 is not allowed: must be >= 1",
    ),
    (CHECK + "[check.settings]\nseed = -1\n", "check 'a'.settings.seed = -1 is not allowed: must be >= 0"),
    (CHECK + "[check.settings]\nquery_budget = 0\n", "check 'a'.settings.query_budget = 0 is not allowed"),
    # recipes: checked once the cheap keys are, still before any model loads
    (CHECK + "[check.settings]\nrecipe = 'sp-attack^kappa_examples=-5'\n", "kappa_examples=-5 is not allowed"),
    (CHECK + "[check.settings]\nrecipe = 'no-such-recipe'\n", "recipe 'no-such-recipe': unknown; valid:"),
]
BAD_SETTINGS = [
    ("bias", "max_abs_b", "k = -1", "settings.k = -1 is not allowed: must be >= 0"),
    ("bias", "max_abs_b", "bootstrap = 0", "settings.bootstrap = 0 is not allowed: must be >= 1"),
    ("single_word", "rho", "vocab_limit = 0", "settings.vocab_limit = 0 is not allowed: must be >= 1"),
    ("single_word", "rho", "m = -1", "settings.m = -1 is not allowed: must be >= 0"),
    ("perturbed_sets", "rb_index", "word_rate = 1.5", "settings.word_rate = 1.5 is not allowed: must be > 0 and <= 1"),
    ("perturbed_sets", "rb_index", "word_rate = 0", "must be > 0 and <= 1"),
    ("perturbed_sets", "rb_index", "char_min = 5\nchar_max = 3", "settings.char_max = 3 is not allowed: must be >="),
]


@pytest.mark.parametrize("body,words", BAD_NUMBERS, ids=[w.split(" is")[0][:30] for _, w in BAD_NUMBERS])
def test_numeric_settings_are_checked_like_the_flags_before_any_model_loads(tmp_path, monkeypatch, capsys, body, words):
    from textattack_secondorder.checks import runner

    monkeypatch.setattr(runner, "load_model_wrapper", lambda *a, **k: pytest.fail("model loaded"))
    data = tmp_path / "data.csv"  # tiny: recipes are checked after the examples are read (their keys)
    data.write_text("text,label\na good film,1\n")
    (tmp_path / "c.toml").write_text(f'model = "mr-cnn"\ndataset = "{data}"\n' + body)
    assert main(["check", str(tmp_path / "c.toml"), "--out", str(tmp_path / "out")]) == 2
    err = [line for line in capsys.readouterr().err.splitlines() if "error" in line]
    assert len(err) == 1 and words in err[0], err


@pytest.mark.parametrize("kind,metric,setting,words", BAD_SETTINGS, ids=[s for _, _, s, _ in BAD_SETTINGS])
def test_numeric_settings_of_every_kind_are_checked(tmp_path, capsys, kind, metric, setting, words):
    body = f'model = "mr-cnn"\n[[check]]\nkind = "{kind}"\nmetric = "{metric}"\nthreshold = 0.5\n'
    (tmp_path / "c.toml").write_text(body + "[check.settings]\n" + setting + "\n")
    assert main(["check", str(tmp_path / "c.toml"), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and words in err
    assert not (tmp_path / "out").exists()


def test_check_names_are_folder_names(tmp_path, capsys):
    (tmp_path / "c.toml").write_text('model = "mr-cnn"\n[[check]]\nkind = "attack"\nname = "../x"\nmetric = "asr1"\n')
    assert main(["check", str(tmp_path / "c.toml")]) == 2
    assert "check[0].name = '../x' is not allowed" in capsys.readouterr().err


def test_init_model_measures_thresholds_green_on_the_model_red_when_worse(setup, monkeypatch, capsys):
    """`--init --model X`: the starter's checks run once on X (here three small ones, on the tiny data)."""
    from textattack_secondorder.checks import starter

    small = (
        '# starter\nmodel = "mr-cnn"\ndataset = "DATA"\n\n'
        '[[check]]\nkind = "second_order"\nname = "so"\nmetric = "vulnerable_rate"\n'
        'threshold = 50.0                  # percent, at most\n[check.settings]\nrecipe = "RECIPE"\n\n'
        '[[check]]\nkind = "attack"\nname = "typos"\nmetric = "accuracy_under_attack"\nthreshold = 50.0\n'
        '[check.settings]\nrecipe = "deepwordbug"\n\n'
        '[[check]]\nkind = "meaning"\nname = "typos-meaning"\nmetric = "mean_chrf"\nthreshold = 0.7\n'
        '[check.settings]\nattack = "typos"\n'
    )
    recipe = fragile_checks(setup)[0]["settings"]["recipe"]
    monkeypatch.setattr(starter, "STARTER", small.replace("DATA", str(setup / "data.csv")).replace("RECIPE", recipe))
    (setup / "victim.py").write_text(STURDY)
    monkeypatch.chdir(setup)
    out = str(setup / "out")
    assert main(["check", "--init", "gate.toml", "--model", "victim.py", "--out", out]) == 0
    printed = capsys.readouterr().out
    text = Path("gate.toml").read_text()
    assert 'model = "victim.py"' in text and "# Thresholds measured on victim.py" in text
    # measured 0 % vulnerable (+ 5), 100 % accuracy under attack (- 10); no successful attack: chrF not measured
    assert "threshold = 5.0  # measured 0 + default tolerance 5 (at most)" in text
    assert "threshold = 90.0  # measured 100 - default tolerance 10 (at least)" in text
    assert "threshold = 0.7  # not measured on this model (n/a): the starter's value" in text
    assert "3 passed, 0 failed" in printed and printed.count("(reused)") == 3  # the new gate: green, nothing rerun
    # never overwrites, and says so before measuring anything
    assert main(["check", "--init", "gate.toml", "--model", "victim.py", "--out", out]) == 2
    assert "gate.toml exists; not overwriting it" in capsys.readouterr().err
    # the model gets worse: red
    (setup / "victim.py").write_text(FRAGILE)
    assert main(["check", "gate.toml", "--out", out]) == 1
    assert "1 passed, 2 failed (so, typos)" in capsys.readouterr().out


def test_spec_fingerprint_names_file_contents(tmp_path):
    from textattack_secondorder.models.fingerprint import spec_fingerprint

    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "w.bin").write_bytes(b"weights")
    fp = spec_fingerprint(str(tmp_path / "a"))
    shutil.copytree(tmp_path / "a", tmp_path / "b")  # a fresh checkout: new times, same bytes
    assert spec_fingerprint(str(tmp_path / "b")) == fp
    (tmp_path / "b" / "metrics.json").write_text('{"train_seconds": 5.5}')  # a retrain's record, same weights
    assert spec_fingerprint(str(tmp_path / "b")) == fp
    (tmp_path / "b" / "w.bin").write_bytes(b"weightz")
    assert spec_fingerprint(str(tmp_path / "b")) != fp


def test_measured_threshold_moves_towards_worse_rounds_outwards_and_stays_in_range():
    from textattack_secondorder.checks.starter import measured_starter
    from textattack_secondorder.checks.verdict import Verdict

    def v(name, kind, metric, direction, value):
        return Verdict(name, kind, metric, direction, "", value, None, 0.0, True, "", model_fingerprint="ab12")

    text = measured_starter(
        "my-model",
        [
            v("so-beam", "second_order", "vulnerable_rate", "at_most", 100.0),  # can not get worse
            v("sp-attack", "attack", "success_rate", "at_most", 83.33),
            v("rho-star", "single_word", "rho", "at_least", 0.68491),
            v("gender-bias", "bias", "max_abs_b", "at_most", None),  # nothing measured
        ],
    )
    assert "threshold = 100.0  # measured 100 + default tolerance 5 (at most; kept at the bound 100)" in text
    assert "threshold = 93.4  # measured 83.33 + default tolerance 10 (at most)" in text
    assert "threshold = 0.674  # measured 0.6849 - default tolerance 0.01 (at least)" in text
    assert "threshold = 0.05  # not measured on this model (n/a): the starter's value" in text
    assert 'model = "my-model"' in text and "fingerprint\n# ab12" in text
