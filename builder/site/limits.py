"""Limits for sandboxed templates: time, output size, and what one operation may build.

Jinja's sandbox keeps a template away from Python, not from the machine: a six-line spec
built a 100 MB page at 2.3 GB, two nested `range` loops hung the build, and 28 doublings with
`~` took 4.4 GB. Every template the build renders from content/ or a spec (pages, site
templates, `doc_to_*`, probe prompts) is a LimitedTemplate of a LimitedSandbox: every render
runs under a render budget of time and characters made (render_budget.py: one per page, one per
spec over all its records), and every operator, filter, method call and global that builds a
string, list or range is weighed (growth.py), so a render that runs too long, writes too much,
or asks for a huge value stops with an error naming its line.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any, cast

from jinja2 import Template
from jinja2.compiler import CodeGenerator, Frame, optimizeconst
from jinja2 import nodes
from jinja2.sandbox import ImmutableSandboxedEnvironment
from jinja2.utils import generate_lorem_ipsum

from builder.site import growth
from builder.site.growth import MAX_BITS, MAX_BUILT, MAX_RESULT  # noqa: F401 (re-exported)
from builder.site.render_budget import TemplateLimit, render_budget, running

RENDER_SECONDS = 20.0  # one page (with everything it includes); legitimate ones take milliseconds
MAX_OUTPUT = MAX_RESULT  # characters of one render (the largest page of a 1,000-run site is under 1 MB)
PAGE_CHARS = 64_000_000  # characters one page's render may make in all (output and what it built)
_STR_PADDING = ("center", "ljust", "rjust", "zfill")


class LimitedTemplate(Template):
    """render() streams the output, counting it, under the open render budget (or a page's own)."""

    def render(self, *args: Any, **kwargs: Any) -> str:
        with render_budget("this page", RENDER_SECONDS, PAGE_CHARS) as budget, running(budget):
            parts, size = [], 0
            chunks = cast(Generator[str, None, None], self.generate(*args, **kwargs))  # typed as an Iterator
            for part in chunks:
                size += len(part)
                try:  # raised where the template stands, so the error names its line
                    if size > MAX_OUTPUT:
                        raise TemplateLimit(f"the output is over {MAX_OUTPUT:,} characters")
                    budget.charge(len(part))
                except TemplateLimit as exc:
                    chunks.throw(exc)
                parts.append(part)
            return "".join(parts)


class _WeighingCodeGenerator(CodeGenerator):
    """Jinja's code generator, except that `~` joins through the environment (Jinja calls its
    own str_join/markup_join directly, out of the sandbox's reach), so it can be weighed."""

    @optimizeconst
    def visit_Concat(self, node: nodes.Concat, frame: Frame) -> None:
        if frame.eval_ctx.volatile:
            join = "(markup_join if context.eval_ctx.volatile else str_join)"
        elif frame.eval_ctx.autoescape:
            join = "markup_join"
        else:
            join = "str_join"
        self.write("environment.joined((")
        for arg in node.nodes:
            self.visit(arg, frame)
            self.write(", ")
        self.write(f"), {join})")


def _weighed_filter(name: str, real: Any) -> Any:
    """`real` with its arguments weighed before (growth.py) and its result after."""
    skip = 1 if getattr(real, "jinja_pass_arg", None) is not None else 0  # the environment or context Jinja passes
    what = f"the {name!r} filter"

    def weighed(*args: Any, **kwargs: Any) -> Any:
        args = _filter_checks(name, args, skip, kwargs)
        return growth.made(real(*args, **kwargs), what)
    weighed.__name__ = getattr(real, "__name__", name)
    if skip:
        weighed.jinja_pass_arg = real.jinja_pass_arg  # type: ignore[attr-defined]  # Jinja's marker, read off the function
    return weighed


def _filter_checks(name: str, args: tuple[Any, ...], skip: int, kwargs: dict[str, Any]) -> tuple[Any, ...]:
    """The checks of the filters that can multiply their input; `join` gets its items as a list."""
    rest = args[skip + 1:]
    if name in ("center", "indent", "wordwrap", "truncate", "batch", "slice", "format"):
        growth.check_numbers(repr(name), (*rest, *kwargs.values()))
    value = args[skip] if len(args) > skip else None
    what = f"the {name!r} filter"
    if name == "join" and value is not None:  # with `attribute`, each item weighs at least what it holds
        items = list(value)
        growth.check_join(items, rest[0] if rest else kwargs.get("d", ""), what)
        return (*args[:skip], items, *rest)
    if name == "replace" and len(rest) >= 2:
        growth.check_replace(value, rest[0], rest[1], rest[2] if len(rest) > 2 else kwargs.get("count"), what)
    elif name == "indent":
        width = rest[0] if rest else kwargs.get("width", 4)
        growth.check_lines(value, len(width) if isinstance(width, str) else width, what)
    elif name == "wordwrap":
        wrap = rest[3] if len(rest) > 3 else kwargs.get("wrapstring")
        growth.check_lines(value, len(wrap) if isinstance(wrap, str) else 2, what, rest[0] if rest else kwargs.get("width", 79))
    elif name == "format" and isinstance(value, str):
        growth.check_format(value, (*rest, *kwargs.values()), what)
    elif name == "tojson":
        growth.check_indent(rest[0] if rest else kwargs.get("indent"), what)
    elif name == "sum" and value is not None:
        items = list(value)
        growth.check_sum(items, rest[1] if len(rest) > 1 else kwargs.get("start", 0), what)
        return (*args[:skip], items, *rest)
    return args


class LimitedSandbox(ImmutableSandboxedEnvironment):
    """Jinja's immutable sandbox with the limits above; its templates are LimitedTemplates."""

    template_class = LimitedTemplate
    code_generator_class = _WeighingCodeGenerator
    intercepted_binops = frozenset(["+", "*", "**", "%"])

    def __init__(self, **options: Any):
        super().__init__(**options)
        self.filters = {name: _weighed_filter(name, f) for name, f in self.filters.items()}

    def joined(self, parts: tuple[Any, ...], join: Any) -> Any:
        """`~` (see _WeighingCodeGenerator)."""
        return growth.joined(parts, join)

    @staticmethod
    def concat(parts: Any) -> str:
        """A block's captured output (`{% set %}...{% endset %}`, a macro, `{% filter %}`)."""
        return growth.made("".join(parts), "a block")

    def call_binop(self, context: Any, operator: str, left: Any, right: Any) -> Any:
        growth.check_binop(operator, left, right)
        return growth.made(super().call_binop(context, operator, left, right), repr(operator))

    def call(__self, __context: Any, __obj: Any, *args: Any, **kwargs: Any) -> Any:  # noqa: N805 (Jinja's names)
        """Every call a template makes (functions, methods, macros, globals such as `lipsum`
        and `range`): weighed before where it can multiply, and its result after."""
        args = _call_checks(__obj, args, kwargs)
        value = super().call(__context, __obj, *args, **kwargs)
        return growth.made(value, f"{getattr(__obj, '__name__', 'a call')!r}") if isinstance(value, growth.SIZED) else value

    def wrap_str_format(self, value: Any) -> Any:
        """str.format and format_map: no field wider than MAX_BUILT, nor more text than the fields
        times their widest argument."""
        wrapped = super().wrap_str_format(value)
        if wrapped is None:
            return None
        template = value.__self__

        def weighed(*args: Any, **kwargs: Any) -> Any:
            growth.check_numbers("'str.format'", (*args, *kwargs.values()))
            growth.check_format(template, (*args, *kwargs.values()), "'str.format'")
            return wrapped(*args, **kwargs)
        weighed.__name__ = getattr(wrapped, "__name__", "format")
        return weighed


def _call_checks(obj: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, ...]:
    """The checks of the calls that can multiply their input: `lipsum` and the str (and bytes)
    methods `join`, `replace`, `translate`, the paddings and `expandtabs`."""
    if obj is generate_lorem_ipsum:
        try:
            growth.check_lipsum(*args, **kwargs)
        except TypeError:  # bad arguments: the call itself says so
            pass
        return args
    text = getattr(obj, "__self__", None)
    if not isinstance(text, (str, bytes)):
        return args
    name, what = getattr(obj, "__name__", ""), f"'str.{getattr(obj, '__name__', '')}'"
    if name == "join" and len(args) == 1:
        items = list(args[0])
        growth.check_join(items, text, what)
        return (items,)
    if name == "replace" and len(args) >= 2:
        growth.check_replace(text, args[0], args[1], args[2] if len(args) > 2 else kwargs.get("count"), what)
    elif name == "translate" and args:
        growth.check_translate(text, args[0], what)
    elif name in _STR_PADDING:
        growth.check_numbers(what, (*args, *kwargs.values()))
    elif name == "expandtabs":
        size = args[0] if args else kwargs.get("tabsize", 8)
        growth.check_numbers(what, (size,))
        tabs = text.count("\t") if isinstance(text, str) else text.count(b"\t")
        growth.refuse_over(len(text) + tabs * (size if isinstance(size, int) else 8), what, len(text))
    return args
