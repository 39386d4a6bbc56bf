"""Every defense trains as it did before its batch source moved out of the trainer (issue 70).

``train_defense`` asks for the batches of the defense it was given (SP-Defense, Rand, continue, A2T); these
tests pin what a seeded run of each feeds the model and the weights it ends with, as recorded from the trainer
that assembled A2T's parts itself. The batches are compared exactly (a digest of every training forward's
``input_ids`` and ``attention_mask``); the weights by two float64 sums of them, to 1e-6 relative (exact on
the machine they were recorded on; another CPU's kernels may round the last float bits otherwise), which any
change of a batch, a label or the optimiser's schedule moves by orders of magnitude more.

Tiny models built here, no network; A2T's attack is the light one of ``test_defense_comparison`` (built where
A2T builds ``a2t-offline``: :meth:`A2TOffline.build` is replaced).
"""

import hashlib

import pytest
import torch

from conftest import tiny_word_cnn
from test_defense_comparison import DATA, WORDS, light_attack, so_wrapper
from test_sp_defense_tokens import tiny_bert

#: (model, defense) -> (digest of the batches, weighted sum of the weights, sum of their magnitudes, A2T's sets)
RECORDED = {
    ("word-cnn", "sp-defense"): (
        "7f6df09df9b9896c81a018b2858ff2085c51c3408d5bfc96f04e7285d71eae92",
        -2.8042939837874634,
        393.52302683621383,
        [],
    ),
    ("word-cnn", "rand"): (
        "a77c087d3f4ac0b26e30713d59a9c6763c9c6c8737b088ca7f53b83682d62baf",
        -2.7959147603479706,
        393.82000577494546,
        [],
    ),
    ("word-cnn", "continue"): (
        "4f3945d757f7cb4400511106b2d3582bfaceeab054badf190c1345485cc645e9",
        -2.800788034950074,
        393.8222128419875,
        [],
    ),
    ("word-cnn", "a2t"): (
        "ddc6dcc6a3a557f6907bbdd834e015d6da892aeb719110c2c092836855b466be",
        -2.773161430844295,
        393.49246481991577,
        [(2, 0), (4, 3), (6, 4)],
    ),
    ("bert", "sp-defense"): (
        "eb2e11bea31e0e727ea8de27866f5d7992c75977d1f95d9903b5a1cbbce2a6f3",
        7.372793622299364,
        2078.3023682055846,
        [],
    ),
    ("bert", "rand"): (
        "28eda345e9606a1bc3e99d6f041cb8780a07c113001a5f0f59d1c5e3a18115c8",
        7.37174831659321,
        2078.3004321248127,
        [],
    ),
}


def trained(make, defense, monkeypatch):
    """``(batches digest, weighted weight sum, weight magnitude sum, [(step, successes)] of A2T's sets)`` of
    8 seeded steps of ``defense`` on a fresh tiny ``make`` model."""
    from textattack_secondorder.attack_recipes.a2t_offline import A2TOffline
    from textattack_secondorder.defense.training import train_defense

    monkeypatch.setattr(A2TOffline, "build", classmethod(lambda cls, model_wrapper, **p: light_attack(model_wrapper)))
    wrapper = so_wrapper(tiny_word_cnn(WORDS) if make == "word-cnn" else tiny_bert(True))
    fed = hashlib.sha256()

    def record(module, args, kw):
        if module.training:
            for t in (kw["input_ids"], kw["attention_mask"]):
                fed.update(str(tuple(t.shape)).encode())
                fed.update(t.cpu().long().numpy().tobytes())

    handle = wrapper.model.register_forward_pre_hook(record, with_kwargs=True)
    log = []
    try:
        train_defense(wrapper, DATA * 3, steps=8, batch_size=4, defense=defense, seed=3, progress=False, a2t_log=log)
    finally:
        handle.remove()
    w = torch.cat([v.detach().double().flatten() for v in wrapper.model.state_dict().values()])
    ramp = torch.linspace(-1, 1, len(w), dtype=torch.float64)
    sets = [(e["step"], e["successes"]) for e in log]
    return fed.hexdigest(), float((w * ramp).sum()), float(w.abs().sum()), sets


@pytest.mark.parametrize("make,defense", sorted(RECORDED))
def test_every_defense_trains_as_before(make, defense, monkeypatch):
    digest, weighted, magnitude, sets = trained(make, defense, monkeypatch)
    want_digest, want_weighted, want_magnitude, want_sets = RECORDED[make, defense]
    assert digest == want_digest, "the batches changed"
    assert sets == want_sets
    assert weighted == pytest.approx(want_weighted, rel=1e-6) and magnitude == pytest.approx(want_magnitude, rel=1e-6)
