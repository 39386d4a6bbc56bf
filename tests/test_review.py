"""`textattack-so review`: the sheet of a run's findings and the score of the readers' marks (docs/guide/review.md)."""

import json
import re
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from conftest import offline_env
from textattack_secondorder.cli import main

REPO = Path(__file__).resolve().parents[1]
LOG = ["original_text", "perturbed_text", "original_score", "perturbed_score", "original_output"]
LOG += ["perturbed_output", "ground_truth_output", "num_queries", "result_type"]


def stock_log(path, successes=6, failed=3, skipped=2):
    """A TextAttack ``--log-to-csv`` log: ``successes`` Successful rows (word ``k`` of each swapped, in [[ ]]),
    ``failed`` Failed and ``skipped`` Skipped rows; class 1 is the gold label of even rows."""
    rows = []
    for i in range(successes + failed + skipped):
        words = f"the film number {i} is good and the cast is fine".split()
        kind = "Successful" if i < successes else "Failed" if i < successes + failed else "Skipped"
        new = list(words)
        if kind == "Successful":
            words[5], new[5] = "[[good]]", "[[decent]]"
        gold = 1 if i % 2 == 0 else 0
        rows.append(
            {
                "original_text": " ".join(words),
                "perturbed_text": " ".join(new),
                "original_score": 0.1,
                "perturbed_score": 0.7 if kind == "Successful" else 0.2,
                "original_output": gold,
                "perturbed_output": 1 - gold if kind == "Successful" else gold,
                "ground_truth_output": gold,
                "num_queries": 12,
                "result_type": kind,
            }
        )
    pd.DataFrame(rows, columns=LOG).to_csv(path, index=False)
    return path


def second_order_log(path):
    """A second-order run's log: two findings (one x̃0 = x0), one Failed, one Skipped row."""
    base = {"original_score": 0.0, "perturbed_score": 0.0, "num_queries": 40, "patch_rule": "paper"}
    rows = [
        {
            **base,
            "original_text": "a [[fine]] film with a good cast",
            "perturbed_text": "a [[nice]] film with a good cast",
            "original_output": 1,
            "perturbed_output": 1,
            "ground_truth_output": 1,
            "result_type": "Successful",
            "patch_p1": "good",
            "patch_p2": "fine",
            "vulnerable_text": "a nice film with a good cast",
            "vulnerable_patched_text": "a nice film with a fine cast",
            "vulnerable_output": 1,
            "vulnerable_patched_output": 0,
            "perturbed_words": 1,
        },
        {
            **base,
            "original_text": "the plot is dull",
            "perturbed_text": "the plot is dull",
            "original_output": 0,
            "perturbed_output": 0,
            "ground_truth_output": 0,
            "result_type": "Successful",
            "patch_p1": "dull",
            "patch_p2": "boring",
            "vulnerable_text": "the plot is dull",
            "vulnerable_patched_text": "the plot is boring",
            "vulnerable_output": 0,
            "vulnerable_patched_output": 1,
            "perturbed_words": 0,
        },
        {**base, "original_text": "it works", "perturbed_text": "it works", "result_type": "Failed"},
        {**base, "original_text": "a mess", "perturbed_text": "a mess", "result_type": "Skipped"},
    ]
    pd.DataFrame(rows).fillna("").to_csv(path, index=False)
    return path


def marked(sheet_csv, path, marks, reader=""):
    """A marked CSV as the page downloads it: ``sheet, reader, id``, the open sheet's columns, then ``marks``
    (``{id: {"natural": "yes", ...}}``)."""
    key = pd.read_csv(sheet_csv, keep_default_na=False)
    cols = ["run", "system", "example", "label", "attacked", "run_findings", "original", "changed", "patched", "swap"]
    out = key[["sheet", "id", *cols]].copy()
    out.insert(1, "reader", reader)
    for mark in ("natural", "keeps_label", "note"):
        out[mark] = [marks.get(i, {}).get(mark, "") for i in out.id]
    out.to_csv(path, index=False)
    return path


def blind_marked(path, marks, sheet=""):
    rows = [{"sheet": sheet, "reader": "", "id": i, "read_label": v[0], "natural": v[1], "note": ""} for i, v in marks]
    pd.DataFrame(rows).to_csv(path, index=False)
    return path


