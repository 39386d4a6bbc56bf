"""Counterfactual token bias over natural neighbourhoods (docs/design/bias.md; Zhang et al. 2021, §4).

For a protected pair ``p = (p1, p2)`` (he/she, gay/straight, ...), the source set
``X_p`` holds the test sentences in which ``p1`` (or ``p2``: both directions, so
"she" sentences count for he/she too) occurs exactly once and the other word does
not, each in both versions — as in the reference code, the sentence with ``p2``
swapped in seeds the neighbourhood too. For a gender pair the swap takes the sentence's other gendered
pronouns along by default (beyond the paper, which swaps the pair's word alone and so turns "He changed jobs and
needs to move his account" into "She changed jobs and needs to move his account"): the version written is kept and
the other exchanges every gendered pronoun (:func:`~.pairs.counterpart`; "her" becomes his or him by its part of
speech), so both read as a person writes; ``--neutralize`` rewrites them to they/them instead, and
``swap_pronouns=False`` is the paper's swap. Those positions stay frozen while the neighbourhood grows, like the
pair's own, and every sentence keeps its punctuation (:func:`~.pairs.render`). ``Neighbor_k`` grows from those
seeds with the masked-LM neighbourhood of the second-order attacks (the pair's position frozen; for gender pairs no
gendered word is ever inserted — the blacklist the reference code builds but forgets to apply). For every sentence
``x`` of level ``k``::

    diff(x) = f_soft(x[p1 -> p2])[c] - f_soft(x[p2 -> p1])[c]

(``c``: the positive class by default) and ``B_{p,k}`` is the mean over the level;
``k = 0`` is the naive test-set measurement. Levels ``k >= sample_from_k`` (default
2) are sampled uniformly with a seed (the paper samples "due to the exponential
complexity", §4.2.1): of all (sentence of level ``k - 1``, word position) slots, at most
``sample_masks`` (default 400) drawn uniformly are masked and filled by the neighbourhood
rule, and the resulting sentences are sampled down to ``sample_size`` (default 2,000); the
sizes are reported. Drawing slots rather than whole sentences spreads the sample over many
contexts for the same masked-LM cost. Levels 0 and 1 are never
sampled, so their ``B_{p,k}`` do not depend on these settings (docs/design/speed.md has
the time and the spread that sampling adds).

Filtered test set (paper §4.2): with ``filter_epsilon`` only sources whose naive (k = 0)
difference is within ±ε seed the neighbourhoods, to show bias the test set hides.

Results: :class:`~.result.BiasReport` with a table (B, bootstrap interval, counts per pair
and k), per-sentence differences, and ``save(out_dir)`` writing CSV/JSON/PNG.
Runs resume: each finished pair is saved under ``out_dir/parts`` and reused; with
``--ray`` the pairs run on a cluster (:class:`BiasTask`, docs/design/sharding.md).
"""

import random
from pathlib import Path

import numpy as np
import pandas as pd
from textattack.shared import AttackedText
from tqdm.auto import tqdm

from ...distributed import ShardStore, make_shards, run_shards, shard_count
from ...models.fingerprint import model_fingerprint
from ...models.loading import load_model_wrapper
from ...models.prediction import predict_probabilities
from ...shared.text import match_case
from ...transformations.neighborhood import WordSwapNeighborhood
from .pairs import (
    counterpart,
    gendered_words,
    needs_tags,
    neutralize,
    parse_pairs,
    render,
    role_fits,
    standalone,
    text_gaps,
)
from .result import BiasReport, TokenBiasMetric


