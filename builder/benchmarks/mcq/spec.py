"""The benchmark spec file (`content/benchmarks/<name>.yaml`): schema and strict validation.

Every key is documented in docs/audit.md. Unknown keys are errors (a misspelt `doc_to_choices`
must not be silently ignored), and every problem names the file and line; all problems are
reported together.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jinja2 import meta
from jinja2.exceptions import TemplateError

from builder.benchmarks.mcq.fields import Rule, compile_rule, environment
from builder.core.errors import InputError, Problem
from builder.core.names import name_problem
from builder.core.yamlfile import line_of, load_mapping, web_link_problem

FORMATS: tuple[str, ...] = ("json", "jsonl", "csv")
_EXTENSIONS = {".json": "json", ".jsonl": "jsonl", ".ndjson": "jsonl", ".csv": "csv"}
TEXT_KEYS = ("name", "title", "citation", "url", "license", "language")
FIELD_KEYS = ("id", "split", "category")
KEYS: tuple[str, ...] = (*TEXT_KEYS, "dataset_path", "dataset_format", "records", "doc_to_text",
                         "doc_to_choice", "doc_to_target", *FIELD_KEYS, "test_split", "train_split",
                         "sighted", "blind", "results")
REQUIRED = ("name", "dataset_path", "doc_to_text", "doc_to_choice", "doc_to_target")
PROMPT_VARIABLES = frozenset({"question", "options", "letters"})

DEFAULT_SIGHTED = ("Answer the following multiple-choice question.\n\n{{ question }}\n\n"
                   "Options:\n{{ options }}\n\nAnswer with only the letter of the correct option ({{ letters }}).")
DEFAULT_BLIND = ("The question of this multiple-choice item is withheld; only its options are shown. "
                 "Exactly one option is the correct answer to the hidden question.\n\n"
                 "Options:\n{{ options }}\n\nAnswer with only the letter of the option most likely to be "
                 "correct ({{ letters }}).")


@dataclass(frozen=True)
class Spec:
    """A validated spec; `dataset_path` is resolved (the environment override applied)."""

    path: Path
    name: str
    title: str
    language: str | None
    citation: str | None
    url: str | None
    license: str | None
    dataset_path: Path
    dataset_override: str | None  # the environment variable that named the file, if any
    dataset_format: str
    records: str | None
    doc_to_text: Rule
    doc_to_choice: Rule
    doc_to_target: Rule
    id: str | None
    split: str | None
    test_split: str | None
    train_split: str | None
    category: str | None
    sighted: str
    blind: str
    results: Any = None  # results.mapping.ResultsMapping: the fields of `--format mapped` result files

    @property
    def env_var(self) -> str:
        return data_env_var(self.name)


def spec_files(content_dir: Path) -> list[Path]:
    """The site's specs: content/benchmarks/<name>.yaml, in name order."""
    return sorted((content_dir / "benchmarks").glob("*.yaml"))


def data_env_var(name: str) -> str:
    """`BUZZPROBE_DATA_<NAME>`: upper case, `-` as `_` (names are already [a-z0-9_-])."""
    return "BUZZPROBE_DATA_" + name.upper().replace("-", "_")


