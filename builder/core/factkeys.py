"""Fact keys with a schema: every key is made from a registered pattern, and checked against one.

A fact key such as `leak.longest_chars.test.macro_f1.mean` is an address that compute writes
and views, pages and claims read. Spelled out by hand in both places, a typo on either side
is a missing number found late; so each family of keys is one `FactPattern`
(`leak.{probe}{scope}.{metric}.{stat}`) with a unit and a description, producers and readers
both build keys with `pattern.key(...)`, `docs/facts.md` is generated from the patterns, and a
test checks that every key a build produces matches exactly one of them.

Placeholders are `Part`s: a name, the text a value may be (a regular expression, so the
pattern also reads keys back) and, for the few that are optional segments (`{scope}` is
"" or ".test"), how a value is written into the key.
"""

from __future__ import annotations

import re
import string
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property, lru_cache

INTERVAL_ENDS = ("ci95_low", "ci95_high")


@dataclass(frozen=True)
class Part:
    """One placeholder: `regex` matches every value it may take (one dotted segment unless
    the regex itself allows a dot); `render` turns a value into key text (default `str`)."""
    name: str
    regex: str
    doc: str
    render: Callable[[object], str] = str
    shown: str = ""  # how the docs write it; default <name>

    def text(self, value: object) -> str:
        text = self.render(value)
        if not _matches(self.regex, text):
            raise ValueError(f"fact key part {self.name}={value!r} is not {self.doc} ({self.regex})")
        return text

    @property
    def label(self) -> str:
        return self.shown or f"<{self.name}>"


@lru_cache(maxsize=65536)
def _matches(regex: str, text: str) -> bool:
    """Whether `text` is all of `regex` (memoised: the same part values recur across keys)."""
    return re.fullmatch(regex, text) is not None


def choice(name: str, values: Iterable[str], doc: str) -> Part:
    """A part that is one of a fixed set of words."""
    values = tuple(values)
    return Part(name, "|".join(re.escape(v) for v in values), doc or " | ".join(values),
                shown=f"<{'|'.join(values)}>" if len(values) <= 4 else "")


@dataclass(frozen=True)
class FactPattern:
    """A family of keys. `interval`: each key also has `.ci95_low` and `.ci95_high` (the 95%
    interval's ends, same unit); `bare=False`: only those two exist, not the key itself.
    `variants`: the key also exists under `variant.<name>.` for a derived dataset variant
    (docs/gold-pool.md)."""
    pattern: str
    unit: str
    description: str
    parts: Mapping[str, Part] = field(repr=False, default_factory=dict)
    interval: bool = False
    bare: bool = True
    variants: bool = False

    def __post_init__(self) -> None:
        names = [f for _, f, _, _ in string.Formatter().parse(self.pattern) if f is not None]
        missing = [n for n in names if n not in self.parts]
        if missing:
            raise ValueError(f"fact pattern {self.pattern!r}: no Part for {', '.join(missing)}")

    @cached_property
    def _names(self) -> tuple[str, ...]:
        """The pattern's placeholders (parsed once: `key` runs about 150,000 times at 1,000 runs)."""
        return tuple(f for _, f, _, _ in string.Formatter().parse(self.pattern) if f is not None)

    def key(self, variant: str | None = None, **values: object) -> str:
        """The key for these part values, checked against the parts (a bad value is a bug)."""
        names = self._names
        if set(names) != set(values):
            raise TypeError(f"fact pattern {self.pattern!r} takes {', '.join(names)}; got {', '.join(values)}")
        key = self.pattern.format(**{n: self.parts[n].text(values[n]) for n in names})
        return self.under(key, variant)

    def under(self, key: str, variant: str | None) -> str:
        """`key` under a dataset variant's prefix (None or "original": as it is)."""
        if variant in (None, "original"):
            return key
        if not self.variants:
            raise ValueError(f"fact pattern {self.pattern!r} has no variant form")
        return f"variant.{VARIANT.text(variant)}.{key}"

    def low(self, variant: str | None = None, **values: object) -> str:
        return self._end(0, variant, values)

    def high(self, variant: str | None = None, **values: object) -> str:
        return self._end(1, variant, values)

    def _end(self, which: int, variant: str | None, values: dict[str, object]) -> str:
        if not self.interval:
            raise ValueError(f"fact pattern {self.pattern!r} has no interval")
        return f"{self.key(variant, **values)}.{INTERVAL_ENDS[which]}"

    @cached_property
    def regex(self) -> re.Pattern[str]:
        """Reads keys back: the pattern with each part's regex, the variant prefix and the
        interval ends where the pattern has them."""
        body = []
        for literal, name, _, _ in string.Formatter().parse(self.pattern):
            body.append(re.escape(literal))
            if name is not None:
                body.append(f"(?P<{name}>{self.parts[name].regex})")
        prefix = rf"(?:variant\.(?P<variant>{VARIANT.regex})\.)?" if self.variants else ""
        ends = rf"\.(?:{'|'.join(INTERVAL_ENDS)})" if self.interval else ""
        return re.compile(prefix + "".join(body) + (f"(?:{ends})?" if self.bare else ends))

    def values(self, key: str) -> dict[str, str] | None:
        """The part values a key was built from (as key text), or None when it is not this pattern's."""
        found = self.regex.fullmatch(key)
        return None if found is None else {k: v for k, v in found.groupdict().items() if v is not None}

    def shown(self) -> str:
        """The pattern as the docs write it: `leak.<probe>[.test].<accuracy|macro_f1>.mean`."""
        out = []
        for literal, name, _, _ in string.Formatter().parse(self.pattern):
            out.append(literal)
            if name is not None:
                out.append(self.parts[name].label)
        return "".join(out)