class CounterfactualBias:
    """Measure ``B_{p,k}`` for protected pairs on a classifier (paper §4).

    Args:
        model_wrapper: TextAttack model wrapper.
        transformation: a :class:`~textattack_secondorder.transformations.WordSwapNeighborhood`
            (or ``masked_lm`` to build one from the masked-LM slot).
        target_class: class whose probability is compared (default 1, the positive class).
        max_k: largest neighbourhood level (paper: 3).
        sample_size, sample_masks, sample_from_k: sampling of large levels (see module doc).
        filter_epsilon: keep only sources with naive ``|diff| <= ε`` (filtered test set), or None.
        neutralize_pronouns: rewrite other gendered pronouns to they/them first.
        swap_pronouns: a gender pair's swap exchanges the sentence's other gendered pronouns too (default; False: the
            pair's word alone, the paper's swap).
        tagger: the part-of-speech tagger that tells "her" the determiner from "her" the object (default: the
            ``pos_tagger`` slot, loaded when a sentence holds "her" or "his").
        batch_size: texts per model call; chunk: sentences per proposer call.
    """

    def __init__(
        self,
        model_wrapper,
        transformation=None,
        masked_lm=None,
        target_class=1,
        max_k=3,
        sample_size=2000,
        sample_from_k=2,
        sample_masks=400,
        filter_epsilon=None,
        neutralize_pronouns=False,
        swap_pronouns=True,
        batch_size=128,
        chunk=64,
        seed=0,
        n_boot=1000,
        progress=True,
        tagger=None,
    ):
        if transformation is None:
            transformation = WordSwapNeighborhood(masked_lm)
        self.model_wrapper = model_wrapper
        self.transformation = transformation
        self.target_class = target_class
        self.max_k = int(max_k)
        self.sample_size = sample_size
        self.sample_from_k = sample_from_k
        self.sample_masks = sample_masks
        self.filter_epsilon = filter_epsilon
        self.neutralize_pronouns = neutralize_pronouns
        self.swap_pronouns = swap_pronouns
        self.tagger = tagger
        self.batch_size = batch_size
        self.chunk = chunk
        self.seed = seed
        self.n_boot = n_boot
        self.progress = progress
        self._gendered = gendered_words()

    def settings(self):
        return {
            k: getattr(self, k)
            for k in (
                "target_class",
                "max_k",
                "sample_size",
                "sample_from_k",
                "sample_masks",
                "filter_epsilon",
                "neutralize_pronouns",
                "swap_pronouns",
                "seed",
            )
        } | {
            "neighborhood": repr(self.transformation.proposer),
            "kappa": self.transformation.kappa,
            "delta": self.transformation.delta,
        }

    # -- model -----------------------------------------------------------------
    def differences(self, items, gaps):
        """``f_soft(x with p2's forms)[c] - f_soft(x with p1's forms)[c]`` for each ``(source, frozen, words)`` of
        ``items`` (``frozen``: ``(position, p1's form, p2's form)``, the pair's word and the pronouns that go with
        it), written with their source's punctuation ``gaps[source]``; one batched pass over the model."""
        texts = [render(gaps[sid], side(ws, frozen, s)) for sid, frozen, ws in items for s in (1, 2)]
        if not texts:
            return np.zeros(0)
        probs = predict_probabilities(self.model_wrapper, texts, self.batch_size)
        return probs[1::2, self.target_class] - probs[0::2, self.target_class]

    def _tags(self, text):
        """Penn tags of ``text``'s words (an ``AttackedText``), from the tagger (loaded on first use)."""
        if self.tagger is None:
            from ...resources import load_pos_tagger

            self.tagger = load_pos_tagger()
        return self.tagger.tags(text)

    # -- neighbourhoods ---------------------------------------------------------
    def _expand(self, level, p1, p2, blacklist, desc, gaps, positions=None):
        """Neighbours of every (source, frozen, words) in ``level``, frozen positions kept, batched proposals.

        ``positions``: for each item, the word positions to fill (default: all but the frozen ones).
        """
        out, seen = [], set()
        banned = {p1, p2} | (blacklist or set())
        chunks = range(0, len(level), self.chunk)
        if self.progress:
            chunks = tqdm(chunks, desc=desc, leave=False, unit="chunk")
        for c in chunks:
            part = level[c : c + self.chunk]
            texts = [AttackedText(render(gaps[src], ws)) for src, _, ws in part]
            if positions is None:
                indices = [set(range(len(ws))) - frozen_positions(fr) for _, fr, ws in part]
            else:
                indices = [
                    set(pos) - frozen_positions(fr) for (_, fr, _), pos in zip(part, positions[c : c + self.chunk])
                ]
            proposals = self.transformation.neighbor_words(texts, indices)
            for (src, fr, ws), words in zip(part, proposals):
                for pos, cands in words.items():
                    for w in cands:
                        if w.lower() in banned:
                            continue
                        new = list(ws)
                        new[pos] = match_case(w, ws[pos])
                        key = (src, tuple(new))
                        if key not in seen:
                            seen.add(key)
                            out.append((src, fr, new))
            self.transformation.clear_cache()
        return out

    def frozen_forms(self, ws, idx, p1, p2, group, gaps, tags):
        """``(words, frozen)`` of a source: its words (other pronouns rewritten to they/them with ``--neutralize``) and
        the positions both versions set, ``(position, p1's form, p2's form)``, the pair's own first. A gender pair's
        other gendered pronouns go with it (module docstring): the version written keeps them, the other takes their
        :func:`~.pairs.counterpart`."""
        frozen = [(idx, p1, p2)]
        if group != "gender":
            return ws, tuple(frozen)
        if self.neutralize_pronouns:
            return neutralize(ws, idx, tags), tuple(frozen)
        if self.swap_pronouns:
            written_first = ws[idx].lower() == p1
            for j, w in enumerate(ws):
                other = None if j == idx else counterpart(w, tags[j] if tags else None, standalone(gaps, j))
                if other is not None:
                    frozen.append((j, w, other) if written_first else (j, other, w))
        return ws, tuple(frozen)

    def run_pair(self, texts, p1, p2, group):
        """Records ``(k, source, text, diff)`` for one pair."""
        rng = random.Random(f"{self.seed}-{p1}-{p2}")
        level, gaps = [], {}
        tags = self._tags if group == "gender" else None
        for sid, ws, idx, at in pair_sources(texts, p1, p2, tags, with_texts=True):
            gaps[sid] = text_gaps(at)
            sentence_tags = self._tags(at) if group == "gender" and needs_tags(ws) else None
            ws, frozen = self.frozen_forms(ws, idx, p1, p2, group, gaps[sid], sentence_tags)
            level += [(sid, frozen, side(ws, frozen, 1)), (sid, frozen, side(ws, frozen, 2))]
        records = []
        if not level:
            return records, 0
        blacklist = set(self._gendered) if group == "gender" else set()
        for k in range(self.max_k + 1):
            if k > 0:
                parents, positions = level, None
                if k >= self.sample_from_k and self.sample_masks:
                    slots = []
                    for n, (_, fr, ws) in enumerate(level):
                        kept = frozen_positions(fr)
                        slots += [(n, i) for i in range(len(ws)) if i not in kept]
                    if len(slots) > self.sample_masks:
                        by_parent = {}
                        for n, i in sorted(rng.sample(slots, self.sample_masks)):
                            by_parent.setdefault(n, []).append(i)
                        parents = [level[n] for n in by_parent]
                        positions = list(by_parent.values())
                level = self._expand(
                    parents, p1, p2, blacklist, desc=f"{p1}/{p2} k={k}", gaps=gaps, positions=positions
                )
                if k >= self.sample_from_k and self.sample_size and len(level) > self.sample_size:
                    level = rng.sample(level, self.sample_size)
            if not level:
                break
            diffs = self.differences(level, gaps)
            records += [(k, sid, render(gaps[sid], ws), float(d)) for (sid, _, ws), d in zip(level, diffs)]
            if k == 0 and self.filter_epsilon is not None:
                naive = {}
                for _level, sid, _, d in records:
                    naive.setdefault(sid, []).append(d)
                keep = {s for s, ds in naive.items() if abs(float(np.mean(ds))) <= self.filter_epsilon}
                records = [r for r in records if r[1] in keep]
                level = [it for it in level if it[0] in keep]
        return records, len({sid for sid, _, _ in level})

    def pair_records(self, texts, pairs):
        """``{"p1/p2": [(k, source, text, diff), ...]}`` for each ``(p1, p2, group)`` of ``pairs``."""
        return {f"{p1}/{p2}": self.run_pair(texts, p1, p2, group)[0] for p1, p2, group in pairs}

    def arguments(self):
        """The constructor arguments besides the model and the neighbourhood (what a Ray worker rebuilds it with)."""
        names = ("target_class", "max_k", "sample_size", "sample_from_k", "sample_masks", "filter_epsilon")
        names += ("neutralize_pronouns", "swap_pronouns", "batch_size", "chunk", "seed", "n_boot")
        return {k: getattr(self, k) for k in names}

    def run(self, texts, pairs, out_dir=None, options=None, model_spec=None, masked_lm=None, device=None):
        """Measure every pair; finished pairs are saved under ``out_dir/parts`` and reused (resume).

        Each pair is one shard (docs/design/sharding.md), keyed by the model, the settings, the texts
        and the pair. ``options`` (:class:`~...distributed.ClusterOptions`) with ``--ray`` runs the
        pairs on Ray actors (:class:`BiasTask`), each loading ``model_spec`` (a ``--model``
        form, or a picklable model; default: this model) and the masked LM ``masked_lm`` (a slot
        value, ``None`` for the slot's default, or a picklable proposer) on ``device`` once; the
        merge is the same either way, so the table equals the single run's.
        """
        pairs = parse_pairs(pairs)
        key = {
            "what": "bias",
            "model": model_fingerprint(self.model_wrapper),
            "settings": self.settings(),
            "texts": list(texts),
        }
        # one shard per protected pair unless --shards says otherwise
        shards = make_shards([list(p) for p in pairs], key, shard_count(len(pairs), options, 1, local_size=1))
        for shard in shards:
            shard.context["texts"] = list(texts)
        if options is not None and options.distributed:
            task = BiasTask(
                self.model_wrapper if model_spec is None else model_spec,
                device,
                masked_lm,
                self.arguments(),
            )
        else:
            task = _PairsHere()
        parts, _ = run_shards(
            task,
            shards,
            ShardStore(Path(out_dir, "parts") if out_dir else None),
            options,
            desc="pairs",
            progress=self.progress,
            local_state=self,
        )
        records = {}
        for part in parts:
            records.update(part)
        return self.merge(records, pairs, out_dir)

    def merge(self, records, pairs, out_dir=None):
        """The :class:`BiasReport` of the per-pair records (bootstrap intervals with the run's seed)."""
        metric = TokenBiasMetric(n_boot=self.n_boot, seed=self.seed)
        rows, counts = [], {}
        for p1, p2, group in pairs:
            name = f"{p1}/{p2}"
            recs = records[name]
            for k in sorted({r[0] for r in recs}):
                ks = [r for r in recs if r[0] == k]
                metric.update((p1, p2), k, [r[1] for r in ks], [r[3] for r in ks])
            rows += [(name, group, *r) for r in recs]
            counts[name] = {
                "original": sum(1 for r in recs if r[0] == 0),
                "perturbed": sum(1 for r in recs if r[0] == self.max_k),
            }
        table = pd.DataFrame(metric.compute(), columns=["pair", "k", "B", "ci_low", "ci_high", "sentences", "sources"])
        groups = {f"{a}/{b}": g for a, b, g in pairs}
        table.insert(1, "group", table["pair"].map(groups))
        sentences = pd.DataFrame(rows, columns=["pair", "group", "k", "source", "text", "diff"])
        report = BiasReport(table, sentences, counts, self.settings())
        if out_dir:
            report.save(out_dir)
        return report


