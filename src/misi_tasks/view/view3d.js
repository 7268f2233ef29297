// misi-view: the 3-D view of an item page, drawn by the vendored 3Dmol.js from structures/<complex>.js.
(function () {
  "use strict";
  var el = document.getElementById("viewer3d");
  if (!el) { return; }
  var s = (window.MISI_STRUCTURES || {})[el.getAttribute("data-complex")];
  if (!s || !window.$3Dmol) { el.textContent = "3-D view unavailable (structure or viewer not found)"; return; }
  var viewer = window.$3Dmol.createViewer(el, { backgroundColor: "black" });
  var pocket = viewer.addModel(s.pocket, s.pocketFormat);
  var ligand = viewer.addModel(s.ligand, s.ligandFormat);
  pocket.setStyle({}, { stick: { radius: 0.12, colorscheme: "purpleCarbon" } });   // the ligand stands out in grey
  ligand.setStyle({}, { stick: { radius: 0.2, colorscheme: "Jmol" }, sphere: { scale: 0.3, colorscheme: "Jmol" } });
  pocket.setStyle({ elem: "H" }, {});
  ligand.setStyle({ elem: "H" }, {});
  viewer.zoomTo({ model: ligand });
  viewer.zoom(0.5);
  viewer.render();
  el.setAttribute("data-atoms", String(pocket.selectedAtoms({}).length + ligand.selectedAtoms({}).length));
  window.misiViewer = viewer;
})();
