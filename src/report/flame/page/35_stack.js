"use strict";
// The stack chart: a timed thread's sample runs in time order, one row per
// stack depth, consecutive runs that share a frame at a depth drawn as one
// box (as the Firefox Profiler's stack chart does). The boxes are laid out
// once per thread (PK.stackTiming); a draw finds the first visible box of
// each depth by binary search and walks only the visible time range.
(function (PK) {
  var ROW = PK.ROW_HEIGHT, MIN_PX = 0.75, PAD = 3, AXIS = 16;

  function StackView(canvas) {
    PK.FlameView.call(this, canvas);
  }
  StackView.prototype = Object.create(PK.FlameView.prototype);
  // model: {profile, tree, samples {start, node, end}, range [t0, t1], colorMode, dark, matched, selectedFunc}
  // The boxes of a thread (its tree and samples), laid out on first use and kept.
  StackView.prototype.timing = function (tree, samples) {
    if (!this._timings) this._timings = new Map();
    // Runs refined from the samples for one zoomed range: only the last is kept.
    if (samples.refined) {
      if (!this._refined || this._refined.samples !== samples || this._refined.tree !== tree)
        this._refined = { samples: samples, tree: tree, boxes: PK.stackTiming(tree, samples) };
      return this._refined.boxes;
    }
    var t = this._timings.get(samples);
    if (!t || t.tree !== tree) { t = { tree: tree, boxes: PK.stackTiming(tree, samples) }; this._timings.set(samples, t); }
    return t.boxes;
  };
  StackView.prototype.draw = function (width) {
    var m = this.model, t0 = performance.now();
    var dpr0 = (typeof window !== "undefined" && window.devicePixelRatio) || 1;
    // By the frames' categories (as the Firefox Profiler's stack chart)
    // when the thread has them (this.categories: {node, list}, set by the
    // app), unless colours by file or module are asked.
    var cats = this.categories, byCat = cats && m.colorMode !== "file" && m.colorMode !== "module" ? this.mappedCategories(m.tree, cats.node) : null;
    var catCache = [], catColor = function (k) {
      if (catCache[k]) return catCache[k];
      var C = cats.list[k - 1];
      return (catCache[k] = { fill: (C && (m.dark ? C.dark : C.fill)) || (m.dark ? "#3a3a40" : "#e8e8ea"), text: m.dark ? "#f2f2f2" : "#111" });
    };
    if (this.unchanged([m.tree, m.samples, m.range[0], m.range[1], m.colorMode, m.dark, m.matched, m.selectedFunc, width, dpr0, byCat]))
      return performance.now() - t0;
    var tree = m.tree, T = this.timing(tree, this.mapped(tree, m.samples));
    var r0 = m.range[0], r1 = m.range[1], span = r1 - r0 || 1, scale = width / span;
    var rows = Math.max(T.depth, 1), height = AXIS + rows * ROW;
    var dpr = (typeof window !== "undefined" && window.devicePixelRatio) || 1;
    var cv = this.canvas, ctx = this.ctx;
    if (cv.width !== Math.round(width * dpr) || cv.height !== Math.round(height * dpr)) {
      cv.width = Math.round(width * dpr); cv.height = Math.round(height * dpr);
      cv.style.width = width + "px"; cv.style.height = height + "px";
    }
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, width, height);
    ctx.font = "12px system-ui, -apple-system, 'Segoe UI', sans-serif";
    ctx.textBaseline = "middle";
    var profile = m.profile, func = tree.func, colors = this.colorCache(profile, m.colorMode, m.dark);
    // The time axis: ms on the Firefox Profiler's zero, as --range takes them.
    ctx.fillStyle = m.dark ? "#aaa" : "#666";
    ctx.strokeStyle = m.dark ? "#444" : "#ddd";
    PK.timeTicks(profile.msOf(r0), profile.msOf(r1), width, 110).forEach(function (tk) {
      var x = Math.round((profile.nsOf(tk.ms) - r0) * scale) + 0.5;
      ctx.beginPath(); ctx.moveTo(x, AXIS - 4); ctx.lineTo(x, AXIS); ctx.stroke();
      ctx.fillText(tk.label, x + 3, AXIS / 2);
    });
    var bx = [], by = [], bw = [], bn = [], b0 = [], b1 = [];
    for (var d = 1; d <= T.depth; d++) {
      var cnt = T.count[d], S = T.start[d], E = T.end[d], N = T.node[d], y = AXIS + (d - 1) * ROW;
      // First box that ends after r0.
      var lo = 0, hi = cnt;
      while (lo < hi) { var mid = (lo + hi) >> 1; if (E[mid] <= r0) lo = mid + 1; else hi = mid; }
      for (var i = lo; i < cnt && S[i] < r1; i++) {
        var a = S[i] > r0 ? S[i] : r0, b = E[i] < r1 ? E[i] : r1, w = (b - a) * scale;
        if (w < MIN_PX) {
          // Skip every box that ends within MIN_PX of this one's start
          // (all narrower than MIN_PX): ends grow, so gallop, then halve.
          var lim = a + MIN_PX / scale, step = 1, j = i + 1;
          while (j < cnt && E[j] <= lim) { i = j; j += step; step *= 2; }
          var hi2 = Math.min(j, cnt);
          while (i + 1 < hi2) { var md = (i + 1 + hi2) >> 1; if (E[md] <= lim) i = md; else hi2 = md; }
          continue;
        }
        var x = (a - r0) * scale, node = N[i], f = func[node], col;
        if (m.matched && m.matched[node]) col = PK.matchColor(m.dark);
        else if (m.matched) col = PK.dimColor(m.dark);
        else if (f === PK.OTHER_FUNC) col = PK.otherColor(m.dark);
        else if (byCat && byCat[node]) col = catColor(byCat[node]);
        else col = colors(f);
        ctx.fillStyle = col.fill;
        ctx.fillRect(x, y, Math.max(w - (w > 3 ? 1 : 0), 0.5), ROW - 1);
        if (m.selectedFunc >= 0 && f === m.selectedFunc && w > 2) {
          ctx.strokeStyle = m.dark ? "#fff" : "#000"; ctx.lineWidth = 1.5;
          ctx.strokeRect(x + 0.75, y + 0.75, Math.max(w - 2.5, 0.5), ROW - 2.5);
        }
        if (w > 12) {
          var text = this.label(ctx, profile.funcLabel(f), w - 2 * PAD);
          if (text) { ctx.fillStyle = col.text; ctx.fillText(text, x + PAD, y + ROW / 2); }
        }
        bx.push(x); by.push(y); bw.push(w); bn.push(node); b0.push(S[i]); b1.push(E[i]);
      }
    }
    this.boxes = { x: Float64Array.from(bx), y: Float64Array.from(by), w: Float64Array.from(bw),
                   node: Int32Array.from(bn), t0: b0, t1: b1 };
    this.rows = rows;
    this.width = width;
    return performance.now() - t0;
  };
  // A transformed tree's runs (tree.nodeMap from tree.source's nodes,
  // 45_transforms.js): each run's node mapped, a dropped sample's run on
  // the root (a gap, as the Firefox Profiler's stack chart leaves),
  // consecutive runs on one node joined. Made once per tree and runs.
  StackView.prototype.mapped = function (tree, samples) {
    var map = tree.nodeMap;
    if (!map || !tree.source) return samples;
    this._mapped = this._mapped || new WeakMap();
    var per = this._mapped.get(tree);
    if (!per) this._mapped.set(tree, per = new WeakMap());
    var out = per.get(samples);
    if (out) return out;
    var start = [], node = [], S = samples.start, N = samples.node;
    for (var i = 0; i < S.length; i++) {
      var x = N[i] >= 0 && N[i] < map.length ? map[N[i]] : -1;
      if (x < 0) x = 0;
      if (!node.length || node[node.length - 1] !== x) { start.push(S[i]); node.push(x); }
    }
    out = { start: Float64Array.from(start), node: Int32Array.from(node), end: samples.end };
    for (var k in samples) if (!(k in out)) out[k] = samples[k];
    per.set(samples, out);
    return out;
  };
  // The whole tree's node categories on a transformed tree's nodes: a node
  // keeps the one category its old nodes share, else none (by name then).
  StackView.prototype.mappedCategories = function (tree, cat) {
    var map = tree.nodeMap;
    if (!map || !tree.source) return cat;
    if (tree._cats) return tree._cats;   // the call-node rule through the steps (45_transforms.js)
    if (this._catTree === tree && this._catSrc === cat) return this._catOut;
    var out = new Uint16Array(tree.n), seen = new Uint8Array(tree.n);
    for (var i = 0; i < map.length && i < cat.length; i++) {
      var x = map[i];
      if (x <= 0 || !cat[i]) continue;
      if (!seen[x]) { seen[x] = 1; out[x] = cat[i]; } else if (out[x] !== cat[i]) out[x] = 0;
    }
    this._catTree = tree; this._catSrc = cat; this._catOut = out;
    return out;
  };
  // The box under (x, y): {node, t0, t1} or null.
  StackView.prototype.hitBox = function (x, y) {
    var b = this.boxes;
    for (var i = b.node.length - 1; i >= 0; i--)
      if (y >= b.y[i] && y < b.y[i] + ROW && x >= b.x[i] && x < b.x[i] + b.w[i]) return { node: b.node[i], t0: b.t0[i], t1: b.t1[i], merged: !!this.model.samples.coarse };
    return null;
  };
  PK.StackView = StackView;
})(typeof globalThis !== "undefined" ? (globalThis.profkit = globalThis.profkit || {}) : (this.profkit = this.profkit || {}));
