"""The length-matched gold-pool variant of CIBuzzBench (prediction 1 of the blind probe).

Every distractor is replaced by the gold equivalent (`equivalent_en`) of another item of
the same split whose length is within 10% of the string it replaces, so all four options
are curated glosses of similar size: what a blind reader can still exploit is then no
longer the distractor recipe. Everything else (row_ids, terms, gold, labels, splits) is
kept, so the official shuffle gives the same letter maps as on the original.

Rules (documented with measured counts in docs/gold-pool.md):
- donors come from the same split, so no option string of a test item is ever seen in a
  train item (a learned probe trained on train cannot memorise test strings);
- a candidate is never the item's own gold nor equal to any option of the item already
  present (original distractors included), compared case-insensitively after trimming;
- each draw is `random.Random(f"gold_pool:{seed}:{row_id}:{slot}").choice` over candidates
  sorted by row_id, so results depend on nothing but the data and the seed;
- a slot with no candidate at 10% is retried at 15%, 20%, 25%, 30% (the tolerance used is
  recorded); a slot with none even at 30% keeps its original distractor and is flagged.
"""

from __future__ import annotations

import bisect
import csv
import hashlib
import io
import json
import random
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from builder import __version__
from builder.dataset.cibuzzbench import COLUMNS, Dataset, DatasetSpec, content_hash, load_dataset
from builder.errors import InputError
from builder.fileio import atomic_file

VARIANT = "gold_pool"
GENERATOR = "gold_pool/1"
DEFAULT_SEED = 20260922
TOLERANCE = 0.10
TOLERANCE_STEPS: tuple[float, ...] = (0.10, 0.15, 0.20, 0.25, 0.30)
DONOR_SCOPE = "same split"
SLOTS: tuple[tuple[str, str], ...] = (
    ("literal", "distractor_literal_en"),
    ("cultural", "distractor_cultural_mismatch_en"),
    ("pragmatic", "distractor_pragmatic_neighbor_en"),
)
GOLD_COLUMN = "equivalent_en"
CSV_NAME = f"cibuzzbench-{VARIANT}.csv"
MANIFEST_NAME = f"cibuzzbench-{VARIANT}.manifest.json"
REGENERATE = "buzzprobe data gold-pool"
RULE = ("each distractor is replaced by the gold equivalent of another item of the same split whose "
        "character length is within 10% of the replaced string (never the item's own gold, never a "
        "string equal to another option of the item, case-insensitive, trimmed); when no candidate "
        "exists the tolerance is widened to 15%, 20%, 25%, 30% and the tolerance used is recorded; a "
        "slot with no candidate at 30% keeps its original distractor and is flagged as unmatched")


@dataclass(frozen=True)
class SlotChoice:
    """What happened to one distractor slot of one item."""

    row_id: int
    slot: str  # literal | cultural | pragmatic
    length_before: int
    length_after: int
    donor: int | None  # row_id of the item whose gold was used; None when kept (unmatched)
    tolerance: float | None  # the tolerance the donor was found at; None when kept
    candidates: int  # how many donors were eligible at that tolerance


@dataclass(frozen=True)
class GoldPool:
    """A generated variant: its rows (CSV column order) and how every slot was filled."""

    seed: int
    source_file_sha256: str
    source_content_sha256: str
    rows: list[dict[str, str]]
    choices: tuple[SlotChoice, ...]
    tolerance: float = TOLERANCE
    tolerance_steps: tuple[float, ...] = TOLERANCE_STEPS

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
        return {
            "variant": VARIANT, "generator": GENERATOR, "seed": self.seed,
            "source": {"file_sha256": self.source_file_sha256, "content_sha256": self.source_content_sha256},
            "variant_content_sha256": self.content_sha256,
            "variant_file_sha256": hashlib.sha256(self.csv_bytes()).hexdigest(),
            "tolerance": self.tolerance, "tolerance_steps": list(self.tolerance_steps),
            "donor_scope": DONOR_SCOPE, "rule": RULE, "counts": self.counts,
            "length_means": self.length_means,
            "donors": [_donor_record(row_id, slots) for row_id, slots in _by_row(self.choices)],
            "tool": {"name": "buzzprobe", "version": __version__},
        }


