"""A one-word swap after "a" or "an" keeps the article's agreement (SP-Attack's fluency rule).

Blind readers of SP-Attack's successes marked "as a insightful , sold-out concept" and "a uplifting art form" down
for the article: the κ word's first sound no longer matches the "a" or "an" before it. The check goes by the
first letter (a vowel letter takes "an"), and only where the original word agreed with its article by the same
test, so a word the letter test misreads ("an hour", "a university") in the sentence leaves the slot unchecked.
"""

from textattack.constraints import Constraint

from .word_swap_position import swapped_word

ARTICLES = {"a": False, "an": True}  # article -> whether it asks for a vowel letter next


def _vowel(word):
    return word[:1].lower() in "aeiou"


class ArticleAgreement(Constraint):
    """Refuse a one-word swap right after "a"/"an" whose new word starts with the wrong kind of letter."""

    def __init__(self, compare_against_original=True):
        super().__init__(compare_against_original)

    def _check_constraint(self, transformed_text, reference_text):
        swap = swapped_word(transformed_text, reference_text)
        if swap is None:
            return True
        i, old, new = swap
        article = reference_text.words[i - 1].lower() if i > 0 else None
        if article not in ARTICLES or _vowel(old) != ARTICLES[article]:
            return True
        return _vowel(new) == ARTICLES[article]

    def extra_repr_keys(self):
        return []
