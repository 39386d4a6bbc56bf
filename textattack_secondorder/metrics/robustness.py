"""Robustness index over perturbed copies of an evaluation set (FlagEval; ALGORITHMS.md §4).

FlagEval perturbs an evaluation set at several levels and measures the model's
accuracy on each perturbed set ``dist_1 .. dist_T``:

* character (``C``): 3 to 15 characters of a sentence replaced by realistic typos
  — a neighbouring key on a QWERTY keyboard, or two inner characters of a word
  swapped (Michel et al.'s CharSwap) (:class:`CharPerturbation`);
* word (``W``): words replaced by synonyms (the ``synonyms`` resource slot) or by
  a masked LM's proposals (:class:`WordPerturbation`);
* sentence (``S``): back-translation, here English → Spanish → English through
  Debian's Apertium (:class:`BackTranslation`);
* adversarial (``Adv``): an attack recipe run against the model or a surrogate;
  successful adversarial texts replace the originals (:class:`AdversarialPerturbation`).

The robustness index is the average relative accuracy drop (FlagEval, "RB-index")::

    RB = (1/T) Σ_{i=1..T} (Acc_org − Acc_dist_i) / Acc_org

smaller is more robust, and it can be negative (:func:`robustness_index`). Each
set also gets its mean source-side chrF ``s_src(x, x̂)`` (Michel et al. 2019;
:mod:`.meaning_preservation`) so the accuracy drop can be read against how much
the texts were changed.

:func:`run_robustness` ties it together; :func:`write_report` writes a CSV, a JSON,
the perturbed sets (one CSV per level, reusable with :func:`load_sets`) and one
self-contained HTML report.
"""
import base64
import datetime
import difflib
import hashlib
import html
import io
import json
import logging
import os
import random
import re
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..resources.paths import atomic_write_text
from .meaning_preservation import source_chrf

logger = logging.getLogger(__name__)

LEVELS = ("char", "word", "sentence", "adversarial")
LEVEL_PREFIX = {"char": "C", "word": "W", "sentence": "S", "adversarial": "Adv"}  # FlagEval's set names

# FlagEval, character level: "Randomly select 3 to 15 characters for replacement".
CHAR_MIN, CHAR_MAX = 3, 15
# Our choice: never touch more than this share of a sentence's letters (short sentences stay readable).
CHAR_MAX_FRACTION = 0.2
# Our choice: share of a sentence's words replaced at the word level (at least one word).
WORD_RATE = 0.15
# Back-translation pivot (Apertium mode names; older packages call them en-es / es-en).
APERTIUM_MODES = (("eng-spa", "spa-eng"), ("en-es", "es-en"))
APERTIUM_CHUNK = 200  # sentences per apertium call (one per line)

# QWERTY neighbours of each letter (same row and the rows above/below).
KEYBOARD_NEIGHBOURS = {
    "q": "wa", "w": "qeas", "e": "wrsd", "r": "etdf", "t": "ryfg", "y": "tugh", "u": "yihj", "i": "uojk",
    "o": "ipkl", "p": "ol", "a": "qwsz", "s": "awedxz", "d": "serfcx", "f": "drtgvc", "g": "ftyhbv",
    "h": "gyujnb", "j": "huikmn", "k": "jiolm", "l": "kop", "z": "asx", "x": "zsdc", "c": "xdfv", "v": "cfgb",
    "b": "vghn", "n": "bhjm", "m": "njk",
}
_WORD = re.compile(r"[A-Za-z]+")


def _tqdm(iterable=None, **kwargs):
    from tqdm.auto import tqdm

    kwargs.setdefault("leave", False)
    kwargs.setdefault("dynamic_ncols", True)
    return tqdm(iterable, **kwargs)


def _rng(seed, *parts):
    """A ``random.Random`` seeded from ``seed`` and ``parts`` (stable across runs and processes)."""
    digest = hashlib.sha256("\x1f".join(map(str, (seed,) + parts)).encode("utf-8")).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


# ------------------------------------------------------------------ the index
def robustness_index(acc_original, accuracies):
    """FlagEval's RB-index: ``RB = (1/T) Σ_i (Acc_org − Acc_i) / Acc_org`` (ALGORITHMS.md §4).

    Args:
        acc_original: accuracy on the original set (> 0).
        accuracies: accuracies on the ``T`` perturbed sets.
    Returns the mean relative accuracy drop: 0 = unaffected, 1 = every set at 0 accuracy,
    negative when the model does better on perturbed sets.
    """
    accuracies = [float(a) for a in accuracies]
    if not accuracies:
        raise ValueError("robustness_index needs at least one perturbed set")
    acc_original = float(acc_original)
    if acc_original <= 0:
        raise ValueError("Acc_org must be positive: the relative drop is undefined when the model is never right")
    return float(np.mean([(acc_original - a) / acc_original for a in accuracies]))


