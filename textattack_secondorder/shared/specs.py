"""What users type to name a victim, a data set, a precision and how to spread a run.

The command line shows these texts and names when it builds its parsers, before anything loads;
the library modules that act on the values import them from here. This module imports nothing.
"""

#: ``--model``: the forms :func:`~textattack_secondorder.models.loading.load_model_wrapper` accepts
MODEL_SPEC_HELP = (
    "victim: a demo victim name (mr-cnn, mr-lstm, mr-bow, mr-minilm; certified: mr-cnn-ibp, mr-bow-ibp, mr-lstm-ibp), "
    "a local Hugging Face model directory, "
    "a hub model id (online), or a Python file defining `model` (a TextAttack ModelWrapper), as `file.py` "
    "or `file.py^variable`"
)

#: ``--dataset``: the forms :func:`~textattack_secondorder.datasets.examples.load_examples` accepts
DATASET_SPEC_HELP = "texts: 'mr' (movie-review sentences), a CSV file (see --text-column) or a text file, one per line"

#: ``--dtype``: the precision a model runs in (float32 unless a user asks for half precision);
#: :func:`~textattack_secondorder.shared.device.torch_dtype` turns a name into the torch dtype
DTYPES = ("float32", "bfloat16", "float16")

#: the cluster flags and ``[run]`` keys (``--shards``, ``[run] shards``; docs/design/sharding.md) -> the
#: :class:`~textattack_secondorder.distributed.ClusterOptions` field each one sets
CLUSTER_FLAGS = {
    "ray": "ray",
    "shards": "num_shards",
    "workers": "workers",
    "threads_per_worker": "threads_per_worker",
    "gpus_per_worker": "gpus_per_worker",
}
