"""Single-word flip capability κ and robustness ρ: EUBA and brute force (Xu et al.; docs/design/single-word.md).

``D+`` are the examples the classifier gets right; ``S(x, w)`` the sentences made
by putting word ``w`` at one position of ``x``. ``A[i, w] = 1`` when some sentence
of ``S(x_i, w)`` is misclassified.

* κ(w) = (1/|D+|) Σ_i A[i, w]                      (flip capability, Eq. 1)
* ρ(f) = 1 − (1/|V|) Σ_w κ(w)                       (robustness to single-word perturbation)

``ρ`` on a training sample, ``ρ*`` on the test set. Two ways to get ``A``:

* **EUBA** (docs/design/single-word.md; paper §3, Algorithm 1): for each sentence, the ``l``
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
import torch
from tqdm.auto import tqdm

from ...augmentation.vocabulary import augmentation_vocabulary
from ...datasets.examples import load_examples
from ...models.token_classifier import TokenClassifier
from .result import FlipCapability

DEFAULT_M = 512  # paper: early stop m = 512 by default


def _verify(clf, base, positions, tokens):
    """Predicted labels (host numpy) of ``base`` with each ``(positions[i], tokens[i])`` substitution applied;
    the rows are built on the model's device, one forward pass per ``clf.batch_size`` rows."""
    n = len(positions)
    rows = base.repeat(n, 1)
    rows[torch.arange(n, device=base.device), positions] = tokens
    return clf.predict_labels(rows).cpu().numpy()


def _walk(block_words, flipped, success, fails, limit):
    """The sequential early-stop rule over one verified block, vectorised (docs/design/single-word.md).

    In order, a candidate whose word already flipped the sentence is skipped (not a query); a flip marks
    its word and resets the failure count; ``limit`` failures in a row stop the search. ``success`` is
    updated in place. Returns ``(queries, fails, stopped)``.
    """
    n = len(block_words)
    # skipped: an earlier candidate of the block with the same word flipped
    firsts = np.full(n, n)
    flips = np.flatnonzero(flipped)
    if len(flips):
        words, first = np.unique(block_words[flips], return_index=True)  # each word's first flip in the block
        at = np.minimum(np.searchsorted(words, block_words), len(words) - 1)
        has = words[at] == block_words
        firsts[has] = flips[first[at[has]]]
    effective = np.flatnonzero(firsts >= np.arange(n))
    eflip = flipped[effective]
    k = np.arange(len(effective))
    last = np.maximum.accumulate(np.where(eflip, k, -1)) if len(k) else k
    run = np.where(last >= 0, k - last, fails + k + 1)  # failures in a row ending at each candidate
    over = np.flatnonzero(run >= limit)
    stop = int(over[0]) if len(over) else len(effective) - 1
    done = effective[: stop + 1]
    success[block_words[done[flipped[done]]]] = True
    return stop + 1, (int(run[stop]) if len(effective) else fails), bool(len(over))


