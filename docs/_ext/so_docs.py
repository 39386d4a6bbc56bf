"""Sphinx extension of the textattack-secondorder documentation.

* The figures: when the build starts, ``benchmarks/figures.py`` draws ``docs/figures/*.png`` from the committed
  result files; a missing result file stops the build with its name.
* The generated reference: a page holding the line ``<!-- generated: cli -->`` (or ``recipes``) gets, in its
  place, the Markdown of :mod:`so_reference` (every command and flag from the argparse parsers, every recipe
  parameter from its ``Param`` record), read from the code at every build.
"""

import importlib.util
import re
from pathlib import Path

import so_reference
from sphinx.errors import ExtensionError

REPO = Path(__file__).resolve().parents[2]
MARKER = re.compile(r"^<!-- generated: (\w+) -->$", re.MULTILINE)


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


def insert_reference(app, docname, source):
    def generated(match):
        name = match.group(1)
        if name not in so_reference.GENERATORS:
            raise ExtensionError(
                f"{docname}: no generated reference {name!r}; known: {', '.join(so_reference.GENERATORS)}"
            )
        return so_reference.GENERATORS[name]()

    source[0] = MARKER.sub(generated, source[0])


def generated_pages(app, env, added, changed, removed):
    """The pages with a generated part are read again at every build: the code they come from may have changed
    while the page did not."""
    pages = []
    for docname in env.found_docs:
        path = Path(env.doc2path(docname))
        if path.suffix == ".md" and MARKER.search(path.read_text(encoding="utf-8")):
            pages.append(docname)
    return pages


def setup(app):
    app.connect("builder-inited", draw_figures)
    app.connect("source-read", insert_reference)
    app.connect("env-get-outdated", generated_pages)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
