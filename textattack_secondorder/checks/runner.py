"""Runs the gate's checks and judges them (docs/methods.md §8).

Each check's evaluation is stored in ``OUT/evaluations/<name>.json`` under a content key: the model
spec and the files behind it, the check's kind and settings, the examples it reads (their text) and
the keys of the checks it reads from. A re-run with the same key reuses the stored evaluation (no
model is even loaded when all are reused); a changed setting recomputes that check only, and the
commands' own resume (attack-sweep shards, bias parts, κ checkpoints and shards, robustness parts)
picks up what an interrupted run finished. Thresholds and metrics are not part of the key: editing
them re-judges without recomputing.
"""

import json
import time
from dataclasses import dataclass
from pathlib import Path

from ..datasets.examples import load_examples
from ..distributed import ClusterOptions
from ..models.fingerprint import spec_fingerprint
from ..models.loading import load_model_wrapper
from ..models.probe import probe_model
from ..shared.digest import content_digest
from ..shared.files import atomic_write_text
from ..shared.inputs import bad_text_reason, screen_examples
from .base import ConfigError, Evaluation, Verdict, judge

STORE = "evaluations"


@dataclass
class Finished:
    name: str
    evaluation: Evaluation
    key: str


class GateContext:
    """What the checks share: the model (loaded on first use), the examples, the run options."""

    def __init__(self, config, out, options=None, progress=True, say=print):
        self.config, self.out, self.progress, self.say = config, Path(out), progress, say
        run = config.run
        self.spec = config.model
        self.device = run.get("device")
        self.batch_size = run.get("model_batch_size", 64)
        self.options = options or ClusterOptions.from_settings(run)
        self._model = None
        self._num_classes = None
        self._examples = {}
        self.done = {}

    @property
    def model(self):
        if self._model is None:
            try:
                self._model = load_model_wrapper(self.spec, self.device, self.batch_size)
            except Exception as e:  # noqa: BLE001 - any failure to load is a config problem: one line, exit 2
                raise ConfigError(
                    f"model: cannot load {self.spec!r} ({type(e).__name__}: {e}); valid: a demo "
                    "victim (mr-cnn, mr-lstm, mr-bow, mr-minilm), a model folder, file.py[^variable] "
                    "or a reachable hub id"
                ) from None
        return self._model

    def examples(self, settings):
        """The raw ``(text, label)`` rows a check's settings name (dataset, split, num_examples)."""
        key = (settings["dataset"], settings["split"], settings["num_examples"])
        if key not in self._examples:
            try:
                self._examples[key] = load_examples(
                    key[0], key[1], self.config.text_column, self.config.label_column, key[2]
                )
            except (FileNotFoundError, ValueError) as e:
                raise ConfigError(
                    f"dataset: cannot read {key[0]!r} split {key[1]!r} ({e}); valid: mr, a CSV "
                    "with text,label columns, or a text file"
                ) from None
        return self._examples[key]

    def screened(self, settings, labelled=True):
        """The usable rows (docs/methods.md §6) and the skipped ones, as the commands screen them."""
        examples = self.examples(settings)
        if self._num_classes is None:
            self._num_classes = probe_model(self.model, [t for t, _ in examples if not bad_text_reason(t)][:2])
        good, skipped = screen_examples(examples, self._num_classes, labelled=labelled)
        if skipped:
            self.say(f"  skipping {len(skipped)} of {len(examples)} rows for bad input")
        return [(t, y) for _, t, y in good], skipped

    def finished(self, name):
        return self.done[name]


def check_key(context, check):
    data = context.examples(check.settings) if check.DATA_SETTINGS else None
    deps = [context.done[d].key for d in check.depends_on()]
    return content_digest(
        ["textattack-so check", check.kind, check.settings, context.spec, spec_fingerprint(context.spec), data, deps],
        20,
    )


def _order(checks):
    """Config order, except that a check runs after the checks it reads from."""
    done, out = set(), []
    pending = list(checks)
    while pending:
        for c in pending:
            if all(d in done for d in c.depends_on()):
                out.append(c)
                done.add(c.name)
                pending.remove(c)
                break
    return out


def run_gate(config, out, options=None, progress=True, say=print):
    """Evaluate (or reuse) and judge every check of ``config``; returns the list of :class:`Verdict`."""
    context = GateContext(config, out, options, progress, say)
    store = context.out / STORE
    verdicts = {}
    for check in _order(config.checks):
        folder = context.out / check.name
        key = check_key(context, check)
        path = store / f"{check.name}.json"
        saved = json.loads(path.read_text()) if path.exists() else None
        start = time.time()
        if saved and saved.get("key") == key:
            evaluation, reused = Evaluation.from_dict(saved["evaluation"]), True
            say(f"[{check.name}] reusing the stored evaluation (same settings, model and data)")
        else:
            say(f"[{check.name}] evaluating {check.kind} ...")
            folder.mkdir(parents=True, exist_ok=True)
            evaluation, reused = check.evaluate(context, folder), False
            atomic_write_text(
                path,
                json.dumps(
                    {
                        "key": key,
                        "kind": check.kind,
                        "settings": check.settings,
                        "seconds": round(time.time() - start, 2),
                        "evaluation": evaluation.to_dict(),
                    },
                    indent=2,
                    default=str,
                ),
            )
        seconds = saved.get("seconds", 0.0) if reused else time.time() - start
        context.done[check.name] = Finished(check.name, evaluation, key)
        metric = check.METRICS[check.metric]
        value = evaluation.values.get(check.metric)
        verdicts[check.name] = Verdict(
            check.name,
            check.kind,
            check.metric,
            check.threshold,
            metric.direction,
            value,
            judge(value, metric, check.threshold),
            evaluation.evidence.get(check.metric, ""),
            seconds,
            reused,
        )
    return [verdicts[c.name] for c in config.checks], context
