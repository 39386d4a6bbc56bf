"""A Hugging Face classifier's forward pass through onnxruntime on the CPU (docs/design/speed.md).

On a CPU, onnxruntime runs the same float32 graph as torch about twice as fast (all-MiniLM-L6-v2 fine-tuned on
MR, 64 texts of 22 tokens, one thread: 0.37 s in torch, 0.16 s in onnxruntime, logits within 2e-6).
:class:`OnnxForward` exports the model in memory (about a second for MiniLM, no file is written), checks the
exported graph against torch on the batch it was exported with and on a second one of another shape, and is used
for the forwards without gradients of :class:`~.wrappers.SOModelWrapper` (attacks) and
:class:`~.token_classifier.TokenClassifier` (κ, ρ, SP-Attack, the defenses' measurements); gradients and training
stay in torch.

The weights may change under it (``defend`` fine-tunes the model it queries): each call compares the parameters'
version counters with the ones it exported, and a changed model is queried in torch until two calls in a row find
the same weights, then exported again (an export per fine-tuning run, not per step). A model in train mode is
always queried in torch (the graph is the eval-mode model).
"""

import io
import logging
import os
import warnings

import numpy as np
import torch

logger = logging.getLogger(__name__)

#: ``torch`` keeps every forward in torch; ``onnx`` (default ``auto``) uses onnxruntime where it can
RUNTIME_ENV = "TEXTATTACK_SECONDORDER_VICTIM_RUNTIME"
RUNTIMES = ("auto", "torch", "onnx")
#: largest difference of logits between the exported graph and torch that is accepted
TOLERANCE = 1e-4


def onnxruntime_available():
    try:
        import onnxruntime  # noqa: F401  (optional: the [offline] extra)
    except ImportError:
        return False
    return True


def requested_runtime(runtime=None):
    """``runtime`` or ``$TEXTATTACK_SECONDORDER_VICTIM_RUNTIME`` (default ``auto``), checked."""
    value = (runtime or os.environ.get(RUNTIME_ENV, "") or "auto").strip().lower()
    if value not in RUNTIMES:
        raise ValueError(f"victim runtime {value!r} is not one of {', '.join(RUNTIMES)} (${RUNTIME_ENV})")
    return value


def onnx_forward_for(model, runtime=None):
    """An :class:`OnnxForward` of ``model`` where its forwards on the CPU may go through onnxruntime (a float32
    transformer, onnxruntime installed, ``runtime`` / ``$TEXTATTACK_SECONDORDER_VICTIM_RUNTIME`` not ``torch``),
    else ``None``. The one place that decides it, for :class:`~.wrappers.SOModelWrapper` (attacks) and
    :class:`~.token_classifier.TokenClassifier` (κ, ρ, SP-Attack, the defenses' measurements)."""
    from .word_models import is_word_model

    runtime = requested_runtime(runtime)
    if runtime == "torch":
        return None
    if not onnxruntime_available():
        if runtime == "onnx":
            raise ValueError("victim runtime 'onnx' needs onnxruntime: pip install 'textattack-secondorder[offline]'")
        return None
    if is_word_model(model) or any(p.dtype != torch.float32 for p in model.parameters()):
        return None  # a word model's forwards cost next to nothing; half precision is exported as it runs in torch
    return OnnxForward(model)


def weights_version(model):
    """What changes when a parameter is replaced or updated in place (optimizer steps bump ``_version``)."""
    return tuple((p.data_ptr(), p._version) for p in model.parameters())


class _Logits(torch.nn.Module):
    """The classifier as a function of its tokenizer's tensors, in a fixed order, returning the logits."""

    def __init__(self, model, keys):
        super().__init__()
        self.model = model
        self.keys = tuple(keys)

    def forward(self, *tensors):
        return self.model(**dict(zip(self.keys, tensors))).logits


class OnnxForward:
    """The logits of ``model`` on tokenizer outputs, by onnxruntime; :meth:`logits` returns ``None`` where torch
    must answer (an export that failed or disagreed, weights that changed, other input names)."""

    def __init__(self, model):
        self.model = model
        self.session = None
        self.keys = None
        self.exported_version = None
        self.last_version = None
        self.failed = None  # the reason onnxruntime is not used, once known

    def logits(self, enc):
        """``enc``: the tokenizer's dict of CPU tensors. Float32 logits as a CPU tensor, or ``None``."""
        if self.failed or self.model.training:  # the graph is the eval-mode model (no dropout)
            return None
        version = weights_version(self.model)
        seen, self.last_version = self.last_version, version
        if self.session is None or version != self.exported_version:
            self.session = None
            if seen is not None and version != seen:
                return None  # the weights are moving (training): torch answers until they settle
            if not self._export(enc, version):
                return None
        if tuple(enc.keys()) != self.keys:
            return None
        feed = {k: enc[k].numpy() for k in self.keys}
        return torch.from_numpy(self.session.run(None, feed)[0]).float()

    def _export(self, enc, version):
        import onnxruntime as ort

        keys = tuple(enc.keys())
        args = tuple(enc[k] for k in keys)
        buf = io.BytesIO()
        was_training = self.model.training
        try:
            with warnings.catch_warnings(), torch.no_grad():
                warnings.simplefilter("ignore")
                torch.onnx.export(
                    _Logits(self.model, keys).eval(),  # a fresh module is in train mode, and export restores it
                    args,
                    buf,
                    input_names=list(keys),
                    output_names=["logits"],
                    dynamic_axes={**{k: {0: "batch", 1: "tokens"} for k in keys}, "logits": {0: "batch"}},
                    opset_version=17,
                    dynamo=False,
                )
            options = ort.SessionOptions()
            options.intra_op_num_threads = torch.get_num_threads()  # the threads torch was given
            options.inter_op_num_threads = 1
            session = ort.InferenceSession(buf.getvalue(), options, providers=["CPUExecutionProvider"])
        except Exception as e:  # an architecture the exporter cannot trace: torch answers
            return self._give_up(f"the export failed ({type(e).__name__}: {str(e).splitlines()[0][:200]})")
        finally:
            self.model.train(was_training)
        # the same graph on another batch size and length (the probe need not be a sentence: both runtimes read it)
        rows = [0] if len(next(iter(enc.values()))) > 1 else [0, 0]
        probe = {k: v[rows, : max(2, v.shape[1] - 1)] for k, v in enc.items()}
        gap = max(self._gap(session, keys, batch) for batch in (enc, probe))
        if not gap <= TOLERANCE:
            return self._give_up(f"its logits differ from torch's by {gap:.2g} (> {TOLERANCE:g})")
        self.session, self.keys, self.exported_version = session, keys, version
        logger.info("%s exported to onnxruntime (logits within %.1g of torch)", type(self.model).__name__, gap)
        return True

    def _gap(self, session, keys, enc):
        with torch.no_grad():
            ref = self.model(**enc).logits.float().numpy()
        out = session.run(None, {k: enc[k].numpy() for k in keys})[0]
        return float(np.abs(out - ref).max()) if out.shape == ref.shape else float("inf")

    def _give_up(self, reason):
        self.failed = reason
        logger.warning(
            "%s is queried in torch: %s (%s=torch says so from the start)",
            type(self.model).__name__,
            reason,
            RUNTIME_ENV,
        )
        return False

    def __getstate__(self):  # a session does not pickle: the copy exports again when it is first called
        state = dict(self.__dict__)
        state.update(session=None, exported_version=None, last_version=None)
        return state


__all__ = ["OnnxForward", "RUNTIME_ENV", "onnx_forward_for", "onnxruntime_available", "requested_runtime"]
