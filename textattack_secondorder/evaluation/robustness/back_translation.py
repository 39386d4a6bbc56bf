"""Sentence level (FlagEval "S"): back-translation English → Spanish → English with Apertium (docs/design/meaning.md).

TextAttack has no offline back-translation (its ``BackTranslation`` transformation
downloads MarianMT models), so the sentence level calls Debian's rule-based
Apertium (``apt-get install -y apertium-eng-spa``). When it is missing,
:func:`apertium_modes` raises :class:`ApertiumUnavailable` and the command skips the
level with that message.
"""

import logging
import re
import shutil
import subprocess

from tqdm.auto import tqdm

logger = logging.getLogger(__name__)

# Back-translation pivot (Apertium mode names; older packages call them en-es / es-en).
APERTIUM_MODES = (("eng-spa", "spa-eng"), ("en-es", "es-en"))
APERTIUM_CHUNK = 200  # sentences per apertium call (one per line)


class ApertiumUnavailable(RuntimeError):
    """Apertium or its English–Spanish pair is not installed."""


def apertium_modes():
    """``(forward, backward)`` Apertium modes for English → Spanish → English, or raise :class:`ApertiumUnavailable`."""
    exe = shutil.which("apertium")
    if not exe:
        raise ApertiumUnavailable("apertium is not installed (Debian/Ubuntu: apt-get install -y apertium-eng-spa)")
    try:
        listed = subprocess.run([exe, "-l"], capture_output=True, text=True, timeout=30).stdout.split()
    except (OSError, subprocess.SubprocessError) as e:
        raise ApertiumUnavailable(f"apertium -l failed: {e}") from e
    for fwd, bwd in APERTIUM_MODES:
        if fwd in listed and bwd in listed:
            return fwd, bwd
    raise ApertiumUnavailable(
        "apertium has no English-Spanish pair (apt-get install -y apertium-eng-spa); "
        f"modes found: {', '.join(listed) or 'none'}"
    )


class BackTranslation:
    """Sentence-level paraphrase by back-translation English → Spanish → English with Apertium (FlagEval "S").

    Sentences go to ``apertium`` in chunks, one per line; unknown words are left unmarked
    (``-u``). When the source sentence is all lower case (MR), so is the paraphrase.
    """

    level = "sentence"
    method = "backtranslation"

    def __init__(self, modes=None, chunk_size=APERTIUM_CHUNK, timeout=600):
        self.modes = tuple(modes) if modes else apertium_modes()
        self.chunk_size = int(chunk_size)
        self.timeout = timeout

    def settings(self):
        return {"engine": "apertium", "pivot": " -> ".join(self.modes), "chunk_size": self.chunk_size}

    def _translate(self, mode, lines):
        text = "\n".join(lines) + "\n"
        proc = subprocess.run(
            ["apertium", "-u", mode], input=text, capture_output=True, text=True, timeout=self.timeout
        )
        if proc.returncode != 0:
            raise RuntimeError(f"apertium {mode} failed: {proc.stderr.strip()[:500]}")
        out = proc.stdout.split("\n")
        if out and out[-1] == "":
            out = out[:-1]
        return out

    def _round_trip(self, lines):
        there = self._translate(self.modes[0], lines)
        back = self._translate(self.modes[1], there) if len(there) == len(lines) else []
        if len(back) != len(lines):  # lines merged somewhere: one call per sentence
            logger.warning("apertium changed the number of lines; translating this chunk sentence by sentence")
            back = [" ".join(self._translate(self.modes[1], self._translate(self.modes[0], [s]))) for s in lines]
        return back

    @staticmethod
    def _clean(original, translated):
        t = re.sub(r"\s+", " ", translated).strip()
        if original == original.lower():
            t = t.lower()
        return t or original

    def __call__(self, texts):

        lines = [re.sub(r"\s+", " ", t).strip() or "." for t in texts]
        out = []
        chunks = range(0, len(lines), self.chunk_size)
        for start in tqdm(chunks, desc="back-translation", total=len(chunks), leave=False, dynamic_ncols=True):
            out.extend(self._round_trip(lines[start : start + self.chunk_size]))
        return [self._clean(o, t) for o, t in zip(texts, out)]
