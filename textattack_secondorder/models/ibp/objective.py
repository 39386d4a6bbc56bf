"""IBP certified training of a word victim: the loss and its schedule (Jia et al. 2019; docs/design/certified.md).

The loss of a batch mixes the clean loss and the worst-case loss of the interval bounds::

    L = (1 - kappa) * CE(z(x), y) + kappa * CE(worst-case logits over the perturbation set of x, y)

and both ``kappa`` and ``eps`` (the scale of each position's box about its own word, :mod:`.bounds`)
grow from 0 during training: :data:`CLEAN_EPOCHS` epochs of clean training, then a linear ramp over
:data:`RAMP_EPOCHS` epochs (step by step) up to ``kappa = 0.8`` and ``eps = 1``, then the rest at full
strength (Jia et al.'s public training command: ``-c 0.8``, ``eps`` 0 -> 1). The epoch kept is the one
with the best certified accuracy on the held-out part of the training sentences (theirs too).

:class:`IBPObjective` plugs into :func:`~textattack_secondorder.models.training.train_word_model`.
"""

import dataclasses
from pathlib import Path

from ...resources.paths import data_path
from ...resources.slots import SLOTS
from ...resources.synonyms import SynonymList
from .bounds import certified_margins, worst_case_loss
from .certification import certified_accuracy
from .substitutions import SubstitutionSets, batch_choices

#: Jia et al.'s final weight of the worst-case loss (their ``--cert-frac 0.8``)
KAPPA = 0.8
#: the full box over each word and its neighbours
EPS = 1.0
#: clean epochs before the ramp starts
CLEAN_EPOCHS = 1
#: epochs over which kappa and eps grow linearly from 0
RAMP_EPOCHS = 10


@dataclasses.dataclass(frozen=True)
class IBPSchedule:
    """``kappa`` and ``eps`` after ``epochs_done`` epochs (a float: the ramp moves every step)."""

    kappa: float = KAPPA
    eps: float = EPS
    clean_epochs: float = CLEAN_EPOCHS
    ramp_epochs: float = RAMP_EPOCHS

    def at(self, epochs_done):
        if epochs_done < self.clean_epochs:
            return 0.0, 0.0
        share = 1.0 if self.ramp_epochs <= 0 else min(1.0, (epochs_done - self.clean_epochs) / self.ramp_epochs)
        return self.kappa * share, self.eps * share


class IBPObjective:
    """Certified training for :func:`~textattack_secondorder.models.training.train_word_model`.

    Args:
        schedule: an :class:`IBPSchedule` (or a dict of its fields).
        synonyms: the synonym list of the perturbation set (a :class:`SynonymList`, dict or JSON path;
            default: the list the package ships, Jia et al.'s counter-fitted neighbours, whatever the
            ``synonyms`` slot says: a cached victim does not depend on the environment it was trained in).
    """

    def __init__(self, schedule=None, synonyms=None):
        if isinstance(schedule, dict):
            schedule = IBPSchedule(**schedule)
        self.schedule = schedule or IBPSchedule()
        self.synonyms = SynonymList(synonyms if synonyms is not None else data_path(SLOTS["synonyms"].offline))
        self.sets = None
        self.rows = None

    def vocabulary(self, known_words):
        """Words the victim's vocabulary should hold: every word of the synonym list with a vector in
        ``known_words`` (GloVe), so that a neighbour is its own vector and not ``[UNK]``'s zero row (with
        the base victims' vocabulary 3,665 of the 8,634 MR test positions that have neighbours had an
        ``[UNK]`` among them, and the box of such a position reaches the origin: docs/design/certified.md)."""
        known = set(known_words)
        words = dict.fromkeys(w for key, syns in self.synonyms.items() for w in (key, *syns) if w in known)
        return list(words)

    def prepare(self, tokenizer, fit_texts):
        """Choice sets of every training sentence, once (index ``i`` = the ``i``-th text)."""
        self.sets = SubstitutionSets(tokenizer, self.synonyms)
        self.rows = [self.sets.encode_text(t) for t in fit_texts]

    def loss(self, model, batch, clean_loss, labels, epochs_done):
        """The batch's loss (``batch``: indices into the prepared texts; ``labels`` on the model's device)."""
        kappa, eps = self.schedule.at(epochs_done)
        if kappa == 0.0:
            return clean_loss
        _, attention_mask, choice_ids = batch_choices([self.rows[i] for i in batch], self.sets.pad_id)
        margins = certified_margins(model, choice_ids.to(labels.device), attention_mask.to(labels.device), labels, eps)
        return (1.0 - kappa) * clean_loss + kappa * worst_case_loss(margins, labels)

    def score(self, model, dev):
        """Certified accuracy on ``dev`` (``eps = 1``): the number that picks the epoch kept."""
        return certified_accuracy(model, self.sets, dev)[1]

    def describe(self):
        """What goes into the victim's ``metrics.json``."""
        return {
            "ibp": {
                **dataclasses.asdict(self.schedule),
                "synonyms": Path(self.synonyms.source).name,  # the file's name: the list, not this machine
                "selection": "best certified accuracy on the held-out training sentences",
            }
        }

    def evaluate(self, model, test):
        """``test_certified_accuracy`` for ``metrics.json``."""
        return {"test_certified_accuracy": certified_accuracy(model, self.sets, test)[1]}
