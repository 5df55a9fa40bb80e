"""What one template operation may build, weighed before it runs where its size can be known.

Each check raises TemplateLimit when an operation would make more than MAX_BUILT characters or
items: `~` and `+` (the parts' lengths), `*` (length times count), `%`, `str.format` and the
`format` filter (fields times the longest argument), `join` (the items' lengths), `replace`
(occurrences times the growth), `translate` (characters times the longest replacement), `sum`
over sequences (the result and the copying), padding widths and counts (`center`, `indent`,
`wordwrap`, `batch`, `slice`, `ljust`...), `tojson`'s indent, `lipsum` (paragraphs times words);
str and bytes alike. What cannot be weighed before
(escaping, `tojson`, a macro's output) is weighed after, by `made`: at most a few times its input.
Every result is also charged to the open render budget (render_budget.py).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from builder.site.render_budget import TemplateLimit, charge

MAX_BUILT = 1_000_000  # items or characters one operation may make
MAX_RESULT = 16_000_000  # items or characters of any one value (a render's output is capped the same)
MAX_BITS = 100_000  # bits of an integer one `*` or `**` may make
LIPSUM_WORD = 12  # characters a lorem-ipsum word takes at most, with its space and markup
_WIDTH = re.compile(r"%[-#0 +]*(\d+)?(?:\.(\d+))?")  # printf width and precision
_FIELD_WIDTH = re.compile(r"\{[^{}]*:[^{}]*?(\d+)")  # str.format field widths
SIZED = (str, bytes, list, tuple, range)
MAX_INDENT = 64  # `tojson`'s indent: it is repeated for every value at every depth


def refuse_over(size: int, what: str, base: int = 0) -> None:
    """At most MAX_BUILT more than `base`, the largest input (so an operation on a big page's
    text passes, and repeated doubling stops within a few steps)."""
    if size - base > MAX_BUILT:
        raise TemplateLimit(f"{what} would make {size:,} items or more (at most {MAX_BUILT:,} more than its largest input)")


def made(value: Any, what: str) -> Any:
    """`value` checked and charged after the fact: its length, when it has one that costs memory."""
    if isinstance(value, SIZED):
        if len(value) > MAX_RESULT:
            raise TemplateLimit(f"{what} made {len(value):,} items (at most {MAX_RESULT:,})")
        charge(len(value))
    return value


def _length(value: Any) -> int:
    """What `value` weighs as text: its length, a mapping's values' lengths, else its str's."""
    if isinstance(value, SIZED):
        return len(value)
    if isinstance(value, dict):
        return sum(len(v) if isinstance(v, SIZED) else 8 for v in value.values())
    return len(str(value))


def joined(parts: tuple[Any, ...], join: Any) -> Any:
    """`~`: the parts' lengths first (Jinja's own str_join/markup_join then joins them)."""
    sizes = [_length(p) for p in parts]
    refuse_over(sum(sizes), "'~'", max(sizes, default=0))
    return made(join(parts), "'~'")


def check_binop(operator: str, left: Any, right: Any) -> None:
    """`+`, `*`, `**` and `%` before they run."""
    if operator == "+" and isinstance(left, SIZED) and isinstance(right, SIZED):
        refuse_over(len(left) + len(right), "'+'", max(len(left), len(right)))
    elif operator == "*":
        for seq, times in ((left, right), (right, left)):
            if isinstance(seq, (str, bytes, list, tuple)) and isinstance(times, int):
                refuse_over(len(seq) * times, "'*'", len(seq))
        if isinstance(left, int) and isinstance(right, int) and left.bit_length() + right.bit_length() > MAX_BITS:
            raise TemplateLimit(f"'*' would make an integer of more than {MAX_BITS:,} bits")
    elif operator == "**" and isinstance(left, int) and isinstance(right, int) and abs(left) > 1:
        if right > 0 and right * left.bit_length() > MAX_BITS:
            raise TemplateLimit(f"'**' would make an integer of more than {MAX_BITS:,} bits")
    elif operator == "%" and isinstance(left, str):
        check_format(left, right if isinstance(right, tuple) else (right,), "'%'")


