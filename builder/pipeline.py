"""The pipeline, in one direction: load -> validate -> compute -> render -> write.

It runs each stage over every registered benchmark (builder/benchmarks/) and names none of
them; what a benchmark does at each stage is its plug-in's business (benchmarks/base.py).
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from builder.benchmarks.base import BuildSettings
from builder.core.build_scope import build_scope
from builder.core.collector import spaced_collections
from builder.core.confine import real_file
from builder.core.fingerprint import build_fingerprint
from builder.runs.files import run_files
from builder.core.errors import InputError, Problem
from builder.core.paths import REPO_DIR
from builder.site.parts import SiteParts
from builder.site.write import STAMP, is_current, read_stamp

if TYPE_CHECKING:
    from builder.core.facts import FactTable
    from builder.site.charts import SvgRenderer


@dataclass(frozen=True)
class BuildConfig:
    runs_dir: Path = Path("runs")
    content_dir: Path = Path("content")
    out: Path = Path("site")
    force: bool = False
    # Plug-ins' own options by plug-in name, passed through to BuildSettings.options (tests give
    # a plug-in a small data file this way; each plug-in documents its own options type).
    options: Mapping[str, Any] = field(default_factory=dict)
    charts: bool = True  # tests of other parts may skip the (slower) chart rendering
    # Chart bundle and SVGs by content hash (safe to delete); BUZZPROBE_CACHE moves it.
    cache_dir: Path = field(default_factory=lambda: Path(os.environ.get("BUZZPROBE_CACHE") or ".cache"))
    run_cache: bool = True  # keep per-run results (runs, scores, pairs, run pages) in cache_dir/runs between builds
    progress: Callable[[str], None] | None = None  # told each stage with its counts (the CLI prints them)


@dataclass(frozen=True)
class BuildResult:
    skipped: bool
    files: int
    facts: int
    runs: int


def build(config: BuildConfig) -> BuildResult:
    """Build the site; skip all work when no input changed since the last build. What the stages
    ask for more than once (a spec's data files) is computed once (builder.core.build_scope), and
    the garbage collector runs less often (builder.core.collector)."""
    with build_scope(), spaced_collections():
        return _build(config)


def _build(config: BuildConfig) -> BuildResult:
    # deferred: a no-change build answers before these load
    from builder.benchmarks import registered
    from builder.core.build_date import env_epoch
    env_epoch()  # a malformed SOURCE_DATE_EPOCH is reported before any library reads it (numpy does)
    settings = _settings(config)
    extra = [path for b in registered() for path in b.inputs(settings)]
    check_out_folder(config, extra)
    say = config.progress or (lambda _: None)
    found = run_files(config.runs_dir)
    fingerprint = build_fingerprint(config.runs_dir, found, config.content_dir, extra)
    if not config.force and is_current(config.out, fingerprint):
        return BuildResult(skipped=True, files=0, facts=0, runs=0)
    for benchmark in registered():
        benchmark.start(settings)  # run-free work (the specs' audits) overlaps reading the runs
    say(f"reading {len(found)} run file(s) from {config.runs_dir}")
    # Heavy imports only once we know there is work to do.
    from builder.core.facts import FactTable
    from builder.runs.cache import RunCache
    from builder.site.configuration import load_site_content
    from builder.site.write import write_site

    content = load_site_content(config.content_dir, os.environ.get("BUZZPROBE_SITE_URL", ""))  # fails fast
    cache = RunCache(config.cache_dir if config.run_cache else None)
    settings = replace(settings, run_cache=cache, reported=content.reported)
    loaded, set_aside = _load(settings, config.runs_dir, say)
    facts = FactTable()
    computed = {}
    for benchmark in registered():
        say(f"computing {benchmark.title}")
        computed[benchmark.name] = benchmark.compute(loaded[benchmark.name], facts, settings)
    say(f"rendering the site from {len(facts.values)} facts")
    files, runs = _render(settings, content, facts, computed, set_aside)
    say(f"writing {len(files)} files to {config.out}")
    write_site(files, config.out, fingerprint)
    cache.save()
    return BuildResult(skipped=False, files=len(files), facts=len(facts.values), runs=runs)


def load_stage(config: BuildConfig) -> dict[str, Any]:
    """The load-and-validate stage alone, as `build` runs it (run cache included): every
    refusal of a bad dataset or run is decided here, so its tests need not build a site."""
    # deferred: a no-change build answers before these load
    from builder.runs.cache import RunCache
    settings = replace(_settings(config), run_cache=RunCache(config.cache_dir if config.run_cache else None))
    return _load(settings, config.runs_dir)[0]


def _settings(config: BuildConfig) -> BuildSettings:
    return BuildSettings(content_dir=config.content_dir, cache_dir=config.cache_dir, charts=config.charts,
                         options=config.options)


def _load(settings: BuildSettings, runs_dir: Path,
          say: Callable[[str], None] = lambda _: None) -> tuple[dict[str, Any], list[Any]]:
    """Every run through the one reader, then each benchmark's data and runs; all problems at
    once. Also the runs set aside unscored (runs.load.SetAside)."""
    # deferred: a no-change build answers before these load
    from builder.benchmarks import registered
    from builder.core.build_date import latest_moment
    from builder.runs.load import read_store
    store = read_store(runs_dir, settings.run_cache, latest_moment(_project(settings.content_dir)))
    problems = list(store.problems)
    served = _served_names(settings)
    owners = _run_owners(served, store.runs)
    known = ", ".join(sorted(served))
    for name, runs in sorted(store.runs.items()):
        if name not in owners:
            problems += [Problem(run.path, f"no benchmark {name!r} in this build (known: {known})", 1, "benchmark")
                         for run in runs]
    loaded: dict[str, Any] = {}
    for benchmark in registered():
        mine = [run for name, runs in sorted(store.runs.items()) if owners.get(name) == benchmark.name for run in runs]
        say(f"loading {benchmark.title}: its data and {len(mine)} run(s)")
        try:
            loaded[benchmark.name] = benchmark.load(settings, mine)
        except InputError as exc:
            problems.extend(exc.problems)
    if problems:
        raise InputError(problems)
    return loaded, store.set_aside


def _served_names(settings: BuildSettings) -> dict[str, str]:
    """The benchmark names this build serves, each with the plug-in that serves it."""
    # deferred: a no-change build answers before these load
    from builder.benchmarks import registered
    served: dict[str, str] = {}
    for benchmark in registered():
        for name in benchmark.run_names(settings):
            if name in served:
                raise InputError.single(settings.content_dir, f"benchmark name {name!r} is claimed by both "
                                        f"{served[name]} and {benchmark.name}")
            served[name] = benchmark.name
    return served


def _run_owners(served: dict[str, str], runs: dict[str, list[Any]]) -> dict[str, str]:
    """Which plug-in reads the runs of each benchmark name: the registry's one rule
    (`run_owner`, which also chose the format that read them), when the owner serves that
    name in this build (a spec'd benchmark's name needs its spec)."""
    # deferred: a no-change build answers before these load
    from builder.benchmarks import run_owner
    owners = {}
    for name, named in runs.items():
        owner = run_owner(name, named[0].header.task) if named else None
        if owner is not None and served.get(name) == owner.name:
            owners[name] = owner.name
    return owners


def check_out_folder(config: BuildConfig, data: list[Path]) -> None:
    """The site folder is replaced as a whole, so it must be a folder of its own: never one
    holding the inputs (`--out .` would replace the project) and never an existing folder that
    a build did not make (it would be deleted)."""
    out = config.out.resolve()
    inputs = [("the runs folder", config.runs_dir), ("the content folder", config.content_dir),
              *(("the dataset", path) for path in data)]
    folders: dict[str, str] = {}  # each data folder resolved once (ChemBench: 2,788 files in a few)
    for what, given in inputs:
        path = Path(real_file(given, folders))
        if path == out or path.is_relative_to(out):
            raise InputError.single("--out", f"{config.out} would replace {what} ({path}); choose a folder of its own")
        if path.is_dir() and out.is_relative_to(path):
            raise InputError.single("--out", f"{config.out} is inside {what} ({path}); the site is not an input")
    if out == Path.cwd().resolve() or out == Path(out.anchor):
        raise InputError.single("--out", f"{config.out} is not a folder of its own")
    if out.exists() and (not out.is_dir() or (any(out.iterdir()) and read_stamp(out) is None)):
        raise InputError.single("--out", f"{config.out} exists and was not made by a build (no "
                                f"{STAMP}); a build replaces its folder, so choose an empty or new one")


def _render(settings: BuildSettings, content: Any, facts: Any,
            computed: dict[str, Any], set_aside: list[Any]) -> tuple[dict[str, bytes], int]:
    """Tracker verdicts, every benchmark's site parts, the site's shared stage, each
    benchmark's generated pages on that stage, then the site (one direction, no callback)."""
    # deferred: a no-change build answers before these load
    from builder.benchmarks import registered
    from builder.claims.engine import MeasureRegistry, judge_prediction
    from builder.claims.loading import load_predictions
    from builder.core.build_date import build_date, latest_moment
    from builder.core.cache import CacheFolder
    from builder.site.charts import SvgRenderer
    from builder.site.prepare import SiteInputs, prepare_site
    from builder.site.render import render_site

    folder = settings.content_dir
    registry = MeasureRegistry()
    for benchmark in registered():
        benchmark.measures(computed[benchmark.name], facts, registry)
    today = build_date(_project(folder))
    predictions = load_predictions(folder / "predictions.yaml", set(registry.measures), registry,
                                   latest_moment(_project(folder)).date())
    verdicts = [judge_prediction(p, registry, today) for p in predictions]
    # deferred: a no-change build answers before these load
    from builder.site.catalogue_pages import catalogue_pages
    svg = SvgRenderer(CacheFolder(settings.cache_dir).shelf("svg").folder) if settings.charts else None
    parts = _site_parts(computed, facts, svg)
    rows = tuple(row for b in registered() for row in b.run_rows(computed[b.name], facts, settings))
    charts = any(part.charts for part in parts.values())
    stage = prepare_site(SiteInputs(
        facts=facts, parts=parts, content=content, verdicts=verdicts, build_date=today, set_aside=tuple(set_aside),
        cache_dir=settings.kept_folder(),
        catalogue=rows,
        assets={**({"assets/vega-bundle.js": _cached_bundle(settings.cache_dir)} if charts else {}),
                **_plugin_assets(settings)}))
    generated: dict[str, bytes] = {}
    pages = replace(stage.page_settings, run_cache=settings.run_cache, cache_folder=settings.kept_folder())
    with stage.located():
        for benchmark in registered():
            generated.update(benchmark.pages(computed[benchmark.name], facts, pages))
        generated.update(catalogue_pages(stage.page_settings, rows))
    return render_site(stage, generated), sum(len(part.runs) for part in parts.values())


def _site_parts(computed: dict[str, Any], facts: FactTable, svg: SvgRenderer | None) -> dict[str, SiteParts]:
    """Every plug-in's site parts, collected once: a table, chart or context name two of them
    give is a located error here, naming the second plug-in, before anything is rendered."""
    # deferred: a no-change build answers before these load
    from builder.benchmarks import registered
    from builder.site.parts import id_clashes
    parts = {b.name: b.site(computed[b.name], facts, svg) for b in registered()}
    where = {b.name: _module_file(type(b).__module__) for b in registered()}
    clashes = id_clashes(parts, where)
    if clashes:
        raise InputError(clashes)
    return parts


def _module_file(module: str) -> str:
    """A plug-in's module as a path from the checkout (builder/benchmarks/NAME/plugin.py)."""
    path = Path(sys.modules[module].__file__ or module)
    return str(path.relative_to(REPO_DIR)) if path.is_relative_to(REPO_DIR) else str(path)


def _plugin_assets(settings: BuildSettings) -> dict[str, bytes]:
    """The files plug-ins ship as they are (`assets`), read; one site path from two different
    files is a located error, not a silent choice."""
    # deferred: a no-change build answers before these load
    from builder.benchmarks import registered
    from builder.core.textfiles import MAX_DOCUMENT_BYTES, read_input
    sources: dict[str, tuple[str, Path]] = {}
    for benchmark in registered():
        for name, path in benchmark.assets(settings).items():
            if name in sources and sources[name][1] != path:
                raise InputError.single(path, f"{benchmark.name} ships {name}, which {sources[name][0]} ships "
                                        f"from {sources[name][1]}")
            sources.setdefault(name, (benchmark.name, path))
    return {name: read_input(path, MAX_DOCUMENT_BYTES) for name, (_, path) in sorted(sources.items())}


def _project(content_dir: Path) -> Path:
    """The folder whose git history dates the build (build_date.build_epoch)."""
    return content_dir.parent if content_dir.is_absolute() else Path(".")


def _cached_bundle(cache_dir: Path) -> bytes:
    # deferred: a no-change build answers before these load
    import hashlib

    from builder.core.cache import CacheFolder
    from builder.site.chart_bundle import bundle_version, vega_bundle
    shelf = CacheFolder(cache_dir).shelf("vega-bundle")
    name = f"vega-bundle-{hashlib.sha256(bundle_version().encode('utf-8')).hexdigest()[:16]}.js.sealed"
    data = shelf.read(name)  # sealed: a planted file cannot become the site's script
    if data is None:
        data = vega_bundle()
        shelf.write(name, data)
    return data
