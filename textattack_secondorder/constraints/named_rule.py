"""A named, ordered list of TextAttack constraints a candidate must pass: what SP-Attack's label and fluency rules
(and their summary rows) are made of."""


def kept_by(constraints, reference, texts, label=None):
    """The texts of ``texts`` (AttackedTexts) every one of ``constraints`` keeps against ``reference``, in their order
    (cheapest constraint first: a later one sees only what the earlier ones kept). A check with ``needs_label`` (the
    label probe) is asked with ``label``, the reference's class (None: its own reading)."""
    kept = list(texts)
    for c in constraints:
        if not kept:
            break
        if getattr(c, "needs_label", False):
            kept = c.kept_for_label(kept, reference, label)
        else:
            kept = c._check_constraint_many(kept, reference)
    return kept


class NamedRule:
    """A rule called ``name``: ``constraints`` (TextAttack constraints, cheapest first, run before the victim),
    ``success_checks`` (run on the candidates the victim misclassified: costly, or needing the sentence's label) and
    ``settings``, what the summary row says after the name."""

    def __init__(self, name, constraints=(), settings="", success_checks=()):
        self.name = name
        self.constraints = list(constraints)
        self.success_checks = list(success_checks)
        self.settings = settings

    def kept(self, reference, texts, label=None):
        """The texts of ``texts`` every constraint and success check keeps against ``reference`` (of class
        ``label``), in their order."""
        return kept_by(self.constraints + self.success_checks, reference, texts, label)

    def successes(self, reference, texts, label=None):
        """The texts of ``texts`` every success check keeps against ``reference`` (of class ``label``), in order."""
        return kept_by(self.success_checks, reference, texts, label)

    def admits(self, word):
        """Whether the rule could keep ``word`` put in place of a word that leans nowhere and is no negator: each
        constraint with an ``admits_word`` check says yes (a constraint without one judges only in context)."""
        return all(c.admits_word(word) for c in self.constraints if hasattr(c, "admits_word"))

    def describe(self):
        """The summary row's value: the name, then its settings."""
        return f"{self.name} ({self.settings})" if self.settings else self.name

    def __repr__(self):
        inner = ", ".join(repr(c) for c in self.constraints + self.success_checks)
        return f"{type(self).__name__}({self.name!r}{', ' + inner if inner else ''})"