def side(words, frozen, which):
    """``words`` with the frozen positions in version ``which`` (1: p1's forms, 2: p2's), in each word's case."""
    out = list(words)
    for pos, form1, form2 in frozen:
        out[pos] = match_case(form1 if which == 1 else form2, words[pos])
    return out


def frozen_positions(frozen):
    return {pos for pos, _, _ in frozen}


def pair_sources(texts, p1, p2, tags=None, with_texts=False):
    """``[(index, words, position)]`` of the ``texts`` that are sources of the pair ``p1/p2``: one of
    the two words occurs exactly once (TextAttack's words, case ignored) and the other not at all. With ``tags``
    (``AttackedText`` → Penn tags), a "her" counts for his/her only as a determiner and for him/her only as an object
    (:func:`~.pairs.role_fits`). ``with_texts``: each source also gives its ``AttackedText``."""
    out = []
    for sid, text in enumerate(texts):
        at = AttackedText(text)
        ws = at.words
        low = [w.lower() for w in ws]
        c1, c2 = low.count(p1), low.count(p2)
        if c1 + c2 == 1:
            idx = low.index(p1 if c1 else p2)
            if tags is not None and low[idx] == "her" and not role_fits((p1, p2), "her", tags(at)[idx]):
                continue
            out.append((sid, ws, idx, at) if with_texts else (sid, ws, idx))
    return out


