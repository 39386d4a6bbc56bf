"""The patch judge (docs/design/patch-rules.md): a logistic regression over signals of a swap in its sentence,
fitted to human judgements (SWORDS), as the default patch rule of the second-order recipes.

Stand-ins for the signals keep these tests fast; the causal-LM signals are checked once against a tiny
GPT-2's own sums, and the rule runs end to end in so-beam with stub models.
"""

import gzip
import json

import numpy as np
import pytest
import textattack
from textattack.shared import AttackedText

from textattack_secondorder.constraints import PatchJudge
from textattack_secondorder.constraints.patch_judge import PatchJudgeFileError, judge_probability, read_judge
from textattack_secondorder.constraints.swap_signals import CAUSAL, causal_signals
from textattack_secondorder.datasets.swords import sentence_around, swords_swaps
from textattack_secondorder.goal_functions.patch_candidates import wordnet_synonyms
from textattack_secondorder.goal_functions.patch_rules import DEFAULT_PATCH_RULE, PatchRule, build_patch_rule
from textattack_secondorder.shared.text import swap_words_at

torch = pytest.importorskip("torch")


def write_judge(path, signals=("lm_slot",), coef=(1.0,), threshold=0.5, **extra):
    model = {"signals": list(signals), "mean": [0.0] * len(signals), "scale": [1.0] * len(signals)}
    model.update({"coef": list(coef), "intercept": 0.0, "threshold": threshold, **extra})
    path.write_text(json.dumps(model))
    return path


class StubSignals:
    """Signals from a table keyed by the swapped-in word; counts the swaps it was asked about."""

    def __init__(self, table):
        self.table = table
        self.asked = 0

    def compute(self, reference, texts, names):
        self.asked += len(texts)
        rows = []
        for t in texts:
            (i,) = t.all_words_diff(reference)
            rows.append([self.table.get(t.words[i].lower(), {}).get(n, -9.0) for n in names])
        return np.asarray(rows, dtype=float)


def test_the_judge_is_the_default_patch_rule_and_its_packaged_file_reads():
    assert DEFAULT_PATCH_RULE == "judge"
    model = read_judge()
    assert 0.0 < model["threshold"] < 1.0
    assert len(model["coef"]) == len(model["signals"]) and "SWORDS" in model.get("attribution", "")


def test_judge_probability_is_the_logistic_of_the_standardised_signals(tmp_path):
    path = tmp_path / "j.json"
    path.write_text(
        json.dumps({"signals": ["lm_slot", "cf_in"], "mean": [1.0, 0.5], "scale": [2.0, 0.5], "coef": [1.5, -1.0]})[:-1]
        + ', "intercept": 0.25, "threshold": 0.5}'
    )
    model = read_judge(path)
    got = judge_probability(model, [[3.0, 1.0]])
    z = 0.25 + 1.5 * (3.0 - 1.0) / 2.0 - 1.0 * (1.0 - 0.5) / 0.5
    assert got[0] == pytest.approx(1 / (1 + np.exp(-z)))


@pytest.mark.parametrize(
    "content, needle",
    [
        (None, "cannot be read"),
        ("{not json", "is not JSON"),
        ('{"signals": ["lm_slot"]}', "lacks"),
        ('{"signals": ["nope"], "mean": [0], "scale": [1], "coef": [1], "intercept": 0, "threshold": 0.5}', "unknown"),
        (
            '{"signals": ["lm_slot"], "mean": [0, 1], "scale": [1], "coef": [1], "intercept": 0, "threshold": 0.5}',
            "1 finite",
        ),
        (
            '{"signals": ["lm_slot"], "mean": [0], "scale": [1], "coef": [1], "intercept": 0, "threshold": 0.5, '
            '"prefer": {"signals": ["cf_in"], "mean": [0], "scale": [0], "coef": [1], "intercept": 0}}',
            "prefer: scales must be positive",
        ),
    ],
)
def test_a_missing_or_corrupt_judge_file_is_named(tmp_path, content, needle):
    path = tmp_path / "judge.json"
    if content is not None:
        path.write_text(content)
    with pytest.raises(PatchJudgeFileError, match=needle) as e:
        read_judge(path)
    assert "judge.json" in str(e.value)


