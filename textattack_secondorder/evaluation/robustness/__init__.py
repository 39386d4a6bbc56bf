"""Robustness index over perturbed copies of an evaluation set (FlagEval; docs/design/meaning.md).

FlagEval perturbs an evaluation set at several levels and measures the model's
accuracy on each perturbed set ``dist_1 .. dist_T``:

* character (``C``): 3 to 15 characters of a sentence turned into typos with
  TextAttack's ``WordSwapQWERTY`` / ``WordSwapNeighboringCharacterSwap``
  (:class:`CharPerturbation`, :mod:`.perturbations`);
* word (``W``): words replaced by synonyms (the ``synonyms`` slot) or by a masked
  LM's proposals (:class:`WordPerturbation`);
* sentence (``S``): back-translation English → Spanish → English through Debian's
  Apertium (:class:`BackTranslation`, :mod:`.back_translation`);
* adversarial (``Adv``): the successful texts of an already-built attack against the
  model or a surrogate (:class:`AdversarialPerturbation`, :mod:`.adversarial`).

``RB = (1/T) Σ_i (Acc_org − Acc_dist_i) / Acc_org`` (:func:`robustness_index`,
:mod:`.computation`), next to each set's mean source-side chrF (docs/design/meaning.md).
:func:`run_robustness` ties it together; :func:`write_report` (:mod:`.report`) writes a
CSV, a JSON, the perturbed sets (:mod:`.sets`, reusable with :func:`load_sets`) and one
self-contained HTML page from ``templates/report.html``.
"""

from .adversarial import AdversarialPerturbation
from .back_translation import ApertiumUnavailable, BackTranslation, apertium_modes
from .computation import accuracy, evaluate_sets, make_set, robustness_index, run_robustness
from .perturbations import (
    CHAR_MAX,
    CHAR_MAX_FRACTION,
    CHAR_MIN,
    WORD_RATE,
    CharPerturbation,
    WordPerturbation,
    load_synonym_list,
)
from .report import format_table, plot_png, render_html, write_report
from .result import LEVEL_PREFIX, LEVELS, PerturbedSet, RobustnessReport, set_name
from .sets import load_sets, save_sets

__all__ = [
    "AdversarialPerturbation",
    "ApertiumUnavailable",
    "BackTranslation",
    "CHAR_MAX",
    "CHAR_MAX_FRACTION",
    "CHAR_MIN",
    "CharPerturbation",
    "LEVELS",
    "LEVEL_PREFIX",
    "PerturbedSet",
    "RobustnessReport",
    "WORD_RATE",
    "WordPerturbation",
    "accuracy",
    "apertium_modes",
    "evaluate_sets",
    "format_table",
    "load_sets",
    "load_synonym_list",
    "make_set",
    "plot_png",
    "render_html",
    "robustness_index",
    "run_robustness",
    "save_sets",
    "set_name",
    "write_report",
]
