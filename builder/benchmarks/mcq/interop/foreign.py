"""Multiple-choice samples of a task buzzprobe did not write, mapped onto a spec'd benchmark:
`buzzprobe import lm-eval|inspect PATH --benchmark NAME`.

Each sample is matched to an item of the spec by id (the harness's sample id, or the doc's field
the spec's `id` names) or else by the exact question text (the doc's field the spec's
`doc_to_text` names, any other text field of the doc, or Inspect's input); its options are
matched to the item's by text, so a harness that shows them in another order is read right.
What the model chose: lm-eval's `multiple_choice` tasks log a log-likelihood per option (the
highest is its answer, as lm-eval's `acc` counts it); Inspect's `multiple_choice()` logs the
letter its `choice()` scorer read (else the `ANSWER: X` line of the completion). The answers
then go through `import results`' own importer (mcq/results/importer.py): a run in the
published option order, each item checked against the data, an item whose options differ from
the data's kept with its own revision, a sample no item matches is a located error.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from builder.interop.harness import HarnessOutput, HarnessSample
from builder.benchmarks.mcq.choice_set import ChoiceSet
from builder.benchmarks.mcq.fields import LETTERS
from builder.benchmarks.mcq.load import Item
from builder.benchmarks.mcq.results.importer import Imported, Origin, answer_problems, convert_answers
from builder.benchmarks.mcq.results.sources import Answer, Element, Source
from builder.core.errors import InputError, Problem
from builder.core.names import check_name, slug
from builder.core.redact import excerpt
from builder.core.textfiles import read_input

_ANSWER_LINE = re.compile(r"ANSWER\s*:\s*\(?([A-Z])\b")


class _Unmatched(Exception):
    """A sample that cannot be mapped; the message says why, the field where."""

    def __init__(self, field: str, message: str):
        super().__init__(message)
        self.field = field


def convert_foreign(output: HarnessOutput, data: ChoiceSet, created: str, model: str | None = None) -> Imported:
    """One run of the spec from a foreign task's samples; every unmatched sample located."""
    index = _Index(data)
    answers, problems = [], []
    for number, sample in enumerate(output.samples, start=1):
        element = Element(str(output.path), sample.line, number, sample.raw)
        try:
            answers.append(_answer(output.harness, sample, element, index))
        except _Unmatched as exc:
            problems.append(Problem(str(output.path), str(exc), sample.line, _field(output.harness, sample, exc.field)))
    problems += answer_problems(answers, data)
    if problems:
        raise InputError(problems)
    source = Source(output.path, _sha256(output.path), None, tuple(a.element for a in answers))
    origin = Origin(output.harness, file=output.path.name,
                    prompt_setting=f"{output.harness} task {output.task_name}'s own prompt")
    name = model or output.model
    imported = convert_answers(answers, [], source, data, name, origin, output.created or created)
    h = imported.run.header
    run_id = check_name(f"{output.harness}-{slug(name)}-{data.benchmark.spec.name}-{slug(output.task_name)}", "run id")
    parameters = {**h.subject["parameters"], "source": output.source, "task": output.task_name,
                  "endpoint_host": output.endpoint_host}
    header = replace(h, run_id=run_id, subject={**h.subject, "parameters": parameters})
    return replace(imported, run=replace(imported.run, header=header))


def _field(harness: str, sample: HarnessSample, name: str) -> str:
    """Where in the log: an lm-eval line's own key (its id and question are the `doc`'s), an
    Inspect sample by its id."""
    if harness == "lm-eval":
        return "doc" if name in ("id", "question") else name
    return f"{sample.where}{name}"


def _sha256(path: Path) -> str:
    return hashlib.sha256(read_input(path)).hexdigest()


class _Index:
    """The spec's items by id and by question text (a text two items share matches neither)."""

    def __init__(self, data: ChoiceSet):
        self.spec = data.benchmark.spec
        self.by_id: dict[str, Item] = {item.id: item for item in data.items.values()}
        stems: dict[str, list[Item]] = {}
        for item in data.items.values():
            stems.setdefault(item.stem.strip(), []).append(item)
        self.by_text = {text: found[0] for text, found in stems.items() if len(found) == 1}
        self.shared = {text for text, found in stems.items() if len(found) > 1}

    def find(self, ids: list[str], texts: list[str]) -> Item:
        for value in ids:
            if value in self.by_id:
                return self.by_id[value]
        for text in texts:
            if text.strip() in self.by_text:
                return self.by_text[text.strip()]
        if any(text.strip() in self.shared for text in texts):
            raise _Unmatched("question", "its question is the text of several items of "
                             f"{self.spec.name}: give ids to tell them apart")
        raise _Unmatched("id", f"no item of {self.spec.name} has its id ({excerpt(', '.join(ids) or 'none')}) "
                         f"or its question ({excerpt(texts[0] if texts else 'none')}); is it the same data set?")

    def field_values(self, doc: Mapping[str, Any], key: str) -> list[str]:
        """The doc's value of the field the spec's rule names (a template is not applied)."""
        rule = getattr(self.spec, key)
        if rule is None or rule.kind != "field" or rule.fields[0] not in doc:
            return []
        return [str(doc[rule.fields[0]])]


