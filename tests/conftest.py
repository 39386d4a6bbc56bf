"""Test set-up: no network, caches in a temporary folder.

Set before anything imports TextAttack/transformers, so every test (and every
subprocess started with ``offline_env()``) runs offline.
"""
import os
import sys
import tempfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

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
}
os.environ.update(OFFLINE)


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


def tiny_bert_source(vocab, sleep=0.0, max_length=None):
    """Source of a ``--model`` file: a tiny 2-class BERT over ``vocab`` (seeded), each forward sleeping ``sleep`` s.

    Flip capability needs gradients through input embeddings, so the long commands get a real
    (tiny) transformer; the sleep makes a run last long enough to be killed midway. TextAttack's
    wrapper pads every call to the tokenizer's ``model_max_length`` (512 here): ``max_length``
    lowers it, which makes attacks on the tiny model many times faster.
    """
    limit = f"tok.model_max_length = {int(max_length)}\n" if max_length else ""
    return f'''
import os, tempfile, time, torch, textattack
from transformers import BertConfig, BertForSequenceClassification, BertTokenizerFast
torch.set_num_threads(1)
VOCAB = {list(vocab)!r}
class TinyBert(BertForSequenceClassification):
    def forward(self, *a, **k):
        time.sleep({float(sleep)!r})
        return super().forward(*a, **k)
d = tempfile.mkdtemp()
open(os.path.join(d, "vocab.txt"), "w").write("\\n".join(VOCAB) + "\\n")
tok = BertTokenizerFast(vocab_file=os.path.join(d, "vocab.txt"))
{limit}torch.manual_seed(0)
cfg = BertConfig(vocab_size=len(VOCAB), hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
                 intermediate_size=32, max_position_embeddings=512, num_labels=2, initializer_range=0.5)
model = textattack.models.wrappers.HuggingFaceModelWrapper(TinyBert(cfg).eval(), tok)
'''


def write_tiny_mlm(folder, vocab):
    """A tiny masked LM (seeded BERT over ``vocab``) saved to ``folder``, for the ``masked_lm=FOLDER`` slot value."""
    import torch
    from transformers import BertConfig, BertForMaskedLM, BertTokenizerFast

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "vocab.txt").write_text("\n".join(vocab) + "\n", encoding="utf-8")
    tok = BertTokenizerFast(vocab_file=str(folder / "vocab.txt"), model_max_length=64)
    torch.manual_seed(0)
    cfg = BertConfig(vocab_size=len(vocab), hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
                     intermediate_size=32, max_position_embeddings=64)
    BertForMaskedLM(cfg).eval().save_pretrained(folder)
    tok.save_pretrained(folder)
    return folder


@pytest.fixture
def repo():
    return REPO
