"""What ``defend --compare`` says before and while it runs (docs/design/defenses.md): the plan and its estimate,
the line after each cell, the warnings of a figure that rests on too little, and ``--vocab-from``."""

import json

import pytest

from test_defense_comparison import DATA, bert_folder, compare_settings, light_comparison, user_csv  # noqa: F401


def sets_data(n_test=40, n_train=30, attacked=20, kappa=10, rho=5, so_beam=3):
    from textattack_secondorder.defense.measure import comparison_sets

    train = [(f"train {i}", i % 2) for i in range(n_train)]
    test = [(f"test {i}", i % 2) for i in range(n_test)]
    return {"train": train, "test": test, "sets": comparison_sets(train, test, attacked, kappa, rho, so_beam)}


SETTINGS = {"steps": 100, "batch_size": 8, "a2t_rounds": None, "m": 128, "vocab_limit": 3000}


def test_the_plan_counts_the_cells_and_their_time_and_the_time_left_follows_the_finished_cells():
    from textattack_secondorder.defense.comparison_plan import ATTACK_SECONDS, ComparisonPlan

    data = sets_data()
    cells = [("vanilla", None), ("rand", 0), ("sp-defense", 0), ("rand", 1)]
    seconds = {"step": {"rand": 0.1, "sp-defense": 0.3}, "euba": 0.5}
    plan = ComparisonPlan(SETTINGS, data, cells, reused=["continue-seed0"], seconds=seconds, workers=2)
    attacks = 20 * (ATTACK_SECONDS["sp_attack"] + ATTACK_SECONDS["textfooler"]) + 3 * ATTACK_SECONDS["so_beam"]
    measure = 0.5 * (5 + 5 + 10) + attacks
    assert plan.estimate[("vanilla", None)] == pytest.approx(measure)
    assert plan.estimate[("rand", 0)] == pytest.approx(100 * 0.1 + measure)
    assert plan.estimate[("sp-defense", 0)] == pytest.approx(100 * 0.3 + measure)
    text = "\n".join(plan.lines())
    assert "5 cells (4 to run, 1 finished earlier and reused: continue-seed0)" in text
    assert "vanilla, rand-seed0, sp-defense-seed0, rand-seed1" in text
    assert "so-beam on 3" in text and "SP-Attack and textfooler-offline on 20 sentences" in text
    # two at a time, longest first: {sp-defense, vanilla} against {rand, rand}
    total = sum(plan.estimate.values())
    assert plan.remaining_wall() == pytest.approx(max(plan.estimate[("sp-defense", 0)] + measure, 2 * (10 + measure)))
    assert plan.remaining_wall() < total
    # a finished cell that took twice its estimate doubles what is left
    row = {"defense": "rand", "seed": 0, "train_seconds": 0, "measure_seconds": {"x": 2 * plan.estimate[("rand", 0)]}}
    line = plan.progress(row)
    assert line.startswith("rand-seed0: done in") and "1 of 4 cells" in line and "left" in line
    assert plan.scale() == pytest.approx(2.0)
    # a cell whose model an earlier run kept counts no fine-tuning
    kept = ComparisonPlan(SETTINGS, data, cells, seconds=seconds, trained=[("sp-defense", 0)])
    assert kept.estimate[("sp-defense", 0)] == pytest.approx(measure)


