"""Character and word levels of the robustness index, built on TextAttack transformations (docs/design/meaning.md).

* character (FlagEval ``C``): 3 to 15 characters of a sentence turned into realistic
  typos. TextAttack's ``WordSwapQWERTY`` (a neighbouring key) and
  ``WordSwapNeighboringCharacterSwap`` (two inner characters of a word swapped,
  Michel et al.'s CharSwap) list the possible typos of each word; this module decides
  how many and which, with its own per-sentence random generator (TextAttack's
  ``random_one`` mode would draw from the global ``random`` / ``numpy.random``).
* word (FlagEval ``W``): about 15 % of a sentence's content words replaced by the
  candidates of :class:`~textattack_secondorder.transformations.word_swap_synonym_list.WordSwapSynonymList`
  (the ``synonyms`` slot) or of
  :class:`~textattack_secondorder.transformations.word_swap_proposer.WordSwapProposer`
  (the masked-LM slot, FlagEval's "W-maskedlm").

Both are seeded per sentence: the same text and seed give the same perturbation,
whatever else is in the set.
"""

import json
import os
import random
import re

from textattack.shared import AttackedText
from textattack.transformations import WordSwapNeighboringCharacterSwap, WordSwapQWERTY
from tqdm.auto import tqdm

from ...resources import load_synonyms
from ...resources.stopwords import TEXTFOOLER_STOPWORDS
from ...resources.synonyms import SynonymList
from ...shared.digest import Digest, content_digest
from ...transformations.word_swap_proposer import WordSwapProposer
from ...transformations.word_swap_synonym_list import WordSwapSynonymList

# FlagEval, character level: "Randomly select 3 to 15 characters for replacement".
CHAR_MIN, CHAR_MAX = 3, 15
# Our choice: never touch more than this share of a sentence's letters (short sentences stay readable).
CHAR_MAX_FRACTION = 0.2
# Our choice: share of a sentence's words replaced at the word level (at least one word).
WORD_RATE = 0.15
# The words the typo transformations act on: maximal runs of ASCII letters.
_WORD = re.compile(r"[A-Za-z]+")


def _rng(seed, *parts):
    """A ``random.Random`` seeded from ``seed`` and ``parts`` (stable across runs and processes)."""
    digest = Digest("\x1f".join(map(str, (seed,) + parts)).encode("utf-8")).hexdigest(16)
    return random.Random(int(digest, 16))


def _progress(texts, desc, min_size):

    return tqdm(texts, desc=desc, leave=False, dynamic_ncols=True, disable=len(texts) < min_size)


class CharPerturbation:
    """Realistic typos: between ``min_chars`` and ``max_chars`` characters touched per sentence (FlagEval: 3–15).

    Each edit is a neighbouring-key replacement (``keyboard``: one character touched,
    TextAttack's ``WordSwapQWERTY``) or a swap of two different inner characters of a
    word of 4+ letters (``swap``: two characters touched, TextAttack's
    ``WordSwapNeighboringCharacterSwap`` with the first and last character kept). The
    number drawn is capped at ``max_fraction`` of the sentence's letters (at least one
    edit); a character is touched at most once. Seeded per sentence.
    """

    level = "char"
    method = "typo"

    def __init__(
        self,
        min_chars=CHAR_MIN,
        max_chars=CHAR_MAX,
        max_fraction=CHAR_MAX_FRACTION,
        operations=("keyboard", "swap"),
        seed=0,
    ):
        if not 1 <= min_chars <= max_chars:
            raise ValueError(f"need 1 <= min_chars <= max_chars, got {min_chars}, {max_chars}")
        unknown = set(operations) - {"keyboard", "swap"}
        if unknown or not operations:
            raise ValueError(f"operations must be among 'keyboard', 'swap'; got {operations}")

        self.min_chars, self.max_chars = int(min_chars), int(max_chars)
        self.max_fraction = float(max_fraction)
        self.operations = tuple(operations)
        self.seed = seed
        # random_one=False: every possible typo of a word, in a fixed order; we draw among them
        self.keyboard = WordSwapQWERTY(random_one=False)
        self.swap = WordSwapNeighboringCharacterSwap(random_one=False, skip_first_char=True, skip_last_char=True)
        self._cache = {}  # word -> its typos

    def settings(self):
        return {
            "chars_per_sentence": f"{self.min_chars}-{self.max_chars}",
            "max_fraction_of_letters": self.max_fraction,
            "operations": "+".join(self.operations),
            "seed": self.seed,
        }

    def _word_typos(self, word):
        """TextAttack's typos of one word: ``([(offset, [new characters])], [swap offsets])`` (cached)."""
        cached = self._cache.get(word)
        if cached is None:
            keys = {}
            for candidate in self.keyboard._get_replacement_words(word):
                k = next(k for k in range(len(word)) if word[k] != candidate[k])
                keys.setdefault(k, []).append(candidate[k])
            swaps = []
            for candidate in self.swap._get_replacement_words(word):
                diff = [k for k in range(len(word)) if word[k] != candidate[k]]
                if diff:  # swapping two equal characters changes nothing
                    swaps.append(diff[0])
            cached = (list(keys.items()), swaps)
            if len(self._cache) < 200_000:
                self._cache[word] = cached
        return cached

    def _typos(self, text):
        """The typos of every word of ``text`` as ``({position: [new characters]}, [swap starts])``.

        A keyboard typo changes the character at ``position``; a swap at ``j`` exchanges
        characters ``j`` and ``j + 1``.
        """
        keys, swaps = {}, []
        for m in _WORD.finditer(text):
            start = m.start()
            word_keys, word_swaps = self._word_typos(m.group())
            keys.update((start + k, chars) for k, chars in word_keys)
            swaps.extend(start + j for j in word_swaps)
        return keys, swaps

    def perturb_one(self, text):
        rng = _rng(self.seed, "char", text)
        letters = sum(len(m.group()) for m in _WORD.finditer(text))
        if not letters:
            return text
        keys, swaps = self._typos(text)  # typos at untouched positions do not depend on earlier edits
        budget = rng.randint(self.min_chars, self.max_chars)
        budget = max(1, min(budget, int(self.max_fraction * letters)))
        chars = list(text)
        touched = set()
        attempts = 0
        while len(touched) < budget and attempts < 20 * budget:
            attempts += 1
            op = rng.choice(self.operations)
            if op == "swap" and budget - len(touched) >= 2:
                free_swaps = [j for j in swaps if j not in touched and j + 1 not in touched]
                if free_swaps:
                    j = rng.choice(free_swaps)
                    chars[j], chars[j + 1] = chars[j + 1], chars[j]
                    touched.update((j, j + 1))
                    continue
            free = [i for i in keys if i not in touched]
            if not free:
                break
            i = rng.choice(free)
            chars[i] = rng.choice(keys[i])
            touched.add(i)
        return "".join(chars)

    def __call__(self, texts):
        return [self.perturb_one(t) for t in _progress(texts, "char typos", 200)]


