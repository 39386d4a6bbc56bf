"""What ``defend --compare`` is about to do, about how long it takes, and how far it is (docs/design/defenses.md).

Before the first cell the comparison prints its plan: the cells (a defense and a seed), the ones an earlier run
finished (reused) or began (its trained model or measurements reused), the sentences of every measurement, and an
estimate of the time. The estimate times the two parts that grow with the model on the model itself: a few
fine-tuning steps of each defense (on a copy) and EUBA on two sentences; the attacks' seconds a sentence are the
ones measured on the demo LSTM and on mr-minilm (they change little with the victim: the sentence encoder and the
language rules take most of it, :data:`ATTACK_SECONDS`); A2T's sets are counted at
:data:`A2T_SECONDS_PER_ROW`. After every cell a line gives the cells done and the time left: the estimate of
the cells not yet finished, scaled by what the finished ones took against their estimate, spread over the workers
(longest first).
"""

import copy
import heapq
import time

from .a2t import ADVERSARIAL_SHARE, ROUNDS

#: seconds a sentence of each attack, measured in the comparisons of the demo LSTM (1,000 steps, 3 seeds) and of
#: mr-minilm (300 steps) on a 2-core machine: SP-Attack 0.36 / 0.62, textfooler-offline 0.42 / 0.35, so-beam
#: (query budget 10,000) 17 / 15 (benchmarks/results/defense_comparison_*)
ATTACK_SECONDS = {"sp_attack": 0.5, "textfooler": 0.4, "so_beam": 16.0}
#: A2T: seconds a training row attacked for an adversarial set (benchmarks/a2t_cost.py: 0.46 on the demo CNN,
#: 0.75 on mr-minilm) and the share of attacked rows that succeed (0.47, 0.35)
A2T_SECONDS_PER_ROW = 0.6
A2T_SUCCESS_SHARE = 0.4
CALIBRATION_STEPS = (1, 3)  # fine-tuning steps timed: the difference is the steps' cost without the set-up


def _duration(seconds):
    seconds = max(0, int(round(seconds)))
    if seconds < 90:
        return f"{seconds} s"
    if seconds < 90 * 60:
        return f"{round(seconds / 60)} min"
    return f"{seconds / 3600:.1f} h"


def step_seconds(settings, data, wrapper, defense):
    """Seconds a fine-tuning step of ``defense`` takes on a copy of ``wrapper``'s model (the difference of two short
    runs, so that the set-up is not counted)."""
    from .training import train_defense

    rows = data["train"][: settings["batch_size"] * 4]
    times = []
    for steps in CALIBRATION_STEPS:
        clone = copy.copy(wrapper)
        clone.model = copy.deepcopy(wrapper.model)
        t0 = time.perf_counter()
        train_defense(
            clone,
            rows,
            steps=steps,
            batch_size=settings["batch_size"],
            lr=settings["lr"],
            defense=defense,
            device=settings["device"],
            progress=False,
            gradient_candidates=settings["gradient_candidates"],
            model_batch_size=settings["model_batch_size"],
        )
        times.append(time.perf_counter() - t0)
    difference = (times[1] - times[0]) / (CALIBRATION_STEPS[1] - CALIBRATION_STEPS[0])
    # a busy machine can make the longer run no slower: then the longer run's mean, set-up included
    return difference if difference > 0 else times[1] / CALIBRATION_STEPS[1]


def euba_seconds(settings, data, wrapper):
    """Seconds of EUBA a sentence (κ, ρ, ρ*) on two of the κ sentences, with the comparison's m and vocabulary."""
    from ..evaluation.flip_capability.computation import KappaSetup

    setup = KappaSetup(
        wrapper,
        device=settings["device"],
        batch_size=settings["model_batch_size"],
        vocab_limit=settings["vocab_limit"] or None,
        vocab_from=settings.get("vocab_from"),
        vocab_rows=data.get("vocab_rows"),
    )
    sentences = data["sets"].kappa[:2]
    t0 = time.perf_counter()
    setup.count(sentences, "euba", settings["m"])
    return (time.perf_counter() - t0) / max(len(sentences), 1)


