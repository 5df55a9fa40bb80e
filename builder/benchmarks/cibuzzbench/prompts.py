"""CIBuzzBench's prompts: its protocol file and the rules it must follow, and one item's request
(the messages sent and what is needed to parse and record the answer)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from builder.benchmarks.cibuzzbench.dataset.cibuzzbench import Dataset
from builder.benchmarks.cibuzzbench.dataset.options import option_sets
from builder.benchmarks.cibuzzbench.parsing import parse_harmfulness, parse_letter
from builder.probing.jobs import ANSWER, Job, Reply
from builder.benchmarks.cibuzzbench.tasks import EQUIVALENT_SELECTION, HARMFULNESS_DETECTION
from builder.core.paths import REPO_DIR
from builder.probing import protocols
from builder.probing.protocols import Protocol, ProtocolRules
from builder.benchmarks.cibuzzbench.run_format import Item

DEFAULT_PROTOCOLS = REPO_DIR / "content" / "protocols" / "cibuzzbench.yaml"
# Which placeholders each (task, condition) must use: the blind prompt must never see the term.
RULES = ProtocolRules(
    placeholders={
        (EQUIVALENT_SELECTION, "sighted"): frozenset({"term_zh", "options"}),
        (EQUIVALENT_SELECTION, "blind"): frozenset({"options"}),
        (HARMFULNESS_DETECTION, "sighted"): frozenset({"term_zh"}),
    },
    langs=("en", "zh"),
)


def load_protocols(path: str | Path = DEFAULT_PROTOCOLS) -> dict[str, Protocol]:
    """CIBuzzBench's protocols (content/protocols/cibuzzbench.yaml unless told), checked by its rules."""
    return protocols.load_protocols(path, RULES)


@dataclass(frozen=True)
class ItemPrompt:
    row_id: int
    messages: list[dict[str, str]]
    letter_map: dict[str, str] | None  # Task 2: letter -> option source, as shown
    parse: Callable[[str], str]  # raw response -> label or ""

    def job(self) -> Job:
        """The probing engine's job: one request, its reply parsed into a run item (a request
        that failed after its retries gives an unparsed item with the error, counted wrong)."""
        def finish(replies: dict[str, Reply]) -> Item:
            reply = replies[ANSWER]
            if reply.content is None:
                return Item(row_id=self.row_id, prediction="", letter_map=self.letter_map, error=reply.error)
            return Item(row_id=self.row_id, prediction=self.parse(reply.content), response=reply.content,
                        letter_map=self.letter_map, latency_ms=reply.latency_ms, usage=reply.usage,
                        response_truncated=reply.truncated or None)
        return Job(self.row_id, ((ANSWER, self.messages),), finish)


def prompt_builder(dataset: Dataset, protocol: Protocol, seed: int | None) -> Callable[[int], ItemPrompt]:
    """A function row_id -> ItemPrompt for one run (options shuffled with the run's seed)."""
    terms = dataset.column("term_zh")
    if protocol.task != EQUIVALENT_SELECTION:
        return lambda row_id: ItemPrompt(row_id, protocol.messages(term_zh=terms[row_id]), None, parse_harmfulness)
    if seed is None:
        raise ValueError("equivalent_selection needs an option seed")
    sets = option_sets(dataset, seed)

    def build(row_id: int) -> ItemPrompt:
        options = sets[row_id]
        texts = {o.letter: o.text for o in options.options}
        values = {"term_zh": terms[row_id], "options": options.as_prompt_lines()}
        return ItemPrompt(row_id, protocol.messages(**values), dict(options.letter_map),
                          lambda response: parse_letter(response, texts))
    return build
