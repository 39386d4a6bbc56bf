"""The manual cannot drift from the code: every command, flag, recipe and recipe parameter the README and the docs
name exists; the generated reference lists every flag and parameter; the figures' result files are there.

Names are read from code only: fenced code blocks (shell commands: ``textattack-so CMD --flag``, ``textattack
attack --recipe NAME^param=...``, ``python benchmarks/X.py --flag``) and inline code spans, never from prose.
"""

import argparse
import difflib
import importlib.util
import re
import shlex
import sys
from functools import lru_cache
from pathlib import Path

import pytest

from conftest import REPO

DOCS = REPO / "docs"
sys.path.insert(0, str(DOCS / "_ext"))

import so_reference  # noqa: E402

# the pages a user reads: the README and every page of the site (not the build output, not a dated notebook,
# not the generated half of the reference pages, which is code's own text and checked below)
SKIPPED = ("_build", "notebook")


def manual_pages():
    pages = [REPO / "README.md"]
    pages += sorted(p for p in DOCS.rglob("*.md") if not set(p.relative_to(DOCS).parts) & set(SKIPPED))
    return [p for p in pages if p.is_file()]


def page_id(path):
    return str(path.relative_to(REPO))


PAGES = manual_pages()
# blocks read as commands (a ```text block is what a command prints)
SHELL_LANGUAGES = {"", "bash", "sh", "shell", "console", "zsh"}
# flags of other programs a page may name on their own (pip, pytest, sphinx-build)
OTHER_PROGRAMS_FLAGS = {"--help", "--version", "--keep-going", "--durations", "--no-deps", "--no-index", "--target",
                        "--upgrade", "--user", "--find-links"}  # fmt: skip

# ---------------------------------------------------------------- reading a page


class Code:
    """A piece of code on a page: ``text``, whether it is a ``block`` and its language, and the line it starts on."""

    def __init__(self, text, line, block, language=""):
        self.text, self.line, self.block, self.language = text, line, block, language


FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})(?P<info>[^\n`]*)\n(?P<body>.*?)^[ \t]*(?P=fence)[ \t]*$",
                   re.MULTILINE | re.DOTALL)  # fmt: skip
INLINE = re.compile(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)", re.DOTALL)


def written_text(path):
    """The page's hand-written text: a reference page up to its ``<!-- generated: NAME -->`` line (what follows is
    the code's own text, checked against the code below)."""
    text = path.read_text(encoding="utf-8")
    for name in so_reference.GENERATORS:
        if Path(path).resolve() == so_reference.page_path(name).resolve():
            return text.partition(so_reference.marker(name))[0]
    return text


def read_code(path):
    """Every fenced block and inline code span of the page (its hand-written text), with its line number."""
    text = written_text(path)
    pieces, prose, last = [], [], 0
    for m in FENCE.finditer(text):
        info = m.group("info").strip()
        directive = re.match(r"\{([\w:-]+)\}\s*(\S*)", info)
        if directive is None:
            language = info.split()[0] if info else ""
        elif directive.group(1) in ("code-block", "code", "sourcecode"):
            language = directive.group(2)
        else:  # toctree, figure, eval-rst ...: not code a reader runs
            language = "{directive}"
        pieces.append(Code(m.group("body"), text.count("\n", 0, m.start("body")) + 1, True, language.lower()))
        prose.append((last, text[last : m.start()]))
        last = m.end()
    prose.append((last, text[last:]))
    for offset, chunk in prose:
        for m in INLINE.finditer(chunk):
            body = m.group(2).strip()
            pieces.append(Code(body, text.count("\n", 0, offset + m.start()) + 1, False))
    return text, pieces


def shell_commands(code):
    """``[(line, tokens)]``: each command of a shell block or inline span, continuation lines joined, prompts and
    comments dropped, split at ``|``, ``&&``, ``||`` and ``;``."""
    lines = code.text.splitlines() if code.block else [code.text]
    out, pending, start = [], "", code.line
    for i, line in enumerate(lines):
        if not pending:
            start = code.line + i
        stripped = line.strip()
        if stripped.startswith("$ "):
            stripped = stripped[2:]
        if stripped.endswith("\\"):
            pending += stripped[:-1] + " "
            continue
        command, pending = pending + stripped, ""
        lexer = shlex.shlex(command, posix=True, punctuation_chars=";&|")
        lexer.whitespace_split, lexer.commenters = True, "#"
        try:
            tokens = list(lexer)
        except ValueError:  # unbalanced quotes: prose in a code span, or an elided value
            tokens = command.split()
        current = []
        for token in tokens + [";"]:
            if token and set(token) <= set(";&|"):
                if current:
                    out.append((start, current))
                current = []
            else:
                current.append(token)
    return out


# ---------------------------------------------------------------- what the code has


@lru_cache(maxsize=None)
def our_parser():
    from textattack_secondorder.cli import build_parser

    return build_parser()


@lru_cache(maxsize=None)
def our_commands():
    return {name: sub for name, _, sub in so_reference.subcommands(our_parser())}


@lru_cache(maxsize=None)
def textattack_parsers():
    """``{command: parser}`` of the stock ``textattack`` command line, built as TextAttack builds it."""
    from textattack.commands.attack_command import AttackCommand
    from textattack.commands.attack_resume_command import AttackResumeCommand
    from textattack.commands.augment_command import AugmentCommand
    from textattack.commands.benchmark_recipe_command import BenchmarkRecipeCommand
    from textattack.commands.eval_model_command import EvalModelCommand
    from textattack.commands.list_things_command import ListThingsCommand
    from textattack.commands.peek_dataset_command import PeekDatasetCommand
    from textattack.commands.train_model_command import TrainModelCommand

    parser = argparse.ArgumentParser("textattack")
    sub = parser.add_subparsers()
    for command in (
        AttackCommand,
        AttackResumeCommand,
        AugmentCommand,
        BenchmarkRecipeCommand,
        EvalModelCommand,
        ListThingsCommand,
        TrainModelCommand,
        PeekDatasetCommand,
    ):
        command.register_subcommand(sub)
    return {name: p for name, _, p in so_reference.subcommands(parser)}


@lru_cache(maxsize=None)
def recipe_params():
    """``{recipe: {parameter, ...} or None}``: ours with their parameters, TextAttack's (None: no parameters)."""
    import textattack

    from textattack_secondorder.attack_recipes.build import attack_recipes
    from textattack_secondorder.plugin.registry import augmentation_recipes

    known = {name: None for name in textattack.attack_args.ATTACK_RECIPE_NAMES}
    known.update({name: None for name in textattack.augment_args.AUGMENTATION_RECIPE_NAMES})
    known.update({name: set(cls.PARAMS) for name, cls in attack_recipes().items()})
    known.update({name: set(params) for name, (_, params) in so_reference.augmentation_recipe_params().items()})
    known.update({name: set(cls.PARAMS) for name, cls in augmentation_recipes().items() if hasattr(cls, "PARAMS")})
    return known


def all_recipe_params():
    return set().union(*(p for p in recipe_params().values() if p))


def flags_of(parser):
    return set(so_reference.options(parser))


@lru_cache(maxsize=None)
def every_flag():
    flags = set(flags_of(our_parser())) | set(so_reference.ATTACK_EXTRA_FLAGS) | OTHER_PROGRAMS_FLAGS
    for parser in list(our_commands().values()) + list(textattack_parsers().values()):
        flags |= flags_of(parser)
    for script in [*(REPO / "benchmarks").glob("*.py"), *(REPO / "scripts").rglob("*.py")]:
        flags |= script_flags(script)
    return flags


@lru_cache(maxsize=None)
def code_keywords():
    """Every ``name=`` (keyword argument, default, option) written in the package's and the benchmarks' code."""
    names = set()
    for path in [*(REPO / "textattack_secondorder").rglob("*.py"), *(REPO / "benchmarks").glob("*.py")]:
        names |= set(re.findall(r"\b([a-z_][a-z0-9_]*)\s*=", path.read_text(encoding="utf-8")))
    return names


@lru_cache(maxsize=None)
def script_flags(script):
    """The ``--flags`` a benchmark script declares (string literals in it and in the benchmark modules it imports)."""
    text = Path(script).read_text(encoding="utf-8")
    flags = set(re.findall(r"""["'](--[a-z0-9][a-z0-9-]*)["']""", text))
    for module in re.findall(r"^\s*(?:from|import)\s+(\w+)", text, re.MULTILINE):
        helper = REPO / "benchmarks" / f"{module}.py"
        if helper.is_file() and helper != Path(script):
            flags |= set(re.findall(r"""["'](--[a-z0-9][a-z0-9-]*)["']""", helper.read_text(encoding="utf-8")))
    if "add_cluster_args(" in text:  # the package's cluster flags (--ray, --workers ...), as the commands take them
        import argparse

        from textattack_secondorder.cli.common import add_cluster_args

        parser = argparse.ArgumentParser()
        add_cluster_args(parser)
        flags |= flags_of(parser)
    return flags | {"--help", "-h"}


# ---------------------------------------------------------------- the checks


FLAG = re.compile(r"^--[a-z0-9][a-z0-9-]*(=|$)")  # --flag or --flag=value, not an arrow (-->) or a rule (----)


def _flag(token):
    return token.split("=", 1)[0]


def _is_placeholder(token):
    return not token or token[0] in "<[{$(" or token.isupper() or token in ("...", "…")


def _program_start(tokens):
    """Where the command we know begins (after ``VAR=value``, ``nice -n 10``, ``time``, ``run.py --`` ...)."""
    for i, token in enumerate(tokens):
        name = Path(token).name
        if name in ("textattack-so", "textattack"):
            return ["textattack-so", *tokens[i + 1 :]] if name == "textattack-so" else tokens[i:]
        if name.startswith("python") and tokens[i + 1 : i + 3] == ["-m", "textattack_secondorder"]:
            return ["textattack-so", *tokens[i + 3 :]]
        if name.startswith("python") and len(tokens) > i + 1 and tokens[i + 1].startswith("benchmarks/"):
            return tokens[i:]
    return None


def check_command(tokens):
    """Problems of one shell command (tokens): an unknown ``textattack-so`` command, flag or recipe."""
    problems = []
    tokens = _program_start(tokens)
    if tokens is None:
        return []
    program = Path(tokens[0]).name
    if program == "textattack-so":
        if len(tokens) == 1 or tokens[1].startswith("-"):
            parser, name, rest = our_parser(), "textattack-so", tokens[1:]
        elif _is_placeholder(tokens[1]) or tokens[1].endswith(":"):  # a placeholder, or a message it prints
            return []
        elif tokens[1] not in our_commands():
            return [f"no command `textattack-so {tokens[1]}`"]
        else:
            name, rest = f"textattack-so {tokens[1]}", tokens[2:]
            parser = our_commands()[tokens[1]]
            if tokens[1] in textattack_parsers():  # a pass-through: TextAttack's flags and the ones read here
                known = flags_of(textattack_parsers()[tokens[1]])
                if tokens[1] == "attack":
                    known |= set(so_reference.ATTACK_EXTRA_FLAGS)
                return problems + _check_flags(rest, known | {"-h", "--help"}, name)
        return _check_flags(rest, flags_of(parser), name)
    if program == "textattack" and len(tokens) > 1 and not _is_placeholder(tokens[1]):
        if tokens[1] not in textattack_parsers():
            return [f"no command `textattack {tokens[1]}`"]
        return _check_flags(tokens[2:], flags_of(textattack_parsers()[tokens[1]]), f"textattack {tokens[1]}")
    if program.startswith("python") and len(tokens) > 1 and tokens[1].startswith("benchmarks/"):
        script = REPO / tokens[1]
        if not script.is_file():
            return [f"no script `{tokens[1]}`"]
        return _check_flags(tokens[2:], script_flags(script), tokens[1])
    return problems


def _check_flags(tokens, known, name):
    problems = []
    if "--" in tokens:  # what follows a bare -- goes to another command
        tokens = tokens[: tokens.index("--")]
    for i, token in enumerate(tokens):
        if FLAG.match(token) and not _is_placeholder(token[2:]):
            if _flag(token) not in known:
                problems.append(f"`{name}` has no flag `{_flag(token)}`")
        if _flag(token) in ("--recipe", "--recipes", "--attack-recipe"):
            values = [token.split("=", 1)[1]] if "=" in token else []
            for value in tokens[i + 1 :] if not values else []:
                if value.startswith("-"):
                    break
                values.append(value)
                if _flag(token) == "--recipe":
                    break
            for value in values:
                problems += check_recipe(value, strict_name=True)
    return problems


RECIPE_STRING = re.compile(r"(?<![\w./@-])([a-z][a-z0-9]*(?:-[a-z0-9]+)*)\^([^\s\"`]*)")


