"""Every options table of the manual agrees with the code: its flags exist, its defaults are the code's defaults,
and it lists every option unless the page says it is a selection.

The rule (what a page must follow):

* An **options table** is a Markdown table whose header begins ``| option | default |`` (a command's flags) or
  ``| parameter | default |`` (a recipe's parameters).
* The paragraph right above it says what it lists, in its first code span that names a command or a recipe:
  ```textattack-so CMD``` (our parsers), ```textattack attack``` (TextAttack's parser, with the flags
  ``textattack-so attack`` adds), or a recipe of this package (```so-beam```: its ``Param`` records; ```sp-defense```:
  its keyword arguments).
* A row's first cell names one option in code: a flag with its aliases (```-m```, ```--early-stop```), a flag with
  its value (```--sample N```: the first word counts), a positional argument by its metavar (```RUN.csv ...```), or a
  parameter (```beam_width```). Several options in one row are an error.
* The default cell: where the code has a default value, the cell's first code span is that value as typed on the
  command line or in a recipe string (```mr```, ```0.1```, ```'judge'``` or ```judge```, ```20```). Where the code has
  none (None, a switch, a required argument, TextAttack's suppressed ``--num-examples``), the cell says in words what
  happens (``off``, ``all``, ``TextAttack's rule: CUDA when there is one``): nothing there is compared.
* Completeness: the page's tables for one command or recipe together list every option it has (``-h``/``--help``
  aside), unless the paragraph above one of them says the table is a **selection** (and then the reference, which
  lists every option, is where the rest are).
"""

import ast
import re
from functools import lru_cache

import pytest

from conftest import REPO
from test_docs import FENCE, INLINE, PAGES, our_commands, page_id, so_reference, textattack_parsers, written_text

OPTION_HEADERS = {"option", "parameter"}
NO_VALUE = object()  # the code has no default value: the cell is free text

# ---------------------------------------------------------------- what the code has


class Option:
    """One option of a command or a recipe: its names, its default (or NO_VALUE)."""

    def __init__(self, names, default):
        self.names, self.default = tuple(names), default

    def __repr__(self):
        return self.names[0]


def _argparse_default(action):
    import argparse

    switches = (argparse._StoreTrueAction, argparse._StoreFalseAction, argparse._StoreConstAction)
    if action.required or isinstance(action, (argparse._HelpAction, *switches)):
        return NO_VALUE
    if action.default in (None, argparse.SUPPRESS):
        return NO_VALUE
    return action.default


def _parser_options(parser, extra_flags=()):
    import argparse

    out = []
    for action in parser._actions:
        if isinstance(action, (argparse._HelpAction, argparse._SubParsersAction)):
            continue
        names = list(action.option_strings) or [n for n in (action.metavar, action.dest) if n]
        out.append(Option(names, _argparse_default(action)))
    return out + [Option([flag], NO_VALUE) for flag in extra_flags]


@lru_cache(maxsize=None)
def recipes():
    """``{recipe: [Option]}`` of this package's attack and augmentation recipes."""
    from textattack_secondorder.attack_recipes.build import attack_recipes

    out = {}
    for name, cls in attack_recipes().items():
        out[name] = [Option([p], NO_VALUE if s.default is None else s.default) for p, s in cls.PARAMS.items()]
    for name, (_, params) in so_reference.augmentation_recipe_params().items():
        out[name] = [Option([p], NO_VALUE if d is None else d) for p, (d, _) in params.items()]
    return out


def target_name(span):
    """What a code span names as a table's target: ``textattack-so bias`` (of ``textattack-so bias --max-k 1``),
    ``textattack attack``, ``so-beam``; None when it names none."""
    words = span.split()
    name = " ".join(words[:2]) if words and words[0] in ("textattack", "textattack-so") else span
    return name if target_options(name) is not None else None


@lru_cache(maxsize=None)
def target_options(target):
    """``[Option]`` of a target (``textattack-so bias``, ``textattack attack``, ``so-beam``), or None."""
    words = target.split()
    if len(words) == 2 and words[0] in ("textattack", "textattack-so"):
        command = words[1]
        if command in textattack_parsers() and (words[0] == "textattack" or command not in _ours_only()):
            extra = so_reference.ATTACK_EXTRA_FLAGS if command == "attack" else ()
            return _parser_options(textattack_parsers()[command], extra)
        if words[0] == "textattack-so" and command in our_commands():
            return _parser_options(our_commands()[command])
        return None
    return recipes().get(target)


def _ours_only():
    """Our commands that are not pass-throughs to TextAttack's."""
    from textattack_secondorder.cli.textattack_passthrough import TEXTATTACK_COMMANDS

    return set(our_commands()) - set(TEXTATTACK_COMMANDS)


# ---------------------------------------------------------------- reading a page's tables


