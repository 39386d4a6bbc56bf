"""Small helpers shared by every layer of the package (text splicing, device choice, atomic files).

Nothing here imports torch or TextAttack at import time.
"""