class ComparisonPlan:
    """The cells of a comparison with their estimated seconds; :meth:`lines` before, :meth:`progress` after each cell.

    Args:
        cells: ``[(defense, seed)]`` still to run (a finished cell is not among them).
        reused: names of the finished cells an earlier run left; ``begun``: ``{cell name: what is kept}``;
            ``trained``: the cells whose trained model is kept (no fine-tuning counted).
        seconds: ``{"step": {defense: s}, "euba": s}`` from :func:`step_seconds` / :func:`euba_seconds`.
        workers: cells run at a time (``--jobs``, Ray workers).
    """

    def __init__(self, settings, data, cells, reused=(), begun=None, seconds=None, workers=1, trained=()):
        self.settings, self.data, self.cells = settings, data, list(cells)
        self.reused, self.begun, self.trained = list(reused), dict(begun or {}), set(trained)
        self.seconds, self.workers = seconds or {"step": {}, "euba": 0.0}, max(1, int(workers))
        self.estimate = {c: self.cell_seconds(*c) for c in self.cells}
        self.finished = {}  # cell -> seconds it took
        self.started = time.perf_counter()

    @classmethod
    def calibrated(cls, settings, data, wrapper, cells, reused=(), begun=None, workers=1, trained=()):
        """The plan with the step and EUBA seconds timed on ``wrapper`` (only the defenses still to train; nothing
        when no cell is left). ``trained``: the cells whose model an earlier run saved."""
        seconds = {"step": {}, "euba": 0.0}
        if cells:
            kinds = {"continue" if d == "a2t" else d for d, s in cells if d != "vanilla" and (d, s) not in trained}
            steps = f"{sum(CALIBRATION_STEPS)} fine-tuning steps of {', '.join(sorted(kinds))} and " if kinds else ""
            print(f"plan: timing {steps}EUBA on 2 sentences on the model, for the estimate", flush=True)
            seconds["step"] = {d: step_seconds(settings, data, wrapper, d) for d in sorted(kinds)}
            seconds["euba"] = euba_seconds(settings, data, wrapper)
        return cls(settings, data, cells, reused, begun, seconds, workers, trained)

    def cell_seconds(self, defense, seed):
        """The estimated seconds of one cell: its fine-tuning and its measurements."""
        s, sets = self.settings, self.data["sets"]
        train = 0.0
        if defense != "vanilla" and (defense, seed) not in self.trained:
            step = self.seconds["step"].get("continue" if defense == "a2t" else defense, 0.0)
            train = s["steps"] * step
        if defense == "a2t" and (defense, seed) not in self.trained:
            attacked = ADVERSARIAL_SHARE * len(self.data["train"]) / A2T_SUCCESS_SHARE
            train += (s["a2t_rounds"] or ROUNDS) * min(attacked, len(self.data["train"])) * A2T_SECONDS_PER_ROW
        euba = self.seconds["euba"] * (len(sets.rho_train) + len(sets.rho_test) + len(sets.kappa))
        attacks = len(sets.attacked) * (ATTACK_SECONDS["sp_attack"] + ATTACK_SECONDS["textfooler"])
        attacks += len(sets.so_beam) * ATTACK_SECONDS["so_beam"]
        return train + euba + attacks

    def lines(self):
        """The plan, in words."""
        s, sets = self.settings, self.data["sets"]
        names = [_name(c) for c in self.cells]
        total = sum(self.estimate.values())
        out = [
            f"plan: {len(self.cells) + len(self.reused)} cells ({len(self.cells)} to run"
            + (f", {len(self.reused)} finished earlier and reused: {', '.join(self.reused)}" if self.reused else "")
            + ")",
        ]
        if names:
            out.append(f"  to run: {', '.join(names)}")
        for name, kept in self.begun.items():
            out.append(f"  {name}: begun earlier, reusing {kept}")
        trained = [c for c in self.cells if c[0] != "vanilla"]
        if trained:
            out.append(
                f"  each trained cell: {s['steps']} fine-tuning steps of batch {s['batch_size']} on "
                f"{len(self.data['train'])} training rows"
            )
        out.append(
            f"  each model: accuracy on {len(sets.test)} test rows; EUBA (m = {s['m']}) on {len(sets.rho_train)} "
            f"training rows (ρ), {len(sets.rho_test)} test sentences (ρ*) and {len(sets.kappa)} held-out ones (κ); "
            f"SP-Attack and textfooler-offline on {len(sets.attacked)} sentences; so-beam on {len(sets.so_beam)}"
        )
        if self.cells:
            step = ", ".join(f"{d} {1000 * v:.0f} ms" for d, v in self.seconds["step"].items())
            step = f"a fine-tuning step {step}; " if step else ""
            out.append(
                f"  estimate: {_duration(total)} of work, about {_duration(self.remaining_wall())} with "
                f"{self.workers} at a time (timed here: {step}EUBA "
                f"{self.seconds['euba']:.1f} s a sentence; the attacks at their measured seconds a sentence, which "
                "vary several-fold from sentence to sentence); refined as cells finish"
            )
        return out

    def remaining_wall(self):
        """Seconds left: the unfinished cells' estimates, scaled by the finished cells' actual/estimated seconds,
        given longest first to the least busy of :attr:`workers`."""
        left = sorted((self.estimate[c] * self.scale() for c in self.cells if c not in self.finished), reverse=True)
        loads = [0.0] * min(self.workers, max(len(left), 1))
        for seconds in left:
            heapq.heappush(loads, heapq.heappop(loads) + seconds)
        return max(loads)

    def scale(self):
        done = [c for c in self.finished if self.estimate.get(c)]
        estimated = sum(self.estimate[c] for c in done)
        return sum(self.finished[c] for c in done) / estimated if estimated else 1.0

    def progress(self, row):
        """The line after the cell of ``row`` finished: what it took, cells done, time left."""
        cell = (row["defense"], row["seed"])
        took = (row.get("train_seconds") or 0) + sum((row.get("measure_seconds") or {}).values())
        self.finished[cell] = took
        done = len(self.finished)
        elapsed = time.perf_counter() - self.started
        line = f"{_name(cell)}: done in {_duration(took)} ({done} of {len(self.cells)} cells of this run"
        if done < len(self.cells):
            line += f", {_duration(elapsed)} so far, about {_duration(self.remaining_wall())} left)"
        else:
            line += f", {_duration(elapsed)} in all)"
        return line


def cell_name(defense, seed):
    """``vanilla``, ``rand-seed0`` ...: a cell's name in the comparison's folders and lines."""
    return defense if seed is None else f"{defense}-seed{seed}"


def _name(cell):
    return cell_name(*cell)
