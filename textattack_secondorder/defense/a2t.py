"""A2T's adversarial training on a step budget (Yoo & Qi 2021; docs/design/defenses.md).

TextAttack's ``Trainer`` trains by epochs: the first ``num_clean_epochs`` on the training set alone, then
at the start of every ``attack_epoch_interval``-th epoch it attacks the *current* model (in eval mode) on
shuffled training rows until ``num_train_adv_examples`` attacks have succeeded, and trains on the training
set plus those adversarial texts (with their original labels), shuffled. A2T's authors ran one clean epoch
and then a new set of 20 % of the training rows every epoch, loss weight α = 1; Xu et al. (§6.1) fine-tuned
A2T for 3 such epochs.

``defend`` compares defenses at the same number of batches, batch size and learning-rate schedule (linear
decay to 0 over the steps), so :class:`A2TBatches` runs that schedule inside the step budget instead of
calling ``Trainer.train`` (whose step count follows from the epochs and the size of each adversarial set,
which warms up for 500 steps, and which saves checkpoints and evaluates as it goes): one clean epoch (at most
a ``1/(rounds+1)`` share of the steps), then ``rounds`` adversarial sets (default 3, the epochs of Xu et al.'s
A2T) made at evenly spaced steps, each of 20 % of the training rows and each kept, with the training rows,
until the next one replaces it (the ``Trainer`` makes one every epoch: 29 sets in 3,000 steps of MR, ten
times the cost of the training on a CPU; ``rounds`` = the epochs after the first gives that schedule). The
attack runs through TextAttack's ``Attacker`` as the ``Trainer`` runs it (``num_successful_examples``,
shuffled, the model in eval mode, the goal function's cache cleared: the weights changed since the last set).
The attack is the ``a2t-offline`` recipe on the model being trained unless one is given; the training rows are
tokenized once, and each set's texts once when it is made; batches are token ids, as for the other defenses.
"""

import math
import random
import time

import torch

from ..attack_recipes.build import build_attack
from ..augmentation.token_edits import EncodedExamples

#: adversarial texts per set, as a share of the training rows (A2T's training script)
ADVERSARIAL_SHARE = 0.2
#: adversarial sets over the step budget (Xu et al. fine-tuned A2T for 3 epochs)
ROUNDS = 3
#: the recipe of A2T's attack unless one is given (A2T's attack built from this package's resource slots)
ATTACK_RECIPE = "a2t-offline"