def check_format(template: str, arguments: Iterable[Any], what: str) -> None:
    """printf or str.format: every field at most as wide as its widest argument, and no width
    over MAX_BUILT."""
    for width, precision in _WIDTH.findall(template):
        if max(int(width or 0), int(precision or 0)) > MAX_BUILT:
            raise TemplateLimit(f"a format width of more than {MAX_BUILT:,}")
    if any(int(n) > MAX_BUILT for n in _FIELD_WIDTH.findall(template)):
        raise TemplateLimit(f"a format width of more than {MAX_BUILT:,}")
    values = [v for a in arguments for v in (a.values() if isinstance(a, dict) else (a,))]
    if "*" in template:  # printf's `%*d` takes its width from the arguments
        check_numbers(what, values)
    widest = max((_length(a) for a in values), default=0)
    fields = template.count("%") + template.count("{")
    refuse_over(len(template) + fields * widest, what, max(len(template), widest))


def check_numbers(name: str, arguments: Iterable[Any]) -> None:
    """`name` (as the message shows it, quoted): a width or count argument (`center(10**9)`, `batch(10**9)`) over MAX_BUILT."""
    numbers = [a for a in arguments if isinstance(a, int) and not isinstance(a, bool)]
    if numbers and max(numbers) > MAX_BUILT:
        raise TemplateLimit(f"{name} asked for more than {MAX_BUILT:,} characters")


def check_join(items: list[Any], separator: Any, what: str) -> None:
    """The items' and separators' lengths, summed until they are over (weighing each item may
    cost its own size, so a million big items are not all weighed)."""
    gap, total, largest = _length(separator), 0, 0
    for i, item in enumerate(items):
        size = _length(item)
        largest, total = max(largest, size), total + size + (gap if i else 0)
        refuse_over(total, what, largest)


def check_replace(text: Any, old: Any, new: Any, count: Any, what: str) -> None:
    """Occurrences of `old` (an empty `old` matches between every character) times the growth."""
    if not isinstance(text, (str, bytes)) or type(old) is not type(text) or type(new) is not type(text):
        return
    hits = _count(text, old) if old else len(text) + 1
    if isinstance(count, int) and count >= 0:
        hits = min(hits, count)
    refuse_over(len(text) + hits * max(len(new) - len(old), 0), what, len(text))


def _count(text: str | bytes, part: str | bytes) -> int:
    """`text.count(part)`, the two of one type (the callers check it)."""
    if isinstance(text, str):
        return text.count(part) if isinstance(part, str) else 0
    return text.count(part) if isinstance(part, bytes) else 0


def check_lines(text: Any, inserted: int, what: str, width: Any = None) -> None:
    """`indent`, `wordwrap`, `expandtabs`: `inserted` characters on every line (wordwrap also
    makes lines, one per `width` characters)."""
    if not isinstance(text, str):
        return
    made_lines = len(text) // max(width, 1) if isinstance(width, int) and not isinstance(width, bool) else 0
    refuse_over(len(text) + (text.count("\n") + 1 + made_lines) * inserted, what, len(text))


def check_translate(text: str | bytes, table: Any, what: str) -> None:
    """`str.translate`: every character may become the table's longest value."""
    if isinstance(table, dict):
        widest = max((_length(v) for v in table.values() if v is not None), default=1)
        refuse_over(len(text) * max(widest, 1), what, len(text))


def check_sum(items: list[Any], start: Any, what: str) -> None:
    """The `sum` filter over lists or strings: the result as `join`'s, and the copying it does
    (each step copies the total so far) at most a hundred times the result's bound."""
    if isinstance(start, SIZED):
        check_join([start, *items], "", what)
        if len(items) * sum(_length(i) for i in items) > 100 * MAX_BUILT:
            raise TemplateLimit(f"{what} would copy more than {100 * MAX_BUILT:,} items (add sequences with `join`)")


def check_indent(indent: Any, what: str) -> None:
    """`tojson`'s indent, a number or a string, at most MAX_INDENT."""
    width = len(indent) if isinstance(indent, str) else indent
    if isinstance(width, int) and width > MAX_INDENT:
        raise TemplateLimit(f"{what} asked for an indent of {width:,} (at most {MAX_INDENT})")


def check_lipsum(n: int = 5, html: bool = True, min: int = 20, max: int = 100) -> None:  # noqa: A002 (Jinja's names)
    """`lipsum(n, html, min, max)`: up to n paragraphs of `max` words."""
    if all(isinstance(v, int) for v in (n, min, max)):
        refuse_over(n * (1 + abs(max) + abs(min)) * LIPSUM_WORD, "'lipsum'")