# ------------------------------------------------------------------------------------------------ sheets
def test_open_sheet_of_a_textattack_log_shows_each_finding_beside_its_original(tmp_path, capsys):
    run = stock_log(tmp_path / "tf.csv")
    assert main(["review", str(run), "--label-names", "negative,positive"]) == 0
    page = (tmp_path / "tf.review.html").read_text()
    sheet = pd.read_csv(tmp_path / "tf.review.csv", keep_default_na=False)
    assert len(sheet) == 6 and set(sheet.attacked) == {9} and set(sheet.run_findings) == {6}  # 2 skipped rows
    assert sheet.label.tolist() == ["positive", "negative"] * 3  # gold labels by name
    assert page.count('class="finding"') == 6
    for i in range(6):  # the original beside the changed sentence, the changed word marked on each side
        assert f'the film number {i} is <mark class="old">good</mark>' in page
        assert f'the film number {i} is <mark class="new">decent</mark>' in page
    assert "positive → negative" in page and "[[" not in page
    assert not re.search(r"(src|href)=\"?(https?:|//)|@import|url\(", page)  # loads nothing
    assert "6 findings of 9 attacked sentences" in capsys.readouterr().out


def test_second_order_sheet_shows_x0_and_its_patch_swap(tmp_path):
    run = second_order_log(tmp_path / "so.csv")
    assert main(["review", str(run), "--out", str(tmp_path / "s.html"), "--label-names", "neg,pos"]) == 0
    page = (tmp_path / "s.html").read_text()
    sheet = pd.read_csv(tmp_path / "s.csv", keep_default_na=False)
    assert sheet.swap.tolist() == ["good → fine", "dull → boring"] and set(sheet.attacked) == {3}
    assert 'a <mark class="new">nice</mark> film with a <mark class="swap">good</mark> cast' in page
    assert 'a nice film with a <mark class="swap">fine</mark> cast' in page
    assert "the swap good → fine keeps the label" in page
    assert "x̃0 = x0: vulnerable as it stands" in page  # the first-order finding, said so
    assert "model (x̃0 → x̃0 ⊕ p) pos → neg" in page


def test_blind_sheet_names_no_system_and_writes_its_key_beside(tmp_path):
    runs = [stock_log(tmp_path / "textfooler_run.csv"), second_order_log(tmp_path / "sobeam_run.csv")]
    out = tmp_path / "read.html"
    assert main(["review", *map(str, runs), "--blind", "--out", str(out), "--label-names", "negative,positive"]) == 0
    page = out.read_text()
    key = pd.read_csv(tmp_path / "read_key.csv", keep_default_na=False)
    items = (tmp_path / "read_items.txt").read_text()
    data = json.loads(re.search(r'id="sheet-data">(.*?)</script>', page).group(1))
    assert data["columns"] == [] and set(data["rows"][0]) == {"id"}  # the download carries ids and marks only
    body = page.split("</style>")[1]
    for secret in ("textfooler", "sobeam", "patched", "<mark", "x̃0", "swap", "good → fine"):
        assert secret not in body, secret
    texts = key.drop_duplicates("id").sort_values("id").text.tolist()
    assert page.count('class="finding"') == len(texts) == items.count("#")
    assert set(key.group) == {"original", "changed", "patched"}
    # the originals are mixed in, and no sentence stands beside its own original
    order = {t: i for i, t in enumerate(texts)}
    for _, g in key.groupby(["run", "example"]):
        for a in g[g.group == "original"].text:
            assert all(abs(order[a] - order[b]) > 1 for b in g[g.group != "original"].text if b != a)
    assert "the label it states" in page and 'value="positive"' in page and 'value="unsure"' in page


def test_sample_is_seeded_per_run(tmp_path):
    run = stock_log(tmp_path / "r.csv", successes=30)
    picks = []
    for seed in (1, 1, 2):
        main(["review", str(run), "--sample", "5", "--seed", str(seed), "--out", str(tmp_path / f"s{seed}.html")])
        picks.append(pd.read_csv(tmp_path / f"s{seed}.csv").example.tolist())
    assert len(picks[0]) == 5 and picks[0] == picks[1] != picks[2]
    assert set(pd.read_csv(tmp_path / "s1.csv").run_findings) == {30}


