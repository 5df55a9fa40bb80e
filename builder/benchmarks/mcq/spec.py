"""The benchmark spec file (`content/benchmarks/<name>.yaml`): schema and strict validation.

Every key is documented in docs/audit.md. Unknown keys are errors (a misspelt `doc_to_choices`
must not be silently ignored), and every problem names the file and line; all problems are
reported together.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jinja2 import meta
from jinja2.exceptions import TemplateError

from builder.core.build_scope import once
from builder.benchmarks.mcq.datafiles import DataLocation, SpecPlace, data_env_var, data_variables, parse_location  # noqa: F401 (data_env_var: re-exported)
from builder.benchmarks.mcq.fields import TARGET_KINDS, Rule, compile_rule, environment
from builder.benchmarks.mcq.spec_extras import (LabelFile, filter_rule, label_file, nested_lists, split_rule,
                                                table_delimiter)
from builder.benchmarks.mcq.spec_page import PAGE_KEYS, page_keys
from builder.benchmarks.mcq.text_options import TextOptions, text_options
from builder.core.errors import InputError, Problem
from builder.core.names import name_problem
from builder.core.yamlfile import KeyPath, line_of, load_mapping, web_link_problem
from builder.benchmarks.mcq.results.mapping import mapping_problems, results_mapping
from builder.benchmarks.mcq.shuffle import recipe

FORMATS: tuple[str, ...] = ("json", "jsonl", "csv", "tsv")
EXTENSIONS = {".json": "json", ".jsonl": "jsonl", ".ndjson": "jsonl", ".csv": "csv", ".tsv": "tsv"}
TABLES = ("csv", "tsv")  # formats read as rows of cells (csv_columns, delimiter)
TEXT_KEYS = ("name", "title", "citation", "url", "license", "language", "revision")
FIELD_KEYS = ("id", "split", "category", "group", "shuffle_key")
RULE_KEYS = ("id", "category", "group", "shuffle_key")  # a field name or a template, like the doc_to_* keys
LOCATION_KEYS = ("dataset_path", "data_dir", "dataset_env", "download")
KEYS: tuple[str, ...] = (*TEXT_KEYS, *LOCATION_KEYS, "dataset_format", "records", "nested", "csv_columns",
                         "doc_to_text", "doc_to_choice", "doc_to_target", "target_kind", *FIELD_KEYS, "test_split",
                         "train_split", "sighted", "blind", "results", "strata", "filter", "options_from_text",
                         "delimiter", "labels", *PAGE_KEYS)
REQUIRED = ("name", "dataset_path", "doc_to_text", "doc_to_choice", "doc_to_target")
FROM_TEXT = ("doc_to_text", "doc_to_choice")  # optional with options_from_text: its stem and options
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
    location: DataLocation
    dataset_format: str  # of each file (of the one member of a .zip)
    records: str | None
    nested: str | None  # the key of the list of items inside each document (parent: the document)
    csv_columns: tuple[str, ...] | None  # CSV without a header row: the columns' names
    doc_to_text: Rule
    doc_to_choice: Rule
    doc_to_target: Rule
    id: Rule | None
    split: str | None
    test_split: str | None
    train_split: str | None
    category: Rule | None
    sighted: str
    blind: str
    revision: str | None = None  # which revision of the data set the files are, and why
    # (name, rule) per stratum field of the leak split's adjusted gap; () means the category alone
    strata: tuple[tuple[str, Rule], ...] = ()
    results: Any = None  # results.mapping.ResultsMapping: the fields of `--format mapped` result files
    target_kind: str | None = None  # how doc_to_target reads (fields.TARGET_KINDS); None: unambiguous or an error
    group: Rule | None = None  # ties beyond a shared option set that every fold keeps whole (a passage, a source)
    shuffle_key: Rule | None = None  # the option shuffle's key (default: the item's id), shuffle.py
    filter: Rule | None = None  # records it renders false or empty for are skipped (counted: filtered_records)
    options_from_text: TextOptions | None = None  # a text field holding the stem and its lettered options
    split_rule: Rule | None = None  # `split` as a field name or a template (`split` keeps its text)
    delimiter: str | None = None  # a CSV/TSV file's one-character separator (None: the format's own)
    labels: LabelFile | None = None  # a plain-text file of one value per record, exposed as a field
    nested_lists: tuple[str, ...] = ()  # `nested` as parallel lists: one record per position
    quote_items: bool = True  # the page may show an item's text (spec_page.py)
    runs_page: str | None = None  # the site page holding the model runs another plug-in reads

    @property
    def shuffle_recipe(self) -> str:
        """The option shuffle named as code: `random.Random(f"{seed}:{id}")`, or with the spec's key."""
        return recipe(self.shuffle_key)

    @property
    def env_var(self) -> str:
        return self.location.env_var

    @property
    def dataset_override(self) -> str | None:
        return self.location.override

    @property
    def dataset_path(self) -> Path:
        """The first data file (or pattern): what messages name."""
        files = self.location.files()
        return files[0] if files else self.location.patterns[0]


