"""Script in the site (issue 34, class 1): a content page cannot run script in a reader's browser.

Each payload is written as an author would write it in content/pages/*.md. The unit cases read
the page body the way the build does (Jinja, Markdown, sanitiser, shortcodes) and check the
result with an HTML5 parser's reading of it; the build cases plant the page in a small site; the
browser case loads every hostile page of one small site in headless Chromium and checks that no
script ran (a payload sets `window.__pwned` or the title) and no link or source resolves to a
script URL.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from markupsafe import Markup

from builder.core.errors import InputError
from builder.site.environment import make_environment
from builder.site.markdown_pages import render_page_body
from builder.site.pages import Page
from builder.site.sanitise import canonical, sanitise
from builder.site.shortcodes import Shortcodes, block_html
from tests.test_hardening import add_page, quick_build, refused, small  # noqa: F401 (a fixture)

REPO = Path(__file__).resolve().parents[1]
RUN = "window.__pwned=1"
IMG = f'<img src=x onerror="{RUN}">'

# name: page body. Every one runs script in a browser if its markup reaches the page as written.
PAYLOADS = {
    "comment-abrupt": f"<!-->{IMG}-->",
    "comment-abrupt-dash": f"<!--->{IMG}-->",
    "comment-dashes": f"x <!-- -- -->{IMG}<!-- -- -->",
    "comment-bang-close": f"<!-- x --!>{IMG}-->",
    "cdata": f"<![CDATA[>{IMG}]]>",
    "processing-instruction": f"<?x>{IMG}?>",
    "md-link-tab-entity": f"[x](jav&#x09;ascript:{RUN})",
    "tab-entity": f'<a href="jav&#x09;ascript:{RUN}">x</a>',
    "newline-entity": f'<a href="java&#10;script:{RUN}">x</a>',
    "numeric-j": f'<a href="&#106;avascript:{RUN}">x</a>',
    "named-colon": f'<a href="javascript&colon;{RUN}">x</a>',
    "control-prefix": f'<a href="&#1;javascript:{RUN}">x</a>',
    "unparsable-authority": '<a href="javascript://[%0awindow.__pwned=1">x</a>',
    "data-url": f'<a href="data:text/html,<script>{RUN}</script>">x</a>',
    "vbscript": '<a href="vbscript:msgbox(1)">x</a>',
    "svg-script": f"<svg><script>{RUN}</script></svg>",
    "svg-onload": f'<svg onload="{RUN}"></svg>',
    "math-mxss": f"<math><mtext><table><mglyph><style><img src=x onerror=\"{RUN}\">",
    "math-mxss-2": f'<math><mi><mglyph><svg><mtext><textarea><path id="</textarea>{IMG}">',
    "noscript-mxss": f'<noscript><p title="</noscript>{IMG}">',
    "attribute-glued": f'<img src="x"onerror="{RUN}">',
    "network-src": '<img src="/\\tracker.example/p.gif" alt="x">',
    "attr-list-handler": f'[x](y){{: onclick="{RUN}" }}\n\n## Heading {{: onmouseover="{RUN}" }}',
    "attr-list-href": f'[x](y){{: href="jav&#x09;ascript:{RUN}" }}',
    "reference-link": f"[x][1]\n\n[1]: jav&#x09;ascript:{RUN}",
    "autolink": f"<javascript:{RUN}>",
    "style-overlay": '<table><tr><td style="position:fixed;top:0;left:0;width:100%;height:100%">x</td></tr></table>',
}
# Read the nonce the old markers carried from a table's output and forge a marker around an image.
FORGED_OLD_MARKER = (
    '{% set t %}{{ table("composition") }}{% endset %}'
    '{% set n = (t|string).split("-->")[0].split("-")[-1] %}\n\n'
    f'<div class="shortcode"><!--bp-999-{{{{ n }}}}-->{IMG}<!--/bp-999-{{{{ n }}}}--></div>\n')
# Read this render's key from a placeholder and write a placeholder the build never issued.
FORGED_TOKEN = (
    '{% set t %}{{ table("composition") }}{% endset %}'
    '{% set k = (t|string).split("bp-")[1].split("-")[0] %}\n\n'
    f'<div class="shortcode">bp-{{{{ k }}}}-999</div>\n\n<div class="shortcode">bp-{{{{ k }}}}-1</div>\n\n{IMG}\n')
# Hand a block author HTML marked safe, and a macro's output: a block's output is not sanitised.
BLOCK_PARAMETER = (
    '{% macro m() %}' + IMG + '{% endmacro %}'
    '{{ block("mouse_claims", verdicts=[{"status": "holds", "results": [], "statement": '
    '{"id": "x", "claim": \'' + IMG + '\'|safe, "source": m(), "note": ""}}]) }}\n')
# The page's other author fields: title, description, an FAQ question that goes into JSON-LD;
# and (set in the fixture) a menu label in site.yaml.
FRONT_MATTER = (f"---\ntitle: '{IMG}'\ndescription: '\"><script>{RUN}</script>'\njsonld: faq\n---\n\nfirst line\n\n"
                f"### &lt;/script&gt;&lt;script&gt;{RUN}&lt;/script&gt;\n\nThe answer.\n")
BUILT = {**PAYLOADS, "forged-old-marker": FORGED_OLD_MARKER, "forged-token": FORGED_TOKEN,
         "block-parameter": BLOCK_PARAMETER}

_URL_ATTRIBUTES = {"href", "src", "action", "formaction", "xlink:href", "data", "poster", "background", "cite"}
_ACTIVE = {"script", "style", "svg", "math", "iframe", "object", "embed", "noscript", "template", "form", "base",
           "meta", "link", "textarea", "xmp", "noembed", "noframes", "plaintext"}


class _Dangers(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _ACTIVE:
            self.found.append(f"<{tag}>")
        for name, value in attrs:
            bare = re.sub(r"[\t\n\r]", "", value or "").lstrip("".join(map(chr, range(33))))
            scheme = re.match(r"([A-Za-z][A-Za-z0-9+.\-]*):", bare)
            if name.startswith("on"):
                self.found.append(f"{tag} {name}=")
            elif name in _URL_ATTRIBUTES and scheme and scheme.group(1).lower() not in {"http", "https", "mailto"}:
                self.found.append(f"{tag} {name}={value!r}")
            elif name == "src" and (scheme or bare[:1] in "/\\" and bare[1:2] in "/\\"):
                self.found.append(f"{tag} src from the network: {value!r}")
            elif name == "style" and not re.fullmatch(r"text-align: (left|center|right);", value or ""):
                self.found.append(f"{tag} style={value!r}")

    def handle_comment(self, data: str) -> None:
        self.found.append(f"comment {data[:30]!r}")


def dangers(html: str) -> list[str]:
    """What could run script or load from the network in `html`, as an HTML5 parser reads it (the
    sanitiser's parser, written out with nothing removed) and as Python's parser reads it."""
    found = []
    for reading in (canonical(html), html):
        parser = _Dangers()
        parser.feed(reading)
        parser.close()
        found += parser.found
    return found


def render(body: str, shortcodes: Shortcodes | None = None, **context: Any) -> str:
    page = Page(Path("content/pages/evil.md"), "evil", {"title": "T", "description": "D"}, body, 5)
    return str(render_page_body(make_environment(REPO / "content" / "templates"), page, context, shortcodes))


# ------------------------------------------------------------------ the sanitiser


@pytest.mark.parametrize("name", sorted(PAYLOADS))
def test_a_hostile_page_body_is_cleaned(name: str) -> None:
    html = render(PAYLOADS[name])
    assert not dangers(html), (name, html)


def test_every_comment_goes() -> None:
    html = sanitise("<p>a<!-- note -->b</p><!---->\n<p>c</p>")
    assert "<!--" not in html and html == "<p>ab</p>\n<p>c</p>"


def test_legitimate_markup_keeps_its_bytes() -> None:
    html = ('<p>A <a class="fact" href="provenance.html#f-x" title="t">12.5%</a> and <span class="x">y</span>'
            '<br />&quot;q&quot; <a href="https://example.org/a?b=1&amp;c=2">l</a> <a href="mailto:a@b.c">m</a></p>\n'
            '<table><tr><th style="text-align: left;">h</th></tr></table>\n<img alt="a" src="assets/a.png">')
    assert sanitise(html) == html


def test_prose_that_names_a_scheme_keeps_its_bytes() -> None:
    html = "<p>Note: the ratio is 2:1; see the FAQ.</p>"
    assert sanitise(html) == html


# ------------------------------------------------------------------ shortcodes


def _registry(*outputs: str) -> tuple[Shortcodes, list[Markup]]:
    codes = Shortcodes()
    return codes, [codes.add(html, f'table("t{i}")') for i, html in enumerate(outputs)]


def test_a_shortcode_keeps_the_builds_own_markup_and_its_bytes() -> None:
    ours = '<figure><svg onload="trusted()"><script type="application/json">{"a":1}</script></svg></figure>'
    codes, (mark,) = _registry(ours)
    html = render(f"para\n\n{{{{ t }}}}\n", codes, t=mark)
    assert html == f'<p>para</p>\n<div class="shortcode">{ours}</div>'
    assert html == f"<p>para</p>\n{block_html(ours)}"


def test_a_block_that_prints_a_table_gets_the_tables_output() -> None:
    codes = Shortcodes()
    inner = codes.add("<table><tr><td>1</td></tr></table>", 'table("t")')
    outer = codes.add(f"<section>{inner}</section>", 'block("b")')
    assert render("{{ b }}", codes, b=outer) == (
        '<div class="shortcode"><section><div class="shortcode"><table><tr><td>1</td></tr></table></div>'
        "</section></div>")


def test_placeholders_the_build_did_not_issue_are_text() -> None:
    codes, (mark,) = _registry("<table></table>")
    key = str(mark).split("bp-")[1].split("-")[0]
    html = render(f'<div class="shortcode">bp-{key}-7</div>\n\n<div class="shortcode">bp-{"0" * 32}-0</div>\n', codes)
    assert "<table>" not in html and f"bp-{key}-7" in html and not dangers(html)


def test_old_style_markers_are_comments_and_go() -> None:
    html = render(f'<div class="shortcode"><!--bp-0-0123456789abcdef-->{IMG}<!--/bp-0-0123456789abcdef--></div>')
    assert not dangers(html), html


def test_a_table_read_by_the_page_gives_nothing_to_forge() -> None:
    """The page reads the placeholder through Jinja and writes back what it derives from it."""
    codes, (mark,) = _registry("<table><tr><td>1</td></tr></table>")
    body = ('{% set t %}{{ table("t0") }}{% endset %}{% set k = (t|string).split("bp-")[1].split("-")[0] %}'
            f'\n\n<div class="shortcode"><!--bp-0-{{{{ k }}}}-->{IMG}<!--/bp-0-{{{{ k }}}}--></div>\n\n'
            f'<div class="shortcode">bp-{{{{ k }}}}-1</div>\n\nbp-kept-0-{{{{ k }}}}\n')
    html = render(body, codes, table=lambda name: mark)
    assert not dangers(html), html
    assert "<table>" not in html  # the real output was never printed, so it is nowhere


@pytest.mark.parametrize("body", [
    "<a title='{{ t }}'>x</a>",  # inside an attribute
    "[{{ t }}](https://example.org/)",  # inside a link
    "<table>{{ t }}<tr><td>x</td></tr></table>",  # among a table's rows
])
def test_a_placeholder_where_its_output_would_change_the_markup_is_an_error(body: str) -> None:
    codes, (mark,) = _registry('<figure><table><tr><td><a href="runs/a.html">a</a></td></tr></table></figure>')
    with pytest.raises(InputError, match=r'evil\.md: the output of \{\{ table\("t0"\) \}\} is placed where'):
        render(body, codes, t=mark)


def test_a_copied_placeholder_is_shown_once_at_most() -> None:
    """Copying a placeholder it captured cannot make the page show the output twice (a large table
    printed a million times would be a memory bomb): that is an error naming the call."""
    codes, (mark,) = _registry("<table><tr><td>1</td></tr></table>")
    with pytest.raises(InputError, match=r'the output of \{\{ table\("t0"\) \}\} is printed 2 times'):
        render("{% set t %}{{ table('t0') }}{% endset %}{{ t }}\n\n{{ t }}\n", codes, table=lambda name: mark)
    codes, (mark,) = _registry("<table><tr><td>1</td></tr></table>")
    html = render("{% set t %}{{ table('t0') }}{% endset %}{{ t }}\n", codes, table=lambda name: mark)
    assert html == '<div class="shortcode"><table><tr><td>1</td></tr></table></div>'  # once is what a call gives


def test_the_outputs_count_against_the_render_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    from builder.site import shortcodes
    monkeypatch.setattr(shortcodes, "MAX_OUTPUT", 1000)
    codes = Shortcodes()
    with pytest.raises(InputError, match=r"evil\.md:5: cannot render: the page's tables, charts and blocks are over 1,000"):
        render("{% for i in range(100) %}{{ table() }}{% endfor %}", codes, table=lambda: codes.add("x" * 100, "table()"))


def test_each_render_has_its_own_key() -> None:
    first, second = Shortcodes(), Shortcodes()
    assert str(first.add("<p>a</p>", "x")) != str(second.add("<p>a</p>", "x"))
    assert second.fill(str(first.add("<p>a</p>", "x"))).startswith('<div class="shortcode">bp-')


# ------------------------------------------------------------------ whole builds


def _main(site: Path, name: str) -> str:
    """The page's own part (the site's template around it is not the author's)."""
    html = (site / f"{name}.html").read_text(encoding="utf-8")
    return html[html.index('<main id="main">'):html.index("</main>")]


@pytest.fixture(scope="module")
def hostile_site(small_base: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The small site with one page per payload, built once."""
    import shutil
    work = tmp_path_factory.mktemp("hostile") / "work"
    shutil.copytree(small_base, work)
    for name, body in BUILT.items():
        add_page(work, name, body)
    (work / "content" / "pages" / "front-matter.md").write_text(FRONT_MATTER, encoding="utf-8")
    site_yaml = work / "content" / "site.yaml"
    site_yaml.write_text(site_yaml.read_text(encoding="utf-8").replace(
        "{page: faq, label: FAQ}", "{page: faq, label: '<svg onload=window.__pwned=1>'}"), encoding="utf-8")
    _hostile_prediction(work / "content" / "predictions.yaml")
    result = quick_build(work)
    assert result.returncode == 0, result.stderr
    return work / "site"


def _hostile_prediction(path: Path) -> None:
    """A copy of the tracker's first prediction whose words are payloads (the tracker page)."""
    import yaml
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    evil = {**data["predictions"][0], "id": "evil", "claim": IMG, "source": f"<script>{RUN}</script>", "note": IMG}
    data["predictions"].append(evil)
    path.write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), encoding="utf-8")


