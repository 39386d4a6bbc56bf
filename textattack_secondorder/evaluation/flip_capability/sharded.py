"""κ and ρ over a data set: the one way to run them, sharded and resumable, here or on Ray (docs/design/single-word.md,
docs/design/sharding.md).

The examples are cut into contiguous shards (:func:`~...distributed.make_shards`; one shard
unless ``--shards N`` or ``--ray``); each shard's counts ``count[w, c]``, ``|D+|``, queries and
seconds are computed from zero by :meth:`KappaSetup.count <.computation.KappaSetup.count>` and
saved in the :class:`~...distributed.ShardStore` as the shard finishes; the merge adds them
(:meth:`FlipCapability.merge <.result.FlipCapability.merge>`), so

    κ(w) = Σ_shards count_s[w] / Σ_shards |D+_s|

is exactly the single run's κ for brute force and for EUBA with unbounded early stop. With
a bounded ``m``, EUBA's phase 2 ranks words by the counts of the sentences before it in
its shard, so κ (a lower bound either way) depends on the shard layout: it is the same for
a given ``--shards`` with or without Ray and whatever the number of workers, and the default
(one shard) is the plain sequential run.

Resume: a re-run reuses the finished shards, and a shard running in this process saves its
progress (counts so far and the next example) at most every ``checkpoint_seconds`` as
``<key>.progress.pkl``, so a killed run — even a one-shard default run — continues from there
and ends with the same counts as an uninterrupted one. The same store with ``one_run=False``
is the SP-Attack κ cache (:mod:`.cache`).
"""

import time

from ...distributed import ClusterOptions, ShardStore, make_shards, run_shards, shard_count
from ...models.fingerprint import model_fingerprint, weights_fingerprint
from ...models.loading import load_model_wrapper
from ...models.probe import model_label_names
from ...shared.digest import content_digest
from ...shared.label_names import readable_names
from .computation import DEFAULT_M, KappaSetup
from .result import FlipCapability, FlipCapabilityResult

DEFAULT_SHARD_SIZE = 25  # examples per shard when --ray is given without --shards
CHECKPOINT_SECONDS = 2.0  # a running shard saves its progress at most this often (after an example)


class KappaTask:
    """The picklable κ work of one shard: load the model once per worker, count a shard's flips.

    ``resumable``: :meth:`run` continues from the progress it saved (``saved``) and saves its
    progress through ``save`` at most every ``checkpoint_seconds`` (docs/design/sharding.md).
    """

    resumable = True

    def __init__(
        self,
        model_spec,
        method,
        m,
        device=None,
        batch_size=256,
        vocab_limit=None,
        checkpoint_seconds=CHECKPOINT_SECONDS,
        progress=None,
        dtype=None,
        vocab_from=None,
    ):
        self.model_spec, self.method, self.m, self.dtype, self.vocab_from = model_spec, method, m, dtype, vocab_from
        self.device, self.batch_size, self.vocab_limit = device, batch_size, vocab_limit
        self.checkpoint_seconds, self.progress = checkpoint_seconds, progress

    def setup(self):
        model = (
            self.model_spec
            if not isinstance(self.model_spec, str)
            else load_model_wrapper(self.model_spec, self.device, self.batch_size, self.dtype)
        )
        limits = {"vocab_limit": self.vocab_limit, "vocab_from": self.vocab_from}
        return KappaSetup(model, device=self.device, batch_size=self.batch_size, **limits)

    def run(self, setup, shard, saved=None, save=None):
        examples = [(t, y) for t, y in shard.items]
        metric, start = None, 0
        if saved is not None:
            metric, start = FlipCapability.from_state(saved["state"]), saved["next"]
        last_save = [time.perf_counter()]

        def after_example(i, metric):
            if save is not None and time.perf_counter() - last_save[0] >= self.checkpoint_seconds:
                save({"state": metric.state(), "next": i + 1})
                last_save[0] = time.perf_counter()

        metric = setup.count(
            examples,
            self.method,
            self.m,
            metric=metric,
            start=start,
            after_example=after_example,
            progress=self.progress,
        )
        return metric.state()


def kappa_shards(model_wrapper, examples, method, m, vocab_limit, num_shards, vocab_from=None):
    """The shards of a κ run: ``(run settings, [Shard])``, keyed by the model's fingerprint, the settings,
    the layout and each shard's examples."""
    settings = {
        "what": "kappa",
        "model": model_fingerprint(model_wrapper),
        "method": method,
        "m": m,
        "vocab_limit": vocab_limit,
        "shards": num_shards,
    }
    if vocab_from:
        settings["vocab_from"] = vocab_from
    return settings, make_shards([[t, None if y is None else int(y)] for t, y in examples], settings, num_shards)