def test_the_judge_keeps_swaps_at_or_above_its_threshold(tmp_path):
    x = AttackedText("a good movie")
    texts = swap_words_at(x, 1, ["fine", "bad", "decent"])
    signals = StubSignals({"fine": {"lm_slot": 3.0}, "bad": {"lm_slot": -3.0}, "decent": {"lm_slot": 0.0}})
    judge = PatchJudge(signals, model_path=write_judge(tmp_path / "j.json"))
    assert [t.words[1] for t in judge._check_constraint_many(texts, x)] == ["fine", "decent"]  # σ(0) = 0.5 is kept
    strict = PatchJudge(signals, threshold=0.9, model_path=tmp_path / "j.json")
    assert [t.words[1] for t in strict._check_constraint_many(texts, x)] == ["fine"]
    with pytest.raises(ValueError, match="between 0 and 1"):
        PatchJudge(signals, threshold=1.5, model_path=tmp_path / "j.json")


def test_the_readers_model_picks_among_the_swaps_the_judge_keeps(tmp_path):
    """A file's ``prefer`` model (fitted to blind readers of MR pairs) ranks the kept swaps; whether a swap is
    kept stays the judge's own threshold on P(acceptable), from the same signals computed once."""
    x = AttackedText("a good movie")
    texts = swap_words_at(x, 1, ["fine", "bad", "decent"])
    table = {"fine": {"lm_slot": 3.0, "cf_in": 0.0}, "bad": {"lm_slot": -3.0, "cf_in": 5.0}}
    signals = StubSignals(table | {"decent": {"lm_slot": 0.0, "cf_in": 2.0}})
    prefer = {"signals": ["cf_in"], "mean": [0.0], "scale": [1.0], "coef": [1.0], "intercept": 0.0}
    judge = PatchJudge(signals, model_path=write_judge(tmp_path / "j.json", prefer=prefer))
    assert [t.words[1] for t in judge._check_constraint_many(texts, x)] == ["fine", "decent"]
    assert signals.asked == 3  # one computation for both models
    by_readers = {t.words[1]: judge.last_probability(t) for t in texts}
    assert by_readers["decent"] > by_readers["fine"] == pytest.approx(0.5)  # σ(cf_in), not σ(lm_slot)
    rule = PatchRule("judge", [judge], prefer=judge.last_probability)
    assert rule.first_kept(x, texts)[0] == 2  # decent: kept, and the readers' favourite among the kept
    without = PatchJudge(signals, model_path=write_judge(tmp_path / "k.json"))
    without._check_constraint_many(texts, x)
    assert without.last_probability(texts[0]) > without.last_probability(texts[2])  # P(acceptable) itself


def test_causal_signals_add_up_to_the_sentence_log_likelihood_difference():
    """lm_slot + lm_after is log P(x ⊕ p) − log P(x) exactly when the right context reaches the end."""
    from transformers import GPT2Config, GPT2LMHeadModel

    from conftest import bert_tokenizer
    from textattack_secondorder.resources.perplexity import CausalLMScorer

    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "the", "film", "movie", "was", "very", "good", "fine"]
    vocab += ["and", "long"]
    tok = bert_tokenizer(vocab)
    tok.bos_token = "[CLS]"
    torch.manual_seed(0)
    model = GPT2LMHeadModel(GPT2Config(vocab_size=len(vocab), n_positions=32, n_embd=16, n_layer=2, n_head=2)).eval()
    scorer = CausalLMScorer(model, tok, device="cpu")
    ref = "the film was very good and long"
    texts = ["the movie was very good and long", "the film was very fine and long", "the film was very good and fine"]
    got = causal_signals(scorer, ref, texts, right_context=100)
    want = scorer.log_likelihood_differences(ref, texts)
    assert got.shape == (3, len(CAUSAL))
    assert got[:, 0] + got[:, 1] == pytest.approx(want, abs=1e-4)
    short = causal_signals(scorer, ref, texts, right_context=1)  # one token after the swap: not the whole sum
    assert short[:, 0] == pytest.approx(got[:, 0], abs=1e-4)
    assert not np.allclose(short[:, 1], got[:, 1])
    # the reference's projected states kept across checks of one sentence: the same values, fewer projections
    projected = []
    model.lm_head.register_forward_hook(lambda module, args, output: projected.append(len(args[0])))
    known = {}
    first = causal_signals(scorer, ref, texts[:2], right_context=100, known=known)
    before = sum(projected)
    again = causal_signals(scorer, ref, texts, right_context=100, known=known)
    np.testing.assert_allclose(first, got[:2], atol=1e-5)
    np.testing.assert_allclose(again, got, atol=1e-5)
    fresh = sum(projected) - before
    projected.clear()
    causal_signals(scorer, ref, texts, right_context=100)
    assert known and fresh < sum(projected)