def _answer(harness: str, sample: HarnessSample, element: Element, index: _Index) -> Answer:
    read = _lm_eval if harness == "lm-eval" else _inspect
    ids, texts, choices, chosen, gold, response = read(sample, index)
    item = index.find(list(dict.fromkeys(ids)), texts)
    published = [c.strip() for c in item.choices]
    shown = [c.strip() for c in choices]
    if sorted(shown) == sorted(published) and len(set(shown)) == len(shown):
        order = [published.index(c) for c in shown]  # the published index of each option shown
        letter = LETTERS[order[chosen]] if chosen is not None else ""
        return Answer(element, item.id, response, letter)
    if gold is None:
        raise _Unmatched("choices", f"its options are not those of item {excerpt(item.id)} and the log names no gold "
                         "among them")
    letter = LETTERS[chosen] if chosen is not None else ""
    return Answer(element, item.id, response, letter, None, tuple(choices), gold, gold_field="target")


def _strings(doc: Mapping[str, Any]) -> list[str]:
    return [v for v in doc.values() if isinstance(v, str)]


def _lm_eval(sample: HarnessSample, index: _Index) -> tuple[list[str], list[str], list[str], int | None,
                                                             int | None, str | None]:
    """A `multiple_choice` sample: one (context, continuation) request per option and a
    log-likelihood per option; the answer is the option with the highest."""
    raw: dict[str, Any] = sample.raw if isinstance(sample.raw, dict) else {}
    found = raw.get("doc")
    doc: dict[str, Any] = found if isinstance(found, dict) else {}
    arguments = raw.get("arguments")
    requests = list(arguments.values()) if isinstance(arguments, dict) else []
    choices = [r.get("arg_1") for r in requests if isinstance(r, dict)]
    if not choices or not all(isinstance(c, str) for c in choices) or len(choices) != len(requests):
        raise _Unmatched("arguments", "not a multiple_choice task's sample (one request per option, each an option's "
                         "text): only lm-eval's multiple_choice output type can be mapped onto a spec")
    scores = _likelihoods(raw.get("filtered_resps"), len(choices))
    chosen = max(range(len(scores)), key=lambda i: scores[i]) if scores else None
    target = raw.get("target")
    gold = int(target) if isinstance(target, (int, str)) and str(target).isdigit() else None
    ids = index.field_values(doc, "id") + [str(doc[k]) for k in ("id", "question_id") if k in doc]
    texts = index.field_values(doc, "doc_to_text") + _strings(doc)
    return ids, texts, [str(c) for c in choices], chosen, gold, LETTERS[chosen] if chosen is not None else None


def _likelihoods(value: Any, k: int) -> list[float]:
    """lm-eval logs [log-likelihood, is_greedy] per option (as strings in samples files)."""
    if not isinstance(value, list) or len(value) != k:
        raise _Unmatched("filtered_resps", f"expected a log-likelihood for each of the {k} options")
    found = []
    for pair in value:
        first = pair[0] if isinstance(pair, list) and pair else pair
        try:
            found.append(float(first))
        except (TypeError, ValueError):
            raise _Unmatched("filtered_resps", f"{excerpt(str(first))} is not a log-likelihood") from None
    return found


def _inspect(sample: HarnessSample, index: _Index) -> tuple[list[str], list[str], list[str], int | None,
                                                            int | None, str | None]:
    """A `multiple_choice()` sample: its choices, and the letter its scorer read."""
    raw: dict[str, Any] = sample.raw if isinstance(sample.raw, dict) else {}
    choices = raw.get("choices")
    if not isinstance(choices, list) or not choices or not all(isinstance(c, str) for c in choices):
        raise _Unmatched("choices", "the sample has no choices: only multiple-choice samples can be mapped onto a spec")
    texts = [str(raw["input"])] if isinstance(raw.get("input"), str) else \
        [str(m.get("content")) for m in sample.messages or [] if isinstance(m.get("content"), str)]
    letter = _inspect_letter(raw, sample.response, len(choices))
    target = raw.get("target")
    gold = LETTERS.index(target) if isinstance(target, str) and target in LETTERS[:len(choices)] else None
    return [str(raw.get("id"))], texts, choices, LETTERS.index(letter) if letter else None, gold, sample.response


def _inspect_letter(raw: Mapping[str, Any], response: str | None, k: int) -> str:
    """The letter a scorer recorded as the answer, else the completion's `ANSWER: X`; "" unparsed."""
    scores = raw.get("scores")
    for score in scores.values() if isinstance(scores, dict) else ():
        answer = score.get("answer") if isinstance(score, dict) else None
        if isinstance(answer, str) and answer.strip() in LETTERS[:k]:
            return answer.strip()
    found = _ANSWER_LINE.search(response or "")
    return found.group(1) if found and found.group(1) in LETTERS[:k] else ""
