"""What `textattack-so --help` costs is decided in one place: the command modules import only what their parsers
need at their top (textattack_secondorder/cli/__init__.py says so), and the library imports at its own top."""

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import offline_env

CLI_DIR = Path(__file__).resolve().parent.parent / "textattack_secondorder" / "cli"
# what a command module may import at its top, besides the standard library (and the package shared/ itself)
PARSE_TIME = {
    "textattack_secondorder.shared",
    "textattack_secondorder.shared.specs",
    "textattack_secondorder.shared.errors",
}


def test_building_the_parsers_imports_no_library_module():
    code = (
        "import sys, textattack_secondorder.cli as c; c.build_parser();"
        "print(any(m in sys.modules for m in ('torch', 'textattack', 'transformers')));"
        "print(' '.join(sorted(m for m in sys.modules if m.startswith('textattack_secondorder.'))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=offline_env(), timeout=120)
    assert out.returncode == 0, out.stderr
    heavy, loaded = out.stdout.splitlines()
    assert heavy == "False"
    library = [
        m
        for m in loaded.split()
        if not m.startswith("textattack_secondorder.cli") and m != "textattack_secondorder._version"
    ]
    assert set(library) <= PARSE_TIME, library


def test_command_modules_import_the_library_only_inside_functions():
    stdlib = getattr(sys, "stdlib_module_names", None)
    if stdlib is None:
        pytest.skip("sys.stdlib_module_names: Python >= 3.10")
    for path in sorted(CLI_DIR.glob("*.py")):
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level == 1:  # the command line's own modules
                    continue
                base = f"textattack_secondorder.{node.module}" if node.level == 2 else node.module
                names = [base]
            else:
                continue
            for name in names:
                assert name.split(".")[0] in stdlib or name in PARSE_TIME, f"{path.name} imports {name} at its top"
