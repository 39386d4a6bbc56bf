"""Small text helpers shared by transformations, goal functions and augmenters."""

from collections import OrderedDict

from textattack.shared import AttackedText


def match_case(word, like):
    """``word`` written with the capitalisation of ``like`` (all caps, title case or as is)."""
    if like.isupper() and len(like) > 1:
        return word.upper()
    if like[:1].isupper():
        return word[:1].upper() + word[1:]
    return word


def word_offsets(text):
    """``(start, end)`` character offsets of each of ``text.words`` in ``text.text`` (one pass; the same
    positions TextAttack's ``_text_index_of_word_index`` finds word by word)."""
    lower = text.text.lower()
    out, at = [], 0
    for w in text.words:
        start = lower.find(w.lower(), at)
        out.append((start, start + len(w)))
        at = start + len(w)
    return out


def swap_words_at(text, index, words):
    """``text`` with word ``index`` replaced by each of ``words`` (single alphabetic words).

    Same result as TextAttack's ``replace_word_at_index`` (text, modified indices,
    index map, link to the previous text) but splices the string once instead of
    re-tokenising every word of the text for every candidate, which dominated the
    search time. Multi-field inputs fall back to TextAttack's method.
    """
    if len(text._text_input) != 1 or not words:
        return [text.replace_word_at_index(index, w) for w in words]
    old = text.words[index]
    start = text._text_index_of_word_index(index)
    before, after = text.text[:start], text.text[start + len(old) :]
    key = next(iter(text._text_input))
    modified = text.attack_attrs["modified_indices"] | {index}
    out = []
    for w in words:
        attrs = {
            "original_index_map": text.attack_attrs["original_index_map"],
            "modified_indices": set(modified),
            "newly_modified_indices": {index},
            "previous_attacked_text": text,
        }
        if "label_names" in text.attack_attrs:
            attrs["label_names"] = text.attack_attrs["label_names"]
        new = AttackedText(OrderedDict([(key, before + w + after)]), attrs)
        if len(new.words) != len(text.words):  # tokenised differently: let TextAttack handle it
            new = text.replace_word_at_index(index, w)
        out.append(new)
    return out
