"""The robustness gate (`textattack-so check`): verdicts, JUnit XML, reuse, bad configs, the HTML report."""

import json
import re
import subprocess
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest

from conftest import REPO, write_tiny_mlm
from textattack_secondorder.cli import main

TEXTS = [
    ("a good film about growing up", 1),
    ("the acting is good and the story too", 1),
    ("good fun from start to finish", 1),
    ("he is a good actor in this film", 1),
]
VOCAB = [
    "[PAD]",
    "[UNK]",
    "[CLS]",
    "[SEP]",
    "[MASK]",
    "a",
    "the",
    "good",
    "film",
    "movie",
    "fine",
    "story",
    "he",
    "she",
    "is",
    "and",
    "fun",
]

FRAGILE = '''
import re
import numpy as np
from textattack.models.wrappers import ModelWrapper


class Fragile(ModelWrapper):
    """Positive exactly when the trigger word 'good' occurs: changing that one word flips it."""

    model = None

    def __call__(self, texts):
        return np.array([[0.1, 0.9] if "good" in re.findall(r"[a-z]+", t.lower()) else [0.9, 0.1] for t in texts])


class Constant(ModelWrapper):
    """The same probabilities for every text: no bias at all."""

    model = None

    def __call__(self, texts):
        return np.array([[0.3, 0.7] for _ in texts])


model = Fragile()
constant = Constant()
'''


@pytest.fixture
def setup(tmp_path):
    return make_setup(tmp_path)


def make_setup(tmp_path):
    """The tiny models, data, synonyms and masked LM of these tests, in ``tmp_path``."""
    (tmp_path / "models.py").write_text(FRAGILE)
    import pandas as pd

    pd.DataFrame(TEXTS, columns=["text", "label"]).to_csv(tmp_path / "data.csv", index=False)
    (tmp_path / "syn.json").write_text(json.dumps({"good": ["fine"], "film": ["movie"]}))
    write_tiny_mlm(tmp_path / "mlm", VOCAB)
    return tmp_path


def write_config(tmp, model="models.py", checks=None, **top):
    lines = [f'model = "{model if model.startswith("mr-") else tmp / model}"', f'dataset = "{tmp / "data.csv"}"']
    lines += [f"{k} = {json.dumps(v)}" for k, v in top.items()]
    for c in map(dict, checks):
        settings = c.pop("settings", {})
        lines.append("[[check]]")
        lines += [f"{k} = {json.dumps(v)}" for k, v in c.items()]
        if settings:
            lines.append("[check.settings]")
            lines += [f"{k} = {json.dumps(v)}" for k, v in settings.items()]
    path = tmp / "gate.toml"
    path.write_text("\n".join(lines) + "\n")
    return path


def fragile_checks(tmp, so_threshold=10.0):
    return [
        {
            "kind": "second_order",
            "name": "so",
            "metric": "vulnerable_rate",
            "threshold": so_threshold,
            "settings": {
                "recipe": f"so-beam^synonyms='{tmp / 'syn.json'}',masked_lm='{tmp / 'mlm'}',beam_width=2,max_depth=1,"
                "patch_rule='paper',neighbor_rule='paper'"
            },
        },
        {
            "kind": "attack",
            "name": "typos",
            "metric": "success_rate",
            "threshold": 25.0,
            "settings": {"recipe": "deepwordbug"},
        },
        {
            "kind": "meaning",
            "name": "typos-meaning",
            "metric": "mean_chrf",
            "threshold": 0.2,
            "settings": {"attack": "typos"},
        },
    ]


