"""Compiled templates kept between builds (builder/site/template_cache.py): the same output as
compiling afresh, a changed template recompiled, and a planted entry never run."""

from __future__ import annotations

from pathlib import Path

from builder.site.environment import make_environment
from builder.site.template_cache import template_from_string


def _templates(tmp_path: Path, text: str) -> Path:
    folder = tmp_path / "templates"
    folder.mkdir(exist_ok=True)
    (folder / "t.html").write_text(text, encoding="utf-8")
    return folder


def test_cached_templates_render_as_fresh_ones_and_follow_their_source(tmp_path: Path) -> None:
    folder, cache = _templates(tmp_path, "<p>{{ x }}</p>\n"), tmp_path / "cache"
    fresh = make_environment(folder).get_template("t.html").render(x="<b>")
    assert make_environment(folder, cache).get_template("t.html").render(x="<b>") == fresh == "<p>&lt;b&gt;</p>\n"
    assert list((cache / "jinja").rglob("*.jinja"))  # kept
    assert make_environment(folder, cache).get_template("t.html").render(x="<b>") == fresh  # read back
    _templates(tmp_path, "<em>{{ x }}</em>\n")
    assert make_environment(folder, cache).get_template("t.html").render(x="1") == "<em>1</em>\n"
    env = make_environment(folder, cache)
    assert template_from_string(env, "{{ 2 * 3 }}").render() == template_from_string(env, "{{ 2 * 3 }}").render() == "6"


def test_a_planted_entry_is_ignored_not_run(tmp_path: Path) -> None:
    folder, cache = _templates(tmp_path, "ok {{ x }}\n"), tmp_path / "cache"
    make_environment(folder, cache).get_template("t.html").render(x=1)
    for entry in (cache / "jinja").rglob("*.jinja"):
        entry.write_bytes(b"not sealed: would be unmarshalled and run")
    assert make_environment(folder, cache).get_template("t.html").render(x=2) == "ok 2\n"


def test_a_new_cache_folder_reuses_what_this_process_compiled(tmp_path: Path, monkeypatch) -> None:
    """A process that builds into many cache folders (the tests) compiles a template once; the
    new folder is filled as if it had compiled it, and the output is the same."""
    import jinja2
    folder = _templates(tmp_path, "<i>{{ x }}</i>\n")
    compiled = []
    real_compile = jinja2.Environment.compile
    monkeypatch.setattr(jinja2.Environment, "compile",
                        lambda self, *a, **k: compiled.append(a[0]) or real_compile(self, *a, **k))
    first = make_environment(folder, tmp_path / "one").get_template("t.html").render(x="<")
    assert len(compiled) == 1
    second = make_environment(folder, tmp_path / "two").get_template("t.html").render(x="<")
    assert second == first == "<i>&lt;</i>\n" and len(compiled) == 1
    assert [p.name for p in (tmp_path / "two" / "jinja").rglob("*.jinja")] == \
           [p.name for p in (tmp_path / "one" / "jinja").rglob("*.jinja")] != []
    _templates(tmp_path, "<u>{{ x }}</u>\n")  # changed source: compiled again, whatever is kept
    assert make_environment(folder, tmp_path / "three").get_template("t.html").render(x=1) == "<u>1</u>\n"
    assert len(compiled) == 2