VARIANT = Part("variant", r"[a-z0-9_]+", "a derived dataset variant's name")


@dataclass(frozen=True)
class Section:
    """A heading of docs/facts.md: its patterns and the prose above them."""
    title: str
    intro: str
    patterns: tuple[FactPattern, ...]


@dataclass(frozen=True)
class FactSchema:
    sections: tuple[Section, ...]

    @property
    def patterns(self) -> list[FactPattern]:
        return [p for s in self.sections for p in s.patterns]

    def matches(self, key: str) -> list[FactPattern]:
        return [p for p in self.patterns if p.regex.fullmatch(key)]

    def problems(self, keys: Iterable[str]) -> list[str]:
        """A line for each key that matches no pattern or more than one."""
        out = []
        for key in keys:
            found = self.matches(key)
            if len(found) != 1:
                which = ", ".join(p.pattern for p in found) or "no registered pattern"
                out.append(f"{key}: {which}")
        return out

    def markdown(self, title: str, intro: str, outro: str = "") -> str:
        """The reference page: one table a section, one row a pattern."""
        lines = [f"# {title}", "", intro.strip(), ""]
        for section in self.sections:
            lines += [f"## {section.title}", ""]
            if section.intro:
                lines += [section.intro.strip(), ""]
            lines += ["| key | unit | meaning |", "|---|---|---|"]
            for p in section.patterns:
                notes = []
                if p.interval:
                    notes.append("with `.ci95_low` / `.ci95_high`" if p.bare else "only `.ci95_low` / `.ci95_high`")
                if p.variants:
                    notes.append("also under `variant.<name>.`")
                extra = f" ({'; '.join(notes)})" if notes else ""
                lines.append(f"| `{_cell(p.shown())}`{extra} | {p.unit} | {_cell(p.description)} |")
            lines.append("")
        parts = {part.name: part for p in self.patterns for part in p.parts.values()}
        lines += ["## Placeholders", "", "| placeholder | what it stands for |", "|---|---|"]
        lines += [f"| `{_cell(part.label)}` | {_cell(part.doc)} |" for _, part in sorted(parts.items())]
        lines.append("")
        if outro:
            lines += [outro.strip(), ""]
        return "\n".join(lines)


def _cell(text: str) -> str:
    """Table-cell text: one line, and "|" escaped (GitHub reads it as a column break even in code)."""
    return " ".join(text.split()).replace("|", "\\|")
