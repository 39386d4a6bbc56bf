"""SP-Defense's gradient-based choice (Xu et al., Eq. 5; docs/design/defenses.md) on batched token ids.

For a batch of encoded sentences (:class:`~.token_edits.EncodedExamples`) and their labels ``y``,
one forward and one backward pass on the words of each sentence give ``log f(y|x)`` and its
gradient ``g_i`` at every word embedding; then for every single-token word ``i`` and vocabulary
word ``w``

    v_w^(i) = <g_i, e_w − e_{x_i}> + log f(y|x)          (Eq. 5)

is one matrix product over the batch. The choice is three named steps:

1. :func:`eq5_scores` — ``v`` at every substitutable position (the first-order estimate that
   TextAttack's ``WordSwapGradientBased`` also computes, ``E · g_i − e_{x_i} · g_i``, plus ``log f(y|x)``);
2. :func:`lowest_per_row` — each sentence's K lowest ``v`` over (position, word);
3. the check — ``candidates`` = 1 applies the minimum (the paper's rule); K > 1 rewrites the K lowest as
   token ids (:meth:`~.token_edits.EncodedExamples.edited_content`), scores them with one batched forward
   pass (:func:`check_candidates`, in chunks of the classifier's batch size, shortest rows first) and
   applies the one whose real ``f(y|x')`` is lowest.

Nothing leaves the device but the number of candidates per sentence (one small copy per batch). Ties go
to the first in the order (position, then vocabulary entry; for K > 1 the order of increasing ``v``).
"""

import numpy as np
import torch

from ..models.word_models import is_word_model

# Checked gradient candidates on the word models: 32 (docs/design/defenses.md, item 7 and the tables).
WORD_MODEL_GRADIENT_CANDIDATES = 32


def default_gradient_candidates(model):
    """How many Eq. 5 candidates the gradient augmentation checks by default (docs/design/defenses.md, item 7).

    1 (the paper's rule: apply the minimum of Eq. 5) for transformers, the models the paper defends;
    :data:`WORD_MODEL_GRADIENT_CANDIDATES` for this package's word models, where the first-order minimum
    is a weak adversary (the figures are in docs/design/defenses.md).
    ``model``: a Hugging Face model, or a ``TokenClassifier`` / model wrapper holding one.
    """
    model = getattr(model, "model", model)
    return WORD_MODEL_GRADIENT_CANDIDATES if is_word_model(model) else 1


def gradient_choice(clf, encoded, rows, labels, vocab_ids, table, candidates=1):
    """The substitution Eq. 5 (``candidates`` = 1) or its checked variant picks for each row.

    Args:
        clf: the :class:`~..models.token_classifier.TokenClassifier` (its model as it is now).
        encoded: :class:`~.token_edits.EncodedExamples`; ``rows`` (a list or array on the host) index it.
        labels: LongTensor of the labels ``y`` of ``rows``.
        vocab_ids: LongTensor (V,) of the vocabulary the replacement comes from (on the device).
        table: :class:`~.token_edits.SurfaceTable` of the same vocabulary's words (for K > 1).
    Returns:
        ``(word_index, vocab_index)``, LongTensors on the device; ``word_index`` is -1 where the
        sentence has no single-token word to substitute.
    """
    device = clf.device
    B = len(rows)
    word_index = torch.full((B,), -1, dtype=torch.long, device=device)
    vocab_index = torch.zeros((B,), dtype=torch.long, device=device)
    keep_host = encoded.num_words[np.asarray(rows, dtype=np.int64)] > 0  # texts with words (known on the host)
    if not keep_host.any():
        return word_index, vocab_index
    keep = torch.as_tensor(keep_host, device=device)
    rows_k = torch.as_tensor(np.asarray(rows, dtype=np.int64)[keep_host], device=device)
    labels_k = labels[keep]
    scores = eq5_scores(clf, encoded, rows_k, labels_k, vocab_ids)
    V = len(vocab_ids)
    vals, idx = lowest_per_row(scores, 1 if candidates == 1 else min(int(candidates), scores.width * V), V)
    if candidates == 1:
        best, ok = idx[:, 0], torch.isfinite(vals[:, 0])
    else:
        best, ok = check_candidates(clf, encoded, rows_k, labels_k, scores.word_of, idx, torch.isfinite(vals), V, table)
    pos, w = best // V, best % V
    chosen_word = scores.word_of.gather(1, pos[:, None])[:, 0]
    kept_rows = torch.nonzero(keep)[:, 0]
    word_index[kept_rows] = torch.where(ok, chosen_word, torch.full_like(chosen_word, -1))
    vocab_index[kept_rows] = w
    return word_index, vocab_index


class Eq5Scores:
    """``v`` (P, V) at the P substitutable positions ``at`` (P, 2: row, position) of a batch of ``rows``
    whose words-only inputs are ``width`` positions wide; ``word_of`` (rows, width) maps a position to its word."""

    def __init__(self, v, at, word_of, rows, width):
        self.v, self.at, self.word_of, self.rows, self.width = v, at, word_of, rows, width


