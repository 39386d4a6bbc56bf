"""A faster TextAttack model wrapper for Hugging Face classifiers.

TextAttack's ``HuggingFaceModelWrapper`` pads every input to the tokenizer's
``model_max_length`` (512 for most BERTs) and its ``get_grad`` puts the model
in train mode (dropout on). :class:`SOModelWrapper` pads each batch only to its
longest input, truncates at the model's max length, runs without gradients on
the model's device, and computes gradients in eval mode.

:func:`fast_model_wrapper` is the one place that swaps TextAttack's wrapper for this one: our recipes'
``build`` calls it on the wrapper they are given (:class:`~..attack_recipes.recipe.SORecipe`), so a model
given as ``--model-from-huggingface``, ``--model DIR``, ``--model-from-file`` or from Python is queried
padded per batch (docs/design/speed.md: same logits, 46× fewer padded positions on a 13-word sentence).
On the CPU its forwards without gradients go through onnxruntime where it is installed (:mod:`.onnx_forward`,
docs/design/speed.md: 2.2× faster on MiniLM, logits within 1e-5 of torch).
"""

import logging
import os

import textattack
import torch
from textattack.models.wrappers import HuggingFaceModelWrapper
from transformers import PreTrainedModel

from ..shared.device import resolve_device
from .onnx_forward import onnx_forward_for
from .word_models import is_word_model

logger = logging.getLogger(__name__)

DEFAULT_BATCH_SIZE = 64
_FALLBACK_MAX_LENGTH = 512


class SOModelWrapper(HuggingFaceModelWrapper):
    """Hugging Face sequence classifier + tokenizer, padded per batch (not to 512).

    Args:
        model: a ``transformers.PreTrainedModel`` for sequence classification.
        tokenizer: its (fast or slow) tokenizer.
        device: ``"cpu"``, ``"cuda"``, a ``torch.device`` or ``None`` for
            TextAttack's default (``textattack.shared.utils.device``).
        max_length: truncation length; default the tokenizer's
            ``model_max_length`` (512 if that is unset).
        batch_size: inputs per forward pass inside one call.
        runtime: ``"auto"`` (default, or ``$TEXTATTACK_SECONDORDER_VICTIM_RUNTIME``): forwards without gradients
            on the CPU through onnxruntime when it is installed and the model is a float32 transformer, else
            torch; ``"torch"``: always torch; ``"onnx"``: as auto, but an error when onnxruntime is missing.

    Calling the wrapper on a list of strings (or of 1-/2-tuples for sentence
    pairs) returns a ``torch.Tensor`` of logits ``(n, num_labels)`` on the CPU,
    as TextAttack's goal functions expect.
    """

    def __init__(self, model, tokenizer, device=None, max_length=None, batch_size=DEFAULT_BATCH_SIZE, runtime=None):
        super().__init__(model, tokenizer)
        self.model.to(resolve_device(device))
        self.model.eval()
        if max_length is None:
            mml = getattr(tokenizer, "model_max_length", None)
            max_length = mml if mml and mml < int(1e29) else _FALLBACK_MAX_LENGTH
        self.max_length = int(max_length)
        self.batch_size = int(batch_size)
        self.onnx = onnx_forward_for(self.model, runtime)

    # -- inputs ---------------------------------------------------------------
    @staticmethod
    def _split_inputs(text_input_list):
        if isinstance(text_input_list, str):
            text_input_list = [text_input_list]
        firsts, seconds = [], []
        for x in text_input_list:
            if isinstance(x, (tuple, list)):
                if len(x) == 1:
                    firsts.append(x[0])
                elif len(x) == 2:
                    firsts.append(x[0])
                    seconds.append(x[1])
                else:
                    raise ValueError(f"SOModelWrapper takes one or two text columns, got {len(x)}")
            else:
                firsts.append(x)
        if seconds and len(seconds) != len(firsts):
            raise ValueError("mixed single texts and text pairs in one batch")
        return firsts, (seconds or None)

    def encode(self, text_input_list):
        """Tokenize, padding to the longest input of the list; tensors on the model's device."""
        firsts, seconds = self._split_inputs(text_input_list)
        enc = self.tokenizer(
            firsts,
            seconds,
            add_special_tokens=True,
            padding="longest",
            truncation=True,
            max_length=self.max_length,
            return_tensors="pt",
        )
        return enc.to(self.device)

    # -- predictions ------------------------------------------------------------
    def __call__(self, text_input_list):
        firsts, _ = self._split_inputs(text_input_list)
        if not firsts:
            return torch.zeros((0, self.model.config.num_labels))
        inputs = list(text_input_list) if not isinstance(text_input_list, str) else [text_input_list]
        outputs = []
        self.model.eval()
        onnx = self.onnx if self.onnx is not None and self.device.type == "cpu" else None
        with torch.no_grad():
            for i in range(0, len(inputs), self.batch_size):
                enc = self.encode(inputs[i : i + self.batch_size])
                logits = onnx.logits(enc) if onnx is not None else None
                outputs.append(logits if logits is not None else self.model(**enc).logits.float().cpu())
        return torch.cat(outputs, dim=0)

    # -- gradients ---------------------------------------------------------------
    def get_grad(self, text_input):
        """Gradient of the loss (w.r.t. the predicted label) on the input word embeddings.

        Unlike TextAttack's version the model stays in eval mode (no dropout),
        and frozen embeddings work too: the gradient is taken on the embedding
        *output*. Returns ``{"ids": input ids (1, T), "gradient": array (T, dim)}``.
        """
        self.model.eval()
        embedding_layer = self.model.get_input_embeddings()
        captured = []

        def forward_hook(module, inputs, output):
            output.requires_grad_(True)
            output.retain_grad()
            captured.append(output)
            return output

        handle = embedding_layer.register_forward_hook(forward_hook)
        try:
            self.model.zero_grad(set_to_none=True)
            enc = self.encode([text_input])
            with torch.enable_grad():
                logits = self.model(**enc).logits
                labels = logits.argmax(dim=1)
                loss = torch.nn.functional.cross_entropy(logits, labels)
                loss.backward()
            grad = captured[0].grad[0].detach().cpu().numpy()
        finally:
            handle.remove()
            self.model.zero_grad(set_to_none=True)
        return {"ids": enc["input_ids"].cpu(), "gradient": grad}

    @property
    def device(self):
        """The device the model is on now: inputs go there. TextAttack's ``Attacker`` moves every model of an attack
        to its own device (``attack.cuda_()``), so a victim loaded elsewhere is followed, as TextAttack's own
        wrappers do."""
        return next(self.model.parameters()).device

    @device.setter
    def device(self, device):
        self.model.to(torch.device(device))

    def to(self, device):
        self.model.to(torch.device(device))
        return self

    def runtime_in_use(self):
        """``"onnxruntime"`` when the forwards without gradients go through it now (or will, once exported)."""
        onnx_ok = self.onnx is not None and not self.onnx.failed and self.device.type == "cpu"
        return "onnxruntime" if onnx_ok else "torch"

    def __repr__(self):
        return (
            f"{type(self).__name__}(model={type(self.model).__name__}, device={self.device}, "
            f"max_length={self.max_length}, batch_size={self.batch_size}, runtime={self.runtime_in_use()!r})"
        )


