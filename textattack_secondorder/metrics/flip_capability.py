"""Single-word flip capability κ and robustness ρ (Xu et al., §2–3; ALGORITHMS.md §2.1–2.2).

``D+`` are the examples the classifier gets right; ``S(x, w)`` the sentences made
by putting word ``w`` at one position of ``x``. ``A[i, w] = 1`` when some sentence
of ``S(x_i, w)`` is misclassified.

* κ(w) = (1/|D+|) Σ_i A[i, w]                      (flip capability, Eq. 1)
* ρ(f) = 1 − (1/|V|) Σ_w κ(w)                       (robustness to single-word perturbation)

``ρ`` on a training sample, ``ρ*`` on the test set. Two ways to get ``A``:

* **EUBA** (paper §3, Algorithm 1): for each sentence, the ``l`` masked copies go
  through the model in one batched forward/backward, giving ``log f(y|s_k)`` and
  the gradient ``g_k`` w.r.t. the mask embedding at ``k``; the first-order estimate
  ``u_w^(k) = <g_k, e_w − e_mask> + log f(y|s_k)`` (Eq. 3) for every word and
  position is one matrix product. Phase 1 verifies substitutions in increasing
  ``u`` (skipping words that already flipped ``x``) until ``m`` consecutive
  failures; phase 2 tries the words that flipped most sentences of class ``y`` so
  far, each at its best position, with the same early stop. κ from EUBA is a lower
  bound (ρ an upper bound); with ``m = None`` (unbounded) it is exact.
* **Brute force**: every word at every position.

Positions and words. Positions are the model's tokens (sub-word tokens for
transformers, words for word-level models; special tokens excluded); the
vocabulary is the model's single-token entries made of letters only
(bert-base-uncased: 30,522 → ~21.7k), as in the reference code. A word that
needs several sub-word tokens is not in ``V``. The "mask" is the tokenizer's mask
token, else its unknown token (a neutral embedding for word-level models).

The same code serves Hugging Face classifiers and the package's word-level
victims: anything with ``get_input_embeddings()`` that accepts ``inputs_embeds``.
"""
import json
import logging
import math
import re
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..resources.paths import atomic_write_text

logger = logging.getLogger(__name__)

DEFAULT_M = 512  # paper: early stop m = 512 by default
_LETTERS = re.compile(r"^[^\W\d_]+$")


