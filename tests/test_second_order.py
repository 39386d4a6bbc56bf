"""Double perturbation (Zhang et al. 2021): neighbourhood rule, patch words, SO-Beam, SO-Enum, random walk."""

import json

import numpy as np
import pytest
import textattack
from textattack.attack_results import SkippedAttackResult, SuccessfulAttackResult
from textattack.shared import AttackedText

from conftest import bert_tokenizer
from textattack_secondorder.attack_recipes import SOBeam, SOEnum, SORandom
from textattack_secondorder.goal_functions import PatchWordSelector, apply_patch, beam_loss
from textattack_secondorder.resources.proposers import WordProposer
from textattack_secondorder.transformations.neighborhood import WordSwapNeighborhood


class TableProposer(WordProposer):
    """Deterministic proposer: a fixed candidate list per current word."""

    def __init__(self, table):
        super().__init__(device="cpu")
        self.table = table
        self.calls = 0

    def propose(self, sentences, positions, top_k=21):
        self.calls += 1
        return [[self.table.get(s[i].lower(), [])[:top_k] for i in pos] for s, pos in zip(sentences, positions)]


class Planted(textattack.models.wrappers.ModelWrapper):
    """Positive iff a rule holds; probabilities 0.9 / 0.1 (so the beam loss is informative)."""

    def __init__(self, rule, num_classes=2):
        self.model = None
        self.rule = rule
        self.num_classes = num_classes
        self.seen = []
        self.texts = []

    def __call__(self, texts):
        self.seen.append(len(texts))
        self.texts.append(list(texts))
        out = []
        for t in texts:
            words = set(t.lower().split())
            c = int(self.rule(words))
            row = np.full(self.num_classes, 0.1 / (self.num_classes - 1))
            row[c] = 0.9
            out.append(row)
        return np.array(out)


SYNONYMS = {"good": ["fine"], "movie": ["film"]}
TABLE = {
    "movie": [("film", 5.0), ("show", 4.5), ("picture", 1.0)],  # picture: below L[0] - 3
    "a": [("the", 5.0), ("one", 4.0)],
    "good": [("nice", 5.0), ("great", 4.9)],  # the patch word: its position must stay frozen
    "film": [("movie", 5.0), ("show", 4.8)],
    "show": [("film", 5.0), ("movie", 4.5)],
    "the": [("a", 5.0), ("one", 4.0)],
    "one": [("a", 5.0), ("the", 4.0)],
}


def fragile_at_film(words):
    """Robust on 'a good movie', fragile on 'a good film' (good -> fine flips it)."""
    if "fine" in words and "film" in words:
        return False
    return "good" in words or "fine" in words


def fragile_at_the_film(words):
    """Vulnerable only two substitutions away ('the good film')."""
    if "fine" in words and "film" in words and "the" in words:
        return False
    return "good" in words or "fine" in words


def run_attack(recipe, model, texts, **params):
    params.setdefault("patch_rule", "paper")  # the search, not the patch rule (tests/test_patch_rules.py)
    params.setdefault("neighbor_rule", "paper")  # ... nor the neighbour rule (tests/test_neighbor_rules.py)
    attack = recipe.build(model, synonyms=SYNONYMS, masked_lm=TableProposer(TABLE), **params)
    dataset = textattack.datasets.Dataset([(t, 1) for t in texts])
    args = textattack.AttackArgs(num_examples=len(texts), disable_stdout=True, silent=True)
    return textattack.Attacker(attack, dataset, args).attack_dataset()


def test_beam_loss_is_symmetric_in_the_class_used():
    px, pxp = np.array([0.3, 0.7]), np.array([0.6, 0.4])
    assert beam_loss(px, pxp, 1) == pytest.approx(beam_loss(px, pxp, 0))
    assert beam_loss(px, pxp, 1) == pytest.approx(-np.log(1 - 0.4) - np.log(0.7))


def test_patch_pair_maximises_single_word_difference():
    class Scores(textattack.models.wrappers.ModelWrapper):
        model = None

        def __call__(self, texts):
            table = {"good": 0.9, "fine": 0.2, "movie": 0.5, "film": 0.55}
            return np.array([[1 - table.get(t, 0.5), table.get(t, 0.5)] for t in texts])

    sel = PatchWordSelector(Scores(), SYNONYMS)
    pair, reason = sel.select(AttackedText("a good movie"))
    assert reason is None and (pair.p1, pair.p2, pair.index) == ("good", "fine", 1)
    assert apply_patch(AttackedText("A Good movie"), pair).text == "A Fine movie"
    # p1 must occur exactly once, p2 must not occur already
    assert sel.select(AttackedText("good good"))[0] is None
    assert sel.select(AttackedText("a good fine movie"))[0].p1 == "movie"
    pair, reason = sel.select(AttackedText("nothing to swap here"))
    assert pair is None and "no patch word" in reason


