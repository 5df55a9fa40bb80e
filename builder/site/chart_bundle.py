"""The one JavaScript file every page shares to draw its charts: Vega, Vega-Lite and Vega-Embed
bundled by vl-convert (no CDN), plus a small loader written here.

Pages work without it: each chart is an inline SVG rendered at build time (see charts.py).
When the bundle runs, it replaces each static SVG with the live (tooltip-enabled) chart:

    <div class="chart" id="ID"> ...static <svg>... </div>
    <script type="application/json" class="vl-spec" data-target="ID">{...spec...}</script>
    <script src="chart-loader.js" defer></script>   (loads this bundle on demand)

Pages do not load it up front (it is about 900 KB): assets/chart-loader.js fetches it when a
reader first interacts with a chart (hover, tap, focus) and then calls
``buzzprobeRenderAll(figure)``, which parses every ``script.vl-spec`` inside ``figure`` and draws
it into the element whose id is its ``data-target``. The live chart is drawn into an invisible
child laid out at the column's width first (the specs ask for ``width: "container"``) and only
swapped in once Vega has finished, so a failure (bad spec, old browser) leaves the static SVG
exactly as it was. Nothing is logged on success; a failure logs one ``console.error`` line
naming the chart.

Offline by construction: the embed options load no Vega-Lite schema (``mode`` is given, so the
specs carry no ``$schema``), show no actions menu (so no "open in editor" link to an outside
host), inject no stylesheet of their own, evaluate expressions with Vega's interpreter rather
than ``new Function`` (so a strict Content-Security-Policy without 'unsafe-eval' still works),
and give Vega a loader that refuses every URL, so even a spec that named a remote data file or
image could not make the page fetch it. Vega itself loads no fonts. The one thing it still
injects is Vega-Tooltip's small <style> element (a CSP without 'unsafe-inline' styles would
block it: tooltips then show unstyled, the charts still draw).

The bundle is generated once per process (vl-convert takes about 2 s to bundle) and is
byte-identical for the same vl-convert version and snippet; ``bundle_version()`` names both so
a build cache can key on it.
"""

from __future__ import annotations

import functools
import hashlib

import vl_convert

# The Vega-Lite release the bundle embeds AND the one the static SVGs are rendered with, so the
# live chart and its fallback come from the same compiler. Altair 6 writes v6.4 specs.
VL_VERSION = "6.4"