#: set to 1 to keep TextAttack's wrapper in our recipes too (for measuring the two side by side)
KEEP_ENV = "TEXTATTACK_SECONDORDER_KEEP_HF_WRAPPER"


def is_textattack_hf_wrapper(model_wrapper):
    """True for TextAttack's own ``HuggingFaceModelWrapper`` around a classifier (not a subclass, which may
    query its model its own way, and not a text-to-text model, which generates instead of classifying)."""
    if type(model_wrapper) is not HuggingFaceModelWrapper:
        return False
    config = getattr(model_wrapper.model, "config", None)
    return config is not None and not getattr(config, "is_encoder_decoder", False)


def fast_model_wrapper(model_wrapper, who="this attack"):
    """``model_wrapper`` as a :class:`SOModelWrapper` when it is TextAttack's ``HuggingFaceModelWrapper``
    around a classifier (the same model and tokenizer, left on their device; said in the log), else unchanged.

    The logits are TextAttack's within float rounding: the padding TextAttack adds is masked out of
    attention, and both truncate at the tokenizer's ``model_max_length`` (512 when it sets none).
    ``$TEXTATTACK_SECONDORDER_KEEP_HF_WRAPPER=1`` keeps TextAttack's wrapper.
    """
    if not is_textattack_hf_wrapper(model_wrapper) or os.environ.get(KEEP_ENV, "") not in ("", "0"):
        return model_wrapper
    model = model_wrapper.model
    fast = SOModelWrapper(model, model_wrapper.tokenizer, device=next(model.parameters()).device)
    logger.warning(
        "%s queries %s padded to each batch's longest input (SOModelWrapper) instead of TextAttack's "
        "HuggingFaceModelWrapper, which pads every query to %d tokens: same logits, far less work "
        "(%s=1 keeps TextAttack's); forwards in %s",
        who,
        type(model).__name__,
        fast.max_length,
        KEEP_ENV,
        fast.runtime_in_use(),
    )
    return fast


def transformer_on_cpu(model_wrapper):
    """True when ``model_wrapper`` queries a transformer (a Hugging Face model other than this package's word
    models) and TextAttack's device is the CPU: a forward there costs milliseconds a text, more than the
    part-of-speech tagger's look at it (so-beam's ``neighbor_pos_first='auto'``; docs/design/speed.md). On a GPU,
    or for a word model, the forward is the cheaper of the two."""
    model = getattr(model_wrapper, "model", None)
    if not isinstance(model, PreTrainedModel) or is_word_model(model):
        return False
    # where TextAttack's Attacker puts the victim (attack.cuda_()): $TA_DEVICE, else CUDA when there is one
    return torch.device(textattack.shared.utils.device).type == "cpu"


__all__ = ["SOModelWrapper", "fast_model_wrapper", "is_textattack_hf_wrapper", "transformer_on_cpu"]