def test_a_figure_that_rests_on_too_little_is_marked_and_said_why():
    from textattack_secondorder.defense.comparison_report import markdown, summarize
    from textattack_secondorder.defense.comparison_warnings import MIN_SENTENCES, marks, plan_warnings
    from textattack_secondorder.defense.defend import a2t_warning

    data = sets_data(so_beam=3)
    record = {"seed": 0, "a2t_rounds": [{"successes": 0, "attacked": 40}, {"successes": 0, "attacked": 38}]}
    warning = a2t_warning(record)
    assert "A2T built 0 adversarial examples (2 sets, 78 training rows attacked" in warning
    assert a2t_warning({"a2t_rounds": [{"successes": 3, "attacked": 9}]}) is None
    assert a2t_warning({"defense": "rand"}) is None
    base = {"accuracy": 80, "rho": 50, "rho_star": 50, "sp_attack_asr": 30, "textfooler_asr": 60, "asr1": 10}
    base.update(so_beam_per_100=33.3, train_seconds=1, sp_attack_attacked=18, textfooler_attacked=18)
    rows = [
        {**base, "defense": "vanilla", "seed": None, "so_beam_sentences": 3},
        {**base, "defense": "a2t", "seed": 0, "so_beam_sentences": 3, "training_warning": warning},
    ]
    defenses, columns, lines = marks(rows, data)
    assert defenses == {"a2t"} and columns == {"so_beam_per_100", "rho", "rho_star"}  # ρ on 5 sentences
    assert any("so-beam per 100 rests on 3 sentences" in x and "--so-beam-examples" in x for x in lines)
    assert any(x.startswith("a2t (seed 0): A2T built 0") for x in lines)
    md = markdown(summarize(rows), {**SETTINGS, **_report_settings()}, {**data, **_sources()}, rows)
    assert "| a2t ⚠ |" in md and "so-beam per 100 ⚠" in md and "| vanilla |" in md
    # enough sentences: no mark
    ok = sets_data(so_beam=MIN_SENTENCES, rho=MIN_SENTENCES)
    fine = [{**r, "so_beam_sentences": MIN_SENTENCES, "training_warning": None} for r in rows]
    assert marks(fine, ok) == (set(), set(), [])
    # before the run: the sets too small for their columns
    said = plan_warnings({**SETTINGS, "vocab_from": "x.csv"}, data, wrapper=None)
    assert [x.split(" rests")[0] for x in said] == ["ρ", "ρ*", "so-beam per 100"]


def _report_settings():
    recipes = {"sp_attack_recipe": "sp-attack", "textfooler_recipe": "textfooler-offline", "so_beam_recipe": "so-beam"}
    return {"model": "m", "lr": None, "embeddings": "default", **recipes}


def _sources():
    return {"train_source": "t", "test_source": "s"}


def test_vocab_from_keeps_the_words_of_a_users_csv_and_travels_as_rows(
    tmp_path,
    bert_folder,  # noqa: F811
    light_comparison,  # noqa: F811
    monkeypatch,
):
    """κ and ρ over the vocabulary entries in the CSV's sentences; the rows are read once by the driver, so a worker
    without the file measures the same; a CSV none of whose words the model knows is refused in one line."""
    from textattack_secondorder.defense import comparison, measure
    from textattack_secondorder.shared.errors import UsageError

    vocab = tmp_path / "vocab.csv"
    vocab.write_text("text,label\nthe film was good,1\nan awful plot,0\n")
    settings = compare_settings(bert_folder, user_csv(tmp_path / "my.csv"), vocab_from=str(vocab))
    real = measure.comparison_data

    def read_then_gone(settings, wrapper=None):  # what a worker without the driver's disk sees: no file
        data = real(settings, wrapper)
        vocab.rename(tmp_path / "elsewhere.csv")
        return data

    monkeypatch.setattr(measure, "comparison_data", read_then_gone)
    comparison.run_comparison(settings, ["vanilla"], [0], tmp_path / "cmp", progress=False)
    monkeypatch.setattr(measure, "comparison_data", real)
    kappa = json.loads((tmp_path / "cmp" / "work" / "vanilla" / "kappa_attack.json").read_text())
    assert kappa["settings"]["vocabulary"] == 7  # the, film, was, good, an, awful, plot
    assert "vocabulary entries that occur in" in (tmp_path / "cmp" / "comparison.md").read_text()
    unknown = tmp_path / "unknown.csv"
    unknown.write_text("text,label\nzyx qwv,1\n")
    with pytest.raises(UsageError, match="none of its words is in the model's vocabulary"):
        comparison.run_comparison({**settings, "vocab_from": str(unknown)}, ["vanilla"], [0], tmp_path / "c2")
