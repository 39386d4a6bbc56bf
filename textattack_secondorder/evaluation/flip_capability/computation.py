"""Single-word flip capability κ and robustness ρ: EUBA and brute force (Xu et al.; docs/methods.md §2.1–2.2).

``D+`` are the examples the classifier gets right; ``S(x, w)`` the sentences made
by putting word ``w`` at one position of ``x``. ``A[i, w] = 1`` when some sentence
of ``S(x_i, w)`` is misclassified.

* κ(w) = (1/|D+|) Σ_i A[i, w]                      (flip capability, Eq. 1)
* ρ(f) = 1 − (1/|V|) Σ_w κ(w)                       (robustness to single-word perturbation)

``ρ`` on a training sample, ``ρ*`` on the test set. Two ways to get ``A``:

* **EUBA** (docs/methods.md §2.2; paper §3, Algorithm 1): for each sentence, the ``l``
  masked copies go through the model in one batched forward/backward, giving
  ``log f(y|s_k)`` and the gradient ``g_k`` w.r.t. the mask embedding at ``k``; the
  first-order estimate ``u_w^(k) = <g_k, e_w − e_mask> + log f(y|s_k)`` (Eq. 3) for
  every word and position is one matrix product. Phase 1 verifies substitutions in
  increasing ``u`` (skipping words that already flipped ``x``) until ``m``
  consecutive failures; phase 2 tries the words that flipped most sentences of
  class ``y`` so far, each at its best position, with the same early stop. κ from
  EUBA is a lower bound (ρ an upper bound); with ``m = None`` (unbounded) it is exact.
* **Brute force**: every word at every position.

Positions and words. Positions are the model's tokens (sub-word tokens for
transformers, words for word-level models; special tokens excluded); the
vocabulary is the model's single-token entries made of letters only
(bert-base-uncased: 30,522 → ~21.7k), as in the reference code. A word that
needs several sub-word tokens is not in ``V``. The "mask" is the tokenizer's mask
token, else its unknown token (a neutral embedding for word-level models).

The same code serves Hugging Face classifiers and the package's word-level
victims: anything with ``get_input_embeddings()`` that accepts ``inputs_embeds``
(through :class:`~textattack_secondorder.models.token_classifier.TokenClassifier`).

Running it over a data set, sharded and resumable, in this process or on Ray: :mod:`.sharded`.
"""

import math
import time

import numpy as np

# torch and tqdm inside functions: the CLI imports this module at parse time (flip_capability_cmd), and
# `textattack-so --help` must stay free of torch (~0.5 s instead of ~6 s more for torch alone, measured).
from ...models.token_classifier import TokenClassifier
from .result import FlipCapability

DEFAULT_M = 512  # paper: early stop m = 512 by default


def _verify(clf, base, subs):
    """Predicted labels of ``base`` with each (position, token id) substitution applied."""
    import torch

    rows = base.repeat(len(subs), 1)
    pos = torch.tensor([p for p, _ in subs])
    rows[torch.arange(len(subs)), pos] = torch.tensor([t for _, t in subs])
    return clf.predict(rows).argmax(-1).numpy()


