"""Test set-up: no network, caches in a temporary folder, and a temporary home.

Set before anything imports TextAttack/transformers, so every test (and every
subprocess started with ``offline_env()``) runs offline. ``HOME`` points into the
temporary folder too: Ray writes ``~/.ray/auth_token`` when a test starts a local
cluster, onnxruntime a telemetry database under ``~/.cache``; neither lands in the
user's home.
"""

import os
import sys
import tempfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

_CALLER_CACHE = os.environ.get("TA_CACHE_DIR")
_CACHE = tempfile.mkdtemp(prefix="ta-so-tests-")
OFFLINE = {
    "HF_HUB_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "HF_DATASETS_OFFLINE": "1",
    "TA_SO_OFFLINE": "1",
    "TA_CACHE_DIR": os.path.join(_CACHE, "textattack"),
    "TA_SO_CACHE_DIR": os.path.join(_CACHE, "secondorder"),
    "TOKENIZERS_PARALLELISM": "false",
    "WANDB_DISABLED": "true",
    "HOME": os.path.join(_CACHE, "home"),
}
os.makedirs(OFFLINE["HOME"], exist_ok=True)
os.environ.update(OFFLINE)
# Where the caller's TextAttack cache says TextAttack's first-import step (six NLTK downloads) is done, as the
# offline bundle's runner marks it on a node without a network (the downloads could stall there), so is the
# tests' cache.
if _CALLER_CACHE and os.path.exists(os.path.join(_CALLER_CACHE, "post_install_check_3")):
    os.makedirs(OFFLINE["TA_CACHE_DIR"], exist_ok=True)
    open(os.path.join(OFFLINE["TA_CACHE_DIR"], "post_install_check_3"), "w").close()


def offline_env(**extra):
    """Environment for subprocesses: the current one, offline, plus ``extra``."""
    env = dict(os.environ)
    env.update(OFFLINE)
    env.update({k: str(v) for k, v in extra.items()})
    return env


def console_script(name):
    """Path of a console script installed beside the running interpreter."""
    path = Path(sys.executable).parent / name
    if not path.exists():
        pytest.skip(f"console script {name!r} not installed next to {sys.executable}")
    return str(path)


def stock_textattack(capfd, *argv):
    """Run the stock ``textattack ARGV`` command line in this process; returns ``(exit code, stdout, stderr)``.

    Same parser, same commands, same extensions as the console script (the start-up hook
    registered them when this process imported TextAttack), without paying a new process's
    TextAttack import (minutes on a machine whose page cache is reclaimed). The console script
    itself is run by ``.ci/wheel_smoke.sh`` and by the slow tests. An uncaught exception is
    returned as exit code 1 with its traceback on stderr, as the console script would show it.
    """
    import traceback

    from textattack.commands.textattack_cli import main

    capfd.readouterr()
    argv_before, code = sys.argv, 0
    sys.argv = ["textattack", *map(str, argv)]
    try:
        main()
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    except Exception:  # noqa: BLE001 - reported like the console script would
        code = 1
        print(traceback.format_exc(), file=sys.stderr)
    finally:
        sys.argv = argv_before
    out, err = capfd.readouterr()
    return code, out, err


def bert_tokenizer(vocab, lowercase=True, **kwargs):
    """A ``BertTokenizerFast`` whose vocabulary is the list ``vocab`` (ids in list order), on transformers 4 and 5.

    Build every test's BERT tokenizer here. ``BertTokenizerFast(vocab_file=...)`` is silently ignored
    by transformers 5 (its argument became ``vocab=``, a dict, which 4 does not have): the
    tokenizer would have 5 tokens and read every word as ``[UNK]``. Both versions honour a
    ready ``tokenizers.Tokenizer`` passed as ``tokenizer_object``, built here as BERT's own
    (WordPiece, BERT normaliser and pre-tokeniser, ``[CLS] A [SEP]`` template). ``kwargs`` go to
    ``BertTokenizerFast`` (e.g. ``model_max_length``). Self-contained (no module-level names), so
    that ``tiny_bert_source`` can paste it into a model file.
    """
    from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, processors
    from transformers import BertTokenizerFast

    ids = {}
    for word in vocab:
        ids.setdefault(word, len(ids))
    backend = Tokenizer(models.WordPiece(ids, unk_token="[UNK]"))
    backend.normalizer = normalizers.BertNormalizer(
        clean_text=True, handle_chinese_chars=True, strip_accents=None, lowercase=lowercase
    )
    backend.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    backend.decoder = decoders.WordPiece(prefix="##")
    backend.post_processor = processors.TemplateProcessing(
        single="[CLS]:0 $A:0 [SEP]:0",
        pair="[CLS]:0 $A:0 [SEP]:0 $B:1 [SEP]:1",
        special_tokens=[("[CLS]", ids["[CLS]"]), ("[SEP]", ids["[SEP]"])],
    )
    return BertTokenizerFast(tokenizer_object=backend, do_lower_case=lowercase, **kwargs)