class WordPerturbation:
    """Replace about ``rate`` of a sentence's content words (at least one) by a synonym or a masked-LM proposal.

    Args:
        synonyms: word -> synonyms mapping (``resources.load_synonyms()``, a dict, a
            ``SynonymList`` or a JSON path); used when ``proposer`` is ``None``, through
            ``WordSwapSynonymList``.
        proposer: a ``WordProposer`` (masked-LM slot), used through ``WordSwapProposer`` —
            FlagEval's "W-maskedlm" set.
        rate: share of the words replaced (our choice: 0.15).
        max_candidates: candidates per word among which one is drawn.
        stopwords: words never replaced (default: TextFooler's list).
        seed: per-sentence seeding as in :class:`CharPerturbation`.
    """

    level = "word"

    def __init__(self, synonyms=None, proposer=None, rate=WORD_RATE, max_candidates=10, stopwords=None, seed=0):
        if synonyms is None and proposer is None:
            raise ValueError("WordPerturbation needs synonyms or a masked-LM proposer")
        self.max_candidates = int(max_candidates)
        if proposer is not None:
            self.method = "maskedlm"
            self.transformation = WordSwapProposer(proposer, max_candidates=self.max_candidates)
        else:
            if not isinstance(synonyms, (dict, SynonymList)):
                synonyms = load_synonym_list(synonyms)
            self.method = "synonym"
            self.transformation = WordSwapSynonymList(synonyms, max_candidates=self.max_candidates)
        self.rate = float(rate)
        if stopwords is None:
            stopwords = TEXTFOOLER_STOPWORDS
        self.stopwords = frozenset(w.lower() for w in stopwords)
        self.seed = seed

    def settings(self):
        return {"source": self.method, "rate": self.rate, "max_candidates": self.max_candidates, "seed": self.seed}

    def resume_key(self):
        """:meth:`settings` plus what the words come from (a digest of the synonym list, or the proposer),
        for the key of a saved set (:func:`~.sets.part_key`)."""
        if self.method == "synonym":
            table = self.transformation.synonyms
            table = getattr(table, "_table", table)
            source = content_digest(sorted((k, list(v)) for k, v in table.items()), 16)
        else:
            source = repr(self.transformation.proposer)
        return dict(self.settings(), words_from=source, stopwords=sorted(self.stopwords))

    def _candidates(self, attacked_text, indices):
        """For each index, the transformation's replacement words (case of the original word kept)."""
        words = attacked_text.words
        if self.method == "synonym":  # single words only
            return [[w for w in self.transformation._get_replacement_words(words[i]) if " " not in w] for i in indices]
        out = {i: [] for i in indices}
        for t in self.transformation._get_transformations(attacked_text, set(indices)):
            modified = t.attack_attrs["newly_modified_indices"]
            if len(modified) == 1 and len(t.words) == len(words):  # one word in place of one word
                i = next(iter(modified))
                out[i].append(t.words[i])
        return [out[i] for i in indices]

    def perturb_one(self, text):

        rng = _rng(self.seed, "word", self.method, text)
        at = AttackedText(text)
        words = at.words
        content = [i for i, w in enumerate(words) if w.isalpha() and w.lower() not in self.stopwords]
        if not content:
            return text
        if self.method == "synonym":  # only words the list knows
            content = [i for i in content if self.transformation.synonyms.get(words[i])]
        want = max(1, int(round(self.rate * len(words))))
        rng.shuffle(content)
        chosen = sorted(content[: 2 * want])  # over-fetch: some positions get no candidate
        if not chosen:
            return text
        cands = dict(zip(chosen, self._candidates(at, chosen)))
        picked = sorted([i for i in content[: 2 * want] if cands.get(i)][:want])
        if not picked:
            return text
        return at.replace_words_at_indices(picked, [rng.choice(cands[i]) for i in picked]).text

    def __call__(self, texts):
        return [self.perturb_one(t) for t in _progress(texts, f"word swaps ({self.method})", 20)]


def load_synonym_list(value=None):
    """The synonyms slot (``resources.load_synonyms``); a ``word -> [synonyms]`` JSON file is read directly
    when the slot's loader is not installed."""
    try:
        return load_synonyms(None if value is None else str(value))
    except ImportError:
        if value is None or not os.path.exists(str(value)):
            raise
    with open(value, encoding="utf-8") as f:
        data = json.load(f)
    return {str(k).lower(): list(v) for k, v in data.items()}
