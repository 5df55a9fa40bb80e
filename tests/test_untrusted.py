"""Hostile caches, names, templates, YAML and content pages (issue 25, items 1, 2, 3, 8, 9).

Each case plants what a pull request, a tarball or a shared folder could hold and checks that
the build neither runs it, nor crashes on it, nor publishes it.
"""

from __future__ import annotations

import json
import os
import pickle
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from builder.benchmarks.cibuzzbench.build_options import options as cibuzzbench_options
from builder.core import cachefile
from builder.core.cachefile import MAGIC as SEAL, environment_key, read_sealed, write_sealed
from builder.runs import cache as run_cache
from tests.test_hardening import RUN, edit_run_lines, quick_build, refused, small, with_header  # noqa: F401 (a fixture)

REPO = Path(__file__).resolve().parents[1]


class _Payload:
    """Unpickling this touches a file: the proof that a cache entry ran code."""

    def __init__(self, target: Path):
        self.target = target

    def __reduce__(self):
        return (os.system, (f"touch {self.target}",))


def _cached_small_build(work: Path, cache: Path) -> subprocess.CompletedProcess[str]:
    from builder.core.errors import InputError
    from builder.pipeline import BuildConfig, build
    from tests.test_hardening import SMALL_SPEC
    config = BuildConfig(work / "runs", work / "content", work / "site", options=cibuzzbench_options(work / "data.csv", SMALL_SPEC), charts=False, force=True, cache_dir=cache)
    try:
        build(config)
    except InputError as exc:
        return subprocess.CompletedProcess([], 2, "", f"buzzprobe: {exc}")
    return subprocess.CompletedProcess([], 0, "built", "")


def _tree(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


# ------------------------------------------------------------------ 1. caches are not code paths

def test_a_planted_run_cache_entry_is_never_unpickled(small: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    assert _cached_small_build(small, cache).returncode == 0
    before = _tree(small / "site")
    entries = sorted((cache / "runs").glob("*.pickle"))
    assert entries
    pwned = tmp_path / "PWNED"
    for path in entries:  # what an attacker can compute: the entry's key from public inputs
        key = path.stem.split("-", 1)[1].encode()
        payload = run_cache.MAGIC + key + b"\n" + pickle.dumps(_Payload(pwned))
        forged_seal = SEAL + b"\0" * 32 + payload  # the seal's shape without the secret
        path.write_bytes(forged_seal if path == entries[0] else payload)
    assert _cached_small_build(small, cache).returncode == 0
    assert not pwned.exists()
    assert _tree(small / "site") == before
    assert all(read_sealed(p, "runs") is not None for p in entries), "the planted entries were rebuilt"


def test_a_planted_audit_cache_entry_is_recomputed_and_old_ones_pruned(tmp_path: Path) -> None:
    from bench.mcq_synthetic import write as write_synthetic
    from builder.benchmarks.mcq.analyses.audit_cache import cache_key, cached_audit
    from builder.benchmarks.mcq.load import load_benchmark
    benchmark = load_benchmark(write_synthetic(tmp_path / "spec", 60))
    folder = tmp_path / "cache" / "mcq-audit"
    folder.mkdir(parents=True)
    stale = folder / f"{benchmark.spec.name}-{'0' * 32}.pickle"
    write_sealed(stale, b"an audit of other inputs", "mcq-audit")
    other = folder / f"{benchmark.spec.name}-pro-{'0' * 32}.pickle"  # another spec whose name starts alike
    other.write_bytes(b"kept")
    path = folder / f"{benchmark.spec.name}-{cache_key(benchmark)}.pickle"
    pwned = tmp_path / "PWNED"
    path.write_bytes(pickle.dumps(_Payload(pwned)))
    audit = cached_audit(benchmark, tmp_path / "cache")
    assert not pwned.exists()
    assert read_sealed(path, "mcq-audit") is not None and pickle.loads(read_sealed(path, "mcq-audit")) == audit
    assert not stale.exists() and other.exists()
    assert cached_audit(benchmark, tmp_path / "cache") == audit


def test_a_sealed_entry_cannot_move_to_another_name(tmp_path: Path) -> None:
    write_sealed(tmp_path / "a.pickle", b"value of a", "test")
    shutil.copy(tmp_path / "a.pickle", tmp_path / "b.pickle")
    assert read_sealed(tmp_path / "a.pickle", "test") == b"value of a"
    assert read_sealed(tmp_path / "b.pickle", "test") is None


def test_a_cache_file_git_tracks_is_never_read(tmp_path: Path) -> None:
    folder = tmp_path / "checkout" / ".cache"
    folder.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(folder.parent)], check=True)
    write_sealed(folder / "kept.svg", b"<svg/>", "test")
    write_sealed(folder / "force-added.svg", b"<svg/>", "test")
    subprocess.run(["git", "-C", str(folder.parent), "add", "-f", ".cache/force-added.svg"], check=True)
    cachefile._tracked_in.cache_clear()
    assert read_sealed(folder / "kept.svg", "test") == b"<svg/>"
    assert read_sealed(folder / "force-added.svg", "test") is None


