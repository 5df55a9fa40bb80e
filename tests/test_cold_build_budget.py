"""The cold-build budget's fixes (issue 35): one located error for a missing pinned data copy."""

from __future__ import annotations

from pathlib import Path

import pytest

from builder.benchmarks.mcq.loading import _check_data_file
from builder.benchmarks.mcq.spec import load_spec
from builder.core.errors import InputError

REPO = Path(__file__).resolve().parents[1]
CHEMBENCH = REPO / "content" / "benchmarks" / "chembench.yaml"


def _problems(environ: dict[str, str]) -> list[str]:
    with pytest.raises(InputError) as caught:
        _check_data_file(load_spec(CHEMBENCH, root=REPO, environ=environ))
    return [str(p) for p in caught.value.problems]


def test_missing_chembench_copy_is_one_located_error(tmp_path: Path) -> None:
    """A copy that is not there was 2,791 errors (one per pinned question file and glob)."""
    gone = tmp_path / "no-such-copy"
    problems = _problems({"BUZZPROBE_DATA_CHEMBENCH": str(gone)})
    assert len(problems) == 1
    text = problems[0]
    assert text.startswith("content/benchmarks/chembench.yaml:") or str(CHEMBENCH) in text
    assert "[data_dir]" in text and f"no folder {gone}" in text
    assert "BUZZPROBE_DATA_CHEMBENCH" in text and "src/data/chem-bench-main/data/" in text
    assert "github.com/lamalab-org/chembench-paper/tree/8fe22914" in text


def test_missing_default_copy_says_how_to_get_it(tmp_path: Path) -> None:
    """Without the variable the spec's own data_dir is meant: fetch it, or name a copy."""
    spec = tmp_path / "benchmarks" / "chembench.yaml"
    spec.parent.mkdir()
    spec.write_bytes(CHEMBENCH.read_bytes())
    with pytest.raises(InputError) as caught:
        _check_data_file(load_spec(spec, root=tmp_path, environ={}))
    (problem,) = caught.value.problems
    assert "buzzprobe data fetch --benchmark chembench" in str(problem)
    assert f"no folder {tmp_path / 'data' / 'chembench'}" in str(problem)


def test_half_copy_counts_what_is_missing(tmp_path: Path) -> None:
    """A copy holding some of the pinned files names how many are missing and the first one."""
    spec = load_spec(CHEMBENCH, root=REPO, environ={})
    assert spec.location.download is not None
    kept = spec.location.download.files[:3]
    for relative, _ in kept:
        (tmp_path / relative).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / relative).write_text("{}", encoding="utf-8")
    total = len(spec.location.download.files)
    (problem,) = _problems({"BUZZPROBE_DATA_CHEMBENCH": str(tmp_path)})
    assert f"{total - 3:,} of its {total:,} pinned files are not in {tmp_path}" in problem
