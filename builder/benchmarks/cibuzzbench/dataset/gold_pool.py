"""The gold-pool variants of CIBuzzBench (prediction 1 of the blind probe).

Every distractor is replaced by the gold equivalent (`equivalent_en`) of another item of
the same split, so all four options are curated glosses. Everything else (row_ids, terms,
gold, labels, splits) is kept, so the official shuffle gives the same letter maps as on
the original. Two constructions (builder/benchmarks/cibuzzbench/dataset/gold_pool_draw.py, docs/gold-pool.md):

- `gold_pool`, the article's set: all four options of an item lie within 10% of each other
  in characters, in a window placed at random around the gold's length, so length carries
  no signal;
- `gold_pool_slot`, an ablation: each replacement matches the length of the distractor it
  replaces, so the gold stays as much longer than its distractors as in the original.

Shared rules: donors come from the same split (a learned probe trained on train never sees
a test string); a donor is never the item's own gold and never equal to another option of
the item, compared case-insensitively after trimming; every draw is seeded by the seed and
the row_id, so results depend on nothing but the data and the seed; when 10% is impossible
the tolerance widens stepwise (recorded), and at the cap the original distractors are kept
and flagged as unmatched.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import random
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from builder import __version__
from builder.benchmarks.cibuzzbench.dataset.cibuzzbench import COLUMNS, Dataset, DatasetSpec, content_hash, load_dataset
from builder.benchmarks.cibuzzbench.dataset.gold_pool_draw import (GOLD_COLUMN, SLOTS, Pool, SlotChoice, donor_pools, fill_by_slot,
                                            fill_by_window)
from builder.core.errors import InputError
from builder.core.fileio import atomic_write
from builder.core.textfiles import read_input
from builder.runs.lines import MAX_DOCUMENT_DEPTH, LineError, load_line

GOLD_POOL = "gold_pool"
GOLD_POOL_SLOT = "gold_pool_slot"
DEFAULT_SEED = 20260922
TOLERANCE = 0.10
DONOR_SCOPE = "same split"

Fill = Callable[[dict[str, str], Pool, int, tuple[float, ...]], tuple[dict[str, str], list[SlotChoice]]]


@dataclass(frozen=True)
class Construction:
    """One way of building a gold-pool variant: its name, generator version and rule."""

    variant: str
    generator: str
    rule: str
    tolerance_steps: tuple[float, ...]
    fill: Fill

    @property
    def csv_name(self) -> str:
        return f"cibuzzbench-{self.variant}.csv"

    @property
    def manifest_name(self) -> str:
        return f"cibuzzbench-{self.variant}.manifest.json"

    @property
    def regenerate(self) -> str:
        return f"buzzprobe data gold-pool --variant {self.variant}"


CONSTRUCTIONS: dict[str, Construction] = {c.variant: c for c in (
    Construction(
        GOLD_POOL, "gold_pool/2",
        "all three distractors are golds of other items of the same split (never the item's own gold, never "
        "equal to the gold or to each other, case-insensitive, trimmed) whose character lengths, with the "
        "gold's, lie in one window [ceil(0.9*L), L]: any two options a, b then satisfy |a-b| <= 0.1*max(a, b); "
        "L is drawn uniformly among the windows that contain the gold's length, and the draws are uniform "
        "inside it; a window with fewer than three distinct candidates is replaced by the next window of the "
        "seeded shuffle; when no window works the width is widened to 15%, 20%, 25%, 30%, 40%, 50% and the "
        "width used is recorded; an item with none even at 50% keeps its original distractors and is "
        "flagged as unmatched",
        (0.10, 0.15, 0.20, 0.25, 0.30, 0.40, 0.50), fill_by_window),
    Construction(
        GOLD_POOL_SLOT, "gold_pool_slot/1",
        "each distractor is replaced by the gold equivalent of another item of the same split whose "
        "character length is within 10% of the replaced string (never the item's own gold, never a "
        "string equal to another option of the item, case-insensitive, trimmed); when no candidate "
        "exists the tolerance is widened to 15%, 20%, 25%, 30% and the tolerance used is recorded; a "
        "slot with no candidate at 30% keeps its original distractor and is flagged as unmatched",
        (0.10, 0.15, 0.20, 0.25, 0.30), fill_by_slot),
)}


def construction(variant: str) -> Construction:
    try:
        return CONSTRUCTIONS[variant]
    except KeyError:
        raise InputError.single("--variant", f"unknown gold-pool variant {variant!r}; expected one of: "
                                f"{', '.join(CONSTRUCTIONS)}") from None


@dataclass(frozen=True)
class GoldPool:
    """A generated variant: its rows (CSV column order) and how every slot was filled."""

    seed: int
    source_file_sha256: str
    source_content_sha256: str
    rows: list[dict[str, str]]
    choices: tuple[SlotChoice, ...]
    variant: str = GOLD_POOL
    tolerance: float = TOLERANCE

    @property
    def construction(self) -> Construction:
        return CONSTRUCTIONS[self.variant]

    @property
    def tolerance_steps(self) -> tuple[float, ...]:
        return self.construction.tolerance_steps

    @cached_property
    def content_sha256(self) -> str:
        return content_hash([[r[c] for c in COLUMNS] for r in self.rows])

    @property
    def donors(self) -> dict[int, dict[str, int | None]]:
        """row_id -> slot -> donor row_id (None for a kept slot)."""
        out: dict[int, dict[str, int | None]] = {}
        for c in self.choices:
            out.setdefault(c.row_id, {})[c.slot] = c.donor
        return out

    @property
    def unmatched(self) -> tuple[SlotChoice, ...]:
        return tuple(c for c in self.choices if c.donor is None)

    @property
    def widened(self) -> tuple[SlotChoice, ...]:
        return tuple(c for c in self.choices if c.tolerance is not None and c.tolerance > self.tolerance)

    @property
    def counts(self) -> dict[str, int]:
        return _counts(self.choices, self.tolerance, len(self.rows))

    @property
    def length_means(self) -> dict[str, dict[str, float]]:
        """Mean option length per slot before and after (the gold is unchanged)."""
        out = {}
        for slot, _ in SLOTS:
            mine = [c for c in self.choices if c.slot == slot]
            out[slot] = {"before": _mean(c.length_before for c in mine),
                         "after": _mean(c.length_after for c in mine)}
        gold = _mean(len(r[GOLD_COLUMN]) for r in self.rows)
        out["correct"] = {"before": gold, "after": gold}
        return out

    def csv_bytes(self) -> bytes:
        """The variant CSV: the original's header and column order, CRLF, minimal quoting."""
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\r\n")
        writer.writerow(COLUMNS)
        writer.writerows([r[c] for c in COLUMNS] for r in self.rows)
        return out.getvalue().encode("utf-8")

    def manifest(self) -> dict[str, Any]:
        c = self.construction
        return {
            "variant": self.variant, "generator": c.generator, "seed": self.seed,
            "source": {"file_sha256": self.source_file_sha256, "content_sha256": self.source_content_sha256},
            "variant_content_sha256": self.content_sha256,
            "variant_file_sha256": hashlib.sha256(self.csv_bytes()).hexdigest(),
            "tolerance": self.tolerance, "tolerance_steps": list(c.tolerance_steps),
            "donor_scope": DONOR_SCOPE, "rule": c.rule, "counts": self.counts,
            "length_means": self.length_means,
            "donors": [_donor_record(row_id, slots) for row_id, slots in _by_row(self.choices)],
            "tool": {"name": "buzzprobe", "version": __version__},
        }


