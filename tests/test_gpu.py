"""The commands that run a model, on CUDA (mark ``gpu``; skipped where no CUDA device is present).

Each runs a tiny model built here with ``--device cuda`` and compares with the same run on the CPU
(equal, or within float tolerance where a GPU's sums round differently), and checks that the model,
its batches and its gradients were on the GPU. Run them on a GPU machine with ``python -m pytest -m gpu``
(``scripts/offline_node/gpu_session.sh`` does, first).
"""

import copy
import json
import os

import numpy as np
import pytest
import torch

from conftest import tiny_word_cnn, write_tiny_bert
from test_sp_defense_parts import BERT_VOCAB as VOCAB  # the part-by-part tests' tiny vocabulary and sentences
from test_sp_defense_parts import DATA, WORDS

# TA_SO_GPU_TEST_DEVICE=cpu runs the same tests on the CPU (a dry run of the tests themselves)
GPU = os.environ.get("TA_SO_GPU_TEST_DEVICE", "cuda")
pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(GPU.startswith("cuda") and not torch.cuda.is_available(), reason="needs a CUDA device"),
]


@pytest.fixture()
def bert_dir(tmp_path):
    from transformers import BertForSequenceClassification

    settings = {"model_max_length": 32, "num_labels": 2, "initializer_range": 0.5}
    return write_tiny_bert(tmp_path / "bert", VOCAB, BertForSequenceClassification, **settings)


@pytest.fixture()
def data_csv(tmp_path):
    import pandas as pd

    path = tmp_path / "data.csv"
    pd.DataFrame({"text": [t for t, _ in DATA] * 2, "label": [y for _, y in DATA] * 2}).to_csv(path, index=False)
    return path


def on_cuda(model):
    return next(model.parameters()).device.type == torch.device(GPU).type


def run_cli(*argv):
    from textattack_secondorder.cli import main

    assert main([str(a) for a in argv]) == 0


def test_wrapper_predictions_equal_the_cpu(bert_dir):
    from textattack_secondorder.models.loading import load_model_wrapper

    texts = [t for t, _ in DATA]
    cpu = load_model_wrapper(str(bert_dir), "cpu")(texts)
    gpu_wrapper = load_model_wrapper(str(bert_dir), GPU)
    assert on_cuda(gpu_wrapper.model)
    torch.testing.assert_close(gpu_wrapper(texts), cpu, atol=1e-4, rtol=1e-4)
    half = load_model_wrapper(str(bert_dir), GPU, dtype="float16")
    assert half.model.dtype == torch.float16
    assert (half(texts).argmax(1) == cpu.argmax(1)).float().mean() >= 0.8


def test_train_victims_trains_on_the_gpu():
    from textattack_secondorder.models.prediction import predict_logits
    from textattack_secondorder.models.training import train_word_model

    words = WORDS + ["acting", "an"]
    glove = (words, np.random.default_rng(0).normal(size=(len(words), 8)).astype("float32"))
    data = DATA * 5
    out = {}
    for device in ("cpu", GPU):
        # no dropout: its masks come from each device's own random generator (with it, two H200 sessions saw
        # logits 0.15 apart and test accuracies 0.83 / 0.5 on these 6 sentences); the batch order is drawn on
        # the host, so without dropout the two runs differ by float rounding only
        model, tok, metrics = train_word_model(
            "cnn", data, DATA, glove=glove, epochs=2, progress=False, device=device, dropout=0.0
        )
        out[device] = (model.to("cpu"), tok, metrics)
    assert out[GPU][2]["device"].startswith(torch.device(GPU).type)
    texts = [t for t, _ in DATA]
    cpu_logits = predict_logits(out["cpu"][0], out["cpu"][1], texts, device="cpu")
    gpu_logits = predict_logits(out[GPU][0], out[GPU][1], texts, device="cpu")
    torch.testing.assert_close(torch.as_tensor(gpu_logits), torch.as_tensor(cpu_logits), atol=1e-2, rtol=1e-2)
    assert out["cpu"][2]["test_accuracy"] == out[GPU][2]["test_accuracy"]