def predict_labels(model_wrapper, texts, batch_size=64, desc="predicting"):
    """``argmax`` of a TextAttack model wrapper's outputs for ``texts`` (list of ints)."""
    preds = []
    batches = range(0, len(texts), batch_size)
    for start in _tqdm(batches, desc=desc, total=len(batches), disable=len(batches) < 2):
        out = model_wrapper(list(texts[start:start + batch_size]))
        if hasattr(out, "detach"):
            out = out.detach().cpu().numpy()
        out = np.asarray(out, dtype=float)
        preds.extend(int(i) for i in out.reshape(len(out), -1).argmax(axis=1))
    return preds


def accuracy(predictions, labels):
    if not labels:
        return float("nan")
    return float(np.mean([int(p) == int(y) for p, y in zip(predictions, labels)]))


# ------------------------------------------------------------------ perturbations
class CharPerturbation:
    """Realistic typos: between ``min_chars`` and ``max_chars`` characters touched per sentence (FlagEval: 3–15).

    Each edit is a neighbouring-key replacement (one character touched) or a swap of
    two different inner characters of a word of 4+ letters (two characters touched;
    Michel et al.'s CharSwap). The number drawn is capped at ``max_fraction`` of the
    sentence's letters (at least one edit). Seeded per sentence: the same text and
    seed give the same typos, whatever else is in the set.
    """

    level = "char"
    method = "typo"

    def __init__(self, min_chars=CHAR_MIN, max_chars=CHAR_MAX, max_fraction=CHAR_MAX_FRACTION,
                 operations=("keyboard", "swap"), seed=0):
        if not 1 <= min_chars <= max_chars:
            raise ValueError(f"need 1 <= min_chars <= max_chars, got {min_chars}, {max_chars}")
        unknown = set(operations) - {"keyboard", "swap"}
        if unknown or not operations:
            raise ValueError(f"operations must be among 'keyboard', 'swap'; got {operations}")
        self.min_chars, self.max_chars = int(min_chars), int(max_chars)
        self.max_fraction = float(max_fraction)
        self.operations = tuple(operations)
        self.seed = seed

    def settings(self):
        return {"chars_per_sentence": f"{self.min_chars}-{self.max_chars}",
                "max_fraction_of_letters": self.max_fraction, "operations": "+".join(self.operations),
                "seed": self.seed}

    def perturb_one(self, text):
        rng = _rng(self.seed, "char", text)
        chars = list(text)
        letters = [i for i, c in enumerate(chars) if c.isalpha() and c.lower() in KEYBOARD_NEIGHBOURS]
        if not letters:
            return text
        budget = rng.randint(self.min_chars, self.max_chars)
        budget = max(1, min(budget, int(self.max_fraction * len(letters))))
        touched = set()
        attempts = 0
        while len(touched) < budget and attempts < 20 * budget:
            attempts += 1
            op = rng.choice(self.operations)
            if op == "swap" and budget - len(touched) >= 2:
                pairs = self._swappable(text, touched)
                if pairs:
                    j = rng.choice(pairs)
                    chars[j], chars[j + 1] = chars[j + 1], chars[j]
                    touched.update((j, j + 1))
                    continue
            free = [i for i in letters if i not in touched]
            if not free:
                break
            i = rng.choice(free)
            new = rng.choice(KEYBOARD_NEIGHBOURS[chars[i].lower()])
            chars[i] = new.upper() if chars[i].isupper() else new
            touched.add(i)
        return "".join(chars)

    @staticmethod
    def _swappable(text, touched):
        """Start positions ``j`` of swappable inner pairs ``(j, j+1)``: inside a 4+ letter word, characters differ."""
        out = []
        for m in _WORD.finditer(text):
            s, e = m.span()
            if e - s < 4:
                continue
            for j in range(s + 1, e - 2):  # both j and j+1 are inner characters
                if text[j] != text[j + 1] and j not in touched and j + 1 not in touched:
                    out.append(j)
        return out

    def __call__(self, texts):
        return [self.perturb_one(t) for t in _tqdm(texts, desc="char typos", disable=len(texts) < 200)]


