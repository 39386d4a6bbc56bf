"""Sphinx configuration of the textattack-secondorder documentation (Sphinx + MyST + furo).

Build (the README gives the same command):

    pip install -e ".[docs]" && sphinx-build -W --keep-going -b html docs docs/_build/html
"""

import os
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
# the extension beside this file; the package itself is imported as installed (pip install -e ".[docs]")
sys.path.insert(0, str(DOCS / "_ext"))
os.environ.setdefault("OMP_NUM_THREADS", "1")

from textattack_secondorder import __version__  # noqa: E402

project = "textattack-secondorder"
author = "textattack-secondorder contributors"
copyright = "textattack-secondorder contributors"
version = release = __version__

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "so_docs",
]
source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
root_doc = "index"
# _build: the output; notebook/: dated history, not part of the manual; methods.md: the former notes, until removed
exclude_patterns = ["_build", "notebook", "methods.md"]

myst_enable_extensions = ["colon_fence", "deflist", "dollarmath"]
# `[text](page.md#a-heading)` links resolve to headings down to ###
myst_heading_anchors = 3

autodoc_default_options = {"members": True, "member-order": "bysource"}
autodoc_typehints = "none"
autodoc_class_signature = "separated"
napoleon_google_docstring = True
napoleon_numpy_docstring = False

# values stay as typed: 'judge' is not ‘judge’, -- is not –
smartquotes = False

html_theme = "furo"
html_title = f"textattack-secondorder {release}"
