// pglab serve: click a column head of a table.sortable to sort its rows
// (again to reverse). Cells sort by their data-sort value when they have
// one, else by their text; numbers as numbers. The pages work without it.
"use strict";
(function () {
  function key(cell) {
    var v = cell.hasAttribute("data-sort") ? cell.getAttribute("data-sort") : cell.textContent.trim();
    var n = v === "" ? NaN : Number(v);
    return { n: isFinite(n) ? n : null, s: v.toLowerCase() };
  }
  function compare(a, b) {
    if (a.n !== null && b.n !== null) return a.n - b.n;
    if (a.n !== null) return -1;
    if (b.n !== null) return 1;
    return a.s < b.s ? -1 : a.s > b.s ? 1 : 0;
  }
  function sortBy(table, th, col) {
    var body = table.tBodies[0];
    if (!body) return;
    var dir = th.getAttribute("aria-sort") === "ascending" ? -1 : 1;
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (c) { c.removeAttribute("aria-sort"); });
    th.setAttribute("aria-sort", dir === 1 ? "ascending" : "descending");
    var rows = Array.prototype.slice.call(body.rows);
    var keyed = rows.map(function (r, i) { return { r: r, k: key(r.cells[col] || r), i: i }; });
    keyed.sort(function (a, b) { return dir * compare(a.k, b.k) || a.i - b.i; });
    keyed.forEach(function (x) { body.appendChild(x.r); });
  }
  document.addEventListener("DOMContentLoaded", function () {
    document.querySelectorAll("table.sortable").forEach(function (table) {
      if (!table.tHead) return;
      Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, col) {
        if (th.hasAttribute("data-nosort")) return;
        th.addEventListener("click", function () { sortBy(table, th, col); });
      });
    });
  });
})();
