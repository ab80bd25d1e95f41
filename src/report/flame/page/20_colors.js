"use strict";
// Frame colours: by a stable hash of the function's name, file or module,
// in warm hues (as flame graphs are), readable in light and dark schemes;
// diff colours (growth red, shrinkage blue, intensity by the change).
(function (PK) {
  function hsl(h, s, l) { return "hsl(" + Math.round(h) + "," + Math.round(s) + "%," + Math.round(l) + "%)"; }
  PK.colorKey = function (profile, f, mode) {
    if (f < 0) return "";
    if (mode === "module") return profile.str(profile.funcModule[f]) || "?";
    if (mode === "file") return profile.str(profile.funcFile[f]) || "?";
    return profile.funcLabel(f);
  };
  // Fill and text colour for a key. Dark mode: darker fills, light text.
  PK.frameColor = function (key, dark, mode) {
    var h = PK.hash(key);
    var hue, sat, light;
    if (mode === "name") {          // flamegraph.pl's warm palette: red to yellow
      hue = 8 + (h % 48);
      sat = 70 + ((h >>> 8) % 25);
      light = dark ? 30 + ((h >>> 16) % 12) : 58 + ((h >>> 16) % 14);
    } else {                        // files, modules: the whole wheel, one hue each
      hue = h % 360;
      sat = 45 + ((h >>> 9) % 25);
      light = dark ? 32 + ((h >>> 17) % 10) : 66 + ((h >>> 17) % 12);
    }
    return { fill: hsl(hue, sat, light), text: dark ? "#f2f2f2" : "#111" };
  };
  PK.rootColor = function (dark) { return { fill: dark ? "#555a66" : "#c9ccd4", text: dark ? "#f2f2f2" : "#111" }; };
  PK.otherColor = function (dark) { return { fill: dark ? "#3d4048" : "#dcdcdc", text: dark ? "#cfcfcf" : "#333" }; };
  PK.matchColor = function (dark) { return { fill: dark ? "#b03aa8" : "#e070e0", text: dark ? "#fff" : "#111" }; };
  PK.dimColor = function (dark) { return { fill: dark ? "#2b2d33" : "#eceef2", text: dark ? "#8a8d96" : "#7a7d86" }; };
  // Diff: growth red, shrinkage blue; intensity by |change| / scale (0..1).
  PK.diffColor = function (delta, scale, dark) {
    var t = scale > 0 ? Math.min(1, Math.sqrt(Math.abs(delta) / scale)) : 0;
    if (!delta || t < 0.02) return { fill: dark ? "#4a4c52" : "#e4e4e4", text: dark ? "#f2f2f2" : "#111" };
    var hue = delta > 0 ? 0 : 220;
    var light = dark ? 22 + 26 * t : 92 - 40 * t;
    return { fill: hsl(hue, 80, light), text: dark ? "#fff" : "#111" };
  };
  // Diff: a function only in NEW, the strongest growth with a darker hue;
  // one only in BASE (gone), hatched (a canvas pattern: fill may be one).
  PK.addedColor = function (dark) { return { fill: dark ? "hsl(340,85%,42%)" : "hsl(340,85%,50%)", text: "#fff", key: "new" }; };
  var hatch = {};
  PK.removedColor = function (dark, ctx) {
    var k = dark ? "dark" : "light";
    if (!hatch[k] && typeof document !== "undefined") {
      var c = document.createElement("canvas"), g;
      c.width = c.height = 8;
      g = c.getContext("2d");
      g.fillStyle = dark ? "#2f3f5a" : "#dbe6f7"; g.fillRect(0, 0, 8, 8);
      g.strokeStyle = dark ? "#7fa4e0" : "#4a78c2"; g.lineWidth = 1.5;
      g.beginPath(); g.moveTo(-2, 10); g.lineTo(10, -2); g.moveTo(-2, 2); g.lineTo(2, -2); g.moveTo(6, 10); g.lineTo(10, 6); g.stroke();
      hatch[k] = { canvas: c, pattern: null };
    }
    var h = hatch[k];
    if (h && ctx && !h.pattern) h.pattern = ctx.createPattern(h.canvas, "repeat");
    return { fill: h && h.pattern ? h.pattern : (dark ? "#2f3f5a" : "#dbe6f7"), text: dark ? "#f2f2f2" : "#111", key: "removed" };
  };
  // The diff's colour legend (a DOM element): slower, faster, new, removed.
  PK.diffLegend = function (dark) {
    var box = document.createElement("span");
    box.className = "pk-legend";
    box.id = "pk-legend";
    var items = [["slower (grew)", PK.diffColor(1, 1, dark).fill], ["faster (shrank)", PK.diffColor(-1, 1, dark).fill],
                 ["new (only in NEW)", PK.addedColor(dark).fill], ["removed (only in BASE, at its BASE size)", null]];
    items.forEach(function (it) {
      var sw = document.createElement("span");
      sw.className = "pk-swatch" + (it[1] ? "" : " pk-hatch");
      if (it[1]) sw.style.background = it[1];
      var l = document.createElement("span");
      l.className = "pk-legend-item";
      l.appendChild(sw);
      l.appendChild(document.createTextNode(it[0]));
      box.appendChild(l);
    });
    return box;
  };
})(typeof globalThis !== "undefined" ? (globalThis.profkit = globalThis.profkit || {}) : (this.profkit = this.profkit || {}));
