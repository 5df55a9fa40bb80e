"""Facts with a schema: every key the build produces, and every key the content names, matches
exactly one registered pattern, and docs/facts.md is what the patterns generate."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from builder.benchmarks.cibuzzbench import fact_keys as K
from builder.benchmarks.facts_reference import DOC, fact_schema, facts_markdown
from builder.core.factkeys import FactPattern, FactSchema, Part, Section

REPO = Path(__file__).resolve().parents[1]
GOLDEN_FACTS = REPO / "tests" / "golden" / "site" / "facts.json"
YAML_FACT = re.compile(r"\bfact:\s*([^,}\n]+)")


def test_docs_facts_md_is_generated_from_the_patterns() -> None:
    assert DOC.read_text(encoding="utf-8") == facts_markdown(), \
        "docs/facts.md is stale: run `make facts-doc` (python -m builder.benchmarks.facts_reference)"


def test_every_key_of_the_golden_build_matches_exactly_one_pattern() -> None:
    """The golden site is the build's output on the committed synthetic corpus (test_build
    keeps the two equal), so its facts.json is every key that build produces."""
    keys = json.loads(GOLDEN_FACTS.read_text(encoding="utf-8"))
    assert len(keys) > 1000
    assert fact_schema().problems(keys) == []


@pytest.mark.realdata
def test_every_key_of_the_real_build_matches_exactly_one_pattern(shipped_site: Path) -> None:
    """The site `make site` publishes (committed runs, the real CSV, every shipped spec): its keys."""
    keys = json.loads((shipped_site / "facts.json").read_text(encoding="utf-8"))
    assert len(keys) > 5000
    assert fact_schema().problems(keys) == []


def key_roots() -> list[str]:
    """The first segment of every registered pattern (and `variant`, the prefix of variant
    forms): what a quoted string in the content must start with to be read as a fact key."""
    patterns = fact_schema().patterns
    roots = {re.match(r"[a-z_]+", p.pattern).group() for p in patterns}  # leak{scope}... is leak
    return sorted(roots | ({"variant"} if any(p.variants for p in patterns) else set()))


def _content_keys() -> set[str]:
    """Fact keys the pages and article-figures.yaml spell out ({} stands for a category)."""
    quoted = re.compile(rf"""["']((?:{'|'.join(key_roots())})\.[^"'\s]*(?: [^"'\s]+)*)["']""")
    keys = set()
    for path in sorted((REPO / "content" / "pages").glob("*.md")):
        keys |= set(quoted.findall(path.read_text(encoding="utf-8")))
    keys |= {k.strip() for k in YAML_FACT.findall((REPO / "content" / "article-figures.yaml").read_text("utf-8"))}
    return {k.replace("{}", "Slang") for k in keys if not k.endswith(".")}  # "paired." ~ id: built in Jinja


def test_every_key_the_content_names_matches_exactly_one_pattern() -> None:
    keys = _content_keys()
    assert {"leak.longest_chars.macro_f1.mean", "dataset.rows", "leak.longest_chars.category.Slang.accuracy.mean",
            "variant.gold_pool.leak.learned_lengths.test.accuracy.seed_1111.ci95_low"} <= keys
    assert fact_schema().problems(keys) == []


def test_an_unregistered_or_ambiguous_key_is_reported() -> None:
    schema = fact_schema()
    assert schema.problems(["leak.random.accuracy.seed_1111", "leak.random.accuracy.median",
                            "run.r1.accuraccy"]) == [
        "leak.random.accuracy.median: no registered pattern", "run.r1.accuraccy: no registered pattern"]
    word = Part("x", r"[a-z]+", "a word")
    twice = FactSchema((Section("s", "", (FactPattern("a.{x}", "count", "one", {"x": word}),
                                          FactPattern("a.b", "count", "two"))),))
    assert twice.problems(["a.b", "a.c"]) == ["a.b: a.{x}, a.b"]