def check_recipe(text, strict_name=False):
    """Problems of a recipe string ``NAME`` or ``NAME^param=value,...``: an unknown recipe or parameter."""
    name, _, params = text.partition("^")
    if _is_placeholder(name) or "." in name or "/" in name:
        return []
    known = recipe_params()
    if name not in known:
        return [f"no recipe `{name}`"] if (strict_name or params) else []
    problems = []
    for param in re.findall(r"(?:^|,)\s*([A-Za-z_]\w*)\s*=", params):
        if known[name] is None:
            problems.append(f"TextAttack's recipe `{name}` takes no parameters (`{param}`)")
        elif param not in known[name]:
            problems.append(f"recipe `{name}` has no parameter `{param}`")
    return problems


RECIPE_LIKE = re.compile(r"^(so-[a-z]+|sp-[a-z]+|[a-z0-9]+-offline)$")
PARAM_ASSIGNMENT = re.compile(r"^([a-z][a-z0-9]*(?:_[a-z0-9]+)+)=[^\s=]+$")
PATH = re.compile(r"(?<![\w/.-])((?:benchmarks|docs|examples|recipes|scripts)/[\w./-]+)([^\s`\"')]*)")
# what the docs build writes (git-ignored): a page may name it before it exists, as on a fresh clone
BUILD_OUTPUTS = ("docs/_build", "docs/figures")


