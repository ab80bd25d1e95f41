"use strict";
// The timeline above the views (timed profiles): a time axis, one track
// per thread grouped by process with its activity graph (the shown value
// of its samples per pixel column), and the marker chart of the shown
// thread (a row per marker name, a box per interval, a tick per instant),
// and the profiler's paused ranges as hatched bands over their process's
// tracks. One canvas: columns are aggregated, never a DOM node per sample
// or marker. Dragging selects a time range (it narrows every view); a click on
// a marker selects its range.
(function (PK) {
  var AXIS = 18, TRACK = 26, MROW = 14, GUTTER = 170, MAX_MROWS = 40;

  // Nice ticks over [a, b] ms for about one per `px` pixels of width w:
  // [{ms, label}].
  PK.timeTicks = function (a, b, w, px) {
    var span = b - a;
    if (!(span > 0) || !(w > 0)) return [];
    var raw = span * (px || 100) / w, p10 = Math.pow(10, Math.floor(Math.log10(raw))), step = p10;
    [1, 2, 5, 10].some(function (m) { step = m * p10; return step >= raw; });
    var out = [], digits = Math.max(0, -Math.floor(Math.log10(step)));
    for (var t = Math.ceil(a / step) * step; t <= b; t += step) {
      var label = Math.abs(step) >= 1000 ? (t / 1000).toFixed(Math.max(0, digits - 3)) + " s" : t.toFixed(digits) + " ms";
      out.push({ ms: t, label: label });
      if (out.length > 200) break;
    }
    return out;
  };
  PK.formatMs = function (ms) {
    var a = Math.abs(ms);
    return (a >= 100 ? ms.toFixed(2) : ms.toFixed(3)) + " ms";
  };

  function Timeline(host, app) {
    this.app = app;
    this.host = host;
    this.canvas = document.createElement("canvas");
    this.canvas.className = "pk-tl-canvas";
    this.canvas.id = "pk-timeline-canvas";
    this.sel = document.createElement("div");
    this.sel.className = "pk-tl-sel";
    this.sel.hidden = true;
    host.appendChild(this.canvas);
    host.appendChild(this.sel);
    this.ctx = this.canvas.getContext("2d");
    this._prefix = {};
    this._rows = {};
    this.wire();
  }
  // The tracks: threads with samples grouped by process (name, pid), in the
  // profile's order of first appearance.
  Timeline.prototype.tracks = function () {
    if (this._tracks) return this._tracks;
    var p = this.app.p, groups = [], byKey = {};
    p.threads.forEach(function (th, i) {
      if (th.merged || !(p.timeline(i) || th.activity)) return;
      var key = p.str(th.process) + "\u0000" + th.pid;
      if (!byKey[key]) groups.push(byKey[key] = { process: p.str(th.process), pid: th.pid, threads: [] });
      byKey[key].threads.push(i);
    });
    var out = [];
    groups.forEach(function (g) { g.threads.forEach(function (t, k) { out.push({ thread: t, first: k === 0, group: g }); }); });
    return (this._tracks = out);
  };
  // Prefix sums of value v over thread t's samples: the activity of a
  // column is one subtraction.
  Timeline.prototype.prefix = function (t, v) {
    var k = t + ":" + v;
    if (this._prefix[k]) return this._prefix[k];
    var tl = this.app.p.timeline(t), n = tl.n, P = new Float64Array(n + 1), w = tl.value[v];
    if (typeof w === "number") for (var i = 0; i < n; i++) P[i + 1] = P[i] + w;
    else for (var j = 0; j < n; j++) P[j + 1] = P[j] + w[j];
    return (this._prefix[k] = P);
  };
  // CPU share (Gecko's threadCPUDelta, as the Firefox Profiler draws it):
  // per sample its CPU use over the time since the sample before (time: ns),
  // relative to the most the thread could use then: all of a core for "µs"
  // and "ns", else (CPU cycles) the highest rate of its samples; 0..1, 0
  // for a sample without a delta.
  PK.cpuRatios = function (time, cpu, unit) {
    var n = time.length, r = new Float64Array(n), rate = new Float64Array(n), max = 0;
    for (var i = 0; i < n; i++) {
      var dt = i > 0 ? time[i] - time[i - 1] : n > 1 ? time[1] - time[0] : 0, d = cpu[i];
      rate[i] = d > 0 && dt > 0 ? d / dt : 0;
      if (rate[i] > max) max = rate[i];
    }
    if (unit === "\u00b5s" || unit === "\u03bcs" || unit === "us") max = 1e-3;
    else if (unit === "ns") max = 1;
    for (var j = 0; j < n; j++) r[j] = max > 0 ? Math.min(1, rate[j] / max) : 0;
    return r;
  };
  // Prefix sums of thread t's CPU shares, or null when it has no deltas.
  Timeline.prototype.cpuPrefix = function (t) {
    var k = t + ":cpu";
    if (this._prefix[k] !== undefined) return this._prefix[k];
    var d = this.app.p.threads[t].timeline, tl = this.app.p.timeline(t);
    if (!tl || !d || !tl.cpu) return (this._prefix[k] = null);
    var r = PK.cpuRatios(tl.time, tl.cpu, d.cpu_unit), P = new Float64Array(tl.n + 1);
    for (var i = 0; i < tl.n; i++) P[i + 1] = P[i] + r[i];
    return (this._prefix[k] = P);
  };
  // The marker rows of thread t (-1: every thread): a row per name, in
  // order of first appearance, each with its markers' indexes.
  // Two passes over typed arrays, then each drawn row's bins (rowGrid).
  Timeline.prototype.markerRows = function (t) {
    if (this._rows[t]) return this._rows[t];
    var self = this, p = this.app.p, T = p.time();
    if (!T.markersReady()) {
      // Read after this frame (the first view first), a column per task,
      // then drawn.
      if (!this._parsing) {
        this._parsing = true;
        var t0 = performance.now();
        T.loadMarkers(function () {
          self.app.timings.markers = performance.now() - t0;
          if (T.markersError && self.app.renderRangeCrumbs) self.app.renderRangeCrumbs();
          if (self.app.state) self.app.render("markers");
        });
      }
      return [];
    }
    var M = T.markers, job = new RowsJob(p, M, t, T.end - T.zero);
    if (M.n <= SYNC_ROWS) { while (!job.step(Infinity)); return (this._rows[t] = job.rows); }
    // Many markers: the rows made in slices of a few ms (the page answers
    // input meanwhile), then drawn.
    if (!this._job || this._job.t !== t) {
      var gen = this._job = job;
      var slice = function () {
        if (self._job !== gen) return;
        if (!gen.step(performance.now() + 8)) { setTimeout(slice, 0); return; }
        self._rows[t] = gen.rows;
        self._job = null;
        if (self.app.state) self.app.render("markers");
      };
      setTimeout(slice, 0);
    }
    return [];
  };
  // Markers past this many: a thread's rows are made in slices.
  var SYNC_ROWS = 200000;
  // The rows of thread t in steps: a pass counting each name's markers,
  // one filling the rows, then the bins of each row the chart draws.
  // step(until) works until the time `until` and says whether it is done.
  function RowsJob(p, M, t, whole) {
    this.p = p; this.M = M; this.t = t; this.whole = whole;
    this.phase = 0; this.i = 0; this.rows = null;
    this.row = new Int32Array(p.strings.length).fill(-1); this.count = []; this.names = [];
  }
  RowsJob.prototype.step = function (until) {
    var M = this.M, t = this.t, i, r, CH = 65536;
    while (performance.now() < until || until === Infinity) {
      if (this.phase === 0) {
        var row = this.row, count = this.count, names = this.names;
        for (i = this.i; i < M.n && i < this.i + CH; i++) {
          if (t >= 0 && M.thread[i] !== t) continue;
          r = row[M.name[i]];
          if (r < 0) { r = row[M.name[i]] = count.length; count.push(0); names.push(M.name[i]); }
          count[r]++;
        }
        this.i = i;
        if (i >= M.n) {
          var p = this.p;
          this.rows = names.map(function (nm, k) { return { name: p.str(nm), list: new Int32Array(count[k]), fill: 0, sorted: true, maxDur: 0 }; });
          this.phase = 1; this.i = 0;
        }
      } else if (this.phase === 1) {
        var rows = this.rows, rw = this.row;
        for (i = this.i; i < M.n && i < this.i + CH; i++) {
          if (t >= 0 && M.thread[i] !== t) continue;
          var x = rows[rw[M.name[i]]];
          if (x.fill && M.start[x.list[x.fill - 1]] > M.start[i]) x.sorted = false;
          if (M.duration[i] > x.maxDur) x.maxDur = M.duration[i];
          x.list[x.fill++] = i;
        }
        this.i = i;
        if (i >= M.n) { this.phase = 2; this.i = 0; this.row = null; }
      } else {
        if (this.i >= Math.min(this.rows.length, MAX_MROWS) || this.whole <= 0) return true;
        var rw0 = this.rows[this.i++];
        if (rw0.list.length > GRID_ROW_MIN) rowGrid(rw0, M, this.whole);
      }
    }
    return false;
  };
  // The time shown: the selected range, else the root range (ms).
  Timeline.prototype.extent = function () {
    var p = this.app.p, T = p.time();
    return p.range ? p.range.slice() : [0, (T.end - T.zero) / 1e6];
  };
  Timeline.prototype.draw = function (width) {
    var t0 = performance.now(), p = this.app.p, st = this.app.state, v = this.app.v(), T = p.time();
    var tracks = this.tracks(), mt = p.threadIndex(st.thread);
    var rows = this.markerRows(mt), nm = Math.min(rows.length, MAX_MROWS);
    // Drawn again only when something it shows changed.
    var key = [p.range ? p.range.join("-") : "", st.thread, v, width, this.app.dark, window.devicePixelRatio || 1, rows.length].join("|");
    if (key === this._key) return (this.drawMs = 0);
    this._key = key;
    var height = AXIS + tracks.length * TRACK + (nm ? 4 + nm * MROW : 0) + 2;
    var dpr = window.devicePixelRatio || 1, cv = this.canvas, ctx = this.ctx;
    if (cv.width !== Math.round(width * dpr) || cv.height !== Math.round(height * dpr)) {
      cv.width = Math.round(width * dpr); cv.height = Math.round(height * dpr);
      cv.style.width = width + "px"; cv.style.height = height + "px";
    }
    var dark = this.app.dark, fg = dark ? "#ddd" : "#222", dim = dark ? "#888" : "#777";
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, width, height);
    ctx.font = "11px system-ui, -apple-system, 'Segoe UI', sans-serif";
    ctx.textBaseline = "middle";
    var ext = this.extent(), a = ext[0], b = ext[1], W = Math.max(1, width - GUTTER), span = b - a || 1;
    var xOf = function (ms) { return GUTTER + (ms - a) / span * W; };
    this.layout = { a: a, b: b, W: W, width: width, tracks: tracks, rows: rows, nm: nm, mt: mt };
    // Axis.
    ctx.fillStyle = dim;
    ctx.strokeStyle = dark ? "#444" : "#ddd";
    PK.timeTicks(a, b, W, 110).forEach(function (tk) {
      var x = Math.round(xOf(tk.ms)) + 0.5;
      ctx.beginPath(); ctx.moveTo(x, AXIS - 5); ctx.lineTo(x, height); ctx.stroke();
      ctx.fillText(tk.label, x + 3, AXIS / 2);
    });
    // Tracks: the activity graph, aggregated per pixel column.
    var cols = Math.max(1, Math.floor(W)), nsA = p.nsOf(a), nsPer = span * 1e6 / cols;
    var bounds = new Float64Array(cols + 1);
    for (var c = 0; c <= cols; c++) bounds[c] = nsA + c * nsPer;
    var col = new Float64Array(cols);
    for (var k = 0; k < tracks.length; k++) {
      var tr = tracks[k], y = AXIS + k * TRACK, t = tr.thread, tl = p.timeline(t);
      if (t === st.thread) { ctx.fillStyle = dark ? "#26324a" : "#e8f0ff"; ctx.fillRect(0, y, width, TRACK); }
      ctx.fillStyle = fg;
      var th = p.threads[t], label = p.str(th.name) + (th.tid >= 0 ? " " + th.tid : "");
      if (tr.first) {
        ctx.fillStyle = dim;
        ctx.fillText((tr.group.process || "process") + (tr.group.pid >= 0 ? " " + tr.group.pid : ""), 4, y + 7);
        ctx.fillStyle = fg;
      }
      ctx.fillText(label, 12, y + TRACK - 8);
      // A column's height: its share of what the thread would record
      // there if it ran all the time (its mean value per sample times the
      // samples of that span at its mean interval), as the Firefox
      // Profiler's graph fills a busy thread's height.
      var max = 0;
      if (!tl) max = this.binColumns(p.threads[t].activity, a, span, cols, col);
      else {
      var P = this.prefix(t, v), n = tl.n, interval = n > 1 ? (tl.time[n - 1] - tl.time[0]) / (n - 1) : nsPer;
      // With CPU deltas the height is the CPU share: the column's samples'
      // shares over the samples it can hold at the mean interval.
      var R = this.cpuPrefix(t), slots = Math.max(1, nsPer / (interval || nsPer));
      var full = (P[n] / Math.max(1, n)) * Math.max(1, nsPer / (interval || nsPer));
      // Zoomed in past the interval, a sample covers the columns until the
      // next one (no comb of single columns).
      var back = nsPer < 2 * interval ? interval : 0, lo = PK.lowerBound(tl.time, bounds[0] - back);
      // By category: each column's value per category (cats[c * nc + k]).
      var cat = T.categories.length && tl.category, nc = T.categories.length + 1, wv = tl.value[v];
      var cats = cat ? new Float64Array(cols * nc) : null;
      for (c = 0; c < cols; c++) {
        var hi = PK.lowerBound(tl.time, bounds[c + 1]);
        if (back) lo = PK.lowerBound(tl.time, bounds[c] - back);
        col[c] = R ? Math.min(1, (R[hi] - R[lo]) / slots) : Math.min(1, (P[hi] - P[lo]) / (full || 1));
        if (col[c] > max) max = col[c];
        if (cats) for (var q = lo; q < hi; q++) cats[c * nc + cat[q]] += typeof wv === "number" ? wv : wv[q];
        lo = hi;
      }
      max = max > 0 ? 1 : 0;
      if (cats && max > 0) { this.drawCategories(ctx, cats, nc, col, cols, y, dark); continue; }
      }
      // One colour per thread without categories (PK.activityColor: a
      // hook for another colour).
      ctx.fillStyle = PK.activityColor ? PK.activityColor(t, dark) : (dark ? "#5b8def" : "#3f73d9");
      if (max > 0) {
        ctx.beginPath();
        ctx.moveTo(GUTTER, y + TRACK - 1);
        for (c = 0; c < cols; c++) { var hgt = col[c] / max * (TRACK - 4); ctx.lineTo(GUTTER + c, y + TRACK - 1 - hgt); ctx.lineTo(GUTTER + c + 1, y + TRACK - 1 - hgt); }
        ctx.lineTo(GUTTER + cols, y + TRACK - 1);
        ctx.closePath();
        ctx.fill();
      }
    }
    // Paused ranges: a hatched grey band over their process's tracks (every
    // track for a range of no known process), at least a pixel wide.
    var bands = this.layout.paused = [];
    T.paused.forEach(function (r, i) {
      if (r.end < a || r.start > b) return;
      var x0 = Math.max(GUTTER, xOf(r.start)), x1 = Math.max(x0 + 1, Math.min(GUTTER + W, xOf(r.end)));
      tracks.forEach(function (tr, k) {
        if (r.pid >= 0 && tr.group.pid !== r.pid) return;
        var y = AXIS + k * TRACK;
        ctx.fillStyle = this.hatch(dark);
        ctx.fillRect(x0, y, x1 - x0, TRACK);
        bands.push({ index: i, thread: tr.thread, x0: x0, x1: x1, y: y, h: TRACK });
      }, this);
    }, this);
    // The marker chart: per row, the pixel columns its narrow markers and
    // instants cover, each run drawn once, and the wide boxes not already
    // covered (a million markers are a few thousand rectangles).
    var M = nm ? T.markers : null, y0 = AXIS + tracks.length * TRACK + 4;
    var narrow = new Uint8Array(cols + 1), tick = new Uint8Array(cols + 1), wide = [], whole = T.end - T.zero;
    for (var r = 0; r < nm; r++) {
      var row = rows[r], yr = y0 + r * MROW;
      ctx.fillStyle = fg;
      ctx.fillText(row.name.length > 26 ? row.name.slice(0, 25) + "…" : row.name, 4, yr + MROW / 2);
      // Wide ranges from the row's bins (its narrow markers never looked
      // at again), narrow ones from its markers.
      var g = row.list.length > GRID_ROW_MIN && a >= 0 && b * 1e6 <= whole ? rowGrid(row, M, whole) : null;
      if (g && (b - a) * 1e6 / cols >= GRID_MIN * g.binW) gridRow(g, M, a, b, cols, narrow, tick, wide);
      else scanRow(row, M, a, b, cols, narrow, tick, wide, true);
      ctx.fillStyle = dark ? "#c7a23a" : "#e0a800";
      for (c = 0; c < cols; c++) {
        if (!narrow[c]) continue;
        var c2 = c; while (c2 < cols && narrow[c2]) c2++;
        ctx.fillRect(GUTTER + c, yr + 1, c2 - c, MROW - 2);
        c = c2;
      }
      for (var w = 0; w < wide.length; w += 2) {
        var x0 = wide[w], x1 = wide[w + 1];
        ctx.fillStyle = dark ? "#c7a23a" : "#f2c14e";
        ctx.fillRect(GUTTER + x0, yr + 1, x1 - x0 - (x1 - x0 > 3 ? 1 : 0), MROW - 2);
        if (x1 - x0 > 40) { ctx.fillStyle = "#222"; ctx.fillText(row.name.slice(0, Math.floor((x1 - x0) / 6)), GUTTER + x0 + 2, yr + MROW / 2); }
      }
      // Instants: a tick per pixel column that has one (adjacent ones one
      // rectangle).
      ctx.fillStyle = dark ? "#e06c75" : "#c0392b";
      for (c = 0; c <= cols; c++) {
        if (!tick[c]) continue;
        var c3 = c; while (c3 <= cols && tick[c3]) c3++;
        ctx.fillRect(GUTTER + c, yr + 1, Math.max(1.5, c3 - c), MROW - 2);
        c = c3;
      }
    }
    if (rows.length > nm) { ctx.fillStyle = dim; ctx.fillText("… " + (rows.length - nm) + " more marker names (Markers view)", 4, y0 + nm * MROW + 6); }
    this.drawMs = performance.now() - t0;
    return this.drawMs;
  };
  // The paused bands' fill: grey diagonal hatching on a light grey wash
  // (the selection is blue), made once per colour scheme.
  Timeline.prototype.hatch = function (dark) {
    if (this._hatch && this._hatch.dark === dark) return this._hatch.fill;
    var c = document.createElement("canvas"), g = c.getContext("2d");
    c.width = c.height = 8;
    g.fillStyle = dark ? "rgba(170,170,170,0.2)" : "rgba(100,100,100,0.15)";
    g.fillRect(0, 0, 8, 8);
    g.strokeStyle = dark ? "rgba(200,200,200,0.55)" : "rgba(90,90,90,0.5)";
    g.lineWidth = 1.5;
    g.beginPath(); g.moveTo(-1, 9); g.lineTo(9, -1); g.moveTo(-1, 1); g.lineTo(1, -1); g.moveTo(7, 9); g.lineTo(9, 7); g.stroke();
    this._hatch = { dark: dark, fill: this.ctx.createPattern(c, "repeat") };
    return this._hatch.fill;
  };
  // A track's activity by category: per column its height (col, 0..1)
  // split by each category's share of the column's value, stacked from
  // the bottom in the categories' order, a filled outline per category;
  // Idle ("transparent") is left undrawn, as the Firefox Profiler does.
  Timeline.prototype.drawCategories = function (ctx, cats, nc, col, cols, y, dark) {
    var C = this.app.p.time().categories, base = new Float64Array(cols), top = new Float64Array(cols), H = TRACK - 4, y0 = y + TRACK - 1, c, k;
    var sum = new Float64Array(cols);
    for (c = 0; c < cols; c++) for (k = 0; k < nc; k++) sum[c] += cats[c * nc + k];
    for (k = 1; k < nc; k++) {
      var fill = dark ? C[k - 1].dark : C[k - 1].fill, any = false;
      for (c = 0; c < cols; c++) {
        top[c] = base[c] + (sum[c] > 0 ? col[c] * H * cats[c * nc + k] / sum[c] : 0);
        if (top[c] > base[c]) any = true;
      }
      if (any && fill) {
        ctx.fillStyle = fill;
        ctx.beginPath();
        ctx.moveTo(GUTTER, y0 - base[0]);
        for (c = 0; c < cols; c++) { ctx.lineTo(GUTTER + c, y0 - top[c]); ctx.lineTo(GUTTER + c + 1, y0 - top[c]); }
        for (c = cols - 1; c >= 0; c--) { ctx.lineTo(GUTTER + c + 1, y0 - base[c]); ctx.lineTo(GUTTER + c, y0 - base[c]); }
        ctx.closePath();
        ctx.fill();
      }
      var sw = base; base = top; top = sw;
    }
  };
  // The columns of a thread whose samples the page does not hold: its
  // activity per bin of the root range (the shown value is the data's
  // default one), each column the bins it covers. Returns the largest.
  Timeline.prototype.binColumns = function (bins, a, span, cols, col) {
    var T = this.app.p.time(), whole = (T.end - T.zero) / 1e6, nb = bins.length, max = 0;
    for (var c = 0; c < cols; c++) {
      var b0 = Math.floor((a + c * span / cols) / whole * nb), b1 = Math.max(b0 + 1, Math.floor((a + (c + 1) * span / cols) / whole * nb)), s = 0;
      for (var b = Math.max(0, b0); b < Math.min(nb, b1); b++) s += bins[b];
      col[c] = s / (b1 - b0);
      if (col[c] > max) max = col[c];
    }
    return max;
  };
  // One marker row over [a, b] ms in `cols` columns: narrow intervals
  // (at most 2 columns) and instants mark their columns, wider boxes go to
  // `wide` as x0, x1 pairs unless one drawn before covers them. Kept small
  // and apart from draw so V8 optimizes the loop over a million markers.
  // A row in time order (one thread's) looks only at the markers that can
  // reach [a, b]: from the first starting after a less its longest.
  // clear: start from empty columns (else add to what gridRow marked).
  function scanRow(row, M, a, b, cols, narrow, tick, wide, clear) {
    if (clear) narrow.fill(0), tick.fill(0);
    wide.length = 0;
    var list = row.list, start = M.start, dur = M.duration, k = cols / ((b - a) * 1e6), a0 = a * 1e6, b0 = b * 1e6, covered = -1;
    var j0 = 0, j1 = list.length;
    if (row.sorted) {
      var lo = 0, hi = list.length, from = a0 - row.maxDur;
      while (lo < hi) { var mid = (lo + hi) >> 1; if (start[list[mid]] < from) lo = mid + 1; else hi = mid; }
      j0 = lo;
    }
    for (var j = j0; j < j1; j++) {
      var i = list[j], s = start[i], d = dur[i];
      if (row.sorted && s > b0) break;
      if (d < 0) { if (s >= a0 && s <= b0) tick[Math.floor((s - a0) * k)] = 1; continue; }
      var e = s + d;
      if (e < a0 || s > b0) continue;
      var x0 = Math.floor((s - a0) * k), x1 = Math.ceil((e - a0) * k);
      if (x0 < 0) x0 = 0;
      if (x1 > cols) x1 = cols;
      if (x1 <= x0) x1 = x0 + 1;
      if (x1 - x0 <= 2) { narrow[x0] = 1; if (x1 - x0 === 2) narrow[x0 + 1] = 1; }
      else if (x1 > covered) { wide.push(x0, x1); covered = x1; }
    }
  }
  // A marker row's bins over the root range, made once: per bin whether
  // an interval covers it or an instant is in it, as prefix counts (a
  // column is any of the bins it touches: one subtraction), and the
  // markers long enough to be a box wider than 2 columns when a column
  // spans GRID_MIN bins or more, by length (bucket L: longer than
  // GRID_MIN bins times 2^(L/4)), each bucket in the row's order. A draw over
  // such a range reads the row's counts and the buckets that can hold a
  // box wider than a column: a million markers, a few thousand boxes.
  // Rows of at most GRID_ROW_MIN markers are scanned (bins would cost more).
  var GRID = 65535, GRID_MIN = 3, GRID_ROW_MIN = 4096;
  function rowGrid(row, M, whole) {
    if (row.grid) return row.grid;
    var G = GRID, binW = Math.max(1, whole) / G, diff = new Int32Array(G + 1), tk = new Uint8Array(G);
    var list = row.list, start = M.start, dur = M.duration, longMin = GRID_MIN * binW, level = new Int8Array(list.length).fill(-1), nl = [];
    for (var j = 0; j < list.length; j++) {
      var i = list[j], s = start[i], d = dur[i];
      if (d < 0) { if (s >= 0 && s <= whole) tk[Math.min(G - 1, Math.floor(s / binW))] = 1; continue; }
      if (d > longMin) {
        var L = Math.min(240, Math.floor(4 * Math.log2(d / longMin)));
        level[j] = L;
        while (nl.length <= L) nl.push(0);
        nl[L]++;
      }
      var e = s + d;
      if (e < 0 || s > whole) continue;
      var b0 = s <= 0 ? 0 : Math.min(G - 1, Math.floor(s / binW)), b1 = e >= whole ? G - 1 : Math.floor(e / binW);
      diff[b0]++; diff[b1 + 1]--;
    }
    var cover = new Uint16Array(G + 1), tick = new Uint16Array(G + 1);
    for (var k = 0, run = 0; k < G; k++) {
      run += diff[k];
      cover[k + 1] = cover[k] + (run > 0 ? 1 : 0);
      tick[k + 1] = tick[k] + tk[k];
    }
    var buckets = nl.map(function (n, L) { return { list: new Int32Array(n), fill: 0, sorted: row.sorted, maxDur: 0, upper: longMin * Math.pow(2, (L + 1) / 4) }; });
    for (j = 0; j < list.length; j++) {
      if (level[j] < 0) continue;
      var bk = buckets[level[j]], x = list[j];
      bk.list[bk.fill++] = x;
      if (dur[x] > bk.maxDur) bk.maxDur = dur[x];
    }
    return (row.grid = { cover: cover, tick: tick, binW: binW, G: G, buckets: buckets });
  }
  // The columns of [a, b] ms that a row's bins mark, and its boxes wider
  // than a column.
  function gridRow(g, M, a, b, cols, narrow, tick, wide) {
    narrow.fill(0); tick.fill(0); wide.length = 0;
    var cover = g.cover, tk = g.tick, per = (b - a) * 1e6 / cols / g.binW, b0 = a * 1e6 / g.binW, G = g.G;
    var lo = Math.min(G, Math.floor(b0));
    for (var c = 0; c < cols; c++) {
      var hi = Math.min(G, Math.max(lo + 1, Math.floor(b0 + (c + 1) * per)));
      narrow[c] = cover[hi] - cover[lo] > 0 ? 1 : 0;
      tick[c] = tk[hi] - tk[lo] > 0 ? 1 : 0;
      lo = hi;
    }
    var colNs = (b - a) * 1e6 / cols, more = [];
    for (var L = 0; L < g.buckets.length; L++) {
      var bk = g.buckets[L];
      if (!bk.fill || bk.upper <= colNs) continue;
      scanRow(bk, M, a, b, cols, narrow, tick, more, false);
      for (var w = 0; w < more.length; w++) wide.push(more[w]);
    }
  }
  // What is under (x, y): {kind: "track", thread, ms, paused: index of a
  // paused band there or -1} / {kind: "marker", index} / null.
  Timeline.prototype.hit = function (x, y) {
    var L = this.layout;
    if (!L) return null;
    var ms = L.a + (x - GUTTER) / L.W * (L.b - L.a);
    var k = Math.floor((y - AXIS) / TRACK);
    if (y >= AXIS && k < L.tracks.length) {
      var t = L.tracks[k].thread, pz = L.paused.filter(function (q) { return q.thread === t && x >= q.x0 && x <= q.x1; });
      return { kind: "track", thread: t, ms: ms, x: x, paused: pz.length ? pz[0].index : -1 };
    }
    var y0 = AXIS + L.tracks.length * TRACK + 4, r = Math.floor((y - y0) / MROW);
    if (y < y0 || r >= L.nm || x < GUTTER) return null;
    var M = this.app.p.time().markers, row = L.rows[r], list = row.list, tol = 2 / L.W * (L.b - L.a), best = -1, j = 0;
    // A row in time order: from the first marker that can reach ms.
    if (row.sorted) {
      var lo = 0, hi = list.length, from = (ms - tol) * 1e6 - row.maxDur;
      while (lo < hi) { var mid = (lo + hi) >> 1; if (M.start[list[mid]] < from) lo = mid + 1; else hi = mid; }
      j = lo;
    }
    for (; j < list.length; j++) {
      var i = list[j], s = M.start[i] / 1e6, e = M.duration[i] < 0 ? s : s + M.duration[i] / 1e6;
      if (row.sorted && s > ms + tol) break;
      if (ms >= s - tol && ms <= e + tol) { best = i; if (M.duration[i] >= 0 && ms >= s && ms <= e) break; }
    }
    return best >= 0 ? { kind: "marker", index: best } : null;
  };
  Timeline.prototype.wire = function () {
    var self = this, cv = this.canvas, app = this.app, drag = null;
    function pos(e) { var r = cv.getBoundingClientRect(); return [e.clientX - r.left, e.clientY - r.top]; }
    function msAt(x) { var L = self.layout; return L.a + Math.min(Math.max(x - GUTTER, 0), L.W) / L.W * (L.b - L.a); }
    cv.addEventListener("mousedown", function (e) {
      if (e.button !== 0) return;
      var xy = pos(e);
      if (xy[0] < GUTTER) return;
      drag = { x: xy[0], y: xy[1], moved: false };
      e.preventDefault();
    });
    cv.addEventListener("mousemove", function (e) {
      var xy = pos(e);
      if (drag) {
        if (Math.abs(xy[0] - drag.x) > 3) drag.moved = true;
        if (drag.moved) {
          var a = Math.max(GUTTER, Math.min(xy[0], drag.x)), b = Math.min(self.layout.width, Math.max(xy[0], drag.x));
          self.sel.hidden = false;
          self.sel.style.left = a + "px"; self.sel.style.width = (b - a) + "px";
          self.sel.style.height = cv.style.height;
          app.showTimeHover(null, e.clientX, e.clientY, msAt(Math.min(xy[0], drag.x)), msAt(Math.max(xy[0], drag.x)));
        }
        return;
      }
      var h = self.hit(xy[0], xy[1]);
      if (h && h.kind === "marker") app.showMarkerHover(h.index, e.clientX, e.clientY);
      else if (h && h.kind === "track" && h.paused >= 0) app.showPausedHover(h.paused, e.clientX, e.clientY);
      else if (h && h.kind === "track" && xy[0] >= GUTTER) app.showTimeHover(h.thread, e.clientX, e.clientY, msAt(xy[0]));
      else app.hideHover();
    });
    cv.addEventListener("mouseleave", function () { if (!drag) app.hideHover(); });
    window.addEventListener("mouseup", function (e) {
      if (!drag) return;
      var d = drag, xy = pos(e);
      drag = null;
      self.sel.hidden = true;
      app.hideHover();
      if (d.moved) { app.pushRange(msAt(Math.min(xy[0], d.x)), msAt(Math.max(xy[0], d.x))); return; }
      var h = self.hit(xy[0], xy[1]);
      if (h && h.kind === "marker") app.selectMarker(h.index);
      else if (h && h.kind === "track" && h.thread !== app.state.thread) app.change({ thread: h.thread, span: "" }, "thread");
    });
  };
  PK.Timeline = Timeline;
  PK.TIMELINE_GUTTER = GUTTER;
})(typeof globalThis !== "undefined" ? (globalThis.profkit = globalThis.profkit || {}) : (this.profkit = this.profkit || {}));
