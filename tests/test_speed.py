"""Speed work (docs/design/speed.md): every shortcut must leave the results it promises unchanged.

* SO-Beam expanding its beam a few members at a time finds the same success and distance as
  expanding the whole beam, through the same neighbourhood, with fewer masked-LM inputs;
* victim calls batched over a step equal one-text-at-a-time calls;
* ``B_{p,k}`` for k <= 1 does not depend on the sampling of larger levels;
* ``device`` and the batch size reach the masked LM and the victim.
"""

import zlib

import numpy as np
import pytest
import textattack
from textattack.attack_results import SuccessfulAttackResult

from textattack_secondorder.attack_recipes import SOBeam, SOEnum, SORandom
from textattack_secondorder.resources.proposers import WordProposer
from textattack_secondorder.transformations.neighborhood import WordSwapNeighborhood

SYNONYMS = {"good": ["fine"], "bad": ["poor"]}
GROUPS = [
    ["film", "movie", "show", "picture", "story"],
    ["a", "the", "one", "this"],
    ["really", "very", "quite", "truly"],
    ["is", "was", "seems"],
    ["plot", "script", "cast", "score"],
]


class ContextProposer(WordProposer):
    """Context-only tiny masked LM: candidates from the masked word's group, scores from the left word."""

    context_only = True

    def __init__(self):
        super().__init__(device="cpu")
        self.masks = 0

    def propose(self, sentences, positions, top_k=21):
        self.masks += sum(map(len, positions))
        out = []
        for s, pos in zip(sentences, positions):
            row = []
            for i in pos:
                left = s[i - 1] if i else "<s>"
                group = next((g for g in GROUPS if s[i].lower() in g), [])
                row.append([(w, 5.0 - (zlib.crc32(f"{left}|{w}".encode()) % 30) / 10) for w in group])
                row[-1].sort(key=lambda t: -t[1])
            out.append(row)
        return out


class HashModel(textattack.models.wrappers.ModelWrapper):
    """A fragile classifier: class 1 with a hashed confidence, class 0 for one text in ``rare`` (by hash)."""

    def __init__(self, salt=0, rare=40):
        self.model = None
        self.salt, self.rare = salt, rare
        self.calls = []

    def __call__(self, texts):
        self.calls.append(list(texts))
        h = [zlib.crc32(f"{self.salt}:{t.lower()}".encode()) for t in texts]
        p = np.array([0.2 if v % self.rare == 0 else 0.55 + (v % 997) / 2500 for v in h])
        if len(texts) and all(len(t.split()) == 1 for t in texts):  # single words: patch selection
            p = np.array([0.9 if t.lower() in ("good", "bad") else 0.5 for t in texts])
        return np.stack([1 - p, p], axis=1)


TEXTS = [
    "a good film is really the plot",
    "the bad movie was quite a show",
    "this good story seems very good",
    "one bad picture is truly the cast",
    "a good score was really a script",
]


def attack_all(recipe, model, proposer, texts=TEXTS, **params):
    attack = recipe.build(
        model, synonyms=SYNONYMS, masked_lm=proposer, patch_rule="paper", neighbor_rule="paper", **params
    )
    dataset = textattack.datasets.Dataset([(t, 1) for t in texts])
    args = textattack.AttackArgs(num_examples=len(texts), disable_stdout=True, silent=True)
    return textattack.Attacker(attack, dataset, args).attack_dataset()


@pytest.mark.parametrize("salt", range(6))
def test_beam_in_chunks_keeps_success_and_distance_with_fewer_masks(salt):
    whole, chunked = ContextProposer(), ContextProposer()
    a = attack_all(SOBeam, HashModel(salt), whole, expand_chunk=0, beam_width=4, max_depth=3)
    b = attack_all(SOBeam, HashModel(salt), chunked, expand_chunk=1, beam_width=4, max_depth=3)
    for ra, rb in zip(a, b):
        assert type(ra) is type(rb)
        assert ra.perturbed_result.perturbed_words == rb.perturbed_result.perturbed_words
        if not isinstance(ra, SuccessfulAttackResult):  # no vulnerable example: the same walk, the same end
            assert ra.perturbed_result.attacked_text.text == rb.perturbed_result.attacked_text.text
    assert chunked.masks <= whole.masks


def test_beam_chunk_of_the_whole_beam_is_algorithm_2():
    """expand_chunk >= beam width and expand_chunk=0 are the same search, result for result."""
    a = attack_all(SOBeam, HashModel(3), ContextProposer(), expand_chunk=0, beam_width=3, max_depth=3)
    b = attack_all(SOBeam, HashModel(3), ContextProposer(), expand_chunk=3, beam_width=3, max_depth=3)
    assert [r.perturbed_result.attacked_text.text for r in a] == [r.perturbed_result.attacked_text.text for r in b]