# ----------------------------------------------------------------- generation


def make_gold_pool(dataset: Dataset, seed: int = DEFAULT_SEED, variant: str = GOLD_POOL) -> GoldPool:
    """Build the variant in memory; a pure function of the dataset's content and the seed."""
    c = construction(variant)
    frame = dataset.frame
    row_ids = [int(i) for i in frame.index]
    records = {i: {col: str(v) for col, v in zip(COLUMNS, values)}
               for i, values in zip(row_ids, frame[list(COLUMNS)].itertuples(index=False))}
    pools = donor_pools(records)
    rows: list[dict[str, str]] = []
    choices: list[SlotChoice] = []
    for row_id in row_ids:
        row, picked = c.fill(records[row_id], pools[records[row_id]["split"]], seed, c.tolerance_steps)
        rows.append(row)
        choices.extend(picked)
    return GoldPool(seed, dataset.file_sha256, dataset.content_sha256, rows, tuple(choices), variant)


def _counts(choices: tuple[SlotChoice, ...], base: float, items: int) -> dict[str, int]:
    kept = [c for c in choices if c.donor is None]
    widened = [c for c in choices if c.tolerance is not None and c.tolerance > base]
    donor_uses = Counter(c.donor for c in choices if c.donor is not None)
    return {
        "items": items, "slots": len(choices),
        "replaced_slots": len(choices) - len(kept),
        "replaced_within_10pct_slots": len(choices) - len(kept) - len(widened),
        "widened_slots": len(widened), "unmatched_slots": len(kept),
        "items_fully_within_10pct": items - len({c.row_id for c in kept + widened}),
        "items_with_widened_slot": len({c.row_id for c in widened}),
        "items_with_unmatched_slot": len({c.row_id for c in kept}),
        "items_with_redrawn_window": len({c.row_id for c in choices if c.attempt > 0}),
        "distinct_donors": len(donor_uses), "max_donor_uses": max(donor_uses.values(), default=0),
    }


def _mean(values: Iterable[int]) -> float:
    numbers = list(values)
    return round(sum(numbers) / len(numbers), 4) if numbers else 0.0


def _by_row(choices: tuple[SlotChoice, ...]) -> list[tuple[int, list[SlotChoice]]]:
    grouped: dict[int, list[SlotChoice]] = {}
    for c in choices:
        grouped.setdefault(c.row_id, []).append(c)
    return sorted(grouped.items())


