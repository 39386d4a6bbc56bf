"""Why a defense moves SP-Attack's success, or does not: success by the model's confidence (docs/design/defenses.md).

For every model of one or more ``textattack-so defend --compare`` folders, reads the SP-Attack rows the comparison
wrote, computes the model's confidence (its largest class probability) on each attacked sentence, and counts
SP-Attack's successes in confidence bands. A defense can lower the success rate by making one-word flips rarer at
a given confidence, or raise it by moving sentences towards the boundary, where nearly every sentence flips; the
bands tell the two apart.

With ``--word-ranks`` (word models only) it also reads each one-word success: at the position SP-Attack changed,
how many of the model's letters-only vocabulary entries would lower the probability of the label more than the
word SP-Attack put there. A small number means the model depends on that word; a large one means the sentence
lay so near the boundary that any of hundreds of words flips it.

    python benchmarks/defense_confidence.py ~/.cache/textattack/secondorder/victim_seeds/mr-cnn-seed1 DIR2 ...
    python benchmarks/defense_confidence.py DIR --word-ranks --out defense_confidence_cnn

Writes ``benchmarks/results/<out>.json`` and ``.md``.
"""

import argparse
import json
import re
import statistics
import sys
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).parent))
from sp_defense import RESULTS, machine  # noqa: E402

BANDS = (0.5, 0.6, 0.7, 0.8, 0.9, 1.0)


def parse_args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dirs", nargs="*", help="defend --compare output folders")
    ap.add_argument("--word-ranks", action="store_true", help="rank each one-word success among the vocabulary")
    ap.add_argument("--out", default="defense_confidence")
    ap.add_argument("--from-json", help="rebuild the tables from an earlier run's JSON instead of measuring")
    return ap.parse_args(argv)


def cell_name(row):
    from textattack_secondorder.defense.comparison import cell_name as comparison_cell

    return comparison_cell(row["defense"], row["seed"])


def sp_attack_rows(folder, row):
    from textattack_secondorder.defense.measure import sp_attack_key

    key = sp_attack_key(row.get("sp_attack_label_rule", "paper"))
    path = Path(folder) / "work" / cell_name(row) / f"{key}_rows.json"
    return json.loads(path.read_text()) if path.exists() else None


def band_counts(conf, ok):
    """``{band: [successes, attacked]}`` of confidences ``conf`` and success flags ``ok`` (the last band closed)."""
    conf, ok = np.asarray(conf), np.asarray(ok, dtype=bool)
    counts = {}
    for lo, hi in zip(BANDS[:-1], BANDS[1:]):
        m = (conf >= lo) & ((conf < hi) if hi < 1 else (conf <= hi))
        counts[f"{lo:.1f}-{hi:.1f}"] = [int(ok[m].sum()), int(m.sum())]
    return counts


def probabilities(model, tokenizer, texts, batch=64):
    out = []
    with torch.no_grad():
        for s in range(0, len(texts), batch):
            enc = tokenizer(texts[s : s + batch], return_tensors="pt", padding=True, truncation=True)
            out.append(torch.softmax(model(**enc).logits.float(), -1))
    return torch.cat(out)


def word_ranks(model, tokenizer, rows):
    """For each one-word success: how many letters-only vocabulary entries, put at the changed position, give the
    original prediction a lower probability than SP-Attack's word did."""
    vocab = tokenizer.get_vocab()
    cand = torch.tensor(sorted(i for w, i in vocab.items() if re.fullmatch(r"[a-z]+", w)))
    ranks = []
    for r in rows:
        if r["status"] != "successful":
            continue
        a, b = (tokenizer(t, return_tensors="pt")["input_ids"][0] for t in (r["original"], r["perturbed"]))
        diff = (a != b).nonzero()[:, 0] if len(a) == len(b) else []
        if len(diff) != 1 or not bool((cand == b[diff[0]]).any()):
            continue  # not one token for one token
        i = int(diff[0])
        ids = a[None].repeat(len(cand), 1)
        ids[:, i] = cand
        with torch.no_grad():
            y = int(model(input_ids=a[None], attention_mask=torch.ones_like(a[None])).logits.argmax(-1))
            p = torch.cat(
                [
                    torch.softmax(model(input_ids=c, attention_mask=torch.ones_like(c)).logits, -1)[:, y]
                    for c in ids.split(4096)
                ]
            )
        ranks.append(int((p < p[(cand == b[i]).nonzero()[0, 0]]).sum()))
    return {
        "successes_read": len(ranks),
        "vocabulary": len(cand),
        "median_rank": statistics.median(ranks) if ranks else None,
    }