def euba_flips(clf, ids, positions, label, vocab_ids, emb_v_minus_mask, m, phase2_order, chunk=256):
    """EUBA for one sentence: indices (into ``vocab_ids``) of words that flip it, and the queries used.

    ``phase2_order``: vocabulary indices sorted by decreasing running count for class ``label``.
    ``m``: early stop after m consecutive failures (None = unbounded: exact).
    """
    import torch

    logp, grads = clf.masked_gradients(ids, positions, label)
    # u[k, w] = <g_k, e_w - e_mask> + log f(y|s_k)  (Eq. 3) as one matrix product
    u = grads @ emb_v_minus_mask.T + logp[:, None]
    V = len(vocab_ids)
    base = torch.tensor(ids)
    success = np.zeros(V, dtype=bool)
    queries = 0
    limit = math.inf if m is None else m
    step = chunk if m is None else max(1, min(chunk, m))

    def run(candidates):
        """Verify (position index, word index) pairs in order; early stop on ``m`` consecutive failures."""
        nonlocal queries
        fails = 0
        for s in range(0, len(candidates), step):
            block = [(k, w) for k, w in candidates[s : s + step] if not success[w]]
            if not block:
                continue
            labels = _verify(clf, base, [(positions[k], int(vocab_ids[w])) for k, w in block])
            for (_, w), pred in zip(block, labels):
                if success[w]:  # flipped earlier in this block: the sequential algorithm skips it
                    continue
                queries += 1
                if pred != label:
                    success[w] = True
                    fails = 0
                else:
                    fails += 1
                    if fails >= limit:
                        return

    # Phase 1: all substitutions in increasing order of u
    flat = np.argsort(u, axis=None, kind="stable")
    run([(int(i // V), int(i % V)) for i in flat])
    # Phase 2: words that flipped most sentences of this class, each at its best position
    best_pos = u.argmin(0)
    run([(int(best_pos[w]), int(w)) for w in phase2_order])
    return np.flatnonzero(success), queries


def brute_force_flips(clf, ids, positions, label, vocab_ids):
    """Every word at every position: indices of flipping words and the queries used (l × |V|)."""
    import torch

    base = torch.tensor(ids)
    success = np.zeros(len(vocab_ids), dtype=bool)
    vocab_t = torch.tensor(vocab_ids)
    for p in positions:
        for s in range(0, len(vocab_ids), clf.batch_size):
            chunk = vocab_t[s : s + clf.batch_size]
            rows = base.repeat(len(chunk), 1)
            rows[:, p] = chunk
            success[s : s + len(chunk)] |= clf.predict(rows).argmax(-1).numpy() != label
    return np.flatnonzero(success), len(positions) * len(vocab_ids)


class KappaSetup:
    """What κ needs from the model, computed once: the token classifier, ``V`` and ``e_w − e_mask``."""

    def __init__(self, model_wrapper, device=None, batch_size=256, vocab_limit=None):
        if hasattr(model_wrapper, "get_input_embeddings"):
            raise TypeError("pass a TextAttack model wrapper (with .model and .tokenizer), not a bare model")
        self.clf = (
            model_wrapper
            if isinstance(model_wrapper, TokenClassifier)
            else TokenClassifier.from_model_wrapper(
                model_wrapper, "flip capability κ/ρ", device=device, batch_size=batch_size
            )
        )
        self.vocab_ids, self.words = self.clf.vocabulary()
        if vocab_limit:
            self.vocab_ids, self.words = self.vocab_ids[:vocab_limit], self.words[:vocab_limit]
        E = self.clf.embedding_matrix().cpu().numpy().astype(np.float64)
        self.emb_v_minus_mask = E[self.vocab_ids] - E[self.clf.mask_id]

    def new_metric(self, examples):
        """An empty :class:`FlipCapability` over ``V`` with the model's number of classes."""
        probs = self.clf.predict_texts([t for t, _ in examples[:1]] or ["a"])
        return FlipCapability(self.words, probs.shape[1])

    def count(self, examples, method, m, metric=None, start=0, after_example=None, progress=None):
        """Add ``A[i, ·]`` of ``examples[start:]`` to ``metric`` (new if None) and return it.

        Only ``D+`` counts. EUBA's phase 2 orders words by the counts of ``metric`` so far, so
        with a bounded ``m`` the result depends on which sentences came before in the same
        metric (docs/methods.md §7: a shard starts from zero counts).
        ``after_example(i, metric)`` is called after each example (checkpoints).
        """
        metric = metric if metric is not None else self.new_metric(examples)
        iterator = range(start, len(examples))
        if progress:
            from tqdm.auto import tqdm

            iterator = tqdm(iterator, desc=progress, unit="sentence", initial=start, total=len(examples))
        for i in iterator:
            text, label = examples[i]
            metric.num_examples += 1
            # only D+ (correctly classified) counts; one text per call so the decision does not depend on
            # the batch's padding (a sharded run decides exactly as the single run)
            if int(np.argmax(self.clf.predict_texts([text])[0])) == int(label):
                self._count_one(metric, text, int(label), method, m)
            if after_example is not None:
                after_example(i, metric)
        return metric

    def _count_one(self, metric, text, label, method, m):
        ids, positions = self.clf.encode(text)
        t0 = time.perf_counter()
        if not positions:
            metric.update([], label)
            return
        if method == "brute":
            flips, q = brute_force_flips(self.clf, ids, positions, label, self.vocab_ids)
        else:
            order = np.argsort(-metric.counts[:, label], kind="stable")
            flips, q = euba_flips(self.clf, ids, positions, label, self.vocab_ids, self.emb_v_minus_mask, m, order)
        metric.update(flips, label, q, time.perf_counter() - t0)
