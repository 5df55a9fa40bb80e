"""The suite's whole-site builds are made once per test run, however many pytest-xdist workers
ask for them (tests/shared_builds.once_per_run), and a failed one is made afresh."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.shared_builds import once_per_run


class _Worker:
    """What once_per_run reads of pytest's TempPathFactory: an xdist worker's own basetemp."""

    def __init__(self, root: Path, name: str):
        self.base = root / f"popen-{name}"
        self.base.mkdir(parents=True, exist_ok=True)

    def getbasetemp(self) -> Path:
        return self.base


def test_every_worker_reads_the_one_build(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    made: list[Path] = []

    def make(folder: Path) -> Path:
        made.append(folder)
        (folder / "site").mkdir()
        (folder / "site" / "index.html").write_text("built", encoding="utf-8")
        return folder / "site"

    found = []
    for name in ("gw0", "gw1", "gw0"):
        monkeypatch.setenv("PYTEST_XDIST_WORKER", name)
        found.append(once_per_run(_Worker(tmp_path, name), "site", make))  # type: ignore[arg-type]
    assert len(made) == 1
    assert found == [tmp_path / "shared-site" / "site"] * 3
    assert (found[0] / "index.html").read_text(encoding="utf-8") == "built"


def test_a_build_that_failed_half_way_is_made_afresh(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PYTEST_XDIST_WORKER", raising=False)
    worker = _Worker(tmp_path, "gw0")

    def broken(folder: Path) -> Path:
        (folder / "half").write_text("x", encoding="utf-8")
        raise RuntimeError("build failed")

    with pytest.raises(RuntimeError):
        once_per_run(worker, "site", broken)  # type: ignore[arg-type]
    result = once_per_run(worker, "site", lambda folder: folder)  # type: ignore[arg-type]
    assert result == worker.base / "shared-site"  # without xdist: the session's own folder
    assert not (result / "half").exists()