def test_encoder_signals_compare_the_word_in_context_and_the_sentences():
    """st_word_cos is the cosine of the swapped word's own states (the mean over its pieces) in x and x ⊕ p,
    st_cos of the mean-pooled sentences; a word past the encoder's length limit has no word signal (NaN)."""
    from transformers import BertConfig, BertModel

    from conftest import bert_tokenizer
    from textattack_secondorder.constraints.swap_signals import ENCODER, encoder_signals, encoder_signals_many

    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "the", "film", "movie", "was", "good", "fine", "un"]
    vocab += ["##watch", "##able", "very"]
    torch.manual_seed(0)
    cfg = BertConfig(
        vocab_size=len(vocab), hidden_size=16, num_hidden_layers=1, num_attention_heads=2, intermediate_size=32
    )
    model = BertModel(cfg).eval()

    class Encoder:  # what encoder_signals reads of a sentence-transformers model
        tokenizer, max_seq_length = bert_tokenizer(vocab), 64

        def __getitem__(self, k):
            return type("Module", (), {"auto_model": model})()

    words = ["the", "film", "was", "good"]
    got = encoder_signals(Encoder(), words, 1, ["film", "unwatchable"])
    assert got.shape == (2, len(ENCODER))
    assert got[0] == pytest.approx([1.0, 1.0], abs=1e-5)  # the word itself: the same states
    tok = Encoder.tokenizer
    ids = [tok(" ".join(w), return_tensors="pt")["input_ids"] for w in (words, ["the", "unwatchable", "was", "good"])]
    with torch.no_grad():
        h = [model(input_ids=i).last_hidden_state[0] for i in ids]
    word = torch.nn.functional.cosine_similarity(h[0][2], h[1][2:5].mean(0), dim=0)  # un ##watch ##able
    sent = torch.nn.functional.cosine_similarity(h[0].mean(0), h[1].mean(0), dim=0)
    assert got[1] == pytest.approx([float(sent), float(word)], abs=1e-5)
    Encoder.max_seq_length = 3  # [CLS] the [SEP]: "film" is cut off
    assert np.isnan(encoder_signals(Encoder(), words, 1, ["movie"])[0, 1])
    Encoder.max_seq_length = 64  # several positions in one forward: each as if alone
    together = encoder_signals_many(Encoder(), words, [(1, ["movie", "unwatchable"]), (3, ["fine"])])
    np.testing.assert_allclose(together[0], encoder_signals(Encoder(), words, 1, ["movie", "unwatchable"]), atol=1e-5)
    np.testing.assert_allclose(together[1], encoder_signals(Encoder(), words, 3, ["fine"]), atol=1e-5)


def test_masked_signals_of_several_positions_at_once_are_each_as_if_alone():
    """The sentence, each masked copy and each swap go through the encoder in one run, the head's rows in one call:
    every position's rows must come back to it (a stand-in encoder whose states depend on the whole sentence)."""
    from textattack_secondorder.constraints.swap_signals import MASKED, masked_signals, masked_signals_many

    vocab = ["[PAD]", "[CLS]", "[SEP]", "[MASK]", "the", "film", "movie", "was", "good", "fine", "very", "dull"]
    torch.manual_seed(0)
    table = torch.randn(len(vocab), 8)

    class Encoder:
        mask_id = vocab.index("[MASK]")

        def encode(self, texts):
            return [[1] + [vocab.index(w) for w in t.split()] + [2] for t in texts]

        def hidden(self, ids_list):
            n = max(map(len, ids_list))
            out = np.zeros((len(ids_list), n, 8), dtype=np.float32)
            for r, ids in enumerate(ids_list):
                h = table[ids]
                out[r, : len(ids)] = (h + 0.5 * h.mean(0)).numpy()  # each state depends on the whole sentence
            return out

    class Proposer:
        encoder, max_tokens = Encoder(), 64
        head = torch.nn.Linear(8, len(vocab))

        def word_token_id(self, word):
            return vocab.index(word) if word in vocab else None

    words = ["the", "film", "was", "very", "good"]
    swaps = [(1, ["movie"]), (4, ["fine", "dull"]), (3, ["good"])]
    together = masked_signals_many(Proposer(), words, swaps)
    for (index, new_words), got in zip(swaps, together):
        assert got.shape == (len(new_words), len(MASKED))
        np.testing.assert_allclose(got, masked_signals(Proposer(), words, index, new_words), atol=1e-5)
    assert together[1][0, 0] != together[1][1, 0]  # fine and dull differ: the rows are not all alike
    enc, head = Encoder(), Proposer.head
    masked = enc.hidden(enc.encode(["the [MASK] was very good"]))[0, 2]  # [CLS] the [MASK]
    with torch.no_grad():
        logp = torch.log_softmax(head(torch.from_numpy(masked)), -1)
    assert together[0][0, 1] == pytest.approx(float(logp[vocab.index("movie")] - logp[vocab.index("film")]), abs=1e-5)