def problems_of(path):
    """``["LINE: problem", ...]`` of one page."""
    _, pieces = read_code(path)
    problems = []

    def add(line, found):
        problems.extend(f"{page_id(path)}:{line}: {p}" for p in found)

    for code in pieces:
        if code.block and code.language == "{directive}":
            continue
        shell = not code.block or code.language in SHELL_LANGUAGES
        if shell:
            for line, tokens in shell_commands(code):
                add(line, check_command(tokens))
        for m in RECIPE_STRING.finditer(code.text):
            add(code.line + code.text.count("\n", 0, m.start()), check_recipe(m.group(0)))
        if not code.block:
            text = " ".join(code.text.split())
            if RECIPE_LIKE.match(text) and text not in recipe_params() and text not in our_commands():
                add(code.line, [f"no recipe `{text}`"])
            first = text.split(" ", 1)[0]
            if FLAG.match(first) and _flag(first) not in every_flag():
                add(code.line, [f"no command has the flag `{_flag(first)}`"])
            m = PARAM_ASSIGNMENT.match(text)
            if m and m.group(1) not in all_recipe_params() | code_keywords():
                add(code.line, [f"no recipe or function of the package has the parameter `{m.group(1)}`"])
        for m in PATH.finditer(code.text):
            target, rest = m.group(1).rstrip(".,:;"), m.group(2)
            elided = any(ch in target + rest[:1] for ch in "*?<>{[…") or target.endswith(("_", "-"))
            built = target in BUILD_OUTPUTS or target.startswith(tuple(f"{b}/" for b in BUILD_OUTPUTS))
            if not elided and not built and not (REPO / target).exists():
                add(code.line + code.text.count("\n", 0, m.start()), [f"no file `{target}`"])
    return list(dict.fromkeys(problems))