class Table:
    """An options table: its target, whether its paragraph calls it a selection, its rows ``(line, cells)``."""

    def __init__(self, line, intro, rows):
        self.line, self.intro, self.rows = line, intro, rows
        self.selection = re.search(r"\bselection\b", intro, re.IGNORECASE) is not None
        self.target = next((t for t in map(target_name, _spans(intro)) if t is not None), None)


def _spans(text):
    return [" ".join(m.group(2).split()) for m in INLINE.finditer(text)]


def _cells(line):
    """The cells of a table row (``|`` inside a code span does not split, ``\\|`` neither)."""
    body = line.strip()[1:-1] if line.strip().endswith("|") else line.strip()[1:]
    cells, current, in_code = [], "", False
    i = 0
    while i < len(body):
        ch = body[i]
        if ch == "\\" and i + 1 < len(body) and body[i + 1] == "|":
            current += "|"
            i += 2
            continue
        if ch == "`":
            in_code = not in_code
        if ch == "|" and not in_code:
            cells.append(current.strip())
            current = ""
        else:
            current += ch
        i += 1
    return cells + [current.strip()]


def options_tables(text):
    """Every options table of a page's text, with the line its header is on."""
    blanked = FENCE.sub(lambda m: "\n" * m.group(0).count("\n"), text)  # code blocks hold no tables
    lines = blanked.splitlines()
    tables = []
    for i, line in enumerate(lines[:-1]):
        if not line.lstrip().startswith("|") or not re.match(r"^\s*\|[\s:|-]+\|?\s*$", lines[i + 1]):
            continue
        header = [c.lower() for c in _cells(line)]
        if len(header) < 2 or header[0] not in OPTION_HEADERS or header[1] != "default":
            continue
        j, intro = i - 1, []
        while j >= 0 and not lines[j].strip():
            j -= 1
        while j >= 0 and lines[j].strip() and not lines[j].lstrip().startswith("|"):
            intro.insert(0, lines[j])
            j -= 1
        rows, k = [], i + 2
        while k < len(lines) and lines[k].lstrip().startswith("|"):
            rows.append((k + 1, _cells(lines[k])))
            k += 1
        tables.append(Table(i + 1, " ".join(intro), rows))
    return tables


# ---------------------------------------------------------------- the check


def default_matches(written, default):
    """Whether a default as the page writes it (a code span's text) is the code's default."""
    if written == str(default):
        return True
    try:
        value = ast.literal_eval(written)
    except (ValueError, SyntaxError):
        return False
    return isinstance(value, bool) == isinstance(default, bool) and value == default


def table_problems(text, name):
    """``["NAME:LINE: problem", ...]`` of the options tables of one page's text."""
    problems, covered, selection = [], {}, {}
    for table in options_tables(text):
        if table.target is None:
            problems.append(f"{name}:{table.line}: an options table without a command or recipe named in code above it")
            continue
        options = target_options(table.target)
        by_name = {n: o for o in options for n in o.names}
        covered.setdefault(table.target, set())
        selection[table.target] = selection.get(table.target, False) or table.selection
        for line, cells in table.rows:
            where = f"{name}:{line}"
            names = [span.split()[0] for span in _spans(cells[0]) if span.split()]
            found = {id(by_name[n]): by_name[n] for n in names if n in by_name}
            unknown = [n for n in names if n not in by_name]
            if not names:
                problems.append(f"{where}: a row that names no option in code ({cells[0]!r})")
            elif unknown:
                problems += [f"{where}: `{table.target}` has no option `{n}`" for n in unknown]
            elif len(found) > 1:
                problems.append(f"{where}: one option per row (`{'`, `'.join(names)}` are {len(found)} options)")
            if len(found) != 1 or unknown:
                continue
            option = next(iter(found.values()))
            covered[table.target].add(id(option))
            if option.default is NO_VALUE:
                continue
            written = _spans(cells[1]) if len(cells) > 1 else []
            if not written:
                problems.append(f"{where}: `{names[0]}` defaults to `{option.default!r}`; the table gives no value")
            elif not default_matches(written[0], option.default):
                problems.append(f"{where}: `{names[0]}` defaults to `{option.default!r}`, not `{written[0]}`")
    for target, ids in covered.items():
        missing = [o for o in target_options(target) if id(o) not in ids]
        if missing and not selection[target]:
            problems.append(
                f"{name}: the tables of `{target}` leave out {', '.join(f'`{o}`' for o in missing)} and do not "
                "say they are a selection"
            )
    return problems


@pytest.mark.parametrize("path", PAGES, ids=page_id)
def test_every_options_table_agrees_with_the_code(path):
    problems = table_problems(written_text(path), page_id(path))
    assert not problems, f"{len(problems)} disagreements with the code:\n" + "\n".join(problems)


