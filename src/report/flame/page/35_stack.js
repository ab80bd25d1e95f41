"use strict";
// The stack chart: a timed thread's sample runs in time order, one row per
// stack depth, consecutive runs that share a frame at a depth drawn as one
// box (as the Firefox Profiler's stack chart does). Only the runs inside the
// visible time range are walked (binary search for the first).
(function (PK) {
  var ROW = PK.ROW_HEIGHT, MIN_PX = 0.75, PAD = 3;

  function StackView(canvas) {
    PK.FlameView.call(this, canvas);
  }
  StackView.prototype = Object.create(PK.FlameView.prototype);
  // model: {profile, tree, samples {start, node, end}, range [t0, t1], colorMode, dark, matched, selectedFunc}
  StackView.prototype.draw = function (width) {
    var m = this.model, t0 = performance.now();
    var tree = m.tree, s = m.samples, start = s.start, runNode = s.node, n = start.length;
    var r0 = m.range[0], r1 = m.range[1], span = r1 - r0 || 1, scale = width / span;
    // First run that ends after r0.
    var lo = 0, hi = n;
    while (lo < hi) { var mid = (lo + hi) >> 1; var e = mid + 1 < n ? start[mid + 1] : s.end; if (e <= r0) lo = mid + 1; else hi = mid; }
    var boxes = { x: [], y: [], w: [], node: [], t0: [], t1: [] };
    // The open boxes, one per depth 1..top: typed arrays, no resizing.
    var open = new Int32Array(tree.maxDepth + 2), openAt = new Float64Array(tree.maxDepth + 2), top = 0;
    function close(d, at) {
      var a = Math.max(openAt[d], r0), b = Math.min(at, r1);
      var w = (b - a) * scale;
      if (w >= MIN_PX) {
        boxes.x.push((a - r0) * scale); boxes.y.push((d - 1) * ROW); boxes.w.push(w);
        boxes.node.push(open[d]); boxes.t0.push(openAt[d]); boxes.t1.push(at);
      }
    }
    var maxDepth = 0, path = new Int32Array(tree.maxDepth + 2), depthOf = tree.depth, par = tree.parent;
    for (var i = lo; i < n && start[i] < r1; i++) {
      // Climb from the run's node only until the open boxes agree: the
      // next sample's stack mostly shares the last one's.
      var np = 0, x = runNode[i], dx = depthOf[x], len = dx;
      while (dx > top) { path[np++] = x; x = par[x]; dx--; }
      while (dx > 0 && open[dx] !== x) { path[np++] = x; x = par[x]; dx--; }
      var t = start[i];
      for (var k = top; k > dx; k--) close(k, t);
      top = dx;
      while (np > 0) { top++; open[top] = path[--np]; openAt[top] = t; }
      if (len > maxDepth) maxDepth = len;
    }
    var endAt = i < n ? start[i] : s.end;
    for (var k2 = top; k2 >= 1; k2--) close(k2, endAt);
    var rows = Math.max(maxDepth, 1), height = rows * ROW;
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
    var profile = m.profile;
    for (var b = 0; b < boxes.node.length; b++) {
      var node = boxes.node[b], f = tree.func[node], col;
      if (m.matched && m.matched[node]) col = PK.matchColor(m.dark);
      else if (m.matched) col = PK.dimColor(m.dark);
      else if (f === PK.OTHER_FUNC) col = PK.otherColor(m.dark);
      else col = PK.frameColor(PK.colorKey(profile, f, m.colorMode), m.dark, m.colorMode);
      var bw = boxes.w[b], bx = boxes.x[b], y = boxes.y[b];
      ctx.fillStyle = col.fill;
      ctx.fillRect(bx, y, Math.max(bw - (bw > 3 ? 1 : 0), 0.5), ROW - 1);
      if (m.selectedFunc >= 0 && f === m.selectedFunc && bw > 2) {
        ctx.strokeStyle = m.dark ? "#fff" : "#000"; ctx.lineWidth = 1.5;
        ctx.strokeRect(bx + 0.75, y + 0.75, Math.max(bw - 2.5, 0.5), ROW - 2.5);
      }
      if (bw > 12) {
        var text = this.label(ctx, profile.funcLabel(f), bw - 2 * PAD);
        if (text) { ctx.fillStyle = col.text; ctx.fillText(text, bx + PAD, y + ROW / 2); }
      }
    }
    this.boxes = { x: Float64Array.from(boxes.x), y: Float64Array.from(boxes.y), w: Float64Array.from(boxes.w),
                   node: Int32Array.from(boxes.node), t0: boxes.t0, t1: boxes.t1 };
    this.rows = rows;
    this.width = width;
    return performance.now() - t0;
  };
  // The box under (x, y): {node, t0, t1} or null.
  StackView.prototype.hitBox = function (x, y) {
    var b = this.boxes;
    for (var i = b.node.length - 1; i >= 0; i--)
      if (y >= b.y[i] && y < b.y[i] + ROW && x >= b.x[i] && x < b.x[i] + b.w[i]) return { node: b.node[i], t0: b.t0[i], t1: b.t1[i] };
    return null;
  };
  PK.StackView = StackView;
})(typeof globalThis !== "undefined" ? (globalThis.profkit = globalThis.profkit || {}) : (this.profkit = this.profkit || {}));