def test_neighborhood_rule_kappa_delta_on_tiny_masked_lm(tmp_path):
    """Algorithm 1 keeps logits > max(L[κ], L[0] - δ), then drops pieces, non-words and the current word."""
    torch = pytest.importorskip("torch")
    from transformers import BertConfig, BertForMaskedLM

    from textattack_secondorder.resources.proposers import MaskedLMProposer

    vocab = [
        "[PAD]",
        "[UNK]",
        "[CLS]",
        "[SEP]",
        "[MASK]",
        "a",
        "good",
        "movie",
        "film",
        "show",
        "great",
        "bad",
        "##s",
        "the",
        "42",
        "picture",
    ]
    tok = bert_tokenizer(vocab)
    cfg = BertConfig(
        vocab_size=len(vocab),
        hidden_size=16,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=32,
        max_position_embeddings=64,
        tie_word_embeddings=False,
    )
    model = BertForMaskedLM(cfg)
    bias = torch.zeros(len(vocab))
    for w, v in {"film": 10.0, "show": 9.0, "##s": 8.6, "great": 8.2, "42": 8.1, "picture": 7.0, "bad": 5.0}.items():
        bias[vocab.index(w)] = v
    with torch.no_grad():
        model.cls.predictions.decoder.weight.zero_()
        model.cls.predictions.decoder.bias.copy_(bias)
        model.cls.predictions.bias.copy_(bias)
    proposer = MaskedLMProposer(model, tokenizer=tok, device="cpu")
    text = AttackedText("a good movie")

    def swapped(t, **kw):
        out = WordSwapNeighborhood(proposer, **kw)._get_transformations(t, {2})
        return sorted(x.words[2] for x in out)

    # δ = 3: floor 7 -> film, show, great ("##s" is a piece, "42" a non-word, picture = 7 is not > 7)
    assert swapped(text) == ["film", "great", "show"]
    # κ = 2: L[2] = 8.6 -> only scores above it
    assert swapped(text, kappa=2) == ["film", "show"]
    # the current word is never proposed
    assert swapped(AttackedText("a good film")) == ["great", "show"]


def test_so_beam_finds_vulnerable_example_for_planted_fragile_model():
    model = Planted(fragile_at_film)
    [res] = run_attack(SOBeam, model, ["a good movie"])
    assert isinstance(res, SuccessfulAttackResult)
    pr = res.perturbed_result
    assert pr.attacked_text.text == "a good film"
    assert pr.patched_text.text == "a fine film"
    assert pr.output != pr.patched_output
    assert pr.perturbed_words == 1
    # the patch word position is never modified and "picture" (below L[0]-δ) never appears
    assert "good" in pr.attacked_text.words


def test_so_beam_batches_x_and_patched_x_together():
    model = Planted(fragile_at_the_film)
    [res] = run_attack(SOBeam, model, ["a good movie"], beam_width=5)
    assert isinstance(res, SuccessfulAttackResult)
    assert res.perturbed_result.attacked_text.text == "the good film"
    # every model call holds an even number of texts: each candidate with its twin
    assert all(n % 2 == 0 for n in model.seen[1:])


def test_so_enum_returns_a_closest_vulnerable_example():
    # both 'a good film' (distance 1) and 'the good film' (distance 2) are vulnerable here
    def rule(words):
        return fragile_at_film(words) and fragile_at_the_film(words)

    [res] = run_attack(SOEnum, Planted(rule), ["a good movie"])
    assert isinstance(res, SuccessfulAttackResult)
    assert res.perturbed_result.perturbed_words == 1
    [res] = run_attack(SOEnum, Planted(fragile_at_the_film), ["a good movie"])
    assert isinstance(res, SuccessfulAttackResult)
    assert res.perturbed_result.attacked_text.text == "the good film"
    assert res.perturbed_result.perturbed_words == 2


