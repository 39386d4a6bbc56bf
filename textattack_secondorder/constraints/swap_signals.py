"""What the patch judge reads of a one-word swap ``p1 -> p2`` in its sentence (docs/design/patch-rules.md).

Each signal is a number per swap ``x -> x ⊕ p``; :class:`SwapSignals` computes a named set of them for
many swaps of one reference sentence at once:

* **causal LM** (Gemma-3-270M offline; one forward over ``x`` and every ``x ⊕ p``, cut
  :data:`RIGHT_CONTEXT` tokens after the swapped word): ``lm_slot`` — log P of ``p2``'s tokens minus
  log P of ``p1``'s, each given the words before it; ``lm_after`` — the same for the next
  :data:`RIGHT_CONTEXT` tokens (a word that breaks a set phrase, "make sure" → "make certain", costs them);
  ``lm_cos_slot`` / ``lm_cos_after`` — cosine of the last hidden state at the swapped word's last token,
  and of the mean hidden state of the tokens after it, between ``x`` and ``x ⊕ p`` (does the model read
  the rest of the sentence the same way?).
* **masked LM** (the offline DistilBERT encoder and its head, :mod:`..resources.proposers.distilbert_onnx`):
  ``mlm_keep`` — log P(p2) − log P(p1) from the head at ``p1``'s own (unmasked) position, the
  "keep the target" reading of lexical substitution; ``mlm_mask`` — the same with the slot masked;
  ``mlm_known`` — 1 when both words are single tokens of its vocabulary (else the two are 0);
  ``bert_cos`` — cosine of the encoder's state of the word (mean of its pieces) in ``x`` and ``x ⊕ p``.
* **sentence encoder** (all-MiniLM-L6-v2, the ``sentence_encoder`` slot's offline model, online the same
  weights): ``st_word_cos`` — cosine of its last hidden state of the word (mean of its pieces) in ``x`` and
  ``x ⊕ p``, the contextual-embedding similarity of lexical substitution; ``st_cos`` — cosine of the two
  sentences' mean-pooled vectors.
* **lexical** (no model): ``wn_shared`` (``p2`` shares one of ``p1``'s first four WordNet senses),
  ``wn_rank1`` / ``wn_rank2`` (that sense's rank for each word, 4 when none), ``wn_senses`` (how many
  senses ``p1`` has, up to 4), ``cf_in`` (``p2`` is a listed synonym of ``p1`` in the synonym list),
  ``pos_kept`` (``p1`` a content word and ``p2`` read with its tag: :class:`.PatchPartOfSpeech`).

What each signal tells acceptable from unacceptable swaps on human judgements (SWORDS), and how they
were combined, is in docs/design/patch-rules.md.
"""

import numpy as np
import torch

from ..resources.wordnet import TABLE_SENSES, WORDNET_POS, sense_ranks
from .patch_part_of_speech import UPOS_OF_TAG
from .word_swap_position import swapped_word
from .wordnet_synonym import lemmas_of

#: tokens of right context the causal LM scores after the swapped word
RIGHT_CONTEXT = 5
#: positions projected onto the causal LM's vocabulary at once (Gemma: 1 MB of float32 logits each; 32 rows take
#: 0.7x the time of 16 on a CPU)
LOGIT_ROWS = 32
CAUSAL = ("lm_slot", "lm_after", "lm_cos_slot", "lm_cos_after")
MASKED = ("mlm_keep", "mlm_mask", "mlm_known", "bert_cos")
ENCODER = ("st_cos", "st_word_cos")
LEXICAL = ("wn_shared", "wn_rank1", "wn_rank2", "wn_senses", "cf_in", "pos_kept")
SIGNALS = CAUSAL + MASKED + ENCODER + LEXICAL


def _shared_ends(a, b):
    """Lengths of the common start and the common end of two token lists (not overlapping)."""
    pre = 0
    while pre < min(len(a), len(b)) and a[pre] == b[pre]:
        pre += 1
    suf = 0
    while suf < min(len(a), len(b)) - pre and a[-1 - suf] == b[-1 - suf]:
        suf += 1
    return pre, suf


def _body(model):
    """The transformer under a causal LM's vocabulary projection (Gemma: ``model``, GPT-2: ``transformer``)."""
    for name in ("model", "transformer"):
        body = getattr(model, name, None)
        if isinstance(body, torch.nn.Module):
            return body
    return model.base_model


