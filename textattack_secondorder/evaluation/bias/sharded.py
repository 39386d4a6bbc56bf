"""The picklable bias work of one shard (a group of protected pairs) for Ray actors (docs/methods.md §7).

An actor loads the victim and the masked-LM neighbourhood once (:meth:`BiasTask.setup`)
and measures its pairs with the same :meth:`CounterfactualBias.run_pair
<.computation.CounterfactualBias.run_pair>` as a single run; a pair's neighbourhood and
sampling depend only on the pair, the texts and the seed, so the merged table equals the
single run's.
"""

from ...models.loading import load_model_wrapper


class BiasTask:
    """Builds a :class:`~.computation.CounterfactualBias` per worker; ``run`` gives a shard's pair records.

    ``model_spec``: what the workers load (``--model`` forms) or a picklable model object;
    ``masked_lm``: a masked-LM slot value or a picklable proposer; ``options``: the other
    :class:`~.computation.CounterfactualBias` arguments.
    """

    def __init__(self, model_spec=None, device=None, masked_lm=None, options=None):
        self.model_spec, self.device, self.masked_lm = model_spec, device, masked_lm
        self.options = dict(options or {})

    def setup(self):
        if self.model_spec is None:
            raise ValueError("a bias run on Ray needs the model as a spec the workers can load (--model)")
        from ...transformations.neighborhood import WordSwapNeighborhood
        from .computation import CounterfactualBias

        model = (
            self.model_spec
            if not isinstance(self.model_spec, str)
            else load_model_wrapper(self.model_spec, self.device, self.options.get("batch_size", 128))
        )
        return CounterfactualBias(
            model, WordSwapNeighborhood(self.masked_lm, device=self.device), **dict(self.options, progress=False)
        )

    def run(self, bias, shard):
        return bias.pair_records(shard.context["texts"], [tuple(p) for p in shard.items])
