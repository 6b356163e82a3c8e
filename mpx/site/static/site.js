// mpx site: sortable tables and the leaderboard's filters. Optional: every table reads without it.
// Hand-written, vendored with mpx (no library, nothing fetched).
(function () {
  "use strict";
  function key(td) {
    if (!td) return "";
    var v = td.getAttribute("data-v");
    return v === null ? td.textContent.trim().toLowerCase() : parseFloat(v);
  }
  function compare(a, b) {
    var an = typeof a === "number", bn = typeof b === "number";
    if (an && bn) return a - b;
    if (an) return -1;          // numbers before text ("n/a", "not ranked")
    if (bn) return 1;
    return a < b ? -1 : a > b ? 1 : 0;
  }
  function sortBy(table, col, th) {
    var body = table.tBodies[0];
    var asc = th.getAttribute("aria-sort") !== "ascending";
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (c) { c.removeAttribute("aria-sort"); });
    th.setAttribute("aria-sort", asc ? "ascending" : "descending");
    var rows = Array.prototype.slice.call(body.rows).map(function (r, i) { return [key(r.cells[col]), i, r]; });
    rows.sort(function (x, y) {
      var c = compare(x[0], y[0]);
      return (asc ? c : -c) || x[1] - y[1];
    });
    rows.forEach(function (x) { body.appendChild(x[2]); });
  }
  document.querySelectorAll("table.sortable").forEach(function (table) {
    if (!table.tHead) return;
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, col) {
      th.tabIndex = 0;
      th.classList.add("sort");
      th.addEventListener("click", function () { sortBy(table, col, th); });
      th.addEventListener("keydown", function (e) { if (e.key === "Enter") sortBy(table, col, th); });
    });
  });
  var form = document.getElementById("filters");
  if (!form) return;
  form.hidden = false;
  function value(name) {
    var el = form.querySelector('[data-filter="' + name + '"]');
    return el.type === "checkbox" ? el.checked : el.value;
  }
  function apply() {
    var fam = value("family"), k = value("counters"), kind = value("kind"), best = value("best-schedule");
    var sched = value("scheduler");
    document.querySelectorAll("section.group").forEach(function (s) {
      var show = (!fam || s.getAttribute("data-family") === fam) && (!k || s.getAttribute("data-counters") === k);
      s.hidden = !show;
      s.querySelectorAll("tbody tr").forEach(function (r) {
        r.hidden = (kind && r.getAttribute("data-kind") !== kind) ||
                   (sched && r.getAttribute("data-scheduler") !== sched) ||
                   (best && r.getAttribute("data-best-schedule") !== "1");
      });
    });
  }
  form.addEventListener("change", apply);
})();