class WordPerturbation:
    """Replace about ``rate`` of a sentence's content words (at least one) by a synonym or a masked-LM proposal.

    Args:
        synonyms: word -> synonyms mapping (``resources.load_synonyms()``, a dict, or a JSON
            path); used when ``proposer`` is ``None``.
        proposer: a ``WordProposer`` (masked-LM slot) — FlagEval's "W-maskedlm" set.
        rate: share of the words replaced (our choice: 0.15).
        stopwords: words never replaced (default: TextFooler's list).
        seed: per-sentence seeding as in :class:`CharPerturbation`.
    """

    level = "word"

    def __init__(self, synonyms=None, proposer=None, rate=WORD_RATE, max_candidates=10, stopwords=None, seed=0):
        if synonyms is None and proposer is None:
            raise ValueError("WordPerturbation needs synonyms or a masked-LM proposer")
        if synonyms is not None and not hasattr(synonyms, "get"):
            synonyms = load_synonym_list(synonyms)
        self.synonyms = synonyms
        self.proposer = proposer
        self.method = "maskedlm" if proposer is not None else "synonym"
        self.rate = float(rate)
        self.max_candidates = int(max_candidates)
        if stopwords is None:
            from ..attack_recipes.textfooler_offline import TEXTFOOLER_STOPWORDS

            stopwords = TEXTFOOLER_STOPWORDS
        self.stopwords = frozenset(w.lower() for w in stopwords)
        self.seed = seed

    def settings(self):
        return {"source": self.method, "rate": self.rate, "max_candidates": self.max_candidates, "seed": self.seed}

    def _candidates(self, words, indices):
        """For each index, replacement words (case not yet matched)."""
        if self.proposer is not None:
            proposals = self.proposer.propose([list(words)], [list(indices)], top_k=2 * self.max_candidates)[0]
            out = []
            for i, cands in zip(indices, proposals):
                kept = []
                for tok, _ in cands:
                    low = str(tok).lower()
                    if self.proposer.is_word(tok) and low != words[i].lower() and low not in kept:
                        kept.append(low)
                    if len(kept) == self.max_candidates:
                        break
                out.append(kept)
            return out
        return [[s for s in list(self.synonyms.get(words[i].lower(), ()))[: self.max_candidates]
                 if s.lower() != words[i].lower() and " " not in s] for i in indices]

    def perturb_one(self, text):
        from textattack.shared import AttackedText

        from ..text_utils import match_case

        rng = _rng(self.seed, "word", self.method, text)
        at = AttackedText(text)
        words = at.words
        content = [i for i, w in enumerate(words) if w.isalpha() and w.lower() not in self.stopwords]
        if not content:
            return text
        if self.proposer is None:  # only words the list knows
            content = [i for i in content if self.synonyms.get(words[i].lower())]
        want = max(1, int(round(self.rate * len(words))))
        rng.shuffle(content)
        chosen = sorted(content[: 2 * want])  # over-fetch: some positions get no candidate
        if not chosen:
            return text
        cands = dict(zip(chosen, self._candidates(words, chosen)))
        picked = [i for i in content[: 2 * want] if cands.get(i)][:want]
        if not picked:
            return text
        picked.sort()
        new_words = [match_case(rng.choice(cands[i]), words[i]) for i in picked]
        return at.replace_words_at_indices(picked, new_words).text

    def __call__(self, texts):
        return [self.perturb_one(t) for t in _tqdm(texts, desc=f"word swaps ({self.method})",
                                                   disable=len(texts) < 20)]


def load_synonym_list(value=None):
    """The synonyms slot (``resources.load_synonyms``); a ``word -> [synonyms]`` JSON file is read directly
    when the slot's loader is not installed."""
    try:
        from ..resources import load_synonyms

        return load_synonyms(None if value is None else str(value))
    except ImportError:
        if value is None or not os.path.exists(str(value)):
            raise
    with open(value, encoding="utf-8") as f:
        data = json.load(f)
    return {str(k).lower(): list(v) for k, v in data.items()}


class ApertiumUnavailable(RuntimeError):
    """Apertium or its English–Spanish pair is not installed."""


def apertium_modes():
    """``(forward, backward)`` Apertium modes for English → Spanish → English, or raise :class:`ApertiumUnavailable`."""
    exe = shutil.which("apertium")
    if not exe:
        raise ApertiumUnavailable("apertium is not installed (Debian/Ubuntu: apt-get install -y apertium-eng-spa)")
    try:
        listed = subprocess.run([exe, "-l"], capture_output=True, text=True, timeout=30).stdout.split()
    except (OSError, subprocess.SubprocessError) as e:
        raise ApertiumUnavailable(f"apertium -l failed: {e}") from e
    for fwd, bwd in APERTIUM_MODES:
        if fwd in listed and bwd in listed:
            return fwd, bwd
    raise ApertiumUnavailable("apertium has no English-Spanish pair (apt-get install -y apertium-eng-spa); "
                              f"modes found: {', '.join(listed) or 'none'}")