SKIP_ENV = "BUZZPROBE_SKIP_BENCHMARKS"


def spec_files(content_dir: Path, environ: Mapping[str, str] | None = None) -> list[Path]:
    """The site's specs: content/benchmarks/<name>.yaml, in name order, less the names listed
    (comma-separated) in BUZZPROBE_SKIP_BENCHMARKS: a build without a benchmark whose data you
    have not downloaded, and the tests' builds of the committed content without third-party data."""
    skipped = {n.strip() for n in (os.environ if environ is None else environ).get(SKIP_ENV, "").split(",")}
    return sorted(p for p in (content_dir / "benchmarks").glob("*.yaml") if p.stem not in skipped)


def load_spec(path: str | Path, *, root: Path | None = None,
              environ: Mapping[str, str] | None = None, given: Path | None = None) -> Spec:
    """Read and validate a spec. A relative `dataset_path` (or `data_dir`) is relative to `root`
    (the repository, i.e. where buzzprobe runs: the current directory by default). `given` is the
    copy named on the command line (`--data`): it wins over the spec's variable. The data is read
    only inside the repository, the spec's folder and that copy (datafiles.py). Read once per build
    for the same arguments and data variables (builder.core.build_scope: a build's stages ask four times)."""
    environ = os.environ if environ is None else environ
    base = root or Path.cwd()
    key = ("spec", str(path), base, given, data_variables(environ))
    return once(key, lambda: _read_spec(Path(path), base, environ, given))


def _read_spec(path: Path, root: Path, environ: Mapping[str, str], given: Path | None) -> Spec:
    data, lines = load_mapping(path)
    problems: list[Problem] = []

    def problem(key: str, message: str) -> None:
        problems.append(Problem(str(path), message, line_of(lines, (key,)), key))

    for key in sorted(set(map(str, data)) - set(KEYS)):
        problem(key, f"unknown key (allowed: {', '.join(KEYS)})")
    _present(data, problem)
    if problems:
        raise InputError(problems)

    name = data["name"]
    _check_identity(data, problem)
    rules = _rules(data, problem)
    prompts = {key: _prompt(data.get(key, default), key, key in data, problem)
               for key, default in (("sighted", DEFAULT_SIGHTED), ("blind", DEFAULT_BLIND))}
    place = SpecPlace(root, path, line_of(lines, ("dataset_path",)), given)
    location = parse_location(data, name, place, environ, problem)
    fmt = _format(data, location, problem) if location is not None else None
    columns = _columns(data, fmt, problem)
    problems.extend(_results_problems(data, path, lines))
    strata = _strata(data.get("strata"), problem)
    extras = {**_released(data, fmt, location, problem), **page_keys(data, problem)}
    if problems or location is None or fmt is None:
        raise InputError(problems)
    if extras["options_from_text"] is not None:
        rules = {**{key: extras["options_from_text"].rule(key) for key in FROM_TEXT}, **rules}
    nested = data.get("nested")
    return Spec(path=path, name=name, title=data.get("title", name), language=data.get("language"),
                citation=data.get("citation"), url=data.get("url"), license=data.get("license"),
                location=location, dataset_format=fmt, records=data.get("records"),
                nested=nested if isinstance(nested, str) else None,
                csv_columns=columns, doc_to_text=rules["doc_to_text"], doc_to_choice=rules["doc_to_choice"],
                doc_to_target=rules["doc_to_target"], id=rules.get("id"), split=data.get("split"),
                test_split=data.get("test_split"), train_split=data.get("train_split"),
                category=rules.get("category"), sighted=prompts["sighted"], blind=prompts["blind"],
                revision=data.get("revision"), results=_results(data.get("results")),
                target_kind=data.get("target_kind"), group=rules.get("group"), shuffle_key=rules.get("shuffle_key"),
                strata=strata, nested_lists=tuple(nested) if isinstance(nested, list) else (), **extras)


def _check_identity(data: Mapping[str, Any], problem: Callable[[str, str], None]) -> None:
    """The benchmark's name (it becomes a URL), its link and the kind of target it scores."""
    if (why := name_problem(data["name"], "benchmark name")) is not None:
        problem("name", why)
    if "url" in data and (why := web_link_problem(data["url"])) is not None:
        problem("url", why)
    if data.get("target_kind", TARGET_KINDS[0]) not in TARGET_KINDS:
        problem("target_kind", f"must be one of {', '.join(TARGET_KINDS)}")


def _results_problems(data: Mapping[str, Any], path: Path, lines: dict[KeyPath, int]) -> list[Problem]:
    """The `results` mapping (how imported results name their columns), each problem at the
    line of its nested key."""
    if "results" not in data:
        return []
    return [Problem(str(path), message, line_of(lines, tuple(key.split("."))), key)
            for key, message in mapping_problems(data["results"])]


