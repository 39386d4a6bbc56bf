"""A named, ordered list of TextAttack constraints a candidate must pass: what SP-Attack's label and fluency rules
(and their summary rows) are made of."""


def kept_by(constraints, reference, texts):
    """The texts of ``texts`` (AttackedTexts) every one of ``constraints`` keeps against ``reference``, in their order
    (cheapest constraint first: a later one sees only what the earlier ones kept)."""
    kept = list(texts)
    for c in constraints:
        if not kept:
            break
        kept = c._check_constraint_many(kept, reference)
    return kept


class NamedRule:
    """A rule called ``name``: ``constraints`` (TextAttack constraints, cheapest first) and ``settings``, what the
    summary row says after the name."""

    def __init__(self, name, constraints=(), settings=""):
        self.name = name
        self.constraints = list(constraints)
        self.settings = settings

    def kept(self, reference, texts):
        """The texts of ``texts`` every constraint keeps against ``reference``, in their order."""
        return kept_by(self.constraints, reference, texts)

    def describe(self):
        """The summary row's value: the name, then its settings."""
        return f"{self.name} ({self.settings})" if self.settings else self.name

    def _parts(self):
        return self.constraints

    def __repr__(self):
        inner = ", ".join(repr(c) for c in self._parts())
        return f"{type(self).__name__}({self.name!r}{', ' + inner if inner else ''})"
