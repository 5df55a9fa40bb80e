// Filters for a long table: one select per named column (figure[data-filter-columns]), built
// from the values the column holds; rows that do not match every choice are hidden. The table
// reads whole without JavaScript, and the script inserts only text (textContent), never HTML.
(function () {
  "use strict";

  function setUp(figure) {
    var table = figure.querySelector("table");
    if (!table || !table.tHead) return;
    var wanted = figure.getAttribute("data-filter-columns").split("|");
    var headers = Array.prototype.map.call(table.tHead.rows[0].cells, function (th) { return th.textContent.trim(); });
    var rows = Array.prototype.slice.call(table.tBodies[0].rows);
    var bar = document.createElement("div");
    bar.className = "filters";
    var count = document.createElement("span");
    count.setAttribute("aria-live", "polite");
    var selects = [];
    wanted.forEach(function (name) {
      var column = headers.indexOf(name);
      if (column === -1) return;
      var values = {};
      rows.forEach(function (tr) { values[tr.cells[column].textContent.trim()] = true; });
      var label = document.createElement("label");
      label.appendChild(document.createTextNode(name + " "));
      var select = document.createElement("select");
      select.setAttribute("data-column", String(column));
      var any = document.createElement("option");
      any.value = ""; any.textContent = "all";
      select.appendChild(any);
      Object.keys(values).sort().forEach(function (v) {
        var o = document.createElement("option");
        o.value = v; o.textContent = v;
        select.appendChild(o);
      });
      select.addEventListener("input", apply);
      label.appendChild(select);
      bar.appendChild(label);
      selects.push(select);
    });
    bar.appendChild(count);

    function apply() {
      var shown = 0;
      rows.forEach(function (tr) {
        var keep = selects.every(function (s) {
          return !s.value || tr.cells[Number(s.getAttribute("data-column"))].textContent.trim() === s.value;
        });
        tr.hidden = !keep;
        if (keep) shown += 1;
      });
      count.textContent = shown + " of " + rows.length + " rows shown";
    }

    figure.insertBefore(bar, figure.querySelector(".scroll"));
    apply();
  }

  function start() {
    Array.prototype.forEach.call(document.querySelectorAll("figure[data-filter-columns]"), setUp);
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
