"""Part-of-speech tags of TextAttack's words, from a spaCy pipeline (the ``pos_tagger`` slot).

The in-context patch rule (docs/design/patch-rules.md) reads the Penn Treebank tag a patch word has in
its sentence. spaCy tokenises differently from TextAttack (``there's`` is two spaCy tokens, one
TextAttack word), so each TextAttack word takes the tag of the spaCy token that overlaps its first
character. Only the tagger runs (its speed and loading time: docs/design/offline-resources.md); tags of a text are
cached, since the goal function asks for the same sentence again when it checks a vulnerable example.
"""

import threading
from collections import OrderedDict

import spacy

from ..shared.text import word_offsets


class PosTagger:
    """Penn tags of each word of a text (``tags(attacked_text) -> tuple``), from spaCy pipeline ``name``."""

    _SHARED = {}
    _LOCK = threading.Lock()

    def __init__(self, name, cache_size=4096):
        keep = {"tok2vec", "tagger", "attribute_ruler"}
        try:
            module = __import__(name)
            nlp = module.load()
        except ImportError:
            nlp = spacy.load(name)
        self.nlp = nlp
        self.disabled = [p for p in nlp.pipe_names if p not in keep]
        for p in self.disabled:
            nlp.disable_pipe(p)
        if "tagger" not in nlp.pipe_names:
            raise ValueError(f"spaCy pipeline {name!r} has no tagger")
        self.name = name
        self._cache = OrderedDict()
        self._cache_size = int(cache_size)

    @classmethod
    def shared(cls, name):
        """One tagger per pipeline name and process (loading it takes seconds: docs/design/offline-resources.md)."""
        with cls._LOCK:
            if name not in cls._SHARED:
                cls._SHARED[name] = cls(name)
            return cls._SHARED[name]

    def tags(self, attacked_text):
        """Penn tag of each word of ``attacked_text`` (``None`` where no spaCy token overlaps it)."""
        return self.tag_many([attacked_text])[0]

    def tag_many(self, attacked_texts):
        """:meth:`tags` of many texts; the untagged ones go through spaCy in one ``pipe`` call. The answer is
        taken before the cache drops its oldest entries, so a long call never loses a text it was asked about."""
        found = {t.text: self._cache[t.text] for t in attacked_texts if t.text in self._cache}
        todo = {t.text: t for t in attacked_texts if t.text not in found}  # text -> its AttackedText
        for (text, at), doc in zip(todo.items(), self.nlp.pipe(list(todo))):
            spans = [(tok.idx, tok.idx + len(tok.text), tok.tag_) for tok in doc]
            found[text] = tuple(next((g for s, e, g in spans if s <= a < e), None) for a, _ in word_offsets(at))
            self._cache[text] = found[text]
        while len(self._cache) > self._cache_size:
            self._cache.popitem(last=False)
        return [found[t.text] for t in attacked_texts]

    def __repr__(self):
        return f"PosTagger({self.name!r})"
