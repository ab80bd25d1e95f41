"use strict";
// Counter tracks (docs/viewer.md, "Counters"): below the timeline, one
// track per counter of the profile (a Gecko profile's memory and power
// counters), drawn over the timeline's range with its time axis: the
// running sum of the counts (for memory: the bytes in use relative to the
// first sample, as the Firefox Profiler's memory track). In a range the
// track starts at the running sum carried in from the last sample before
// it and holds the last one to the range's end; it is scaled as the
// Firefox Profiler scales it, from the lowest to the highest sum over the
// samples in the range, the last one before it, the one before that and
// the first one after. Hover: the sample's time, the sum, the count
// (allocated minus freed) and the number of events (allocations and
// frees). The canvas's data-max and data-start hold, per counter, that
// highest sum and the sum carried in (what `profkit counters --json
// --range` gives as total.max and total.start). Drawn by the hook in
// 55_time_app.js after the timeline.
(function (PK) {
  var ROW = 34, GAP = 2;

  function bytes(v) {
    var a = Math.abs(v), u = ["B", "KB", "MB", "GB", "TB"], k = 0;
    while (a >= 1000 && k < u.length - 1) { a /= 1000; k++; }
    return (v < 0 ? "-" : "") + (k ? a.toFixed(a < 10 ? 2 : 1) : String(a)) + u[k];
  }
  function amount(c, v) { return c.category === "Memory" ? bytes(v) : String(v); }

  // The rows of c in [a, b) ms: i..j (j exclusive); row i - 1 (when i > 0)
  // is the one the line enters from.
  function visible(p, c, a, b) {
    var n = c.t.length, i = 0, j = n;
    var lo = p.nsOf(a), hi = p.nsOf(b);
    while (i < n && c.t[i] < lo) i++;
    j = i;
    while (j < n && c.t[j] < hi) j++;
    return [i, j];
  }
  // The lowest and highest running sum the track is scaled to: rows i..j
  // (j: the first after the range) and the two before i (analysis/counters.h).
  function extent(c, i, j) {
    var lo = Infinity, hi = -Infinity, n = c.total.length;
    for (var r = Math.max(0, i - 2); r <= j && r < n; r++) { lo = Math.min(lo, c.total[r]); hi = Math.max(hi, c.total[r]); }
    return [lo, hi];
  }

  function Track(app) {
    this.app = app;
    var cv = this.canvas = document.createElement("canvas");
    cv.className = "pk-counters-canvas";
    cv.id = "pk-counters-canvas";
    cv.style.display = "block";
    var host = app.timeline.host;
    host.parentNode.insertBefore(cv, host.nextSibling);
    this.ctx = cv.getContext("2d");
    var self = this;
    cv.addEventListener("mousemove", function (e) {
      var r = cv.getBoundingClientRect();
      self.hover(e.clientX - r.left, e.clientY - r.top, e.clientX, e.clientY);
    });
    cv.addEventListener("mouseleave", function () { app.hideHover(); });
  }

  Track.prototype.draw = function () {
    var app = this.app, p = app.p, L = app.timeline.layout, list = this.list;
    if (!L) return;
    var width = L.width, gutter = width - L.W, a = L.a, b = L.b, span = b - a || 1;
    var key = [a, b, width, app.dark, window.devicePixelRatio || 1].join("|");
    if (key === this._key) return;
    this._key = key;
    var height = list.length * (ROW + GAP) + 2, dpr = window.devicePixelRatio || 1, cv = this.canvas, ctx = this.ctx;
    cv.width = Math.round(width * dpr); cv.height = Math.round(height * dpr);
    cv.style.width = width + "px"; cv.style.height = height + "px";
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, width, height);
    ctx.font = "11px system-ui, -apple-system, 'Segoe UI', sans-serif";
    ctx.textBaseline = "middle";
    var dark = app.dark, maxes = [], starts = [];
    this.rows = [];
    for (var k = 0; k < list.length; k++) {
      var c = list[k], y = k * (ROW + GAP), v = visible(p, c, a, b), i = v[0], j = v[1];
      var e = extent(c, i, j), lo = e[0], hi = e[1], r;
      maxes.push(c.total.length ? hi : null);
      starts.push(i > 0 ? c.total[i - 1] : 0);
      var i0 = i > 0 ? i - 1 : i; // the row the line starts from
      this.rows.push({ c: c, i: i0, j: j });
      ctx.fillStyle = dark ? "#ddd" : "#222";
      var th = c.thread >= 0 ? p.threadLabel(c.thread + 1) : "";
      ctx.fillText((c.name + " (" + c.category + ")").slice(0, 28), 4, y + ROW / 2 - 6);
      ctx.fillStyle = dark ? "#888" : "#777";
      ctx.fillText(th.slice(0, 30), 4, y + ROW / 2 + 7);
      ctx.strokeStyle = dark ? "#333" : "#eee";
      ctx.strokeRect(gutter + 0.5, y + 0.5, L.W - 1, ROW - 1);
      if (j <= i0) continue;
      var range = hi - lo || 1, yOf = function (t) { return y + ROW - 3 - (t - lo) / range * (ROW - 6); };
      var color = c.category === "Memory" ? "#e8890c" : "#888";
      ctx.beginPath();
      var x0 = gutter + Math.max(0, (p.msOf(c.t[i0]) - a) / span * L.W);
      ctx.moveTo(x0, y + ROW - 3);
      for (r = i0; r < j; r++) {
        var x = gutter + Math.max(0, (p.msOf(c.t[r]) - a) / span * L.W);
        if (r > i0) ctx.lineTo(x, yOf(c.total[r - 1])); // a step: the sum holds until the next sample
        ctx.lineTo(x, yOf(c.total[r]));
      }
      ctx.lineTo(gutter + L.W, yOf(c.total[j - 1]));
      ctx.lineTo(gutter + L.W, y + ROW - 3);
      ctx.closePath();
      ctx.globalAlpha = 0.35; ctx.fillStyle = color; ctx.fill();
      ctx.globalAlpha = 1; ctx.strokeStyle = color; ctx.stroke();
    }
    cv.setAttribute("data-max", JSON.stringify(maxes));
    cv.setAttribute("data-start", JSON.stringify(starts));
  };

  Track.prototype.hover = function (x, y, cx, cy) {
    var app = this.app, p = app.p, L = app.timeline.layout, k = Math.floor(y / (ROW + GAP));
    var row = this.rows && this.rows[k], gutter = L ? L.width - L.W : 0;
    if (!row || x < gutter || row.j <= row.i) { app.hideHover(); return; }
    var ms = L.a + (x - gutter) / L.W * (L.b - L.a), ns = p.nsOf(ms), c = row.c, r = row.i;
    while (r + 1 < row.j && c.t[r + 1] <= ns) r++;
    var add = app.hoverRows(c.name + " (" + c.category + ")");
    add("Time", PK.formatMs(p.msOf(c.t[r])));
    add(c.category === "Memory" ? "In use (relative)" : "Sum", amount(c, c.total[r]));
    add(c.category === "Memory" ? "Allocated - freed" : "Count", (c.count[r] > 0 ? "+" : "") + amount(c, c.count[r]));
    if (c.number[r]) add(c.category === "Memory" ? "Allocations and frees" : "Events", String(c.number[r]));
    app.placeHover(cx, cy);
  };

  PK.counterTrack = function (app) {
    var d = app.p.data.time, list = d && d.counters;
    if (!list || !list.length || !app.timeline || !app.timeline.host) return;
    if (!app._counterTrack) { app._counterTrack = new Track(app); app._counterTrack.list = list; }
    app._counterTrack.draw();
  };
})(typeof globalThis !== "undefined" ? (globalThis.profkit = globalThis.profkit || {}) : (this.profkit = this.profkit || {}));