def junit_shape_errors(path):
    """What a CI system's JUnit reader would reject: testsuites > testsuite > testcase with the
    attributes they require, numeric counts that agree, failure with a message, properties as name/value."""
    errors = []
    root = ET.parse(path).getroot()
    if root.tag != "testsuites":
        return [f"root is <{root.tag}>, not <testsuites>"]
    for suite in root:
        if suite.tag != "testsuite":
            errors.append(f"<{suite.tag}> under <testsuites>")
            continue
        for attr in ("name", "tests", "failures", "errors", "time"):
            if attr not in suite.attrib:
                errors.append(f"testsuite lacks {attr}")
        cases = suite.findall("testcase")
        if int(suite.get("tests", -1)) != len(cases):
            errors.append("testsuite tests != number of testcases")
        if int(suite.get("failures", -1)) != sum(c.find("failure") is not None for c in cases):
            errors.append("testsuite failures != number of failures")
        float(suite.get("time", "x") if re.fullmatch(r"[0-9.]+", suite.get("time", "")) else 0)
        for child in suite:
            if child.tag not in ("properties", "testcase", "system-out", "system-err"):
                errors.append(f"<{child.tag}> under <testsuite>")
        for props in suite.findall("properties"):
            for p in props:
                if p.tag != "property" or set(p.attrib) != {"name", "value"}:
                    errors.append(f"bad property {p.tag} {p.attrib}")
        for case in cases:
            for attr in ("name", "classname", "time"):
                if attr not in case.attrib:
                    errors.append(f"testcase lacks {attr}")
            if not re.fullmatch(r"[0-9]+(\.[0-9]+)?", case.get("time", "")):
                errors.append(f"testcase time {case.get('time')!r} is not a number")
            for child in case:
                if child.tag not in ("failure", "error", "skipped", "system-out", "system-err"):
                    errors.append(f"<{child.tag}> under <testcase>")
            for f in case.findall("failure"):
                if "message" not in f.attrib or "type" not in f.attrib:
                    errors.append("failure lacks message/type")
    return errors


def test_planted_fragile_model_fails_attack_and_second_order_and_junit_says_by_how_much(setup, capsys):
    config = write_config(setup, checks=fragile_checks(setup))
    out = setup / "out"
    assert main(["check", str(config), "--out", str(out)]) == 1
    printed = capsys.readouterr().out
    assert re.search(r"so\s+vulnerable_rate\s+100\s+<= 10\s+—\s+—\s+—\s+FAIL \(threshold\)", printed)
    assert re.search(r"typos\s+success_rate\s+100\s+<= 25\s+—\s+—\s+—\s+FAIL \(threshold\)", printed)
    assert re.search(r"typos-meaning\s+mean_chrf\s+\S+\s+>= 0.2\s+—\s+—\s+—\s+PASS", printed)
    # four sentences: one of them moves a rate by 25 points, more than the default tolerances can resolve
    assert (
        "so: note: vulnerable_rate rests on 4 sentences: one sentence moves it by 25 points, more than the tolerance "
        "5 (0.2 of a sentence)" in printed
    )
    assert "typos: note: success_rate rests on 4 sentences" in printed and "measure at least 10 sentences" in printed
    assert junit_shape_errors(out / "junit.xml") == []
    suite = ET.parse(out / "junit.xml").getroot().find("testsuite")
    failures = {c.get("name").split(":")[0]: c.find("failure") for c in suite.findall("testcase")}
    assert failures["typos-meaning"] is None
    assert "vulnerable_rate = 100 is above the threshold 10 by 90" in failures["so"].get("message")
    assert "success_rate = 100 is above the threshold 25 by 75" in failures["typos"].get("message")
    assert "4 of 4 attacked examples broken by deepwordbug" in failures["typos"].text
    props = {p.get("name"): p.get("value") for p in suite.iter("property")}
    assert props["so.value"] == "100" and props["so.threshold"] == "10"
    results = json.loads((out / "results.json").read_text())
    assert results["passed"] is False
    assert [c["passed"] for c in results["checks"]] == [False, False, True]
    # found / all rows: every sentence of the planted model has a vulnerable example nearby
    assert results["checks"][0]["values"]["vulnerable_per_100"] == 100.0
    page = (out / "report.html").read_text()
    assert page.count('class="card fail"') == 2 and page.count('class="card pass"') == 1
    assert "rests on 4 sentences" in page and "rests on 4 sentences" in (out / "summary.md").read_text()
    assert results["checks"][1]["sentences"] == 4 and "rests on 4 sentences" in results["checks"][1]["notes"][0]