class TokenClassifier:
    """Token-level view of a classifier for κ/ρ: ids in, probabilities out, gradients at masked positions.

    Args:
        model: a ``transformers`` model (or the package's word-level victim) accepting
            ``input_ids``/``inputs_embeds`` and ``attention_mask``, returning ``.logits``.
        tokenizer: its tokenizer.
        batch_size: sequences per forward pass.
        max_length: longer inputs are truncated.
    """

    def __init__(self, model, tokenizer, device=None, batch_size=256, max_length=128):
        import torch

        self.model = model.eval()
        self.tokenizer = tokenizer
        self.device = torch.device(device) if device else next(model.parameters()).device
        self.model.to(self.device)
        self.batch_size = int(batch_size)
        self.max_length = int(max_length)
        self.special_ids = set(tokenizer.all_special_ids)
        for name in ("mask_token_id", "unk_token_id", "pad_token_id"):
            tid = getattr(tokenizer, name, None)
            if tid is not None:
                self.mask_id = int(tid)
                break
        else:
            raise ValueError("tokenizer has no mask, unknown or padding token to stand for a masked position")

    @classmethod
    def from_model_wrapper(cls, model_wrapper, **kwargs):
        model, tok = getattr(model_wrapper, "model", None), getattr(model_wrapper, "tokenizer", None)
        if model is None or tok is None or not hasattr(model, "get_input_embeddings"):
            raise TypeError(
                "κ/ρ need gradients: pass a model wrapper with a PyTorch `model` (with get_input_embeddings()) "
                f"and a Hugging Face `tokenizer`; got {type(model_wrapper).__name__}"
            )
        return cls(model, tok, **kwargs)

    # -- vocabulary and inputs --------------------------------------------------
    def vocabulary(self):
        """``(ids, words)`` of the single-token, letters-only vocabulary entries."""
        vocab = self.tokenizer.get_vocab()
        items = sorted((i, w) for w, i in vocab.items() if i not in self.special_ids and _LETTERS.match(w))
        return np.array([i for i, _ in items], dtype=np.int64), [w for _, w in items]

    def encode(self, text):
        """Token ids (with special tokens) and the positions that may be substituted."""
        ids = self.tokenizer(text, truncation=True, max_length=self.max_length)["input_ids"]
        positions = [k for k, t in enumerate(ids) if t not in self.special_ids]
        return ids, positions

    def predict(self, id_rows):
        """Probabilities for equal-length id rows (a 2-D LongTensor), in batches."""
        import torch

        out = []
        with torch.no_grad():
            for s in range(0, len(id_rows), self.batch_size):
                batch = id_rows[s : s + self.batch_size].to(self.device)
                logits = self.model(input_ids=batch, attention_mask=torch.ones_like(batch)).logits
                out.append(torch.softmax(logits.float(), -1).cpu())
        return torch.cat(out) if out else torch.zeros((0, 0))

    def predict_texts(self, texts):
        """Probabilities for texts (padded to the longest in each batch)."""
        import torch

        out = []
        with torch.no_grad():
            for s in range(0, len(texts), self.batch_size):
                enc = self.tokenizer(texts[s : s + self.batch_size], padding=True, truncation=True,
                                     max_length=self.max_length, return_tensors="pt")
                logits = self.model(input_ids=enc["input_ids"].to(self.device),
                                    attention_mask=enc["attention_mask"].to(self.device)).logits
                out.append(torch.softmax(logits.float(), -1).cpu())
        return torch.cat(out).numpy()

    def embedding_matrix(self):
        return self.model.get_input_embeddings().weight.detach()

    def masked_gradients(self, ids, positions, label):
        """``log f(y|s_k)`` and ``∇_{e_mask} log f(y|s_k)`` for the ``l`` masked copies, one batched pass."""
        import torch

        emb = self.model.get_input_embeddings()
        base = torch.tensor(ids, device=self.device)
        logps, grads = [], []
        for s in range(0, len(positions), self.batch_size):
            pos = torch.tensor(positions[s : s + self.batch_size], device=self.device)
            rows = base.repeat(len(pos), 1)
            rows[torch.arange(len(pos)), pos] = self.mask_id
            embeds = emb(rows).detach().requires_grad_(True)
            logits = self.model(inputs_embeds=embeds, attention_mask=torch.ones_like(rows)).logits
            logp = torch.log_softmax(logits.float(), -1)[:, label]
            (g,) = torch.autograd.grad(logp.sum(), embeds)
            logps.append(logp.detach().cpu())
            grads.append(g[torch.arange(len(pos)), pos].detach().cpu())
        return torch.cat(logps).numpy().astype(np.float64), torch.cat(grads).numpy().astype(np.float64)


class FlipCapability:
    """Accumulated counts ``count[w, c]`` (sentences of class c flipped by w) over ``D+``.

    The metric object of κ/ρ: ``update`` with one sentence's flipping words,
    ``merge`` shards computed separately, ``kappa``/``rho`` at any time.
    """

    def __init__(self, words, num_classes):
        self.words = list(words)
        self.counts = np.zeros((len(self.words), num_classes), dtype=np.int64)
        self.num_correct = 0
        self.num_examples = 0
        self.queries = 0
        self.seconds = 0.0

    def update(self, flipped_word_indices, label, queries=0, seconds=0.0):
        self.counts[np.asarray(list(flipped_word_indices), dtype=np.int64), label] += 1
        self.num_correct += 1
        self.queries += int(queries)
        self.seconds += float(seconds)
        return self

    def merge(self, other):
        if other.words != self.words:
            raise ValueError("cannot merge flip capabilities computed over different vocabularies")
        self.counts += other.counts
        for k in ("num_correct", "num_examples", "queries", "seconds"):
            setattr(self, k, getattr(self, k) + getattr(other, k))
        return self

    @property
    def kappa(self):
        return self.counts.sum(1) / max(self.num_correct, 1)

    @property
    def rho(self):
        return float(1.0 - self.kappa.mean()) if self.words else float("nan")

    def state(self):
        return {"words": self.words, "counts": self.counts.tolist(), "num_correct": self.num_correct,
                "num_examples": self.num_examples, "queries": self.queries, "seconds": self.seconds}

    @classmethod
    def from_state(cls, state):
        obj = cls(state["words"], len(state["counts"][0]) if state["counts"] else 2)
        obj.counts = np.array(state["counts"], dtype=np.int64).reshape(len(obj.words), -1)
        for k in ("num_correct", "num_examples", "queries", "seconds"):
            setattr(obj, k, state[k])
        return obj


