"""The Jinja2 environment: sandboxed, strict about unknown names, escaping everything by default.

Dataset text and model output are untrusted, so autoescape is on for every template
and a typo in a template fails the build instead of rendering an empty cell. Pages and
templates come from content/, which any pull request can edit, so they are rendered in
Jinja's immutable sandbox: no attribute starting with "_" (`__globals__`, `__class__`,
`__mro__`...), no function internals, no mutating a list or dict that the build passed in.
A template can read the facts it is given and nothing else of Python; trying is a build error.
"""

from __future__ import annotations

import traceback
from pathlib import Path

from jinja2 import Environment, FileSystemLoader, StrictUndefined
from jinja2.exceptions import TemplateSyntaxError
from jinja2.sandbox import SecurityError

from builder.core.errors import InputError
from builder.core.names import visible
from builder.core.textfiles import MAX_DOCUMENT_BYTES, decode_utf8, read_input
from builder.site.labels import column_label
from builder.site.limits import LimitedSandbox
from builder.site.template_cache import bytecode_cache

PAGE_SOURCE = "<template>"  # the file name Jinja gives a template made from a string (a page body)


class _Sandbox(LimitedSandbox):
    """Jinja's immutable sandbox (with render limits, builder/site/limits.py), its attribute
    verdicts remembered per (type, attribute name):
    the sandbox decides from those alone, and a 1,000-run site asks about 200,000 times."""

    def __init__(self, **options: object):
        super().__init__(**options)
        self._verdicts: dict[tuple[type, str], bool] = {}

    def is_safe_attribute(self, obj: object, attr: str, value: object) -> bool:
        known = self._verdicts.get((type(obj), attr))
        if known is None:
            known = self._verdicts[type(obj), attr] = super().is_safe_attribute(obj, attr, value)
        return known


_OPTIONS = {"autoescape": True, "keep_trailing_newline": True, "trim_blocks": True, "lstrip_blocks": True}


def make_environment(template_dir: Path, cache_dir: Path | None = None) -> Environment:
    """The site's sandbox; with `cache_dir`, compiled templates are kept there (template_cache.py)."""
    for path in sorted(template_dir.rglob("*")) if template_dir.is_dir() else ():
        if not path.is_dir():  # Jinja would block on a FIFO, read a device forever, fail on a bad byte
            _check_template(path)
    env = _Sandbox(loader=FileSystemLoader(str(template_dir)), undefined=StrictUndefined, finalize=_shown,
                   bytecode_cache=bytecode_cache(cache_dir, _Sandbox, {**_OPTIONS, "finalize": _shown.__qualname__}),
                   **_OPTIONS)
    env.filters.update(pct=fmt_pct, num=fmt_num, count=fmt_count, pvalue=fmt_p, cell=fmt_cell, datum=fmt_datum,
                       label=column_label)
    return env


def _check_template(path: Path) -> None:
    """A template file is a regular UTF-8 file within the input caps, or a located error."""
    try:
        decode_utf8(path, read_input(path, MAX_DOCUMENT_BYTES))
    except OSError as exc:
        raise InputError.single(path, f"cannot read template: {exc.strerror or exc}") from None


def _shown(value: object) -> object:
    """Every plain text a template prints (model names, dataset text, run fields): bidi controls
    and zero-width characters written out, so a name cannot reorder the page or pass for another."""
    return visible(value) if type(value) is str else value


def template_line(exc: BaseException, filename: str) -> int | None:
    """The line of the template `filename` (a path, or PAGE_SOURCE) where `exc` was raised."""
    if isinstance(exc, TemplateSyntaxError) and exc.lineno is not None and (exc.filename or PAGE_SOURCE) == filename:
        return exc.lineno
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == filename]
    return frames[-1].lineno if frames else None


def describe(exc: BaseException) -> str:
    """What went wrong while rendering, in words an author can act on."""
    if isinstance(exc, SecurityError):
        return (f"templates cannot reach Python internals ({exc}); use only the facts, tables "
                "and functions a page is given (docs/authoring.md)")
    return f"{type(exc).__name__}: {exc}" if not str(exc) or isinstance(exc, ArithmeticError) else str(exc)


def located_template_error(exc: Exception, template_dir: Path) -> InputError | None:
    """A failure inside one of content/templates/*.html as an InputError naming file and line;
    None when no template frame is involved (then it is a bug in the builder, not in content)."""
    root = str(template_dir.resolve())
    frames = [f for f in traceback.extract_tb(exc.__traceback__)
              if str(Path(f.filename).resolve()).startswith(root + "/")]
    if isinstance(exc, TemplateSyntaxError) and exc.filename:
        return InputError.single(exc.filename, f"cannot render: {describe(exc)}", line=exc.lineno)
    if not frames:
        return None
    return InputError.single(frames[-1].filename, f"cannot render: {describe(exc)}", line=frames[-1].lineno)


def fmt_num(value: float, digits: int = 2) -> str:
    """Fixed decimals; the facts stay unrounded, only their display is rounded."""
    return f"{value:,.{digits}f}"


def fmt_pct(value: float, digits: int = 1) -> str:
    return f"{value:.{digits}f}%"


def fmt_count(value: int | float) -> str:
    return f"{int(value):,}"


def fmt_p(value: float) -> str:
    """p-values: plain below 3 significant digits would read as 0.000."""
    return f"{value:.3f}" if value >= 0.001 else f"{value:.1e}"


DECIMALS = {"score": 2, "score3": 3, "num": 1, "pct": 1}  # display precision of a table cell, by kind


def cell_decimals(kind: str, digits: int | None = None) -> int:
    """Decimals of a num/pct/score cell: its own (e.g. a quoted figure's precision), else its kind's."""
    return digits if digits is not None else DECIMALS.get(kind, DECIMALS["score"])


def fmt_cell(value: float, kind: str = "score", digits: int | None = None) -> str:
    """A table cell as the page shows it."""
    if kind == "count":
        return fmt_count(value)
    if kind == "p":
        return fmt_p(value)
    if kind == "pct":
        return fmt_pct(value, cell_decimals(kind, digits))
    return fmt_num(value, cell_decimals(kind, digits))


def plain_cell(value: float, kind: str = "score", digits: int | None = None) -> str:
    """The same precision as the page, written for spreadsheets: no separators, no % sign."""
    if kind == "count":
        return str(int(value))
    if kind == "p":
        return fmt_p(value)
    return f"{value:.{cell_decimals(kind, digits)}f}"


def fmt_datum(value: object) -> str:
    """A chart's data-table value: scores at table precision, counts whole, missing as a dash."""
    if value is None:
        return "–"
    if isinstance(value, float):
        return fmt_num(value, DECIMALS["score"])
    if isinstance(value, int) and not isinstance(value, bool):
        return fmt_count(value)
    return str(value)


def plain_datum(value: object) -> object:
    """A chart value for its CSV: floats rounded like the data table, the rest unchanged."""
    return plain_cell(value) if isinstance(value, float) else value