def test_minilm_style_fine_tuning_on_the_gpu(bert_dir):
    from textattack_secondorder.models.training import train_minilm

    model, _, metrics = train_minilm(DATA * 4, DATA, model_path=bert_dir, epochs=1, batch_size=8, progress=False)
    assert metrics["device"].startswith(torch.device(GPU).type) and on_cuda(model)
    cpu_model, _, cpu_metrics = train_minilm(
        DATA * 4, DATA, model_path=bert_dir, epochs=1, batch_size=8, progress=False, device="cpu"
    )
    assert abs(cpu_metrics["test_accuracy"] - metrics["test_accuracy"]) <= 1 / len(DATA)


@pytest.mark.parametrize("candidates", [1, 4])
def test_defend_augments_the_same_batches_on_the_gpu(candidates):
    """The token-id augmentation on CUDA equals the CPU one on the same model (row for row)."""
    from textattack_secondorder.augmentation.augmented_batches import batch_modes
    from textattack_secondorder.augmentation.token_augmenter import TokenAugmenter
    from textattack_secondorder.augmentation.vocabulary import augmentation_vocabulary, special_word_table
    from textattack_secondorder.models.token_classifier import TokenClassifier

    out = {}
    for device in ("cpu", GPU):
        wrapper = tiny_word_cnn(WORDS)
        clf = TokenClassifier.from_model_wrapper(wrapper, device=device)
        vocab = augmentation_vocabulary(clf, DATA)
        aug = TokenAugmenter(clf, DATA * 3, vocab, special_word_table(DATA), candidates, seed=0)
        rng = __import__("random").Random(0)
        batches = []
        for _ in range(10):
            rows = [rng.randrange(len(DATA) * 3) for _ in range(8)]
            ids, mask = aug.augment_batch(rows, batch_modes("sp-defense", 8, rng))
            assert ids.device.type == torch.device(device).type
            batches.append((ids.cpu(), mask.cpu()))
        out[device] = batches
    same = sum(torch.equal(a[0], b[0]) and torch.equal(a[1], b[1]) for a, b in zip(out["cpu"], out[GPU]))
    assert same >= 9, same  # a near-tie of Eq. 5 may round the other way on a GPU


def test_defend_command_trains_on_the_gpu(tmp_path, bert_dir, data_csv):
    out = tmp_path / "defended"
    run_cli(
        "defend", "--model", bert_dir, "--dataset", data_csv, "--steps", 5, "--batch-size", 4, "--device", GPU,
        "--out", out,
    )  # fmt: skip
    info = json.loads((out / "defense.json").read_text())
    assert info["device"].startswith(torch.device(GPU).type) and info["dtype"] == "float32"


@pytest.mark.parametrize("method", ["euba", "brute"])
def test_flip_capability_on_the_gpu_equals_the_cpu(bert_dir, method):
    from textattack_secondorder.evaluation.flip_capability import compute_flip_capability
    from textattack_secondorder.models.loading import load_model_wrapper

    results = {}
    for device in ("cpu", GPU):
        wrapper = load_model_wrapper(str(bert_dir), device)
        results[device] = compute_flip_capability(
            wrapper, DATA, method=method, m=None, batch_size=16, device=device, progress=False
        )
    assert results[GPU].metric.num_correct == results["cpu"].metric.num_correct
    agree = (results[GPU].metric.counts == results["cpu"].metric.counts).mean()
    assert agree >= 0.98, agree  # a prediction on a near-tie may round the other way
    assert abs(results[GPU].rho - results["cpu"].rho) <= 0.02


