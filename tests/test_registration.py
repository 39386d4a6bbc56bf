"""The stock TextAttack CLI knows our recipes, without slowing Python start-up."""

import ast
import importlib
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from conftest import offline_env, stock_textattack

PLANTED_MODEL = '''
import numpy as np
import textattack


class Planted(textattack.models.wrappers.ModelWrapper):
    """Fragile on purpose: positive iff the word 'good' is in the text."""

    def __init__(self):
        self.model = None

    def __call__(self, texts):
        pos = np.array([1.0 if "good" in t.lower().split() else 0.0 for t in texts])
        return np.stack([1.0 - pos, pos], axis=1)


model = Planted()
'''

PLANTED_DATA = """
import textattack

dataset = textattack.datasets.Dataset(
    [("a good film", 1), ("good acting, a fine cast", 1), ("a dull film", 0)]
)
"""


def run(cmd, **env):
    return subprocess.run(cmd, capture_output=True, text=True, env=offline_env(**env), timeout=600)


def test_import_is_cheap_and_does_not_import_torch():
    code = (
        "import sys, textattack_secondorder, textattack_secondorder_hook, textattack_secondorder.resources;"
        "print('torch' in sys.modules, 'textattack' in sys.modules)"
    )
    out = run([sys.executable, "-c", code])
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["False", "False"]


def test_cli_parser_and_check_config_do_not_import_torch_or_textattack():
    """`textattack-so --help` builds every parser, `check --init` and config validation load every check module:
    they stay light by the rules stated once in `cli/__init__.py` (a command imports the library in its `run`) and
    `checks/__init__.py` (a check imports it in `evaluate`)."""
    code = (
        "import sys, textattack_secondorder.cli as c; c.build_parser();"
        "import textattack_secondorder.checks.config, textattack_secondorder.checks.starter;"
        "print(*(m in sys.modules for m in ('torch', 'textattack', 'transformers', 'pandas', 'matplotlib')))"
    )
    out = run([sys.executable, "-c", code])
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["False"] * 5


def test_every_subpackage_is_listed_and_imports():
    import textattack_secondorder

    folders = {p.parent.name for p in Path(textattack_secondorder.__file__).parent.glob("*/__init__.py")}
    folders.discard("data")  # the shipped data folder (setup.py package_dir), not code
    assert set(textattack_secondorder._SUBPACKAGES) == folders
    for name in textattack_secondorder._SUBPACKAGES:
        assert importlib.import_module(f"textattack_secondorder.{name}").__name__ == f"textattack_secondorder.{name}"


PACKAGE_DIR = Path(__file__).resolve().parent.parent / "textattack_secondorder"
# Modules allowed to use importlib.import_module or a module-level __getattr__ (at most 2, each with a
# one-line comment giving the measured start-up reason). None needs it today.
DYNAMIC_IMPORT_ALLOWED = set()


def _module_name(path):
    parts = path.relative_to(PACKAGE_DIR.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path):
    """Absolute names of the modules ``path`` imports (anywhere in the file, in functions too)."""
    name = _module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module
            out.add(module)
            out.update(f"{module}.{alias.name}" for alias in node.names)  # `from . import x` imports module x
    return out


def _subpackage(module):
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[0] == "textattack_secondorder" else None


def test_subpackages_import_each_other_without_a_loop():
    """The import graph between the top-level sub-packages (static, every import in every module) has no cycle."""
    import textattack_secondorder

    subpackages = set(textattack_secondorder._SUBPACKAGES)
    graph = {p: set() for p in subpackages}
    for path in PACKAGE_DIR.rglob("*.py"):
        source = _subpackage(_module_name(path))
        if source not in subpackages:
            continue
        for target in map(_subpackage, _imports(path)):
            if target in subpackages and target != source:
                graph[source].add(target)
    # depth-first search for a cycle; report it as a path
    state, stack = {}, []

    def visit(node):
        state[node] = "open"
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == "open":
                raise AssertionError(
                    "import loop between sub-packages: " + " -> ".join(stack[stack.index(nxt) :] + [nxt])
                )
            if nxt not in state:
                visit(nxt)
        stack.pop()
        state[node] = "done"

    for node in sorted(graph):
        if node not in state:
            visit(node)
    # the layers the brief names: the CLI on top, the TextAttack glue above the library
    assert not graph["cli"] - subpackages, graph["cli"]
    assert all("cli" not in targets for source, targets in graph.items() if source != "cli"), graph
    assert all("plugin" not in targets for source, targets in graph.items() if source not in ("cli", "plugin")), graph