def eq5_scores(clf, encoded, rows, labels, vocab_ids):
    """Step 1: Eq. 5's ``v_w^(i)`` for every vocabulary word at every position that is a whole word on its own.

    One forward and one backward pass on the words of ``rows`` (LongTensor) give ``log f(y|x)`` and the
    gradient ``g`` at each word embedding; ``v = g · (e_w − e_{x_i}) + log f(y|x)`` is one matrix product over
    the packed positions — TextAttack's ``WordSwapGradientBased`` ranks swaps by the same first-order term
    (``lookup_table.mv(grad) − a_grad``). A word is no substitute for itself: its own entry is ``+inf``.
    """
    model = clf.model
    ids, mask, word_of = encoded.words_only_inputs(rows)
    embeds = model.get_input_embeddings()(ids).detach().requires_grad_(True)
    was_training = model.training
    model.eval()
    logits = model(inputs_embeds=embeds, attention_mask=mask).logits
    logp = torch.log_softmax(logits.float(), -1).gather(1, labels[:, None])[:, 0]
    (grad,) = torch.autograd.grad(logp.sum(), embeds)
    model.train(was_training)
    # token positions that are a whole word on their own (and no special token)
    same_word = (word_of[:, :, None] == word_of[:, None, :]) & (word_of[:, :, None] >= 0)
    single = (word_of >= 0) & (same_word.sum(-1) == 1)
    special = torch.as_tensor(sorted(clf.special_ids), dtype=torch.long, device=clf.device)
    at = (single & ~torch.isin(ids, special)).nonzero()  # (P, 2), row-major: the order (row, position)
    g = grad[at[:, 0], at[:, 1]]
    cur = embeds.detach()[at[:, 0], at[:, 1]]
    v = g @ clf.embedding_matrix()[vocab_ids].T
    v.sub_((g * cur).sum(1, keepdim=True)).add_(logp.detach()[at[:, 0], None])  # in place: same sums, no copies
    column = _vocab_column(clf, vocab_ids)[ids[at[:, 0], at[:, 1]]][:, None]
    hit = column >= 0
    v.scatter_(1, column.clamp(min=0), torch.where(hit, float("inf"), v.gather(1, column.clamp(min=0))))
    return Eq5Scores(v, at, word_of, rows, grad.shape[1])


def lowest_per_row(scores, k, V):
    """Step 2: each row's ``k`` lowest ``v`` over (position, word), as ``(values (rows, k), flat index
    position * V + word (rows, k))``, lowest first; ``+inf`` where a row has fewer than ``k`` candidates.

    Per position its ``k`` lowest first, then per row the ``k`` lowest of those. For ``k`` = 1 the first
    minimum: the lowest position, then the lowest vocabulary entry.
    """
    v, at, b, L = scores.v, scores.at, len(scores.rows), scores.width
    kk = min(k, V)
    vals, words = torch.topk(v, kk, dim=1, largest=False, sorted=False) if kk > 1 else v.min(1, keepdim=True)
    per_row = torch.full((b, L, kk), float("inf"), device=v.device, dtype=vals.dtype)
    per_row[at[:, 0], at[:, 1]] = vals
    flat_vals = per_row.reshape(b, L * kk)
    word_at = torch.zeros((b, L, kk), dtype=torch.long, device=v.device)
    word_at[at[:, 0], at[:, 1]] = words
    if k == 1:
        slot = flat_vals.argmin(1, keepdim=True)
        low = flat_vals.gather(1, slot)
    else:
        low, slot = torch.topk(flat_vals, min(k, flat_vals.shape[1]), dim=1, largest=False)
    return low, (slot // kk) * V + word_at.reshape(b, -1).gather(1, slot)


def _vocab_column(clf, vocab_ids):
    """``column[token id]`` = index of that token in ``vocab_ids`` (-1 if absent), cached per vocabulary."""
    key = (vocab_ids.data_ptr(), len(vocab_ids))
    cache = getattr(clf, "_vocab_columns", None)
    if cache is None or cache[0] != key:
        size = max(int(vocab_ids.max()) + 1 if len(vocab_ids) else 0, clf.model.get_input_embeddings().num_embeddings)
        column = torch.full((size,), -1, dtype=torch.long, device=vocab_ids.device)
        column[vocab_ids] = torch.arange(len(vocab_ids), device=vocab_ids.device)
        clf._vocab_columns = cache = (key, column)
    return cache[1]


def check_candidates(clf, encoded, rows, labels, word_of, idx, finite, V, table):
    """Step 3 for K > 1: of each row's K candidates (flat indices ``idx``, ``finite`` = real), the one with the
    lowest ``f(y|x')``, and whether the row had any; one forward pass over all real candidates, in chunks of
    ``clf.batch_size``."""
    b, k = idx.shape
    cand_rows = rows[:, None].expand(b, k)[finite]
    cand_words = word_of.gather(1, idx // V)[finite]
    cand_vocab = (idx % V)[finite]
    content, lengths = encoded.edited_content(cand_rows, cand_words, table, cand_vocab)
    # shortest first, so that each chunk is padded to little more than its own rows (the word models give
    # every row the same logits whatever its padding; chunks of the classifier's batch size)
    order = torch.argsort(lengths, stable=True)
    probs = torch.empty((len(content), 0), device=idx.device)
    was_training = clf.model.training
    clf.model.eval()
    with torch.no_grad():
        for s in range(0, len(content), clf.batch_size):
            part = order[s : s + clf.batch_size]
            chunk_len = lengths[part]
            ids, mask = encoded.with_specials(content[part, : int(chunk_len.max())], chunk_len)
            p = torch.softmax(clf.model(input_ids=ids, attention_mask=mask).logits.float(), -1)
            if probs.shape[1] == 0:
                probs = torch.empty((len(content), p.shape[1]), device=idx.device)
            probs[part] = p
    clf.model.train(was_training)
    p_y = torch.full((b, k), float("inf"), device=idx.device)
    if len(content):
        label_of = labels[:, None].expand(b, k)[finite]
        p_y[finite] = probs.gather(1, label_of[:, None])[:, 0]
    choice = p_y.argmin(1)
    return idx.gather(1, choice[:, None])[:, 0], finite.any(1)
