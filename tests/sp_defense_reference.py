"""The SP-Defense training loop as it was before augmentation became token-id operations (commit 4bd50a1).

A reference copy, kept only for ``test_sp_defense_tokens.py``: each augmented text is written as text
(TextAttack's ``replace_word_at_index``) and tokenized again, and the K candidates of the gradient mode
are scored by re-tokenizing K rewrites per sentence. ``reference_batches`` runs that loop and returns
the model inputs of every training step, to compare with what ``train_defense`` feeds the model now.
"""

import math
import random
from collections import Counter

import numpy as np
import torch
from textattack.shared import AttackedText

from textattack_secondorder.augmentation.augmented_batches import batch_modes
from textattack_secondorder.augmentation.sp_defense import augmentation_vocabulary, special_word_table
from textattack_secondorder.defense.training import _default_lr
from textattack_secondorder.models.token_classifier import TokenClassifier
from textattack_secondorder.shared.text import match_case


def _replace(text_or_at, index, word):
    at = text_or_at if isinstance(text_or_at, AttackedText) else AttackedText(text_or_at)
    return at.replace_word_at_index(index, match_case(word, at.words[index])).text


def random_augment(text, vocabulary, rng):
    at = AttackedText(text)
    if not at.words:
        return text
    i = rng.randrange(len(at.words))
    for _ in range(20):
        w = rng.choice(vocabulary)
        if w.lower() != at.words[i].lower():
            return _replace(at, i, w)
    return text


def special_augment(text, label, table, rng):
    at = AttackedText(text)
    words = table.get(label) or table.get(str(label)) or []
    if not at.words or not words:
        return text
    i = rng.randrange(len(at.words))
    cands = [w for w in words if w != at.words[i].lower()]
    return _replace(at, i, rng.choice(cands)) if cands else text


def gradient_augment(clf, texts, labels, vocab=None, batch_size=32, candidates=1):
    vocab_ids, vocab_words = vocab if vocab is not None else clf.vocabulary()
    E = clf.embedding_matrix().to(clf.device)
    Ev = E[torch.as_tensor(vocab_ids, device=clf.device)]
    emb = clf.model.get_input_embeddings()
    out = list(texts)
    for s in range(0, len(texts), batch_size):
        pending = {}
        ats = [AttackedText(t) for t in texts[s : s + batch_size]]
        keep = [k for k, at in enumerate(ats) if at.words]
        if not keep:
            continue
        enc = clf.tokenizer(
            [ats[k].words for k in keep],
            is_split_into_words=True,
            padding=True,
            truncation=True,
            max_length=clf.max_length,
            return_tensors="pt",
        )
        ids = enc["input_ids"].to(clf.device)
        mask = enc["attention_mask"].to(clf.device)
        embeds = emb(ids).detach().requires_grad_(True)
        was_training = clf.model.training
        clf.model.eval()
        logits = clf.model(inputs_embeds=embeds, attention_mask=mask).logits
        y = torch.tensor([int(labels[s + k]) for k in keep], device=clf.device)
        logp = torch.log_softmax(logits.float(), -1).gather(1, y[:, None])[:, 0]
        (grad,) = torch.autograd.grad(logp.sum(), embeds)
        clf.model.train(was_training)
        for row, k in enumerate(keep):
            word_ids = enc.word_ids(row)
            n_tokens = Counter(w for w in word_ids if w is not None)
            pos = [
                p
                for p, w in enumerate(word_ids)
                if w is not None and n_tokens[w] == 1 and int(ids[row, p]) not in clf.special_ids
            ]
            if not pos:
                continue
            g = grad[row, pos]
            cur = embeds[row, pos].detach()
            v = g @ Ev.T - (g * cur).sum(1, keepdim=True) + logp[row].detach()
            same = torch.as_tensor(vocab_ids, device=clf.device)[None, :] == ids[row, pos][:, None]
            v = v.masked_fill(same, float("inf"))
            if candidates == 1:
                flats = [int(torch.argmin(v))]
            else:
                flats = torch.topk(v.view(-1), min(candidates, v.numel()), largest=False).indices.tolist()
            flats = [f for f in flats if math.isfinite(float(v.view(-1)[f]))]
            if not flats:
                continue
            subs = [divmod(f, v.shape[1]) for f in flats]
            pending[s + k] = [_replace(ats[k], word_ids[pos[i]], vocab_words[w]) for i, w in subs]
        if candidates > 1 and pending:
            flat = [t for rewrites in pending.values() for t in rewrites]
            probs = clf.predict_texts(flat)
            clf.model.train(was_training)
            start = 0
            for j, rewrites in pending.items():
                p_y = probs[start : start + len(rewrites), int(labels[j])]
                pending[j] = [rewrites[int(np.argmin(p_y))]]
                start += len(rewrites)
        for j, rewrites in pending.items():
            out[j] = rewrites[0]
    return out


def augment(clf, examples, modes, vocab, vocabulary, table, rng, candidates):
    texts = [t for t, _ in examples]
    labels = [y for _, y in examples]
    out = list(texts)
    grad_idx = [i for i, m in enumerate(modes) if m == "gradient"]
    if grad_idx:
        aug = gradient_augment(
            clf, [texts[i] for i in grad_idx], [labels[i] for i in grad_idx], vocab, candidates=candidates
        )
        for i, t in zip(grad_idx, aug):
            out[i] = t
    for i, m in enumerate(modes):
        if m == "random":
            out[i] = random_augment(texts[i], vocabulary, rng)
        elif m == "special":
            out[i] = special_augment(texts[i], labels[i], table, rng)
    return out


def reference_batches(model_wrapper, train_examples, steps, batch_size=32, defense="sp-defense", seed=0, candidates=1):
    """The old ``train_defense`` loop: ``[(input_ids, attention_mask, augmented texts)]`` of every step."""
    clf = TokenClassifier.from_model_wrapper(model_wrapper, "SP-Defense training")
    model, tok = clf.model, clf.tokenizer
    special_words = special_word_table(train_examples)
    vocab = augmentation_vocabulary(clf, train_examples)
    vocabulary = list(vocab[1])
    aug_rng = random.Random(seed)
    model.get_input_embeddings().weight.requires_grad_(True)
    params = [p for p in model.parameters() if p.requires_grad]
    opt = torch.optim.AdamW(params, lr=_default_lr(model))
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda k: max(0.0, 1.0 - k / steps))
    rng = random.Random(seed)
    torch.manual_seed(seed)
    batches = []
    for _ in range(steps):
        batch = [train_examples[rng.randrange(len(train_examples))] for _ in range(batch_size)]
        modes = batch_modes(defense, batch_size, rng)
        texts = augment(clf, batch, modes, vocab, vocabulary, special_words, aug_rng, candidates)
        labels = torch.tensor([int(y) for _, y in batch], device=clf.device)
        enc = tok(texts, padding=True, truncation=True, max_length=clf.max_length, return_tensors="pt")
        batches.append((enc["input_ids"].clone(), enc["attention_mask"].clone(), texts))
        model.train()
        logits = model(input_ids=enc["input_ids"], attention_mask=enc["attention_mask"]).logits
        loss = torch.nn.functional.cross_entropy(logits.float(), labels)
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
    model.eval()
    return batches
