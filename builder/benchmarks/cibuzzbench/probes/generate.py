"""Write every model-free probe as an ordinary run, so they flow through the same
reader, validator and metrics as model runs do.

Output is a pure function of the dataset and `created`, so `make runs` rewrites the
files byte for byte.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from builder.benchmarks.cibuzzbench.dataset.cibuzzbench import Dataset
from builder.benchmarks.cibuzzbench.dataset.options import option_sets
from builder.benchmarks.cibuzzbench.tasks import OFFICIAL_SEEDS
from builder.benchmarks.cibuzzbench.probes import heuristics as h
from builder.benchmarks.cibuzzbench.run_format import Item
from builder.runs.schema import Footer, Header, new_header
from builder.runs.writer import write_run
from builder.benchmarks.cibuzzbench.tasks import EQUIVALENT_SELECTION, HARMFULNESS_DETECTION

PROBE_DIR = Path("runs/probes")
ORIGINAL = "original"
RANDOM_SEED = 0


@dataclass(frozen=True)
class OptionProbe:
    """A Task 2 probe: a heuristic over the lettered options."""

    name: str
    description: str
    parameters: dict[str, Any]
    make: Callable[[], h.Heuristic]
    on_variants: bool = True  # False: letters only, and every variant keeps the original's letter maps


@dataclass(frozen=True)
class ConstantProbe:
    """A Task 3 probe that gives every item the same label."""

    name: str
    description: str
    label: str
    parameters: dict[str, Any] = field(default_factory=dict)


OPTION_PROBES: tuple[OptionProbe, ...] = (
    OptionProbe("random", "a uniformly random letter (seeded per item)",
                {"rng_seed": RANDOM_SEED}, lambda: h.uniform_random(RANDOM_SEED)),
    OptionProbe("longest_chars", "the longest option by characters, ties to the earliest letter",
                {"unit": "characters", "ties": "earliest letter"}, lambda: h.longest_chars),
    OptionProbe("shortest_chars", "the shortest option by characters, ties to the earliest letter",
                {"unit": "characters", "ties": "earliest letter"}, lambda: h.shortest_chars),
    OptionProbe("longest_words", "the option with most whitespace-separated words, ties to the earliest letter",
                {"unit": "words", "ties": "earliest letter"}, lambda: h.longest_words),
    OptionProbe("constant_letter", "always the letter A, whatever the options",
                {"letter": "A"}, lambda: h.constant("A"), on_variants=False),
)
CONSTANT_PROBES: tuple[ConstantProbe, ...] = (
    ConstantProbe("always_non_harmful", "labels every term non-harmful", "non-harmful"),
)
def probe_rule(subject: Mapping[str, Any]) -> str:
    """What a model-free probe does, in words, for its run page: the heuristic's description,
    or for a learned probe what it reads, how it is fitted and how it is scored."""
    name = str(subject.get("name", ""))
    probes: tuple[OptionProbe | ConstantProbe, ...] = (*OPTION_PROBES, *CONSTANT_PROBES)
    described = {p.name: p.description for p in probes}
    if name in described:
        return described[name]
    parameters = subject.get("parameters") or {}
    if "model" in parameters and "inputs" in parameters:
        return (f"{parameters['model']} over {parameters['inputs']}, evaluated {parameters.get('evaluation', '')}"
                f"; ties to the {parameters.get('ties', 'earliest letter')}")
    return ""


SCOPES: dict[str, dict[str, Any]] = {
    "all": {"selection": "all"},
    "test": {"selection": "split", "split": "test"},
}


def run_id(probe: str, task: str, scope: str, seed: int | None, variant: str = ORIGINAL) -> str:
    task_tag = "t2" if task == EQUIVALENT_SELECTION else "t3"
    seed_tag = f"-s{seed}" if seed is not None else ""
    variant_tag = "" if variant == ORIGINAL else f"-{variant}"
    return f"probe-{probe}-{task_tag}{seed_tag}-{scope}{variant_tag}"


def generate_probe_runs(dataset: Dataset, out_dir: Path, created: str,
                        variants: Mapping[str, Dataset] | None = None, learned: bool = False,
                        seeds: Sequence[int] = OFFICIAL_SEEDS) -> list[Path]:
    """Write all probe runs (on the original and each variant; option probes for each of `seeds`,
    the official ones unless a caller needs fewer); remove stale files the current probe set no
    longer makes."""
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for header, items in _all_runs(dataset, created, dict(variants or {}), learned, tuple(seeds)):
        path = out_dir / f"{header.run_id}.jsonl"
        write_run(path, header, items, Footer(len(items)))
        written.append(path)
    for stale in set(out_dir.glob("*.jsonl")) - set(written):
        stale.unlink()
    return written


def _all_runs(dataset: Dataset, created: str, variants: dict[str, Dataset],
              learned: bool, seeds: tuple[int, ...]) -> Iterator[tuple[Header, list[Item]]]:
    for variant, data in [(ORIGINAL, dataset), *sorted(variants.items())]:
        for scope, selection in SCOPES.items():
            ids = data.row_ids(selection.get("split"))
            for probe in OPTION_PROBES:
                if variant != ORIGINAL and not probe.on_variants:
                    continue
                for seed in seeds:
                    yield _option_run(data, probe, scope, selection, ids, seed, created, variant)
            if variant == ORIGINAL:  # Task 3 has no options, so a variant changes nothing
                for constant in CONSTANT_PROBES:
                    yield _constant_run(data, constant, scope, selection, ids, created)
        if learned:
            yield from _learned_runs(data, created, variant, seeds)


def _learned_runs(dataset: Dataset, created: str, variant: str,
                  seeds: tuple[int, ...]) -> Iterator[tuple[Header, list[Item]]]:
    """The learned probes: train->test everywhere. 5-fold CV of the option-only probe only on
    the original, because on a gold-pool variant held-out golds reappear as training
    distractors and n-grams memorise them; the length-only probe cannot memorise a string,
    so its CV is valid on every set."""
    # deferred: scipy loads only after `runs` checked SOURCE_DATE_EPOCH (numpy's f2py reads it at import)
    from builder.benchmarks.cibuzzbench.probes.learned import LENGTHS, PROBES, learned_probe_runs
    for probe in PROBES:
        for header, items in learned_probe_runs(dataset, seeds=seeds, created=created,
                                                variant=variant, probe=probe):
            if variant == ORIGINAL or probe == LENGTHS or header.items.get("selection") != "all":
                yield header, items


def _header(dataset: Dataset, name: str, task: str, parameters: dict[str, Any], scope: str,
            selection: dict[str, Any], n: int, seed: int | None, created: str, variant: str = ORIGINAL) -> Header:
    return new_header(
        run_id=run_id(name, task, scope, seed, variant), benchmark="cibuzzbench", task=task, condition="probe",
        subject={"kind": "probe", "name": name, "parameters": parameters},
        option_seed=seed, items={**selection, "n": n},
        dataset={"name": "CIBuzzBench", "variant": variant, "content_sha256": dataset.content_sha256},
        created=created,
    )


def _option_run(dataset: Dataset, probe: OptionProbe, scope: str, selection: dict[str, Any],
                ids: list[int], seed: int, created: str, variant: str) -> tuple[Header, list[Item]]:
    choose = probe.make()
    sets = option_sets(dataset, seed)
    items = []
    for row_id in ids:
        letter = choose(sets[row_id])
        items.append(Item(row_id=row_id, prediction=letter, letter_map=sets[row_id].letter_map))
    header = _header(dataset, probe.name, EQUIVALENT_SELECTION, probe.parameters, scope, selection,
                     len(ids), seed, created, variant)
    return header, items


def _constant_run(dataset: Dataset, probe: ConstantProbe, scope: str, selection: dict[str, Any],
                  ids: list[int], created: str) -> tuple[Header, list[Item]]:
    items = [Item(row_id=i, prediction=probe.label) for i in ids]
    header = _header(dataset, probe.name, HARMFULNESS_DETECTION, probe.parameters, scope, selection,
                     len(ids), None, created)
    return header, items