@pytest.mark.parametrize("path", PAGES, ids=page_id)
def test_every_command_flag_recipe_and_parameter_a_page_names_exists(path):
    problems = problems_of(path)
    assert not problems, f"{len(problems)} names on the page that the code does not have:\n" + "\n".join(problems)


POINTER = re.compile(r"§|\bissues? #?\d+\b", re.IGNORECASE)


def pointers(text):
    """``[(line, match)]`` of section-sign pointers and issue numbers in ``text``."""
    return [(text.count("\n", 0, m.start()) + 1, m.group(0)) for m in POINTER.finditer(text)]


@pytest.mark.parametrize("path", PAGES, ids=page_id)
def test_no_section_pointers_or_issue_numbers(path):
    found = pointers(written_text(path))
    assert not found, f"{page_id(path)}: {len(found)} pointers: " + ", ".join(f"line {n}: {m!r}" for n, m in found)


NOTES_POINTER = re.compile(r"docs/methods\.md(?: §[\d.]+)?|\bissues? #?\d+\b", re.IGNORECASE)


@pytest.mark.parametrize("name", sorted(so_reference.GENERATORS))
def test_no_pointers_into_the_former_notes_in_the_generated_reference(name):
    """The help texts and ``Param`` records the reference is made of point nowhere a reader cannot follow: not into
    docs/methods.md (which the design notes replace), not to an issue number. (A paper's section, "paper §4.2",
    is a citation and stays.)"""
    found = sorted({m.group(0) for m in NOTES_POINTER.finditer(so_reference.GENERATORS[name]())})
    assert not found, f"reference/{name}: the code's help texts point to {len(found)} places: " + ", ".join(found)


# ---------------------------------------------------------------- the generated reference


def _code_spans(markdown):
    """The inline code spans of ``markdown`` (the table cells), not its fenced blocks (the usage lines)."""
    return {m.group(2).strip() for m in INLINE.finditer(FENCE.sub("", markdown))}


def _sections(markdown, level):
    """``{heading: body}`` of the ``level`` headings of ``markdown``."""
    marks = "#" * level + " "
    out, current = {}, None
    for line in markdown.splitlines():
        if line.startswith(marks):
            current = line[len(marks) :].strip().strip("`")
            out[current] = []
        elif current is not None:
            out[current].append(line)
    return {k: "\n".join(v) for k, v in out.items()}


def test_the_cli_reference_lists_every_command_and_every_flag():
    markdown = so_reference.cli_markdown()
    sections = _sections(markdown, 2)
    missing = []
    for name, parser in our_commands().items():
        body = sections.get(f"textattack-so {name}")
        if body is None:
            missing.append(f"textattack-so {name}")
            continue
        spans = " ".join(_code_spans(body))
        for action in parser._actions:
            for flag in action.option_strings:
                if not re.search(rf"(?<![\w-]){re.escape(flag)}(?![\w-])", spans):
                    missing.append(f"textattack-so {name} {flag}")
    spans = " ".join(_code_spans(sections.get("textattack-so attack", "")))
    missing += [f"textattack-so attack {f}" for f in so_reference.ATTACK_EXTRA_FLAGS if f not in spans]
    assert not missing, "not in the generated reference/cli: " + ", ".join(missing)


