"""``single_word`` check: robustness ρ (train split) or ρ* (test split) by EUBA, through the code path of
``textattack-so flip-capability`` (sharded, resumable, ``--ray``; docs/design/single-word.md, docs/design/sharding.md,
docs/design/gate.md)."""

from ..shared.digest import content_digest
from .base import AT_LEAST, COUNT, NON_NEGATIVE, Check, Evaluation, Metric


class SingleWordCheck(Check):
    """Single-word robustness: the share of (sentence, word) pairs that no single-word change of that word flips."""

    kind = "single_word"
    # default tolerance: EUBA does not sample, so the smallest change worth flagging, 0.01 of ρ
    # (docs/design/gate.md)
    METRICS = {
        "rho": Metric(
            AT_LEAST, "", "ρ = 1 − mean κ over the correctly classified examples (ρ* on the test split)", 0.01, (0, 1)
        )
    }
    SETTINGS = {
        "m": (512, int, "EUBA early stop after m failed verifications (paper: 512); 0 = exact", NON_NEGATIVE),
        "exact": (False, bool, "brute force instead of EUBA"),
        "vocab_limit": (None, int, "only the first N vocabulary words", COUNT),
        "vocab_from": (
            None,
            str,
            "only the vocabulary entries that occur in this data set's training sentences (mr or a CSV), before "
            "vocab_limit, as `flip-capability --vocab-from` (a transformer's first entries are single characters and "
            "other scripts); None = every entry",
        ),
        "dataset": (None, str, "dataset (default: the config's)"),
        "split": (None, str, "split (default: the config's; test gives ρ*)"),
        "num_examples": (None, int, "first N examples (default: the config's)", COUNT),
    }

    def input_files(self):
        return [self.settings["vocab_from"]] if self.settings["vocab_from"] else []

    def evaluate(self, context, folder):
        from ..evaluation.flip_capability import compute_flip_capability
        from ..models.token_classifier import TokenClassifier

        s = self.settings
        model = context.model
        TokenClassifier.require_access(model, "flip capability κ/ρ", name=context.spec)
        examples, skipped = context.screened(s)
        method = "brute" if s["exact"] else "euba"
        m = None if s["m"] == 0 else s["m"]
        settings = {
            "model": context.spec,
            "data": f"{s['dataset']}:{s['split']}[:{len(examples) + len(skipped)}]",
            "rows skipped for bad input": len(skipped),
        }
        out = folder / "kappa.json"
        # the code path of `textattack-so flip-capability`: shards here or on Ray, resumable from kappa.shards/
        result = compute_flip_capability(
            model,
            examples,
            method=method,
            m=m,
            batch_size=context.batch_size,
            device=context.device,
            options=context.options,
            folder=out.with_suffix(".shards"),
            model_spec=context.spec,
            vocab_limit=s["vocab_limit"],
            vocab_from=s["vocab_from"],
            settings=settings,
            progress=context.progress,
        )
        result.save(out)
        result.plot_histogram(out.with_suffix(".png"))
        summary = result.summary()
        star = "*" if s["split"] == "test" else ""
        top = result.top(5)
        evidence = {
            "rho": f"ρ{star} = {result.rho:.4f} over {summary['correct']} correctly classified of "
            f"{summary['examples']} {s['split']} sentences × {summary['vocabulary']} words ({method}"
            f"{'' if m is None else f', m={m}'}); top κ: "
            + ", ".join(f"{w} {k:.2f}" for w, k in zip(top["word"], top["kappa"]))
        }
        return Evaluation(
            {"rho": result.rho},
            evidence,
            rows=[{"row": k, "value": v} for k, v in summary.items()]
            + [{"row": f"κ({w})", "value": round(float(k), 4)} for w, k in zip(top["word"], top["kappa"])],
            files={"kappa_histogram": "kappa.png", "kappa": "kappa.json"},
            info={"rows skipped for bad input": len(skipped)},
            # ρ is a mean over the vocabulary's words: another vocabulary measures another quantity
            measured_with={"vocabulary": f"{len(result.metric.words)} words {content_digest(result.metric.words, 12)}"},
        )
