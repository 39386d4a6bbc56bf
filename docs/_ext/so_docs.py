"""Sphinx extension of the textattack-secondorder documentation.

* The figures: when the build starts, ``benchmarks/figures.py`` draws ``docs/figures/*.png`` from the committed
  result files; a missing result file stops the build with its name.
* The generated reference: ``docs/reference/cli.md`` and ``recipes.md`` are committed pages, built as they are;
  when the build starts each is compared with what :mod:`so_reference` generates from the code now (every command
  and flag from the argparse parsers, every recipe parameter from its ``Param`` record), and a page that differs is
  a warning naming the command that rewrites it (``python docs/_ext/so_reference.py``): the strict build fails.
"""

import importlib.util
from pathlib import Path

import so_reference
from sphinx.errors import ExtensionError
from sphinx.util import logging

REPO = Path(__file__).resolve().parents[2]
logger = logging.getLogger(__name__)


def _figures_module():
    spec = importlib.util.spec_from_file_location("so_figures", REPO / "benchmarks" / "figures.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def draw_figures(app):
    figures = _figures_module()
    try:
        figures.make_figures(Path(app.srcdir) / "figures")
    except figures.MissingSources as e:
        raise ExtensionError(f"benchmarks/figures.py: {e}") from None


def check_reference(app):
    for name in so_reference.stale_pages():
        logger.warning(
            f"docs/reference/{name}.md differs from what the code generates: run {so_reference.REGENERATE}",
            type="so_docs",
            subtype="reference",
        )


def setup(app):
    app.connect("builder-inited", draw_figures)
    app.connect("builder-inited", check_reference)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
