"""Gemma's tokenizer files written from the GGUF vocabulary, as transformers' GGUF conversion writes them
(docs/design/offline-resources.md).

transformers builds the same tokenizer from a GGUF file (``AutoTokenizer.from_pretrained(..., gguf_file=...)``)
but parses all metadata with the ``gguf`` package first, about half of the old one-off set-up. This writes its
``tokenizer.json`` (a Unigram model over the GGUF pieces and scores, ``<0x09>`` as a tab and runs of spaces as
``▁``, byte fall-back, spaces replaced by ``▁``, a split on ``▁``, ``<bos>`` prepended), ``tokenizer_config.json``
and ``special_tokens_map.json``; :func:`~.gemma._fix_gemma_tokenizer_file` then repairs the scores as before.
No ``tokenizer.model``: transformers' conversion saved a copy of the whole 242 MB GGUF file under that name.
"""

import json
from pathlib import Path

from ..shared.files import atomic_write_text

_SPECIALS = ("pad", "eos", "bos", "unk")
_GGUF_KEY = {"pad": "padding", "eos": "eos", "bos": "bos", "unk": "unknown"}


def _piece(token):
    if token == "<0x09>":
        return "\t"
    if " " in token and not token.strip():
        return "\u2581" * len(token)
    return token


def _special(content, token_id):
    return {
        "id": token_id,
        "content": content,
        "single_word": False,
        "lstrip": False,
        "rstrip": False,
        "normalized": False,
        "special": True,
    }


def write_gemma_tokenizer(folder, metadata):
    """Write the tokenizer files of a Gemma GGUF file's ``metadata`` (tokens, scores, special ids) to ``folder``."""
    folder = Path(folder)
    tokens = metadata["tokenizer.ggml.tokens"]
    scores = [float(s) for s in metadata["tokenizer.ggml.scores"]]
    ids = {name: int(metadata[f"tokenizer.ggml.{_GGUF_KEY[name]}_token_id"]) for name in _SPECIALS}
    content = {name: tokens[i] for name, i in ids.items()}
    bos = content["bos"]
    template = {
        "type": "TemplateProcessing",
        "single": [{"SpecialToken": {"id": bos, "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}],
        "pair": [
            {"SpecialToken": {"id": bos, "type_id": 0}},
            {"Sequence": {"id": "A", "type_id": 0}},
            {"SpecialToken": {"id": bos, "type_id": 1}},
            {"Sequence": {"id": "B", "type_id": 1}},
        ],
        "special_tokens": {bos: {"id": bos, "ids": [ids["bos"]], "tokens": [bos]}},
    }
    tokenizer = {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": [_special(tokens[i], i) for i in sorted(ids.values())],
        "normalizer": {"type": "Replace", "pattern": {"String": " "}, "content": "\u2581"},
        "pre_tokenizer": {
            "type": "Split",
            "pattern": {"String": " "},
            "behavior": "MergedWithPrevious",
            "invert": False,
        },
        "post_processor": template,
        "decoder": {
            "type": "Sequence",
            "decoders": [
                {"type": "Replace", "pattern": {"String": "\u2581"}, "content": " "},
                {"type": "ByteFallback"},
                {"type": "Fuse"},
            ],
        },
        "model": {
            "type": "Unigram",
            "unk_id": ids["unk"],
            "vocab": [[_piece(t), s] for t, s in zip(tokens, scores)],
            "byte_fallback": True,
        },
    }
    config = {
        "add_bos_token": bool(metadata.get("tokenizer.ggml.add_bos_token", True)),
        "add_eos_token": bool(metadata.get("tokenizer.ggml.add_eos_token", False)),
        "added_tokens_decoder": {str(i): {**_special(tokens[i], i), "id": None} for i in sorted(ids.values())},
        "clean_up_tokenization_spaces": False,
        "model_max_length": 1000000000000000019884624838656,
        "tokenizer_class": "PreTrainedTokenizerFast",  # loaded as the file says (gemma.load_gemma_tokenizer)
    }
    for entry in config["added_tokens_decoder"].values():
        entry.pop("id")
    for name in _SPECIALS:
        config[f"{name}_token"] = content[name]
    folder.mkdir(parents=True, exist_ok=True)
    atomic_write_text(folder / "tokenizer.json", json.dumps(tokenizer, ensure_ascii=False))
    atomic_write_text(folder / "tokenizer_config.json", json.dumps(config, indent=2))
    atomic_write_text(
        folder / "special_tokens_map.json", json.dumps({f"{n}_token": content[n] for n in _SPECIALS}, indent=2)
    )