# The page-side API. vl-convert resolves `vegaEmbed` to the bundled Vega-Embed (which pulls in
# Vega and Vega-Lite) and tree-shakes everything the snippet does not reach. Its `vega` name is
# bound to null in vl-convert 1.9 (a default import of a module without one), so the snippet
# uses only `vegaEmbed`.
SNIPPET = r"""
const SPEC_SELECTOR = 'script[type="application/json"].vl-spec[data-target]';
const LOG_ERROR = 1;  // vega.Error (levels: None 0, Error 1, Warn 2, Info 3, Debug 4)

function refuse(uri) {
  return Promise.reject(new Error("buzzprobe charts load nothing from the network: " + uri));
}

// Vega's default loader would fetch() URLs named in a spec (data, images, links); this one
// refuses every load, so a chart can never make the page request anything. (It is a plain
// object: vega-embed takes anything with a `load` method as a loader. vl-convert 1.9 binds the
// snippet's `vega` to null, so neither vega.loader() nor vega.Error can be used here.)
function offlineLoader() {
  return { options: {}, fileAccess: false, load: refuse, sanitize: refuse, http: refuse, file: refuse };
}

function prefersDark() {
  return !!(window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches);
}

function embedOptions() {
  return {
    mode: "vega-lite",       // the specs carry no $schema: nothing to look up or fetch
    renderer: "svg",         // same output kind as the static fallback; text stays selectable
    actions: false,          // no export/source/"open in editor" menu (the editor is remote)
    defaultStyle: false,     // inject no stylesheet
    ast: true,               // interpret expressions: no eval/new Function (CSP-friendly)
    logLevel: LOG_ERROR,     // compiler/dataflow warnings stay quiet; real errors still show
    loader: offlineLoader(),
    tooltip: { theme: prefersDark() ? "dark" : "light" },
  };
}

function accessibleName(el) {
  const label = el.getAttribute("aria-label");
  if (label) return label;
  const title = el.querySelector("svg > title");
  return title ? title.textContent : "";
}

// A "container" width leaves the plot the column minus what the static chart spent on axes,
// labels and legends; below MIN_PLOT px (long labels on a phone) the live chart keeps its
// drawn width instead and is scaled to the column like the static one.
const MIN_PLOT = 240;

function fitted(el, spec) {
  const drawn = spec.usermeta && spec.usermeta.drawnWidth;
  const svg = el.querySelector(":scope > svg");
  if (spec.width !== "container" || !drawn || !svg) return spec;
  const extra = Number(svg.getAttribute("width")) - drawn;
  if (!(extra >= 0) || el.clientWidth - extra >= MIN_PLOT) return spec;
  const fixed = Object.assign({}, spec, { width: drawn });
  delete fixed.autosize;
  return fixed;
}

async function buzzprobeEmbed(el, spec) {
  spec = fitted(el, spec);
  const name = accessibleName(el);
  const host = document.createElement("div");
  host.className = "chart-live chart-pending";  // invisible but laid out: "container" width needs a size
  el.appendChild(host);
  try {
    const result = await vegaEmbed(host, spec, embedOptions());
    for (const child of Array.from(el.childNodes)) {
      if (child !== host) el.removeChild(child);
    }
    if (name) {
      host.setAttribute("role", "img");
      host.setAttribute("aria-label", name);
    }
    host.classList.remove("chart-pending");
    el.setAttribute("data-chart", "live");
    return result;
  } catch (err) {
    host.remove();
    el.setAttribute("data-chart", "static");
    console.error("buzzprobe: chart #" + (el.id || "?") + " kept its static image:", err);
    return null;
  }
}

function buzzprobeRenderAll(root) {
  const scripts = (root || document).querySelectorAll(SPEC_SELECTOR);
  return Promise.all(Array.from(scripts, (script) => {
    if (script.getAttribute("data-rendered")) return null;
    script.setAttribute("data-rendered", "1");
    const target = document.getElementById(script.getAttribute("data-target"));
    if (!target) return null;
    let spec;
    try {
      spec = JSON.parse(script.textContent);
    } catch (err) {
      target.setAttribute("data-chart", "static");
      console.error("buzzprobe: chart #" + target.id + " has an unreadable spec:", err);
      return null;
    }
    return buzzprobeEmbed(target, spec);
  }));
}

window.buzzprobeEmbed = buzzprobeEmbed;
window.buzzprobeRenderAll = buzzprobeRenderAll;
"""

_SNIPPET_SHA = hashlib.sha256(SNIPPET.encode("utf-8")).hexdigest()[:12]

_LICENSES = (
    "Vega, Vega-Lite, Vega-Embed, Vega-Tooltip: BSD-3-Clause, Copyright University of Washington "
    "Interactive Data Lab; d3 modules: ISC, Copyright Mike Bostock; bundled by vl-convert "
    "(BSD-3-Clause, Copyright Jon Mease)."
)


def bundle_version() -> str:
    """What the bundle bytes depend on: a cache key (changes when any of these change)."""
    version = vl_convert.__version__  # type: ignore[attr-defined]  # set by the package, absent from its .pyi
    return (
        f"vl-convert {version}; vega-lite {VL_VERSION}; "
        f"vega {vl_convert.get_vega_version()}; vega-embed {vl_convert.get_vega_embed_version()}; "
        f"snippet {_SNIPPET_SHA}"
    )


@functools.cache
def vega_bundle() -> bytes:
    """The self-contained charts script (UTF-8), generated once per process."""
    body = vl_convert.javascript_bundle(SNIPPET, vl_version=VL_VERSION)
    banner = f"/*! buzzprobe charts: {bundle_version()}. {_LICENSES} */\n"
    # vl-convert emits module-style top-level `const`/`function` declarations (hundreds of
    # one-letter names); as a classic <script> those would land in the page's global scope and
    # clash with any other script. The wrapper keeps them private (and strict, as in a module):
    # only window.buzzprobeEmbed and window.buzzprobeRenderAll are exported.
    return (banner + '(function () {\n"use strict";\n' + body.strip("\n") + "\n})();\n").encode("utf-8")