def round_steps(steps, rows, batch_size, rounds=ROUNDS):
    """The steps at which a new adversarial set is made: after one clean epoch (at most ``steps / (rounds + 1)``
    steps), ``rounds`` evenly spaced steps over the rest."""
    clean = min(math.ceil(rows / batch_size), steps // (rounds + 1))
    return [clean + (r * (steps - clean)) // rounds for r in range(rounds)]


def adversarial_examples(attack, examples, wanted, seed):
    """``(successes, results)``: ``attack`` run on ``examples`` shuffled with ``seed`` until ``wanted``
    attacks succeed (TextAttack ``Trainer``'s rule) or the rows run out; ``successes`` are
    ``(original text, adversarial text, label)`` of the successful attacks, ``results`` all of them."""
    import textattack
    from textattack.attack_results import MaximizedAttackResult, SuccessfulAttackResult

    attack.clear_cache()  # outputs of earlier weights must not be reused (TextAttack also clears it per example)
    args = textattack.AttackArgs(
        num_successful_examples=int(wanted),
        shuffle=True,
        random_seed=int(seed),
        silent=True,
        disable_stdout=True,
    )
    dataset = textattack.datasets.Dataset([(t, int(y)) for t, y in examples])
    results = textattack.Attacker(attack, dataset, args).attack_dataset()
    successes = [
        (
            r.original_result.attacked_text.text,
            r.perturbed_result.attacked_text.text,
            int(r.original_result.ground_truth_output),
        )
        for r in results
        if isinstance(r, (SuccessfulAttackResult, MaximizedAttackResult))
    ]
    return successes, results


class A2TBatches:
    """Batches of A2T's adversarial training for :func:`~.training.train_defense` (module docstring).

    Args:
        clf: the ``TokenClassifier`` being trained (its model is the attack's victim).
        model_wrapper: the TextAttack model wrapper of ``clf.model``, the victim of the default attack.
        examples: the training ``[(text, label)]``, tokenized once here.
        steps, batch_size, seed: as the other defenses'.
        attack: the TextAttack ``Attack`` that makes the adversarial texts (default: the ``a2t-offline``
            recipe, :data:`ATTACK_RECIPE`, on ``model_wrapper``).
        rounds: adversarial sets over the steps (:func:`round_steps`).
        share: adversarial texts per set, as a share of the training rows (A2T: 0.2).
        log: a list that receives one dict per adversarial set (step, attacked, successes, seconds, examples).
    """

    def __init__(
        self,
        clf,
        model_wrapper,
        examples,
        steps,
        batch_size,
        seed=0,
        attack=None,
        rounds=ROUNDS,
        share=ADVERSARIAL_SHARE,
        log=None,
    ):
        self.examples = list(examples)
        self.batch_size, self.seed = int(batch_size), int(seed)
        self.wanted = max(1, math.ceil(share * len(self.examples)))
        self.rounds_at = set(round_steps(int(steps), len(self.examples), self.batch_size, int(rounds)))
        self.log = log if log is not None else []
        self.rng = random.Random(seed)
        self.step, self.queue = 0, []
        self.adv, self.adv_labels = None, None
        # the attack; the training rows tokenized once (each adversarial set is, when it is made)
        self.clf = clf
        self.attack = attack if attack is not None else build_attack(ATTACK_RECIPE, model_wrapper)
        self.encoded = EncodedExamples(clf, [t for t, _ in self.examples])
        self.labels = torch.tensor([int(y) for _, y in self.examples], device=clf.device)

    def _new_pass(self):
        """A shuffled pass over the training rows and the current adversarial set."""
        n = len(self.examples) + (len(self.adv) if self.adv is not None else 0)
        order = list(range(n))
        self.rng.shuffle(order)
        self.queue = [order[s : s + self.batch_size] for s in range(0, n, self.batch_size)]

    def _attack_round(self):
        t0 = time.perf_counter()
        was_training = self.clf.model.training
        self.clf.model.eval()
        successes, results = adversarial_examples(
            self.attack, self.examples, self.wanted, seed=self.seed * 1000 + len(self.log)
        )
        self.clf.model.train(was_training)
        kinds = [type(r).__name__ for r in results]
        self.log.append(
            {
                "round": len(self.log),
                "step": self.step,
                "attacked": sum(k in ("SuccessfulAttackResult", "FailedAttackResult") for k in kinds),
                "successes": len(successes),
                "skipped": kinds.count("SkippedAttackResult"),
                "seconds": round(time.perf_counter() - t0, 1),
                "examples": successes,
            }
        )
        if successes:
            self.adv = EncodedExamples(self.clf, [t for _, t, _ in successes])
            self.adv_labels = torch.tensor([y for _, _, y in successes], device=self.clf.device)
        else:
            self.adv = None

    def __call__(self):
        """``(input_ids, attention_mask, labels)`` of the next batch."""
        if self.step in self.rounds_at:
            self._attack_round()
            self._new_pass()  # the new set joins the pool now
        if not self.queue:
            self._new_pass()
        rows = self.queue.pop(0)
        self.step += 1
        n = len(self.examples)
        orig = torch.as_tensor([r for r in rows if r < n], dtype=torch.long, device=self.clf.device)
        contents = [self.encoded.content[orig]]
        lengths = [self.encoded.content_lengths[orig]]
        labels = [self.labels[orig]]
        adv_rows = [r - n for r in rows if r >= n]
        if adv_rows:
            a = torch.as_tensor(adv_rows, dtype=torch.long, device=self.clf.device)
            contents.append(self.adv.content[a])
            lengths.append(self.adv.content_lengths[a])
            labels.append(self.adv_labels[a])
        width = max(c.shape[1] for c in contents)
        content = torch.cat([torch.nn.functional.pad(c, (0, width - c.shape[1])) for c in contents])
        input_ids, attention_mask = self.encoded.with_specials(content, torch.cat(lengths))
        return input_ids, attention_mask, torch.cat(labels)


__all__ = ["ATTACK_RECIPE", "ROUNDS", "A2TBatches", "adversarial_examples", "round_steps"]
