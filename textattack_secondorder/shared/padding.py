"""Right-padding of token-id lists into a batch: the one loop the trainers and the language models share."""

import torch


def pad_right(sequences, pad_id=0, device=None):
    """``(input_ids, attention_mask)`` LongTensors of lists of ids, right-padded with ``pad_id`` to the longest
    (at least one column), on ``device`` (default: the CPU)."""
    width = max(1, max((len(s) for s in sequences), default=0))
    ids = torch.full((len(sequences), width), pad_id, dtype=torch.long)
    mask = torch.zeros((len(sequences), width), dtype=torch.long)
    for i, s in enumerate(sequences):
        ids[i, : len(s)] = torch.tensor(s, dtype=torch.long)
        mask[i, : len(s)] = 1
    return (ids, mask) if device is None else (ids.to(device), mask.to(device))
