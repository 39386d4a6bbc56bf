"""A sentiment lexicon: VADER's word valences (Hutto & Gilbert 2014), for the label rule of sentiment tasks.

``vaderSentiment`` (MIT) ships its lexicon as a text file of ``word<TAB>valence<TAB>...`` lines, valences from -4
(most negative) to +4, 7,500 entries rated by people out of context. Nothing here imports torch or TextAttack.
What it is used for, and what it was measured to tell: docs/design/single-word.md.
"""

import functools
import os

from .errors import ResourceError

LEXICON_NAME = "VADER 3.3.2"


@functools.lru_cache(maxsize=1)
def vader_valences():
    """``{word: valence}`` of VADER's lexicon (lower-cased words; loaded once per process)."""
    try:
        import vaderSentiment
    except ImportError:  # a dependency of the package; missing only in a broken environment
        raise ResourceError("the sentiment lexicon needs vaderSentiment: pip install vaderSentiment==3.3.2") from None
    path = os.path.join(os.path.dirname(vaderSentiment.__file__), "vader_lexicon.txt")
    valences = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            parts = line.rstrip("\n").split("\t")
            if len(parts) >= 2:
                try:
                    valences[parts[0].lower()] = float(parts[1])
                except ValueError:
                    continue
    if not valences:
        raise ResourceError(f"{path} holds no valences; reinstall vaderSentiment")
    return valences