def test_swords_swaps_inflect_the_substitute_and_leave_phrases_out(tmp_path):
    data = {
        "contexts": {"c1": {"context": "It rained.\n\tShe glanced at me and smiled."}},
        "targets": {"t1": {"context_id": "c1", "target": "glanced", "offset": 16, "pos": "VERB"}},
        "substitutes": {
            "s1": {"target_id": "t1", "substitute": "look"},
            "s2": {"target_id": "t1", "substitute": "peek at"},
        },
        "substitute_labels": {"s1": ["TRUE"] * 8 + ["FALSE"] * 2, "s2": ["TRUE"] * 10},
    }
    path = tmp_path / "swords.json.gz"
    path.write_bytes(gzip.compress(json.dumps(data).encode()))

    class Tagger:
        def tags(self, t):
            return ["PRP" if w == "She" else "VBD" if w in ("glanced", "smiled") else "IN" for w in t.words]

    rows = swords_swaps(path, tagger=Tagger())
    assert rows.text.tolist() == ["She glanced at me and smiled."]
    assert rows[["p1", "p2", "index"]].values.tolist() == [["glanced", "looked", 1]]
    assert rows.acceptable.tolist() == [True] and rows.score.tolist() == [0.8]
    assert sentence_around("One.  Two  three. Four.", 11) == ("Two three.", 4)


def test_wordnet_synonyms_come_in_the_words_inflection():
    assert "looked" in wordnet_synonyms("glanced", "VBD") or "peeked" in wordnet_synonyms("glanced", "VBD")
    films = wordnet_synonyms("movies", "NNS")
    assert "films" in films and all(w.endswith("s") for w in films)
    assert wordnet_synonyms("the", "DT") == []


class Scores(textattack.models.wrappers.ModelWrapper):
    """A victim fragile near "a good movie": "great" with "film" is positive. Alone, "picture" moves it most."""

    def __init__(self):
        self.model = None

    def __call__(self, texts):
        out = []
        for t in texts:
            words = t.lower().split()
            pos = 0.8 if "great" in words and "film" in words else 0.6 if words == ["picture"] else 0.3
            out.append([1 - pos, pos])
        return np.asarray(out)


class Tagger:
    TAGS = {"a": "DT", "the": "DT", "movie": "NN", "film": "NN", "picture": "NN", "good": "JJ", "great": "JJ"}

    def tags(self, t):
        return [self.TAGS.get(w.lower(), "JJ") for w in t.words]

    def tag_many(self, texts):
        return [self.tags(t) for t in texts]


class Proposer:
    """Masked LM stand-in: in any slot it proposes "great" and "picture"."""

    name = "stub"
    context_only = True

    @staticmethod
    def is_word(w):
        return w.isalpha()

    def propose(self, sentences, positions, top_k=21):
        return [[[("great", -1.0), ("picture", -1.5)] for _ in pos] for pos in positions]


def test_so_beam_with_the_default_rule_reports_only_what_the_judge_keeps(tmp_path):
    """End to end with stand-ins: the judge accepts movie -> film and refuses movie -> picture (which the
    model reacts to as much); so-beam reports movie -> film, and with a judge that refuses every swap the
    sentence is skipped — bypassing the judge changes the result."""
    from textattack_secondorder.attack_recipes import SOBeam

    x = "a good movie"
    keep_film = StubSignals({"film": {n: 5.0 for n in ("lm_slot",)}, "picture": {"lm_slot": -5.0}})
    rule = build_patch_rule(
        masked_lm=Proposer(), tagger=Tagger(), judge_signals=keep_film, judge_file=write_judge(tmp_path / "j.json")
    )
    assert rule.name == "judge"
    syn = {"movie": ["picture", "film"]}
    attack = SOBeam.build(Scores(), synonyms=syn, masked_lm=Proposer(), patch_rule=rule, beam_width=2, max_depth=2)
    result = attack.attack(x, 1)
    assert result.perturbed_result.patch.p2 == "film"
    assert type(result).__name__ == "SuccessfulAttackResult"
    assert "great" in result.perturbed_result.attacked_text.words
    refuse_all = StubSignals({})
    rule = build_patch_rule(
        masked_lm=Proposer(), tagger=Tagger(), judge_signals=refuse_all, judge_file=tmp_path / "j.json"
    )
    attack = SOBeam.build(Scores(), synonyms=syn, masked_lm=Proposer(), patch_rule=rule, beam_width=2, max_depth=2)
    assert type(attack.attack(x, 1)).__name__ == "SkippedAttackResult"
    assert refuse_all.asked > 0