def causal_signals(scorer, reference, texts, right_context=RIGHT_CONTEXT, known=None):
    """``(len(texts), 4)`` array of :data:`CAUSAL` for one-word swaps ``texts`` of the string ``reference``.

    ``scorer``: a :class:`~..resources.perplexity.CausalLMScorer` (its ``model``, ``tokenizer``, ``bos``).
    Tokens past ``right_context`` after the swap cannot change the scores of the tokens before them (the
    model is causal), so each sequence is cut there. ``known``: a dict the caller keeps for one reference across
    calls, ``{(position, token): log P}`` of the reference's own states; the vocabulary projection of a state
    already projected is not done again.
    """
    tok = scorer.tokenizer
    full = [[scorer.bos] + tok(t, add_special_tokens=False)["input_ids"] for t in [reference, *texts]]
    ends = [_shared_ends(full[0], q) for q in full[1:]]
    if not ends:
        return np.zeros((0, len(CAUSAL)))
    ref_cut = len(full[0]) - min(s for _, s in ends) + right_context
    seqs = [full[0][:ref_cut]] + [q[: len(q) - s + right_context] for q, (_, s) in zip(full[1:], ends)]
    width = max(map(len, seqs))
    ids = torch.zeros(len(seqs), width, dtype=torch.long)
    mask = torch.zeros(len(seqs), width, dtype=torch.long)
    for r, q in enumerate(seqs):
        ids[r, : len(q)] = torch.tensor(q)
        mask[r, : len(q)] = 1
    # the vocabulary projection is most of the cost (Gemma: 262k words): only the states whose next token is scored
    # go through it — in the reference, the slots of the swaps and the tokens after them; in each swap, its own word
    # and the tokens after it. The state before a swap's first token is the reference's own (the same tokens lead
    # to it), so that one is the reference's; a reference state projected in an earlier call is not projected again.
    n_ref = len(full[0])
    known = {} if known is None else known
    wanted = [
        (0, c, full[0][c + 1]) for pre, suf in ends for c in range(pre - 1, n_ref - suf - 1 + min(suf, right_context))
    ]
    for k, (pre, _) in enumerate(ends, 1):
        wanted += [(0 if c < pre else k, c, seqs[k][c + 1]) for c in range(pre - 1, len(seqs[k]) - 1)]
    todo = sorted({w for w in wanted if w[0] or (w[1], w[2]) not in known})
    states = sorted({(r, c) for r, c, _ in todo})
    device = scorer.device
    values = {}
    with torch.no_grad():
        hidden = _body(scorer.model)(input_ids=ids.to(device), attention_mask=mask.to(device)).last_hidden_state
        head, cap = scorer.model.get_output_embeddings(), getattr(scorer.model.config, "final_logit_softcapping", None)
        for a in range(0, len(states), LOGIT_ROWS):  # a few states' full-vocabulary logits at a time: memory
            block = states[a : a + LOGIT_ROWS]
            at = {state: i for i, state in enumerate(block)}
            logits = head(hidden[[r for r, _ in block], [c for _, c in block]]).float()
            if cap:
                logits = torch.tanh(logits / cap) * cap
            lsm = torch.log_softmax(logits, -1)
            mine = [w for w in todo if (w[0], w[1]) in at]
            picked = lsm[[at[(r, c)] for r, c, _ in mine], [t for _, _, t in mine]].cpu().tolist()
            values.update(zip(mine, picked))
    for (r, c, t), v in values.items():
        if r == 0:
            known[(c, t)] = v

    def logp(row, col, token):
        return values[(row, col, token)] if row else known[(col, token)]

    hidden = hidden.float().cpu()
    cos = torch.nn.functional.cosine_similarity
    out = []
    ref = full[0]
    for k, ((pre, suf), q) in enumerate(zip(ends, full[1:]), 1):
        n = len(q)
        after = min(suf, right_context)

        def swap(c, k=k, pre=pre, q=q):  # log P of the swap's token c + 1, from the state that predicts it
            return logp(0 if c < pre else k, c, q[c + 1])

        slot = sum(swap(c) for c in range(pre - 1, n - suf - 1)) - sum(
            logp(0, c, ref[c + 1]) for c in range(pre - 1, n_ref - suf - 1)
        )
        later = sum(swap(c) for c in range(n - suf - 1, n - suf - 1 + after)) - sum(
            logp(0, c, ref[c + 1]) for c in range(n_ref - suf - 1, n_ref - suf - 1 + after)
        )
        cos_slot = cos(hidden[0, n_ref - suf - 1], hidden[k, n - suf - 1], dim=0)
        cos_after = (
            cos(
                hidden[0, n_ref - suf : n_ref - suf + after].mean(0),
                hidden[k, n - suf : n - suf + after].mean(0),
                dim=0,
            )
            if after
            else torch.tensor(1.0)
        )
        out.append([float(slot), float(later), float(cos_slot), float(cos_after)])
    return np.asarray(out, dtype=np.float64)


def _swapped(words, index, word):
    return list(words[:index]) + [word] + list(words[index + 1 :])


