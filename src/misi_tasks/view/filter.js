// misi-view: the filters of items.html (task, complex, and one model's outcome). No dependencies.
(function () {
  "use strict";
  var form = document.getElementById("filters");
  var rows = Array.prototype.slice.call(document.querySelectorAll("#itemlist tbody tr"));
  var count = document.getElementById("f-count");
  function value(id) { var el = document.getElementById(id); return el ? el.value : ""; }
  function apply() {
    var task = value("f-task"), cplx = value("f-complex"), model = value("f-model"), out = value("f-outcome");
    var shown = 0;
    rows.forEach(function (tr) {
      var ok = (!task || tr.getAttribute("data-task") === task) &&
               (!cplx || tr.getAttribute("data-complex") === cplx) &&
               (!out || tr.getAttribute("data-o" + model) === out);
      tr.hidden = !ok;
      if (ok) { shown += 1; }
    });
    count.textContent = shown + " of " + rows.length + " items";
  }
  if (form) { form.addEventListener("change", apply); apply(); }
})();
