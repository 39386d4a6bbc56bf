"""Which model or list fills each job: the one place that decides what is loaded.

Slots (:mod:`.slots`): ``masked_lm`` (neighbourhood word proposals), ``causal_lm``
(perplexity), ``sentence_encoder`` (similarity), ``synonyms`` (patch words), ``pos_tagger``
(part of speech of patch words in context) and ``word_vectors``. For every slot the order is:
the loader's explicit argument, then the slot's environment variable, then the default: the
papers' choice when the Hugging Face hub can be used (or, for Hugging Face models, is in the
local cache), else the packaged offline asset, else the slot's offline alternatives
(:mod:`.resolution`). When nothing
can be had, one :class:`ResourceError` says what to install or which path to pass.

``textattack-so resources`` prints :func:`describe`; the loaders (:mod:`.loaders`) build
exactly what it shows, with the builders of :mod:`.builders`. Word proposers live in
:mod:`.proposers`, one file each.

Importing this package imports neither torch nor TextAttack: the start-up hook imports it while
``import textattack`` runs (for :func:`data_path`). :mod:`.builders` and :mod:`.proposers`, which
import them at their top, are imported when something is built (:func:`.loaders._builders`) and when
a proposer is described or checked (the proposers only).
"""

from .errors import ResourceError
from .loaders import (
    causal_lm_ready,
    describe,
    load,
    load_causal_lm,
    load_pos_tagger,
    load_sentence_encoder,
    load_synonyms,
    load_word_proposer,
    load_word_vectors,
    sentence_encoder_constraint,
    word_proposer,
)
from .paths import cache_dir, data_path
from .resolution import Resolution, hub_available, in_hf_cache, require, resolve
from .slots import SLOTS, Slot

__all__ = [
    "SLOTS",
    "ResourceError",
    "Resolution",
    "Slot",
    "cache_dir",
    "causal_lm_ready",
    "data_path",
    "describe",
    "hub_available",
    "in_hf_cache",
    "load",
    "load_causal_lm",
    "load_pos_tagger",
    "load_sentence_encoder",
    "load_synonyms",
    "load_word_proposer",
    "load_word_vectors",
    "require",
    "resolve",
    "sentence_encoder_constraint",
    "word_proposer",
]
