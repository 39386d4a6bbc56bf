"""Which offline signal tells the x̃0 blind readers accept from those they refuse? (docs/design/neighbours.md)

Reads the judged x̃0 of `benchmarks/naturalness.py score` (the `vulnerable` rows) with the runs that wrote
them, and prints each signal's ROC AUC against the readers' joint verdict, per read:

* `gemma_diff`: log P(x̃0) − log P(x0) under the causal-LM slot's Gemma (what the natural rule's budget uses);
* `gemma_per_word`: the same per changed word;
* `mlm_min_changed`: for each changed word, the offline DistilBERT's log-probability of it minus that of the
  original word, in its slot of x̃0 masked (the other changes in place); the smallest;
* `minilm_min_changed`: for each changed word, all-MiniLM-L6-v2's cosine of its state in x̃0 and of the original
  word's in its place (the judge's ``st_word_cos`` of the swap back); the smallest;
* `minilm_sentence`: the cosine of x̃0's and x0's mean-pooled MiniLM vectors (the judge's ``st_cos``);
* `fewer_words`: minus the number of changed words;
* `prompt`: Gemma asked whether the sentence is fluent, sensible English (logit " yes" − " no").

    R=benchmarks/results
    python benchmarks/naturalness_signals.py --read train $R/naturalness_train60_read_judged.csv \
        $R/neighbor_rule_train60_examples.csv $R/neighbor_rule_train60_paper_examples.csv \
        --read test $R/naturalness_test_read_judged.csv $R/neighbor_rule_test40_examples.csv \
        --out $R/naturalness_signals.json
"""

import argparse
import json

import numpy as np
import pandas as pd
import torch
from sklearn.metrics import roc_auc_score

from textattack_secondorder.constraints.swap_signals import ENCODER, MASKED, encoder_signals_many, masked_signals
from textattack_secondorder.resources import load_causal_lm, load_sentence_encoder, load_word_proposer

PROMPT = (
    'Here is a sentence from a movie review: "{}"\n'
    "Question: Is this sentence fluent, sensible English? Answer yes or no.\nAnswer:"
)


def read_rows(judged, examples):
    """``[(x̃0, x0, accepted by all readers)]`` of one read."""
    j = pd.read_csv(judged)
    ex = pd.concat([pd.read_csv(e) for e in examples])
    rows = []
    for _, r in j[j.group == "vulnerable"].iterrows():
        original = ex[(ex.recipe == r.recipe) & (ex.example == r.example)].original.iloc[0]
        rows.append((r.text, original, int(r.all_readers)))
    return rows


def mlm_min_changed(mlm, new, old):
    """The smallest, over changed words, of log p(new word) − log p(old word) in that word's slot of x̃0 masked
    (the other changes in place): the judge's ``mlm_mask`` signal of the swap back to the old word, negated."""
    words = new.split()
    out = [
        -masked_signals(mlm, words, i, [b])[0, MASKED.index("mlm_mask")]
        for i, (a, b) in enumerate(zip(words, old.split()))
        if a != b
    ]
    return min(out) if out else 0.0


def minilm_signals(encoder, new, old):
    """``(smallest st_word_cos over changed words, st_cos of the whole sentences)`` of x̃0 against x0."""
    words, olds = new.split(), old.split()
    back = [(i, [b]) for i, (a, b) in enumerate(zip(words, olds)) if a != b]  # each changed word swapped back alone
    word = [v[0, ENCODER.index("st_word_cos")] for v in encoder_signals_many(encoder, words, back)] if back else []
    vectors = encoder.encode([new, old], convert_to_tensor=True)
    sentence = float(torch.nn.functional.cosine_similarity(vectors[0], vectors[1], dim=0))
    return (np.nanmin(word) if word else 1.0), sentence


def prompt_score(lm, sentence):
    tok = lm.tokenizer
    ids = torch.tensor([[lm.bos] + tok(PROMPT.format(sentence), add_special_tokens=False)["input_ids"]])
    with torch.no_grad():
        logits = lm.model(input_ids=ids).logits[0, -1].float()
    yes, no = (tok(w, add_special_tokens=False)["input_ids"][0] for w in (" yes", " no"))
    return float(logits[yes] - logits[no])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--read",
        nargs="+",
        action="append",
        required=True,
        metavar="NAME JUDGED EXAMPLES",
        help="a read's name, its *_read_judged.csv and the *_examples.csv of the runs it read",
    )
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--out")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    lm, mlm = load_causal_lm("gemma"), load_word_proposer("distilbert-onnx")
    encoder = load_sentence_encoder("all-MiniLM-L6-v2")
    report = {}
    for name, judged, *examples in args.read:
        rows = read_rows(judged, examples)
        new, old, y = [r[0] for r in rows], [r[1] for r in rows], np.array([r[2] for r in rows])
        changed = np.array([max(1, sum(a != b for a, b in zip(n.split(), o.split()))) for n, o in zip(new, old)])
        diff = np.array(lm.log_likelihood(new)) - np.array(lm.log_likelihood(old))
        minilm = np.array([minilm_signals(encoder, n, o) for n, o in zip(new, old)])
        signals = {
            "gemma_diff": diff,
            "gemma_per_word": diff / changed,
            "mlm_min_changed": np.array([mlm_min_changed(mlm, n, o) for n, o in zip(new, old)]),
            "minilm_min_changed": minilm[:, 0],
            "minilm_sentence": minilm[:, 1],
            "fewer_words": -changed,
            "prompt": np.array([prompt_score(lm, n) for n in new]),
        }
        report[name] = {"x0_tilde": len(rows), "accepted": int(y.sum())}
        report[name].update({k: round(float(roc_auc_score(y, v)), 3) for k, v in signals.items()})
        print(name, report[name], flush=True)
    if args.out:
        with open(args.out, "w") as f:
            json.dump({"command": "benchmarks/naturalness_signals.py", "auc": report}, f, indent=2)


if __name__ == "__main__":
    main()