def masked_signals(proposer, words, index, new_words):
    """``(len(new_words), 4)`` array of :data:`MASKED` for ``words[index] -> w`` for each ``w`` of ``new_words``.

    ``proposer``: the offline DistilBERT proposer (its ``encoder`` and ``head``)."""
    return masked_signals_many(proposer, words, [(index, new_words)])[0]


def masked_signals_many(proposer, words, swaps):
    """:func:`masked_signals` of every ``(index, new_words)`` of ``swaps``, from one encoder run: the sentence
    once, its masked copy once per index, and every swapped sentence."""
    enc = proposer.encoder

    def span(ws, index):
        """The piece span ``(a, b)`` of word ``index`` in the token ids of ``ws`` (at least one piece)."""
        left = enc.encode([" ".join(ws[:index])])[0][:-1] if index else enc.encode([""])[0][:-1]
        upto = enc.encode([" ".join(ws[: index + 1])])[0][:-1]
        return len(left), max(len(upto), len(left) + 1)

    limit = proposer.max_tokens
    seqs, plan = [enc.encode([" ".join(words)])[0][:limit]], []
    for index, new_words in swaps:
        masked = list(words)
        masked[index] = "[MASK]"
        mids = enc.encode([" ".join(masked)])[0]
        swapped = [_swapped(words, index, w) for w in new_words]
        # (the word's span in the sentence, its [MASK] in the masked copy, where its swaps start in seqs, their spans)
        m = mids.index(enc.mask_id) if enc.mask_id in mids[:limit] else 0
        plan.append((span(words, index), (len(seqs), m), len(seqs) + 1, [span(ws, index) for ws in swapped]))
        seqs += [mids[:limit]] + [enc.encode([" ".join(ws)])[0][:limit] for ws in swapped]
    hidden = enc.hidden(seqs)
    # the head's rows, all at once: at each word in the sentence (keep), at its [MASK] in the masked copy (mask)
    rows = [r for (a, _), masked_at, _, _ in plan for r in (hidden[0, a], hidden[masked_at])]
    with torch.no_grad():
        logp = torch.log_softmax(proposer.head(torch.from_numpy(np.stack(rows))).float(), -1)
    token_id = proposer.word_token_id
    out = []
    for n, ((index, new_words), ((a, b), _, first, spans)) in enumerate(zip(swaps, plan)):
        keep, mask = logp[2 * n], logp[2 * n + 1]
        ref_vec = hidden[0, a:b].mean(0)
        t1 = token_id(words[index])
        rows = []
        for k, w in enumerate(new_words):
            a2, b2 = spans[k]
            vec = hidden[first + k, a2:b2].mean(0)
            bert_cos = float(np.dot(ref_vec, vec) / (np.linalg.norm(ref_vec) * np.linalg.norm(vec) + 1e-9))
            t2 = token_id(w)
            known = t1 is not None and t2 is not None
            rows.append(
                [
                    float(keep[t2] - keep[t1]) if known else 0.0,
                    float(mask[t2] - mask[t1]) if known else 0.0,
                    float(known),
                    bert_cos,
                ]
            )
        out.append(np.asarray(rows, dtype=np.float64).reshape(len(new_words), len(MASKED)))
    return out


def encoder_signals(encoder, words, index, new_words):
    """``(len(new_words), 2)`` array of :data:`ENCODER` for ``words[index] -> w`` for each ``w`` of ``new_words``.

    ``encoder``: a sentence-transformers model (its ``tokenizer`` and first module's ``auto_model``). The word's
    pieces are found by tokenising the words before it; a word past the encoder's length limit gets NaN."""
    return encoder_signals_many(encoder, words, [(index, new_words)])[0]


def encoder_signals_many(encoder, words, swaps):
    """:func:`encoder_signals` of every ``(index, new_words)`` of ``swaps``, from one forward (the sentence once)."""
    tok, model = encoder.tokenizer, encoder[0].auto_model
    limit = getattr(encoder, "max_seq_length", None) or 256
    sentences = [list(words)] + [_swapped(words, i, w) for i, new_words in swaps for w in new_words]
    enc = tok([" ".join(ws) for ws in sentences], return_tensors="pt", padding=True, truncation=True, max_length=limit)
    device = next(model.parameters()).device
    with torch.no_grad():
        hidden = model(**{k: v.to(device) for k, v in enc.items()}).last_hidden_state.float().cpu()
    mask = enc["attention_mask"].unsqueeze(-1).float()
    pooled = (hidden * mask).sum(1) / mask.sum(1)
    cos = torch.nn.functional.cosine_similarity
    ends = enc["attention_mask"].sum(1) - 1  # each sentence's [SEP]: a word's pieces must end before it

    def span(ws, index):
        start = len(tok(" ".join(ws[:index]), add_special_tokens=False)["input_ids"]) + 1  # after [CLS]
        return start, start + max(1, len(tok(ws[index], add_special_tokens=False)["input_ids"]))

    out, k = [], 1
    for index, new_words in swaps:
        a, b = span(words, index)
        rows = []
        for _ in new_words:
            a2, b2 = span(sentences[k], index)
            word = (
                np.nan
                if b > ends[0] or b2 > ends[k]
                else float(cos(hidden[0, a:b].mean(0), hidden[k, a2:b2].mean(0), dim=0))
            )
            rows.append([float(cos(pooled[0], pooled[k], dim=0)), word])
            k += 1
        out.append(np.asarray(rows, dtype=np.float64).reshape(len(new_words), len(ENCODER)))
    return out


