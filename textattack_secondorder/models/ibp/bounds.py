"""Interval bound propagation (IBP) through the word victims, over every combination of word swaps.

Jia et al. (2019, "Certified robustness to adversarial word substitutions"; docs/design/certified.md): each
position of a sentence may hold any of its choices (the word or a neighbour, :mod:`.substitutions`).
The model's first map of a word vector (the first affine map, or the word layer ``ReLU(A e + b)`` of the
certified victims) is applied to every choice's vector and the box (elementwise min/max) of the images
is taken, scaled by ``eps`` about the word's own image (``eps = 1``: the whole box, what a certificate covers;
``eps < 1``: the ramp of training; ``eps > 1``: a box larger than the choices' hull, a certified victim's
training target where that certifies more: ``models.catalogue.ibp_training``). From there the interval
``[lo, hi]`` goes through the model:

* affine maps by centre and radius: ``c' = W c + b``, ``r' = |W| r``;
* ReLU, sigmoid, tanh and max-pooling are monotone: applied to both ends;
* a product of two intervals (the LSTM's gates times its cell) is the min/max of the four end products;
* the classifier's logits are compared pairwise (``z_y - z_j`` has weights ``w_y - w_j``), which bounds
  the margin more tightly than the two logits' own intervals (Gowal et al. 2018's last-layer rule).

Every step over-approximates the set of values the real model can take, so a positive lower bound of
every margin means that no combination of swaps changes the prediction.
"""

import torch

from ...shared.errors import UserError

#: ``model_type`` of the models this module can bound (the package's word victims)
BOUNDABLE = ("so-word-bow", "so-word-cnn", "so-word-lstm")


class NotBoundableError(UserError, TypeError):
    """A model without interval bounds here (a transformer, a model from elsewhere): one line, exit code 2."""


def check_boundable(model, name=None):
    """Raise :class:`NotBoundableError` unless ``model`` is one of the package's word victims."""
    kind = str(getattr(getattr(model, "config", None), "model_type", type(model).__name__))
    if kind not in BOUNDABLE:
        raise NotBoundableError(
            f"{name or 'the model'} is a {kind!r} model: interval bounds are implemented for this package's "
            f"word victims only ({', '.join(BOUNDABLE)}: mr-cnn, mr-bow, mr-lstm and their -ibp versions)"
        )


def choice_box(images, eps=1.0):
    """``(lo, hi)`` over the choice axis (``-2``) of ``images``, scaled by ``eps`` about choice 0 (the word)."""
    own = images[..., 0, :]
    lo = own + eps * (images.min(dim=-2).values - own)
    hi = own + eps * (images.max(dim=-2).values - own)
    return lo, hi


def affine(lo, hi, weight, bias=None):
    """Interval of ``x @ weight.T + bias`` for ``x`` in ``[lo, hi]`` (centre and radius)."""
    centre, radius = (hi + lo) / 2, (hi - lo) / 2
    c = centre @ weight.T
    if bias is not None:
        c = c + bias
    r = radius @ weight.abs().T
    return c - r, c + r


def product(a_lo, a_hi, b_lo, b_hi):
    """Interval of ``a * b`` (elementwise): the min and max of the four products of the ends."""
    p = torch.stack([a_lo * b_lo, a_lo * b_hi, a_hi * b_lo, a_hi * b_hi])
    return p.min(dim=0).values, p.max(dim=0).values


def _mask(attention_mask, dtype):
    mask = attention_mask.to(dtype).clone()
    mask[mask.sum(1) == 0, 0] = 1  # as the model: an empty text keeps its first (zero-vector) position
    return mask


class _Positions:
    """What each position may hold, as the encoder reads it: ``linear(W)`` is the ``eps``-scaled box of
    ``W x`` over the position's choices ``x``, ``(batch, length, out)``, zero at padding (the model masks it).

    Without a word layer ``x`` is a word vector and the box is taken over the exact images ``W x_k`` of the
    choices. With Jia et al.'s word layer ``x = ReLU(A e + b)`` is boxed over the choices first (exact
    images, the ReLU being monotone) and ``W`` then maps that box by centre and radius.
    """

    def __init__(self, model, choice_ids, mask, eps):
        unique, self.inverse = torch.unique(choice_ids, return_inverse=True)
        self.vectors = model.embeddings(unique)  # each distinct word once
        self.keep = mask.unsqueeze(-1)
        self.eps = eps
        self.box = None
        layer = getattr(model, "word_layer", None)
        if layer is not None:
            images = torch.relu(self.vectors @ layer.weight.T + layer.bias)[self.inverse]  # (B, T, K, h)
            lo, hi = choice_box(images, eps)
            self.box = (lo * self.keep, hi * self.keep)

    def linear(self, weight):
        if self.box is not None:
            return affine(*self.box, weight)
        lo, hi = choice_box((self.vectors @ weight.T)[self.inverse], self.eps)
        return lo * self.keep, hi * self.keep


def _bow(model, positions, mask):
    """Mean of the word vectors -> Linear -> ReLU: the mean commutes with the linear map, so each position's
    box is taken after it, and the mean of the boxes is exact."""
    lo, hi = positions.linear(model.hidden.weight)
    count = mask.sum(1, keepdim=True)
    lo = lo.sum(1) / count + model.hidden.bias
    hi = hi.sum(1) / count + model.hidden.bias
    return torch.relu(lo), torch.relu(hi)