def test_flip_capability_command_on_the_gpu(tmp_path, bert_dir, data_csv):
    out = tmp_path / "k.json"
    run_cli(
        "flip-capability", "--model", bert_dir, "--dataset", data_csv, "--num-examples", 6, "-m", 8,
        "--device", GPU, "--model-batch-size", 32, "--out", out,
    )  # fmt: skip
    cpu = tmp_path / "k_cpu.json"
    run_cli(
        "flip-capability", "--model", bert_dir, "--dataset", data_csv, "--num-examples", 6, "-m", 8,
        "--device", "cpu", "--model-batch-size", 32, "--out", cpu,
    )  # fmt: skip
    a, b = json.loads(out.read_text())["summary"], json.loads(cpu.read_text())["summary"]
    assert abs(a["rho"] - b["rho"]) <= 0.05


def test_sp_augment_command_on_the_gpu(tmp_path, bert_dir, data_csv):
    import pandas as pd

    outs = {}
    for k, device in enumerate(("cpu", GPU)):
        outs[device] = tmp_path / f"aug_{k}.csv"
        run_cli(
            "sp-augment", "--input-csv", data_csv, "--output-csv", outs[device], "--mode", "gradient",
            "--model", bert_dir, "--device", device,
        )  # fmt: skip
    a, b = pd.read_csv(outs["cpu"]), pd.read_csv(outs[GPU])
    assert (a["text"] == b["text"]).mean() >= 0.9


def test_token_classifier_gradients_on_the_gpu(bert_dir):
    from textattack_secondorder.models.loading import load_model_wrapper
    from textattack_secondorder.models.token_classifier import TokenClassifier

    grads = {}
    for device in ("cpu", GPU):
        clf = TokenClassifier.from_model_wrapper(load_model_wrapper(str(bert_dir), device), device=device)
        ids, positions = clf.encode("the film was good")
        logp, g = clf.masked_gradients(ids, positions, 1, as_numpy=False)
        assert g.device.type == torch.device(device).type
        grads[device] = g.cpu()
    torch.testing.assert_close(grads[GPU], grads["cpu"], atol=1e-4, rtol=1e-3)


def test_wrapper_is_the_one_sweeps_and_bias_use(bert_dir):
    """bias / robustness / attack-sweep / check load their victim with load_model_wrapper(spec, device):
    on CUDA the wrapper's model and its outputs' device agree with what TextAttack expects (CPU logits)."""
    from textattack_secondorder.models.loading import load_model_wrapper

    wrapper = load_model_wrapper(str(bert_dir), GPU, 4)
    logits = wrapper([t for t, _ in DATA])
    assert logits.device.type == "cpu" and on_cuda(wrapper.model) and wrapper.batch_size == 4


def test_the_causal_lm_follows_the_device_rule_and_scores_as_on_the_cpu():
    """The causal LM behind the patch judge, the natural neighbour rule's budget and the perplexity rows runs on
    TextAttack's device (a GPU when there is one: it stayed on the CPU before), and its log-likelihood
    differences, perplexities and the judge's causal signals equal the CPU's within float tolerance."""
    from transformers import GPT2Config, GPT2LMHeadModel

    from conftest import bert_tokenizer
    from textattack_secondorder.constraints.swap_signals import causal_signals
    from textattack_secondorder.resources.perplexity import CausalLMScorer

    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "the", "film", "movie", "was", "very", "good", "fine"]
    vocab += ["and", "long", "dull"]
    tok = bert_tokenizer(vocab)
    tok.bos_token = "[CLS]"
    torch.manual_seed(0)
    model = GPT2LMHeadModel(GPT2Config(vocab_size=len(vocab), n_positions=32, n_embd=16, n_layer=2, n_head=2)).eval()
    cpu = CausalLMScorer(copy.deepcopy(model), tok, device="cpu")
    if GPU.startswith("cuda"):  # no device named: the default rule picks the GPU
        assert CausalLMScorer(copy.deepcopy(model), tok).device.type == "cuda"
    gpu = CausalLMScorer(model, tok, device=GPU)
    assert on_cuda(gpu.model)
    ref = "the film was very good and long"
    texts = ["the movie was very good and long", "the film was very fine and long", "the film was very dull"]
    np.testing.assert_allclose(
        gpu.log_likelihood_differences(ref, texts), cpu.log_likelihood_differences(ref, texts), atol=1e-3
    )
    np.testing.assert_allclose(gpu.perplexity([ref, *texts]), cpu.perplexity([ref, *texts]), rtol=1e-3)
    np.testing.assert_allclose(causal_signals(gpu, ref, texts), causal_signals(cpu, ref, texts), atol=1e-3)