def test_vulnerable_input_is_a_success_at_distance_zero():
    [res] = run_attack(SOBeam, Planted(lambda w: "good" in w), ["a good movie"])
    assert isinstance(res, SuccessfulAttackResult)
    assert res.perturbed_result.perturbed_words == 0


def test_examples_without_patch_words_are_skipped_with_reason():
    model = Planted(fragile_at_film)
    results = run_attack(SOBeam, model, ["nothing to swap", "a good movie"])
    assert isinstance(results[0], SkippedAttackResult)
    assert "no patch word" in results[0].original_result.skip_reason
    assert isinstance(results[1], SuccessfulAttackResult)


def test_random_walk_runs_and_respects_depth():
    [res] = run_attack(SORandom, Planted(lambda w: False), ["a good movie"], max_depth=3)
    assert not isinstance(res, SuccessfulAttackResult)
    assert res.perturbed_result.perturbed_words <= 3


def test_query_budget_counts_both_texts():
    [res] = run_attack(SOBeam, Planted(lambda w: "good" in w or "fine" in w), ["a good movie"], query_budget=6)
    assert res.perturbed_result.num_queries <= 6


def test_multiclass_model():
    def rule4(words):
        return fragile_at_film(words)

    model = Planted(rule4, num_classes=4)
    [res] = run_attack(SOBeam, model, ["a good movie"])
    assert isinstance(res, SuccessfulAttackResult)


def test_csv_log_carries_patch_columns(tmp_path):
    import pandas as pd

    attack = SOBeam.build(
        Planted(fragile_at_film),
        synonyms=SYNONYMS,
        masked_lm=TableProposer(TABLE),
        patch_rule="paper",
        neighbor_rule="paper",
    )
    dataset = textattack.datasets.Dataset([("a good movie", 1), ("nothing to swap", 0)])
    csv = tmp_path / "log.csv"
    args = textattack.AttackArgs(num_examples=2, disable_stdout=True, silent=True, log_to_csv=str(csv))
    textattack.Attacker(attack, dataset, args).attack_dataset()
    df = pd.read_csv(csv)
    row = df.iloc[0]
    assert (row.patch_p1, row.patch_p2) == ("good", "fine")
    assert row.vulnerable_text == "a good film" and row.vulnerable_patched_text == "a fine film"
    assert row.vulnerable_output != row.vulnerable_patched_output
    assert row.perturbed_words == 1 and row.num_queries > 0
    assert json.loads(row.vulnerable_probs)[1] == pytest.approx(0.9)
    assert "no patch word" in df.iloc[1].skip_reason


def test_seconds_are_the_rows_wall_time(tmp_path):
    """A failed search reports the seconds the user waited for the row, not those until its best candidate
    (which may be the input itself, found before the search began)."""
    import time

    import pandas as pd

    from textattack_secondorder.metrics.seconds import SecondsPerExample

    class Slow(Planted):
        def __call__(self, texts):
            time.sleep(0.02)
            return super().__call__(texts)

    model = Slow(lambda w: "good" in w or "fine" in w)  # robust everywhere: the beam runs to its depth
    attack = SOBeam.build(
        model, synonyms=SYNONYMS, masked_lm=TableProposer(TABLE), patch_rule="paper", neighbor_rule="paper"
    )
    csv = tmp_path / "log.csv"
    args = textattack.AttackArgs(num_examples=1, disable_stdout=True, silent=True, log_to_csv=str(csv))
    start = time.perf_counter()
    [res] = textattack.Attacker(attack, textattack.datasets.Dataset([("a good movie", 1)]), args).attack_dataset()
    wall = time.perf_counter() - start
    assert len(model.seen) >= 3  # the patch pair's choice and the beam's steps called the model
    slept = 0.02 * len(model.seen)
    assert slept <= res.perturbed_result.elapsed <= wall
    assert pd.read_csv(csv).seconds[0] == pytest.approx(res.perturbed_result.elapsed, abs=1e-3)
    assert SecondsPerExample().calculate([res]) == round(res.perturbed_result.elapsed, 2)


