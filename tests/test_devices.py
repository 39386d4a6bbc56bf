"""Where a model runs and in what precision: --device / --dtype on every command that runs a model,
float32 by default on every load (also for a checkpoint saved in float16), flip capability's batches on
the model's device with the same results, and ρ's standard error over sentences. The same commands on
CUDA: tests/test_gpu.py (mark ``gpu``)."""

import math
import random

import numpy as np
import pytest
import torch

from conftest import tiny_word_cnn, write_tiny_bert

WORDS = ["good", "bad", "film", "movie", "plot", "great", "dull", "fine", "awful", "story", "the", "a", "is", "was"]


def test_torch_dtype_names_and_default():
    from textattack_secondorder.shared.device import DTYPES, torch_dtype

    assert torch_dtype() is torch.float32 and torch_dtype(None) is torch.float32
    assert [torch_dtype(d) for d in DTYPES] == [torch.float32, torch.bfloat16, torch.float16]
    assert torch_dtype("fp16") is torch.float16 and torch_dtype(torch.bfloat16) is torch.bfloat16
    with pytest.raises(ValueError, match="unknown dtype"):
        torch_dtype("int8")


def test_a_half_precision_checkpoint_loads_as_float32_unless_asked(tmp_path):
    from transformers import BertForSequenceClassification

    from textattack_secondorder.models.loading import load_model_wrapper

    folder = write_tiny_bert(tmp_path / "bert", ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] + WORDS, num_labels=2)
    model = BertForSequenceClassification.from_pretrained(str(folder)).half()
    model.save_pretrained(str(folder))  # a float16 checkpoint, as an offline bundle carries MiniLM
    assert load_model_wrapper(str(folder)).model.dtype == torch.float32
    assert load_model_wrapper(str(folder), dtype="bfloat16").model.dtype == torch.bfloat16


@pytest.mark.parametrize(
    "argv",
    [
        ["train-victims", "--device", "cpu"],
        ["defend", "--model", "m", "--out", "o", "--device", "cpu", "--dtype", "bfloat16", "--model-batch-size", "8"],
        ["flip-capability", "--model", "m", "--device", "cpu", "--dtype", "float16", "--vocab-from", "mr"],
        ["sp-augment", "--input-csv", "a", "--output-csv", "b", "--device", "cpu", "--model-batch-size", "8"],
        ["bias", "--model", "m", "--device", "cpu", "--dtype", "float32"],
        ["robustness", "--model", "m", "--device", "cpu", "--dtype", "float32"],
        ["attack-sweep", "--models", "m", "--recipes", "so-beam", "--device", "cpu"],
    ],
)
def test_every_command_that_runs_a_model_takes_device(argv, capfd):
    from textattack_secondorder.cli import build_parser

    args = build_parser().parse_args(argv)  # the whole line: an unknown option would be an error here
    assert args.device == "cpu"
    if "dtype" in vars(args):  # a command that loads a model for inference also takes its precision
        assert args.dtype == (argv[argv.index("--dtype") + 1] if "--dtype" in argv else "float32")
    with pytest.raises(SystemExit) as e:  # and an unknown precision is refused by every one of them
        build_parser().parse_args(argv + ["--dtype", "int8"])
    assert e.value.code == 2 and "int8" in capfd.readouterr().err


def test_bad_dtype_is_a_one_line_usage_error(capfd):
    from textattack_secondorder.cli import main

    with pytest.raises(SystemExit) as e:
        main(["defend", "--model", "m", "--out", "o", "--dtype", "int8"])
    assert e.value.code == 2 and len(capfd.readouterr().err.strip().splitlines()) == 1


def test_word_model_training_on_a_device_records_it():
    from textattack_secondorder.models.training import accuracy, train_word_model

    words = WORDS + ["acting", "an"]
    glove = (words, np.random.default_rng(0).normal(size=(len(words), 8)).astype("float32"))
    data = [("the film was good", 1), ("a bad plot", 0), ("great story", 1), ("an awful movie", 0)] * 5
    devices = []  # where every module's output was computed while training

    def record(module, args, output):
        output = getattr(output, "logits", output)
        if isinstance(output, torch.Tensor):
            devices.append(output.device.type)

    hook = torch.nn.modules.module.register_module_forward_hook(record)
    try:
        model, tok, metrics = train_word_model(
            "cnn", data, data[:4], glove=glove, epochs=5, progress=False, device="cpu"
        )
    finally:
        hook.remove()
    assert devices and set(devices) == {"cpu"}  # every batch ran where it was asked to
    assert metrics["device"] == "cpu" == next(model.parameters()).device.type  # and the record says so
    assert metrics["test_accuracy"] == accuracy(model, tok, data[:4]) == 1.0  # it learned the four sentences
    assert metrics["n_train"] + metrics["n_dev"] == len(data) and metrics["best_epoch"] >= 1


# ----------------------------------------------------------------------------- flip capability
def sequential_walk(candidates, flipped_of, success, limit):
    """The rule of docs/design/single-word.md written one candidate at a time (the implementation before batching)."""
    queries, fails = 0, 0
    for w in candidates:
        if success[w]:
            continue
        queries += 1
        if flipped_of[w]:
            success[w] = True
            fails = 0
        else:
            fails += 1
            if fails >= limit:
                return queries, True
    return queries, False


@pytest.mark.parametrize("limit", [1, 3, 7, math.inf])
def test_batched_walk_follows_the_sequential_early_stop_rule(limit):
    from textattack_secondorder.evaluation.flip_capability.computation import _walk

    rng = random.Random(limit if limit != math.inf else 99)
    for _ in range(200):
        V = rng.randint(1, 12)
        words = np.array([rng.randrange(V) for _ in range(rng.randint(1, 40))])
        flips = {w: rng.random() < 0.3 for w in range(V)}
        expect = np.zeros(V, dtype=bool)
        q_ref, stopped_ref = sequential_walk(words, flips, expect, limit)
        got, q, fails, stopped = np.zeros(V, dtype=bool), 0, 0, False
        for s in range(0, len(words), 5):  # blocks of 5, as batches of the model batch size
            w = words[s : s + 5]
            w = w[~got[w]]
            if not len(w):
                continue
            dq, fails, stopped = _walk(w, np.array([flips[int(x)] for x in w]), got, fails, limit)
            q += dq
            if stopped:
                break
        assert (got == expect).all() and q == q_ref and stopped == stopped_ref


def test_rho_standard_error_is_over_sentences():
    from textattack_secondorder.evaluation.flip_capability.result import FlipCapability

    m = FlipCapability(["a", "b", "c", "d"], 2)
    for flips in ([0], [0, 1, 2], [], [3]):
        m.update(flips, 0)
    share = np.array([1, 3, 0, 1]) / 4
    assert m.rho == pytest.approx(1 - share.mean())
    assert m.rho_standard_error == pytest.approx(share.std(ddof=1) / 2)
    again = FlipCapability.from_state(m.state())
    assert again.rho_standard_error == pytest.approx(m.rho_standard_error)


def test_vocab_from_keeps_the_words_of_the_training_sentences(tmp_path):
    import pandas as pd

    from textattack_secondorder.evaluation.flip_capability.computation import KappaSetup

    csv = tmp_path / "train.csv"
    pd.DataFrame({"text": ["the film was good", "a dull plot"], "label": [1, 0]}).to_csv(csv, index=False)
    setup = KappaSetup(tiny_word_cnn(WORDS), vocab_from=str(csv))
    assert sorted(setup.words) == ["a", "dull", "film", "good", "plot", "the", "was"]
    assert setup.emb_v_minus_mask.shape[0] == 7
