"""Meaning preservation of adversarial perturbations: chrF, RDchrF and the success rule (docs/design/meaning.md).

* :mod:`.chrf` — the scores (``s_src``, ``d_tgt``, RDchrF) and the success rule (Michel et al., Eq. 1–2);
* :mod:`.computation` — per-example rows for classifiers and seq2seq models;
* :mod:`.result` — TEAPOT-style aggregates (mean, std, 5–95 % range, success percentage);
* :mod:`.report` — the printed TEAPOT-style block;
* :mod:`.attack_log` — reader of TextAttack's CSV attack logs.

The TextAttack ``Metric`` (mean source chrF of successful attacks) is
:class:`textattack_secondorder.metrics.mean_chrf.MeanChrF`.
"""

from .attack_log import JUDGED_BY_DEFAULT, SPLIT_TOKEN, read_attack_log, strip_markers
from .chrf import (
    BETA,
    CHAR_ORDER,
    WORD_ORDER,
    chrf,
    is_successful,
    label_agreement,
    rdchrf,
    relative_destruction,
    source_chrf,
)
from .computation import evaluate_classification, evaluate_seq2seq
from .report import format_summary
from .result import PERCENTILES, summarize, summary

__all__ = [
    "BETA",
    "CHAR_ORDER",
    "JUDGED_BY_DEFAULT",
    "PERCENTILES",
    "SPLIT_TOKEN",
    "WORD_ORDER",
    "chrf",
    "evaluate_classification",
    "evaluate_seq2seq",
    "format_summary",
    "is_successful",
    "label_agreement",
    "rdchrf",
    "read_attack_log",
    "relative_destruction",
    "source_chrf",
    "strip_markers",
    "summarize",
    "summary",
]