# ----------------------------------------------------------------- generation


def make_gold_pool(dataset: Dataset, seed: int = DEFAULT_SEED) -> GoldPool:
    """Build the variant in memory; a pure function of the dataset's content and the seed."""
    frame = dataset.frame
    row_ids = [int(i) for i in frame.index]
    records = {i: {c: str(v) for c, v in zip(COLUMNS, values)}
               for i, values in zip(row_ids, frame[list(COLUMNS)].itertuples(index=False))}
    pools = _donor_pools(records)
    rows: list[dict[str, str]] = []
    choices: list[SlotChoice] = []
    for row_id in row_ids:
        row, picked = _replace_item(records[row_id], pools[records[row_id]["split"]], seed)
        rows.append(row)
        choices.extend(picked)
    return GoldPool(seed, dataset.file_sha256, dataset.content_sha256, rows, tuple(choices))


def _norm(text: str) -> str:
    return text.strip().casefold()


@dataclass(frozen=True)
class _Pool:
    """Donor items of one split sorted by (gold length, row_id), for range lookups."""

    lengths: list[int]
    row_ids: list[int]
    golds: dict[int, str]  # row_id -> gold text
    keys: dict[int, str]  # row_id -> normalised gold, for the equality checks

    def within(self, length: int, tolerance: float) -> list[int]:
        # |len(c) - length| <= tolerance * length, with a tiny epsilon against float error
        slack = tolerance * length + 1e-9
        lo = bisect.bisect_left(self.lengths, length - slack)
        hi = bisect.bisect_right(self.lengths, length + slack)
        return self.row_ids[lo:hi]


def _donor_pools(records: dict[int, dict[str, str]]) -> dict[str, _Pool]:
    by_split: dict[str, list[tuple[int, int]]] = {}
    for row_id, r in records.items():
        by_split.setdefault(r["split"], []).append((len(r[GOLD_COLUMN]), row_id))
    pools = {}
    for split, entries in by_split.items():
        entries.sort()
        ids = [i for _, i in entries]
        golds = {i: records[i][GOLD_COLUMN] for i in ids}
        pools[split] = _Pool([n for n, _ in entries], ids, golds, {i: _norm(g) for i, g in golds.items()})
    return pools


def _replace_item(row: dict[str, str], pool: _Pool, seed: int) -> tuple[dict[str, str], list[SlotChoice]]:
    row_id = int(row["row_id"])
    # Original distractors are excluded too, so a slot kept at the cap can never
    # collide with a replacement chosen for another slot.
    taken = {_norm(row[GOLD_COLUMN])} | {_norm(row[column]) for _, column in SLOTS}
    out = dict(row)
    picked = []
    for slot, column in SLOTS:
        choice = _fill_slot(row_id, slot, row[column], pool, taken, seed)
        if choice.donor is not None:
            out[column] = pool.golds[choice.donor]
            taken.add(_norm(out[column]))
        picked.append(choice)
    return out, picked


def _fill_slot(row_id: int, slot: str, original: str, pool: _Pool, taken: set[str],
               seed: int) -> SlotChoice:
    length = len(original)
    for tolerance in TOLERANCE_STEPS:
        candidates = sorted(j for j in pool.within(length, tolerance)
                            if j != row_id and pool.keys[j] not in taken)
        if candidates:
            donor = random.Random(f"gold_pool:{seed}:{row_id}:{slot}").choice(candidates)
            return SlotChoice(row_id, slot, length, len(pool.golds[donor]), donor,
                              tolerance, len(candidates))
    return SlotChoice(row_id, slot, length, length, None, None, 0)


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
    return {"row_id": row_id,
            "donors": {c.slot: c.donor for c in slots},
            "tolerance": {c.slot: c.tolerance for c in slots}}


# ----------------------------------------------------------------- files