def test_the_recipe_reference_lists_every_recipe_and_every_parameter():
    from textattack_secondorder.attack_recipes.build import attack_recipes

    sections = _sections(so_reference.recipes_markdown(), 3)
    missing = []
    recipes = {name: set(cls.PARAMS) for name, cls in attack_recipes().items()}
    recipes.update({name: set(p) for name, (_, p) in so_reference.augmentation_recipe_params().items()})
    for name, params in recipes.items():
        if name not in sections:
            missing.append(name)
            continue
        rows = [line for line in sections[name].splitlines() if line.startswith("| `")]
        listed = {line.split("`")[1] for line in rows}
        missing += [f"{name}^{p}" for p in sorted(params - listed)]
    assert not missing, "not in the generated reference/recipes: " + ", ".join(missing)


def test_the_recipe_reference_gives_each_parameter_its_default_and_help():
    from textattack_secondorder.attack_recipes.build import attack_recipes

    sections = _sections(so_reference.recipes_markdown(), 3)
    for name, cls in attack_recipes().items():
        for param, spec in cls.PARAMS.items():
            row = next(line for line in sections[name].splitlines() if line.startswith(f"| `{param}` |"))
            assert so_reference.code(repr(spec.default)) in row, (name, param)
            assert so_reference.escape(spec.help) in row, (name, param)


def test_the_committed_reference_pages_are_what_the_code_generates():
    """docs/reference/cli.md and recipes.md are committed (readable on GitHub without a build): regenerated here
    from the parsers and ``Param`` records, they must come out as committed."""
    stale = {}
    for name in so_reference.GENERATORS:
        path = so_reference.page_path(name)
        committed = path.read_text(encoding="utf-8")
        diff = difflib.unified_diff(
            committed.splitlines(), so_reference.page_text(name, committed).splitlines(), "committed", "code", n=0,
            lineterm="",
        )  # fmt: skip
        lines = list(diff)
        if lines:
            stale[page_id(path)] = lines[2:8]
    assert not stale, (
        f"the reference differs from the code; regenerate it with `{so_reference.REGENERATE}`:\n"
        + "\n".join(f"{page}:\n  " + "\n  ".join(lines) for page, lines in stale.items())
    )


def test_a_regenerated_page_keeps_its_head_and_replaces_its_generated_part():
    committed = so_reference.page_path("cli").read_text(encoding="utf-8")
    head, marker, generated = committed.partition(so_reference.marker("cli") + "\n")
    edited = (
        head.replace("# Command line", "# The command line")
        + marker
        + generated.replace("`--seed SEED` | `0`", "`--seed SEED` | `7`")
    )
    assert edited != committed
    regenerated = so_reference.page_text("cli", edited)
    assert regenerated.startswith("# The command line") and regenerated.partition(marker)[2] == generated
    with pytest.raises(ValueError, match="no line '<!-- generated: cli -->'"):
        so_reference.page_text("cli", head)


def test_the_docs_build_checks_the_committed_reference():
    conf = (DOCS / "conf.py").read_text(encoding="utf-8")
    assert '"so_docs"' in conf
    so_docs = (DOCS / "_ext" / "so_docs.py").read_text(encoding="utf-8")
    assert "so_reference.stale_pages()" in so_docs and "so_reference.REGENERATE" in so_docs
    for name in so_reference.GENERATORS:  # a reader of the page (on GitHub too) learns how it is made
        head = so_reference.page_path(name).read_text(encoding="utf-8").partition(so_reference.marker(name))[0]
        assert f"`{so_reference.REGENERATE}`" in head, name


# ---------------------------------------------------------------- one text for the README and the docs

README = REPO / "README.md"
INCLUDE = re.compile(r"^```\{include\}[ \t]+(?P<path>\S+)[ \t]*\n(?P<options>(?:[ \t]*:[\w-]+:.*\n)*)```", re.MULTILINE)


