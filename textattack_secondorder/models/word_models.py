"""Word-level victim classifiers on frozen GloVe 50d, as Hugging Face ``PreTrainedModel`` classes.

The base models of the Double Perturbation paper (Zhang et al. 2021, "Double
Perturbation: On the Robustness of Robustness and Counterfactual Bias
Evaluation", NAACL) are a word CNN, an LSTM and a bag-of-words model whose
word vectors are GloVe and which have "one hidden layer of 100" units. Here:

* ``so-word-bow``:  mean of the word vectors -> Linear(50, 100) -> ReLU -> Linear(100, 2)
* ``so-word-cnn``:  Conv1d(50, 100, width 3) -> ReLU -> max over positions -> Linear(100, 2)
* ``so-word-lstm``: LSTM(50 -> 100) -> hidden state at the last real token -> Linear(100, 2)

With ``word_layer=True`` (the certified victims, docs/design/certified.md) every word vector first goes through
Linear(50, 100) -> ReLU on its own, and the layers above read those 100 numbers per word: the word-vector
layer of Jia et al. (2019)'s certified models, which lets interval bounds stay narrow (a unit that is off
for a word and all its neighbours contributes nothing to the box).

The embedding matrix (GloVe rows for the training vocabulary, zero rows for
``[PAD]``/``[UNK]``) is frozen and saved with the weights, so a model directory
is self-contained (config.json + model.safetensors + tokenizer.json) and loads
with ``AutoModelForSequenceClassification.from_pretrained`` once
:func:`register_auto_classes` has run - including through TextAttack's stock
``--model DIR``.

All three give the same logits for a sentence whether it is padded (on the
right) or not: padded positions are masked out of the pooling.
"""

import logging
import re

import torch
from tokenizers import Regex, Tokenizer, models, normalizers, pre_tokenizers
from torch import nn
from transformers import (
    AutoConfig,
    AutoModelForSequenceClassification,
    PretrainedConfig,
    PreTrainedModel,
    PreTrainedTokenizerFast,
)
from transformers.modeling_outputs import SequenceClassifierOutput

logger = logging.getLogger(__name__)

PAD_TOKEN = "[PAD]"
UNK_TOKEN = "[UNK]"
# Words, clitics as GloVe 6B has them ("does" "n't", "film" "'s"), single punctuation marks.
# Hyphenated compounds are split so that their parts find GloVe vectors.
PRETOKENIZE_PATTERN = r"n't|'\w+|\w+?(?=n't\b)|\w+|[^\w\s]"
DEFAULT_MAX_LENGTH = 64

# Zhang et al. 2021: "one hidden layer of 100".
HIDDEN_SIZE = 100
CNN_KERNEL_SIZE = 3
DROPOUT = 0.5


class _SOWordConfig(PretrainedConfig):
    """Shared settings of the word-level victims (one subclass per architecture).

    Every subclass spells out its ``__init__``: transformers 5 turns each config class into a
    dataclass, and gives a subclass without an ``__init__`` of its own a generated one that sets
    only the dataclass fields and never runs this ``__init__`` (no ``vocab_size``, ``pad_token_id``
    ...). On transformers 4 the explicit ``__init__`` changes nothing.
    """

    model_type = "so-word"

    def __init__(
        self,
        vocab_size=2,
        embedding_dim=50,
        hidden_size=HIDDEN_SIZE,
        kernel_size=CNN_KERNEL_SIZE,
        dropout=DROPOUT,
        num_labels=2,
        pad_token_id=0,
        word_layer=False,
        **kwargs,
    ):
        self.vocab_size = vocab_size
        self.embedding_dim = embedding_dim
        self.hidden_size = hidden_size
        self.kernel_size = kernel_size
        self.dropout = dropout
        self.word_layer = bool(word_layer)
        super().__init__(num_labels=num_labels, pad_token_id=pad_token_id, **kwargs)


class SOWordCNNConfig(_SOWordConfig):
    """``pool``: ``"max"`` over positions (the base CNN) or ``"mean"`` (Jia et al.'s certified CNN)."""

    model_type = "so-word-cnn"

    def __init__(self, pool="max", **kwargs):  # see _SOWordConfig
        if pool not in ("max", "mean"):
            raise ValueError(f"pool must be 'max' or 'mean', not {pool!r}")
        self.pool = pool
        super().__init__(**kwargs)


class SOWordLSTMConfig(_SOWordConfig):
    model_type = "so-word-lstm"

    def __init__(self, **kwargs):  # see _SOWordConfig
        super().__init__(**kwargs)


class SOWordBoWConfig(_SOWordConfig):
    model_type = "so-word-bow"

    def __init__(self, **kwargs):  # see _SOWordConfig
        super().__init__(**kwargs)


