// Sortable tables: each column header of a data table becomes a button that sorts the rows by
// that column (ascending first, then descending; numbers as numbers, "12,010 of 12,022" and
// "−3.2" included; empty cells and "–" always last). Without JavaScript every table reads as
// written. Also marks each wrapper that scrolls sideways with a one-line cue above it. Only text
// is inserted (textContent), never HTML; the item browser's table sorts itself and is left alone.
(function () {
  "use strict";

  var MISSING = /^(|–|—|-|n\/a)$/i;

  function number(text) {
    var t = text.replace(/\u2212/g, "-").replace(/[,\s\u00a0]/g, "");
    var m = t.match(/^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?/i);
    return m ? parseFloat(m[0]) : null;
  }

  function key(cell) {
    var text = cell ? cell.textContent.trim() : "";
    return { missing: MISSING.test(text), num: number(text), text: text };
  }

  function compare(a, b, numeric) {
    if (a.missing || b.missing) return a.missing === b.missing ? 0 : (a.missing ? 1 : -1);
    if (numeric && a.num !== null && b.num !== null) return a.num - b.num;
    return a.text.localeCompare(b.text, undefined, { numeric: true, sensitivity: "base" });
  }

  function isNumeric(th, rows, column) {
    if (th.classList.contains("num")) return true;
    var seen = 0, numbers = 0;
    rows.forEach(function (tr) {
      var k = key(tr.cells[column]);
      if (k.missing) return;
      seen += 1;
      if (k.num !== null) numbers += 1;
    });
    return seen > 0 && numbers === seen;
  }

  function sortBy(table, headers, column, button) {
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    var th = headers[column];
    var descending = th.getAttribute("aria-sort") === "ascending";
    var numeric = isNumeric(th, rows, column);
    var keyed = rows.map(function (tr, i) { return { tr: tr, k: key(tr.cells[column]), i: i }; });
    keyed.sort(function (a, b) {
      var c = compare(a.k, b.k, numeric);
      if (c !== 0 && !(a.k.missing || b.k.missing)) c = descending ? -c : c;
      return c || a.i - b.i;
    });
    headers.forEach(function (h) { h.removeAttribute("aria-sort"); });
    th.setAttribute("aria-sort", descending ? "descending" : "ascending");
    keyed.forEach(function (x) { body.appendChild(x.tr); });
    button.focus();
  }

  function sortable(table) {
    if (table.id === "browser-table" || !table.tHead || table.tBodies.length !== 1) return false;
    if (table.tHead.rows.length !== 1 || table.tBodies[0].rows.length < 2) return false;
    return !table.querySelector("tbody [rowspan], tbody [colspan], thead [colspan]");
  }

  function setUp(table) {
    if (!sortable(table)) return;
    var headers = Array.prototype.slice.call(table.tHead.rows[0].cells);
    headers.forEach(function (th, column) {
      var button = document.createElement("button");
      button.type = "button";
      button.className = "sort-col";
      while (th.firstChild) button.appendChild(th.firstChild);
      button.title = "Sort by this column";
      th.appendChild(button);
      button.addEventListener("click", function () { sortBy(table, headers, column, button); });
    });
    table.setAttribute("data-sortable", "");
  }

  // The cue follows the layout: a table filled later (the item browser) or a rotated phone
  // shows or hides it again (ResizeObserver; without one, the first layout decides).
  function cue(wrap) {
    var wide = wrap.scrollWidth > wrap.clientWidth + 1;
    var note = wrap.previousElementSibling;
    if (!note || !note.classList.contains("scroll-cue")) {
      if (!wide) return;
      note = document.createElement("p");
      note.className = "scroll-cue";
      note.textContent = "Wider than the page: scroll the table sideways for more columns \u2192";
      wrap.parentNode.insertBefore(note, wrap);
    }
    note.hidden = !wide;
    if (wide) wrap.setAttribute("data-scroll", "");
    else wrap.removeAttribute("data-scroll");
  }

  function start() {
    Array.prototype.forEach.call(document.querySelectorAll("main table"), setUp);
    var observer = window.ResizeObserver ? new ResizeObserver(function (entries) {
      entries.forEach(function (entry) { cue(entry.target.closest(".scroll") || entry.target); });
    }) : null;
    Array.prototype.forEach.call(document.querySelectorAll("main .scroll"), function (wrap) {
      var table = wrap.querySelector("table");
      if (!table) return;
      cue(wrap);
      if (observer) { observer.observe(wrap); observer.observe(table); }
    });
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
