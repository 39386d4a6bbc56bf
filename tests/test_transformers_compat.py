"""What keeps the package working on transformers 4.57 and 5.x (scripts/check_transformers5.sh runs the suite on 5)."""

import sys
import types

import pytest

from textattack_secondorder.plugin import hook


def _fake_transformers(monkeypatch, version, **names):
    fake = types.ModuleType("transformers")
    fake.__version__ = version
    for k, v in names.items():
        setattr(fake, k, v)
    monkeypatch.setitem(sys.modules, "transformers", fake)
    monkeypatch.delitem(sys.modules, "flair", raising=False)
    return fake


def test_flair_name_defined_on_transformers_5_only_when_missing(monkeypatch):
    class ImageProcessor:
        pass

    class Pil:
        pass

    fake = _fake_transformers(monkeypatch, "5.3.0", LayoutLMv2ImageProcessor=ImageProcessor)
    assert hook.define_names_flair_imports() is ImageProcessor
    assert fake.LayoutLMv2FeatureExtractor is ImageProcessor
    assert hook.define_names_flair_imports() is None  # present now: left alone
    fake = _fake_transformers(
        monkeypatch, "5.24.0", LayoutLMv2ImageProcessor=ImageProcessor, LayoutLMv2ImageProcessorPil=Pil
    )
    assert hook.define_names_flair_imports() is Pil and fake.LayoutLMv2FeatureExtractor is Pil

    class Own:
        pass

    fake = _fake_transformers(monkeypatch, "5.3.0", LayoutLMv2FeatureExtractor=Own)
    assert hook.define_names_flair_imports() is None and fake.LayoutLMv2FeatureExtractor is Own


def test_flair_name_without_vision_support_is_a_class_nothing_is_an_instance_of(monkeypatch):
    fake = _fake_transformers(monkeypatch, "5.0.0")
    stand_in = hook.define_names_flair_imports()
    assert isinstance(stand_in, type) and fake.LayoutLMv2FeatureExtractor is stand_in
    assert not isinstance(object(), stand_in)


def test_nothing_changes_on_transformers_4_or_once_flair_is_imported(monkeypatch):
    fake = _fake_transformers(monkeypatch, "4.57.6")
    assert hook.define_names_flair_imports() is None and not hasattr(fake, "LayoutLMv2FeatureExtractor")
    fake = _fake_transformers(monkeypatch, "5.3.0")
    monkeypatch.setitem(sys.modules, "flair", types.ModuleType("flair"))
    assert hook.define_names_flair_imports() is None and not hasattr(fake, "LayoutLMv2FeatureExtractor")


def test_real_transformers_and_textattack_import():
    """After ``import textattack`` (flair included) the name exists; on transformers 4 it is transformers' own."""
    import textattack  # noqa: F401
    import transformers

    assert "flair" in sys.modules
    obj = sys.modules["transformers"].LayoutLMv2FeatureExtractor
    if int(transformers.__version__.split(".")[0]) < 5:
        assert obj.__module__.startswith("transformers.")


@pytest.mark.parametrize("arch", ["cnn", "lstm", "bow"])
def test_word_model_configs_keep_their_fields_and_round_trip(tmp_path, arch):
    from transformers import AutoConfig

    from textattack_secondorder.models.word_models import ARCHITECTURES, register_auto_classes

    register_auto_classes()
    config_cls, _ = ARCHITECTURES[arch]
    cfg = config_cls(vocab_size=7, embedding_dim=8, hidden_size=5)
    assert (cfg.vocab_size, cfg.embedding_dim, cfg.hidden_size, cfg.pad_token_id, cfg.num_labels) == (7, 8, 5, 0, 2)
    assert cfg.kernel_size == 3 and cfg.dropout == 0.5
    cfg.save_pretrained(tmp_path)
    back = AutoConfig.from_pretrained(tmp_path)
    assert type(back) is config_cls
    assert (back.vocab_size, back.embedding_dim, back.hidden_size, back.pad_token_id) == (7, 8, 5, 0)


def test_bert_tokenizer_helper_reads_every_word(tmp_path):
    from conftest import bert_tokenizer

    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "the", "film", "un", "##watch", "##able"]
    tok = bert_tokenizer(vocab, model_max_length=16)
    ids = tok("The film unwatchable")["input_ids"]
    assert tok.convert_ids_to_tokens(ids) == ["[CLS]", "the", "film", "un", "##watch", "##able", "[SEP]"]
    assert (tok.pad_token_id, tok.mask_token_id, tok.model_max_length, len(tok)) == (0, 4, 16, len(vocab))
    tok.save_pretrained(tmp_path)
    from transformers import AutoTokenizer

    assert AutoTokenizer.from_pretrained(tmp_path)("the film")["input_ids"] == tok("the film")["input_ids"]
