"""``perturbed_sets`` check: the RB index and per-set accuracy of ``textattack-so robustness``
(FlagEval; finished sets kept in ``parts/`` for resume, adversarial level sharded / ``--ray``;
docs/design/meaning.md, docs/design/gate.md)."""

from ..shared.label_names import outputs_text
from .base import AT_LEAST, AT_MOST, COUNT, NON_NEGATIVE, SHARE, Check, ConfigError, Evaluation, Metric


class PerturbedSetsCheck(Check):
    """Accuracy on perturbed copies of the evaluation set and the robustness index."""

    kind = "perturbed_sets"
    # default tolerances: above the spread over 6 seeds of the typos and swaps on 200 mr-cnn test sentences (on 30
    # sentences it is far larger; docs/design/gate.md)
    METRICS = {
        "rb_index": Metric(
            AT_MOST, "", "RB = (1/T) Σ (Acc_org − Acc_i)/Acc_org (smaller is more robust)", 0.1, (None, 1)
        ),
        "min_accuracy": Metric(AT_LEAST, "%", "lowest accuracy over the perturbed sets", 10.0, (0, 100)),
    }
    SETTINGS = {
        "levels": (["char", "word"], list, "levels among char, word, sentence, adversarial"),
        "seed": (0, int, "seed of the perturbations and the attack", NON_NEGATIVE),
        "char_min": (3, int, "fewest characters touched per sentence (FlagEval: 3)", NON_NEGATIVE),
        "char_max": (15, int, "most characters touched per sentence (FlagEval: 15)", NON_NEGATIVE),
        "word_source": ("synonyms", str, "synonyms or mlm"),
        "synonyms": (None, str, "synonyms slot value (word->synonyms JSON)"),
        "masked_lm": (None, str, "masked-LM slot value for word_source = 'mlm'"),
        "word_rate": (0.15, float, "share of the words replaced", SHARE),
        "recipe": ("textfooler-offline", str, "attack recipe of the adversarial level"),
        "query_budget": (None, int, "model queries per attacked example (adversarial level)", COUNT),
        "dataset": (None, str, "dataset (default: the config's)"),
        "split": (None, str, "split (default: the config's)"),
        "num_examples": (None, int, "first N examples (default: the config's)", COUNT),
    }

    def perturbations(self, context, examples, folder):
        from ..attack_recipes.build import build_attack
        from ..evaluation import robustness as rb
        from ..resources import load_word_proposer
        from ..sweeps.task import adversarial_task

        s, out, skipped = self.settings, [], {}
        for level in s["levels"]:
            if level not in rb.LEVELS:
                raise ConfigError(
                    f"check {self.name!r}.settings.levels: unknown {level!r}; valid: " + ", ".join(rb.LEVELS)
                )
            if level == "char":
                out.append(rb.CharPerturbation(s["char_min"], s["char_max"], seed=s["seed"]))
            elif level == "word" and s["word_source"] == "mlm":
                out.append(
                    rb.WordPerturbation(
                        proposer=load_word_proposer(s["masked_lm"], device=context.device),
                        rate=s["word_rate"],
                        seed=s["seed"],
                    )
                )
            elif level == "word":
                out.append(
                    rb.WordPerturbation(
                        synonyms=rb.load_synonym_list(s["synonyms"]), rate=s["word_rate"], seed=s["seed"]
                    )
                )
            elif level == "sentence":
                try:
                    out.append(rb.BackTranslation())
                except rb.ApertiumUnavailable as e:
                    context.say(f"  skipping the sentence level: {e}")
                    skipped[level] = str(e)
            elif level == "adversarial":
                attack = build_attack(s["recipe"], context.model)
                out.append(
                    rb.AdversarialPerturbation(
                        s["recipe"],
                        attack,
                        [y for _, y in examples],
                        adversarial_task(attack, s["seed"], s["query_budget"], context.device),
                        model_spec=context.spec,
                        options=context.options,
                        shard_dir=str(folder / "parts" / "adversarial"),
                    )
                )
        return out, skipped

    def evaluate(self, context, folder):
        from ..evaluation import robustness as rb

        examples, bad_rows = context.screened(self.settings)
        perturbations, skipped = self.perturbations(context, examples, folder)
        settings = {
            "model": context.spec,
            "command": "textattack-so check",
            "dataset": self.settings["dataset"],
            "split": self.settings["split"],
            "examples": len(examples),
            "rows skipped for bad input": len(bad_rows),
            "seed": self.settings["seed"],
        }
        report = rb.run_robustness(
            context.model,
            examples,
            perturbations,
            context.batch_size,
            settings,
            skipped,
            parts_dir=str(folder / "parts"),
        )
        rb.write_report(report, folder, title=f"Robustness of {context.spec}")
        (folder / "robustness.png").write_bytes(rb.plot_png(report))
        perturbed = report.rows[1:]
        worst = min(perturbed, key=lambda r: r["accuracy"], default=None)
        values = {"rb_index": report.rb, "min_accuracy": 100 * worst["accuracy"] if worst else None}
        acc = ", ".join(f"{r['set']} {100 * r['accuracy']:.1f}%" for r in report.rows)
        evidence = {
            "rb_index": f"RB = {report.rb:.4f} over T = {len(report.sets)} sets; accuracy {acc}",
            "min_accuracy": (
                f"{worst['set']}: {100 * worst['accuracy']:.1f}% (original {100 * report.rows[0]['accuracy']:.1f}%)"
            )
            if worst
            else "no perturbed set",
        }
        examples_shown = []
        for s in report.sets:
            for i, (o, p) in enumerate(zip(report.texts, s.texts)):
                if o != p and report.predictions[s.name][i] != report.predictions["original"][i]:
                    examples_shown.append(
                        {
                            "original": o,
                            "perturbed": p,
                            "outputs": f"{s.name}: "
                            + outputs_text(
                                report.predictions["original"][i], report.predictions[s.name][i], report.label_names
                            ),
                        }
                    )
                    break
        return Evaluation(
            values,
            evidence,
            rows=[
                {k: r[k] for k in ("set", "level", "examples", "accuracy", "relative_drop", "mean_chrf")}
                for r in report.rows
            ],
            examples=examples_shown,
            files={"chart": "robustness.png", "report": "report.html"},
            info={"skipped levels": skipped},
            measured_with=self.measured_with(),
            sentences={"min_accuracy": worst["examples"]} if worst else {},
        )

    def measured_with(self):
        """The resource each level drew from, resolved (docs/design/offline-resources.md): the word level's synonym
        list or masked LM, the adversarial level's recipe with its defaults."""
        from ..resources.resolution import resolve
        from .attack import recipe_measured_with

        s, out = self.settings, {}
        if "word" in s["levels"]:
            slot = "masked_lm" if s["word_source"] == "mlm" else "synonyms"
            out[slot] = resolve(slot, s[slot]).value
        if "adversarial" in s["levels"]:
            out.update(recipe_measured_with(s["recipe"]))
        return out