class _SOWordPreTrainedModel(PreTrainedModel):
    config_class = _SOWordConfig
    base_model_prefix = "so_word"
    main_input_name = "input_ids"

    def __init__(self, config):
        super().__init__(config)
        self.embeddings = nn.Embedding(config.vocab_size, config.embedding_dim, padding_idx=config.pad_token_id)
        self.embeddings.weight.requires_grad = False  # frozen GloVe
        self.dropout = nn.Dropout(config.dropout)
        self.classifier = nn.Linear(config.hidden_size, config.num_labels)
        # Jia et al.'s word-vector layer (certified victims): Linear -> ReLU on each word vector
        self.word_layer = nn.Linear(config.embedding_dim, config.hidden_size) if config.word_layer else None

    @property
    def word_dim(self):
        """Numbers per word that the encoder reads: the word vector's, or the word layer's."""
        return self.config.hidden_size if self.config.word_layer else self.config.embedding_dim

    def _init_weights(self, module):
        # Linear/LSTM/Conv keep PyTorch's default initialisation; the embedding is set from GloVe.
        pass

    @classmethod
    def from_pretrained(cls, *args, **kwargs):
        # transformers 5 loads the weights into new, trainable parameters: freeze GloVe again.
        loaded = super().from_pretrained(*args, **kwargs)
        model = loaded[0] if isinstance(loaded, tuple) else loaded
        model.embeddings.weight.requires_grad_(False)
        return loaded

    def get_input_embeddings(self):
        return self.embeddings

    def set_input_embeddings(self, value):
        self.embeddings = value

    def set_word_vectors(self, vectors):
        """Copy a ``(vocab_size, embedding_dim)`` matrix into the frozen embedding."""
        vectors = torch.as_tensor(vectors, dtype=self.embeddings.weight.dtype)
        if tuple(vectors.shape) != tuple(self.embeddings.weight.shape):
            raise ValueError(
                f"word vectors have shape {tuple(vectors.shape)}, expected {tuple(self.embeddings.weight.shape)}"
            )
        with torch.no_grad():
            self.embeddings.weight.copy_(vectors)

    def encode(self, embedded, mask):
        """Sentence representation ``(batch, hidden_size)`` from embedded tokens and a 0/1 mask."""
        raise NotImplementedError

    def forward(
        self,
        input_ids=None,
        attention_mask=None,
        token_type_ids=None,
        labels=None,
        inputs_embeds=None,
        return_dict=None,
        **kwargs,
    ):
        if input_ids is not None and input_ids.shape[1] == 0:  # batch of empty texts
            input_ids = torch.full(
                (input_ids.shape[0], 1), self.config.pad_token_id, dtype=torch.long, device=input_ids.device
            )
            attention_mask = torch.zeros_like(input_ids)
        if inputs_embeds is None:
            inputs_embeds = self.embeddings(input_ids)
        if attention_mask is None:
            if input_ids is not None:
                attention_mask = (input_ids != self.config.pad_token_id).long()
            else:
                attention_mask = torch.ones(inputs_embeds.shape[:2], dtype=torch.long, device=inputs_embeds.device)
        mask = attention_mask.to(inputs_embeds.dtype).clone()
        # an empty text keeps its first (padding, zero-vector) position so that pooling is defined
        mask[mask.sum(1) == 0, 0] = 1
        embedded = self.dropout(inputs_embeds)
        if self.word_layer is not None:
            embedded = torch.relu(self.word_layer(embedded))
        embedded = embedded * mask.unsqueeze(-1)
        hidden = self.encode(embedded, mask)
        logits = self.classifier(self.dropout(hidden))
        loss = None
        if labels is not None:
            loss = nn.functional.cross_entropy(logits, labels.view(-1))
        if return_dict is False:
            return (loss, logits) if loss is not None else (logits,)
        return SequenceClassifierOutput(loss=loss, logits=logits)