def _donor_record(row_id: int, slots: list[SlotChoice]) -> dict[str, Any]:
    """Ids and numbers only: the manifest never copies dataset text."""
    record: dict[str, Any] = {"row_id": row_id, "donors": {c.slot: c.donor for c in slots},
                              "tolerance": {c.slot: c.tolerance for c in slots}}
    if any(c.window is not None for c in slots):
        record["window"] = list(slots[0].window or ())
        record["window_attempt"] = slots[0].attempt
    return record


# ----------------------------------------------------------------- files


def write_gold_pool(gold_pool: GoldPool, folder: Path) -> tuple[Path, Path]:
    """Write the CSV, then the manifest, each atomically.

    The manifest goes last and names the CSV's content hash, so a crash between the two
    leaves a pair that `load_gold_pool` rejects as stale instead of a silent mismatch.
    """
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    c = gold_pool.construction
    csv_path, manifest_path = folder / c.csv_name, folder / c.manifest_name
    atomic_write(csv_path, gold_pool.csv_bytes())
    text = json.dumps(gold_pool.manifest(), ensure_ascii=False, indent=1, sort_keys=True) + "\n"
    atomic_write(manifest_path, text.encode("utf-8"))
    return csv_path, manifest_path


def read_manifest(folder: Path, variant: str = GOLD_POOL) -> dict[str, Any]:
    c = construction(variant)
    path = Path(folder) / c.manifest_name
    try:
        data = load_line(read_input(path), MAX_DOCUMENT_DEPTH)
    except FileNotFoundError:
        raise InputError.single(path, f"gold-pool variant not found; generate it with `{c.regenerate}`") from None
    except (OSError, LineError) as exc:
        raise InputError.single(path, f"unreadable gold-pool manifest ({exc}); regenerate it with "
                                      f"`{c.regenerate}`") from exc
    if not isinstance(data, dict):
        raise InputError.single(path, f"gold-pool manifest is not a JSON object; regenerate it with `{c.regenerate}`")
    return data


def load_gold_pool(folder: Path, original: Dataset, variant: str = GOLD_POOL) -> Dataset:
    """Load the variant with the normal loader, refusing one made from other data."""
    c = construction(variant)
    folder = Path(folder)
    manifest = read_manifest(folder, variant)
    _check_manifest(folder / c.manifest_name, manifest, original, c)
    csv_path = folder / c.csv_name
    if not csv_path.is_file():
        raise InputError.single(csv_path, f"gold-pool CSV is missing; regenerate it with `{c.regenerate}`")
    loaded = load_dataset(csv_path, _spec_of(original))
    if loaded.content_sha256 != manifest.get("variant_content_sha256"):
        raise InputError.single(csv_path, "gold-pool CSV does not match its manifest (content sha256 "
                                f"{loaded.content_sha256}); regenerate it with `{c.regenerate}`")
    _check_kept_columns(csv_path, loaded, original, c)
    return loaded


def _check_manifest(path: Path, manifest: dict[str, Any], original: Dataset, c: Construction) -> None:
    source = found if isinstance(found := manifest.get("source"), dict) else {}
    claimed = source.get("content_sha256")
    if claimed != original.content_sha256:
        raise InputError.single(path, f"stale gold-pool variant: made from data with content sha256 {claimed!r}, "
                                f"the loaded dataset has {original.content_sha256!r}; regenerate it with "
                                f"`{c.regenerate}`", field="source.content_sha256")
    if manifest.get("generator") != c.generator:
        raise InputError.single(path, f"gold-pool variant made by generator {manifest.get('generator')!r}, this "
                                f"tool makes {c.generator!r}; regenerate it with `{c.regenerate}`", field="generator")


def _spec_of(original: Dataset) -> DatasetSpec:
    """The variant must have the original's shape, whatever spec the original was loaded with."""
    counts = original.frame["split"].value_counts()
    return DatasetSpec(rows=original.rows, split_counts={str(k): int(v) for k, v in counts.items()})


_KEPT = tuple(c for c in COLUMNS if c not in {column for _, column in SLOTS})


def _check_kept_columns(path: Path, loaded: Dataset, original: Dataset, c: Construction) -> None:
    """Only distractors may differ; anything else means the files were tampered with."""
    differing = [col for col in _KEPT if not loaded.frame[col].equals(original.frame[col])]
    if differing:
        raise InputError.single(path, f"gold-pool variant differs from the original in {', '.join(differing)}; "
                                f"regenerate it with `{c.regenerate}`")


def ensure_gold_pool(original: Dataset, folder: Path, seed: int = DEFAULT_SEED, variant: str = GOLD_POOL) -> Dataset:
    """Load the variant, (re)generating it first when missing, stale or made with another seed."""
    folder = Path(folder)
    try:
        manifest = read_manifest(folder, variant)
        if manifest.get("seed") == seed:
            return load_gold_pool(folder, original, variant)
    except InputError:
        pass
    write_gold_pool(make_gold_pool(original, seed, variant), folder)
    return load_gold_pool(folder, original, variant)
