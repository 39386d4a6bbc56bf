"""Attack CSV logs name the model's classes beside the numbers, and a second-order row's score is a probability."""

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
import textattack

from test_second_order import SYNONYMS, TABLE, Planted, TableProposer, fragile_at_film
from textattack_secondorder.attack_recipes import SOBeam

NAMES = {0: "billing", 1: "technical"}


class Named(Planted):
    """A planted victim whose model has label names (its ``config.id2label``), as a saved classifier does."""

    def __init__(self, rule, id2label=NAMES):
        super().__init__(rule)
        self.model = SimpleNamespace(config=SimpleNamespace(id2label=dict(id2label)))


def so_beam(model):
    return SOBeam.build(
        model, synonyms=SYNONYMS, masked_lm=TableProposer(TABLE), patch_rule="paper", neighbor_rule="paper"
    )


def attack_to_csv(attack, rows, csv, label_names=None):
    from textattack_secondorder import register

    register()
    args = textattack.AttackArgs(num_examples=len(rows), disable_stdout=True, silent=True, log_to_csv=str(csv))
    textattack.Attacker(attack, textattack.datasets.Dataset(rows, label_names=label_names), args).attack_dataset()
    return pd.read_csv(csv, keep_default_na=False)


def test_csv_log_names_the_classes_beside_the_numbers(tmp_path):
    df = attack_to_csv(so_beam(Named(fragile_at_film)), [("a good film", 1), ("a good movie", 1)], tmp_path / "l.csv")
    cols = list(df.columns)
    for number, name in (
        ("original_output", "original_label"),
        ("perturbed_output", "perturbed_label"),
        ("ground_truth_output", "ground_truth_label"),
    ):
        assert cols.index(name) == cols.index(number) + 1
        assert list(df[name]) == [NAMES[int(v)] for v in df[number]]
    # a model saved without names (LABEL_0, LABEL_1): numbers only, as before
    plain = attack_to_csv(
        so_beam(Named(fragile_at_film, {0: "LABEL_0", 1: "LABEL_1"})), [("a good film", 1)], tmp_path / "p.csv"
    )
    assert "original_label" not in plain.columns


def test_second_order_scores_are_the_probability_that_the_two_texts_disagree(tmp_path):
    from textattack_secondorder.goal_functions.second_order import SUCCESS_BONUS, disagreement_probability

    attack = so_beam(Named(fragile_at_film))
    [result] = [attack.attack("a good film", 1)]
    assert result.perturbed_result.score > SUCCESS_BONUS - 10  # the search's score: −L plus the bonus
    df = attack_to_csv(attack, [("a good film", 1)], tmp_path / "l.csv")
    assert df["result_type"][0] == "Successful"
    p = float(df["perturbed_score"][0])
    assert 0.0 <= p <= 1.0 and p == pytest.approx(disagreement_probability(float(df["beam_loss"][0])), abs=1e-6)
    # Planted's 0.9 / 0.1: x̃0 says 1 with 0.9, x̃0 ⊕ p says 0, so class 1 has 0.9 and 0.1: 0.9 · (1 − 0.1)
    assert p == pytest.approx(0.81, abs=1e-6)
    assert disagreement_probability(None) is None and disagreement_probability(0.0) == 1.0
    assert disagreement_probability(np.log(4.0)) == pytest.approx(0.25)


def test_sweep_cells_name_the_classes(tmp_path):
    from textattack_secondorder.sweeps.merge import write_cell

    attack = so_beam(Named(fragile_at_film))
    results = [attack.attack("a good film", 1)]
    write_cell(results, attack, tmp_path / "cell.csv")
    df = pd.read_csv(tmp_path / "cell.csv", keep_default_na=False)
    assert df["original_label"][0] == "technical" and df["ground_truth_label"][0] == "technical"