def tiny_bert_source(vocab, sleep=0.0, max_length=None):
    """Source of a ``--model`` file: a tiny 2-class BERT over ``vocab`` (seeded), each forward sleeping ``sleep`` s.

    Flip capability needs gradients through input embeddings, so the long commands get a real
    (tiny) transformer; the sleep makes a run last long enough to be killed midway. TextAttack's
    wrapper pads every call to the tokenizer's ``model_max_length`` (512 here): ``max_length``
    lowers it, which makes attacks on the tiny model many times faster.
    """
    import inspect

    limit = f"tok.model_max_length = {int(max_length)}\n" if max_length else ""
    return (
        inspect.getsource(bert_tokenizer)
        + f"""
import time, torch, textattack
from transformers import BertConfig, BertForSequenceClassification
torch.set_num_threads(1)
VOCAB = {list(vocab)!r}
class TinyBert(BertForSequenceClassification):
    def forward(self, *a, **k):
        time.sleep({float(sleep)!r})
        return super().forward(*a, **k)
tok = bert_tokenizer(VOCAB)
{limit}torch.manual_seed(0)
cfg = BertConfig(vocab_size=len(VOCAB), hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
                 intermediate_size=32, max_position_embeddings=512, num_labels=2, initializer_range=0.5)
model = textattack.models.wrappers.HuggingFaceModelWrapper(TinyBert(cfg).eval(), tok)
"""
    )


def write_tiny_bert(folder, vocab, model_class=None, model_max_length=64, **config):
    """A tiny seeded BERT over ``vocab`` (``model_class``, default ``BertForMaskedLM``) and its tokenizer,
    saved to ``folder`` as a Hugging Face model folder; ``config`` adds ``BertConfig`` fields."""
    import torch
    from transformers import BertConfig, BertForMaskedLM

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    tok = bert_tokenizer(vocab, model_max_length=model_max_length)
    torch.manual_seed(0)
    cfg = BertConfig(
        vocab_size=len(vocab),
        hidden_size=16,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=32,
        max_position_embeddings=64,
        **config,
    )
    (model_class or BertForMaskedLM)(cfg).eval().save_pretrained(folder)
    tok.save_pretrained(folder)
    return folder


def write_tiny_mlm(folder, vocab):
    """A tiny masked LM (seeded BERT over ``vocab``) saved to ``folder``, for the ``masked_lm=FOLDER`` slot value."""
    return write_tiny_bert(folder, vocab)


class Wrapper:
    """The two attributes TextAttack's model wrappers expose, around a model built in a test."""

    def __init__(self, model, tokenizer):
        self.model, self.tokenizer = model, tokenizer


def tiny_word_cnn(words):
    """A seeded word-CNN victim over ``words`` (8-d random vectors), wrapped like a TextAttack model wrapper."""
    import torch

    from textattack_secondorder.models.word_models import build_word_model, build_word_tokenizer

    tok = build_word_tokenizer(words)
    torch.manual_seed(0)
    model = build_word_model(
        "cnn", vocab_size=len(tok.get_vocab()), vectors=torch.randn(len(tok.get_vocab()), 8), embedding_dim=8
    ).eval()
    return Wrapper(model, tok)


@pytest.fixture
def repo():
    return REPO
