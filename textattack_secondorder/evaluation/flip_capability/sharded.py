"""κ and ρ sharded over examples, in this process or on a Ray cluster (docs/methods.md §2.1, §7).

The examples are cut into contiguous shards (:func:`~...distributed.make_shards`); each
shard's counts ``count[w, c]``, ``|D+|``, queries and seconds are computed from zero by
:meth:`KappaSetup.count <.computation.KappaSetup.count>` and saved as the shard finishes;
the merge adds them (:meth:`FlipCapability.merge <.result.FlipCapability.merge>`), so

    κ(w) = Σ_shards count_s[w] / Σ_shards |D+_s|

is exactly the single run's κ for brute force and for EUBA with unbounded early stop. With
a bounded ``m``, EUBA's phase 2 ranks words by the counts of the sentences before it in
its shard, so κ (a lower bound either way) depends on the shard layout: it is the same for
a given ``--shards`` with or without Ray and whatever the number of workers.
"""

from ...distributed import ClusterOptions, ShardStore, make_shards, run_shards, shard_count
from ...models.fingerprint import model_fingerprint
from ...models.loading import load_model_wrapper
from .computation import KappaSetup
from .result import FlipCapability, FlipCapabilityResult

DEFAULT_SHARD_SIZE = 25  # examples per shard when --ray is given without --shards


class KappaTask:
    """The picklable κ work of one shard: load the model once per worker, count a shard's flips."""

    def __init__(self, model_spec, method, m, device=None, batch_size=256, vocab_limit=None):
        self.model_spec, self.method, self.m = model_spec, method, m
        self.device, self.batch_size, self.vocab_limit = device, batch_size, vocab_limit

    def setup(self):
        model = (
            self.model_spec
            if not isinstance(self.model_spec, str)
            else load_model_wrapper(self.model_spec, self.device, self.batch_size)
        )
        return KappaSetup(model, device=self.device, batch_size=self.batch_size, vocab_limit=self.vocab_limit)

    def run(self, setup, shard):
        examples = [(t, y) for t, y in shard.items]
        return setup.count(examples, self.method, self.m).state()


def compute_flip_capability_sharded(
    model_spec,
    examples,
    options=None,
    method="euba",
    m=None,
    device=None,
    batch_size=256,
    vocab_limit=None,
    folder=None,
    settings=None,
    model_wrapper=None,
    progress=True,
):
    """κ and ρ of ``model_spec`` on ``examples`` computed shard by shard (see the module docstring).

    Args:
        model_spec: what each worker loads (``load_model_wrapper`` forms: demo victim, folder, ``.py``),
            or a picklable model wrapper sent to the workers.
        options: :class:`~...distributed.ClusterOptions` (``--ray``, ``--shards``, workers, threads, GPUs).
        folder: where finished shards are saved (``None``: nowhere, no resume).
        model_wrapper: the model already loaded here (fingerprint; the in-process run reuses it).
    Returns ``(FlipCapabilityResult, RunStats)``.
    """
    options = options or ClusterOptions()
    if model_wrapper is None:
        model_wrapper = (
            model_spec if not isinstance(model_spec, str) else load_model_wrapper(model_spec, device, batch_size)
        )
    setup = KappaSetup(model_wrapper, device=device, batch_size=batch_size, vocab_limit=vocab_limit)
    n_shards = shard_count(len(examples), options, ray_size=DEFAULT_SHARD_SIZE)
    key = {
        "what": "kappa",
        "model": model_fingerprint(model_wrapper),
        "method": method,
        "m": m,
        "vocab_limit": vocab_limit,
        "shards": n_shards,
    }
    shards = make_shards([[t, None if y is None else int(y)] for t, y in examples], key, n_shards)
    task = KappaTask(model_spec, method, m, device, batch_size, vocab_limit)
    states, stats = run_shards(
        task, shards, ShardStore(folder), options, desc="κ shards", progress=progress, local_state=setup
    )
    metric = setup.new_metric(examples)
    for state in states:
        metric.merge(FlipCapability.from_state(state))
    settings = dict(
        settings or {},
        method=method,
        m=m,
        vocabulary=len(setup.words),
        examples=len(examples),
        shards=n_shards,
        ray=options.ray,
    )
    return FlipCapabilityResult(metric, settings), stats
