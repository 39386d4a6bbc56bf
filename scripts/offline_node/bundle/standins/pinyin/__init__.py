"""Stand-in for pinyin (offline bundle): TextAttack imports it at start-up for Chinese homophone swaps only."""


def _missing(*args, **kwargs):
    raise RuntimeError("pinyin is not in this offline bundle (a stand-in): `pip install pinyin` for Chinese swaps")


get = get_initial = _missing
