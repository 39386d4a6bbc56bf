"""The one word a single-word swap changed, as the patch-rule constraints read it (docs/design/patch-rules.md)."""


def swapped_word(transformed_text, reference_text):
    """``(index, old_word, new_word)`` of the single word in which ``transformed_text`` differs from
    ``reference_text`` (from TextAttack's ``newly_modified_indices``); ``None`` for any other change."""
    changed = transformed_text.attack_attrs.get("newly_modified_indices")
    if changed is None:
        changed = transformed_text.all_words_diff(reference_text)
    if len(changed) != 1:
        return None
    (i,) = changed
    if len(transformed_text.words) != len(reference_text.words):
        return None
    return i, reference_text.words[i].lower(), transformed_text.words[i].lower()
