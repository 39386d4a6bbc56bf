"""chrF scores and the success rule of meaning preservation (Michel et al., NAACL 2019; docs/design/meaning.md).

An adversarial perturbation ``x -> x̂`` of a model ``M`` is judged on both sides:

* source-side preservation ``s_src(x, x̂)``: chrF (character n-grams up to order
  6, β = 2; Popović 2015) of the perturbed input against the original, through
  sacrebleu's ``sentence_chrf`` and scaled to [0, 1] (:func:`source_chrf`);
* target-side relative meaning destruction (Michel et al., Eq. 1)::

      d_tgt(y, y_M, ŷ_M) = 0                                         if s_tgt(y, ŷ_M) >= s_tgt(y, y_M)
                         = (s_tgt(y, y_M) - s_tgt(y, ŷ_M)) / s_tgt(y, y_M)   otherwise

  where ``y`` is the reference, ``y_M = M(x)`` and ``ŷ_M = M(x̂)``
  (:func:`relative_destruction`). With ``s_tgt`` = chrF this is RDchrF
  (:func:`rdchrf`); for a classifier ``s_tgt`` is 0/1 label agreement
  (:func:`label_agreement`), so ``d_tgt`` is 1 exactly when a correct prediction
  was flipped to a wrong one;
* an adversarial example is *successful* when it destroys more meaning on the
  target than on the source (Michel et al., Eq. 2): ``1 - s_src(x, x̂) < d_tgt``
  (:func:`is_successful`).
"""

from ...shared.chrf import BETA, CHAR_ORDER, WORD_ORDER, chrf  # noqa: F401 - the chrF core, re-exported


def source_chrf(original, perturbed):
    """Source-side preservation ``s_src(x, x̂)`` (Michel et al. §2.2): chrF of ``x̂`` with ``x`` as reference."""
    return chrf(perturbed, original)


def relative_destruction(s_original, s_adversarial):
    """Relative meaning destruction ``d_tgt`` (Michel et al., Eq. 1) from ``s_tgt(y, y_M)`` and ``s_tgt(y, ŷ_M)``.

    ``0`` when the adversarial output is at least as good as the original one (this
    also covers ``s_tgt(y, y_M) = 0``), otherwise the relative decrease
    ``(s_tgt(y, y_M) - s_tgt(y, ŷ_M)) / s_tgt(y, y_M)``.
    """
    s_original, s_adversarial = float(s_original), float(s_adversarial)
    if s_adversarial >= s_original:
        return 0.0
    return (s_original - s_adversarial) / s_original


def rdchrf(reference, output, adversarial_output):
    """RDchrF: ``d_tgt`` of Eq. 1 with ``s_tgt`` = chrF against the reference ``y`` (Michel et al. §2.3)."""
    return relative_destruction(chrf(output, reference), chrf(adversarial_output, reference))


def label_agreement(reference, prediction):
    """``s_tgt`` for a classifier: 1 when the predicted label equals the gold label, else 0."""
    return 1.0 if _same_label(reference, prediction) else 0.0


def is_successful(s_src, d_tgt):
    """Michel et al., Eq. 2: the perturbation destroys more meaning on the target than on the source."""
    return (1.0 - float(s_src)) < float(d_tgt)


def _same_label(a, b):
    try:
        return float(a) == float(b)
    except (TypeError, ValueError):
        return str(a).strip() == str(b).strip()
