"""Stand-in for Levenshtein (offline bundle): TextAttack imports it at start-up for its text-to-text
``MaximizeLevenshtein`` goal only (and it pulls RapidFuzz, 3 MB); classification attacks never call it."""


def _missing(*args, **kwargs):
    raise RuntimeError("Levenshtein is not in this offline bundle (a stand-in): `pip install Levenshtein`")


distance = ratio = _missing
