"""Protected pairs and gendered words for the counterfactual token bias (docs/design/bias.md).

The pair groups (gender, nationality, religion, sexual_orientation) and the gendered-word
blacklist ship as JSON files in the package's ``data/`` folder. :func:`parse_pairs` turns a
command-line or Python spec into ``(p1, p2, group)`` triples. A gender pair's swap takes the sentence's other
gendered pronouns along (:func:`counterpart`: "She ... his account" ↔ "He ... her account"), or
:func:`neutralize` rewrites them to they/them.

``her`` is ambiguous on the way back: a possessive determiner (Penn tag ``PRP$``, "her account") becomes ``his``,
an object (``PRP``, "told her") ``him``; the ``pos_tagger`` slot (spaCy) decides, in context. ``his`` becomes
``her``, or ``hers`` where it stands alone before punctuation or at the end ("the keys are his.").
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
    "her": "their",  # a determiner ("their account"); an object "her" is "them" (neutralize reads its tag)
    "hers": "theirs",
    "himself": "themself",
    "herself": "themself",
}
# the gendered pronouns whose other-gender form is one word whatever their role
SWAP = {"he": "she", "she": "he", "him": "her", "himself": "herself", "herself": "himself", "hers": "his"}
AMBIGUOUS = ("her", "his")  # their other-gender form depends on their role in the sentence
POSSESSIVE = "PRP$"  # Penn tag of a possessive determiner ("her account"); an object pronoun is PRP
# a pair holding an ambiguous word: the role that word must have for a sentence to be the pair's source
PAIR_ROLE = {("his", "her"): POSSESSIVE, ("him", "her"): "PRP"}


def counterpart(word, tag=None, standalone=False):
    """The other gender's form of a gendered pronoun, in ``word``'s case (None for any other word): he ↔ she,
    him → her, himself ↔ herself, hers → his; ``her`` → ``his`` as a possessive determiner (``tag`` ``PRP$``),
    else ``him``; ``his`` → ``hers`` when ``standalone`` (nothing follows it in its clause), else ``her``."""
    w = word.lower()
    if w in SWAP:
        other = SWAP[w]
    elif w == "her":
        other = "his" if tag == POSSESSIVE else "him"
    elif w == "his":
        other = "hers" if standalone else "her"
    else:
        return None
    return match_case(other, word)


def needs_tags(words):
    """Whether a sentence holds a pronoun whose counterpart or neutral form depends on its role (her, his)."""
    return any(w.lower() in AMBIGUOUS for w in words)


def role_fits(pair, word, tag):
    """Whether ``word`` (a word of ``pair`` found in a sentence, with its Penn ``tag``) has the role the pair swaps:
    "her" is a source of his/her as a determiner only, of him/her as an object only."""
    role = PAIR_ROLE.get(tuple(pair))
    return role is None or word.lower() != "her" or tag is None or tag == role


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


def neutralize(words, keep_index, tags=None):
    """Rewrite gendered pronouns other than the pair's own to they/their/them/themself (an object "her", Penn tag
    ``PRP`` in ``tags``, to "them")."""
    out = list(words)
    for i, w in enumerate(words):
        if i != keep_index and w.lower() in NEUTRAL:
            neutral = "them" if w.lower() == "her" and tags is not None and tags[i] == "PRP" else NEUTRAL[w.lower()]
            out[i] = match_case(neutral, w)
    return out


def text_gaps(text):
    """What lies between the words of ``text`` (an ``AttackedText``): ``len(words) + 1`` strings, so that
    :func:`render` puts the sentence's punctuation and spacing back around other words."""
    from ...shared.text import word_offsets

    gaps, at = [], 0
    for start, end in word_offsets(text):
        gaps.append(text.text[at:start])
        at = end
    return gaps + [text.text[at:]]


def render(gaps, words):
    """The sentence of ``words`` with the punctuation and spacing of :func:`text_gaps`."""
    return "".join(g + w for g, w in zip(gaps, words)) + gaps[len(words)]


def standalone(gaps, i):
    """Whether word ``i`` ends its clause: the last word, or followed by punctuation."""
    return i + 1 >= len(gaps) - 1 or any(c in ",.;:!?)" for c in gaps[i + 1])