def test_without_a_usable_secret_the_caches_are_off(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    inside = REPO / ".cache" / "secret-in-the-checkout"
    monkeypatch.setenv(cachefile.SECRET_ENV, str(inside))
    write_sealed(tmp_path / "x.json", b"[]", "test")
    assert not (tmp_path / "x.json").exists() and not inside.exists()
    monkeypatch.setenv(cachefile.SECRET_ENV, str(tmp_path / "fresh" / "secret"))
    write_sealed(tmp_path / "x.json", b"[]", "test")
    assert read_sealed(tmp_path / "x.json", "test") == b"[]"
    assert (tmp_path / "fresh" / "secret").stat().st_mode & 0o077 == 0
    monkeypatch.setenv(cachefile.SECRET_ENV, str(tmp_path / "other" / "secret"))  # another machine
    assert read_sealed(tmp_path / "x.json", "test") is None


def test_a_planted_svg_never_reaches_a_page(tmp_path: Path) -> None:
    from builder.site.charts import SvgRenderer
    spec = {"data": {"values": [{"a": "x", "b": 1}]}, "mark": "bar",
            "encoding": {"x": {"field": "a", "type": "nominal"}, "y": {"field": "b", "type": "quantitative"}}}
    renderer = SvgRenderer(tmp_path)
    real = renderer.vegalite(spec)
    (entry,) = tmp_path.glob("*.svg.sealed")
    entry.write_text("<svg><script>alert(1)</script></svg>", encoding="utf-8")
    assert renderer.vegalite(spec) == real


def test_a_changed_dependency_version_changes_every_cache_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from builder.benchmarks.mcq.analyses import audit_cache
    site = tmp_path / "site-packages"
    (site / "jinja2-3.1.6.dist-info").mkdir(parents=True)
    monkeypatch.syspath_prepend(str(site))

    def keys() -> tuple[str, str, str]:
        for f in (environment_key, run_cache.code_hash, audit_cache.code_hash):
            f.cache_clear()
        return environment_key(), run_cache.code_hash(), audit_cache.code_hash()

    try:
        before = keys()
        (site / "jinja2-3.1.6.dist-info").rename(site / "jinja2-3.1.7.dist-info")
        after = keys()
    finally:
        monkeypatch.undo()
        keys()
    assert all(a != b for a, b in zip(before, after))


# ------------------------------------------------------------------ 2. names cannot crash the build

CONTROL_NAME = "Evil\x07Model\x1b[31m"


def test_a_control_character_in_a_chart_label_no_longer_aborts_the_process(tmp_path: Path) -> None:
    """vl-convert panics (SIGABRT, rc 134) on a character XML cannot hold; the renderer's one
    entrance cleans the spec, so no name that got past a check can take the build down."""
    script = ("from builder.site.charts import SvgRenderer\n"
              "spec = {'data': {'values': [{'a': 'x\\x01y\\u202e', 'b': 1}]}, 'mark': 'bar',\n"
              "        'encoding': {'x': {'field': 'a', 'type': 'nominal'}, 'y': {'field': 'b', 'type': 'quantitative'}}}\n"
              "svg = SvgRenderer().vegalite(spec)\n"
              "assert '\\x01' not in svg and '\\u202e' not in svg and '&lt;U+202E&gt;' in svg, svg[:300]\n")
    done = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(REPO)},
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]


