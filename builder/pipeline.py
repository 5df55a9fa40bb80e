"""The pipeline, in one direction: load -> validate -> compute -> render -> write."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from builder.core.fingerprint import build_fingerprint
from builder.core.errors import InputError
from builder.site.write import STAMP, read_stamp


@dataclass(frozen=True)
class BuildConfig:
    dataset: Path
    runs_dir: Path = Path("runs")
    content_dir: Path = Path("content")
    out: Path = Path("site")
    force: bool = False
    spec: object | None = None  # a DatasetSpec; None means the official shape
    charts: bool = True  # tests of other parts may skip the (slower) chart rendering
    # Chart bundle and SVGs by content hash (safe to delete); BUZZPROBE_CACHE moves it.
    cache_dir: Path = field(default_factory=lambda: Path(os.environ.get("BUZZPROBE_CACHE") or ".cache"))
    run_cache: bool = True  # keep per-run results (runs, scores, run pages) in cache_dir/runs between builds


@dataclass(frozen=True)
class BuildResult:
    skipped: bool
    files: int
    facts: int
    runs: int


def build(config: BuildConfig) -> BuildResult:
    """Build the site; skip all work when no input changed since the last build."""
    check_out_folder(config)
    fingerprint = build_fingerprint(config.dataset, config.runs_dir, config.content_dir)
    if not config.force and read_stamp(config.out) == fingerprint:
        return BuildResult(skipped=True, files=0, facts=0, runs=0)
    # Heavy imports only once we know there is work to do.
    from builder.benchmarks.cibuzzbench.compute import compute
    from builder.benchmarks.cibuzzbench.dataset.cibuzzbench import load_dataset
    from builder.benchmarks.cibuzzbench.analyses.run_scores import score_run
    from builder.runs.cache import RunCache
    from builder.runs.load import load_runs
    from builder.site.write import write_site

    dataset = load_dataset(config.dataset, config.spec) if config.spec else load_dataset(config.dataset)
    variants = _variants(dataset, config)
    cache = RunCache(config.cache_dir if config.run_cache else None, {"original": dataset, **variants})
    runs = load_runs(config.runs_dir, {"original": dataset, **variants}, cache)
    computed = compute(dataset, runs, variants, score=lambda run, data: cache.derived(run, "score", lambda: score_run(run, data)),
                       pair=lambda a, b, data: _cached_pair(cache, a, b, data))
    _add_importance(computed, dataset, config)
    reported, statements = _add_fidelity(computed, config)
    files = _render(config, dataset, computed, variants, reported, statements, cache)
    write_site(files, config.out, fingerprint)
    cache.save()
    return BuildResult(skipped=False, files=len(files), facts=len(computed.facts.values), runs=len(runs))


def _cached_pair(cache, run_a, run_b, dataset):
    """A blind/sighted pair's analysis depends on its two runs alone: kept with run a, under
    run b's key."""
    from builder.benchmarks.cibuzzbench.analyses.paired import analyse_pair
    key_b = cache.key(run_b)
    if key_b is None:
        return analyse_pair(run_a, run_b, dataset)
    return cache.derived(run_a, f"pair:{key_b}", lambda: analyse_pair(run_a, run_b, dataset))


def _variants(dataset, config: BuildConfig) -> dict:
    """Derived dataset variants, kept in the cache by the original's content (deriving costs seconds)."""
    from builder.benchmarks.cibuzzbench.dataset.variants import derive_variants
    from builder.runs.cache import cached
    folder = config.cache_dir if config.run_cache else None
    inputs = f"{dataset.path}\0{dataset.file_sha256}\0{dataset.content_sha256}\0{dataset.rows}"
    return cached(folder, "variants", inputs, lambda: derive_variants(dataset), dict)


def check_out_folder(config: BuildConfig) -> None:
    """The site folder is replaced as a whole, so it must be a folder of its own: never one
    holding the inputs (`--out .` would replace the project) and never an existing folder that
    a build did not make (it would be deleted)."""
    out = config.out.resolve()
    inputs = {"the runs folder": config.runs_dir, "the content folder": config.content_dir,
              "the dataset": config.dataset}
    for what, path in inputs.items():
        path = path.resolve()
        if path == out or path.is_relative_to(out):
            raise InputError.single("--out", f"{config.out} would replace {what} ({path}); choose a folder of its own")
        if path.is_dir() and out.is_relative_to(path):
            raise InputError.single("--out", f"{config.out} is inside {what} ({path}); the site is not an input")
    if out == Path.cwd().resolve() or out == Path(out.anchor):
        raise InputError.single("--out", f"{config.out} is not a folder of its own")
    if out.exists() and (not out.is_dir() or (any(out.iterdir()) and read_stamp(out) is None)):
        raise InputError.single("--out", f"{config.out} exists and was not made by a build (no "
                                f"{STAMP}); a build replaces its folder, so choose an empty or new one")