def euba_flips(clf, ids, positions, label, vocab_ids, emb_v_minus_mask, m, phase2_order, chunk=None):
    """EUBA for one sentence: indices (into ``vocab_ids``) of words that flip it, and the queries used.

    ``phase2_order``: vocabulary indices sorted by decreasing running count for class ``label``.
    ``m``: early stop after m consecutive failures (None = unbounded: exact).
    ``emb_v_minus_mask``: ``e_w − e_mask`` (|V| × d, float64), a tensor on the model's device.
    The estimate, its order and every verification batch are computed on the model's device, in
    batches of ``chunk`` (default ``clf.batch_size``) substitutions; only each batch's predicted labels
    and the order come back. How the candidates are cut into batches does not change the result.
    """
    device = clf.device
    logp, grads = clf.masked_gradients(ids, positions, label, as_numpy=False)
    # u[k, w] = <g_k, e_w - e_mask> + log f(y|s_k)  (Eq. 3) as one matrix product
    u = grads @ emb_v_minus_mask.T + logp[:, None]
    V = len(vocab_ids)
    base = torch.tensor(ids, device=device)
    vocab_t = torch.as_tensor(np.asarray(vocab_ids), dtype=torch.long, device=device)
    pos_t = torch.as_tensor(positions, dtype=torch.long, device=device)
    success = np.zeros(V, dtype=bool)
    queries = 0
    limit = math.inf if m is None else m
    step = max(1, int(chunk or clf.batch_size))

    def run(cand_pos, cand_words):
        """Verify (position index, word index) pairs in order; early stop on ``m`` consecutive failures."""
        nonlocal queries
        fails = 0
        for s in range(0, len(cand_words), step):
            k, w = cand_pos[s : s + step], cand_words[s : s + step]
            keep = ~success[w]
            if not keep.any():
                continue
            k, w = k[keep], w[keep]
            kt = torch.as_tensor(k, device=device)
            wt = torch.as_tensor(w, device=device)
            flipped = _verify(clf, base, pos_t[kt], vocab_t[wt]) != label
            q, fails, stopped = _walk(w, flipped, success, fails, limit)
            queries += q
            if stopped:
                return

    # Phase 1: all substitutions in increasing order of u
    flat = torch.argsort(u.reshape(-1), stable=True).cpu().numpy()
    run(flat // V, flat % V)
    # Phase 2: words that flipped most sentences of this class, each at its best position
    best_pos = u.argmin(0).cpu().numpy()
    order = np.asarray(phase2_order, dtype=np.int64)
    run(best_pos[order], order)
    return np.flatnonzero(success), queries


def brute_force_flips(clf, ids, positions, label, vocab_ids):
    """Every word at every position: indices of flipping words and the queries used (l × |V|).

    The rows are built on the model's device, ``clf.batch_size`` per forward pass."""
    base = torch.tensor(ids, device=clf.device)
    success = torch.zeros(len(vocab_ids), dtype=torch.bool, device=clf.device)
    vocab_t = torch.as_tensor(np.asarray(vocab_ids), dtype=torch.long, device=clf.device)
    for p in positions:
        for s in range(0, len(vocab_ids), clf.batch_size):
            chunk = vocab_t[s : s + clf.batch_size]
            rows = base.repeat(len(chunk), 1)
            rows[:, p] = chunk
            success[s : s + len(chunk)] |= clf.predict_labels(rows) != label
    return np.flatnonzero(success.cpu().numpy()), len(positions) * len(vocab_ids)


class KappaSetup:
    """What κ needs from the model, computed once: the token classifier, ``V`` and ``e_w − e_mask``."""

    def __init__(self, model_wrapper, device=None, batch_size=256, vocab_limit=None, vocab_from=None, vocab_rows=None):
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
        if vocab_from:
            # only the entries that occur in these training sentences (a transformer's first entries are single
            # characters and other scripts: MiniLM's first 3,000 letter entries hold 804 single characters)
            # (``vocab_rows``: its rows already loaded, e.g. by a Ray driver for a worker without the file)
            rows = vocab_rows if vocab_rows is not None else load_examples(vocab_from, "train")
            self.vocab_ids, self.words = augmentation_vocabulary(self.clf, rows)
        if vocab_limit:
            self.vocab_ids, self.words = self.vocab_ids[:vocab_limit], self.words[:vocab_limit]
        E = self.clf.embedding_matrix().double()  # on the model's device, float64 (docs/design/single-word.md)
        vocab = torch.as_tensor(self.vocab_ids, dtype=torch.long, device=E.device)
        self.emb_v_minus_mask = E[vocab] - E[self.clf.mask_id]

    def new_metric(self, examples):
        """An empty :class:`FlipCapability` over ``V`` with the model's number of classes."""
        probs = self.clf.predict_texts([t for t, _ in examples[:1]] or ["a"])
        return FlipCapability(self.words, probs.shape[1])

    def count(self, examples, method, m, metric=None, start=0, after_example=None, progress=None):
        """Add ``A[i, ·]`` of ``examples[start:]`` to ``metric`` (new if None) and return it.

        Only ``D+`` counts. EUBA's phase 2 orders words by the counts of ``metric`` so far, so
        with a bounded ``m`` the result depends on which sentences came before in the same
        metric (docs/design/sharding.md: a shard starts from zero counts).
        ``after_example(i, metric)`` is called after each example (checkpoints).
        """
        metric = metric if metric is not None else self.new_metric(examples)
        iterator = range(start, len(examples))
        if progress:
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