def _released(data: Mapping[str, Any], fmt: str | None, location: DataLocation | None, problem: Any) -> dict[str, Any]:
    """The keys for files as released (spec_extras.py, text_options.py), as Spec fields."""
    return {"filter": filter_rule(data["filter"], problem) if "filter" in data else None,
            "split_rule": split_rule(data["split"], problem) if "split" in data else None,
            "delimiter": table_delimiter(data, fmt, TABLES, problem),
            "labels": label_file(data["labels"], location, problem) if "labels" in data else None,
            "options_from_text": text_options(data["options_from_text"], problem) if "options_from_text" in data
            else None}


def _present(data: Mapping[str, Any], problem: Any) -> None:
    """Each required key given (options_from_text stands in for doc_to_text and doc_to_choice),
    and the keys that hold text non-empty text (`nested` may also be a list: parallel lists)."""
    for key in REQUIRED:
        if data.get(key) in (None, "") and not (key in FROM_TEXT and key not in data and "options_from_text" in data):
            problem(key, "required" + (" (or options_from_text: the field holding the stem and its lettered "
                                       "options)" if key in FROM_TEXT else ""))
    if isinstance(data.get("nested"), list):
        nested_lists(data["nested"], problem)
    for key in (*TEXT_KEYS, "records", *(("nested",) if not isinstance(data.get("nested"), list) else ()),
                *FIELD_KEYS, "test_split", "train_split", "sighted", "blind", "target_kind"):
        if key in data and not (isinstance(data[key], str) and data[key].strip()):
            problem(key, "must be non-empty text")


MAX_STRATA = 4


def _strata(value: Any, problem: Any) -> tuple[tuple[str, Rule], ...]:
    """`strata`: {name: a field name or a template}, the fields the leak split compares items
    within (its adjusted gap); absent, the category alone."""
    if value is None:
        return ()
    if not (isinstance(value, dict) and 0 < len(value) <= MAX_STRATA):
        problem("strata", f"must map 1 to {MAX_STRATA} stratum names to a field name or a template, "
                "e.g. {category: category, source: \"{{ src.split('-')[0] }}\"}")
        return ()
    found = []
    for name, rule in value.items():
        if (why := name_problem(str(name), "stratum name")) is not None:
            problem("strata", why)
            continue
        if not (isinstance(rule, str) and rule.strip()):
            problem("strata", f"stratum {name!r}: must be a field name or a template")
            continue
        try:
            found.append((str(name), compile_rule("strata", rule)))
        except ValueError as exc:
            problem("strata", f"stratum {name!r}: {exc}")
    return tuple(found)


def _results(value: Any) -> Any:
    return results_mapping(value)


def _rules(data: Mapping[str, Any], problem: Any) -> dict[str, Rule]:
    """doc_to_* and the optional id, category, group and shuffle_key: a field name or a template;
    split: a field."""
    rules = {}
    for key in ("doc_to_text", "doc_to_choice", "doc_to_target", *RULE_KEYS):
        if key not in data:
            continue
        try:
            rules[key] = compile_rule(key, data[key], allow_fields=key == "doc_to_choice")
        except ValueError as exc:
            problem(key, str(exc))
    has_split = [k for k in ("split", "test_split", "train_split") if k in data]
    if has_split and len(has_split) != 3:
        problem(has_split[0], "split, test_split and train_split go together: give all three or none")
    if "test_split" in data and data.get("test_split") == data.get("train_split"):
        problem("train_split", "must differ from test_split")
    return rules


def _format(data: Mapping[str, Any], location: DataLocation, problem: Any) -> str | None:
    """`dataset_format`, or the extension of the first path (of the name inside `.zip`: the
    archive's one member decides, so `x.json.zip` or `dataset_format` say it)."""
    if "dataset_format" in data:
        if data["dataset_format"] in FORMATS:
            return str(data["dataset_format"])
        problem("dataset_format", f"format must be one of {', '.join(FORMATS)}")
        return None
    first = location.patterns[0]
    suffixes = [s.lower() for s in first.suffixes]
    if suffixes and suffixes[-1] == ".zip":
        suffixes = suffixes[:-1]
    fmt = EXTENSIONS.get(suffixes[-1]) if suffixes else None
    if fmt is None:
        problem("dataset_path", f"cannot infer the format from {first.name!r}: set dataset_format "
                f"({', '.join(FORMATS)})")
    if "records" in data and fmt not in (None, "json"):
        problem("records", "only a JSON file has records inside an object")
    return fmt


def _columns(data: Mapping[str, Any], fmt: str | None, problem: Any) -> tuple[str, ...] | None:
    """`csv_columns`: the names of a header-less CSV's (or TSV's) columns (distinct, non-empty)."""
    if "csv_columns" not in data:
        return None
    value = data["csv_columns"]
    if fmt not in TABLES:
        problem("csv_columns", "only a CSV or TSV file has columns")
    elif not (isinstance(value, list) and value and all(isinstance(v, str) and v.strip() for v in value)) \
            or len(set(value)) != len(value):
        problem("csv_columns", "must be a list of distinct column names")
    else:
        return tuple(value)
    return None


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
