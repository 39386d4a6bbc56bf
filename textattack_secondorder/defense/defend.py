"""One defended model, as ``textattack-so defend`` makes it: train, measure accuracy, save (docs/design/defenses.md).

:func:`defend_model` is the command's body without its argument parsing, so that ``defend --compare``
trains every defense exactly as ``defend`` does; :func:`test_accuracy` is the accuracy both report.
"""

import csv
import io
import time

import numpy as np

from ..augmentation.gradient import default_gradient_candidates
from ..models.token_classifier import TokenClassifier
from ..models.word_models import is_word_model
from ..shared.inputs import screen_examples
from .training import _default_lr, default_train_embeddings, save_model, train_defense


def test_accuracy(model_wrapper, test, device=None):
    """Accuracy of ``model_wrapper`` on the labelled rows of ``test`` that pass the input screen; None without any."""
    good = [(t, y) for _, t, y in screen_examples(test)[0] if y is not None]
    if not good:
        return None
    probs = TokenClassifier.from_model_wrapper(model_wrapper, device=device).predict_texts([t for t, _ in good])
    return float(np.mean(probs.argmax(1) == np.array([int(y) for _, y in good])))


def a2t_examples_csv(log):
    """CSV text (``round,step,label,original,adversarial``) of the adversarial texts A2T trained on."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(["round", "step", "label", "original", "adversarial"])
    for entry in log:
        for original, adversarial, label in entry["examples"]:
            writer.writerow([entry["round"], entry["step"], label, original, adversarial])
    return buf.getvalue()


def a2t_examples_count(record):
    """How many adversarial texts an A2T model trained on (over all its sets), from its ``defense.json`` record;
    ``None`` for another defense."""
    rounds = record.get("a2t_rounds")
    return None if rounds is None else sum(r["successes"] for r in rounds)


def a2t_warning(record):
    """The warning for an A2T model that trained on no adversarial text (its numbers and what to change), else
    ``None``: such a model is the ``continue`` control under another name."""
    if a2t_examples_count(record) != 0:
        return None
    rounds = record["a2t_rounds"]
    attacked = sum(r["attacked"] for r in rounds)
    return (
        f"A2T built 0 adversarial examples ({len(rounds)} sets, {attacked} training rows attacked, none succeeded, "
        f"seed {record.get('seed')}): the model was fine-tuned on the original rows only, as --defense continue is; "
        "try its attack on a few of your rows (`textattack attack --recipe a2t-offline --model YOUR_MODEL "
        "--dataset-from-file YOUR.csv --num-examples 20`): an attack that finds no swap on your sentences cannot "
        "train A2T"
    )


#: what SP-Defense was measured to do on the package's word models (docs/design/defenses.md): ``defend_model`` puts it
#: in the ``defense.json`` of every SP-Defense of a word model, and ``defend`` prints it
WORD_MODEL_NOTE = (
    "note: on this package's word models SP-Defense is measured (the defaults: 1,000 steps, SP-Attack under its "
    "default label rule 'lean-synonyms-lexicon', docs/design/defenses.md) to bring SP-Attack's success to about the "
    "same level whatever model it is given: the LSTM to 38-44 % (three LSTM victims, 3 seeds each: 80.8 -> 39.2, "
    "77.9 -> 43.6, 29.9 -> 38.2 %; rho* +6.9, +8.4, -6.9), the CNN to 65-69 % (four CNN victims: 81.1 -> 65.5, "
    "75.0 -> 65.1, 72.9 -> 68.4, 67.6 -> 68.8 %; rho* -2.3), accuracy +1; a model already hard to flip gains "
    "nothing or gets worse. Lower learning rates, fewer steps or frozen embeddings did worse on the CNN, 3,000 "
    "steps the same (67.3 %). "
    "Measure yours before trusting the defended model: `textattack-so defend --compare "
    "vanilla,continue,rand,a2t,sp-defense --model ...`"
)


def defend_model(
    model_wrapper,
    train,
    test,
    out,
    defense="sp-defense",
    steps=1000,
    batch_size=32,
    lr=None,
    seed=0,
    device=None,
    embeddings="default",
    gradient_candidates=None,
    model_batch_size=64,
    a2t_rounds=None,
    info=None,
    progress=True,
    attack=None,
):
    """Fine-tune ``model_wrapper``'s model in place with ``defense``, save it to ``out`` and return its
    ``defense.json`` record (``info`` adds fields: the base model, where the data come from ...).

    ``embeddings``: ``"train"``, ``"freeze"`` or ``"default"`` (:func:`~.training.default_train_embeddings`); the
    record says what was done (``"train"``, ``"freeze"``, ``"as trained"``).
    A2T's adversarial texts go to ``out/a2t_examples.csv``; ``attack``: the TextAttack ``Attack`` that makes them
    (default: the ``a2t-offline`` recipe on ``model_wrapper``).
    """
    candidates = gradient_candidates or default_gradient_candidates(model_wrapper.model)
    train_embeddings = {"train": True, "freeze": False}.get(embeddings, default_train_embeddings(model_wrapper.model))
    before = test_accuracy(model_wrapper, test, device)
    history, a2t_log = [], []
    cpu0 = time.process_time()
    seconds = train_defense(
        model_wrapper,
        train,
        steps=steps,
        batch_size=batch_size,
        lr=lr,
        defense=defense,
        seed=seed,
        device=device,
        train_embeddings=train_embeddings,
        history=history,
        gradient_candidates=candidates,
        model_batch_size=model_batch_size,
        a2t_log=a2t_log,
        a2t_rounds=a2t_rounds,
        attack=attack,
        progress=progress,
    )
    cpu_seconds = time.process_time() - cpu0
    after = test_accuracy(model_wrapper, test, device)
    record = {
        **(info or {}),
        "defense": defense,
        "steps": steps,
        "batch_size": batch_size,
        "seed": seed,
        "lr": lr or _default_lr(model_wrapper.model),
        "schedule": "linear decay to 0",
        "embeddings": {True: "train", False: "freeze", None: "as trained"}[train_embeddings],
        "train_embeddings": bool(model_wrapper.model.get_input_embeddings().weight.requires_grad),
        "gradient_candidates": candidates if defense == "sp-defense" else None,
        "seconds": seconds,
        "cpu_seconds": round(cpu_seconds, 1),
        "device": str(next(model_wrapper.model.parameters()).device),
        "test_accuracy_before": before,
        "test_accuracy_after": after,
        "test_examples": len(test),
        "training_loss_per_50_steps": history,
        "training examples": len(train),
    }
    if defense == "sp-defense" and is_word_model(model_wrapper.model):
        record["note"] = WORD_MODEL_NOTE
    if defense == "a2t":
        record["a2t_rounds"] = [{k: v for k, v in e.items() if k != "examples"} for e in a2t_log]
    files = {"a2t_examples.csv": a2t_examples_csv(a2t_log)} if defense == "a2t" else None
    save_model(model_wrapper, out, record, files=files)
    return record