def test_hostile_pages_build_and_publish_nothing_active(hostile_site: Path) -> None:
    for name in BUILT:
        main = _main(hostile_site, name)
        assert "first line" in main, name
        assert not dangers(main), (name, dangers(main))
    assert "&lt;img src=x" in _main(hostile_site, "block-parameter")  # shown as text, not markup
    tracker = _main(hostile_site, "tracker")
    assert "&lt;img src=x" in tracker and not dangers(tracker), dangers(tracker)


def test_titles_menus_and_structured_data_are_text(hostile_site: Path) -> None:
    html = (hostile_site / "front-matter.html").read_text(encoding="utf-8")
    handlers = [d for d in dangers(html) if " on" in d]
    scripts = re.findall(r"<script[^>]*>(.*?)</script>", html, re.S)
    assert not handlers and not [s for s in scripts if "__pwned" in s and "\\u003c" not in s], (handlers, scripts)
    assert f"<h1>&lt;img src=x onerror=&#34;{RUN}&#34;&gt;</h1>" in html
    assert "&lt;svg onload=window.__pwned=1&gt;</a>" in html


def test_a_misplaced_shortcode_is_a_located_error(small: Path) -> None:
    add_page(small, "misplaced", "<a title='{{ table(\"composition\") }}'>x</a>")
    refused(quick_build(small), "misplaced.md: the output of {{ table('composition') }} is placed where")


