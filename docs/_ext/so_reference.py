"""The generated reference pages: every ``textattack-so`` command and flag, every recipe parameter.

Pure Python (no Sphinx). ``docs/reference/cli.md`` and ``recipes.md`` are committed, so that they read on GitHub
without a build: a hand-written head, the line ``<!-- generated: NAME -->``, then this module's text. After a parser
or a ``Param`` changes, regenerate them with ``python docs/_ext/so_reference.py`` (:data:`REGENERATE`);
``tests/test_docs.py`` regenerates them and fails while a committed page differs, and the Sphinx build
(``so_docs``) warns, which fails the strict build. Everything is read from the code: the argparse parsers of
:func:`textattack_secondorder.cli.build_parser`, the ``PARAMS`` of each recipe class, the signature and docstring of
the augmentation recipes.
"""

import argparse
import inspect
import os
import re
from pathlib import Path

# what `textattack-so attack` reads from the rest of its command line itself (cli/textattack_passthrough.py)
ATTACK_EXTRA_FLAGS = ("--asr1", "--asr1-label-rule", "--asr1-label-data")
USAGE_WIDTH = 100
_MARKDOWN_SPECIAL = re.compile(r"([\\`*_\[\]<>|$#~{}])")


def escape(text):
    """``text`` as literal Markdown (MyST): every character that could start markup backslash-escaped, except
    the backticks of balanced code spans (help texts put code between backticks)."""
    text = " ".join(str(text).split())
    if text.count("`") % 2:
        return _MARKDOWN_SPECIAL.sub(r"\\\1", text)
    parts = re.split(r"(`[^`]*`)", text)
    return "".join(part if part.startswith("`") else _MARKDOWN_SPECIAL.sub(r"\\\1", part) for part in parts)