def test_a_control_character_in_a_run_header_name_is_located(small: Path) -> None:
    def rename(lines: list[str]) -> None:
        header = json.loads(lines[0])
        header["subject"]["name"] = CONTROL_NAME
        lines[0] = json.dumps(header)
    edit_run_lines(small, rename)
    refused(quick_build(small), RUN, "subject.name", "control characters", "'\\x07'")


@pytest.mark.parametrize("command", [
    ["probe", "--model", CONTROL_NAME, "--base-url", "http://127.0.0.1:9/v1"],
    ["import", "official.csv", "--model", CONTROL_NAME],
    ["mouse", "probe", "--model", CONTROL_NAME, "--task", "tr"],
    ["mouse", "import", "out.csv", "--model", CONTROL_NAME],
])
def test_model_options_refuse_control_characters(tmp_path: Path, command: list[str]) -> None:
    done = subprocess.run([sys.executable, "-m", "builder.cli", *command], cwd=tmp_path, capture_output=True,
                          text=True, timeout=120, env={**os.environ, "PYTHONPATH": str(REPO)})
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert "--model" in done.stderr and "control characters" in done.stderr and "Traceback" not in done.stderr
    assert not list(tmp_path.rglob("*.jsonl"))


def test_a_harness_log_with_a_control_character_in_its_model_is_refused(synthetic_csv: Path, synthetic_dataset,
                                                                       tmp_path: Path, monkeypatch, capsys) -> None:
    from builder.cli import main
    from builder.benchmarks.cibuzzbench.prompts import load_protocols
    from tests.test_interop import _blind, fake_lm_eval
    monkeypatch.setenv("CIBUZZBENCH_CSV", str(synthetic_csv))
    task, records = _blind(synthetic_dataset, load_protocols())
    fake_lm_eval(task, records, tmp_path / "out")
    (results,) = (tmp_path / "out").glob("results_*.json")
    data = json.loads(results.read_text())
    data["config"]["model_args"] = f"model={CONTROL_NAME},base_url=http://127.0.0.1:9/v1"
    results.write_text(json.dumps(data))
    assert main(["import", "lm-eval", str(tmp_path / "out"), "--out", str(tmp_path / "runs")]) == 2
    assert "control characters" in capsys.readouterr().err
    assert not list((tmp_path / "runs").rglob("*.jsonl")) if (tmp_path / "runs").exists() else True


def test_bidi_and_zero_width_characters_are_written_out_where_names_are_shown(small: Path) -> None:
    def rename(lines: list[str]) -> None:
        header = json.loads(lines[0])
        header["subject"]["name"] = "longest\u202e_chars\u200b"
        lines[0] = json.dumps(header)
    edit_run_lines(small, rename)
    assert quick_build(small).returncode == 0
    pages = [p.read_text(encoding="utf-8") for p in (small / "site").rglob("*.html")]
    assert any("longest&lt;U+202E&gt;_chars&lt;U+200B&gt;" in page for page in pages)
    assert not any("\u202e" in page or "\u200b" in page for page in pages)
    tables = [p.read_text(encoding="utf-8") for p in (small / "site" / "tables").rglob("*.csv")]
    assert any("longest<U+202E>_chars<U+200B>" in table for table in tables)
    assert not any("\u202e" in table for table in tables)


def test_model_ids_that_slug_alike_do_not_depend_on_run_order(synthetic_dataset) -> None:
    from builder.benchmarks.cibuzzbench.analyses.model_summaries import summarise_models
    from builder.benchmarks.cibuzzbench.analyses.run_scores import score_run
    from tests.test_paired import outcome_run
    runs = [outcome_run(synthetic_dataset, f"{name.replace(' ', '_').lower()}-blind", "blind",
                        {r: "correct" if r % (3 + n) else "pragmatic" for r in range(120)}, subject=name)
            for n, name in enumerate(("Demo Model", "demo-model"))]
    scores = [score_run(r, synthetic_dataset) for r in runs]
    forward = {m.id: m.model for m in summarise_models(scores)}
    backward = {m.id: m.model for m in summarise_models(scores[::-1])}
    assert forward == backward
    assert len(forward) == 2 and "demo-model-t2-blind-en-all" not in forward  # no plain id to misread


# ------------------------------------------------------------------ 3. templates and YAML have limits