def test_so_beam_gives_up_when_its_loss_stops_falling():
    """patience=1: a beam whose best loss does not fall below the input's stops after one step; without it the
    beam walks every step the neighbourhood allows; the trace says what each step found; patience=2 leaves a
    second step to a beam that did not improve at its first."""
    robust = Planted(lambda w: "good" in w or "fine" in w)  # the same probabilities everywhere: no step improves
    attack = SOBeam.build(
        robust, synonyms=SYNONYMS, masked_lm=TableProposer(TABLE), patch_rule="paper", neighbor_rule="paper"
    )
    attack.attack("a good movie", 1)
    walked = attack.search_method.trace
    patient = SOBeam.build(
        robust,
        synonyms=SYNONYMS,
        masked_lm=TableProposer(TABLE),
        patch_rule="paper",
        neighbor_rule="paper",
        patience=1,
    )
    result = patient.attack("a good movie", 1)
    assert len(walked) > 1 and [t["depth"] for t in walked] == list(range(1, len(walked) + 1))
    assert len(patient.search_method.trace) == 1
    assert result.perturbed_result.num_queries < walked[-1]["queries"]
    # two words away: step 1 does not improve on the input (flat 0.9/0.1 probabilities), patience=2 lets step 2 run
    [found] = run_attack(SOBeam, Planted(fragile_at_the_film), ["a good movie"], patience=2)
    assert isinstance(found, SuccessfulAttackResult) and found.perturbed_result.perturbed_words == 2


def test_unknown_parameter_lists_valid_ones():
    with pytest.raises(ValueError, match="beam_width"):
        SOBeam.build(Planted(fragile_at_film), beam_widht=3)


def test_empty_one_word_and_long_texts_do_not_crash_the_run():
    model = Planted(fragile_at_film)
    long_text = "a good movie " + " ".join(["plot"] * 600)
    results = run_attack(SOBeam, model, ["", "good", long_text, "a good movie"])
    assert isinstance(results[0], SkippedAttackResult)
    assert "empty" in results[0].skip_reason  # the input guard's reason, on the attack result
    assert not isinstance(results[1], SkippedAttackResult)  # one word: attacked, nothing to change
    assert results[1].perturbed_result.perturbed_words == 0
    assert isinstance(results[3], SuccessfulAttackResult)


def test_fast_word_swap_matches_textattack():
    from textattack_secondorder.shared.text import swap_words_at

    t = AttackedText("It's a good, good movie -- really!").replace_word_at_index(5, "film")
    for i in range(len(t.words)):
        fast = swap_words_at(t, i, ["Nice", "okay"])
        slow = [t.replace_word_at_index(i, w) for w in ["Nice", "okay"]]
        for a, b in zip(fast, slow):
            assert a.text == b.text and a.words == b.words
            assert a.attack_attrs["modified_indices"] == b.attack_attrs["modified_indices"]
            assert a.attack_attrs["newly_modified_indices"] == b.attack_attrs["newly_modified_indices"]
            assert list(a.attack_attrs["original_index_map"]) == list(b.attack_attrs["original_index_map"])
            assert a.all_words_diff(t) == b.all_words_diff(t)


class LeftContextProposer(WordProposer):
    """A masked LM whose proposals depend only on the word left of the mask (context only)."""

    context_only = True
    CANDS = {"<s>": ["the", "a", "one"], "good": ["movie", "film", "show"], "a": ["good", "fine"]}

    def __init__(self, context_only=True):
        super().__init__(device="cpu")
        self.context_only = context_only
        self.masks = 0

    def propose(self, sentences, positions, top_k=21):
        self.masks += sum(map(len, positions))
        return [
            [[(w, 5.0 - 0.5 * k) for k, w in enumerate(self.CANDS.get(s[i - 1] if i else "<s>", []))] for i in pos]
            for s, pos in zip(sentences, positions)
        ]


def test_neighbourhood_caches_proposals_per_masked_sentence():
    """Two texts differing at position 2 share 'a good [MASK]': it goes through the LM once, and each
    text still drops its own current word."""
    texts = [AttackedText("a good movie"), AttackedText("a good film")]
    cached, plain = LeftContextProposer(), LeftContextProposer(context_only=False)
    got = WordSwapNeighborhood(cached).neighbor_words(texts, [{0, 2}, {0, 2}])
    want = WordSwapNeighborhood(plain).neighbor_words(texts, [{0, 2}, {0, 2}])
    assert got == want
    assert got[0][2] == ["film", "show"] and got[1][2] == ["movie", "show"]
    assert (cached.masks, plain.masks) == (3, 4)


