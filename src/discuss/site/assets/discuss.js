// The discussions index: sort by a column's header, filter by protocol, status and text.
// Works from disk, with no network; reads only the table it is given and the page's query.
(function () {
  function setUp(root) {
    var table = root.querySelector("table[data-sortable]");
    if (!table || table.dataset.ready) return;
    table.dataset.ready = "1";
    var body = table.tBodies[0];
    var filters = root.querySelector(".discuss-filters");
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, col) {
      th.tabIndex = 0;
      th.setAttribute("aria-sort", "none");
      function sort() {
        var up = th.getAttribute("aria-sort") !== "ascending";
        var numeric = th.dataset.type === "number";
        var rows = Array.prototype.slice.call(body.rows);
        rows.sort(function (a, b) {
          var x = a.cells[col].dataset.value || a.cells[col].textContent.trim();
          var y = b.cells[col].dataset.value || b.cells[col].textContent.trim();
          var order = numeric ? parseFloat(x) - parseFloat(y) : x.localeCompare(y);
          return up ? order : -order;
        });
        rows.forEach(function (r) { body.appendChild(r); });
        Array.prototype.forEach.call(table.tHead.rows[0].cells, function (c) { c.setAttribute("aria-sort", "none"); });
        th.setAttribute("aria-sort", up ? "ascending" : "descending");
      }
      th.addEventListener("click", sort);
      th.addEventListener("keydown", function (e) { if (e.key === "Enter") sort(); });
    });
    if (!filters) return;
    filters.hidden = false;
    function apply() {
      var want = {};
      filters.querySelectorAll("[data-filter]").forEach(function (el) { want[el.dataset.filter] = el.value.toLowerCase(); });
      Array.prototype.forEach.call(body.rows, function (r) {
        var show = (!want.protocol || r.dataset.protocol === want.protocol) &&
          (!want.status || r.dataset.status === want.status) &&
          (!want.text || r.textContent.toLowerCase().indexOf(want.text) >= 0);
        r.hidden = !show;
      });
    }
    filters.addEventListener("input", apply);
    filters.addEventListener("change", apply);
    // A view can be linked: ?status=active&protocol=vote&text=power&sort=rounds&order=desc
    var params = new URLSearchParams(window.location.search);
    filters.querySelectorAll("[data-filter]").forEach(function (el) {
      if (params.get(el.dataset.filter)) el.value = params.get(el.dataset.filter);
    });
    apply();
    var by = (params.get("sort") || "").toLowerCase();
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th) {
      if (by && th.textContent.trim().toLowerCase() === by) {
        th.click();
        if (params.get("order") === "desc") th.click();
      }
    });
  }
  function init() { document.querySelectorAll(".discuss-index").forEach(function (el) { setUp(el.parentNode); }); }
  if (window.document$) { window.document$.subscribe(init); } else { document.addEventListener("DOMContentLoaded", init); }
})();
