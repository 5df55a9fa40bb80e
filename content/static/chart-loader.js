// Charts on demand: every chart is a static SVG (drawn at build time) until a reader interacts
// with it (pointer over it, a tap, keyboard focus, a click). Only then is the Vega bundle
// (assets/vega-bundle.js, about 900 KB) fetched, once per page, and that chart redrawn live at
// its column's width with tooltips. Pages with charts therefore load no more than their SVGs.
// Without JavaScript, or if the bundle fails, the static SVG stays.
(function () {
  "use strict";

  var me = document.currentScript;
  var loading = null;

  function bundle() {
    if (window.buzzprobeRenderAll) return Promise.resolve();
    if (!loading) {
      loading = new Promise(function (resolve, reject) {
        var script = document.createElement("script");
        script.src = new URL("vega-bundle.js", me.src).href;
        script.addEventListener("load", resolve);
        script.addEventListener("error", function () { reject(new Error("could not load " + script.src)); });
        document.head.appendChild(script);
      });
    }
    return loading;
  }

  function wake(body, hint) {
    if (body.hasAttribute("data-chart")) return;
    body.setAttribute("data-chart", "loading");
    bundle().then(function () {
      return window.buzzprobeRenderAll(body.closest("figure") || document);
    }).then(function () {
      if (body.getAttribute("data-chart") === "live") hint.remove();
    }).catch(function (err) {
      body.setAttribute("data-chart", "static");
      console.error("buzzprobe: chart #" + body.id + " kept its static image:", err);
    });
  }

  function setUp(spec) {
    var body = document.getElementById(spec.getAttribute("data-target"));
    if (!body) return;
    if (!body.hasAttribute("tabindex")) body.setAttribute("tabindex", "0");
    var hint = document.createElement("p");
    hint.className = "chart-hint";
    hint.textContent = "Static image. Point at, tap or focus the chart for the interactive version with tooltips.";
    body.parentNode.insertBefore(hint, body.nextSibling);
    var go = function () { wake(body, hint); };
    ["pointerenter", "focus", "click", "touchstart"].forEach(function (type) {
      body.addEventListener(type, go, { once: true, passive: true });
    });
  }

  function start() {
    Array.prototype.forEach.call(document.querySelectorAll("script.vl-spec[data-target]"), setUp);
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