@dataclass
class FlipCapabilityResult:
    """κ for every word, ρ, and the settings that produced them; saved as JSON + CSV and reloadable."""

    metric: FlipCapability
    settings: dict = field(default_factory=dict)

    @property
    def kappa(self):
        return dict(zip(self.metric.words, self.metric.kappa.tolist()))

    @property
    def rho(self):
        return self.metric.rho

    def to_frame(self):
        import pandas as pd

        df = pd.DataFrame({"word": self.metric.words, "kappa": self.metric.kappa})
        for c in range(self.metric.counts.shape[1]):
            df[f"flips_class_{c}"] = self.metric.counts[:, c]
        return df.sort_values(["kappa", "word"], ascending=[False, True], kind="stable").reset_index(drop=True)

    def top(self, n=50):
        return self.to_frame().head(n)

    def top_words(self, n=50):
        return self.top(n)["word"].tolist()

    def summary(self):
        m = self.metric
        return {"rho": self.rho, "vocabulary": len(m.words), "correct": m.num_correct, "examples": m.num_examples,
                "queries_per_sentence": m.queries / max(m.num_correct, 1),
                "seconds_per_sentence": m.seconds / max(m.num_correct, 1)}

    def save(self, path):
        """Write ``path`` (JSON: settings, summary, state) and ``path`` with .csv (word, κ, per-class flips)."""
        path = Path(path)
        if path.suffix != ".json":
            path = path.with_suffix(".json")
        atomic_write_text(path, json.dumps({"settings": self.settings, "summary": self.summary(),
                                            "state": self.metric.state()}))
        atomic_write_text(path.with_suffix(".csv"), self.to_frame().to_csv(index=False))
        return path

    @classmethod
    def load(cls, path):
        path = Path(path)
        if path.suffix == ".csv":
            path = path.with_suffix(".json")
        if not path.exists():
            raise FileNotFoundError(f"no flip-capability file at {path}")
        data = json.loads(path.read_text())
        return cls(FlipCapability.from_state(data["state"]), data.get("settings", {}))

    def plot_histogram(self, path):
        """Histogram of κ with log-scale counts (PNG)."""
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(5, 3.2))
        ax.hist(self.metric.kappa, bins=50, color="#c0504d", log=True)
        ax.set_xlabel("flip capability κ(w)")
        ax.set_ylabel("words (log scale)")
        ax.set_title(f"ρ = {self.rho:.3f}  (|V| = {len(self.metric.words)}, |D+| = {self.metric.num_correct})")
        fig.tight_layout()
        fig.savefig(path, dpi=110)
        plt.close(fig)
        return path


def _verify(clf, base, subs):
    """Predicted labels of ``base`` with each (position, token id) substitution applied."""
    import torch

    rows = base.repeat(len(subs), 1)
    pos = torch.tensor([p for p, _ in subs])
    rows[torch.arange(len(subs)), pos] = torch.tensor([t for _, t in subs])
    return clf.predict(rows).argmax(-1).numpy()


