"""Which option features carry the learned probe's signal, cached by content hash.

Refitting the probe and shuffling each feature takes about two seconds; the result
depends only on the dataset's content, the probe's code and the installed libraries
(scikit-learn, numpy), so those form the cache key. The entry is on the build's one cache
(builder/core/cache.py), sealed: a planted file cannot put other figures on the site.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from builder.benchmarks.cibuzzbench.dataset.cibuzzbench import Dataset
from builder.benchmarks.cibuzzbench import fact_keys as K
from builder.core.facts import FactTable
from builder.core.cache import CacheFolder, environment_key

COEF = "coefficient of the standardised feature in the learned probe trained on the train split"
PERMUTATION = ("drop in test-split accuracy (points) when the feature is shuffled across test options, "
               "mean of five seeded shuffles; learned probe trained on the train split")


LEARNED_SOURCE = Path(__file__).resolve().parents[1] / "probes" / "learned.py"
RANKER_SOURCES = sorted((Path(__file__).resolve().parents[3] / "ranker").glob("*.py"))  # the shared ranker


def feature_importance(dataset: Dataset, cache_dir: Path | None) -> list[tuple[str, float]]:
    # not imported unless needed: scikit-learn takes seconds to load
    code = b"".join(p.read_bytes() for p in (LEARNED_SOURCE, *RANKER_SOURCES))
    key = hashlib.sha256(dataset.content_sha256.encode() + environment_key().encode() + code).hexdigest()[:24]
    shelf = CacheFolder(cache_dir).shelf("feature-importance")
    entry = f"feature-importance-{key}.json.sealed"
    data = shelf.read(entry)
    if data is not None:
        return [(name, float(value)) for name, value in json.loads(data)]
    # deferred: loads the ranker (scipy, scikit-learn: about a second), only when this runs
    from builder.benchmarks.cibuzzbench.probes import learned
    result = learned.feature_importance(dataset)
    shelf.write(entry, json.dumps(result).encode("utf-8"))  # a cache: losing it costs a recompute
    return result


def add_importance_facts(facts: FactTable, importance: list[tuple[str, float]], runs: tuple[str, ...]) -> None:
    for name, value in importance:
        kind, feature = name.split(":", 1)
        pattern = K.IMPORTANCE_COEF if kind == "coef" else K.IMPORTANCE_PERMUTATION
        facts.add(pattern.key(feature=feature), value, COEF if kind == "coef" else PERMUTATION, runs)
