// The discussions index: sort by a column's header, filter by protocol, status and text; a round's
// answers in tabs. Works from disk, with no network; reads only the table it is given and the page's query.
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
  // A round's answers: one tab per panelist (arrow keys move between them), or all side by side.
  // Without this script every answer is shown, one after another. A link to an answer's id opens its tab.
  function setUpTabs(box) {
    var list = box.querySelector(".discuss-tablist");
    if (!list || box.dataset.ready) return;
    box.dataset.ready = "1";
    var tabs = Array.prototype.slice.call(list.querySelectorAll("[role=tab]"));
    var layout = list.querySelector(".discuss-layout");
    function show(tab) {
      var side = box.classList.contains("discuss-side");
      tabs.forEach(function (t) {
        var on = t === tab;
        t.setAttribute("aria-selected", on ? "true" : "false");
        t.tabIndex = on ? 0 : -1;
        document.getElementById(t.getAttribute("aria-controls")).hidden = !on && !side;
      });
    }
    function selected() { return tabs.filter(function (t) { return t.getAttribute("aria-selected") === "true"; })[0] || tabs[0]; }
    tabs.forEach(function (tab, i) {
      tab.addEventListener("click", function () { show(tab); });
      tab.addEventListener("keydown", function (e) {
        var step = e.key === "ArrowRight" ? 1 : e.key === "ArrowLeft" ? -1 : 0;
        if (!step) return;
        var next = tabs[(i + step + tabs.length) % tabs.length];
        show(next);
        next.focus();
      });
    });
    layout.addEventListener("click", function () {
      var side = box.classList.toggle("discuss-side");
      layout.setAttribute("aria-pressed", side ? "true" : "false");
      show(selected());
    });
    var wanted = window.location.hash.slice(1);
    show(tabs.filter(function (t) { return t.getAttribute("aria-controls") === wanted; })[0] || selected());
    list.hidden = false;
  }
  function init() {
    document.querySelectorAll(".discuss-index").forEach(function (el) { setUp(el.parentNode); });
    document.querySelectorAll(".discuss-answers").forEach(setUpTabs);
  }
  // The theme's document$ announces pages swapped in by instant navigation; opened from disk it may
  // announce nothing, so the loaded page is set up here too (setting up twice does nothing).
  if (document.readyState === "loading") { document.addEventListener("DOMContentLoaded", init); } else { init(); }
  if (window.document$) window.document$.subscribe(init);
  window.addEventListener("hashchange", function () {
    var tab = document.querySelector('[role=tab][aria-controls="' + CSS.escape(window.location.hash.slice(1)) + '"]');
    if (tab) tab.click();
  });
})();