def _cnn(model, positions, mask):
    """Conv1d -> ReLU -> max (or mean) over positions: output ``t`` is the bias plus one term per kernel offset
    ``j``, ``W_j x[t + j - pad]``; each term's box comes from the choices of its own position. The mean of the
    positions' boxes bounds the mean (positive weights)."""
    conv = model.conv
    weight = conv.weight  # (H, d, k)
    hidden, dim, width = weight.shape
    pad = conv.padding[0]
    batch, length = mask.shape
    lo, hi = positions.linear(weight.permute(2, 0, 1).reshape(width * hidden, dim))  # (B, T, k*H)
    lo, hi = lo.view(batch, length, width, hidden), hi.view(batch, length, width, hidden)
    zeros = lo.new_zeros(batch, pad, width, hidden)
    tail = lo.new_zeros(batch, max(0, width - 1 - pad), width, hidden)
    lo, hi = torch.cat([zeros, lo, tail], 1), torch.cat([zeros, hi, tail], 1)
    out_lo = sum(lo[:, j : j + length, j] for j in range(width)) + conv.bias
    out_hi = sum(hi[:, j : j + length, j] for j in range(width)) + conv.bias
    out_lo, out_hi = torch.relu(out_lo), torch.relu(out_hi)
    pads = (mask == 0).unsqueeze(-1)
    if model.config.pool == "mean":
        count = mask.sum(1, keepdim=True)
        return out_lo.masked_fill(pads, 0).sum(1) / count, out_hi.masked_fill(pads, 0).sum(1) / count
    return out_lo.masked_fill(pads, float("-inf")).max(1).values, out_hi.masked_fill(pads, float("-inf")).max(1).values


def _lstm(model, positions, mask):
    """One LSTM layer (gates i, f, g, o as in ``torch.nn.LSTM``), state at the last real token: the input
    part of every gate by choice boxes, the recurrent part by centre and radius, the gates by their
    monotone activations, ``c = f c + i g`` and ``h = o tanh(c)`` by interval products (Jia et al. §4)."""
    lstm = model.lstm
    size = lstm.hidden_size
    x_lo, x_hi = positions.linear(lstm.weight_ih_l0)  # (B, T, 4H)
    bias = lstm.bias_ih_l0 + lstm.bias_hh_l0
    batch, length = mask.shape
    h_lo = h_hi = c_lo = c_hi = x_lo.new_zeros(batch, size)
    states_lo, states_hi = [], []
    for t in range(length):
        r_lo, r_hi = affine(h_lo, h_hi, lstm.weight_hh_l0)
        pre_lo, pre_hi = x_lo[:, t] + r_lo + bias, x_hi[:, t] + r_hi + bias
        i_lo, f_lo, g_lo, o_lo = pre_lo.split(size, dim=1)
        i_hi, f_hi, g_hi, o_hi = pre_hi.split(size, dim=1)
        i_lo, i_hi, f_lo, f_hi = torch.sigmoid(i_lo), torch.sigmoid(i_hi), torch.sigmoid(f_lo), torch.sigmoid(f_hi)
        o_lo, o_hi, g_lo, g_hi = torch.sigmoid(o_lo), torch.sigmoid(o_hi), torch.tanh(g_lo), torch.tanh(g_hi)
        fc_lo, fc_hi = product(f_lo, f_hi, c_lo, c_hi)
        ig_lo, ig_hi = product(i_lo, i_hi, g_lo, g_hi)
        c_lo, c_hi = fc_lo + ig_lo, fc_hi + ig_hi
        h_lo, h_hi = product(o_lo, o_hi, torch.tanh(c_lo), torch.tanh(c_hi))
        states_lo.append(h_lo)
        states_hi.append(h_hi)
    last = (mask.sum(1).long() - 1).clamp(min=0)
    rows = torch.arange(batch, device=mask.device)
    return torch.stack(states_lo, 1)[rows, last], torch.stack(states_hi, 1)[rows, last]


_REPRESENTATIONS = {"so-word-bow": _bow, "so-word-cnn": _cnn, "so-word-lstm": _lstm}


def representation_bounds(model, choice_ids, attention_mask, eps=1.0):
    """``(lo, hi)`` of the sentence representation (the classifier's input, ``(batch, hidden)``) over every
    sentence whose position ``t`` holds one of ``choice_ids[:, t]`` (dropout off)."""
    check_boundable(model)
    mask = _mask(attention_mask, model.embeddings.weight.dtype)
    positions = _Positions(model, choice_ids, mask, eps)
    return _REPRESENTATIONS[model.config.model_type](model, positions, mask)


def margin_bounds(model, lo, hi, classes):
    """``(batch, num_labels)``: lower bounds of ``z_c - z_j`` for class ``c = classes[b]`` against every ``j``
    (0 at ``j = c``), for representations in ``[lo, hi]``."""
    weight, bias = model.classifier.weight, model.classifier.bias
    diff = weight[classes].unsqueeze(1) - weight.unsqueeze(0)  # (B, C, H)
    centre, radius = ((hi + lo) / 2).unsqueeze(1), ((hi - lo) / 2).unsqueeze(1)
    return (diff * centre).sum(-1) - (diff.abs() * radius).sum(-1) + bias[classes].unsqueeze(1) - bias.unsqueeze(0)


def certified_margins(model, choice_ids, attention_mask, classes, eps=1.0):
    """:func:`margin_bounds` of the representation bounds: every entry but ``classes`` positive = certified."""
    lo, hi = representation_bounds(model, choice_ids, attention_mask, eps)
    return margin_bounds(model, lo, hi, classes)


def worst_case_loss(margins, labels):
    """Cross-entropy of the worst-case logits ``-margins`` (``0`` for the true class, the upper bound of
    ``z_j - z_y`` for the others): an upper bound of the loss of every combination of swaps."""
    return torch.nn.functional.cross_entropy(-margins, labels)