def load_spec(path: str | Path, *, root: Path | None = None,
              environ: Mapping[str, str] | None = None) -> Spec:
    """Read and validate a spec. A relative `dataset_path` is relative to `root` (the
    repository, i.e. where buzzprobe runs: the current directory by default)."""
    path = Path(path)
    data, lines = load_mapping(path)
    environ = os.environ if environ is None else environ
    problems: list[Problem] = []

    def problem(key: str, message: str) -> None:
        problems.append(Problem(str(path), message, line_of(lines, (key,)), key))

    for key in sorted(set(map(str, data)) - set(KEYS)):
        problem(key, f"unknown key (allowed: {', '.join(KEYS)})")
    for key in REQUIRED:
        if data.get(key) in (None, ""):
            problem(key, "required")
    for key in (*TEXT_KEYS, "dataset_path", "records", *FIELD_KEYS, "test_split", "train_split", "sighted", "blind"):
        if key in data and not (isinstance(data[key], str) and data[key].strip()):
            problem(key, "must be non-empty text")
    if problems:
        raise InputError(problems)

    name = data["name"]
    if (why := name_problem(name, "benchmark name")) is not None:
        problem("name", why)
    if "url" in data and (why := web_link_problem(data["url"])) is not None:
        problem("url", why)
    rules = {}
    for key in ("doc_to_text", "doc_to_choice", "doc_to_target"):
        try:
            rules[key] = compile_rule(key, data[key], allow_fields=key == "doc_to_choice")
        except ValueError as exc:
            problem(key, str(exc))
    for key in ("id", "split", "category"):
        if key in data and "{" in data[key]:
            problem(key, "must be a field name (templates are allowed only in doc_to_*)")
    has_split = [k for k in ("split", "test_split", "train_split") if k in data]
    if has_split and len(has_split) != 3:
        problem(has_split[0], "split, test_split and train_split go together: give all three or none")
    if "test_split" in data and data.get("test_split") == data.get("train_split"):
        problem("train_split", "must differ from test_split")
    prompts = {key: _prompt(data.get(key, default), key, key in data, problem)
               for key, default in (("sighted", DEFAULT_SIGHTED), ("blind", DEFAULT_BLIND))}
    dataset, override = _dataset_path(data["dataset_path"], name, root, environ)
    fmt = data.get("dataset_format") or _EXTENSIONS.get(dataset.suffix.lower())
    if fmt not in FORMATS:
        problem("dataset_format" if "dataset_format" in data else "dataset_path",
                f"format must be one of {', '.join(FORMATS)}" if "dataset_format" in data else
                f"cannot infer the format from {dataset.name!r}: set dataset_format ({', '.join(FORMATS)})")
    if "results" in data:
        from builder.benchmarks.mcq.results.mapping import mapping_problems
        for key, message in mapping_problems(data["results"]):
            problems.append(Problem(str(path), message, line_of(lines, tuple(key.split("."))), key))
    if "records" in data and fmt != "json":
        problem("records", "only a JSON file has records inside an object")
    if problems:
        raise InputError(problems)
    return Spec(path=path, name=name, title=data.get("title", name), language=data.get("language"),
                citation=data.get("citation"), url=data.get("url"), license=data.get("license"),
                dataset_path=dataset, dataset_override=override, dataset_format=fmt, records=data.get("records"),
                doc_to_text=rules["doc_to_text"], doc_to_choice=rules["doc_to_choice"],
                doc_to_target=rules["doc_to_target"], id=data.get("id"), split=data.get("split"),
                test_split=data.get("test_split"), train_split=data.get("train_split"),
                category=data.get("category"), sighted=prompts["sighted"], blind=prompts["blind"],
                results=_results(data.get("results")))


def _results(value: Any) -> Any:
    from builder.benchmarks.mcq.results.mapping import results_mapping
    return results_mapping(value)


def _dataset_path(value: str, name: str, root: Path | None,
                  environ: Mapping[str, str]) -> tuple[Path, str | None]:
    var = data_env_var(name) if name_problem(name) is None else None
    if var and environ.get(var):
        return Path(environ[var]), var
    path = Path(value)
    return (path if path.is_absolute() else (root or Path.cwd()) / path), None


def _prompt(text: str, key: str, given: bool, problem: Any) -> str:
    """A prompt template may use only {{ question }}, {{ options }} and {{ letters }}; the
    blind one may not use the question (it is withheld) and both must list the options."""
    if not given:
        return text
    try:
        used = meta.find_undeclared_variables(environment().parse(text))
    except TemplateError as exc:
        problem(key, f"template does not compile: {exc}")
        return text
    unknown = sorted(used - PROMPT_VARIABLES)
    if unknown:
        problem(key, f"unknown name(s) {', '.join(unknown)}; a prompt can use {', '.join(sorted(PROMPT_VARIABLES))}")
    if "options" not in used:
        problem(key, "must show the options: use {{ options }}")
    if key == "blind" and "question" in used:
        problem(key, "the blind prompt withholds the question: it cannot use {{ question }}")
    return text