def compute_flip_capability(
    model,
    examples,
    method="euba",
    m=DEFAULT_M,
    batch_size=256,
    device=None,
    options=None,
    folder=None,
    one_run=True,
    model_spec=None,
    vocab_limit=None,
    settings=None,
    progress=True,
    checkpoint_seconds=CHECKPOINT_SECONDS,
    dtype=None,
    vocab_from=None,
    vocab_rows=None,
):
    """κ and ρ of a classifier on ``examples`` (list of ``(text, label)``), shard by shard (module docstring).

    Args:
        model: the model wrapper (loaded here: fingerprint, vocabulary, the shards run in this process),
            or a model spec to load (``load_model_wrapper`` forms: demo victim, folder, ``.py``).
        method: ``"euba"`` (paper Algorithm 1) or ``"brute"`` (exact).
        m: EUBA early stop (None = unbounded, equal to brute force).
        options: :class:`~...distributed.ClusterOptions` (``--ray``, ``--shards``, workers, threads, GPUs).
        folder: the shard store (``None``: nowhere, no resume). ``one_run``: the folder belongs to this
            output only, so an unfinished run with other settings there raises
            :class:`~...distributed.CheckpointMismatch` (a finished one does not); ``False`` for a
            store shared by many runs (the κ cache).
        model_spec: what Ray workers load (default: ``model`` itself, pickled to them), in ``dtype``.
        batch_size: rows per forward pass: EUBA's verification batches and brute force's chunks are built
            on the model's device in chunks of this size (``--model-batch-size``).
        vocab_limit: keep only the first N vocabulary entries (for quick comparisons).
        vocab_from: keep only the vocabulary entries that occur in this data set's training sentences
            (``"mr"`` or a CSV), before ``vocab_limit``; ``vocab_rows``: its rows, already loaded (in this process
            only: a worker reads ``vocab_from`` itself).
        settings: recorded in the result with the method, ``m``, vocabulary and examples, the model's
            :func:`~...models.fingerprint.weights_fingerprint` (``model_fingerprint``: :mod:`.ownership`) and the
            shard layout when ``--shards``/``--ray`` asked for one.
    Returns:
        :class:`FlipCapabilityResult`, with the run's :class:`~...distributed.RunStats` as ``.stats`` and
        its shards' keys (file names in ``folder``) as ``.shard_keys``.
    """
    if method not in ("euba", "brute"):
        raise ValueError("method must be 'euba' or 'brute'")
    options = options or ClusterOptions()
    model_spec = model if model_spec is None else model_spec
    if isinstance(model, str):
        model = load_model_wrapper(model, device, batch_size, dtype)
    limits = {"vocab_limit": vocab_limit, "vocab_from": vocab_from, "vocab_rows": vocab_rows}
    setup = KappaSetup(model, device=device, batch_size=batch_size, **limits)
    num_shards = shard_count(len(examples), options, ray_size=DEFAULT_SHARD_SIZE)
    key, shards = kappa_shards(model, examples, method, m, vocab_limit, num_shards, vocab_from)
    run_key = content_digest([key, [s.key for s in shards]]) if one_run else None
    desc = f"κ ({method}{'' if method == 'brute' else f', m={m}'})" if progress else None
    task = KappaTask(
        model_spec,
        method,
        m,
        device,
        batch_size,
        vocab_limit,
        checkpoint_seconds,
        progress=None if options.distributed else desc,  # Ray: one bar over shards, none per sentence
        dtype=dtype,
        vocab_from=vocab_from,
    )
    states, stats = run_shards(
        task,
        shards,
        ShardStore(folder, run_key),
        options,
        desc="κ shards",
        progress=bool(progress) and (options.distributed or len(shards) > 1),
        local_state=setup,
    )
    metric = setup.new_metric(examples)
    for state in states:
        metric.merge(FlipCapability.from_state(state))
    settings = dict(settings or {}, method=method, m=m, vocabulary=len(setup.words), examples=len(examples))
    # whose κ this is: checked wherever it is read for a model (ownership.py)
    settings["model_fingerprint"] = weights_fingerprint(model)
    names = readable_names(model_label_names(model, metric.counts.shape[1]))
    if names:  # the κ table's per-class columns by name (result.py)
        settings["label_names"] = names
    if vocab_from:
        settings["vocab_from"] = vocab_from
    if options.sharded:
        settings.update(shards=num_shards, ray=options.ray)
    result = FlipCapabilityResult(metric, settings)
    result.stats = stats
    result.shard_keys = [s.key for s in shards]  # where each shard lies in ``folder`` (the κ cache names its entry)
    return result