def test_page_escapes_the_texts_and_its_data(tmp_path):
    run = stock_log(tmp_path / "x.csv", successes=1, failed=0, skipped=0)
    df = pd.read_csv(run)
    df.loc[0, "perturbed_text"] = "the film </script><script>alert(1)</script> is [[decent]]"
    df.to_csv(run, index=False)
    main(["review", str(run)])
    page = (tmp_path / "x.review.html").read_text()
    assert "<script>alert(1)" not in page and page.count("</script>") == 2


# ------------------------------------------------------------------------------------------------ score
def test_score_of_open_marks_equals_a_hand_count(tmp_path, capsys):
    run = stock_log(tmp_path / "tf.csv", successes=6, failed=3, skipped=2)  # 9 attacked, 6 findings
    main(["review", str(run)])
    y, n = "yes", "no"
    a = {0: {"natural": y, "keeps_label": y}, 1: {"natural": y, "keeps_label": n}, 2: {"natural": n, "keeps_label": y}}
    a |= {3: {"natural": y, "keeps_label": y}, 4: {"natural": y, "keeps_label": y}, 5: {"natural": n, "keeps_label": n}}
    b = {i: {"natural": y, "keeps_label": y} for i in range(6)} | {5: {"natural": y, "keeps_label": n}}
    ma = marked(tmp_path / "tf.review.csv", tmp_path / "a.csv", a, reader="ann")
    mb = marked(tmp_path / "tf.review.csv", tmp_path / "b.csv", b)
    assert main(["review", "--score", str(ma), str(mb), "--json", str(tmp_path / "score.json")]) == 0
    out = capsys.readouterr().out
    rows = {r["reader"]: r for r in json.loads((tmp_path / "score.json").read_text())["table"]}
    # by hand: ann accepts 0, 3, 4 (3 of 6): 3 per 9 attacked = 33.3 per 100; natural 4/6, kept 4/6
    assert rows["ann"]["accepted_per_100"] == 33.3
    assert (rows["ann"]["natural_pct"], rows["ann"]["keeps_label_pct"], rows["ann"]["accepted_pct"]) == (66.7, 66.7, 50)
    assert rows["b"]["accepted_per_100"] == 55.6 and rows["b"]["accepted_pct"] == 83.3  # 5 of 6, per 9
    assert rows["every reader"]["accepted_per_100"] == 33.3  # 0, 3, 4 by both
    assert rows["mean of readers"]["accepted_per_100"] == 44.4  # (3 + 5) / 2 of 9
    assert "33.3" in out and "every reader" in out
    judged = pd.read_csv(tmp_path / "score_judged.csv")
    assert judged.accepted_1.tolist() == [1, 0, 0, 1, 1, 0]


def test_score_of_a_sampled_sheet_scales_by_the_runs_findings(tmp_path):
    run = stock_log(tmp_path / "r.csv", successes=20, failed=20, skipped=5)  # 40 attacked, 20 findings
    main(["review", str(run), "--sample", "4"])
    m = marked(
        tmp_path / "r.review.csv",
        tmp_path / "m.csv",
        {i: {"natural": "yes", "keeps_label": "yes"} for i in (0, 1)} | {2: {"natural": "no", "keeps_label": "yes"}},
    )
    assert main(["review", "--score", str(m)]) == 0
    (row,) = json.loads((tmp_path / "m.score.json").read_text())["table"]
    # 2 of the 3 read are accepted; the run has 20 findings of 40 attacked: 2/3 x 20/40 x 100
    assert (row["read"], row["on_sheet"], row["accepted_per_100"]) == (3, 4, 33.3)
    assert (
        "left 1 of 4 findings without a verdict" in json.loads((tmp_path / "m.score.json").read_text())["warnings"][0]
    )


