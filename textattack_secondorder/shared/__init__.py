"""Small helpers shared by every layer of the package (text splicing, device choice, atomic files,
the mark of a user error, sentence chrF).

Nothing here imports torch or TextAttack at import time.
"""
