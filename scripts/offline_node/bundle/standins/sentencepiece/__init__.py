"""Stand-in for sentencepiece (offline bundle): flair imports ``SentencePieceProcessor`` at start-up for
its byte-pair embeddings; the WordPiece models here (MiniLM, BERT) and the word models never use it.
It has no package metadata, so transformers still reports sentencepiece as not installed."""


class SentencePieceProcessor:
    def __init__(self, *args, **kwargs):
        raise RuntimeError("sentencepiece is not in this offline bundle (a stand-in): `pip install sentencepiece`")
