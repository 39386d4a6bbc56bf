"""Protected pairs and gendered words for the counterfactual token bias (docs/design/bias.md).

The pair groups (gender, nationality, religion, sexual_orientation) and the gendered-word
blacklist ship as JSON files in the package's ``data/`` folder. :func:`parse_pairs` turns a
command-line or Python spec into ``(p1, p2, group)`` triples; :func:`neutralize` rewrites the
other gendered pronouns of a sentence to they/them.
"""

import json
from pathlib import Path

from ...resources.paths import data_path
from ...shared.errors import UsageError
from ...shared.text import match_case

PAIR_GROUPS_FILE = "protected_pairs.json"
GENDERED_FILE = "gendered_words.json"
NEUTRAL = {
    "he": "they",
    "she": "they",
    "him": "them",
    "his": "their",
    "her": "their",
    "hers": "theirs",
    "himself": "themself",
    "herself": "themself",
}


def load_pair_groups():
    groups = json.loads(data_path(PAIR_GROUPS_FILE).read_text())
    return {k: [tuple(p) for p in v] for k, v in groups.items() if not k.startswith("_")}


def gendered_words():
    return frozenset(json.loads(data_path(GENDERED_FILE).read_text())["words"])


def parse_pairs(spec):
    """Pairs from a group name ('gender'), 'he/she,gay/straight', a JSON file, or a list of tuples.

    Returns a list of ``(p1, p2, group)``.
    """
    groups = load_pair_groups()
    if isinstance(spec, (list, tuple)):
        return [(a.lower(), b.lower(), _group_of(a, b, groups)) for a, b in spec]
    out = []
    for part in str(spec).split(","):
        part = part.strip()
        if not part:
            continue
        if part in groups:
            out += [(a, b, part) for a, b in groups[part]]
        elif part.endswith(".json") and Path(part).exists():
            data = json.loads(Path(part).read_text())
            items = data.items() if isinstance(data, dict) else [("custom", data)]
            for g, pairs in items:
                if not str(g).startswith("_"):
                    out += [(a.lower(), b.lower(), g) for a, b in pairs]
        elif "/" in part:
            a, b = part.split("/", 1)
            out.append((a.strip().lower(), b.strip().lower(), _group_of(a, b, groups)))
        else:
            raise UsageError(
                f"Unknown pair spec {part!r}: use a group ({', '.join(groups)}), 'he/she', or a JSON file of pairs"
            )
    if not out:
        raise UsageError("no protected pairs given")
    return out


def _group_of(a, b, groups):
    for g, pairs in groups.items():
        if (a.lower(), b.lower()) in pairs:
            return g
    return "custom"


def neutralize(words, keep_index):
    """Rewrite gendered pronouns other than the pair's own to they/their/them/themself."""
    out = list(words)
    for i, w in enumerate(words):
        if i != keep_index and w.lower() in NEUTRAL:
            out[i] = match_case(NEUTRAL[w.lower()], w)
    return out
