"""Runs the gate's checks and judges them (docs/design/gate.md).

Each check's evaluation is stored in ``OUT/evaluations/<name>/<key>.json`` under a content key:
the package version, the model spec and the content of the files behind it, the check's kind and
settings, the examples it reads (their text), the content of the other files it reads (a recipe's saved κ, a
vocabulary's data set) and the keys of the checks it reads from; the work of an evaluation (attack logs, shards,
charts) lies in ``OUT/<name>/<key>/``. A re-run with the same
key reuses the stored evaluation (no model is even loaded when all are reused), also after a run
on another model (the last few keys of each check are kept); a changed setting recomputes that
check only, and the commands' own resume (attack-sweep shards, bias parts, κ checkpoints and
shards, robustness parts) picks up what an interrupted run finished. Thresholds, tolerances,
metrics and the baseline are not part of the key: editing them re-judges without recomputing.
"""

import json
import os
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path

from .._version import __version__
from ..datasets.examples import load_examples
from ..distributed import ClusterOptions
from ..models.fingerprint import file_digest, model_fingerprint, spec_fingerprint
from ..models.loading import load_model_wrapper
from ..models.probe import model_label_names, probe_model
from ..shared.digest import content_digest
from ..shared.files import atomic_write_text
from ..shared.inputs import bad_text_reason, screen_examples, skipped_summary_text
from ..shared.label_names import readable_names
from .base import ConfigError, Evaluation
from .baseline import compare
from .verdict import Verdict

STORE = "evaluations"
KEEP_PER_CHECK = 4  # stored evaluations kept per check (the most recently used), with their work folders


@dataclass
class Finished:
    """A check's evaluation, computed in this run or reused, with what it was measured with."""

    name: str
    evaluation: Evaluation
    key: str
    folder: Path
    comparable: dict = field(default_factory=dict)
    model_fingerprint: str = ""
    seconds: float = 0.0
    reused: bool = False


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
        self.model_fingerprint = ""
        self._num_classes = None
        self._label_names = None
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
            self.model_fingerprint = model_fingerprint(self._model)
        return self._model

    def examples(self, settings):
        """The raw ``(text, label)`` rows a check's settings name (dataset, split, num_examples)."""
        key = (settings["dataset"], settings["split"], settings["num_examples"])
        if key not in self._examples:
            try:
                self._examples[key] = load_examples(
                    key[0],
                    key[1],
                    self.config.text_column,
                    self.config.label_column,
                    key[2],
                    hint="the config's text_column / label_column",
                )
            except (FileNotFoundError, ValueError) as e:
                raise ConfigError(
                    f"dataset: cannot read {key[0]!r} split {key[1]!r} ({e}); valid: mr, a CSV "
                    "with text,label columns, or a text file"
                ) from None
        return self._examples[key]

    def screened(self, settings, labelled=True):
        """The usable rows (docs/design/hostile-input.md) and the skipped ones, as the commands screen them (labels:
        class numbers or the model's label names); a data set without a usable row is a ``ConfigError``."""
        examples = self.examples(settings)
        if self._num_classes is None:
            self._num_classes = probe_model(self.model, [t for t, _ in examples if not bad_text_reason(t)][:2])
            self._label_names = model_label_names(self.model, self._num_classes)
        good, skipped = screen_examples(examples, self._num_classes, labelled=labelled, label_names=self._label_names)
        if not good:
            raise ConfigError(
                f"dataset: no usable row in {settings['dataset']!r} split {settings['split']!r}: "
                + (
                    f"all {len(examples)} rows were skipped ({skipped_summary_text(skipped)})"
                    if examples
                    else "it is empty"
                )
            )
        if skipped:
            self.say(
                f"  skipping {len(skipped)} of {len(examples)} rows for bad input ({skipped_summary_text(skipped)})"
            )
        return [(t, y) for _, t, y in good], skipped

    @property
    def label_names(self):
        """The model's label names in class order (its ``config.id2label``) once a check has screened rows,
        for showing outputs as names; ``None`` before that or when the model has none worth showing."""
        return readable_names(self._label_names)

    def finished(self, name):
        return self.done[name]


def examples_digest(examples):
    """``"N rows <digest>"``: the examples a check read, by their text and labels."""
    return f"{len(examples)} rows {content_digest([list(e) for e in examples], 12)}"


def check_key(context, check, keys):
    """The content key of ``check``'s evaluation (``keys``: those of the checks it reads from)."""
    data = context.examples(check.settings) if check.DATA_SETTINGS else None
    deps = [keys[d] for d in check.depends_on()]
    files = [file_digest(f) if os.path.isfile(f) else f for f in check.input_files()]
    return content_digest(
        [
            "textattack-so check",
            __version__,
            check.kind,
            check.settings,
            context.spec,
            spec_fingerprint(context.spec),
            data,
            deps,
        ]
        + ([files] if files else []),  # keys of checks without input files stay as they were
        20,
    )


def comparable(context, check, evaluation):
    """What the evaluation measured, compared key by key with a baseline's (docs/design/gate.md): the
    check's comparable settings, the digest of its examples, what the evaluation reports it measured
    with, and the same of the checks it reads (as ``<check>.<key>``)."""
    out = check.comparable_settings()
    if check.DATA_SETTINGS:
        out["examples"] = examples_digest(context.examples(check.settings))
    out.update(evaluation.measured_with)
    for dep in check.depends_on():
        out.update({f"{dep}.{k}": v for k, v in context.done[dep].comparable.items()})
    return json.loads(json.dumps(out, default=str))  # as stored and read back: tuples as lists, objects as text


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