def lexical_signals(old, new, tag, synonyms, pos_kept):
    """:data:`LEXICAL` of the swap ``old -> new`` (lower case) of a word tagged ``tag`` (Penn)."""
    prefix = (tag or "")[:2]
    pos, upos = WORDNET_POS.get(prefix), UPOS_OF_TAG.get(prefix)
    rank1 = rank2 = TABLE_SENSES
    senses = 0
    if pos is not None:
        old_lemmas, new_lemmas = lemmas_of(old, upos), lemmas_of(new, upos)
        senses, rank1, rank2 = sense_ranks(old_lemmas, new_lemmas, pos, TABLE_SENSES)
    listed = synonyms.get(old, ()) if synonyms is not None else ()
    return [
        float(rank1 < TABLE_SENSES),
        float(rank1),
        float(rank2),
        float(senses),
        float(new in listed),
        float(pos_kept),
    ]


class SwapSignals:
    """The signals of :data:`SIGNALS` for one-word swaps of a reference sentence.

    Args:
        causal_lm: a :class:`~..resources.perplexity.CausalLMScorer` (None: no causal signals).
        masked_lm: the offline DistilBERT proposer (None: no masked signals).
        sentence_encoder: the all-MiniLM-L6-v2 sentence-transformers model (None: no encoder signals).
        tagger: an object with ``tags(attacked_text)`` (Penn tags; for the lexical signals).
        synonyms: ``{word: synonyms}`` (the counter-fitted list) for ``cf_in``.
        part_of_speech: a :class:`.PatchPartOfSpeech` whose verdict is ``pos_kept``.
    """

    def __init__(
        self, causal_lm=None, masked_lm=None, tagger=None, synonyms=None, part_of_speech=None, sentence_encoder=None
    ):
        self.causal_lm = causal_lm
        self.masked_lm = masked_lm
        self.sentence_encoder = sentence_encoder
        self.tagger = tagger
        self.synonyms = synonyms
        self.part_of_speech = part_of_speech
        self._known = (None, {})  # (reference text, causal_signals' known log-probabilities of its states)

    def compute(self, reference, transformed_texts, names=SIGNALS):
        """``(len(transformed_texts), len(names))`` array; a text that is not a one-word swap gets NaN."""
        swaps = [swapped_word(t, reference) for t in transformed_texts]
        out = np.full((len(transformed_texts), len(SIGNALS)), np.nan)
        ok = [k for k, s in enumerate(swaps) if s is not None]
        if not ok:
            return out[:, [SIGNALS.index(n) for n in names]]
        need = set(names)
        col = {n: SIGNALS.index(n) for n in SIGNALS}
        if need & set(CAUSAL):
            if self._known[0] != reference.text:  # the reference's projected states, kept while it is the same
                self._known = (reference.text, {})
            texts = [transformed_texts[k].text for k in ok]
            vals = causal_signals(self.causal_lm, reference.text, texts, known=self._known[1])
            out[np.ix_(ok, [col[n] for n in CAUSAL])] = vals
        by_index = {}
        for k in ok:
            by_index.setdefault(swaps[k][0], []).append(k)
        groups = [(i, [transformed_texts[k].words[i] for k in ks]) for i, ks in by_index.items()]
        for group, signals in ((MASKED, self._masked), (ENCODER, self._encoder)):
            if need & set(group):  # every swapped position in one model run
                for ks, values in zip(by_index.values(), signals(reference.words, groups)):
                    out[np.ix_(ks, [col[n] for n in group])] = values
        if need & set(LEXICAL):
            tags = self.tagger.tags(reference)
            kept = set()
            if self.part_of_speech is not None:
                kept = {
                    id(t)
                    for t in self.part_of_speech._check_constraint_many([transformed_texts[k] for k in ok], reference)
                }
            for k in ok:
                i, old, new = swaps[k]
                out[k, [col[n] for n in LEXICAL]] = lexical_signals(
                    old, new, tags[i], self.synonyms, id(transformed_texts[k]) in kept
                )
        return out[:, [col[n] for n in names]]

    def _masked(self, words, swaps):
        return masked_signals_many(self.masked_lm, words, swaps)

    def _encoder(self, words, swaps):
        return encoder_signals_many(self.sentence_encoder, words, swaps)