def test_score_of_blind_marks_compares_each_reader_with_their_own_original(tmp_path):
    runs = [stock_log(tmp_path / "tf.csv", successes=2, failed=1, skipped=0), second_order_log(tmp_path / "so.csv")]
    main(["review", *map(str, runs), "--blind", "--out", str(tmp_path / "b.html"), "--label-names", "neg,pos"])
    key = pd.read_csv(tmp_path / "b_key.csv", keep_default_na=False)
    at = {(r.run, r.group, int(r.example)): int(r.id) for r in key.itertuples()}
    gold = {r.id: r.label for r in key.itertuples()}
    labels = {i: (gold[i], "yes") for i in key.id}  # every sentence read with its gold label, natural
    # tf row 0: the changed sentence read negative (its original positive): label lost
    labels[at["tf", "changed", 0]] = ("neg", "yes")
    # tf row 1: kept but not natural
    labels[at["tf", "changed", 1]] = ("neg", "no")
    # so row 0: x̃0 natural, x̃0 ⊕ p read as x̃0 is: accepted; so row 1 (x̃0 = x0): x̃0 ⊕ p unsure: not kept
    labels[at["so", "patched", 1]] = ("unsure", "yes")
    m = blind_marked(tmp_path / "m.csv", labels.items(), sheet=key.sheet[0])
    assert main(["review", "--score", str(m), "--key", str(tmp_path / "b_key.csv")]) == 0
    rows = {r["run"]: r for r in json.loads((tmp_path / "m.score.json").read_text())["table"]}
    assert rows["tf"]["accepted_per_100"] == 0.0 and rows["tf"]["keeps_label_pct"] == 50.0  # of 3 attacked
    assert rows["tf"]["natural_pct"] == 50.0
    assert rows["so"]["accepted_per_100"] == 33.3 and rows["so"]["keeps_label_pct"] == 50.0  # 1 of 3 attacked
    originals = json.loads((tmp_path / "m.score.json").read_text())["originals"]
    assert {o["run"]: o["natural_pct"] for o in originals} == {"tf": 100.0, "so": 100.0}


def test_helper_readers_text_verdicts_score_too(tmp_path):
    """The text items' hand-written ``id,label,fluency`` answers: fluency >= 4 reads as written by a person."""
    from textattack_secondorder.evaluation.review import score_marked

    run = stock_log(tmp_path / "tf.csv", successes=2, failed=0, skipped=0)
    main(["review", str(run), "--blind", "--out", str(tmp_path / "b.html"), "--label-names", "neg,pos"])
    key = pd.read_csv(tmp_path / "b_key.csv", keep_default_na=False)
    verdicts = pd.DataFrame({"id": sorted(set(key.id)), "label": "pos", "fluency": 5})
    verdicts.loc[verdicts.id == key[(key.group == "changed") & (key.example == 0)].id.iloc[0], "fluency"] = 3
    verdicts.to_csv(tmp_path / "v.csv", index=False)
    result = score_marked([tmp_path / "v.csv"], tmp_path / "b_key.csv")
    # row 0 (gold pos): kept, fluency 3: not accepted; row 1 (gold neg) original read pos, changed pos: kept, fluent
    assert result.rows[0]["accepted_pct"] == 50.0 and result.rows[0]["natural_pct"] == 50.0