def code(text):
    """``text`` as an inline code span (one more backtick than any run inside it)."""
    text = str(text)
    ticks = "`" * (max((len(m) for m in re.findall(r"`+", text)), default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"


def _fence(text, lang="text"):
    ticks = "`" * max(3, max((len(m) + 1 for m in re.findall(r"`{3,}", text)), default=3))
    return [f"{ticks}{lang}", text.rstrip("\n"), ticks]


# ---------------------------------------------------------------- the command line


def subcommands(parser):
    """``[(name, help, subparser)]`` of ``parser``'s sub-commands, in the order of ``--help``."""
    out = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {a.dest: a.help for a in action._choices_actions}
            out += [(name, helps.get(name), sub) for name, sub in action.choices.items()]
    return out


def options(parser):
    """``{flag: action}`` of every option string of ``parser`` (``-h`` included)."""
    return {flag: action for action in parser._actions for flag in action.option_strings}


def _usage(parser):
    formatter = argparse.HelpFormatter(parser.prog, width=USAGE_WIDTH)
    formatter.add_usage(parser.usage, parser._actions, parser._mutually_exclusive_groups, prefix="usage: ")
    return formatter.format_help().strip()


def _expanded_help(parser, action):
    if not action.help or action.help == argparse.SUPPRESS:
        return ""
    formatter = argparse.HelpFormatter(parser.prog, width=USAGE_WIDTH)
    try:
        return formatter._expand_help(action)
    except (KeyError, TypeError, ValueError):
        return action.help


def _default(action):
    if action.default in (None, argparse.SUPPRESS) or action.required:
        return ""
    if isinstance(action, (argparse._StoreTrueAction, argparse._StoreFalseAction, argparse._HelpAction)):
        return ""
    if isinstance(action, argparse._StoreConstAction):
        return ""
    return code(repr(action.default) if not isinstance(action.default, str) else action.default)


def _invocation(action):
    if not action.option_strings:
        return code(action.metavar or action.dest)
    if action.nargs == 0:
        return ", ".join(code(flag) for flag in action.option_strings)
    metavar = action.metavar or (
        action.dest.upper() if action.choices is None else "{" + ",".join(action.choices) + "}"
    )
    if isinstance(metavar, tuple):
        metavar = " ".join(metavar)
    if action.nargs == "?":
        metavar = f"[{metavar}]"
    elif action.nargs in ("*", "+"):
        metavar = f"{metavar} ..."
    return ", ".join(code(f"{flag} {metavar}") for flag in action.option_strings)


def _action_rows(parser, actions):
    rows = []
    for action in actions:
        if action.help == argparse.SUPPRESS:
            continue
        text = escape(_expanded_help(parser, action))
        if action.choices is not None and not isinstance(action, argparse._SubParsersAction):
            text += (". " if text and not text.endswith(".") else " " if text else "") + "Choices: "
            text += ", ".join(code(c) for c in action.choices) + "."
        if action.required:
            text = "**Required.** " + text
        rows.append(f"| {_invocation(action)} | {_default(action)} | {text} |")
    return rows


def _parser_markdown(parser, name, summary, level, extra=None):
    out = [f"{'#' * level} {code(name)}", ""]
    if summary:
        out += [escape(summary[0].upper() + summary[1:]) + ("" if summary.endswith(".") else "."), ""]
    passthrough = name.split()[-1] in _passthrough_names()
    out += _fence(f"usage: {name} [ARGUMENTS OF textattack {name.split()[-1]} ...]" if passthrough else _usage(parser))
    out.append("")
    if parser.description:
        out += [escape(parser.description), ""]
    for group in parser._action_groups:
        actions = [a for a in group._group_actions if not isinstance(a, argparse._SubParsersAction)]
        if not actions:
            continue
        out += [f"**{escape(group.title)}**", ""]
        if group.description:
            out += [escape(group.description), ""]
        out += ["| argument | default | meaning |", "|---|---|---|", *_action_rows(parser, actions), ""]
    if extra:
        out += extra
    for sub_name, sub_help, sub in subcommands(parser):
        out += _parser_markdown(sub, f"{name} {sub_name}", sub_help, level + 1, _extra_for(f"{name} {sub_name}"))
    return out


def _extra_for(command):
    """What a pass-through command (``attack``, ``augment`` ...: the stock TextAttack command) says beyond its
    parser, which declares no arguments."""
    name = command.split()[-1]
    if name not in _passthrough_names():
        return None
    out = [
        f"Every argument goes to {code('textattack ' + name)} (TextAttack's own command line and documentation), "
        "with this package's recipes registered.",
        "",
    ]
    if name == "attack":
        flags = ", ".join(code(flag) for flag in ATTACK_EXTRA_FLAGS)
        out += [
            f"It also reads {flags} (the ASR1 row of Xu et al. in the summary) and takes this package's recipes "
            "with parameters: see [the recipe reference](recipes.md), which gives the text "
            f"{code('textattack-so attack --help')} ends with.",
            "",
        ]
    return out


def _passthrough_names():
    from textattack_secondorder.cli.textattack_passthrough import TEXTATTACK_COMMANDS

    return TEXTATTACK_COMMANDS


def cli_markdown(parser=None):
    """The Markdown of the command-line reference: every command, its usage and every argument."""
    if parser is None:
        from textattack_secondorder.cli import build_parser

        parser = build_parser()
    out = [escape(parser.description or ""), "", "| command | what it does |", "|---|---|"]
    for name, help_text, _ in subcommands(parser):
        anchor = f"textattack-so-{name}"
        out.append(f"| [{code(name)}](#{anchor}) | {escape(help_text or '')} |")
    out.append("")
    for name, help_text, sub in subcommands(parser):
        out += _parser_markdown(sub, f"{parser.prog} {name}", help_text, 2, _extra_for(f"{parser.prog} {name}"))
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------- the recipes


def attack_recipe_params():
    """``{recipe: (class, {param: Param})}`` of this package's attack recipes (imports TextAttack)."""
    from textattack_secondorder.attack_recipes.build import attack_recipes

    return {name: (cls, dict(cls.PARAMS)) for name, cls in attack_recipes().items()}


def _docstring_args(cls):
    """``{name: help}`` from the ``Args:`` section of ``cls``'s docstring (Google style)."""
    doc = inspect.getdoc(cls) or ""
    helps, current, inside = {}, None, False
    for line in doc.splitlines():
        if line.strip() == "Args:":
            inside = True
            continue
        if inside:
            if line and not line.startswith(" "):
                break
            m = re.match(r"^ {4}(\w+)(?: \([^)]*\))?: ?(.*)$", line)
            if m:
                current = m.group(1)
                helps[current] = m.group(2)
            elif current and line.strip():
                helps[current] += " " + line.strip()
    return helps


def augmentation_recipe_params():
    """``{recipe: (class, {param: (default, help)})}`` of the augmentation recipes (``sp-defense``): the
    keyword arguments of the class, with the help of its docstring's ``Args:``."""
    from textattack_secondorder.plugin.registry import augmentation_recipes

    out = {}
    for name, cls in augmentation_recipes().items():
        helps = _docstring_args(cls)
        params = {}
        for p in inspect.signature(cls.__init__).parameters.values():
            if p.name == "self" or p.kind in (p.VAR_KEYWORD, p.VAR_POSITIONAL):
                continue
            params[p.name] = (p.default, helps.get(p.name, ""))
        out[name] = (cls, params)
    return out


def _summary(cls):
    doc = (cls.__doc__ or "").strip().splitlines()
    return doc[0].strip() if doc else cls.__name__


def _class_link(cls):
    """The class's dotted name as code, linked to its entry of the API reference (a target the Sphinx build
    resolves; on GitHub the name reads as it is)."""
    module = cls.__module__.rsplit(".", 1)[0] if cls.__module__.count(".") > 1 else cls.__module__
    return f"[{code(f'{module}.{cls.__name__}')}](#{module}.{cls.__name__})"


def recipes_markdown():
    """The Markdown of the recipe reference: every recipe with every parameter, its default, what it allows, and
    its help."""
    from textattack_secondorder.cli.recipes_cmd import HOW

    attacks, augmenters = attack_recipe_params(), augmentation_recipe_params()
    out = ["Attack recipes (`textattack attack --recipe NAME`, `textattack-so attack`):", ""]
    out += ["| recipe | what it is |", "|---|---|"]
    out += [f"| [{code(name)}](#{name}) | {escape(_summary(cls))} |" for name, (cls, _) in attacks.items()]
    out += ["", "Augmentation recipes (`textattack augment --recipe NAME`):", ""]
    out += ["| recipe | what it is |", "|---|---|"]
    out += [f"| [{code(name)}](#{name}) | {escape(_summary(cls))} |" for name, (cls, _) in augmenters.items()]
    out += ["", "How parameters are passed (the head of `textattack-so recipes`):", "", *_fence(HOW), ""]
    out += ["## Attack recipes", ""]
    for name, (cls, params) in attacks.items():
        out += [f"### {name}", "", escape(_summary(cls)), "", f"Python: {_class_link(cls)}.", ""]
        if not params:
            out += ["No parameters.", ""]
            continue
        param, spec = next(((p, s) for p, s in params.items() if s.default is not None), next(iter(params.items())))
        passing = '--recipe "%s^%s=%r"' % (name, param, spec.default)
        out += [f"Parameters go after the name: {code(passing)}.", ""]
        out += ["| parameter | default | allowed | meaning |", "|---|---|---|---|"]
        for param, spec in params.items():
            out.append(
                f"| {code(param)} | {code(repr(spec.default))} | {escape(spec.allowed())} | {escape(spec.help)} |"
            )
        out.append("")
    out += ["## Augmentation recipes", ""]
    for name, (cls, params) in augmenters.items():
        out += [f"### {name}", "", escape(_summary(cls)), "", f"Python: {_class_link(cls)}.", ""]
        passing = '--recipe "%s^mode=%r"' % (name, "random")
        out += [f"Parameters go after the name: {code(passing)}.", ""]
        out += ["| parameter | default | meaning |", "|---|---|---|"]
        for param, (default, text) in params.items():
            out.append(f"| {code(param)} | {code(repr(default))} | {escape(text)} |")
        out.append("")
    return "\n".join(out) + "\n"


GENERATORS = {"cli": cli_markdown, "recipes": recipes_markdown}

# ---------------------------------------------------------------- the committed pages

REFERENCE = Path(__file__).resolve().parents[1] / "reference"
REGENERATE = "python docs/_ext/so_reference.py"


def marker(name):
    """The line after which a committed page is generated text."""
    return f"<!-- generated: {name} -->"


def page_path(name):
    return REFERENCE / f"{name}.md"


def page_text(name, current=None):
    """The page ``name`` as it should be committed: its hand-written head (everything up to and including its
    marker line, from ``current`` or the committed page), then the generated text."""
    if current is None:
        current = page_path(name).read_text(encoding="utf-8")
    head, found, _ = current.partition(marker(name) + "\n")
    if not found:
        raise ValueError(f"{page_path(name)}: no line {marker(name)!r} to put the generated reference after")
    return head + found + "\n" + GENERATORS[name]()


def stale_pages():
    """``[name, ...]`` of the committed pages that differ from what the code generates now."""
    return [name for name in GENERATORS if page_path(name).read_text(encoding="utf-8") != page_text(name)]


def write_pages():
    """Regenerate every committed page whose text changed (written whole, never half); returns the paths written."""
    from textattack_secondorder.shared.files import atomic_write_text

    written = []
    for name in GENERATORS:
        path = page_path(name)
        text = page_text(name)
        if path.read_text(encoding="utf-8") != text:
            atomic_write_text(path, text)
            written.append(path)
    return written


if __name__ == "__main__":
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    paths = write_pages()
    root = REFERENCE.parents[1]
    for path in paths:
        print(f"wrote {path.relative_to(root)}")
    if not paths:
        print("docs/reference is up to date")