def test_a_block_refuses_objects_as_parameters(small: Path) -> None:
    add_page(small, "objects", "{% set ns = namespace(claim='x') %}{{ block('mouse_claims', verdicts=[ns]) }}")
    refused(quick_build(small), "objects.md:8", "a block's parameters are text, numbers, lists and mappings, not Namespace")


# ------------------------------------------------------------------ in a browser

PROBE = """() => {
  const bad = [];
  const resolved = v => { try { return new URL(v, location.href); } catch (e) { return null; } };
  for (const el of document.querySelectorAll('*')) {
    for (const a of Array.from(el.attributes)) {
      if (a.name.toLowerCase().startsWith('on')) bad.push(el.tagName + ' ' + a.name);
    }
    if (el.tagName === 'SCRIPT' && (!el.type || /javascript/.test(el.type)) && el.textContent.includes('__pwned'))
      bad.push('script ' + el.textContent.slice(0, 60));
  }
  for (const el of document.querySelectorAll('main *')) {
    for (const prop of ['href', 'src', 'action', 'formAction']) {
      const v = el[prop], url = typeof v === 'string' && v ? resolved(v) : undefined;
      if (url === null || (url && !/^(https?|mailto):$/.test(url.protocol))) bad.push(el.tagName + ' ' + prop + '=' + v);
      else if (url && prop === 'src' && url.host !== location.host) bad.push(el.tagName + ' loads ' + v);
    }
    if (['SCRIPT', 'IFRAME', 'OBJECT', 'EMBED', 'svg', 'math'].includes(el.tagName)) bad.push(el.tagName);
    if (getComputedStyle(el).position === 'fixed') bad.push(el.tagName + ' drawn over the page');
  }
  return {pwned: typeof window.__pwned !== 'undefined', bad: bad};
}"""
# A javascript: link runs only when followed: follow every link that is not a web address.
FOLLOW_SCRIPT_LINKS = """() => { for (const a of document.querySelectorAll('main a[href]')) {
  if (!/^https?:$/.test(a.protocol)) a.click(); } return typeof window.__pwned !== 'undefined'; }"""


def test_no_hostile_page_runs_script_in_chromium(hostile_site: Path) -> None:
    from tests.browser_support import SubPathServer, launch_chromium, new_context, open_page
    ran = {}
    with launch_chromium() as browser, SubPathServer(hostile_site) as server:
        context = new_context(browser)
        for name in [*BUILT, "front-matter", "tracker"]:
            with open_page(context, server.url(f"{name}.html"), name) as (page, visit):
                state = page.evaluate(PROBE)
                page.wait_for_timeout(100)  # an <img src=x> has failed by now
                followed = page.evaluate(FOLLOW_SCRIPT_LINKS)
                pwned = state["pwned"] or followed or page.evaluate("() => typeof window.__pwned !== 'undefined'")
                if pwned or state["bad"]:
                    ran[name] = {"script ran": pwned, "found": state["bad"], "errors": visit.page_errors}
        context.close()
    assert not ran, ran
