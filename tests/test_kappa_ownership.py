"""A κ records the model it was computed for; reading it for another model is said (SP-Attack) or refused (the gate)."""

import json

import pytest
import torch

from test_kappa_cache import build, counted, kappa_csv, tiny_bert  # noqa: F401 - `counted` is a fixture
from textattack_secondorder.cli import main

torch.set_num_threads(1)


def kappa_of(model, tmp_path, name="kappa.json"):
    from textattack_secondorder.evaluation.flip_capability import compute_flip_capability

    examples = [("good film", 1), ("dull plot", 0), ("great fun", 1), ("boring story", 0)]
    result = compute_flip_capability(model, examples, m=4, settings={"model": "tiny", "dataset": "k.csv"})
    return result, result.save(tmp_path / name)


def test_kappa_records_its_model_and_the_same_weights_in_another_wrapper_match(tmp_path):
    from textattack_secondorder.evaluation.flip_capability.ownership import kappa_owner_problem
    from textattack_secondorder.models.fingerprint import weights_fingerprint
    from textattack_secondorder.models.wrappers import SOModelWrapper

    model = tiny_bert(tmp_path)
    result, path = kappa_of(model, tmp_path)
    assert json.loads(path.read_text())["settings"]["model_fingerprint"] == weights_fingerprint(model)
    # the folder loaded by `textattack attack` (TextAttack's wrapper) and by textattack-so (ours): one model
    ours = SOModelWrapper(model.model, model.tokenizer)
    assert kappa_owner_problem(result, ours) is None
    kind, sentence = kappa_owner_problem(result, tiny_bert(tmp_path, seed=1), path)
    assert kind == "other" and str(path) in sentence and "computed for model 'tiny'" in sentence
    assert "belongs to another model" in sentence and "textattack-so flip-capability" in sentence


def test_load_kappa_says_or_refuses_another_models_kappa_and_says_an_unchecked_one(tmp_path):
    from textattack_secondorder.evaluation.flip_capability.ownership import KappaModelError, load_kappa

    model, other = tiny_bert(tmp_path), tiny_bert(tmp_path, seed=1)
    _, path = kappa_of(model, tmp_path)
    said = []
    assert load_kappa(path, model, say=said.append).metric.words and said == []
    load_kappa(path, other, say=said.append)
    assert len(said) == 1 and "belongs to another model" in said[0]
    with pytest.raises(KappaModelError, match="belongs to another model"):
        load_kappa(path, other, refuse=True)
    # a κ written before κ files recorded their model: said, never refused
    data = json.loads(path.read_text())
    del data["settings"]["model_fingerprint"]
    old = tmp_path / "old.json"
    old.write_text(json.dumps(data))
    said.clear()
    load_kappa(old, other, refuse=True, say=said.append)
    assert len(said) == 1 and "records no model fingerprint" in said[0]


def test_sp_attack_with_another_models_kappa_warns(tmp_path, counted, caplog):  # noqa: F811
    _, path = kappa_of(tiny_bert(tmp_path), tmp_path)
    data = kappa_csv(tmp_path / "k.csv")
    with caplog.at_level("WARNING"):
        build(tiny_bert(tmp_path), data, kappa=str(path), label_rule="paper")
    assert not any("another model" in r.getMessage() for r in caplog.records)
    with caplog.at_level("WARNING"):
        build(tiny_bert(tmp_path, seed=1), data, kappa=str(path), label_rule="paper")
    assert any("belongs to another model" in r.getMessage() for r in caplog.records)


MODELS = """
import numpy as np
from textattack.models.wrappers import ModelWrapper


class Keyword(ModelWrapper):
    model = None

    def __init__(self, word):
        self.word = word

    def __call__(self, texts):
        return np.array([[0.1, 0.9] if self.word in t.split() else [0.9, 0.1] for t in texts])


model = Keyword("good")
defended = Keyword("great")
"""


def test_gate_refuses_a_kappa_computed_for_another_model(tmp_path, capsys):
    import pandas as pd

    from textattack_secondorder.evaluation.flip_capability import FlipCapability, FlipCapabilityResult
    from textattack_secondorder.models.fingerprint import weights_fingerprint
    from textattack_secondorder.models.loading import load_model_wrapper

    (tmp_path / "models.py").write_text(MODELS)
    pd.DataFrame([("a good film", 1), ("a dull film", 0)], columns=["text", "label"]).to_csv(
        tmp_path / "data.csv", index=False
    )
    model = load_model_wrapper(str(tmp_path / "models.py"))
    settings = {"model": "models.py", "model_fingerprint": weights_fingerprint(model)}
    FlipCapabilityResult(FlipCapability(["bad", "dull"], 2), settings).save(tmp_path / "kappa.json")
    config = tmp_path / "gate.toml"
    config.write_text(
        f'model = "{tmp_path / "models.py"}^defended"\ndataset = "{tmp_path / "data.csv"}"\n'
        '[[check]]\nname = "typos"\nkind = "attack"\nmetric = "success_rate"\n[check.settings]\n'
        'recipe = "deepwordbug"\n'
        '[[check]]\nkind = "attack"\nmetric = "success_rate"\nthreshold = 50.0\n[check.settings]\n'
        f"recipe = \"sp-attack^kappa='{tmp_path / 'kappa.json'}',label_rule='paper'\"\n"
    )
    assert main(["check", str(config), "--out", str(tmp_path / "out")]) == 2
    captured = capsys.readouterr()
    assert "evaluating" not in captured.out  # refused before the first check is evaluated
    err = captured.err.strip()
    assert len(err.splitlines()) == 1
    assert "kappa.json (computed for model 'models.py') belongs to another model" in err


def test_a_kappa_file_rewritten_under_the_same_name_is_measured_again(tmp_path):
    from textattack_secondorder.checks.config import load_config
    from textattack_secondorder.checks.runner import GateContext, check_key
    from textattack_secondorder.evaluation.flip_capability import FlipCapability, FlipCapabilityResult

    (tmp_path / "models.py").write_text(MODELS)
    (tmp_path / "data.csv").write_text("text,label\na good film,1\n")
    kappa = tmp_path / "kappa.json"
    FlipCapabilityResult(FlipCapability(["bad"], 2), {}).save(kappa)
    config = tmp_path / "gate.toml"
    config.write_text(
        f'model = "{tmp_path / "models.py"}"\ndataset = "{tmp_path / "data.csv"}"\n'
        '[[check]]\nkind = "attack"\nmetric = "success_rate"\n[check.settings]\n'
        f"recipe = \"sp-attack^kappa='{kappa}'\"\n"
    )
    cfg = load_config(config)
    (check,) = cfg.checks
    first = check_key(GateContext(cfg, tmp_path / "out"), check, {})
    assert check_key(GateContext(cfg, tmp_path / "out"), check, {}) == first
    FlipCapabilityResult(FlipCapability(["dull"], 2), {}).save(kappa)
    assert check_key(GateContext(cfg, tmp_path / "out"), check, {}) != first
