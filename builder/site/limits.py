"""Limits for sandboxed templates: time, output size, and what one operator may build.

Jinja's sandbox keeps a template away from Python, not from the machine: a six-line spec
built a 100 MB page at 2.3 GB, and two nested `range` loops hung the build. Every template the
build renders from content/ or a spec (pages, site templates, `doc_to_*`, probe prompts) is a
LimitedTemplate of a LimitedSandbox, so a render that runs too long, writes too much, or asks an
operator or filter for a huge string, list or number stops with an error naming its line.
"""

from __future__ import annotations

import re
import signal
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from jinja2 import Template
from jinja2.sandbox import ImmutableSandboxedEnvironment

RENDER_SECONDS = 20.0  # one render (a page with everything it includes); legitimate ones take milliseconds
MAX_OUTPUT = 16_000_000  # characters of one render (the largest page of a 1,000-run site is under 1 MB)
MAX_BUILT = 1_000_000  # items or characters one `*`, `%` or padding filter may make
MAX_BITS = 100_000  # bits of an integer one `*` or `**` may make
_WIDTH = re.compile(r"%[-#0 +]*(\d+)?(?:\.(\d+))?")  # printf width and precision
_FIELD_WIDTH = re.compile(r"\{[^{}]*:[^{}]*?(\d+)")  # str.format field widths
_PADDING_FILTERS = ("center", "indent", "wordwrap", "truncate", "format")


class TemplateLimit(Exception):
    """A template went over one of the limits above."""


class _Clock(threading.local):
    deadline: float | None = None


_CLOCK = _Clock()


def _on_alarm(signum: int, frame: Any) -> None:
    raise TemplateLimit(f"rendering took longer than {RENDER_SECONDS:g} s (a loop too long for a page?)")


@contextmanager
def render_deadline(seconds: float | None = None) -> Iterator[None]:
    """Interrupt the outermost render after `seconds` (SIGALRM in the main thread; elsewhere the
    output and operator limits still hold). Nested renders share the outer deadline."""
    if _CLOCK.deadline is not None or threading.current_thread() is not threading.main_thread():
        yield
        return
    seconds = RENDER_SECONDS if seconds is None else seconds
    previous = signal.signal(signal.SIGALRM, _on_alarm)
    _CLOCK.deadline = time.monotonic() + seconds
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        _CLOCK.deadline = None


class LimitedTemplate(Template):
    """render() streams the output, counting it, under the render deadline."""

    def render(self, *args: Any, **kwargs: Any) -> str:
        with render_deadline():
            parts, size = [], 0
            chunks = self.generate(*args, **kwargs)
            for part in chunks:
                size += len(part)
                if size > MAX_OUTPUT:  # raised where the template stands, so the error names its line
                    chunks.throw(TemplateLimit(f"the output is over {MAX_OUTPUT:,} characters"))
                parts.append(part)
            return "".join(parts)


def _check_built(operator: str, left: Any, right: Any) -> None:
    if operator == "*":
        for seq, times in ((left, right), (right, left)):
            if isinstance(seq, (str, list, tuple)) and isinstance(times, int) and len(seq) * times > MAX_BUILT:
                raise TemplateLimit(f"'*' would make {len(seq) * times:,} items (at most {MAX_BUILT:,})")
        if isinstance(left, int) and isinstance(right, int) and left.bit_length() + right.bit_length() > MAX_BITS:
            raise TemplateLimit(f"'*' would make an integer of more than {MAX_BITS:,} bits")
    elif operator == "**" and isinstance(left, int) and isinstance(right, int) and abs(left) > 1:
        if right > 0 and right * left.bit_length() > MAX_BITS:
            raise TemplateLimit(f"'**' would make an integer of more than {MAX_BITS:,} bits")
    elif operator == "%" and isinstance(left, str):
        _check_printf(left)


def _check_printf(text: str) -> None:
    for width, precision in _WIDTH.findall(text):
        if max(int(width or 0), int(precision or 0)) > MAX_BUILT:
            raise TemplateLimit(f"a format width of more than {MAX_BUILT:,}")


def _padding_guard(name: str, real: Any, takes_value: bool = True) -> Any:
    """`real` refusing an integer argument over MAX_BUILT (a width, a count of spaces)."""
    def guarded(*args: Any, **kwargs: Any) -> Any:
        numbers = [a for a in (*args[takes_value:], *kwargs.values()) if isinstance(a, int)]
        if numbers and max(numbers) > MAX_BUILT:
            raise TemplateLimit(f"{name!r} asked for more than {MAX_BUILT:,} characters")
        if name == "format" and args and isinstance(args[0], str):
            _check_printf(args[0])
        return real(*args, **kwargs)
    guarded.__name__ = getattr(real, "__name__", name)
    for flag in ("jinja_pass_arg",):  # keep how Jinja passes the environment or context
        if hasattr(real, flag):
            setattr(guarded, flag, getattr(real, flag))
    return guarded


class LimitedSandbox(ImmutableSandboxedEnvironment):
    """Jinja's immutable sandbox with the limits above; its templates are LimitedTemplates."""

    template_class = LimitedTemplate
    intercepted_binops = frozenset(["*", "**", "%"])

    def __init__(self, **options: Any):
        super().__init__(**options)
        for name in _PADDING_FILTERS:
            self.filters[name] = _padding_guard(name, self.filters[name])

    def call_binop(self, context: Any, operator: str, left: Any, right: Any) -> Any:
        _check_built(operator, left, right)
        return super().call_binop(context, operator, left, right)

    def wrap_str_format(self, value: Any) -> Any:
        """str.format and format_map: no field wider than MAX_BUILT."""
        wrapped = super().wrap_str_format(value)
        if wrapped is None:
            return None
        if any(int(n) > MAX_BUILT for n in _FIELD_WIDTH.findall(value.__self__)):
            raise TemplateLimit(f"a format width of more than {MAX_BUILT:,}")
        return _padding_guard("str.format", wrapped, takes_value=False)  # a width can come as an argument too