def test_masked_lm_dtype_option(tmp_path):
    """bfloat16 weights on request; float16 refused on a CPU; a dtype with a ready proposer object is an error."""
    torch = pytest.importorskip("torch")
    from transformers import BertConfig, BertForMaskedLM

    from textattack_secondorder.resources.proposers import MaskedLMProposer, resolve_dtype

    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "a", "good", "movie", "film", "show", "great"]
    tok = bert_tokenizer(vocab)
    cfg = BertConfig(
        vocab_size=len(vocab),
        hidden_size=16,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=32,
        max_position_embeddings=64,
    )
    torch.manual_seed(0)
    model = BertForMaskedLM(cfg)
    exact = MaskedLMProposer(model, tokenizer=tok, device="cpu").propose([["a", "good", "movie"]], [[2]], top_k=3)
    bf16 = MaskedLMProposer(model, tokenizer=tok, device="cpu", dtype="bfloat16")  # converts the model in place
    assert next(bf16.model.parameters()).dtype == torch.bfloat16 and "bfloat16" in repr(bf16)
    got = bf16.propose([["a", "good", "movie"]], [[2]], top_k=3)
    assert [w for w, _ in got[0][0]][:1] == [w for w, _ in exact[0][0]][:1]
    with pytest.raises(ValueError, match="CUDA"):
        resolve_dtype("float16", torch.device("cpu"))
    with pytest.raises(ValueError, match="unknown dtype"):
        resolve_dtype("int4", torch.device("cpu"))
    with pytest.raises(ValueError, match="dtype applies"):
        WordSwapNeighborhood(bf16, dtype="bfloat16")


class FlatCausalLM:
    """Causal-LM stand-in for the in-context patch rule: every text equally likely (no Gemma set-up here;
    tests/test_gemma_cache.py covers that)."""

    def log_likelihood(self, texts):
        return np.zeros(len(texts))

    def log_likelihood_differences(self, reference, texts):
        return np.zeros(len(texts))

    def perplexity(self, texts):
        return np.ones(len(texts))


def test_recipe_loads_the_offline_masked_lm_in_bfloat16():
    """``so-beam^masked_lm_dtype=bfloat16`` reaches the proposer the recipe loads (through the slot)."""
    torch = pytest.importorskip("torch")
    from textattack_secondorder.resources.proposers import MiniLMMLMProposer

    if MiniLMMLMProposer.available():
        pytest.skip("offline MiniLM proposer not installed")
    attack = SOBeam.build(
        Planted(fragile_at_film),
        synonyms=SYNONYMS,
        masked_lm="minilm-mlm",
        masked_lm_dtype="bfloat16",
        causal_lm=FlatCausalLM(),
    )
    assert attack.transformation.proposer.dtype == torch.bfloat16


def test_neighbourhood_of_a_non_context_proposer_is_recomputed_per_text():
    """A proposer that may depend on the replaced word is never served another text's proposals."""
    plain = LeftContextProposer(context_only=False)
    nb = WordSwapNeighborhood(plain)
    first = nb.neighbor_words([AttackedText("a good movie")], [{2}])[0]
    second = nb.neighbor_words([AttackedText("a fine film")], [{2}])[0]
    assert first[2] == ["film", "show"]
    assert second == {}  # nothing follows "fine" in the table
    assert plain.masks == 2


@pytest.mark.parametrize("recipe", [SOBeam, SOEnum, SORandom])
def test_search_method_gets_the_neighbourhood_prefetch_from_the_recipe_and_the_attack_pickles(recipe):
    import pickle

    from textattack_secondorder.attack_recipes.input_guard import GuardedAttack
    from textattack_secondorder.constraints import PatchWordModification, PatchWordsUnique

    attack = recipe.build(
        Planted(fragile_at_film),
        synonyms=SYNONYMS,
        masked_lm=TableProposer(TABLE),
        patch_rule="paper",
        neighbor_rule="paper",
    )
    assert isinstance(attack, GuardedAttack)
    # given to the constructor by the recipe's build, not set on the search method from outside
    assert attack.search_method.prefetch == attack.transformation.prefetch
    assert [type(c) for c in attack.pre_transformation_constraints] == [PatchWordModification]
    assert [type(c) for c in attack.constraints] == [PatchWordsUnique]
    copy = pickle.loads(pickle.dumps(attack))  # TextAttack's --parallel workers get pickled copies
    assert copy.search_method.prefetch.__self__ is copy.transformation
    assert isinstance(copy.attack("a good movie", 1), SuccessfulAttackResult)