class BackTranslation:
    """Sentence-level paraphrase by back-translation English → Spanish → English with Apertium (FlagEval "S").

    Sentences go to ``apertium`` in chunks, one per line; unknown words are left unmarked
    (``-u``). When the source sentence is all lower case (MR), so is the paraphrase.
    """

    level = "sentence"
    method = "backtranslation"

    def __init__(self, modes=None, chunk_size=APERTIUM_CHUNK, timeout=600):
        self.modes = tuple(modes) if modes else apertium_modes()
        self.chunk_size = int(chunk_size)
        self.timeout = timeout

    def settings(self):
        return {"engine": "apertium", "pivot": " -> ".join(self.modes), "chunk_size": self.chunk_size}

    def _translate(self, mode, lines):
        text = "\n".join(lines) + "\n"
        proc = subprocess.run(["apertium", "-u", mode], input=text, capture_output=True, text=True,
                              timeout=self.timeout)
        if proc.returncode != 0:
            raise RuntimeError(f"apertium {mode} failed: {proc.stderr.strip()[:500]}")
        out = proc.stdout.split("\n")
        if out and out[-1] == "":
            out = out[:-1]
        return out

    def _round_trip(self, lines):
        there = self._translate(self.modes[0], lines)
        back = self._translate(self.modes[1], there) if len(there) == len(lines) else []
        if len(back) != len(lines):  # lines merged somewhere: one call per sentence
            logger.warning("apertium changed the number of lines; translating this chunk sentence by sentence")
            back = [" ".join(self._translate(self.modes[1], self._translate(self.modes[0], [s]))) for s in lines]
        return back

    @staticmethod
    def _clean(original, translated):
        t = re.sub(r"\s+", " ", translated).strip()
        if original == original.lower():
            t = t.lower()
        return t or original

    def __call__(self, texts):
        lines = [re.sub(r"\s+", " ", t).strip() or "." for t in texts]
        out = []
        chunks = range(0, len(lines), self.chunk_size)
        for start in _tqdm(chunks, desc="back-translation", total=len(chunks)):
            out.extend(self._round_trip(lines[start:start + self.chunk_size]))
        return [self._clean(o, t) for o, t in zip(texts, out)]


def build_attack(recipe, model_wrapper):
    """A TextAttack ``Attack`` for ``recipe`` — one of ours (``registry.ATTACK_RECIPES``) or TextAttack's.

    ``recipe`` may carry parameters for our recipes: ``"so-beam^beam_width=5"``.
    """
    from .. import registry

    name, _, params = recipe.partition(registry.SPLIT)
    if name in registry.ATTACK_RECIPES:
        return registry.resolve(registry.ATTACK_RECIPES[name]).build(model_wrapper,
                                                                     **registry.parse_recipe_params(params))
    import importlib

    from textattack.attack_args import ATTACK_RECIPE_NAMES

    if name not in ATTACK_RECIPE_NAMES:
        known = sorted(set(registry.ATTACK_RECIPES) | set(ATTACK_RECIPE_NAMES))
        raise ValueError(f"Unknown attack recipe {name!r}; known: {', '.join(known)}")
    if params:
        raise ValueError(f"TextAttack's recipe {name!r} takes no parameters")
    module_name, _, cls_name = ATTACK_RECIPE_NAMES[name].rpartition(".")
    return getattr(importlib.import_module(module_name), cls_name).build(model_wrapper)


class AdversarialPerturbation:
    """Adversarial set (FlagEval "Adv"): run ``recipe`` with ``textattack.Attacker`` against ``model_wrapper``.

    ``model_wrapper`` is the evaluated model or a surrogate (FlagEval attacks a proxy
    model). The perturbed text of each successful attack replaces the original; failed
    and skipped examples keep the original text.
    """

    level = "adversarial"

    def __init__(self, recipe, model_wrapper, labels, surrogate_name=None, query_budget=None, seed=0, attack=None):
        self.recipe = recipe
        self.method = recipe.split("^")[0]
        self.model_wrapper = model_wrapper
        self.labels = list(labels)
        self.surrogate_name = surrogate_name
        self.query_budget = query_budget
        self.seed = seed
        self.attack = attack
        self.counts = {}

    def settings(self):
        return {"recipe": self.recipe, "attacked_model": self.surrogate_name or "the evaluated model",
                "query_budget": self.query_budget, "seed": self.seed, **self.counts}

    def __call__(self, texts):
        import textattack
        from textattack.attack_results import SkippedAttackResult, SuccessfulAttackResult

        if len(texts) != len(self.labels):
            raise ValueError("one label per text is needed for the adversarial level")
        attack = self.attack or build_attack(self.recipe, self.model_wrapper)
        dataset = textattack.datasets.Dataset([(t, int(y)) for t, y in zip(texts, self.labels)], shuffle=False)
        args = textattack.AttackArgs(num_examples=len(texts), query_budget=self.query_budget, random_seed=self.seed,
                                     disable_stdout=True, silent=True, shuffle=False)
        results = textattack.Attacker(attack, dataset, args).attack_dataset()
        out, counts = [], {"successful": 0, "failed": 0, "skipped": 0}
        for text, r in zip(texts, results):
            if isinstance(r, SuccessfulAttackResult):
                out.append(r.perturbed_result.attacked_text.text)
                counts["successful"] += 1
            else:
                out.append(text)
                counts["skipped" if isinstance(r, SkippedAttackResult) else "failed"] += 1
        attacked = counts["successful"] + counts["failed"]
        counts["attack_success_pct"] = round(100.0 * counts["successful"] / attacked, 2) if attacked else 0.0
        self.counts = counts
        return out