def euba_flips(clf, ids, positions, label, vocab_ids, emb_v_minus_mask, m, phase2_order, chunk=256):
    """EUBA for one sentence: indices (into ``vocab_ids``) of words that flip it, and the queries used.

    ``phase2_order``: vocabulary indices sorted by decreasing running count for class ``label``.
    ``m``: early stop after m consecutive failures (None = unbounded: exact).
    """
    import torch

    logp, grads = clf.masked_gradients(ids, positions, label)
    # u[k, w] = <g_k, e_w - e_mask> + log f(y|s_k)  (Eq. 3) as one matrix product
    u = grads @ emb_v_minus_mask.T + logp[:, None]
    V = len(vocab_ids)
    base = torch.tensor(ids)
    success = np.zeros(V, dtype=bool)
    queries = 0
    limit = math.inf if m is None else m
    step = chunk if m is None else max(1, min(chunk, m))

    def run(candidates):
        """Verify (position index, word index) pairs in order; early stop on ``m`` consecutive failures."""
        nonlocal queries
        fails = 0
        for s in range(0, len(candidates), step):
            block = [(k, w) for k, w in candidates[s : s + step] if not success[w]]
            if not block:
                continue
            labels = _verify(clf, base, [(positions[k], int(vocab_ids[w])) for k, w in block])
            for (k, w), pred in zip(block, labels):
                if success[w]:  # flipped earlier in this block: the sequential algorithm skips it
                    continue
                queries += 1
                if pred != label:
                    success[w] = True
                    fails = 0
                else:
                    fails += 1
                    if fails >= limit:
                        return

    # Phase 1: all substitutions in increasing order of u
    flat = np.argsort(u, axis=None, kind="stable")
    run([(int(i // V), int(i % V)) for i in flat])
    # Phase 2: words that flipped most sentences of this class, each at its best position
    best_pos = u.argmin(0)
    run([(int(best_pos[w]), int(w)) for w in phase2_order])
    return np.flatnonzero(success), queries


def brute_force_flips(clf, ids, positions, label, vocab_ids):
    """Every word at every position: indices of flipping words and the queries used (l × |V|)."""
    import torch

    base = torch.tensor(ids)
    success = np.zeros(len(vocab_ids), dtype=bool)
    vocab_t = torch.tensor(vocab_ids)
    for p in positions:
        for s in range(0, len(vocab_ids), clf.batch_size):
            chunk = vocab_t[s : s + clf.batch_size]
            rows = base.repeat(len(chunk), 1)
            rows[:, p] = chunk
            success[s : s + len(chunk)] |= clf.predict(rows).argmax(-1).numpy() != label
    return np.flatnonzero(success), len(positions) * len(vocab_ids)


def compute_flip_capability(model_wrapper, examples, method="euba", m=DEFAULT_M, batch_size=256, device=None,
                            checkpoint=None, progress=True, settings=None, vocab_limit=None):
    """κ and ρ of a classifier on ``examples`` (list of ``(text, label)``).

    Args:
        method: ``"euba"`` (paper Algorithm 1) or ``"brute"`` (exact).
        m: EUBA early stop (None = unbounded, equal to brute force).
        checkpoint: path of a JSON checkpoint; an interrupted run resumes from it.
        vocab_limit: keep only the first N vocabulary entries (for quick comparisons).
    Returns:
        :class:`FlipCapabilityResult`.
    """
    if method not in ("euba", "brute"):
        raise ValueError("method must be 'euba' or 'brute'")
    if hasattr(model_wrapper, "get_input_embeddings"):
        raise TypeError("pass a TextAttack model wrapper (with .model and .tokenizer), not a bare model")
    clf = model_wrapper if isinstance(model_wrapper, TokenClassifier) else TokenClassifier.from_model_wrapper(
        model_wrapper, device=device, batch_size=batch_size)
    vocab_ids, words = clf.vocabulary()
    if vocab_limit:
        vocab_ids, words = vocab_ids[:vocab_limit], words[:vocab_limit]
    probs = clf.predict_texts([t for t, _ in examples])
    num_classes = probs.shape[1]
    settings = dict(settings or {}, method=method, m=m, vocabulary=len(words), examples=len(examples))
    metric = FlipCapability(words, num_classes)
    start = 0
    ckpt = Path(checkpoint) if checkpoint else None
    if ckpt is not None and ckpt.exists():
        saved = json.loads(ckpt.read_text())
        if saved.get("settings") != json.loads(json.dumps(settings, default=str)):
            raise ValueError(f"checkpoint {ckpt} was made with other settings; delete it or use another path")
        metric, start = FlipCapability.from_state(saved["state"]), saved["next"]
        logger.info("resuming flip capability from example %d (%s)", start, ckpt)
    E = clf.embedding_matrix().cpu().numpy().astype(np.float64)
    emb_v_minus_mask = E[vocab_ids] - E[clf.mask_id]
    iterator = range(start, len(examples))
    if progress:
        from tqdm.auto import tqdm

        iterator = tqdm(iterator, desc=f"κ ({method}{'' if method == 'brute' else f', m={m}'})", unit="sentence",
                        initial=start, total=len(examples))
    last_save = time.perf_counter()
    for i in iterator:
        text, label = examples[i]
        metric.num_examples += 1
        if int(np.argmax(probs[i])) != int(label):
            continue  # only D+ (correctly classified examples) counts
        ids, positions = clf.encode(text)
        t0 = time.perf_counter()
        if not positions:
            metric.update([], int(label))
            continue
        if method == "brute":
            flips, q = brute_force_flips(clf, ids, positions, int(label), vocab_ids)
        else:
            order = np.argsort(-metric.counts[:, int(label)], kind="stable")
            flips, q = euba_flips(clf, ids, positions, int(label), vocab_ids, emb_v_minus_mask, m, order)
        metric.update(flips, int(label), q, time.perf_counter() - t0)
        if ckpt is not None and time.perf_counter() - last_save > 30:
            atomic_write_text(ckpt, json.dumps({"settings": settings, "state": metric.state(), "next": i + 1},
                                               default=str))
            last_save = time.perf_counter()
    if ckpt is not None:
        atomic_write_text(ckpt, json.dumps({"settings": settings, "state": metric.state(), "next": len(examples)},
                                           default=str))
    return FlipCapabilityResult(metric, settings)
