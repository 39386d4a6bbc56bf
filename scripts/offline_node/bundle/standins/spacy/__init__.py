"""Stand-in for spaCy (offline bundle): this package's resources import it at start-up; only the part-of-speech
checks of the default patch and neighbour rules call it (the GPU tests replace the tagger)."""

__version__ = "0.0"  # lemminflect (imported by TextAttack) reads it: below 2.0 it leaves spaCy alone


def _missing(*args, **kwargs):
    raise RuntimeError(
        "spaCy is not in this offline bundle (a stand-in): add `EXTRA='spacy ...'` to "
        "scripts/offline_node/offline_bundle.sh, with the tagger package, for the part-of-speech checks"
    )


load = blank = _missing