# ------------------------------------------------------------------ sets and report
@dataclass
class PerturbedSet:
    """One perturbed copy of the evaluation set: ``texts[i]`` is the perturbation of original ``i``."""

    name: str
    level: str
    method: str
    texts: list
    settings: dict = field(default_factory=dict)


def set_name(level, method):
    return f"{LEVEL_PREFIX.get(level, level)}-{method}"


def make_set(perturbation, texts):
    logger.info("building the %s set (%s) for %d texts", perturbation.level, perturbation.method, len(texts))
    perturbed = perturbation(list(texts))
    return PerturbedSet(set_name(perturbation.level, perturbation.method), perturbation.level,
                        perturbation.method, perturbed, perturbation.settings())


@dataclass
class RobustnessReport:
    texts: list
    labels: list
    sets: list  # PerturbedSet
    rows: list  # one dict per set, the original first
    predictions: dict  # set name -> predictions
    rb: float
    settings: dict
    skipped_levels: dict  # level -> reason


def evaluate_sets(model_wrapper, texts, labels, sets, batch_size=64, settings=None, skipped_levels=None):
    """Accuracy and mean chrF of every set, and the RB-index over the perturbed ones."""
    labels = [int(y) for y in labels]
    preds = {"original": predict_labels(model_wrapper, texts, batch_size, desc="original")}
    acc_org = accuracy(preds["original"], labels)
    rows = [{"set": "original", "level": "original", "method": "", "examples": len(texts), "changed_pct": 0.0,
             "accuracy": acc_org, "accuracy_drop": 0.0, "relative_drop": 0.0, "mean_chrf": 1.0, "std_chrf": 0.0,
             "mean_chrf_changed": float("nan")}]
    for s in sets:
        preds[s.name] = predict_labels(model_wrapper, s.texts, batch_size, desc=s.name)
        acc = accuracy(preds[s.name], labels)
        chrfs = [source_chrf(o, p) for o, p in zip(texts, s.texts)]
        changed = [c for c, o, p in zip(chrfs, texts, s.texts) if o != p]
        rows.append({
            "set": s.name, "level": s.level, "method": s.method, "examples": len(s.texts),
            "changed_pct": 100.0 * float(np.mean([o != p for o, p in zip(texts, s.texts)])) if texts else 0.0,
            "accuracy": acc, "accuracy_drop": acc_org - acc,
            "relative_drop": (acc_org - acc) / acc_org if acc_org > 0 else float("nan"),
            "mean_chrf": float(np.mean(chrfs)) if chrfs else float("nan"),
            "std_chrf": float(np.std(chrfs)) if chrfs else float("nan"),
            "mean_chrf_changed": float(np.mean(changed)) if changed else float("nan"),
        })
    rb = robustness_index(acc_org, [r["accuracy"] for r in rows[1:]]) if sets and acc_org > 0 else float("nan")
    return RobustnessReport(list(texts), labels, list(sets), rows, preds, rb, dict(settings or {}),
                            dict(skipped_levels or {}))


def run_robustness(model_wrapper, examples, perturbations, batch_size=64, settings=None, skipped_levels=None):
    """Build each perturbed set of ``examples`` (list of ``(text, label)``) and evaluate ``model_wrapper`` on all.

    ``perturbations``: callables ``texts -> perturbed texts`` with ``level``, ``method`` and
    ``settings()`` (:class:`CharPerturbation`, :class:`WordPerturbation`, :class:`BackTranslation`,
    :class:`AdversarialPerturbation`). Returns a :class:`RobustnessReport`.
    """
    texts = [t for t, _ in examples]
    labels = [y for _, y in examples]
    if any(y is None for y in labels):
        raise ValueError("the robustness report needs gold labels (a CSV with a label column, or 'mr')")
    sets = [make_set(p, texts) for p in perturbations]
    settings = dict(settings or {})
    for p, s in zip(perturbations, sets):
        settings[s.name] = p.settings()  # adversarial counts are known only after the run
    return evaluate_sets(model_wrapper, texts, labels, sets, batch_size, settings, skipped_levels)


