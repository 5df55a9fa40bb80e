"""A spec'd benchmark's run checked against the data it claims: content hash, the selection its
header declares (a finished run every declared item), each record's id, the seeded letter map
(or, for an import, the published order) and real numbers; the checks every CIBuzzBench run gets.
An imported item's own revision (its file's question, options or gold) is checked against the
data and against the header's revision summary (results/revision.py): only what the header
declares may differ."""

from __future__ import annotations

from typing import Any

from builder.benchmarks.mcq import shuffle
from builder.benchmarks.mcq.fields import LETTERS
from builder.benchmarks.mcq.load import SpecData
from builder.benchmarks.mcq.choice_set import ChoiceSet
from builder.benchmarks.mcq.results.revision import revision_problem, summary_problem
from builder.benchmarks.mcq.run_format import ChoiceItem
from builder.core.errors import Problem
from builder.core.redact import excerpt
from builder.runs.checks import (declared_row_ids, footer_problems, no_items_problem, number_problems,
                                 outside_selection, parameters_problems, selection_text)
from builder.runs.schema import Run


def run_problems(run: Run, benchmark: SpecData, data: ChoiceSet) -> list[Problem]:
    """A run must be made on this data (content hash), hold exactly the selection its header
    declares (a finished run every declared item), show each item as the seeded shuffle does and
    record real numbers: the checks every CIBuzzBench run gets, so a sample cut to its correct
    items cannot be published as a complete run."""
    made_on = run.header.dataset.get("content_sha256")
    if made_on != benchmark.content_sha256:
        return [Problem(run.path, f"made on other data than {benchmark.data.path} ({made_on} vs "
                        f"{benchmark.content_sha256})", 1, "dataset.content_sha256")]
    declared, problems = declared_row_ids(run, data)
    if declared is not None:
        problems += no_items_problem(run) + footer_problems(run, declared) + outside_selection(
            run, declared, lambda row_id: _outside_message(run, row_id, benchmark, data))
    problems += parameters_problems(run) + _summary_problems(run)
    return problems + _item_problems(run, benchmark, data, declared or set())


def _summary_problems(run: Run) -> list[Problem]:
    """An import's header counts and hashes the items that differ from the data; a probed run
    has none (its gold is always the data's)."""
    if run.header.source is None:
        return [Problem(run.path, "only an imported run may carry an item's own revision", run.item_lines.get(i.row_id),
                        "revision") for i in run.items if i.revision is not None]
    message = summary_problem(run.header.source.get("revision"),
                              ((i.id, i.revision) for i in run.items if i.revision is not None))
    return [] if message is None else [Problem(run.path, message, 1, "source.revision")]


def _outside_message(run: Run, row_id: int, benchmark: SpecData, data: ChoiceSet) -> str:
    if row_id in data.items:
        return f"record {row_id} is outside the run's item selection ({selection_text(run)})"
    return f"record {row_id} is not an audited item of {benchmark.spec.name}"


def _prediction_problem(run: Run, prediction: str, k: int) -> str | None:
    """A probed run's prediction is one of the item's letters (the parser reads no other); an
    imported one may be any letter the publisher's extraction read (MMLU-Pro's reads A-J on
    every question), and one beyond the item's options is a wrong answer, as the upstream scores it."""
    imported = run.header.source is not None
    if prediction == "" or prediction in (LETTERS if imported else LETTERS[:k]):
        return None
    allowed = "a capital letter" if imported else f"a letter {LETTERS[0]}-{LETTERS[k - 1]}"
    return f"prediction {prediction[:20]!r} is not {allowed} (nor '' for unparsed)"


def _item_problems(run: Run, benchmark: SpecData, data: ChoiceSet, declared: set[int]) -> list[Problem]:
    problems = []
    seed = run.header.option_seed
    for item in run.items:
        line = run.item_lines.get(item.row_id)
        known = data.items.get(item.row_id)
        if known is None or item.row_id not in declared:
            continue  # said once above
        problems += number_problems(run, item.latency_ms, item.usage, line or 1)
        if (problem := _prediction_problem(run, item.prediction, len(known.choices))) is not None:
            problems.append(Problem(run.path, problem, line, "prediction"))
        if item.id != known.id:
            problems.append(Problem(run.path, f"record {item.row_id} has id {excerpt(known.id)}, not {excerpt(item.id)}",
                                    line, "id"))
        elif item.letter_map != shown_letters(seed, known.shuffle_key, shown_count(item, known)):
            how = f"the seed-{seed} shuffle" if seed is not None else "the published order (A = the first option)"
            problems.append(Problem(run.path, f"not {how} of item {excerpt(known.id)}", line, "letter_map"))
        elif item.revision is not None and (found := revision_problem(item.revision, known)) is not None:
            problems.append(Problem(run.path, found[0], line, found[1]))
    return problems


def shown_count(item: ChoiceItem, known: Any) -> int:
    """The number of options the model saw: the file's own when its revision differs."""
    return int(item.revision["k"]) if item.revision is not None else len(known.choices)


def shown_letters(seed: int | None, key: str, k: int) -> dict[str, int]:
    """The letter map a run must have: the seeded shuffle, or (an import, seed None) the published order."""
    return {LETTERS[j]: j for j in range(k)} if seed is None else letter_map(seed, key, k)


def letter_map(seed: int | None, key: str, k: int) -> dict[str, int]:
    """`key`: the item's shuffle key (Item.shuffle_key)."""
    return {LETTERS[j]: i for j, i in enumerate(shuffle.order(int(seed or 0), key, k))}