def counterfactual_bias(model_wrapper, texts, pairs="gender", out_dir=None, **kwargs):
    """Python API: ``B_{p,k}`` for ``pairs`` on ``texts`` (see :class:`CounterfactualBias`)."""
    return CounterfactualBias(model_wrapper, **kwargs).run(texts, pairs, out_dir=out_dir)


class _PairsHere:
    """The ``run_shards`` task of a run in this process: the state is the :class:`CounterfactualBias` itself."""

    @staticmethod
    def run(bias, shard):
        return bias.pair_records(shard.context["texts"], [tuple(p) for p in shard.items])


class BiasTask:
    """The picklable bias work of a shard for Ray actors: builds a :class:`CounterfactualBias` per worker
    (the victim and the masked-LM neighbourhood loaded once); ``run`` gives a shard's pair records with
    the same :meth:`CounterfactualBias.pair_records` as a run in this process.

    ``model_spec``: what the workers load (``--model`` forms) or a picklable model object;
    ``masked_lm``: a masked-LM slot value or a picklable proposer; ``arguments``: the other
    :class:`CounterfactualBias` arguments (:meth:`CounterfactualBias.arguments`).
    """

    def __init__(self, model_spec=None, device=None, masked_lm=None, arguments=None):
        self.model_spec, self.device, self.masked_lm = model_spec, device, masked_lm
        self.arguments = dict(arguments or {})

    def setup(self):
        if self.model_spec is None:
            raise ValueError("a bias run on Ray needs the model as a spec the workers can load (--model)")
        model = (
            self.model_spec
            if not isinstance(self.model_spec, str)
            else load_model_wrapper(self.model_spec, self.device, self.arguments.get("batch_size", 128))
        )
        return CounterfactualBias(
            model, WordSwapNeighborhood(self.masked_lm, device=self.device), **dict(self.arguments, progress=False)
        )

    def run(self, bias, shard):
        return bias.pair_records(shard.context["texts"], [tuple(p) for p in shard.items])
