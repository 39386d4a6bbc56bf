"""Which words SP-Attack puts in: the top M by flip capability κ (Xu et al. §4), among the words its rules could keep.

The paper takes the M = 50 words of largest κ. With SP-Attack's label and fluency rules
(docs/design/single-word.md) most of them can never count on a transformer victim: the top of its κ is opinion words
("terrible", "stupid", "bad"), which the sentiment lexicon and the label lean refuse wherever they are put, so the
paper's pool leaves the search nothing to find. ``'admissible'`` (the default) walks down κ and keeps the first M words
each rule could keep in place of a word that leans nowhere (each constraint's ``admits_word``: no negator, no lexicon
word, a lean of at most the rule's margin, a form English has for a slot's part of speech); ``'paper'`` keeps the top M
as they are. The rules still judge every candidate in its sentence.
"""

from textattack.shared import logger

#: the pools SP-Attack can draw its M words from
POOLS = {
    "admissible": "the top M by κ among the words the label and fluency rules could keep",
    "paper": "the top M by κ (the paper's pool)",
}
DEFAULT_POOL = "admissible"


class SPAttackPool:
    """SP-Attack's ``M`` words.

    Args:
        kappa: a :class:`~..evaluation.flip_capability.FlipCapabilityResult`.
        top_m: M.
        mode: one of :data:`POOLS`.
        rules: the rules (anything with ``admits(word)``) a word must be admitted by under ``'admissible'``.
    """

    def __init__(self, kappa, top_m, mode=DEFAULT_POOL, rules=()):
        if mode not in POOLS:
            raise ValueError(f"pool={mode!r} is not a pool; choose one of {', '.join(map(repr, POOLS))}")
        self.mode = mode
        self.top_m = int(top_m)
        frame = kappa.to_frame()  # every word of κ, largest κ first (ties by the word)
        admitted = (lambda w: True) if mode == "paper" else (lambda w: all(r.admits(w) for r in rules))
        ranks = []  # the ranks in κ of the words kept, walking down until M are kept
        for rank, word in enumerate(frame["word"]):
            if len(ranks) == self.top_m:
                break
            if admitted(word):
                ranks.append(rank)
        self.words = frame["word"].iloc[ranks].tolist()
        self.vocabulary = len(frame)
        if not ranks:  # every sentence fails, and the summary row says why
            self.passed_over, self.kappa_range = self.vocabulary, None
            logger.warning("SP-Attack: %s", self.describe())
            return
        self.passed_over = ranks[-1] + 1 - len(ranks)  # higher-κ words the rules refuse
        self.kappa_range = (float(frame["kappa"].iloc[ranks[0]]), float(frame["kappa"].iloc[ranks[-1]]))

    def describe(self):
        """The summary row's value."""
        if not self.words:
            return (
                f"{self.mode}: none of the {self.vocabulary} words of κ can be kept by the label and fluency rules "
                "(compute κ over more training sentences; pool='paper' takes the top of κ as it is)"
            )
        hi, lo = self.kappa_range
        text = f"{self.mode}: {len(self.words)} words, κ {hi:.3f} to {lo:.3f}"
        if self.mode != "paper":
            text += f"; {self.passed_over} words of higher κ the rules refuse left out"
        return text

    def __repr__(self):
        return f"SPAttackPool({self.describe()})"
