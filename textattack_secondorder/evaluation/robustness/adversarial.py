"""Adversarial level (FlagEval "Adv"): the successful adversarial texts of an attack (docs/design/meaning.md).

The attack and the task that runs it are built by the caller
(``attack_recipes.build.build_attack(recipe, model_wrapper)`` turns a recipe name into a TextAttack
``Attack``; ``sweeps.task.adversarial_task(attack, ...)`` is the attack sweep's task for it). The texts
are attacked shard by shard (docs/design/sharding.md) with that task, so ``--shards`` / ``--ray`` spread this
level, the only heavy one, over processes or machines and a rerun reuses finished shards. This module
imports neither: evaluation sits below the attack recipes, which use it (flip capability).
"""

from textattack.attack_results import SkippedAttackResult, SuccessfulAttackResult

from ...distributed import ShardStore, make_shards, run_shards, shard_count
from ...models.fingerprint import model_fingerprint

DEFAULT_SHARD_SIZE = 10  # most examples per shard when --ray is given without --shards


class AdversarialPerturbation:
    """Attack every text with an already-built ``attack``; successful adversarial texts replace the originals.

    Args:
        recipe: the recipe name the attack was built from (names the set ``Adv-<recipe>``;
            parameters after ``^`` are dropped from the set name).
        attack: a ``textattack.Attack`` against the evaluated model or a surrogate (FlagEval
            attacks a proxy model).
        labels: the gold label of each text.
        task: the shard task that attacks the texts (:func:`~...sweeps.task.adversarial_task`), holding
            ``seed`` and ``query_budget`` (text ``i`` is attacked with the seed ``seed + i``, so its result
            does not depend on how the texts are sharded) and the ``device`` Ray workers put the model on.
        surrogate_name: name of the attacked model when it is not the evaluated one (for the settings).
        model_spec: what a Ray worker loads to rebuild the attack (``load_model_wrapper`` forms);
            needed with ``options.ray`` only.
        options: :class:`~...distributed.ClusterOptions`: ``--shards`` / ``--ray`` (docs/design/sharding.md).
        shard_dir: where finished shards are saved as they arrive (a rerun reuses them).

    The texts are attacked shard by shard with ``task``
    (:class:`~...sweeps.task.SweepTask`: TextAttack's ``Attacker``, one example at a time), in this
    process or on Ray actors that each build the attack once. Failed and skipped examples keep the
    original text; :meth:`settings` reports the counts.
    """

    level = "adversarial"

    def __init__(
        self,
        recipe,
        attack,
        labels,
        task,
        surrogate_name=None,
        model_spec=None,
        options=None,
        shard_dir=None,
        progress=True,
    ):
        if attack is None:
            raise ValueError("AdversarialPerturbation needs a built attack (attack_recipes.build.build_attack)")
        if options is not None and options.distributed and not isinstance(model_spec, str):
            raise ValueError("the adversarial level on Ray needs the attacked model as a name or path (model_spec)")
        self.recipe = recipe
        self.method = recipe.split("^")[0]
        self.attack = attack
        self.labels = list(labels)
        self.surrogate_name = surrogate_name
        self.task = task
        self.query_budget = task.query_budget
        self.seed = task.seed
        self.model_spec, self.options, self.shard_dir = model_spec, options, shard_dir
        self.progress = progress
        self.counts = {}
        self.stats = None
        self._key = None

    def settings(self):
        return {
            "recipe": self.recipe,
            "attacked_model": self.surrogate_name or "the evaluated model",
            "query_budget": self.query_budget,
            "seed": self.seed,
            **self.counts,
        }

    def resume_key(self):
        """What the set depends on, for the key of a saved set (:func:`~.sets.part_key`) and of its shards:
        the recipe and its settings, and the content of the attacked model
        (:func:`~...models.fingerprint.model_fingerprint`, hashed once per object)."""
        if self._key is None:
            self._key = {
                "recipe": self.recipe,
                "query_budget": self.query_budget,
                "seed": self.seed,
                "attack": str(self.attack),
                "attacked_model": model_fingerprint(self.attack.goal_function.model),
            }
        return self._key

    def _shards(self, texts):
        items = [[t, int(y)] for t, y in zip(texts, self.labels)]
        shards = make_shards(items, self.resume_key(), shard_count(len(items), self.options, DEFAULT_SHARD_SIZE))
        for shard in shards:
            shard.context = {"model": self.model_spec or "attacked model", "recipe": self.recipe}
        return shards

    def __call__(self, texts):
        if len(texts) != len(self.labels):
            raise ValueError("one label per text is needed for the adversarial level")
        shards = self._shards(texts)
        model = self.attack.goal_function.model
        local = self.task.holding(self.model_spec or "attacked model", model, self.recipe, self.attack)
        parts, self.stats = run_shards(
            self.task,
            shards,
            ShardStore(self.shard_dir),
            self.options,
            desc=f"Adv-{self.method} shards",
            progress=self.progress,
            local_state=local,
        )
        results = [r for part in parts for r in part]
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
