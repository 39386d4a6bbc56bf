"""Stand-in for jieba (offline bundle): TextAttack imports it at start-up; English runs never call it."""


def _missing(*args, **kwargs):
    raise RuntimeError("jieba is not in this offline bundle (a stand-in): `pip install jieba` for Chinese text")


cut = lcut = cut_for_search = load_userdict = _missing
