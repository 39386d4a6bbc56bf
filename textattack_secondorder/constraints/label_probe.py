"""A second opinion on the label: a probe fitted on the user's data must not move off the sentence's label
(docs/design/single-word.md).

The label lean counts words in the training data, and a word seen a few times in both labels' sentences leans nowhere
there, though it carries an opinion ("the young players are *little* convincing", "star wars is back in a *false*
way"). A label probe reads the whole sentence instead: a multinomial logistic regression (scikit-learn) on the sentence
encoder's vectors of the label data's training sentences. A one-word swap ``x -> x'`` is kept when the probe's
log-probability of the sentence's label ``y`` falls by at most ``max_drop`` nats::

    log P_probe(y | x) − log P_probe(y | x') <= max_drop

The victim has just been fooled by ``x'``; the probe is another reader of the same task, learnt from the same data. A
swap that moves it too has likely changed what the sentence says. It needs the label, so it judges the candidates the
victim misclassified (a success check of the label rule), where the attack knows the ground truth; without a label it
takes the probe's own reading of ``x``. The fitted probe is cached under a key of the data and the encoder.
"""

import hashlib
import io
import json

import numpy as np

from ..resources import load_sentence_encoder
from ..resources.paths import cache_dir
from ..shared.files import atomic_write_bytes

#: what the cache key reads of the encoder
FINGERPRINT_TEXT = "a label probe reads the whole sentence ."
#: SP-Attack's default largest fall of the probe's log-probability of the label, nats (design/single-word.md)
LABEL_PROBE_MAX_DROP = 0.25


class LabelProbe:
    """Logistic regression on sentence-encoder vectors of ``(text, class)`` rows, fitted on first use.

    Args:
        examples: ``(text, class number)`` pairs (the label data's training sentences).
        encoder: the sentence encoder (an object with ``encode``) or a name of its slot (None: the slot's default).
        name: where the rows come from (said in the summary row).
        device: the encoder's device when it is loaded here.
        cache: cache the fitted weights in the package cache (default True).
    """

    def __init__(self, examples, encoder=None, name=None, device=None, cache=True):
        self.examples = [(str(t), int(y)) for t, y in examples]
        if len({y for _, y in self.examples}) < 2:
            raise ValueError("a label probe needs sentences of at least 2 labels")
        self._encoder = encoder
        self.name = name
        self.device = device
        self.cache = cache
        self._weights = None  # (coef, intercept, classes)

    @property
    def encoder(self):
        if self._encoder is None or isinstance(self._encoder, str):
            self._encoder = load_sentence_encoder(self._encoder, device=self.device)
        return self._encoder

    def _key(self):
        """The cache key: the rows, and the encoder as what it makes of a fixed sentence (two encoders of one class
        are told apart; the same weights on another device round to the same vector)."""
        vector = np.asarray(self.encoder.encode([FINGERPRINT_TEXT]), dtype=np.float64)
        doc = json.dumps({"rows": self.examples, "encoder": np.round(vector, 3).tolist()}, sort_keys=True)
        return hashlib.sha256(doc.encode()).hexdigest()[:24]

    def _fit(self):
        from sklearn.linear_model import LogisticRegression

        path = cache_dir("label_probes") / f"{self._key()}.npz" if self.cache else None
        if path is not None and path.exists():
            with np.load(path) as z:
                return z["coef"], z["intercept"], z["classes"]
        x = np.asarray(self.encoder.encode([t for t, _ in self.examples]), dtype=np.float64)
        lr = LogisticRegression(C=1.0, max_iter=2000).fit(x, [y for _, y in self.examples])
        weights = (lr.coef_, lr.intercept_, lr.classes_)
        if path is not None:
            buf = io.BytesIO()
            np.savez(buf, coef=weights[0], intercept=weights[1], classes=weights[2])
            atomic_write_bytes(path, buf.getvalue())
        return weights

    @property
    def weights(self):
        """``(coef, intercept, classes)`` of the fitted regression (fitted, or read from the cache, on first use)."""
        if self._weights is None:
            self._weights = self._fit()
        return self._weights

    def log_probs(self, texts):
        """``(len(texts), classes)`` log-probabilities; the columns are the classes of the data, in order."""
        coef, intercept, _ = self.weights
        x = np.asarray(self.encoder.encode(list(texts)), dtype=np.float64)
        logits = x @ coef.T + intercept
        if logits.shape[1] == 1:  # scikit-learn's binary model: the log-odds of the second class
            logits = np.hstack([np.zeros_like(logits), logits])
        return logits - np.logaddexp.reduce(logits, axis=1, keepdims=True)

    def column(self, label):
        """The column of class ``label`` (None: a class the data does not have)."""
        classes = list(self.weights[2])
        return classes.index(label) if label in classes else None

    def __repr__(self):
        return f"LabelProbe({self.name or 'data'}, {len(self.examples)} sentences)"


class LabelProbeDrop:
    """Keep the swaps after which ``probe``'s log-probability of the sentence's label falls by at most ``max_drop``.

    A success check of a label rule: :meth:`kept_for_label` gets the label (the probe's own reading of the reference
    when it is None).
    """

    needs_label = True

    def __init__(self, probe, max_drop=LABEL_PROBE_MAX_DROP):
        self.probe = probe
        self.max_drop = float(max_drop)

    def drops(self, reference, texts, label=None):
        """``log P(label | reference) − log P(label | text)`` for each text (AttackedTexts)."""
        lp = self.probe.log_probs([reference.text] + [t.text for t in texts])
        col = int(np.argmax(lp[0])) if label is None else self.probe.column(label)
        if col is None:  # a class the label data does not have: the probe has no view of it
            return np.zeros(len(texts))
        return lp[0, col] - lp[1:, col]

    def kept_for_label(self, texts, reference, label=None):
        if not texts:
            return []
        drops = self.drops(reference, texts, label)
        return [t for t, d in zip(texts, drops) if d <= self.max_drop + 1e-9]

    def __repr__(self):
        return f"LabelProbeDrop(max_drop={self.max_drop:g}, {self.probe!r})"