def test_so_beam_with_the_natural_neighbour_rule_on_the_gpu_equals_the_cpu(bert_dir, tmp_path, monkeypatch):
    """so-beam with every model it runs on the GPU — the victim, the masked LM of the neighbourhood and the causal
    LM of the natural neighbour rule — reports what the same attack reports on the CPU."""
    import textattack
    from transformers import GPT2Config, GPT2LMHeadModel

    from conftest import bert_tokenizer, write_tiny_mlm
    from textattack_secondorder.attack_recipes import SOBeam
    from textattack_secondorder.constraints import neighbor_part_of_speech
    from textattack_secondorder.models.loading import load_model_wrapper
    from textattack_secondorder.resources.perplexity import CausalLMScorer
    from textattack_secondorder.resources.proposers import MaskedLMProposer
    from textattack_secondorder.sweeps.task import textattack_device

    class OneTag:  # the part-of-speech check passes every word (spaCy is no part of the GPU image)
        def tags(self, attacked_text):
            return ("NN",) * len(attacked_text.words)

        def tag_many(self, texts):
            return [self.tags(t) for t in texts]

    monkeypatch.setattr(neighbor_part_of_speech, "load_pos_tagger", OneTag)
    mlm = write_tiny_mlm(tmp_path / "mlm", VOCAB)  # a whole masked LM: no head drawn at random on loading
    tok = bert_tokenizer(VOCAB)
    tok.bos_token = "[CLS]"
    torch.manual_seed(0)
    lm = GPT2LMHeadModel(GPT2Config(vocab_size=len(VOCAB), n_positions=32, n_embd=16, n_layer=2, n_head=2)).eval()
    synonyms = {"good": ["fine", "great"], "film": ["movie"], "movie": ["film"], "dull": ["bad"], "awful": ["bad"]}
    sentences = [(t, y) for t, y in DATA if any(w in synonyms for w in t.split())]
    found = {}

    def attack_with(device, victim_device):
        attack = SOBeam.build(
            load_model_wrapper(str(bert_dir), victim_device),
            synonyms=synonyms,
            masked_lm=MaskedLMProposer(str(mlm), device=device),
            causal_lm=CausalLMScorer(copy.deepcopy(lm), tok, device=device),
            patch_rule="paper",
            neighbor_lm_budget=3.0,
            perplexity=False,
            device=device,
        )
        args = textattack.AttackArgs(num_examples=len(sentences), disable_stdout=True, silent=True)
        results = textattack.Attacker(attack, textattack.datasets.Dataset(sentences), args).attack_dataset()
        return attack, [(type(r).__name__, r.perturbed_result.attacked_text.text) for r in results]

    for device in ("cpu", GPU):
        with textattack_device(device):  # as attack-sweep --device does: TextAttack moves the models there
            attack, found[device] = attack_with(device, device)
        assert on_cuda(attack.goal_function.model.model) == (device == GPU)
    # without it TextAttack moves a victim loaded on the CPU to its own device: the wrapper's inputs follow
    attack, moved = attack_with(GPU, "cpu")
    assert moved == found[GPU]
    assert found[GPU] == found["cpu"]
    assert any(kind == "SuccessfulAttackResult" for kind, _ in found["cpu"]), found["cpu"]