def measure(folder, row, with_ranks):
    from textattack_secondorder.models.loading import load_model_wrapper

    rows = sp_attack_rows(folder, row)
    if rows is None:
        return None
    attacked = [r for r in rows if r["status"] in ("successful", "failed")]
    # a defended model lives in the comparison's own folder (the row keeps the path it was trained at)
    spec = row["model"] if row["defense"] == "vanilla" else str(Path(folder) / "models" / cell_name(row))
    wrapper = load_model_wrapper(spec)
    model, tokenizer = wrapper.model, wrapper.tokenizer
    model.eval()
    conf = probabilities(model, tokenizer, [r["original"] for r in attacked]).max(-1).values.numpy()
    ok = np.array([r["status"] == "successful" for r in attacked])
    bands = [{"band": b, "successes": s, "attacked": n} for b, (s, n) in band_counts(conf, ok).items()]
    result = {
        "folder": str(folder),
        "cell": cell_name(row),
        "defense": row["defense"],
        "steps": json.loads((Path(folder) / "settings.json").read_text()).get("steps"),
        "attacked": len(attacked),
        "success": round(100 * ok.mean(), 1) if len(ok) else None,
        "median_confidence": round(float(np.median(conf)), 3),
        "below_0.7": round(100 * float((conf < 0.7).mean()), 1),
        "bands": bands,
        "confidence": conf.round(4).tolist(),
        "successful": ok.tolist(),
    }
    if with_ranks:
        result["word_ranks"] = word_ranks(model, tokenizer, rows)
    return result


def pooled(results):
    """Per defense over all folders and seeds: success and attacked per band, median confidence."""
    table = {}
    for r in results:
        name = r["defense"] if r["defense"] == "vanilla" else f"{r['defense']} ({r['steps']} steps)"
        t = table.setdefault(name, {"models": 0, "confidence": [], "successful": []})
        t["models"] += 1
        t["confidence"] += r["confidence"]
        t["successful"] += r["successful"]
    return {
        d: {
            "models": t["models"],
            "attacked": len(t["confidence"]),
            "success": round(100 * float(np.mean(t["successful"])), 1),
            "median_confidence": round(float(np.median(t["confidence"])), 3),
            "below_0.7": round(100 * float((np.array(t["confidence"]) < 0.7).mean()), 1),
            "bands": {k: f"{s}/{n}" for k, (s, n) in band_counts(t["confidence"], t["successful"]).items()},
        }
        for d, t in table.items()
    }


def markdown(results, pool, skipped):
    bands = [f"{lo:.1f}-{hi:.1f}" for lo, hi in zip(BANDS[:-1], BANDS[1:])]
    lines = ["# SP-Attack's success by the model's confidence on the attacked sentence", ""]
    lines += [
        "Pooled over folders and seeds (successes / attacked sentences in each band of the largest class probability):",
        "",
    ]
    lines += [
        "| defense | models | attacked | success % | median confidence | below 0.7 % | " + " | ".join(bands) + " |"
    ]
    lines += ["|---" * (6 + len(bands)) + "|"]
    for d, p in pool.items():
        cells = [p["bands"].get(b, "0/0") for b in bands]
        row = [d, p["models"], p["attacked"], p["success"], p["median_confidence"], p["below_0.7"], *cells]
        lines.append("| " + " | ".join(map(str, row)) + " |")
    lines += [
        "",
        "Per model:",
        "",
        "| folder | model | success % | median confidence | below 0.7 % | word ranks (median, successes read) |",
    ]
    lines += ["|---|---|---|---|---|---|"]
    for r in results:
        wr = r.get("word_ranks")
        ranks = f"{wr['median_rank']} of {wr['vocabulary']} ({wr['successes_read']})" if wr else "–"
        lines.append(
            f"| {Path(r['folder']).name} | {r['cell']} | {r['success']} | {r['median_confidence']} | "
            f"{r['below_0.7']} | {ranks} |"
        )
    lines += [""] + [f"- skipped: {s} (no SP-Attack rows)" for s in skipped] + [f"- machine: {machine()}"]
    return "\n".join(lines) + "\n"


def main(argv=None):
    args = parse_args(argv)
    torch.set_num_threads(1)
    results, skipped = [], []
    if args.from_json:
        earlier = json.loads(Path(args.from_json).read_text())
        results, skipped = earlier["models"], earlier["skipped"]
        for r in results:
            r.setdefault("steps", json.loads((Path(r["folder"]) / "settings.json").read_text()).get("steps"))
    for folder in args.dirs:
        folder = Path(folder).expanduser()
        for row in json.loads((folder / "comparison.json").read_text()):
            r = measure(folder, row, args.word_ranks)
            if r is None:
                skipped.append(f"{folder.name}/{cell_name(row)}")
                continue
            results.append(r)
            print(
                f"{folder.name} {r['cell']}: success {r['success']} %, median confidence {r['median_confidence']}",
                flush=True,
            )
    from textattack_secondorder.shared.files import atomic_write_text

    pool = pooled(results)
    out = RESULTS / args.out
    atomic_write_text(
        out.with_suffix(".json"), json.dumps({"pooled": pool, "models": results, "skipped": skipped}, indent=1)
    )
    md = markdown(results, pool, skipped)
    atomic_write_text(out.with_suffix(".md"), md)
    print(md)


if __name__ == "__main__":
    main()
