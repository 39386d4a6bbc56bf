"""Cut a text the way the victim truncates it, at a word boundary (docs/design/hostile-input.md).

A victim whose tokenizer truncates at ``max_length`` tokens never sees the words after
the limit, so attacking them wastes queries and reports perturbations that cannot
matter. :func:`truncate_for_model` keeps the longest run of whole words (from the start,
or from the end for ``truncation_side="left"``) that the victim's tokenizer fits in its
limit, and says what it did. Models without a Hugging Face tokenizer are left alone.
"""

import re

_NO_LIMIT = int(1e29)


def token_limit(model_wrapper):
    """``(tokenizer, max tokens)`` the victim truncates with, or ``(None, None)`` when unknown."""
    tok = getattr(model_wrapper, "tokenizer", None)
    if tok is None or not callable(tok) or not hasattr(tok, "model_max_length"):
        return None, None
    limit = getattr(model_wrapper, "max_length", None)
    if not isinstance(limit, int) or limit <= 0:
        mml = getattr(tok, "model_max_length", None)
        # TextAttack's HuggingFaceModelWrapper: 512 when the tokenizer sets no limit
        limit = mml if isinstance(mml, int) and 0 < mml < _NO_LIMIT else 512
    return tok, int(limit)


def _n_tokens(tok, text):
    return len(tok(text, add_special_tokens=True, truncation=False, verbose=False)["input_ids"])


def truncate_for_model(text, model_wrapper):
    """``(text, note)``: ``text`` cut to what the victim sees, and a sentence saying so (``None`` if uncut)."""
    tok, limit = token_limit(model_wrapper)
    if tok is None or not isinstance(text, str):
        return text, None
    try:
        total = _n_tokens(tok, text)
        if total <= limit:
            return text, None
        spans = [m.span() for m in re.finditer(r"\S+", text)]
        left = getattr(tok, "truncation_side", "right") == "left"

        def piece(k):
            return text[spans[-k][0] :] if left else text[: spans[k - 1][1]]

        lo, hi = 0, len(spans)  # largest k whose piece fits: binary search
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if _n_tokens(tok, piece(mid)) <= limit:
                lo = mid
            else:
                hi = mid - 1
    except Exception:  # noqa: BLE001 - a tokenizer that cannot count: leave the text to the model
        return text, None
    where = "last" if left else "first"
    if lo == 0:
        return text, (
            f"longer than the model's maximum of {limit} tokens ({total}); no whole word fits, "
            "left as is (the model truncates it)"
        )
    return piece(lo), (
        f"truncated to the model's maximum of {limit} tokens ({total} before): kept the {where} "
        f"{lo} of {len(spans)} words"
    )