def test_key_builders_write_and_check_keys() -> None:
    assert K.PROBE_SEED.key(probe="random", scope="test", metric="accuracy", seed=1111) == \
        "leak.random.test.accuracy.seed_1111"
    assert K.PROBE_SEED.high("gold_pool", probe="random", scope="all", metric="macro_f1", seed=2222) == \
        "variant.gold_pool.leak.random.macro_f1.seed_2222.ci95_high"
    assert K.RUN_CATEGORY.key(run_id="r1", category="Homophonic pun", metric="macro_f1") == \
        "run.r1.category.Homophonic pun.macro_f1"
    with pytest.raises(ValueError, match="metric"):
        K.RUN_SCORE.key(run_id="r1", metric="f1")  # not a metric of the pattern
    with pytest.raises(ValueError, match="category"):
        K.RUN_CATEGORY.key(run_id="r1", category="Puns", metric="accuracy")
    with pytest.raises(ValueError, match="run_id"):
        K.RUN_N.key(run_id="a.b")  # a dot would shift every later segment
    with pytest.raises(TypeError):
        K.RUN_N.key(run="r1")
    with pytest.raises(ValueError, match="variant"):
        K.RUN_N.key("gold_pool", run_id="r1")  # runs have no variant form
    with pytest.raises(ValueError, match="interval"):
        K.RUN_N.low(run_id="r1")


def test_interval_only_patterns_do_not_claim_the_bare_key() -> None:
    assert K.MODEL_INTERVAL.regex.fullmatch("model.m1.accuracy.ci95_low")
    assert not K.MODEL_INTERVAL.regex.fullmatch("model.m1.accuracy")
    assert K.RUN_SCORE.regex.fullmatch("run.r1.accuracy") and K.RUN_SCORE.regex.fullmatch("run.r1.accuracy.ci95_high")


def test_a_probe_name_enters_its_keys_as_a_name() -> None:
    """A probe run's subject name is free text: a valid name is kept as it is, anything else
    (dots would add key segments) becomes its slug, and two names sharing a slug are refused."""
    from types import SimpleNamespace

    from builder.benchmarks.cibuzzbench.compute import _probe_keys
    from builder.core.errors import InputError

    def group(name: str, path: str) -> list:
        return [SimpleNamespace(run=SimpleNamespace(path=path, header=SimpleNamespace(subject_name=name)))]

    keys = _probe_keys({("original", "t", "longest_chars", "all"): group("longest_chars", "a.jsonl"),
                        ("original", "t", "My.Probe", "all"): group("My.Probe", "b.jsonl")})
    assert keys == {"longest_chars": "longest_chars", "My.Probe": "my_probe"}
    assert K.PROBE_SPREAD.key(probe=keys["My.Probe"], scope="all", metric="accuracy", stat="mean") == \
        "leak.my_probe.accuracy.mean"
    with pytest.raises(InputError, match="would share the fact keys leak.my_probe"):
        _probe_keys({("original", "t", "My.Probe", "all"): group("My.Probe", "b.jsonl"),
                     ("original", "t", "my_probe", "all"): group("my_probe", "c.jsonl")})


def test_every_key_of_measured_mouse_runs_matches_exactly_one_pattern() -> None:
    """The SYNTHETIC Mouse fixture runs (tests/fixtures/mouse), scored as a build with MOUSE_DATA would."""
    from builder.benchmarks.mouse.analyses.measured_runs import add_measured_facts, load_mouse_data
    from builder.benchmarks.mouse.analyses.metrics import BootstrapOptions
    from builder.core.facts import FactTable
    from builder.runs.load import read_store

    fixtures = REPO / "tests" / "fixtures" / "mouse"
    facts = FactTable()
    add_measured_facts(facts, read_store(fixtures / "runs").runs["mouse"], load_mouse_data(fixtures),
                       BootstrapOptions(50, 1, 0.95))
    assert len(facts.values) > 50 and "mouse.measured.runs" in facts
    assert fact_schema().problems(facts.values) == []
