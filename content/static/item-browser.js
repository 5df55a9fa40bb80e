// Item browser for run pages: filter, sort and page through a run's items.
// All text comes from data and is inserted with textContent, never as HTML.
(function () {
  "use strict";
  var SOURCES = { L: "literal", C: "cultural", P: "pragmatic", G: "gold" };
  var PAGE = 200;

  function el(tag, text, cls) {
    var node = document.createElement(tag);
    if (text !== undefined && text !== null) node.textContent = String(text);
    if (cls) node.className = cls;
    return node;
  }

  function rowsFor(data, items) {
    var t2 = data.task === "equivalent_selection";
    return data.items.map(function (r) {
      var item = items[String(r[0])] || [];
      var options = [];
      if (t2) {
        for (var i = 0; i < 4; i++) {
          var code = r[1].charAt(i);
          var text = { L: item[4], C: item[5], P: item[6], G: item[7] }[code.toUpperCase()];
          options.push("ABCD".charAt(i) + ". " + (text || "") + " [" + (data.slots || SOURCES)[code] + "]");
        }
      }
      var status = r[5] ? "failed" : (r[2] === "" ? "unparsed" : (r[2] === r[3] ? "right" : "wrong"));
      return {
        id: r[0], term: item[0] || "", category: item[1] || "", options: options.join("\n"),
        prediction: r[5] ? "(failed request)" : (r[2] === "" ? "(unparsed)" : r[2]), gold: r[3],
        response: r[5] ? "error: " + r[5] : (r[4] === null ? "" : r[4]),
        error: r[5] || "", status: status, effect: r[6] || ""
      };
    });
  }

  function start() {
    var root = document.getElementById("browser");
    var source = document.getElementById("run-items");
    if (!root || !source || !window.BUZZ_ITEMS) return;
    var data = JSON.parse(source.textContent);
    var all = rowsFor(data, window.BUZZ_ITEMS);
    var t2 = data.task === "equivalent_selection";
    var columns = [["id", "Row"], ["term", "Term"], ["category", "Category"]]
      .concat(t2 ? [["options", "Options"]] : [])
      .concat([["gold", "Gold"], ["prediction", "Prediction"], ["status", "Result"], ["response", "Response"]]);
    var state = { sort: "id", dir: 1, shown: PAGE };
    var search = document.getElementById("browser-search");
    var filter = document.getElementById("browser-filter");
    var category = document.getElementById("browser-category");
    var count = document.getElementById("browser-count");
    var more = document.getElementById("browser-more");
    var table = document.getElementById("browser-table");

    var cats = {};
    all.forEach(function (r) { cats[r.category] = true; });
    Object.keys(cats).sort().forEach(function (c) { var o = el("option", c); o.value = c; category.appendChild(o); });

    var head = el("tr");
    columns.forEach(function (col) {
      var th = el("th");
      var button = el("button", col[1], "sort");
      button.type = "button";
      button.addEventListener("click", function () {
        state.dir = state.sort === col[0] ? -state.dir : 1;
        state.sort = col[0];
        draw();
      });
      th.scope = "col";
      th.appendChild(button);
      head.appendChild(th);
    });
    table.tHead.appendChild(head);

    function visible() {
      var q = search.value.trim().toLowerCase();
      return all.filter(function (r) {
        if (filter.value === "fixed" || filter.value === "broken") {
          if (r.effect !== filter.value) return false;
        } else if (filter.value !== "all" && r.status !== filter.value) return false;
        if (category.value && r.category !== category.value) return false;
        if (!q) return true;
        return (r.term + "\n" + r.options + "\n" + r.response).toLowerCase().indexOf(q) !== -1;
      }).sort(function (a, b) {
        var x = a[state.sort], y = b[state.sort];
        return (x < y ? -1 : x > y ? 1 : a.id - b.id) * state.dir;
      });
    }

    function draw() {
      var rows = visible();
      var body = table.tBodies[0];
      while (body.firstChild) body.removeChild(body.firstChild);
      rows.slice(0, state.shown).forEach(function (r) {
        var tr = el("tr", null, "status-" + r.status);
        tr.id = "item-" + r.id;
        columns.forEach(function (col) {
          var td = el("td", col[0] === "id" ? null : r[col[0]], col[0] === "options" || col[0] === "response" ? "pre" : "");
          if (col[0] === "id") {
            var link = el("a", r.id);
            link.href = "#item-" + r.id;
            link.title = "Link to this item";
            td.appendChild(link);
          }
          tr.appendChild(td);
        });
        body.appendChild(tr);
      });
      count.textContent = Math.min(rows.length, state.shown) + " of " + rows.length + " items shown";
      more.parentNode.hidden = rows.length <= state.shown;
    }

    [search, filter, category].forEach(function (input) {
      input.addEventListener("input", function () { state.shown = PAGE; draw(); });
    });
    more.addEventListener("click", function () { state.shown += PAGE; draw(); });

    // A permalink (#item-<row_id>) shows its item whatever the filters, and marks it.
    function reveal() {
      var match = /^#item-(\d+)$/.exec(window.location.hash);
      if (!match) return;
      var at = visible().map(function (r) { return String(r.id); }).indexOf(match[1]);
      if (at === -1) {
        search.value = ""; filter.value = "all"; category.value = "";
        at = visible().map(function (r) { return String(r.id); }).indexOf(match[1]);
      }
      if (at === -1) return;
      state.shown = Math.max(state.shown, Math.ceil((at + 1) / PAGE) * PAGE);
      draw();
      var row = document.getElementById("item-" + match[1]);
      Array.prototype.forEach.call(table.querySelectorAll("tr.target"), function (t) { t.classList.remove("target"); });
      row.classList.add("target");
      row.scrollIntoView({ block: "center" });
    }
    window.addEventListener("hashchange", reveal);
    root.querySelector(".controls").hidden = false;
    draw();
    reveal();
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