# the guide's pages and getting started each give their commands' options in a table; the own-model page is a
# walk-through of the other pages' commands (each table is on its command's page)
GUIDE_PAGES = [p for p in PAGES if p.parent.name == "guide" or p.name == "getting-started.md"]
WITHOUT_OPTIONS = {"docs/guide/own-model.md"}


@pytest.mark.parametrize("path", [p for p in GUIDE_PAGES if page_id(p) not in WITHOUT_OPTIONS], ids=page_id)
def test_every_guide_page_has_an_options_table(path):
    tables = options_tables(written_text(path))
    assert tables, f"{page_id(path)}: no options table (| option | default | ... |)"


# pages whose main command is being rewritten on other branches: their own-folder command comes with that work
# (strict: once a page leads with the user's folder, the mark must go)
PENDING_OWN_FOLDER = {
    "docs/guide/single-word.md": "SP-Attack's page is being rewritten with its new pool and rules",
    "docs/guide/certified.md": "certify's page is being rewritten with the second-order certificate",
}


def first_command_block(text):
    """The first fenced shell block of a page that runs ``textattack`` or ``textattack-so``."""
    for m in FENCE.finditer(text):
        language = (m.group("info").strip().split() or [""])[0].lower()
        if language in ("", "bash", "sh", "shell", "console") and re.search(r"\btextattack(-so)?\b", m.group("body")):
            return m.group("body")
    return None


def _own_folder_params():
    for path in GUIDE_PAGES:
        if page_id(path) in WITHOUT_OPTIONS:
            continue
        reason = PENDING_OWN_FOLDER.get(page_id(path))
        marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
        yield pytest.param(path, id=page_id(path), marks=marks)


@pytest.mark.parametrize("path", list(_own_folder_params()))
def test_every_guide_page_leads_with_the_users_own_folder_and_csv(path):
    """A guide page's first command is the reader's: their model's folder (``my_model``) and their CSV
    (``my_train.csv``, ``my_test.csv``), as docs/guide/own-model.md sets them up; the demo victim may follow."""
    block = first_command_block(written_text(path))
    assert block is not None, f"{page_id(path)}: no command"
    assert "my_model" in block and re.search(r"\bmy_\w+\.csv\b", block), f"{page_id(path)}: first command:\n{block}"


WRONG_TABLES = """# A page

Options of `textattack-so review`:

| option | default | what it does |
|---|---|---|
| `--seed` | `1` | a wrong default |
| `--sample N` | `5` | no default in the code: anything goes |
| `--no-such-flag` | | unknown |
| `--blind`, `--title` | | two options in one row |
| `--json` | | |
| plain words | | no option named |

Options of `textattack-so certify` (a selection):

| option | default | what it does |
|---|---|---|
| `--model-batch-size` | sixty-four | a default the code has, not written as a value |
| `--dataset` | `mr` | right |

More of `textattack-so certify`:

| option | default |
|---|---|
| `--split` | `test` |

Parameters of `so-beam` (a selection):

| parameter | default | what it does |
|---|---|---|
| `beam_width` | `20` | right |
| `patch_rule` | `'judge'` | right, as a recipe string writes it |
| `max_depth` | `'6'` | a string where the code has a number |
| `nonexistent` | `1` | unknown |

Parameters of nothing in particular:

| parameter | default |
|---|---|
| `beam_width` | `20` |
"""


def test_the_table_checker_reports_each_disagreement_and_none_of_the_agreements():
    found = table_problems(WRONG_TABLES, "page")
    for wrong in (
        "page:7: `--seed` defaults to `0`, not `1`",
        "page:9: `textattack-so review` has no option `--no-such-flag`",
        "page:10: one option per row (`--blind`, `--title` are 2 options)",
        "page:12: a row that names no option in code ('plain words')",
        "page:18: `--model-batch-size` defaults to `64`; the table gives no value",
        "page:33: `max_depth` defaults to `6`, not `'6'`",
        "page:34: `so-beam` has no option `nonexistent`",
        "page:38: an options table without a command or recipe named in code above it",
        "page: the tables of `textattack-so review` leave out `RUN.csv`, `--out`, `--blind`, `--label-names`,",
    ):
        assert any(line.startswith(wrong) for line in found), (wrong, found)
    # certify's second table adds to a selection and so-beam's is one: neither is incomplete
    assert len(found) == 9, "\n".join(found)


def test_a_complete_table_needs_no_selection_and_the_generated_reference_is_not_read():
    rows = "\n".join(
        f"| `{o.names[0]}` | {'' if o.default is NO_VALUE else f'`{o.default}`'} |"
        for o in target_options("textattack-so review")
    )
    page = f"Options of `textattack-so review`:\n\n| option | default |\n|---|---|\n{rows}\n"
    assert table_problems(page, "page") == []
    reference = REPO / "docs" / "reference" / "cli.md"
    assert not options_tables(written_text(reference))