def write_gold_pool(gold_pool: GoldPool, folder: Path) -> tuple[Path, Path]:
    """Write the CSV, then the manifest, each atomically.

    The manifest goes last and names the CSV's content hash, so a crash between the two
    leaves a pair that `load_gold_pool` rejects as stale instead of a silent mismatch.
    """
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    csv_path, manifest_path = folder / CSV_NAME, folder / MANIFEST_NAME
    _atomic_write(csv_path, gold_pool.csv_bytes())
    text = json.dumps(gold_pool.manifest(), ensure_ascii=False, indent=1, sort_keys=True) + "\n"
    _atomic_write(manifest_path, text.encode("utf-8"))
    return csv_path, manifest_path


def _atomic_write(path: Path, data: bytes) -> None:
    with atomic_file(path) as handle:
        handle.write(data)


def read_manifest(folder: Path) -> dict[str, Any]:
    path = Path(folder) / MANIFEST_NAME
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputError.single(path, f"gold-pool variant not found; generate it with `{REGENERATE}`") from None
    except (OSError, ValueError) as exc:
        raise InputError.single(path, f"unreadable gold-pool manifest ({exc}); regenerate it with "
                                      f"`{REGENERATE}`") from exc
    if not isinstance(data, dict):
        raise InputError.single(path, f"gold-pool manifest is not a JSON object; regenerate it with `{REGENERATE}`")
    return data


def load_gold_pool(folder: Path, original: Dataset) -> Dataset:
    """Load the variant with the normal loader, refusing one made from other data."""
    folder = Path(folder)
    manifest = read_manifest(folder)
    _check_manifest(folder / MANIFEST_NAME, manifest, original)
    if not (folder / CSV_NAME).is_file():
        raise InputError.single(folder / CSV_NAME, f"gold-pool CSV is missing; regenerate it with `{REGENERATE}`")
    variant = load_dataset(folder / CSV_NAME, _spec_of(original))
    if variant.content_sha256 != manifest.get("variant_content_sha256"):
        raise InputError.single(folder / CSV_NAME, "gold-pool CSV does not match its manifest (content sha256 "
                                f"{variant.content_sha256}); regenerate it with `{REGENERATE}`")
    _check_kept_columns(folder / CSV_NAME, variant, original)
    return variant


def _check_manifest(path: Path, manifest: dict[str, Any], original: Dataset) -> None:
    source = manifest.get("source") if isinstance(manifest.get("source"), dict) else {}
    claimed = source.get("content_sha256")
    if claimed != original.content_sha256:
        raise InputError.single(path, f"stale gold-pool variant: made from data with content sha256 {claimed!r}, "
                                f"the loaded dataset has {original.content_sha256!r}; regenerate it with "
                                f"`{REGENERATE}`", field="source.content_sha256")
    if manifest.get("generator") != GENERATOR:
        raise InputError.single(path, f"gold-pool variant made by generator {manifest.get('generator')!r}, this "
                                f"tool makes {GENERATOR!r}; regenerate it with `{REGENERATE}`", field="generator")


def _spec_of(original: Dataset) -> DatasetSpec:
    """The variant must have the original's shape, whatever spec the original was loaded with."""
    counts = original.frame["split"].value_counts()
    return DatasetSpec(rows=original.rows, split_counts={str(k): int(v) for k, v in counts.items()})


_KEPT = tuple(c for c in COLUMNS if c not in {column for _, column in SLOTS})


def _check_kept_columns(path: Path, variant: Dataset, original: Dataset) -> None:
    """Only distractors may differ; anything else means the files were tampered with."""
    differing = [c for c in _KEPT if not variant.frame[c].equals(original.frame[c])]
    if differing:
        raise InputError.single(path, f"gold-pool variant differs from the original in {', '.join(differing)}; "
                                f"regenerate it with `{REGENERATE}`")


def ensure_gold_pool(original: Dataset, folder: Path, seed: int = DEFAULT_SEED) -> Dataset:
    """Load the variant, (re)generating it first when missing, stale or made with another seed."""
    folder = Path(folder)
    try:
        manifest = read_manifest(folder)
        if manifest.get("seed") == seed:
            return load_gold_pool(folder, original)
    except InputError:
        pass
    write_gold_pool(make_gold_pool(original, seed), folder)
    return load_gold_pool(folder, original)