# ------------------------------------------------------------------------------------------------ bad input
def test_a_csv_that_is_no_run_is_one_clear_error(tmp_path, capsys):
    (tmp_path / "data.csv").write_text("text,label\na film,1\n")
    assert main(["review", str(tmp_path / "data.csv")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "is not an attack run: missing column(s) original_text" in err
    (tmp_path / "none.csv").write_text("")
    assert main(["review", str(tmp_path / "none.csv")]) == 2
    assert "is not a CSV attack log" in capsys.readouterr().err


def test_a_run_without_findings_is_one_clear_error(tmp_path, capsys):
    run = stock_log(tmp_path / "r.csv", successes=0)
    assert main(["review", str(run)]) == 2
    assert "no findings to review" in capsys.readouterr().err
    run = stock_log(tmp_path / "s.csv")
    assert main(["review", str(run), "--blind"]) == 2  # the reader is asked for a label: names are needed
    assert "give them with --label-names" in capsys.readouterr().err
    assert main(["review", str(run), str(run)]) == 2
    assert "is given twice" in capsys.readouterr().err


def test_runs_of_the_same_file_name_are_told_apart_by_their_folder(tmp_path):
    for d in ("cnn", "lstm"):
        (tmp_path / d).mkdir()
        stock_log(tmp_path / d / "tf.csv", successes=2)
    assert main(["review", str(tmp_path / "cnn" / "tf.csv"), str(tmp_path / "lstm" / "tf.csv")]) == 0
    assert pd.read_csv(tmp_path / "cnn" / "tf.review.csv").run.unique().tolist() == ["cnn/tf", "lstm/tf"]


def test_marks_from_another_sheet_are_one_clear_error(tmp_path, capsys):
    one = stock_log(tmp_path / "one.csv")
    two = stock_log(tmp_path / "two.csv", successes=3)
    for r in (one, two):
        main(["review", str(r), "--blind", "--label-names", "neg,pos"])
    key_one = pd.read_csv(tmp_path / "one.review_key.csv")
    theirs = blind_marked(tmp_path / "m.csv", [(i, ("pos", "yes")) for i in sorted(set(key_one.id))], key_one.sheet[0])
    capsys.readouterr()
    assert main(["review", "--score", str(theirs), "--key", str(tmp_path / "two.review_key.csv")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and f"was marked on sheet {key_one.sheet[0]}, not on sheet" in err
    assert main(["review", "--score", str(theirs)]) == 2  # blind marks need the key
    assert "--key" in capsys.readouterr().err


def test_a_mark_that_is_no_mark_is_one_clear_error(tmp_path, capsys):
    run = stock_log(tmp_path / "r.csv")
    main(["review", str(run)])
    m = marked(tmp_path / "r.review.csv", tmp_path / "m.csv", {0: {"natural": "maybe"}})
    assert main(["review", "--score", str(m)]) == 2
    assert "natural = 'maybe' is not a mark (yes, no or empty)" in capsys.readouterr().err
    (tmp_path / "x.csv").write_text("a,b\n1,2\n")
    assert main(["review", "--score", str(tmp_path / "x.csv")]) == 2
    assert "no id column" in capsys.readouterr().err


# ------------------------------------------------------------------------------------------------ benchmarks
def test_sp_attack_read_scores_through_the_review_module_to_its_committed_figures(tmp_path):
    """``benchmarks/sp_attack_read.py score`` judges through the review module; a committed read keeps its figures."""
    results = REPO / "benchmarks" / "results" / "sp_read"
    stem = results / "sp_final_three_read"
    out = tmp_path / "read.json"
    cmd = [sys.executable, str(REPO / "benchmarks" / "sp_attack_read.py"), "score", "--key", f"{stem}_key.csv"]
    cmd += ["--verdicts", f"{stem}_verdicts_reader1.csv", f"{stem}_verdicts_reader2.csv", "--out", str(out)]
    cmd += ["--examples", str(results / "sp_final_three_examples.csv")]
    done = subprocess.run(cmd, capture_output=True, text=True, env=offline_env(PYTHONPATH=str(REPO)), timeout=300)
    assert done.returncode == 0, done.stderr
    committed = json.loads((stem.parent / "sp_final_three_read.json").read_text())
    mine = json.loads(out.read_text())
    assert mine["table"] == committed["table"] and mine["agreement"] == committed["agreement"]


def test_sp_attack_read_items_are_a_blind_review_sheet(tmp_path):
    """``benchmarks/sp_attack_read.py items`` writes its key and text items through the review module, and the same
    items as a blind sheet: one card per item, the key's texts in the text items' order."""
    results = REPO / "benchmarks" / "results" / "sp_read"
    cmd = [sys.executable, str(REPO / "benchmarks" / "sp_attack_read.py"), "items", "--stem", "read"]
    cmd += ["--examples", str(results / "sp_final_three_examples.csv"), "--out-dir", str(tmp_path)]
    done = subprocess.run(cmd, capture_output=True, text=True, env=offline_env(PYTHONPATH=str(REPO)), timeout=300)
    assert done.returncode == 0, done.stderr
    key = pd.read_csv(tmp_path / "read_key.csv", keep_default_na=False)
    items = (tmp_path / "read_items.txt").read_text()
    texts = key.drop_duplicates("id").sort_values("id").text.tolist()
    assert items == "\n".join(f"#{i}\n{t}\n" for i, t in enumerate(texts))
    page = (tmp_path / "read.html").read_text()
    assert page.count('class="finding"') == len(texts) and "sp-attack" not in page.split("</style>")[1]
    assert set(key.group) == {"original", "changed"} and key.sheet.nunique() == 1


@pytest.mark.parametrize("blind", [False, True])
def test_the_sheet_id_follows_the_content(tmp_path, blind):
    from textattack_secondorder.evaluation.review import build_sheet

    run = stock_log(tmp_path / "r.csv")
    names = ["neg", "pos"]
    a, b = build_sheet([run], blind, label_names=names), build_sheet([run], blind, label_names=names)
    c = build_sheet([run], blind, sample=3, label_names=names)
    assert a.sheet == b.sheet != c.sheet and len(a.sheet) == 12


# ------------------------------------------------------------------------------------------------ browser
@pytest.mark.slow
def test_a_sheet_of_100_findings_keeps_its_marks_in_headless_chromium_through_a_reload_and_a_download(tmp_path):
    """The page in a real browser: 100 findings load, marks set by clicks survive a reload (localStorage) and come
    back in the downloaded CSV, whose score is the hand count of the marks set."""
    import time

    from headless import Chromium, chromium_binary

    if not chromium_binary():
        pytest.skip("Debian's chromium is not installed (apt-get install -y chromium)")
    run = stock_log(tmp_path / "run.csv", successes=100, failed=25, skipped=10)  # 125 attacked
    assert main(["review", str(run), "--label-names", "negative,positive"]) == 0
    downloads = tmp_path / "downloads"
    downloads.mkdir()
    # finding i: natural unless i % 3 == 0, keeps the label unless i % 4 == 0; every tenth left unmarked
    marks = {i: ("no" if i % 3 == 0 else "yes", "no" if i % 4 == 0 else "yes") for i in range(100) if i % 10 != 9}
    note = 'an odd "word", here'
    progress = "document.getElementById('progress').textContent"
    with Chromium(tmp_path / "profile") as browser:
        t0 = time.monotonic()
        browser.open((tmp_path / "run.review.html").as_uri())
        assert browser.js("document.querySelectorAll('.finding').length") == 100
        assert browser.js(progress) == "0 of 100 marked"
        load_s = time.monotonic() - t0
        browser.js(
            "(() => { const marks = " + json.dumps(marks) + ";"
            "for (const [id, [nat, kept]] of Object.entries(marks)) {"
            " document.querySelector(`input[name=natural-${id}][value=${nat}]`).click();"
            " document.querySelector(`input[name=keeps_label-${id}][value=${kept}]`).click(); }"
            "const type = (el, v) => { el.value = v; el.dispatchEvent(new Event('input', {bubbles: true})); };"
            "type(document.querySelector('#item-7 [data-mark=note]'), " + json.dumps(note) + ");"
            "type(document.getElementById('reader'), 'Ann'); })()"
        )
        assert browser.js(progress) == "90 of 100 marked"
        browser.reload()  # the marks are kept in the page
        assert browser.js(progress) == "90 of 100 marked"
        assert browser.js("document.querySelectorAll('input[type=radio]:checked').length") == 180
        assert browser.js("document.getElementById('reader').value") == "Ann"
        browser.screenshot(tmp_path / "sheet.png")
        browser.allow_downloads(downloads)
        browser.js("document.getElementById('download').click()")
        deadline = time.monotonic() + 30
        while not list(downloads.glob("*.csv")) and time.monotonic() < deadline:
            time.sleep(0.2)
    (path,) = downloads.glob("*.csv")
    got = pd.read_csv(path, keep_default_na=False)
    assert len(got) == 100 and set(got.reader) == {"Ann"} and got.note[7] == note
    assert {i: (got.natural[i], got.keeps_label[i]) for i in range(100) if got.natural[i]} == marks
    assert main(["review", "--score", str(path), "--json", str(tmp_path / "score.json")]) == 0
    (row,) = json.loads((tmp_path / "score.json").read_text())["table"]
    accepted = sum(m == ("yes", "yes") for m in marks.values())  # the hand count: 45 of the 90 read
    assert row["read"] == 90 and row["accepted_per_100"] == round(100.0 * accepted / 90 * 100 / 125, 1)
    assert row["reader"] == "Ann" and (tmp_path / "sheet.png").stat().st_size > 20000
    print(f"100 findings loaded in {load_s:.2f} s; accepted {accepted} of 90 read -> {row['accepted_per_100']} per 100")
