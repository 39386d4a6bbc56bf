"""Every word a neighbour changed still reads, in its sentence, like the word it replaced (docs/design/neighbours.md).

SO-Beam moves towards the victim's decision boundary, so the masked LM's substitutions that survive are often
opinion words that contradict the rest of the sentence ("the acting is fresh and unselfconscious , and munch is a
bit about reality", "a remarkably solid → harsh and subtly satirical tour de force"): each is grammatical in its
slot, and a causal LM finds the sentence about as likely as ``x0``, but readers refuse it. What tells them apart
best among the package's offline signals (blind reads of x̃0) is the sentence encoder's contextual similarity of
each changed word to the word it replaced: for every changed position ``i`` of ``x̃``, the cosine of the encoder's
last hidden state of ``x̃[i]`` in ``x̃`` and of ``x0[i]`` in ``x̃`` with only that word put back (the patch judge's
``st_word_cos`` of the swap back, :func:`~.swap_signals.encoder_signals_many`). A neighbour is kept when the
smallest of them reaches ``min_similarity``.

The encoder is the ``sentence_encoder`` slot's all-MiniLM-L6-v2 (the patch judge's); verdicts are cached per
``(x0, x̃)``, since the beam and the goal function ask about the same candidates.
"""

import numpy as np
from textattack.constraints import Constraint

from ..resources import load_sentence_encoder
from .known_verdicts import KnownVerdicts
from .swap_signals import ENCODER, encoder_signals_many

#: the sentence-encoder model the check reads (the patch judge's, so one load serves both)
WORD_SIMILARITY_ENCODER = "all-MiniLM-L6-v2"


class NeighborWordSimilarity(Constraint):
    """Refuse a neighbour in which some changed word's contextual similarity to the word it replaced is below
    ``min_similarity``.

    Args:
        min_similarity: the least cosine kept, for the least similar changed word.
        sentence_encoder: a sentence-transformers model, a name of the ``sentence_encoder`` slot, or None
            (:data:`WORD_SIMILARITY_ENCODER`); loaded on first use.
        device: device of the encoder when it is loaded here.
    """

    def __init__(self, min_similarity, sentence_encoder=None, device=None, compare_against_original=True):
        super().__init__(compare_against_original)
        self.min_similarity = float(min_similarity)
        self._encoder = sentence_encoder
        self.device = device
        self._similarity = {}  # (reference, text) -> least similarity of a changed word

    @property
    def encoder(self):
        if self._encoder is None or isinstance(self._encoder, str):
            self._encoder = load_sentence_encoder(self._encoder or WORD_SIMILARITY_ENCODER, device=self.device)
        return self._encoder

    def least_similarity(self, transformed_text, reference_text):
        """The smallest contextual similarity of a changed word of ``transformed_text`` to the word of
        ``reference_text`` it replaced (1.0 when no word changed; NaN past the encoder's length limit)."""
        key = reference_text.text, transformed_text.text
        if key not in self._similarity:
            if len(self._similarity) > 50_000:
                self._similarity.clear()
            changed = sorted(transformed_text.all_words_diff(reference_text))
            if not changed:
                self._similarity[key] = 1.0
            else:
                back = [(i, [reference_text.words[i]]) for i in changed]
                rows = encoder_signals_many(self.encoder, transformed_text.words, back)
                values = [r[0, ENCODER.index("st_word_cos")] for r in rows]
                self._similarity[key] = float(np.nanmin(values)) if not np.all(np.isnan(values)) else float("nan")
        return self._similarity[key]

    def _check_constraint(self, transformed_text, reference_text):
        value = self.least_similarity(transformed_text, reference_text)
        return bool(value >= self.min_similarity)  # NaN (past the length limit) is refused

    def known_verdict(self, reference_text, transformed_text):
        """This constraint's verdict on the text if it has computed it, else None (nothing is computed)."""
        value = self._similarity.get((reference_text.text, transformed_text.text))
        return None if value is None else bool(value >= self.min_similarity)

    def known_verdicts(self):
        """A constraint that refuses only what this one has already refused (SO-Beam's survivors)."""
        return KnownVerdicts(self)

    def __getstate__(self):
        state = self.__dict__.copy()
        state["_similarity"] = {}
        return state

    def extra_repr_keys(self):
        return ["min_similarity"] + super().extra_repr_keys()