def test_threshold_edit_changes_the_verdict_without_recomputing(setup, monkeypatch, capsys):
    out = setup / "out"
    assert main(["check", str(write_config(setup, checks=fragile_checks(setup))), "--out", str(out)]) == 1
    from textattack_secondorder.checks import AttackCheck, MeaningCheck, SecondOrderCheck, runner

    calls = []
    for cls in (AttackCheck, MeaningCheck, SecondOrderCheck):
        monkeypatch.setattr(cls, "evaluate", lambda self, *a: calls.append(self.name))
    monkeypatch.setattr(runner, "load_model_wrapper", lambda *a, **k: calls.append("model loaded"))
    checks = fragile_checks(setup, so_threshold=100.0)
    checks[1]["threshold"] = 100.0
    capsys.readouterr()
    assert main(["check", str(write_config(setup, checks=checks)), "--out", str(out)]) == 0
    assert calls == []
    printed = capsys.readouterr().out
    assert "3 passed, 0 failed" in printed and printed.count("(reused)") == 3
    assert ET.parse(out / "junit.xml").getroot().get("failures") == "0"
    # a changed setting recomputes that check only (and the meaning check that reads it)
    checks[1]["settings"]["query_budget"] = 50
    monkeypatch.undo()
    assert main(["check", str(write_config(setup, checks=checks)), "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "[so] reusing" in printed and "[typos] evaluating" in printed and "[typos-meaning] evaluating" in printed


def test_constant_classifier_passes_the_bias_check(setup, capsys):
    settings = {"pairs": "he/she", "k": 1, "masked_lm": str(setup / "mlm"), "bootstrap": 50, "min_sources": 1}
    checks = [
        {"kind": "bias", "name": "gender", "metric": "max_abs_b", "threshold": 0.01, "settings": settings},
        {"kind": "bias", "name": "gender-ci", "metric": "ci_excess", "threshold": 0.0, "settings": settings},
        {
            "kind": "bias",
            "name": "gender-5",
            "metric": "max_abs_b",
            "threshold": 0.01,
            "settings": dict(settings, min_sources=5),
        },
    ]
    out = setup / "out"
    assert main(["check", str(write_config(setup, model="models.py^constant", checks=checks)), "--out", str(out)]) == 0
    results = json.loads((out / "results.json").read_text())
    assert [c["value"] for c in results["checks"]] == [0.0, 0.0, None]
    assert "he/she at k=1: B = +0.0000" in results["checks"][0]["evidence"]
    # one source sentence is too few to judge by default: listed, not judged
    assert "not judged, fewer than 5 sources: he/she" in results["checks"][2]["evidence"]


BAD = [
    (
        '[[check]]\nkind = "robustnes"\nmetric = "x"\nthreshold = 1',
        ["check[0].kind", "robustnes", "second_order", "perturbed_sets", "meaning"],
    ),
    (
        '[[check]]\nkind = "attack"\nmetric = "asr"\nthreshold = 1',
        ["metric", "'asr'", "success_rate", "asr1", "accuracy_under_attack"],
    ),
    ('[[check]]\nkind = "attack"\nmetric = "asr1"\ntolerance = -1', ["tolerance = -1", "must be >= 0"]),
    ('[[check]]\nkind = "attack"\nmetric = "asr1"\nthreshold = "ten"', ["threshold", "'ten'", "number"]),
    (
        '[[check]]\nkind = "bias"\nmetric = "max_abs_b"\nthreshold = 0.1\n[check.settings]\nkk = 1',
        ["settings key", "'kk'", "pairs", "masked_lm"],
    ),
    (
        '[[check]]\nkind = "meaning"\nmetric = "mean_chrf"\nthreshold = 0.5\n[check.settings]\nattack = "nope"',
        ["attack", "'nope'", "valid"],
    ),
]


@pytest.mark.parametrize(
    "body,words",
    BAD,
    ids=[
        "unknown-check",
        "unknown-metric",
        "negative-tolerance",
        "threshold-type",
        "unknown-setting",
        "unknown-attack",
    ],
)
def test_bad_config_is_one_line_exit_2_before_any_model_is_loaded(tmp_path, monkeypatch, capsys, body, words):
    from textattack_secondorder.checks import runner

    monkeypatch.setattr(runner, "load_model_wrapper", lambda *a, **k: pytest.fail("model loaded"))
    path = tmp_path / "bad.toml"
    path.write_text('model = "mr-cnn"\n' + body + "\n")
    assert main(["check", str(path), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and err.startswith("textattack-so check: error:")
    for w in words:
        assert w in err
    assert not (tmp_path / "out").exists()


def test_models_that_cannot_be_loaded_are_exit_2(setup, capsys):
    ok_check = [{"kind": "attack", "metric": "asr1", "threshold": 1.0, "settings": {"recipe": "deepwordbug"}}]
    assert main(["check", str(write_config(setup, model="mr-cnnn", checks=ok_check))]) == 2
    err = capsys.readouterr().err
    assert "unknown demo victim 'mr-cnnn'" in err and "mr-cnn, mr-lstm" in err
    assert main(["check", str(write_config(setup, model="absent.py", checks=ok_check))]) == 2
    assert "model: file" in capsys.readouterr().err
    # exists, but is not a model: found out when loading, still one line and exit code 2
    (setup / "empty").mkdir()
    assert main(["check", str(write_config(setup, model="empty", checks=ok_check)), "--out", str(setup / "out")]) == 2
    # (TextAttack's own import may print its NLTK notes first: the gate's error is one line)
    errors = [line for line in capsys.readouterr().err.splitlines() if line.startswith("textattack-so check")]
    assert len(errors) == 1 and "model: cannot load" in errors[0] and "valid: a demo victim" in errors[0]


def test_init_writes_a_valid_starter_and_refuses_to_overwrite(tmp_path, monkeypatch, capsys):
    from textattack_secondorder.checks.config import load_config

    monkeypatch.chdir(tmp_path)
    assert main(["check", "--init"]) == 0
    config = load_config("robustness.toml")
    assert config.model == "mr-cnn"
    assert {c.kind for c in config.checks} == {
        "second_order",
        "attack",
        "bias",
        "single_word",
        "perturbed_sets",
        "meaning",
    }
    assert main(["check", "--init"]) == 2
    assert "exists" in capsys.readouterr().err
    assert main(["check", "--init", "ci/gate.toml"]) == 0 and Path("ci/gate.toml").exists()


def test_report_escapes_model_texts(setup):
    from textattack_secondorder.checks.base import Evaluation
    from textattack_secondorder.checks.config import GateConfig
    from textattack_secondorder.checks.report import render_html
    from textattack_secondorder.checks.verdict import Verdict

    evil = "<script>alert(1)</script>"
    ev = Evaluation(
        {"success_rate": 50.0},
        {"success_rate": evil},
        rows=[{"row": evil, "value": 1}],
        examples=[{"original": evil, "perturbed": evil, "outputs": evil}],
    )
    v = Verdict(evil, "attack", "success_rate", "at_most", "%", 50.0, 10.0, 10.0, True, evil)
    page = render_html(GateConfig(path="c.toml", model=evil), [v], {evil: ev}, {evil: setup}, 1.0)
    assert "<script>" not in page and "&lt;script&gt;" in page
    assert not re.search(r"""(src|href)=["']?(https?:|//)""", page)


def test_checks_sit_between_evaluation_and_cli():
    """No import runs back up the layers: checks/ never imports cli/, and nothing below imports checks/."""
    pkg = REPO / "textattack_secondorder"
    for f in (pkg / "checks").glob("*.py"):
        assert not re.search(r"from \.\.cli|textattack_secondorder\.cli", f.read_text()), f
    for sub in ("evaluation", "sweeps", "distributed", "models", "datasets", "plugin", "metrics", "shared"):
        for f in (pkg / sub).rglob("*.py"):
            assert "checks" not in re.findall(r"from \.+(\w+)", f.read_text()), f


@pytest.mark.slow
def test_report_opens_in_headless_chromium(setup, tmp_path):
    import shutil

    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if not browser:
        pytest.skip("Debian's chromium is not installed")
    out = setup / "out"
    main(["check", str(write_config(setup, checks=fragile_checks(setup))), "--out", str(out)])
    shot = tmp_path / "report.png"
    subprocess.run(
        [
            browser,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--window-size=1200,1600",
            f"--screenshot={shot}",
            (out / "report.html").as_uri(),
        ],
        check=True,
        timeout=120,
        capture_output=True,
    )
    assert shot.stat().st_size > 10000


def test_shards_flag_reaches_the_commands_code_paths(setup, capsys):
    """--shards cuts each check's work as the command's own --shards does; the verdicts do not change."""
    out = setup / "out"
    assert (
        main(["check", str(write_config(setup, checks=fragile_checks(setup))), "--out", str(out), "--shards", "2"]) == 1
    )
    assert len(list(out.glob("typos/*/shards/*"))) == 2 and len(list(out.glob("so/*/shards/*"))) == 2
    results = json.loads((out / "results.json").read_text())
    assert [(c["value"], c["passed"]) for c in results["checks"]][:2] == [(100.0, False), (100.0, False)]


def test_check_takes_every_cluster_flag_and_overrides_only_those_given(tmp_path):
    from textattack_secondorder.cli import build_parser
    from textattack_secondorder.cli.check_cmd import load

    path = write_config(
        tmp_path, model="mr-cnn", checks=[{"kind": "bias", "name": "b", "metric": "max_abs_b", "threshold": 1.0}]
    )
    path.write_text(path.read_text().replace("[[check]]", "[run]\nthreads_per_worker = 2\nshards = 5\n\n[[check]]", 1))
    args = build_parser().parse_args(["check", str(path), "--workers", "3", "--gpus-per-worker", "0.5"])
    config, _ = load(args)
    assert config.run == {"threads_per_worker": 2, "shards": 5, "workers": 3, "gpus_per_worker": 0.5}
    config, _ = load(build_parser().parse_args(["check", str(path)]))
    assert config.run == {"threads_per_worker": 2, "shards": 5}  # no flag: the config's [run] table as written


def test_a_share_of_fewer_sentences_than_its_tolerance_resolves_is_said():
    from textattack_secondorder.checks.verdict import Verdict

    def v(n, tolerance=5.0, unit="per 100"):
        return Verdict(
            "so", "second_order", "vulnerable_per_100", "at_most", unit, 10.0, None, tolerance, True, "", sentences=n
        )

    text = v(10).resolution_text()
    assert "vulnerable_per_100 rests on 10 sentences: one sentence moves it by 10 per 100" in text
    assert "tolerance 5 (0.5 of a sentence)" in text
    assert "measure at least 20 sentences (raise num_examples) or set tolerance = 10 for this check" in text
    assert v(20).resolution_text() == "" and v(300).resolution_text() == ""
    assert "tolerance = 33.34" in v(3).resolution_text()
    assert "rests on no sentence" in v(0).resolution_text()
    assert v(10, tolerance=0.0).resolution_text() == ""  # no worsening allowed: nothing to resolve
    assert v(10, unit="words").resolution_text() == "" and v(None).resolution_text() == ""


def test_single_word_check_takes_the_vocabulary_of_a_data_set(tmp_path, capsys):
    """vocab_from = a CSV: κ and ρ over the words of the training sentences only, as flip-capability --vocab-from."""
    import pandas as pd

    from conftest import write_tiny_bert

    words = ["a", "good", "film", "dull", "plot", "zq", "xv"]  # zq, xv: entries no training sentence holds
    from transformers import BertForSequenceClassification

    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] + words
    write_tiny_bert(tmp_path / "bert", vocab, BertForSequenceClassification, num_labels=2)
    pd.DataFrame([("a good film", 1), ("a dull plot", 0)], columns=["text", "label"]).to_csv(
        tmp_path / "train.csv", index=False
    )
    config = tmp_path / "gate.toml"
    body = (
        f'model = "{tmp_path / "bert"}"\ndataset = "{tmp_path / "train.csv"}"\nsplit = "train"\n'
        '[[check]]\nkind = "single_word"\nmetric = "rho"\nthreshold = 0.0\n[check.settings]\nm = 0\n'
    )
    config.write_text(body)
    assert main(["check", str(config), "--out", str(tmp_path / "all")]) == 0
    everything = json.loads((tmp_path / "all" / "results.json").read_text())["checks"][0]
    config.write_text(body + f'vocab_from = "{tmp_path / "train.csv"}"\n')
    assert main(["check", str(config), "--out", str(tmp_path / "own")]) == 0
    own = json.loads((tmp_path / "own" / "results.json").read_text())["checks"][0]
    assert own["comparable"]["vocabulary"].startswith("5 words")  # a, good, film, dull, plot
    assert everything["comparable"]["vocabulary"].startswith("7 words")
    assert own["comparable"]["vocab_from"] == str(tmp_path / "train.csv")
