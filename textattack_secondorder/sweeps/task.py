"""The work of one attack-sweep shard: some examples of one (model, recipe) cell (docs/design/sharding.md).

A worker keeps the models it has loaded (at most :data:`MODELS_KEPT`, least recently used
out first) and the attacks built on them, so a model is loaded once per worker and reused
for every shard of its cells. Each example is attacked by TextAttack's own ``Attacker``
with the random seed ``seed + row`` (``row``: the example's place in the dataset), so an
example's result does not depend on the shard it falls in: the merged sweep equals the
single-process sweep row for row.
"""

import contextlib
import io
from collections import OrderedDict

import textattack

from ..attack_recipes.build import build_attack
from ..models.loading import load_model_wrapper
from ..shared.device import resolve_device

MODELS_KEPT = 2


@contextlib.contextmanager
def textattack_device(device):
    """TextAttack's ``Attacker`` moves every model of an attack to ``textattack.shared.utils.device``
    (``attack.cuda_()``): inside this block that is ``device`` (the sweep's ``--device``; None leaves TextAttack's
    own), so a victim loaded on the CPU of a GPU machine stays there."""
    if device is None:
        yield
        return
    utils = textattack.shared.utils
    before, utils.device = utils.device, resolve_device(device)
    try:
        yield
    finally:
        utils.device = before


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
        if spec not in self.models:
            while len(self.models) >= MODELS_KEPT:
                old, _ = self.models.popitem(last=False)
                self.attacks = {k: v for k, v in self.attacks.items() if k[0] != old}
            self.models[spec] = load_model_wrapper(spec, self.device, self.batch_size)
        self.models.move_to_end(spec)
        return self.models[spec]

    def attack(self, spec, recipe):
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
        # Our CSV columns and summary rows come from the import hook, which extends TextAttack in every
        # process that imports it, Ray workers included (with TEXTATTACK_SECONDORDER_NO_HOOK=1, call
        # textattack_secondorder.register() first).
        return SweepState(self.device, self.batch_size)

    def holding(self, spec, model, recipe, attack):
        """A state for this process that already holds ``model`` and ``attack`` (see :meth:`SweepState.holding`)."""
        return SweepState.holding(spec, model, recipe, attack)

    def run(self, state, shard):
        """``AttackResult`` list of the shard's examples, in dataset order."""
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
            with contextlib.redirect_stderr(io.StringIO()), textattack_device(self.device):
                results += textattack.Attacker(attack, dataset, args).attack_dataset()
        return results


def adversarial_task(attack, seed=0, query_budget=None, device=None):
    """The task that attacks texts with the built ``attack`` for the adversarial robustness level
    (:class:`~..evaluation.robustness.adversarial.AdversarialPerturbation`): the victim batch is the attacked
    model's own; ``device`` is where Ray workers put the model they rebuild."""
    batch_size = getattr(attack.goal_function.model, "batch_size", 64)
    return SweepTask(seed, query_budget, device, batch_size=batch_size)