class SOWordCNNForSequenceClassification(_SOWordPreTrainedModel):
    """Word CNN (Zhang et al. 2021 base model): 100 filters of width 3 over GloVe, max-pooled (or mean-pooled,
    ``config.pool``)."""

    config_class = SOWordCNNConfig

    def __init__(self, config):
        super().__init__(config)
        self.conv = nn.Conv1d(self.word_dim, config.hidden_size, config.kernel_size, padding=config.kernel_size // 2)
        self.post_init()

    def encode(self, embedded, mask):
        h = torch.relu(self.conv(embedded.transpose(1, 2)))[:, :, : mask.shape[1]]  # (B, H, T)
        if self.config.pool == "mean":
            return (h * mask.unsqueeze(1)).sum(2) / mask.sum(1, keepdim=True)
        h = h.masked_fill(mask.unsqueeze(1) == 0, float("-inf"))
        return h.max(dim=2).values


class SOWordLSTMForSequenceClassification(_SOWordPreTrainedModel):
    """LSTM (Zhang et al. 2021 base model): one layer of 100 units, state at the last real token."""

    config_class = SOWordLSTMConfig

    def __init__(self, config):
        super().__init__(config)
        self.lstm = nn.LSTM(self.word_dim, config.hidden_size, batch_first=True)
        self.post_init()

    def encode(self, embedded, mask):
        out, _ = self.lstm(embedded)  # right padding never reaches earlier states
        last = (mask.sum(1).long() - 1).clamp(min=0)
        return out[torch.arange(out.shape[0], device=out.device), last]


class SOWordBoWForSequenceClassification(_SOWordPreTrainedModel):
    """Bag of words (Zhang et al. 2021 base model): mean GloVe vector -> hidden layer of 100."""

    config_class = SOWordBoWConfig

    def __init__(self, config):
        super().__init__(config)
        self.hidden = nn.Linear(self.word_dim, config.hidden_size)
        self.post_init()

    def encode(self, embedded, mask):
        mean = embedded.sum(1) / mask.sum(1, keepdim=True).clamp(min=1)
        return torch.relu(self.hidden(mean))


ARCHITECTURES = {
    "cnn": (SOWordCNNConfig, SOWordCNNForSequenceClassification),
    "lstm": (SOWordLSTMConfig, SOWordLSTMForSequenceClassification),
    "bow": (SOWordBoWConfig, SOWordBoWForSequenceClassification),
}


def is_word_model(model):
    """True for this package's word-level models (``so-word-*``), False for transformers and the rest."""
    return str(getattr(getattr(model, "config", None), "model_type", "")).startswith("so-word")


def build_word_model(arch, vocab_size, vectors=None, **config_kwargs):
    """A fresh word model of architecture ``"cnn"``, ``"lstm"`` or ``"bow"``.

    ``vectors`` (``vocab_size x dim``) fills the frozen embedding.
    """
    if arch not in ARCHITECTURES:
        raise ValueError(f"Unknown word-model architecture {arch!r}; choose one of {', '.join(ARCHITECTURES)}")
    config_cls, model_cls = ARCHITECTURES[arch]
    if vectors is not None:
        config_kwargs.setdefault("embedding_dim", int(vectors.shape[1]))
    config = config_cls(vocab_size=vocab_size, **config_kwargs)
    model = model_cls(config)
    if vectors is not None:
        model.set_word_vectors(vectors)
    return model


def pretokenize(text):
    """The word pieces the word tokenizer sees (lower-cased), computed with Python's ``re``."""
    return re.findall(PRETOKENIZE_PATTERN, text.lower())


def build_word_tokenizer(vocab_words, max_length=DEFAULT_MAX_LENGTH):
    """Word-level ``PreTrainedTokenizerFast``: lower-case, split words/clitics/punctuation, look up.

    ``[PAD]`` gets id 0 and ``[UNK]`` id 1; ``vocab_words`` follow in order
    (duplicates and the special tokens are skipped). ``model_max_length`` is
    small so TextAttack's stock wrapper does not pad to 512.
    """
    vocab = {PAD_TOKEN: 0, UNK_TOKEN: 1}
    for w in vocab_words:
        if w not in vocab:
            vocab[w] = len(vocab)
    tok = Tokenizer(models.WordLevel(vocab=vocab, unk_token=UNK_TOKEN))
    tok.normalizer = normalizers.Lowercase()
    tok.pre_tokenizer = pre_tokenizers.Split(Regex(PRETOKENIZE_PATTERN), behavior="removed", invert=True)
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok,
        pad_token=PAD_TOKEN,
        unk_token=UNK_TOKEN,
        model_max_length=max_length,
        padding_side="right",
        truncation_side="right",
        model_input_names=["input_ids", "attention_mask"],
    )
    return fast


_REGISTERED = False


def register_auto_classes():
    """Register the word models with ``AutoConfig`` and ``AutoModelForSequenceClassification``.

    Idempotent. Afterwards ``AutoModelForSequenceClassification.from_pretrained(dir)``
    (and so ``textattack attack --model DIR``) loads a saved word-level victim.
    """
    global _REGISTERED
    if _REGISTERED:
        return

    for config_cls, model_cls in ARCHITECTURES.values():
        try:
            AutoConfig.register(config_cls.model_type, config_cls)
        except ValueError:  # already registered (e.g. module reloaded)
            pass
        try:
            AutoModelForSequenceClassification.register(config_cls, model_cls)
        except ValueError:
            pass
    _REGISTERED = True
