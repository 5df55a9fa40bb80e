// Site search: the box in the header finds benchmarks, models, runs and pages in the index the
// build wrote (assets/search-index.js), loaded the first time the box is used. No server and no
// request beyond the site's own files; results are inserted as text (textContent) only.
// Without JavaScript the box stays hidden: the menu and the pages' own lists still lead everywhere.
(function () {
  "use strict";

  var MAX_RESULTS = 12;
  var KIND_ORDER = { benchmark: 0, model: 1, page: 2, run: 3 };

  function loadIndex(form) {
    if (window.buzzprobeSearchIndex) return Promise.resolve(window.buzzprobeSearchIndex);
    if (!form.loading) {
      form.loading = new Promise(function (resolve, reject) {
        var script = document.createElement("script");
        script.src = form.getAttribute("data-index");
        script.addEventListener("load", function () { resolve(window.buzzprobeSearchIndex); });
        script.addEventListener("error", function () { reject(new Error("no search index")); });
        document.head.appendChild(script);
      });
    }
    return form.loading;
  }

  function score(entry, terms) {
    var title = entry[1].toLowerCase();
    var all = title + " " + entry[2].toLowerCase() + " " + entry[3].toLowerCase();
    var total = 0;
    for (var i = 0; i < terms.length; i++) {
      if (all.indexOf(terms[i]) === -1) return -1;
      if (title.indexOf(terms[i]) === 0) total += 3;
      else if (title.indexOf(terms[i]) !== -1) total += 2;
    }
    return total;
  }

  function find(index, query) {
    var terms = query.toLowerCase().split(/\s+/).filter(Boolean);
    if (!terms.length) return [];
    var hits = [];
    index.entries.forEach(function (entry, i) {
      var s = score(entry, terms);
      if (s >= 0) hits.push({ entry: entry, s: s, i: i });
    });
    hits.sort(function (a, b) {
      return (b.s - a.s) || ((KIND_ORDER[a.entry[0]] || 9) - (KIND_ORDER[b.entry[0]] || 9)) || (a.i - b.i);
    });
    return hits.slice(0, MAX_RESULTS).map(function (h) { return h.entry; });
  }

  function show(form, list, entries, query) {
    list.textContent = "";
    var root = form.getAttribute("data-root") || "";
    entries.forEach(function (entry) {
      var li = document.createElement("li");
      var a = document.createElement("a");
      a.href = root + entry[2];
      var kind = document.createElement("span");
      kind.className = "kind";
      kind.textContent = entry[0];
      a.appendChild(kind);
      a.appendChild(document.createTextNode(entry[1]));
      li.appendChild(a);
      list.appendChild(li);
    });
    if (!entries.length && query.trim()) {
      var none = document.createElement("li");
      none.className = "none";
      none.textContent = "Nothing found for \u201c" + query.trim() + "\u201d";
      list.appendChild(none);
    }
    list.hidden = !query.trim();
  }

  function setUp(form) {
    var input = form.querySelector("input");
    var list = form.querySelector("ol");
    var update = function () {
      var query = input.value;
      loadIndex(form).then(function (index) {
        if (input.value === query) show(form, list, find(index, query), query);
      }).catch(function (err) { console.error("buzzprobe: search unavailable:", err); });
    };
    input.addEventListener("focus", function () { loadIndex(form).catch(function () {}); });
    input.addEventListener("input", update);
    input.addEventListener("keydown", function (event) {
      if (event.key === "Escape") { input.value = ""; list.hidden = true; }
    });
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      var first = list.querySelector("a");
      if (first) window.location.href = first.href;
    });
    form.hidden = false;
  }

  function start() {
    Array.prototype.forEach.call(document.querySelectorAll("form.site-search"), setUp);
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