def test_batched_victim_calls_equal_one_text_calls():
    """The goal function's batched x / x ⊕ p calls give the outputs of one-text calls."""
    from textattack.shared import AttackedText

    from textattack_secondorder.goal_functions.second_order import SecondOrderClassification
    from textattack_secondorder.resources.synonyms import SynonymList

    model = HashModel(1)
    gf = SecondOrderClassification(model, SynonymList(SYNONYMS), model_batch_size=64)
    gf.init_attack_example(AttackedText(TEXTS[0]), 1)
    cands = [
        AttackedText(t)
        for t in [
            "a good show is really the plot",
            "a good film was quite the cast",
            "the good film is really the plot",
            "a good film is really the plot",
        ]
    ]
    results, _ = gf.get_results(cands)
    # x and x ⊕ p of every candidate in one call; x0 and x0 ⊕ p (the last candidate) were asked when the
    # example started and come from the cache: identical texts are asked once per example
    assert len(model.calls[-1]) == 2 * (len(cands) - 1)
    for r in results:
        one = model([r.attacked_text.text])[0], model([r.patched_text.text])[0]
        assert np.allclose(r.raw_output, one[0]) and np.allclose(r.patched_raw_output, one[1])


def test_neighbourhood_is_the_same_with_and_without_the_masked_sentence_cache():
    from textattack.shared import AttackedText

    texts = [AttackedText(t) for t in TEXTS]
    idx = [set(range(len(t.words))) for t in texts]
    cached = WordSwapNeighborhood(ContextProposer()).neighbor_words(texts, idx)
    plain_proposer = ContextProposer()
    plain_proposer.context_only = False
    plain = WordSwapNeighborhood(plain_proposer).neighbor_words(texts, idx)
    assert cached == plain


@pytest.mark.parametrize("recipe", [SOEnum, SORandom])
def test_enum_and_random_run_on_the_shared_code(recipe):
    res = (
        attack_all(recipe, HashModel(2), ContextProposer(), max_depth=2)
        if recipe is SORandom
        else attack_all(recipe, HashModel(2), ContextProposer(), max_distance=2)
    )
    assert len(res) == len(TEXTS)


def test_bias_levels_0_and_1_do_not_depend_on_the_sampling_of_larger_levels():
    from textattack_secondorder.evaluation.bias import CounterfactualBias

    texts = ["he is a good film really", "she was the bad plot", "a story he thought was very good"]

    def records(**kw):
        bias = CounterfactualBias(
            HashModel(0), WordSwapNeighborhood(ContextProposer()), progress=False, n_boot=50, **kw
        )
        return bias.pair_records(texts, [("he", "she", "gender")])["he/she"]

    exact = records(max_k=1, sample_from_k=99)
    for kw in ({"max_k": 2}, {"max_k": 3, "sample_masks": 3, "sample_size": 5}, {"max_k": 2, "seed": 7}):
        got = records(**kw)
        assert [r for r in got if r[0] <= 1] == exact
    sampled = records(max_k=2, sample_masks=3, sample_size=5)
    assert 0 < sum(r[0] == 2 for r in sampled) <= 5
    assert records(max_k=2, sample_masks=3, sample_size=5) == sampled  # seeded


def test_device_and_batch_size_reach_the_masked_lm_and_the_victim(monkeypatch):
    import textattack_secondorder.resources as resources
    from textattack_secondorder.attack_recipes.build import build_attack
    from textattack_secondorder.sweeps.task import SweepState

    asked = []

    def fake_loader(value=None, device=None, **kw):
        asked.append(device)
        return ContextProposer()

    monkeypatch.setattr(resources.loaders, "load_word_proposer", fake_loader)  # what resources.word_proposer calls
    attack = build_attack(
        "so-beam^perplexity=False,patch_rule='paper',neighbor_rule='paper'", HashModel(), device="cuda", batch_size=7
    )
    assert asked == ["cuda"]
    assert attack.goal_function.batch_size == 7 and attack.transformation.proposer.batch_size == 7
    state = SweepState(device="cuda:1", batch_size=5)
    state.models["m"] = HashModel()
    attack = state.attack("m", "so-enum^perplexity=False,patch_rule='paper',neighbor_rule='paper'")
    assert asked[-1] == "cuda:1"
    assert attack.goal_function.batch_size == 5 and attack.transformation.proposer.batch_size == 5