# ------------------------------------------------------------------ saving and reusing sets
SETS_DIR = "sets"


def save_sets(out_dir, texts, labels, sets):
    """One CSV per perturbed set in ``out_dir/sets``: ``index, label, original, perturbed`` (+ ``sets.json``)."""
    import pandas as pd

    folder = Path(out_dir, SETS_DIR)
    meta = []
    for s in sets:
        df = pd.DataFrame({"index": range(len(texts)), "label": labels, "original": texts, "perturbed": s.texts})
        atomic_write_text(folder / f"{s.name}.csv", df.to_csv(index=False))
        meta.append({"name": s.name, "level": s.level, "method": s.method, "file": f"{s.name}.csv",
                     "settings": s.settings})
    atomic_write_text(folder / "sets.json", json.dumps(meta, indent=2, default=str))
    return folder


def load_sets(directory):
    """Read sets written by :func:`save_sets` (``directory`` or ``directory/sets``).

    Returns ``(examples, sets)``: the original ``(text, label)`` pairs and the :class:`PerturbedSet` list.
    """
    import pandas as pd

    folder = Path(directory)
    if (folder / SETS_DIR / "sets.json").exists():
        folder = folder / SETS_DIR
    meta_path = folder / "sets.json"
    if not meta_path.exists():
        raise FileNotFoundError(f"no perturbed sets in {directory} (expected {SETS_DIR}/sets.json)")
    meta = json.loads(meta_path.read_text(encoding="utf-8"))
    examples, sets = None, []
    for m in meta:
        df = pd.read_csv(folder / m["file"], keep_default_na=False)
        pairs = list(zip(df["original"].astype(str), df["label"].astype(int)))
        if examples is None:
            examples = pairs
        elif pairs != examples:
            raise ValueError(f"{m['file']} does not perturb the same examples as the other sets")
        sets.append(PerturbedSet(m["name"], m["level"], m["method"], df["perturbed"].astype(str).tolist(),
                                 m.get("settings", {})))
    return examples or [], sets


# ------------------------------------------------------------------ report files
def _pct(x):
    return "–" if x != x else f"{100 * x:.2f}"  # NaN (no changed example) prints as a dash


def format_table(report):
    """The printed table: one line per set, then RB."""
    head = (f"{'set':28s} {'n':>5s} {'changed%':>9s} {'accuracy':>9s} {'rel.drop':>9s} {'chrF':>7s} "
            f"{'chrF(changed)':>13s}")
    lines = [head, "-" * len(head)]
    for r in report.rows:
        lines.append(f"{r['set']:28s} {r['examples']:5d} {r['changed_pct']:9.1f} {100 * r['accuracy']:8.2f}% "
                     f"{100 * r['relative_drop']:8.2f}% {100 * r['mean_chrf']:7.2f} {_pct(r['mean_chrf_changed']):>13s}")
    lines.append("-" * len(head))
    lines.append(f"RB = (1/T) Σ (Acc_org − Acc_i)/Acc_org = {report.rb:.4f}   (T = {len(report.sets)}; "
                 "smaller is more robust)")
    for level, reason in report.skipped_levels.items():
        lines.append(f"skipped level {level}: {reason}")
    return "\n".join(lines)


def write_report(report, out_dir, title=None, examples_per_set=3):
    """Write ``robustness.csv``, ``robustness.json``, ``sets/*.csv`` and ``report.html`` to ``out_dir``.

    Returns a dict of the written paths.
    """
    import pandas as pd

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = {"csv": out / "robustness.csv", "json": out / "robustness.json", "html": out / "report.html"}
    atomic_write_text(paths["csv"], pd.DataFrame(report.rows).to_csv(index=False))
    payload = {"rb": report.rb, "T": len(report.sets), "sets": report.rows, "settings": report.settings,
               "skipped_levels": report.skipped_levels,
               "formula": "RB = (1/T) * sum_i (Acc_org - Acc_i) / Acc_org"}
    atomic_write_text(paths["json"], json.dumps(payload, indent=2, default=str))
    paths["sets"] = save_sets(out, report.texts, report.labels, report.sets)
    atomic_write_text(paths["html"], render_html(report, title=title, examples_per_set=examples_per_set))
    return paths


