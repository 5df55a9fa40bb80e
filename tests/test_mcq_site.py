"""The spec'd benchmarks' site part without runs: the fixture specs' pages, the cached audit
and the spec-file naming rule. Data: the SYNTHETIC fixtures in tests/fixtures/mcq/."""

from __future__ import annotations

from pathlib import Path

import pytest

from builder.benchmarks.mcq.analyses import audit_cache
from builder.benchmarks.mcq.load import load_benchmark
from builder.benchmarks.mcq.loading import load_specs
from builder.core.errors import InputError

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "tests" / "fixtures" / "mcq"


def content_with(tmp_path: Path, fixture: str, file_name: str | None = None) -> Path:
    """A content dir whose benchmarks/ holds one fixture spec (data path made absolute)."""
    folder = tmp_path / "content" / "benchmarks"
    folder.mkdir(parents=True, exist_ok=True)
    text = (FIXTURES / fixture).read_text(encoding="utf-8").replace("dataset_path: tests/", f"dataset_path: {REPO}/tests/")
    name = next(line.split(":", 1)[1].strip() for line in text.splitlines() if line.startswith("name:"))
    (folder / (file_name or f"{name}.yaml")).write_text(text, encoding="utf-8")
    return tmp_path / "content"


def test_the_audit_is_computed_once_per_spec_data_and_code(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    content = content_with(tmp_path, "list_options.yaml")
    calls = []
    real = audit_cache.run_audit
    monkeypatch.setattr(audit_cache, "run_audit", lambda b: calls.append(b.spec.name) or real(b))
    first = load_specs(content, tmp_path / "cache", [])
    second = load_specs(content, tmp_path / "cache", [])
    assert calls == ["synthetic-list"] and first[0].audit == second[0].audit
    assert len(list((tmp_path / "cache" / "mcq-audit").iterdir())) == 1
    spec = content / "benchmarks" / "synthetic-list.yaml"
    spec.write_text(spec.read_text(encoding="utf-8").replace("title: ", "title: Renamed "), encoding="utf-8")
    load_specs(content, tmp_path / "cache", [])
    assert calls == ["synthetic-list", "synthetic-list"]  # the spec's bytes are part of the key


def test_the_cached_audit_equals_a_fresh_one(tmp_path: Path) -> None:
    content = content_with(tmp_path, "columns.yaml")
    (loaded,) = load_specs(content, tmp_path / "cache", [])
    (again,) = load_specs(content, tmp_path / "cache", [])
    fresh = audit_cache.run_audit(load_benchmark(content / "benchmarks" / "synthetic-columns.yaml"))
    assert again.audit.as_json() == fresh.as_json() == loaded.audit.as_json()


def test_a_spec_file_is_named_after_its_benchmark(tmp_path: Path) -> None:
    content = content_with(tmp_path, "dict_options.yaml", file_name="other.yaml")
    with pytest.raises(InputError) as caught:
        load_specs(content, tmp_path / "cache", [])
    assert f"{content / 'benchmarks' / 'other.yaml'}:2 [name]: the spec of 'synthetic-dict' must be named " \
           "synthetic-dict.yaml" in str(caught.value)


def test_the_loaded_items_are_cached_by_spec_data_and_code(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A warm build reads the items back instead of parsing every record again; a changed data
    file is parsed anew."""
    import shutil
    from builder.benchmarks.mcq import load as load_module
    content = content_with(tmp_path, "columns.yaml")
    data = content / "benchmarks" / "columns.csv"  # beside the spec: a folder it may read
    shutil.copy(FIXTURES / "columns.csv", data)
    spec = content / "benchmarks" / "synthetic-columns.yaml"
    spec.write_text(spec.read_text(encoding="utf-8").replace(f"{REPO}/tests/fixtures/mcq/columns.csv", str(data)),
                    encoding="utf-8")
    parsed = []
    real = load_module.read_records
    monkeypatch.setattr(load_module, "read_records", lambda s: parsed.append(s.name) or real(s))
    first = audit_cache.cached_benchmark(spec, tmp_path / "cache")
    again = audit_cache.cached_benchmark(spec, tmp_path / "cache")
    assert parsed == ["synthetic-columns"] and again.items == first.items
    assert again.content_sha256 == first.content_sha256 and again.data.sha256 == first.data.sha256
    data.write_text(data.read_text(encoding="utf-8") + "\n", encoding="utf-8")  # other bytes, same records
    audit_cache.cached_benchmark(spec, tmp_path / "cache")
    assert parsed == ["synthetic-columns", "synthetic-columns"]
