#!/usr/bin/env python
"""Write the packaged patch-word / swap-candidate list ``data/synonyms_counterfitted.json``.

The list is the counter-fitted neighbour list of Jia et al. (2019), "Certified Robustness
to Adversarial Word Substitutions" (MIT licence, © 2019 Robin Jia; the licence ships as
``data/LICENSE-counterfitted-neighbors.txt``): for each word, up to 8 nearest neighbours
in the counter-fitted vectors of Mrkšić et al. (2016). It is the list the Double
Perturbation paper draws its patch words from (docs/design/offline-resources.md).

Why a copy and not a list built here: ``scripts/build_counterfitted.py`` counter-fits
the packaged GloVe 50d vectors with WordNet constraints, and in a blind read only 38 of
100 of its pairs meant the same in some sense, against 71 of 100 for this list
(``benchmarks/results/synonym_blind_read.json``); the earlier GloVe+WordNet filter
(``scripts/build_synonyms.py``) keeps 1.4 synonyms for 7,000 words and leaves TextFooler
with almost no candidates.

Usage (SOURCE: the JSON of Jia et al.'s list, word -> list of neighbours)::

    python scripts/ship_counterfitted_list.py SOURCE

Only lower-case alphabetic keys and neighbours are kept (the source also holds a few
control characters and non-words); order within each list is kept (nearest first).
"""

import argparse
import datetime
import hashlib
import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
OUT = REPO / "data" / "synonyms_counterfitted.json"


def normalise(raw):
    table = {}
    for key in sorted(raw):
        word = key.strip().lower()
        if not (word.isascii() and word.isalpha()):
            continue
        syns = []
        for s in raw[key]:
            s = s.strip().lower()
            if s.isascii() and s.isalpha() and s != word and s not in syns:
                syns.append(s)
        if syns:
            table.setdefault(word, [])
            table[word] += [s for s in syns if s not in table[word]]
    return table


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("source")
    ap.add_argument("--out", default=str(OUT))
    args = ap.parse_args(argv)
    sys.path.insert(0, str(REPO))
    from textattack_secondorder.shared.files import atomic_write_text

    data = Path(args.source).read_bytes()
    table = normalise(json.loads(data))
    text = json.dumps(table, sort_keys=True, separators=(",", ":"), ensure_ascii=True) + "\n"
    out = Path(args.out)
    atomic_write_text(out, text)
    meta = {
        "file": out.name,
        "format": "JSON object word -> list of neighbours, nearest first",
        "source": "Jia et al. (2019) counter-fitted neighbour list (8 nearest neighbours in the "
        "counter-fitted vectors of Mrkšić et al. 2016), MIT licence, (c) 2019 Robin Jia",
        "source_sha256": hashlib.sha256(data).hexdigest(),
        "licence_file": "LICENSE-counterfitted-neighbors.txt",
        "built_by": "scripts/ship_counterfitted_list.py",
        "date": datetime.date.today().isoformat(),
        "counts": {"keys": len(table), "pairs": sum(len(v) for v in table.values()), "bytes": len(text)},
    }
    atomic_write_text(out.with_name(out.stem + ".meta.json"), json.dumps(meta, indent=2) + "\n")
    print(f"wrote {out}: {meta['counts']}")


if __name__ == "__main__":
    main()