def readme_includes():
    """``[(page, {option: value})]`` of every ``{include}`` of the README on a docs page."""
    out = []
    for path in PAGES:
        if path == README:
            continue
        for m in INCLUDE.finditer(path.read_text(encoding="utf-8")):
            if (path.parent / m.group("path")).resolve() == README.resolve():
                options = dict(re.findall(r":([\w-]+):[ \t]*(.*)", m.group("options")))
                out.append((path, {k: v.strip() for k, v in options.items()}))
    return out


def test_the_own_model_guide_is_the_readmes_section_included():
    """The README and docs/guide/own-model.md say the same thing once: the README holds the walk-through (it must read
    on GitHub) and the guide page includes it, its links into docs/ made relative to the page."""
    includes = {page_id(page): options for page, options in readme_includes()}
    assert includes.get("docs/guide/own-model.md") == {
        "start-after": "<!-- own-model -->",
        "end-before": "<!-- /own-model -->",
        "relative-docs": "docs/",
    }
    own_model = (DOCS / "guide" / "own-model.md").read_text(encoding="utf-8")
    assert not FENCE.sub("", INCLUDE.sub("", own_model)).count("```"), "own-model.md holds code of its own"
    assert len(INCLUDE.sub("", own_model).strip().splitlines()) < 10, "own-model.md holds more than an introduction"


def test_every_include_of_the_readme_names_a_section_it_has():
    readme = README.read_text(encoding="utf-8")
    for page, options in readme_includes():
        start, end = options.get("start-after"), options.get("end-before")
        assert start and end, f"{page_id(page)} includes the whole README"
        assert readme.count(start) == 1 and readme.count(end) == 1, (page_id(page), start, end)
        section = readme[readme.index(start) + len(start) : readme.index(end)]
        assert section.strip(), (page_id(page), start, end)
        if re.search(r"\]\(docs/", section):  # links written for the README: the include must rewrite them
            assert options.get("relative-docs") == "docs/", f"{page_id(page)}: the included links need :relative-docs:"


def _prose_words(text):
    """The words of a page's prose, in order (not code blocks, tables, headings or comments)."""
    paragraphs = re.split(r"\n\s*\n", FENCE.sub("\n\n", text))
    keep = [line for p in paragraphs for line in p.splitlines() if not line.lstrip().startswith(("|", "#", "<!--"))]
    return " ".join(keep).split()


COPIED_WORDS = 12  # a clause: shorter shared runs are the manual's common phrases ("says so in one line")


def copied_runs(text, reference, n=COPIED_WORDS):
    """The runs of ``n`` or more words in a row of ``text``'s prose that ``reference``'s prose has too."""
    ref = _prose_words(reference)
    grams = {tuple(ref[i : i + n]) for i in range(len(ref) - n + 1)}
    words, runs, i = _prose_words(text), [], 0
    while i <= len(words) - n:
        if tuple(words[i : i + n]) not in grams:
            i += 1
            continue
        j = i
        while j <= len(words) - n and tuple(words[j : j + n]) in grams:
            j += 1
        runs.append(" ".join(words[i : j + n - 1]))
        i = j + n - 1
    return runs


@pytest.mark.parametrize("path", [p for p in PAGES if p != README], ids=page_id)
def test_a_page_shares_text_with_the_readme_only_by_including_it(path):
    """What the README says is not written again on a docs page (two copies drift: one of them is edited later, as
    the own-model guide and the README did); the page includes the README's marked section instead."""
    runs = copied_runs(written_text(path), README.read_text(encoding="utf-8"))
    assert not runs, (
        f"{page_id(path)} repeats {len(runs)} passages of the README (include them instead):\n"
        + "\n".join(f"  {run[:110]}" for run in runs)
    )


