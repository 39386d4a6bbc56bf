"""A transformer victim's forwards on the CPU go through onnxruntime, with torch's logits (docs/design/speed.md).

The exported graph is checked against torch when it is made, is made again when the weights change (``defend``
fine-tunes the model it queries) but not at every training step, and torch answers wherever it cannot be used.
"""

import logging
import pickle

import pytest
import torch

from test_fast_wrapper import SENTENCES, tiny_classifier

pytest.importorskip("onnxruntime")


def wrappers(kind):
    from textattack_secondorder.models.wrappers import SOModelWrapper

    model, tok = tiny_classifier(kind)
    return SOModelWrapper(model, tok, device="cpu"), SOModelWrapper(model, tok, device="cpu", runtime="torch")


@pytest.mark.parametrize("kind", ["bert", "distilbert", "roberta", "minilm"])
def test_onnxruntime_gives_torchs_logits(kind):
    fast, plain = wrappers(kind)
    assert fast.runtime_in_use() == "onnxruntime" and plain.onnx is None
    for texts in (SENTENCES, SENTENCES[1:3], SENTENCES[::-1] * 20):  # other batch sizes, lengths, two batches
        got = fast(texts)
        assert fast.onnx.session is not None, fast.onnx.failed
        assert torch.allclose(got, plain(texts), atol=1e-5, rtol=0)
    assert not fast.model.training  # the export leaves the model in eval mode


def test_changed_weights_are_never_answered_by_the_old_graph_nor_exported_every_step(monkeypatch):
    from textattack_secondorder.models.onnx_forward import OnnxForward

    fast, plain = wrappers("bert")
    exports = []
    export = OnnxForward._export
    monkeypatch.setattr(OnnxForward, "_export", lambda self, *a: exports.append(1) or export(self, *a))
    fast(SENTENCES)
    assert len(exports) == 1
    optimizer = torch.optim.SGD(fast.model.parameters(), lr=0.5)
    for _ in range(4):  # fine-tuning with a query between steps, as defend's gradient choice does
        fast.model.train()
        loss = fast.model(**fast.encode(SENTENCES)).logits.sum()
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        assert torch.allclose(fast(SENTENCES), plain(SENTENCES), atol=1e-5, rtol=0)
    assert len(exports) == 1  # torch answered while the weights moved
    fast(SENTENCES)
    assert len(exports) == 2 and fast.onnx.session is not None  # settled: exported again
    assert torch.allclose(fast(SENTENCES), plain(SENTENCES), atol=1e-5, rtol=0)


def test_a_graph_that_fails_or_disagrees_leaves_torch_answering(monkeypatch, caplog):
    from textattack_secondorder.models import onnx_forward

    def broken(*a, **k):
        raise RuntimeError("unsupported operator")

    fast, plain = wrappers("bert")
    monkeypatch.setattr(torch.onnx, "export", broken)
    with caplog.at_level(logging.WARNING):
        assert torch.equal(fast(SENTENCES), plain(SENTENCES))
    assert "export failed" in caplog.text and fast.runtime_in_use() == "torch"
    monkeypatch.undo()

    fast, plain = wrappers("bert")
    monkeypatch.setattr(onnx_forward, "TOLERANCE", -1.0)  # no graph can pass: the check is what refuses it
    assert torch.equal(fast(SENTENCES), plain(SENTENCES))
    assert "differ from torch" in fast.onnx.failed


def test_runtime_choice_and_a_pickled_copy(monkeypatch):
    from textattack_secondorder.models.onnx_forward import RUNTIME_ENV
    from textattack_secondorder.models.wrappers import SOModelWrapper

    model, tok = tiny_classifier("bert")
    monkeypatch.setenv(RUNTIME_ENV, "torch")
    assert SOModelWrapper(model, tok, device="cpu").onnx is None
    monkeypatch.setenv(RUNTIME_ENV, "tensorrt")
    with pytest.raises(ValueError, match="victim runtime 'tensorrt'"):
        SOModelWrapper(model, tok, device="cpu")
    monkeypatch.delenv(RUNTIME_ENV)
    fast = SOModelWrapper(model, tok, device="cpu")
    expected = fast(SENTENCES)
    copy = pickle.loads(pickle.dumps(fast))
    assert copy.onnx.session is None
    assert torch.allclose(copy(SENTENCES), expected, atol=1e-5, rtol=0) and copy.onnx.session is not None


def test_token_classifier_forwards_use_onnxruntime_with_torchs_answers(monkeypatch):
    """κ, ρ and SP-Attack's forward checks (``TokenClassifier``) go the same way; train mode stays in torch."""
    from textattack_secondorder.models.onnx_forward import RUNTIME_ENV
    from textattack_secondorder.models.token_classifier import TokenClassifier

    model, tok = tiny_classifier("minilm")
    fast = TokenClassifier(model, tok, device="cpu", batch_size=3)
    monkeypatch.setenv(RUNTIME_ENV, "torch")
    plain = TokenClassifier(model, tok, device="cpu", batch_size=3)
    assert plain.onnx is None and fast.onnx is not None
    rows = torch.randint(5, len(tok.get_vocab()), (7, 9))
    assert torch.allclose(fast.predict(rows), plain.predict(rows), atol=1e-6, rtol=0)
    assert fast.onnx.session is not None
    assert torch.equal(fast.predict_labels(rows), plain.predict_labels(rows))
    model.train()  # dropout on: only torch can answer as the model now would
    assert fast.onnx.logits({"input_ids": rows, "attention_mask": torch.ones_like(rows)}) is None


def test_a_graph_exported_on_one_text_answers_a_batch():
    fast, plain = wrappers("roberta")
    assert torch.allclose(fast(SENTENCES[:1]), plain(SENTENCES[:1]), atol=1e-5, rtol=0)
    assert fast.onnx.session is not None
    assert torch.allclose(fast(SENTENCES * 3), plain(SENTENCES * 3), atol=1e-5, rtol=0)