def _add_importance(computed, dataset, config: BuildConfig) -> None:
    """Feature importance of the learned probe, shown only when its runs are in the build."""
    from builder.benchmarks.cibuzzbench.analyses.importance import add_importance_facts, feature_importance
    learned = tuple(rid for rid, s in computed.scores.items()
                    if s.run.header.subject_name == "learned_options" and s.run.header.variant == "original")
    if learned:
        add_importance_facts(computed.facts, feature_importance(dataset, config.cache_dir), learned)


def _add_fidelity(computed, config: BuildConfig):
    """The published probe's figures against the facts (content/article-figures.yaml); returns
    the reported figures (which the pages quote too) and the statements."""
    from builder.benchmarks.cibuzzbench.analyses.fidelity import add_fidelity_facts
    from builder.benchmarks.cibuzzbench.article_figures import load_article_figures
    from builder.benchmarks.cibuzzbench.reported import load_reported
    reported = load_reported(config.content_dir / "reported.yaml")
    path = config.content_dir / "article-figures.yaml"
    statements = load_article_figures(path, reported)
    add_fidelity_facts(computed.facts, statements, reported)
    return reported, statements


def _render(config: BuildConfig, dataset, computed, variants, reported, statements, cache=None) -> dict[str, bytes]:
    from builder.core.build_date import build_date
    from builder.claims.engine import MeasureRegistry, judge_prediction
    from builder.claims.loading import load_predictions
    from builder.claims.run_measures import register_run_measures
    from builder.benchmarks.mouse.site_parts import mouse_site_parts
    from builder.site.render import SiteInputs, render_site

    registry = MeasureRegistry()
    register_run_measures(registry, computed.scores.values(), computed.facts, computed.pair_triples())
    today = build_date(config.content_dir.parent if config.content_dir.is_absolute() else Path("."))
    predictions = load_predictions(config.content_dir / "predictions.yaml", set(registry.measures), registry)
    verdicts = [judge_prediction(p, registry, today) for p in predictions]
    with _svg_cache(config.cache_dir if config.charts else None):
        charts, assets = _charts(computed, config.cache_dir) if config.charts else ({}, {})
        mouse = mouse_site_parts(computed.facts, config.content_dir, charts=config.charts)
    inputs = SiteInputs(
        dataset=dataset, computed=computed, content_dir=config.content_dir,
        reported=reported, verdicts=verdicts, build_date=today,
        site_url=os.environ.get("BUZZPROBE_SITE_URL", ""), charts={**charts, **mouse.charts},
        extra_tables=mouse.tables, mouse_verdicts=mouse.verdicts, variants=variants, article_figures=statements,
        assets={**assets, "assets/item-browser.js": (config.content_dir / "static" / "item-browser.js").read_bytes()},
        run_cache=cache,
    )
    return render_site(inputs)


@contextmanager
def _svg_cache(cache_dir: Path | None) -> Iterator[None]:
    """Chart SVGs are cached on disk by content hash while the build renders them."""
    from builder.site import charts
    charts.use_svg_cache(cache_dir / "svg" if cache_dir else None)
    try:
        yield
    finally:
        charts.use_svg_cache(None)


def _charts(computed, cache_dir: Path) -> tuple[dict, dict[str, bytes]]:
    """Charts and the shared Vega bundle; the bundle is cached on disk by content hash because
    generating it is the slowest step of a build (seconds), and it rarely changes."""
    from builder.benchmarks.cibuzzbench.views.chart_set import build_charts
    return build_charts(computed), {"assets/vega-bundle.js": _cached_bundle(cache_dir)}


def _cached_bundle(cache_dir: Path) -> bytes:
    import hashlib

    from builder.site.chart_bundle import bundle_version, vega_bundle
    from builder.site.charts import atomic_write
    key = hashlib.sha256(bundle_version().encode("utf-8")).hexdigest()[:16]
    path = cache_dir / f"vega-bundle-{key}.js"
    if path.exists():
        return path.read_bytes()
    data = vega_bundle()
    atomic_write(path, data)
    return data
