"""Sentence chrF (Popović 2015) as Michel et al. (NAACL 2019) use it: sacrebleu's defaults, scaled to [0, 1].

The one chrF of the package, used by the meaning-preservation evaluation (docs/design/meaning.md),
the ``chrf`` constraint and the mean-chrF summary metric.
"""

from sacrebleu import sentence_chrf

# chrF as Michel et al. (2019) use it: "chrF (Popović 2015)", sacrebleu's defaults.
CHAR_ORDER = 6  # character n-grams up to 6
WORD_ORDER = 0  # chrF, not chrF++
BETA = 2  # recall weighted twice as much as precision


def chrf(hypothesis, reference, char_order=CHAR_ORDER, beta=BETA):
    """Sentence chrF of ``hypothesis`` against ``reference``, in [0, 1] (sacrebleu ``sentence_chrf`` / 100)."""
    return (
        sentence_chrf(str(hypothesis), [str(reference)], char_order=char_order, word_order=WORD_ORDER, beta=beta).score
        / 100.0
    )
