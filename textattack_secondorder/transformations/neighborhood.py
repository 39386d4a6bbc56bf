"""Natural neighbourhood of a sentence (Zhang et al. 2021, Algorithm 1; docs/design/neighbours.md).

``Neighbor_1(x)``: for each word position ``i`` (patch-word positions excluded
by a pre-transformation constraint), mask word ``i``, ask the masked-LM slot
for replacement scores ``L`` sorted decreasingly and keep the candidates with
``L > max(L[κ], L[0] - δ)`` (κ = 20, δ = 3), dropping sub-word pieces,
non-words and the current word. ``Neighbor_k`` follows by applying it again;
the search methods do that.

All masks of all sentences given to :meth:`WordSwapNeighborhood.prefetch` go
through the proposer in one batched call; ``_get_transformations`` then reads
the prefetched proposals (or computes a batch of one).
"""

import logging

from textattack.transformations import Transformation

from ..resources import word_proposer
from ..shared.text import match_case, swap_words_at

logger = logging.getLogger(__name__)

KAPPA = 20  # paper Algorithm 1
DELTA = 3.0  # paper Algorithm 1


def select_neighbor_words(candidates, current_word, is_word, kappa=KAPPA, delta=DELTA, max_words=None):
    """Paper Algorithm 1's rule on one position's sorted ``(token, score)`` list.

    Keeps tokens whose score is ``> max(L[kappa], L[0] - delta)`` (strict), then drops
    non-words / sub-word pieces and the current word (case-insensitive).
    """
    if not candidates:
        return []
    scores = [s for _, s in candidates]
    floor = scores[0] - delta
    if len(scores) > kappa:
        floor = max(floor, scores[kappa])
    out = []
    cur = current_word.lower()
    for tok, s in candidates:
        if s <= floor:
            break
        if not is_word(tok) or tok.lower() == cur:
            continue
        if tok in out:
            continue
        out.append(tok)
        if max_words is not None and len(out) >= max_words:
            break
    return out


class WordSwapNeighborhood(Transformation):
    """Swap one word for a word the masked LM finds natural in its place (paper Algorithm 1).

    Args:
        proposer: a :class:`~textattack_secondorder.resources.proposers.WordProposer`,
            a name/path for the masked-LM slot, or ``None`` for the slot's default.
        kappa, delta: the rule ``L > max(L[κ], L[0] - δ)`` (paper: 20, 3).
        max_words_per_position: optional cap on kept words per position (paper: none beyond κ).
        device: device for the proposer when it is loaded here.
        dtype: its weights' dtype when loaded here (``None`` = float32; ``"bfloat16"``,
            ``"float16"`` on CUDA, ``"auto"``: see :func:`~textattack_secondorder.resources.proposers.resolve_dtype`).
    """

    def __init__(self, proposer=None, kappa=KAPPA, delta=DELTA, max_words_per_position=None, device=None, dtype=None):
        self.proposer = word_proposer(proposer, device=device, dtype=dtype)
        self.kappa = int(kappa)
        self.delta = float(delta)
        self.max_words_per_position = max_words_per_position
        self._prefetched = {}
        self._masked = {}  # masked sentence -> raw proposals (cleared per example)
        self.proposer_requests = 0  # masked positions asked for ...
        self.proposer_calls = 0  # ... and how many of them went through the proposer

    # -- batched proposals ---------------------------------------------------
    def _key(self, text, indices):
        return (tuple(text.words), tuple(sorted(indices)))

    def neighbor_words(self, texts, indices_lists):
        """For each text, ``{position: [replacement words]}`` under the κ/δ rule (one proposer call).

        With a masked LM the proposals for position ``i`` depend only on the sentence with
        word ``i`` masked, and beam members / enumeration parents often share that masked
        sentence (masking a position a neighbour changed gives back its parent's masked
        sentence). Raw proposals are therefore cached per masked sentence (like the reference
        code's disk cache) and each distinct masked sentence goes through the model once;
        the κ/δ rule and the "not the current word" filter are applied per requester.
        """
        todo = [(t, sorted(ix)) for t, ix in zip(texts, indices_lists) if self._key(t, ix) not in self._prefetched]
        todo = [(t, ix) for t, ix in todo if ix]
        if todo:
            # context-only proposers share the per-example cache; others get a fresh one per call
            cache = self._masked if getattr(self.proposer, "context_only", False) else {}
            keys, need = {}, {}  # (todo index, position) -> cache key; missing key -> (words, position)
            for n, (t, ix) in enumerate(todo):
                words = t.words
                for i in ix:
                    key = (tuple(words[:i]), tuple(words[i + 1 :])) if cache is self._masked else (n, i)
                    keys[(n, i)] = key
                    if key not in cache and key not in need:
                        need[key] = (words, i)
            if need:
                # group the missing masks by sentence for the proposer's (sentences, positions) API
                groups = {}
                for key, (words, i) in need.items():
                    groups.setdefault(tuple(words), []).append((i, key))
                sentences = [list(w) for w in groups]
                positions = [[i for i, _ in g] for g in groups.values()]
                proposals = self.proposer.propose(sentences, positions, top_k=self.kappa + 1)
                for g, per_pos in zip(groups.values(), proposals):
                    for (_, key), cands in zip(g, per_pos):
                        cache[key] = cands
                self.proposer_calls += len(need)
            self.proposer_requests += len(keys)
            for n, (t, ix) in enumerate(todo):
                words = {}
                for i in ix:
                    kept = select_neighbor_words(
                        cache[keys[(n, i)]],
                        t.words[i],
                        self.proposer.is_word,
                        kappa=self.kappa,
                        delta=self.delta,
                        max_words=self.max_words_per_position,
                    )
                    if kept:
                        words[i] = kept
                self._prefetched[self._key(t, ix)] = words
        return [self._prefetched.get(self._key(t, ix), {}) for t, ix in zip(texts, indices_lists)]

    def prefetch(self, texts, indices_lists):
        """Compute the proposals of many texts in one batch, for later ``_get_transformations`` calls."""
        self.neighbor_words(texts, indices_lists)

    def clear_cache(self):
        self._prefetched.clear()
        self._masked.clear()

    def _get_transformations(self, current_text, indices_to_modify):
        words = self.neighbor_words([current_text], [indices_to_modify])[0]
        out = []
        for i in sorted(words):
            original = current_text.words[i]
            out += swap_words_at(current_text, i, [match_case(w, original) for w in words[i]])
        return out

    def extra_repr_keys(self):
        return ["proposer", "kappa", "delta", "max_words_per_position"]

    def __getstate__(self):
        state = self.__dict__.copy()
        state["_prefetched"] = {}
        state["_masked"] = {}
        return state