def plot_png(report):
    """Bar charts (accuracy, mean chrF per set) as PNG bytes."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = [r["set"] for r in report.rows]
    acc = [100 * r["accuracy"] for r in report.rows]
    chrf = [100 * r["mean_chrf"] for r in report.rows]
    colors = ["#4c6a92"] + ["#d9822b" if r["level"] == "adversarial" else "#7fa7c9" for r in report.rows[1:]]
    fig, axes = plt.subplots(1, 2, figsize=(11, 3.9), dpi=110)
    for ax, values, label in ((axes[0], acc, "accuracy (%)"), (axes[1], chrf, "mean chrF vs original (×100)")):
        bars = ax.bar(range(len(names)), values, color=colors, edgecolor="#333", linewidth=0.5)
        ax.set_xticks(range(len(names)))
        ax.set_xticklabels(names, rotation=20, ha="right", fontsize=9)
        ax.set_ylim(0, 105)
        ax.set_ylabel(label)
        ax.grid(axis="y", alpha=0.3)
        ax.spines[["top", "right"]].set_visible(False)
        for b, v in zip(bars, values):
            ax.text(b.get_x() + b.get_width() / 2, v + 1.5, f"{v:.1f}", ha="center", fontsize=8)
    axes[0].axhline(acc[0], color="#4c6a92", linestyle="--", linewidth=0.8)
    axes[0].set_title(f"Accuracy per set (RB = {report.rb:.3f})", fontsize=10)
    axes[1].set_title("Source-side preservation s_src(x, x̂)", fontsize=10)
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    plt.close(fig)
    return buf.getvalue()


def _diff_html(original, perturbed):
    """Perturbed text with changed words highlighted and deleted words struck out (word-level diff)."""
    a, b = original.split(), perturbed.split()
    parts = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
        chunk = html.escape(" ".join(b[j1:j2]))
        if op == "delete":
            parts.append(f"<del>{html.escape(' '.join(a[i1:i2]))}</del>")
        elif chunk:
            parts.append(chunk if op == "equal" else f"<mark>{chunk}</mark>")
    return " ".join(parts)


def _verdict(prediction, gold):
    return f'<span class="{"ok" if prediction == gold else "bad"}">{prediction}</span>'


_CSS = """
body{font-family:-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;margin:0;background:#f4f6f9;color:#1f2933}
main{max-width:1100px;margin:0 auto;padding:24px 32px 48px}
h1{font-size:24px;margin:0 0 4px}h2{font-size:18px;margin:28px 0 10px;border-bottom:1px solid #d5dbe3;padding-bottom:4px}
h3{font-size:15px;margin:18px 0 6px}
.sub{color:#52606d;font-size:13px;margin-bottom:18px}
.cards{display:flex;gap:14px;flex-wrap:wrap}
.card{background:#fff;border:1px solid #d5dbe3;border-radius:8px;padding:12px 18px;flex:1 1 140px}
.card .v{font-size:26px;font-weight:600}.card .s{font-size:12px;color:#52606d}.card .k{font-size:12px;color:#52606d;text-transform:uppercase;letter-spacing:.04em}
table{border-collapse:collapse;width:100%;background:#fff;font-size:13px;border:1px solid #d5dbe3}
th,td{padding:6px 10px;border-bottom:1px solid #e4e8ee;text-align:left;vertical-align:top}
th{background:#e9eef5;font-weight:600}td.n{text-align:right;font-variant-numeric:tabular-nums}
tr.org td{background:#f0f4fa;font-weight:600}
img{max-width:100%;background:#fff;border:1px solid #d5dbe3;border-radius:6px}
mark{background:#ffe08a;padding:0 2px;border-radius:2px}
del{color:#b42318;background:#fde8e6;padding:0 2px}
.ok{color:#1e7b34}.bad{color:#b42318}
.formula{font-family:Georgia,serif;background:#fff;border-left:4px solid #4c6a92;padding:8px 14px;margin:10px 0}
.note{color:#52606d;font-size:12px}
code{background:#e9eef5;padding:1px 4px;border-radius:3px}
"""


def render_html(report, title=None, examples_per_set=3):
    """One self-contained HTML page: summary cards, chart (inline PNG), table, settings, example perturbations."""
    esc = html.escape
    title = title or "Robustness report"
    png = base64.b64encode(plot_png(report)).decode("ascii")
    acc_org = report.rows[0]["accuracy"]
    worst = max(report.rows[1:], key=lambda r: r["relative_drop"], default=None)

    cards = [("RB index", f"{report.rb:.3f}", "mean relative accuracy drop"),
             ("original accuracy", f"{100 * acc_org:.1f}%", f"{len(report.texts)} examples"),
             ("perturbed sets (T)", str(len(report.sets)), ", ".join(esc(s.level) for s in report.sets))]
    if worst is not None:
        cards.append(("largest relative drop", f"{100 * worst['relative_drop']:.1f}%", esc(worst["set"])))
    card_html = "".join(f'<div class="card"><div class="k">{k}</div><div class="v">{v}</div><div class="s">{s}</div>'
                        f'</div>' for k, v, s in cards)

    rows = []
    for r in report.rows:
        cls = ' class="org"' if r["set"] == "original" else ""
        rows.append(
            f"<tr{cls}><td>{esc(r['set'])}</td><td>{esc(r['level'])}</td><td class=n>{r['examples']}</td>"
            f"<td class=n>{r['changed_pct']:.1f}%</td><td class=n>{100 * r['accuracy']:.2f}%</td>"
            f"<td class=n>{-100 * r['accuracy_drop'] + 0.0:+.2f}</td><td class=n>{100 * r['relative_drop']:.2f}%</td>"
            f"<td class=n>{100 * r['mean_chrf']:.2f}</td><td class=n>{_pct(r['mean_chrf_changed'])}</td></tr>")
    table = ("<table><tr><th>set</th><th>level</th><th>examples</th><th>changed</th><th>accuracy</th>"
             "<th>Δ accuracy (points)</th><th>relative drop</th><th>mean chrF</th><th>chrF of changed</th></tr>" + "".join(rows) + "</table>")

    settings_rows = []
    for k, v in report.settings.items():
        if isinstance(v, dict):
            v = ", ".join(f"{kk}={vv}" for kk, vv in v.items())
        settings_rows.append(f"<tr><th>{esc(str(k))}</th><td>{esc(str(v))}</td></tr>")
    for level, reason in report.skipped_levels.items():
        settings_rows.append(f"<tr><th>skipped: {esc(level)}</th><td>{esc(reason)}</td></tr>")

    ex_html = []
    orig_preds = report.predictions["original"]
    for s in report.sets:
        preds = report.predictions[s.name]
        changed = [i for i, (o, p) in enumerate(zip(report.texts, s.texts)) if o != p]
        # show label flips first, then other changed examples, in index order
        flips = [i for i in changed if preds[i] != orig_preds[i]]
        picked = (flips + [i for i in changed if i not in flips])[:examples_per_set]
        if not picked:
            ex_html.append(f"<h3>{esc(s.name)}</h3><p class=note>no example was changed at this level</p>")
            continue
        trs = []
        for i in picked:
            y = report.labels[i]
            trs.append(f"<tr><td class=n>{i}</td><td>{esc(report.texts[i])}</td>"
                       f"<td>{_diff_html(report.texts[i], s.texts[i])}</td><td class=n>{y}</td>"
                       f"<td class=n>{_verdict(orig_preds[i], y)} → {_verdict(preds[i], y)}</td>"
                       f"<td class=n>{100 * source_chrf(report.texts[i], s.texts[i]):.1f}</td></tr>")
        ex_html.append(f"<h3>{esc(s.name)}</h3><table><tr><th>#</th><th>original</th><th>perturbed "
                       f"(changes highlighted)</th><th>gold</th><th>prediction</th><th>chrF</th></tr>"
                       + "".join(trs) + "</table>")

    now = datetime.datetime.now().strftime("%Y-%m-%d %H:%M")
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{esc(title)}</title><style>{_CSS}</style></head>
<body><main>
<h1>{esc(title)}</h1>
<div class="sub">textattack-secondorder robustness report · {now} · {len(report.texts)} examples</div>
<div class="cards">{card_html}</div>
<div class="formula">RB = (1/T) Σ<sub>i=1..T</sub> (Acc<sub>org</sub> − Acc<sub>dist<sub>i</sub></sub>) / Acc<sub>org</sub>
 = <b>{report.rb:.4f}</b> &nbsp; <span class="note">(FlagEval robustness index: average relative accuracy drop over
 the T perturbed sets; smaller is more robust, negative means the model did better on perturbed text)</span></div>
<h2>Accuracy and meaning preservation per set</h2>
<img alt="accuracy and chrF per set" src="data:image/png;base64,{png}">
<p class="note">chrF: source-side preservation s<sub>src</sub>(x, x̂) of Michel et al. (2019), sentence chrF
(char order 6, β = 2) of the perturbed text against the original, ×100, averaged over the set
(unchanged examples count as 100); "chrF of changed" averages over the changed examples only.
Changed: share of examples whose text differs from the original.</p>
{table}
<h2>Example perturbations</h2>
<p class="note">Label flips are shown first. Prediction: model output on the original → on the perturbed text
(green = correct, red = wrong).</p>
{''.join(ex_html)}
<h2>Settings</h2>
<table>{''.join(settings_rows)}</table>
</main></body></html>
"""


__all__ = [
    "AdversarialPerturbation", "ApertiumUnavailable", "BackTranslation", "CharPerturbation", "LEVELS",
    "PerturbedSet", "RobustnessReport", "WordPerturbation", "accuracy", "apertium_modes", "build_attack",
    "evaluate_sets", "format_table", "load_sets", "make_set", "predict_labels", "render_html", "robustness_index",
    "load_synonym_list", "run_robustness", "save_sets", "write_report",
]
