"""Model summaries: a model's runs that differ only in the option seed, read as one entry.

Five seeds of one model are one model measured five times, not five models; pages quote the
mean and sample sd over seeds, and one interval (from the seed-1111 run) for the uncertainty
within a seed. Paired sighted/blind comparisons are made per seed (the arms share a letter
order only within a seed) and then summarised the same way.
"""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from builder.benchmarks.cibuzzbench.analyses.paired import PairedAnalysis, prompt_version
from builder.benchmarks.cibuzzbench.analyses.run_scores import RunScore
from builder.core.names import slug
from builder.runs.selection import Selection
from builder.runs.schema import Header
from builder.benchmarks.cibuzzbench.tasks import DEFAULT_SEED

INTERVAL_SEED = DEFAULT_SEED  # its run gives the summary's interval
TASK_TAGS = {"equivalent_selection": "t2", "harmfulness_detection": "t3"}


@dataclass(frozen=True)
class ModelSummary:
    """One model on one task, condition, variant, prompt language and item selection."""

    id: str
    model: str
    task: str
    condition: str
    variant: str
    lang: str
    selection: dict  # the runs' header `items` object
    members: tuple[RunScore, ...]  # one per option seed, in seed order

    @property
    def representative(self) -> RunScore:
        """The run whose interval is quoted: seed 1111, else the first seed (or the only run)."""
        return next((m for m in self.members if m.run.header.option_seed == INTERVAL_SEED), self.members[0])

    @property
    def seeds(self) -> tuple[int | None, ...]:
        return tuple(m.run.header.option_seed for m in self.members)


@dataclass(frozen=True)
class PairSummary:
    """One model's blind (a) and sighted (b) runs, paired per option seed."""

    id: str
    blind: ModelSummary
    sighted: ModelSummary
    pairs: tuple[PairedAnalysis, ...]  # one per seed, in seed order

    @property
    def representative(self) -> PairedAnalysis:
        return next((p for p in self.pairs if p.option_seed == INTERVAL_SEED), self.pairs[0])

    @property
    def model(self) -> str:
        return self.blind.model

    @property
    def subject(self) -> str:
        """The model's own name (one model may have several summaries: other items, tools)."""
        return self.blind.members[0].run.header.subject_name


def summary_key(header: Header) -> tuple:
    """Everything but the option seed (and the run id) that decides what a run measured: a
    20-item import from lm-eval and a 50-item probe of one model are two entries, never one."""
    return (header.subject_name, header.task, header.condition, header.variant, run_lang(header),
            json.dumps(header.items, sort_keys=True), header.dataset.get("content_sha256"),
            prompt_version(header), header.made_by)


def model_label(header: Header) -> str:
    """The model as tables name it; an imported run says which tool made it, so a probe run and
    an lm-eval import of one model read as two rows, not as one row twice."""
    return f"{header.subject_label} ({header.made_by} import)" if header.made_by else header.subject_label


def run_lang(header: Header) -> str:
    return str((header.subject.get("parameters") or {}).get("lang", "en"))


def selection_tag(items: dict) -> str:
    """all, test, n400-r1111, test-n100-r7: the run id's item tag, without the seed."""
    kind = str(items.get("selection", "all"))
    return Selection(kind, items.get("split"), items.get("n"), items.get("sample_seed")).tag


def summary_id(header: Header, with_condition: bool = True) -> str:
    parts = [slug(header.subject_name), TASK_TAGS.get(header.task, header.task)]
    if with_condition:
        parts.append(header.condition)
    parts += [run_lang(header), selection_tag(header.items)]
    if header.variant != "original":
        parts.append(header.variant.replace("_", "-"))
    if header.made_by:
        parts.append(slug(header.made_by))
    return "-".join(parts)


def summarise_models(scores: Iterable[RunScore]) -> list[ModelSummary]:
    """Model runs grouped by `summary_key`, sorted by id (ids are unique per group)."""
    groups: dict[tuple, list[RunScore]] = defaultdict(list)
    for s in scores:
        if s.run.header.subject.get("kind") == "model":
            groups[summary_key(s.run.header)].append(s)
    by_id: dict[str, list[tuple]] = defaultdict(list)
    for key in groups:
        by_id[summary_id(groups[key][0].run.header)].append(key)
    out: dict[str, ModelSummary] = {}
    for sid, keys in by_id.items():
        for key in keys:
            members = sorted(groups[key], key=lambda m: (m.run.header.option_seed or 0, m.run_id))
            h = members[0].run.header
            # Names that slug alike (or one name over two datasets): each id gets a hash of its
            # own group's key, so which group reads which id never depends on the runs' order.
            own = sid if len(keys) == 1 else f"{sid}-{_key_hash(key)}"
            out[own] = ModelSummary(own, model_label(h), h.task, h.condition, h.variant, run_lang(h),
                                    dict(h.items), tuple(members))
    return [out[k] for k in sorted(out)]


def _key_hash(key: tuple) -> str:
    return hashlib.sha256(json.dumps(key, ensure_ascii=True).encode()).hexdigest()[:8]


def summarise_pairs(models: list[ModelSummary], pairs: Iterable[PairedAnalysis]) -> list[PairSummary]:
    """Per-seed pairs grouped under the blind and sighted summaries their runs belong to."""
    owner = {m.run_id: s for s in models for m in s.members}
    groups: dict[tuple[str, str], list[PairedAnalysis]] = defaultdict(list)
    for p in pairs:
        if p.run_a in owner and p.run_b in owner:
            groups[(owner[p.run_a].id, owner[p.run_b].id)].append(p)
    by_id = {m.id: m for m in models}
    plain = {ids: summary_id(by_id[ids[0]].representative.run.header, with_condition=False) for ids in groups}
    taken: defaultdict[str, int] = defaultdict(int)
    for pid in plain.values():
        taken[pid] += 1
    out: dict[str, PairSummary] = {}
    for (blind_id, sighted_id), members in sorted(groups.items()):
        members.sort(key=lambda p: (p.option_seed or 0, p.run_a, p.run_b))
        pid = plain[blind_id, sighted_id]
        if taken[pid] > 1:  # as for models: an id of its own, whatever else is there
            pid = f"{pid}-{_key_hash((blind_id, sighted_id))}"
        out[pid] = PairSummary(pid, by_id[blind_id], by_id[sighted_id], tuple(members))
    return [out[k] for k in sorted(out)]