def test_the_copy_check_finds_an_edited_copy_and_not_common_phrases():
    readme = (
        "Your data is a CSV with a `text` and a `label` column, each label a class number or one of the model's "
        "own label names. On a transformer `certify` says so in one line.\n"
    )
    edited = (
        "Your data: a CSV with a `text` and a `label` column, each label a class number or one of the model's names."
    )
    assert copied_runs(edited, readme) == [
        "a CSV with a `text` and a `label` column, each label a class number or one of the model's"
    ]
    assert copied_runs("Otherwise `certify` says so in one line and stops.", readme) == []
    assert copied_runs("```\n" + readme + "```\n", readme) == []  # code is not prose


# ---------------------------------------------------------------- the figures


def _figures():
    spec = importlib.util.spec_from_file_location("so_figures", REPO / "benchmarks" / "figures.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_figure_source_is_committed():
    assert _figures().missing_sources() == []


def test_the_pages_show_only_figures_that_figures_py_draws():
    figures = set(_figures().FIGURES)
    shown = {}
    for path in PAGES:
        for m in re.finditer(r"figures/([\w.-]+\.png)", path.read_text(encoding="utf-8")):
            shown.setdefault(m.group(1), page_id(path))
    unknown = {name: page for name, page in shown.items() if name not in figures}
    assert not unknown, f"pages show figures benchmarks/figures.py does not draw: {unknown}"


def test_a_missing_source_stops_the_figures_before_anything_is_drawn(tmp_path):
    figures = _figures()
    with pytest.raises(figures.MissingSources, match="table2.png: .*table2_bow"):
        figures.make_figures(tmp_path / "out", results=tmp_path)
    assert not (tmp_path / "out").exists()


WRONG_PAGE = """# A page

```bash
OMP_NUM_THREADS=1 textattack-so bias --model mr-cnn --pairs he/she --max-kk 1   # a typo
textattack-so flip-capabilty --model mr-cnn
textattack attack --recipe "so-beam^beam_widht=5,patch_rule='paper'" --model mr-cnn --asr1
textattack-so attack --recipe so-beam --model mr-cnn --num-examples 5 --asr1 \\
    --asr1-label-rule lean
python benchmarks/table2.py --victims mr-cnn --no-such-flag
```

Inline: `textattack-so defend --compare vanilla,sp-defense --model mr-cnn --out d`, `--no-such-option`,
`so-bean`, `sp-attack^kapa=3`, `label_rulez='lean'`, `benchmarks/results/no_such_file.json`, `beam_width=5`.
"""


def test_the_checker_reports_each_wrong_name_and_none_of_the_right_ones(tmp_path):
    page = tmp_path / "page.md"
    page.write_text(WRONG_PAGE, encoding="utf-8")
    found = "\n".join(problems_of_text(page))
    for wrong in (
        "`textattack-so bias` has no flag `--max-kk`",
        "no command `textattack-so flip-capabilty`",
        "recipe `so-beam` has no parameter `beam_widht`",
        "`textattack attack` has no flag `--asr1`",
        "`benchmarks/table2.py` has no flag `--no-such-flag`",
        "no command has the flag `--no-such-option`",
        "no recipe `so-bean`",
        "recipe `sp-attack` has no parameter `kapa`",
        "the parameter `label_rulez`",
        "no file `benchmarks/results/no_such_file.json`",
    ):
        assert wrong in found
    assert len(found.splitlines()) == 10, found  # nothing else: the right names pass


def problems_of_text(path):
    """:func:`problems_of` for a page outside the repository (named by its file name)."""
    global page_id
    saved = page_id
    page_id = lambda p: p.name  # noqa: E731
    try:
        return problems_of(path)
    finally:
        page_id = saved


DOCS_COMMAND = 'pip install -e ".[docs]" && sphinx-build -W --keep-going -b html docs docs/_build/html'


def test_the_readme_gives_the_one_docs_command_and_ci_runs_that_build():
    assert DOCS_COMMAND in (REPO / "README.md").read_text(encoding="utf-8")
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    assert 'pip install -q -e ".[docs]"' in ci and "sphinx-build -q -W --keep-going -b html docs docs/_build/html" in ci
