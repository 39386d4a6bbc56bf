"""Adversarial level (FlagEval "Adv"): the successful adversarial texts of an attack (docs/methods.md §4).

The attack is built by the caller (``plugin.registry.build_attack(recipe, model_wrapper)``
turns a recipe name into a TextAttack ``Attack``), so this layer never imports the
attack recipes.
"""


class AdversarialPerturbation:
    """Run an already-built ``attack`` with ``textattack.Attacker``; successful adversarial texts replace the originals.

    Args:
        recipe: the recipe name the attack was built from (names the set ``Adv-<recipe>``;
            parameters after ``^`` are dropped from the set name).
        attack: a ``textattack.Attack`` against the evaluated model or a surrogate (FlagEval
            attacks a proxy model).
        labels: the gold label of each text.
        surrogate_name: name of the attacked model when it is not the evaluated one (for the settings).
        query_budget, seed: passed to ``textattack.AttackArgs``.

    Failed and skipped examples keep the original text; :meth:`settings` reports the counts.
    """

    level = "adversarial"

    def __init__(self, recipe, attack, labels, surrogate_name=None, query_budget=None, seed=0):
        if attack is None:
            raise ValueError("AdversarialPerturbation needs a built attack (plugin.registry.build_attack)")
        self.recipe = recipe
        self.method = recipe.split("^")[0]
        self.attack = attack
        self.labels = list(labels)
        self.surrogate_name = surrogate_name
        self.query_budget = query_budget
        self.seed = seed
        self.counts = {}

    def settings(self):
        return {"recipe": self.recipe, "attacked_model": self.surrogate_name or "the evaluated model",
                "query_budget": self.query_budget, "seed": self.seed, **self.counts}

    def resume_key(self):
        """What the set depends on, for the key of a saved set (:func:`~.sets.part_key`): the recipe and its
        settings, and the content of the attacked model (:func:`~...models.fingerprint.model_fingerprint`)."""
        from ...models.fingerprint import model_fingerprint

        return {"recipe": self.recipe, "query_budget": self.query_budget, "seed": self.seed,
                "attack": str(self.attack), "attacked_model": model_fingerprint(self.attack.goal_function.model)}

    def __call__(self, texts):
        import textattack
        from textattack.attack_results import SkippedAttackResult, SuccessfulAttackResult

        if len(texts) != len(self.labels):
            raise ValueError("one label per text is needed for the adversarial level")
        dataset = textattack.datasets.Dataset([(t, int(y)) for t, y in zip(texts, self.labels)], shuffle=False)
        args = textattack.AttackArgs(num_examples=len(texts), query_budget=self.query_budget, random_seed=self.seed,
                                     disable_stdout=True, silent=True, shuffle=False)
        results = textattack.Attacker(self.attack, dataset, args).attack_dataset()
        out, counts = [], {"successful": 0, "failed": 0, "skipped": 0}
        for text, r in zip(texts, results):
            if isinstance(r, SuccessfulAttackResult):
                out.append(r.perturbed_result.attacked_text.text)
                counts["successful"] += 1
            else:
                out.append(text)
                counts["skipped" if isinstance(r, SkippedAttackResult) else "failed"] += 1
        attacked = counts["successful"] + counts["failed"]
        counts["attack_success_pct"] = round(100.0 * counts["successful"] / attacked, 2) if attacked else 0.0
        self.counts = counts
        return out