class Store:
    """``OUT/evaluations/<name>/<key>.json``: the stored evaluations, a few keys per check."""

    def __init__(self, out):
        self.root = Path(out) / STORE

    def path(self, name, key):
        return self.root / name / f"{key}.json"

    def load(self, name, key):
        path = self.path(name, key)
        try:
            record = json.loads(path.read_text())
        except (OSError, ValueError):
            return None
        if record.get("key") != key or "comparable" not in record:
            return None
        os.utime(path)  # most recently used: kept by prune()
        return record

    def save(self, name, key, record):
        atomic_write_text(self.path(name, key), json.dumps(record, indent=2, default=str))

    def prune(self, name, out, keep=KEEP_PER_CHECK):
        """Keep the ``keep`` most recently used evaluations of check ``name`` and their work folders."""
        records = sorted(self.root.joinpath(name).glob("*.json"), key=lambda p: p.stat().st_mtime, reverse=True)
        for old in records[keep:]:
            shutil.rmtree(Path(out) / name / old.stem, ignore_errors=True)
            old.unlink(missing_ok=True)


def run_checks(config, out, options=None, progress=True, say=print, prepare=None):
    """Evaluate (or reuse) every check of ``config``; returns the :class:`GateContext`, whose ``done``
    maps each check's name to its :class:`Finished` evaluation.

    ``prepare()`` is called once before anything is evaluated (the command line extends TextAttack
    there); then every check about to be evaluated is validated (:meth:`~.base.Check.validate`:
    recipe names and parameters), before any model loads, and its inputs checked against the model
    (:meth:`~.base.Check.check_inputs`: a saved κ must be the model's own), before any evaluation.
    """
    context = GateContext(config, out, options, progress, say)
    store = Store(context.out)
    order = _order(config.checks)
    keys, stored = {}, {}
    for check in order:  # keys first: a dependant's key holds the keys of the checks it reads
        keys[check.name] = check_key(context, check, keys)
        stored[check.name] = store.load(check.name, keys[check.name])
    if prepare is not None and any(record is None for record in stored.values()):
        prepare()  # only when something is evaluated: re-judging stored evaluations stays quick (docs/design/gate.md)
    for check in order:
        if stored[check.name] is None:
            check.validate()
    for check in order:
        if stored[check.name] is None:
            check.check_inputs(context)  # a saved κ of another model is refused before anything is evaluated
    for check in order:
        key, record = keys[check.name], stored[check.name]
        folder = context.out / check.name / key
        start = time.time()
        if record is not None:
            say(f"[{check.name}] reusing the stored evaluation (same settings, model and data)")
            context.done[check.name] = Finished(
                check.name,
                Evaluation.from_dict(record["evaluation"]),
                key,
                folder,
                record["comparable"],
                record.get("model_fingerprint", ""),
                record.get("seconds", 0.0),
                True,
            )
            continue
        say(f"[{check.name}] evaluating {check.kind} ...")
        folder.mkdir(parents=True, exist_ok=True)
        evaluation = check.evaluate(context, folder)
        fingerprint = context.model_fingerprint or next(
            (context.done[d].model_fingerprint for d in check.depends_on() if context.done[d].model_fingerprint), ""
        )
        finished = Finished(
            check.name,
            evaluation,
            key,
            folder,
            comparable(context, check, evaluation),
            fingerprint,
            round(time.time() - start, 2),
        )
        store.save(
            check.name,
            key,
            {
                "key": key,
                "kind": check.kind,
                "settings": check.settings,
                "package_version": __version__,
                "seconds": finished.seconds,
                "comparable": finished.comparable,
                "model_fingerprint": fingerprint,
                "evaluation": evaluation.to_dict(),
            },
        )
        context.done[check.name] = finished
    for check in order:
        store.prune(check.name, context.out)
    return context


def judge(check, finished, baseline=None):
    """The :class:`~.verdict.Verdict` of ``check`` on its ``finished`` evaluation, against ``baseline``
    (a :class:`~.baseline.Baseline`, or ``None``). Numbers only: nothing is recomputed."""
    metric = check.METRICS[check.metric]
    ev = finished.evaluation
    return Verdict(
        check.name,
        check.kind,
        check.metric,
        metric.direction,
        metric.unit,
        ev.values.get(check.metric),
        check.threshold,
        metric.tolerance if check.tolerance is None else check.tolerance,
        check.tolerance is None,
        ev.evidence.get(check.metric, ""),
        None if baseline is None else compare(baseline, check.name, check.metric, finished.comparable),
        finished.seconds,
        finished.reused,
        dict(ev.values),
        finished.comparable,
        finished.model_fingerprint,
        finished.key,
        ev.sentences.get(check.metric),
    )


def run_gate(config, out, options=None, progress=True, say=print, baseline=None, prepare=None):
    """Evaluate (or reuse) and judge every check of ``config``; returns ``(verdicts in config order,
    context)``."""
    context = run_checks(config, out, options, progress, say, prepare)
    return [judge(c, context.done[c.name], baseline) for c in config.checks], context