def test_no_hidden_imports():
    """No ``importlib.import_module`` and no module-level ``__getattr__`` outside the allowed list."""
    assert len(DYNAMIC_IMPORT_ALLOWED) <= 2
    found = set()
    for path in PACKAGE_DIR.rglob("*.py"):
        tree = ast.parse(path.read_text(), str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and node.attr == "import_module":
                found.add(_module_name(path))
            if isinstance(node, ast.ImportFrom) and any(a.name == "import_module" for a in node.names):
                found.add(_module_name(path))
        if any(isinstance(n, ast.FunctionDef) and n.name == "__getattr__" for n in tree.body):
            found.add(_module_name(path))
    assert found <= DYNAMIC_IMPORT_ALLOWED, sorted(found - DYNAMIC_IMPORT_ALLOWED)


def test_hook_is_installed_at_startup():
    out = run([sys.executable, "-c", "import sys; print([type(f).__name__ for f in sys.meta_path])"])
    assert "_Finder" in out.stdout, "textattack_secondorder_hook.pth did not run at start-up"


def test_registration_waits_for_our_module_that_imports_textattack():
    # neighborhood.py imports TextAttack at its top: the recipes cannot be registered until it is done
    code = textwrap.dedent(
        """
        import logging, sys
        logging.basicConfig(level=logging.WARNING, stream=sys.stdout)
        from textattack_secondorder.transformations.neighborhood import select_neighbor_words
        import textattack.attack_args as a
        print('REGISTERED', 'so-beam' in a.ATTACK_RECIPE_NAMES)
        """
    )
    out = run([sys.executable, "-c", code])
    assert out.returncode == 0, out.stderr
    assert "could not register" not in out.stdout
    assert "REGISTERED True" in out.stdout


def test_stock_cli_lists_our_recipe(capfd):
    code, out, err = stock_textattack(capfd, "list", "attack-recipes")
    assert code == 0, err
    assert "textfooler-offline" in out and "so-beam" in out


def test_attack_help_and_recipes_name_our_recipes_their_parameters_and_asr1(capsys):
    from textattack_secondorder.attack_recipes import RECIPES, SOBeam
    from textattack_secondorder.cli import main

    with pytest.raises(SystemExit) as e:
        main(["attack", "--help"])
    out = capsys.readouterr().out
    assert e.value.code == 0 and "--attack-from-file" in out  # TextAttack's own help, then ours
    assert "--asr1" in out and "NAME^param=value" in out
    for cls in RECIPES:
        assert f"  {cls.name}: " in out
    default = SOBeam.PARAMS["beam_width"].default
    assert f"beam_width={default!r}" in out and f"patch_rule={SOBeam.PARAMS['patch_rule'].default!r}" in out
    assert main(["recipes", "so-beam"]) == 0
    one = capsys.readouterr().out
    assert "so-enum:" not in one and "      max_depth = 6" in one and "Algorithm 2" in one  # each parameter's help
    assert main(["recipes", "no-such"]) == 2 and "so-beam" in capsys.readouterr().err


def test_each_recipe_parameter_is_one_record_that_the_check_and_the_help_read(monkeypatch):
    from textattack_secondorder.attack_recipes import RECIPES, SOBeam, SOEnum
    from textattack_secondorder.attack_recipes.param import Param
    from textattack_secondorder.cli.recipes_cmd import describe
    from textattack_secondorder.goal_functions.patch_rules import PATCH_RULES
    from textattack_secondorder.shared.recipe_params import RecipeParameterError

    assert all(isinstance(spec, Param) for cls in RECIPES for spec in cls.PARAMS.values())
    assert SOBeam.PARAMS["patch_rule"].choices == tuple(PATCH_RULES)  # the rules' table, not a copy
    with pytest.raises(RecipeParameterError, match="patch_judge_threshold=5 is not allowed: must be a number between"):
        SOBeam.check_params({"patch_judge_threshold": 5})  # a None default with bounds is a number
    # one edit of the record changes the check and the help together, and nothing else needs one
    record = SOBeam.PARAMS["patch_rule"]
    monkeypatch.setitem(SOBeam.PARAMS, "patch_rule", record.but(choices=(*record.choices, "strict")))
    assert SOBeam.check_params({"patch_rule": "strict"})["patch_rule"] == "strict"
    assert "'strict'" in describe({"so-beam": SOBeam}, "so-beam")
    with pytest.raises(RecipeParameterError, match="choose one of"):
        SOEnum.check_params({"patch_rule": "strict"})  # so-enum's record is its own dict entry


@pytest.mark.slow  # two fresh interpreters importing TextAttack without the hook
def test_opt_out_and_manual_register(repo):
    code = textwrap.dedent(
        """
        import textattack.attack_args as a
        before = 'textfooler-offline' in a.ATTACK_RECIPE_NAMES
        import textattack_secondorder
        table = textattack_secondorder.register()
        print(before, 'textfooler-offline' in a.ATTACK_RECIPE_NAMES, 'textfooler-offline^x=1' in table.keys())
        """
    )
    out = run(
        [sys.executable, "-c", code], TEXTATTACK_SECONDORDER_NO_HOOK="1", NLTK_DATA=str(repo / "data" / "nltk_data")
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["False", "True", "True"]


@pytest.mark.slow
def test_fallback_entry_point_lists_recipes_with_hook_off():
    out = run(
        [sys.executable, "-m", "textattack_secondorder", "list", "attack-recipes"], TEXTATTACK_SECONDORDER_NO_HOOK="1"
    )
    assert out.returncode == 0, out.stderr
    assert "textfooler-offline" in out.stdout


def test_recipe_table_accepts_params_only_for_known_names():
    from textattack_secondorder.plugin.recipe_params import RecipeTable

    table = RecipeTable({"so-x": "expr"})
    assert "so-x" in table.keys()
    assert "so-x^beam_width=3" in table.keys()
    assert "other^beam_width=3" not in table.keys()
    assert list(table.keys()) == ["so-x"]


def test_unknown_recipe_parameter_is_a_clear_error():
    from textattack_secondorder.attack_recipes import TextFoolerOffline

    with pytest.raises(ValueError) as e:
        TextFoolerOffline.build(object(), beam_widht=3)
    msg = str(e.value)
    assert "beam_widht" in msg and "max_candidates" in msg and "textfooler-offline" in msg


def test_parse_recipe_params():
    from textattack_secondorder.shared.recipe_params import parse_recipe_params

    assert parse_recipe_params("a=1,b='x',c=True,d=path/to.json") == {"a": 1, "b": "x", "c": True, "d": "path/to.json"}
    with pytest.raises(ValueError):
        parse_recipe_params("a=1,2")


def test_stock_cli_attacks_planted_model_with_recipe_params(tmp_path, capfd):
    """`textattack attack --recipe "textfooler-offline^..."` runs our recipe end to end."""
    (tmp_path / "model.py").write_text(PLANTED_MODEL)
    (tmp_path / "data.py").write_text(PLANTED_DATA)
    syn = tmp_path / "syn.json"
    syn.write_text('{"good": ["fine", "decent"], "dull": ["boring"]}')
    csv = tmp_path / "log.csv"
    recipe = f"textfooler-offline^synonyms='{syn}',use_sentence_encoder=False"
    code, out, err = stock_textattack(
        capfd,
        "attack",
        "--recipe",
        recipe,
        "--model-from-file",
        tmp_path / "model.py",
        "--dataset-from-file",
        f"{tmp_path / 'data.py'}^dataset",
        "--num-examples",
        "3",
        "--log-to-csv",
        csv,
        "--disable-stdout",
    )
    assert code == 0, out[-3000:] + err[-3000:]
    assert "Number of successful attacks:" in out
    import pandas as pd

    log = pd.read_csv(csv)
    assert (log["result_type"] == "Successful").sum() == 2
    assert all("good" not in t.split() for t in log.loc[log["result_type"] == "Successful", "perturbed_text"])


def test_stock_cli_rejects_unknown_recipe_parameter(tmp_path, capfd):
    (tmp_path / "model.py").write_text(PLANTED_MODEL)
    (tmp_path / "data.py").write_text(PLANTED_DATA)
    code, _, err = stock_textattack(
        capfd,
        "attack",
        "--recipe",
        "textfooler-offline^nonsense=1",
        "--model-from-file",
        tmp_path / "model.py",
        "--dataset-from-file",
        f"{tmp_path / 'data.py'}^dataset",
        "--num-examples",
        "1",
    )
    assert code == 2, err[-2000:]
    assert "Unknown parameter(s) 'nonsense'" in err and "max_candidates" in err and "Traceback" not in err


def test_every_registered_name_builds():
    """Each class carries its registered name; TextAttack's tables point at that class; each one builds."""
    import textattack

    from textattack_secondorder.attack_recipes.build import attack_recipes
    from textattack_secondorder.evaluation.flip_capability import FlipCapability, FlipCapabilityResult
    from textattack_secondorder.plugin.registry import augmentation_recipes, install_tables
    from textattack_secondorder.resources.proposers import WordProposer

    class FixedProposer(WordProposer):
        context_only = True

        def propose(self, sentences, positions, top_k=21):
            return [[[("fine", 1.0), ("nice", 0.5)] for _ in pos] for pos in positions]

    namespace = {}
    exec(PLANTED_MODEL, namespace)
    model = namespace["model"]
    synonyms = {"good": ["fine"], "film": ["movie"]}
    kappa = FlipCapabilityResult(FlipCapability(["bad", "dull"], 2).update([0], 1))
    light = {  # small stand-ins for the slots, so the test loads no real model
        "masked_lm": FixedProposer(device="cpu"),
        "synonyms": synonyms,
        "patch_rule": "paper",
        "label_rule": "paper",  # sp-attack: no training sentences to read the label lean from
        "neighbor_rule": "paper",
        "use_sentence_encoder": False,
    }
    table = install_tables()
    ours = attack_recipes()
    assert {
        "so-beam",
        "so-enum",
        "so-random",
        "sp-attack",
        "textfooler-offline",
        "bae-offline",
        "alzantot-offline",
    } <= set(ours)
    for name, cls in ours.items():
        assert cls.name == name
        assert eval(table[name], {"textattack": textattack}) is cls
        params = {k: v for k, v in light.items() if k in cls.PARAMS}
        if name == "sp-attack":  # its kappa is the flip capability (Xu et al.), not Zhang et al.'s κ
            params["kappa"] = kappa
        if name == "a2t-offline":  # gradient word importance: a prediction-only wrapper is refused in one line
            from textattack_secondorder.models.token_classifier import GradientAccessError

            with pytest.raises(GradientAccessError, match="gradient"):
                cls.build(model, **params)
            continue
        attack = cls.build(model, **params)
        assert isinstance(attack, textattack.Attack), name
    aug = augmentation_recipes()
    assert set(aug) == {"sp-defense"}
    for name, cls in aug.items():
        assert eval(textattack.augment_args.AUGMENTATION_RECIPE_NAMES[name], {"textattack": textattack}) is cls
        assert cls(mode="random", vocabulary=["fine", "nice"]).augment("a good film")