@pytest.mark.parametrize("body, fragment", [
    ("{{ 'x' * 10**9 }}", "'*' would make 1,000,000,000 items"),
    ("{{ [0] * 10**9 }}", "'*' would make"),
    ("{{ 7 ** 9999999 }}", "'**' would make an integer"),
    ("{{ '%0999999999d' % 1 }}", "format width"),
    ("{{ '{0:{1}}'.format(1, 999999999) }}", "'str.format' asked for more"),
    ("{{ 'a'|center(999999999) }}", "'center' asked for more"),
    ("{% for i in range(100000) %}{{ 'y' * 999999 }}{% endfor %}", "output is over"),
])
def test_a_page_cannot_build_something_huge(small: Path, body: str, fragment: str) -> None:
    from tests.test_hardening import add_page
    add_page(small, "huge", body)
    refused(quick_build(small), "huge.md:8", fragment)


def test_nested_loops_stop_at_the_render_deadline(small: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import time
    from builder.site import limits
    from tests.test_hardening import add_page
    monkeypatch.setattr(limits, "RENDER_SECONDS", 2.0)
    add_page(small, "slow", "{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}")
    start = time.monotonic()
    result = quick_build(small)
    refused(result, "slow.md:8", "cannot render")
    text = result.stderr
    # whichever of the page's one budget runs out first: its time, or the ranges it builds (counted)
    assert "rendering took longer than 2 s" in text or "made more than 64,000,000 characters in all" in text, text
    assert time.monotonic() - start < 60


def test_a_spec_template_cannot_build_something_huge(tmp_path: Path) -> None:
    from builder.benchmarks.mcq.fields import RecordProblem, compile_rule
    rule = compile_rule("doc_to_text", "{{ q * 100000000 }}")
    with pytest.raises(RecordProblem, match="would make 500,000,000 items"):
        rule.raw({"q": "hello"})
    assert compile_rule("doc_to_text", "{{ q * 2 }}").raw({"q": "ab"}) == "abab"


ALIAS_BOMB = "a: &a [x,x,x,x,x,x,x,x,x]\n" + "".join(
    f"{chr(98 + i)}: &{chr(98 + i)} [{','.join(['*' + chr(97 + i)] * 9)}]\n" for i in range(9))


@pytest.mark.parametrize("file, text, fragment", [
    ("site.yaml", ALIAS_BOMB, "aliases expand to more than 1,000,000 values"),
    ("reported.yaml", ALIAS_BOMB, "aliases expand to more than"),
    ("site.yaml", "a: &a [1, *a]\n", "an alias refers to a value that holds it"),
    ("site.yaml", "title: One\nnav: []\ntitle: Two\n", "site.yaml:3 [title]: key 'title' is given twice (first on line 1)"),
    ("predictions.yaml", "predictions:\n  - id: x\n    id: y\n", "predictions.yaml:3 [predictions.0.id]: key 'id' is given twice"),
])
def test_yaml_alias_bombs_and_duplicate_keys_are_located(small: Path, file: str, text: str, fragment: str) -> None:
    import time
    (small / "content" / file).write_text(text, encoding="utf-8")
    start = time.monotonic()
    refused(quick_build(small), fragment)
    assert time.monotonic() - start < 30


def test_front_matter_and_protocols_use_the_same_yaml_reader(small: Path, tmp_path: Path) -> None:
    from builder.core.errors import InputError
    from builder.benchmarks.cibuzzbench.prompts import load_protocols
    from tests.test_hardening import add_page
    add_page(small, "twice", "x")
    page = small / "content" / "pages" / "twice.md"
    page.write_text(page.read_text().replace("title: T\n", "title: T\ntitle: U\n"), encoding="utf-8")
    refused(quick_build(small), "twice.md:3 [title]: key 'title' is given twice (first on line 2)")
    protocols = tmp_path / "p.yaml"
    protocols.write_text("schema: buzzprobe.protocols/1\nprotocols: []\n" + ALIAS_BOMB, encoding="utf-8")
    with pytest.raises(InputError, match="aliases expand"):
        load_protocols(protocols)


# ------------------------------------------------------------------ 8. content pages are untrusted markup

ACTIVE_CONTENT = [
    ("<script>alert(1)</script>", "<script>alert(1)"),
    ('<div onclick="alert(1)">x</div>', "onclick"),
    ('<img src=x onerror="alert(1)">', "onerror"),
    ("[click](javascript:alert(1))", "javascript:"),
    ('<a href="JaVaScRiPt:alert(1)">x</a>', "alert(1)"),
    ('<iframe src="https://evil.example/"></iframe>', "<iframe"),
    ('<a href="data:text/html,<script>x</script>">x</a>', "data:text"),
    ("<style>body{display:none}</style>", "<style"),
    ('<img src="https://tracker.example/pixel.gif" alt="x">', "tracker.example"),
    ('<img src="//tracker.example/pixel.gif" alt="x">', "tracker.example"),
    ('<form action="https://evil.example/"><input name=p></form>', "<form"),
]


@pytest.fixture(scope="module")
def evil_site(small_base: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[int, Path]:
    """One build with every case's page (evil-N.md, N its index in ACTIVE_CONTENT): each page is
    sanitised on its own, and a build per case was most of each case's time. Read-only."""
    from tests.test_hardening import add_page
    work = tmp_path_factory.mktemp("evil") / "small"
    shutil.copytree(small_base, work)
    for n, (body, _) in enumerate(ACTIVE_CONTENT):
        add_page(work, f"evil-{n}", body)
    return quick_build(work).returncode, work / "site"


@pytest.mark.parametrize("body, gone", ACTIVE_CONTENT)
def test_active_content_in_a_page_is_stripped(evil_site: tuple[int, Path], body: str, gone: str) -> None:
    returncode, site = evil_site
    assert returncode == 0
    html = (site / f"evil-{ACTIVE_CONTENT.index((body, gone))}.html").read_text(encoding="utf-8")
    main = html[html.index('<main id="main">'):html.index("</main>")]
    assert gone not in main and gone.lower() not in main.lower()
    assert "first line" in main  # the rest of the page is kept


def test_legitimate_markup_and_shortcodes_keep_their_bytes() -> None:
    from builder.site.sanitise import sanitise
    from builder.site.shortcodes import Shortcodes
    html = ('<p>A <a class="fact" href="provenance.html#f-x" title="t">12.5%</a> and <span class="x">y</span>'
            '<br />&quot;q&quot;</p>\n<table><tr><th style="text-align: left;">h</th></tr></table>')
    assert sanitise(html) == html
    codes = Shortcodes()
    block = codes.add('<svg onload="trusted()"><script>ours()</script></svg>', 'chart("c")')
    assert "<svg" not in block  # the page holds a placeholder, never the output
    assert "<script>ours()</script>" in codes.fill(sanitise(f"<p>para</p>\n{block}"))
    forged = '<div class="shortcode"><!--bp-0-0000000000000000--><script>x</script><!--/bp-0-0000000000000000--></div>'
    assert "<script>" not in codes.fill(sanitise(forged))


def test_a_planted_or_tracked_stamp_cannot_make_a_build_skip(small: Path) -> None:
    """The no-change check trusts only a stamp sealed here: a site/ with a stamp for the
    right fingerprint (computable from public inputs), shipped in a tarball or force-added to
    a pull request, is rebuilt, not published as it is."""
    from builder.pipeline import BuildConfig, build
    from builder.site.write import STAMP
    from tests.test_hardening import SMALL_SPEC
    config = BuildConfig(small / "runs", small / "content", small / "site", options=cibuzzbench_options(small / "data.csv", SMALL_SPEC), charts=False)
    assert not build(config).skipped
    assert build(config).skipped  # sealed here: a no-change build stops early
    stamp = small / "site" / STAMP
    fingerprint = stamp.read_text().split("\n")[0]
    (small / "site" / "index.html").write_text("<script>planted()</script>")
    stamp.write_text(fingerprint + "\n" + "0" * 64 + "\n")
    assert not build(config).skipped
    assert "planted" not in (small / "site" / "index.html").read_text()
    subprocess.run(["git", "init", "-q", str(small)], check=True)
    subprocess.run(["git", "-C", str(small), "add", "-f", f"site/{STAMP}"], check=True)
    cachefile._tracked_in.cache_clear()
    assert not build(config).skipped  # a stamp git tracks is never trusted
