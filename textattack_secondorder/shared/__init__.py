"""Small helpers shared by every layer of the package (text splicing, device choice, atomic files,
the mark of a user error, pool workers that end with their parent, sentence chrF, the help texts and names
the command line shows).

:mod:`.specs`, :mod:`.errors`, :mod:`.files`, :mod:`.inputs`, :mod:`.digest`, :mod:`.processes` and
:mod:`.recipe_params` import only the standard library (the command line imports :mod:`.specs` and
:mod:`.errors` at parse time); :mod:`.device` and :mod:`.padding` import torch, :mod:`.text` TextAttack,
:mod:`.chrf` sacrebleu.
"""
