"""The work of one attack-sweep shard: some examples of one (model, recipe) cell (docs/methods.md §7).

A worker keeps the models it has loaded (at most :data:`MODELS_KEPT`, least recently used
out first) and the attacks built on them, so a model is loaded once per worker and reused
for every shard of its cells. Each example is attacked by TextAttack's own ``Attacker``
with the random seed ``seed + row`` (``row``: the example's place in the dataset), so an
example's result does not depend on the shard it falls in: the merged sweep equals the
single-process sweep row for row.
"""

from collections import OrderedDict

MODELS_KEPT = 2


class SweepState:
    """Loaded models and built attacks of one worker."""

    def __init__(self, device=None, batch_size=64):
        self.device, self.batch_size = device, batch_size
        self.models = OrderedDict()
        self.attacks = {}

    @classmethod
    def holding(cls, spec, model, recipe=None, attack=None):
        """A state that already holds ``model`` (and ``attack`` built from ``recipe`` on it) under ``spec``."""
        state = cls()
        state.models[spec] = model
        if attack is not None:
            state.attacks[(spec, recipe)] = attack
        return state

    def model(self, spec):
        from ..models.loading import load_model_wrapper

        if spec not in self.models:
            while len(self.models) >= MODELS_KEPT:
                old, _ = self.models.popitem(last=False)
                self.attacks = {k: v for k, v in self.attacks.items() if k[0] != old}
            self.models[spec] = load_model_wrapper(spec, self.device, self.batch_size)
        self.models.move_to_end(spec)
        return self.models[spec]

    def attack(self, spec, recipe):
        from ..plugin.registry import build_attack

        if (spec, recipe) not in self.attacks:
            self.attacks[(spec, recipe)] = build_attack(
                recipe, self.model(spec), device=self.device, batch_size=self.batch_size
            )
        return self.attacks[(spec, recipe)]


class SweepTask:
    """Picklable: ``setup()`` gives a :class:`SweepState`; ``run`` attacks a shard's examples."""

    def __init__(self, seed=765, query_budget=None, device=None, batch_size=64):
        self.seed, self.query_budget = seed, query_budget
        self.device, self.batch_size = device, batch_size

    def setup(self):
        from ..plugin.extensions import extend_textattack

        extend_textattack()  # our CSV columns and summary rows (idempotent; the import hook does it too)
        return SweepState(self.device, self.batch_size)

    def run(self, state, shard):
        """``AttackResult`` list of the shard's examples, in dataset order."""
        import contextlib
        import io

        import textattack

        attack = state.attack(shard.context["model"], shard.context["recipe"])
        results = []
        for offset, (text, label) in enumerate(shard.items):
            args = textattack.AttackArgs(
                num_examples=1,
                random_seed=self.seed + shard.start + offset,
                query_budget=self.query_budget,
                silent=True,
                disable_stdout=True,
            )
            dataset = textattack.datasets.Dataset([(text, label)])
            # TextAttack's Attacker draws a one-example bar on stderr whatever ``silent`` says; under Ray
            # every worker's bar reaches the driver's console. The sweep shows one bar over shards instead.
            # (Log records keep their own handlers' streams and still show.)
            with contextlib.redirect_stderr(io.StringIO()):
                results += textattack.Attacker(attack, dataset, args).attack_dataset()
        return results
