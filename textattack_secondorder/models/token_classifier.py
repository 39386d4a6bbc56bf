"""Token-level view of a classifier: ids in, probabilities out, gradients at masked positions.

Used by flip capability κ/ρ (EUBA needs gradients w.r.t. a masked position's embedding,
docs/design/single-word.md), SP-Defense's gradient augmentation and defense training. Works
for Hugging Face classifiers and the package's word-level victims: anything with
``get_input_embeddings()`` that accepts ``inputs_embeds``.
"""

import re

import numpy as np
import torch

from ..shared.errors import UserError
from .onnx_forward import onnx_forward_for
from .prediction import predict_logits
from .probe import model_name

_LETTERS = re.compile(r"^[^\W\d_]+$")


class GradientAccessError(TypeError, UserError):
    """The victim gives no access to its input embeddings and tokenizer (one line, exit code 2)."""


class TokenClassifier:
    """Token-level view of a classifier for κ/ρ: ids in, probabilities out, gradients at masked positions.

    Args:
        model: a ``transformers`` model (or the package's word-level victim) accepting
            ``input_ids``/``inputs_embeds`` and ``attention_mask``, returning ``.logits``.
        tokenizer: its tokenizer.
        batch_size: sequences per forward pass.
        max_length: longer inputs are truncated.

    Forwards without gradients (:meth:`predict`, :meth:`predict_labels`) of a transformer on the CPU go through
    onnxruntime as :class:`~.wrappers.SOModelWrapper`'s do (:func:`~.onnx_forward.onnx_forward_for`,
    docs/design/speed.md); gradients stay in torch.
    """

    def __init__(self, model, tokenizer, device=None, batch_size=256, max_length=128):
        self.model = model.eval()
        self.tokenizer = tokenizer
        self.device = torch.device(device) if device else next(model.parameters()).device
        self.model.to(self.device)
        self.batch_size = int(batch_size)
        self.max_length = int(max_length)
        self.special_ids = set(tokenizer.all_special_ids)
        self.onnx = onnx_forward_for(self.model)
        for name in ("mask_token_id", "unk_token_id", "pad_token_id"):
            tid = getattr(tokenizer, name, None)
            if tid is not None:
                self.mask_id = int(tid)
                break
        else:
            raise ValueError("tokenizer has no mask, unknown or padding token to stand for a masked position")

    @staticmethod
    def require_access(model_wrapper, purpose="κ/ρ", name=None):
        """Raise :class:`GradientAccessError` (one line: the model, ``purpose``, what is missing) unless
        ``model_wrapper`` has a PyTorch ``model`` with ``get_input_embeddings()`` and a ``tokenizer``."""
        model, tok = getattr(model_wrapper, "model", None), getattr(model_wrapper, "tokenizer", None)
        missing = [
            what
            for what, absent in (
                ("PyTorch `model`", model is None),
                (
                    "input embeddings (`model.get_input_embeddings()`)",
                    model is not None and not hasattr(model, "get_input_embeddings"),
                ),
                ("Hugging Face `tokenizer`", tok is None),
            )
            if absent
        ]
        if missing:
            shown = f"{name!r} ({model_name(model_wrapper)})" if name else model_name(model_wrapper)
            raise GradientAccessError(
                f"model {shown} has no {' and no '.join(missing)}: {purpose} needs gradients through the input "
                "embeddings (a transformers classifier, a saved model folder or one of this package's victims such "
                "as mr-cnn; a prediction-only wrapper cannot be used)"
            )

    @classmethod
    def from_model_wrapper(cls, model_wrapper, purpose="κ/ρ", **kwargs):
        cls.require_access(model_wrapper, purpose)
        return cls(model_wrapper.model, model_wrapper.tokenizer, **kwargs)

    # -- vocabulary and inputs --------------------------------------------------
    def vocabulary(self):
        """``(ids, words)`` of the single-token, letters-only vocabulary entries."""
        vocab = self.tokenizer.get_vocab()
        items = sorted((i, w) for w, i in vocab.items() if i not in self.special_ids and _LETTERS.match(w))
        return np.array([i for i, _ in items], dtype=np.int64), [w for _, w in items]

    def encode(self, text):
        """Token ids (with special tokens) and the positions that may be substituted."""
        ids = self.tokenizer(text, truncation=True, max_length=self.max_length)["input_ids"]
        positions = [k for k, t in enumerate(ids) if t not in self.special_ids]
        return ids, positions

    def predict(self, id_rows):
        """Probabilities for equal-length id rows (a 2-D LongTensor), in batches."""
        out = []
        with torch.no_grad():
            for s in range(0, len(id_rows), self.batch_size):
                logits = self._logits(id_rows[s : s + self.batch_size].to(self.device))
                out.append(torch.softmax(logits.float(), -1).cpu())
        return torch.cat(out) if out else torch.zeros((0, 0))

    def _logits(self, batch):
        """Logits of equal-length id rows without padding, through onnxruntime where it is used (module doc)."""
        enc = {"input_ids": batch, "attention_mask": torch.ones_like(batch)}
        if self.onnx is not None and batch.device.type == "cpu":
            logits = self.onnx.logits(enc)
            if logits is not None:
                return logits
        return self.model(**enc).logits

    def predict_labels(self, id_rows):
        """Predicted labels of equal-length id rows (a 2-D LongTensor on the model's device), one forward
        pass per ``batch_size`` rows; a LongTensor on the device (nothing is copied to the host)."""
        out = []
        with torch.no_grad():
            for s in range(0, len(id_rows), self.batch_size):
                out.append(self._logits(id_rows[s : s + self.batch_size]).argmax(-1).to(self.device))
        return torch.cat(out) if out else torch.zeros((0,), dtype=torch.long, device=self.device)

    def predict_texts(self, texts):
        """Probabilities for texts (padded to the longest in each batch)."""
        logits = predict_logits(
            self.model,
            self.tokenizer,
            list(texts),
            batch_size=self.batch_size,
            max_length=self.max_length,
            device=self.device,
        )
        return torch.softmax(logits, -1).numpy()

    def embedding_matrix(self):
        return self.model.get_input_embeddings().weight.detach()

    def masked_gradients(self, ids, positions, label, as_numpy=True):
        """``log f(y|s_k)`` and ``∇_{e_mask} log f(y|s_k)`` for the ``l`` masked copies, one batched pass.

        float64; numpy arrays, or with ``as_numpy=False`` tensors left on the model's device."""
        emb = self.model.get_input_embeddings()
        base = torch.tensor(ids, device=self.device)
        logps, grads = [], []
        for s in range(0, len(positions), self.batch_size):
            pos = torch.tensor(positions[s : s + self.batch_size], device=self.device)
            rows = base.repeat(len(pos), 1)
            rows[torch.arange(len(pos)), pos] = self.mask_id
            embeds = emb(rows).detach().requires_grad_(True)
            logits = self.model(inputs_embeds=embeds, attention_mask=torch.ones_like(rows)).logits
            logp = torch.log_softmax(logits.float(), -1)[:, label]
            (g,) = torch.autograd.grad(logp.sum(), embeds)
            logps.append(logp.detach())
            grads.append(g[torch.arange(len(pos), device=self.device), pos].detach())
        logp, grad = torch.cat(logps).double(), torch.cat(grads).double()
        return (logp.cpu().numpy(), grad.cpu().numpy()) if as_numpy else (logp, grad)
