"use strict";
// The flame graph on a 2D canvas. Each draw lays out only what is visible
// from the tree's arrays (children in the chosen order, totals per value
// type): frames narrower than MIN_PX are not drawn, nor anything under
// them. Labels are cut to fit, and the cut is cached per label and width
// bucket, so text is measured once per bucket, not once per frame and draw.
(function (PK) {
  var ROW = 18, MIN_PX = 0.75, PAD = 3, BUCKET = 8, FONT = "12px system-ui, -apple-system, 'Segoe UI', sans-serif";
  PK.ROW_HEIGHT = ROW;

  // Label caches shared by every view (they draw in one font).
  var FIT = new Map(), FULL = new Map();
  function FlameView(canvas, opts) {
    this.canvas = canvas;
    this.ctx = canvas.getContext("2d");
    this.opts = opts || {};
    this.fit = FIT;           // label + bucket -> the text that fits
    this.full = FULL;         // label -> its measured width
    this.boxes = { x: [], y: [], w: [], node: [] };
    this.model = null;
  }
  // model: {profile, tree, v, which ("new"/"base"), order, zoom, icicle,
  // colorMode, dark, matched (Uint8Array or null), selectedFunc, diff
  // (bool: colour by change), hover}
  FlameView.prototype.set = function (model) { this.model = model; };

  FlameView.prototype.label = function (ctx, text, avail) {
    if (avail < 10) return "";
    var bucket = Math.floor(avail / BUCKET) * BUCKET;
    var key = text + "\u0000" + bucket, hit = this.fit.get(key);
    if (hit !== undefined) return hit;
    var w = this.full.get(text);
    if (w === undefined) { w = ctx.measureText(text).width; this.full.set(text, w); }
    var out;
    if (w <= bucket) out = text;
    else {
      // The longest prefix + "…" that fits: start from the length the
      // average character width gives, then step (two or three measures
      // instead of a binary search's eight).
      var k = Math.max(0, Math.min(text.length - 1, Math.floor(text.length * bucket / w) - 1));
      var fits = function (m) { return ctx.measureText(text.slice(0, m) + "…").width <= bucket; };
      if (fits(k)) { while (k + 1 < text.length && fits(k + 1)) k++; }
      else { do { k--; } while (k > 0 && !fits(k)); }
      out = k >= 2 ? text.slice(0, k) + "…" : "";
    }
    this.fit.set(key, out);
    return out;
  };

  // An inlined frame's label: its name and mark (" (inline)"), the name
  // cut before the mark is when the frame has room for the mark and a few
  // characters, else the whole cut as any label.
  FlameView.prototype.markedLabel = function (ctx, name, mark, avail) {
    var whole = this.label(ctx, name + mark, avail);
    if (whole === name + mark) return whole;
    var w = this.full.get(mark);
    if (w === undefined) { w = ctx.measureText(mark).width; this.full.set(mark, w); }
    var cut = avail - w >= 40 ? this.label(ctx, name, avail - w) : "";
    return cut ? cut + mark : whole;
  };

  // Colours per function, computed once per colour mode and scheme:
  // returns colorOf(func).
  FlameView.prototype.colorCache = function (profile, mode, dark) {
    var ck = mode + (dark ? ":dark" : ":light");
    if (!this.colors || this.colorsKey !== ck || this.colorsProfile !== profile) {
      this.colors = []; this.colorsKey = ck; this.colorsProfile = profile;
    }
    var cache = this.colors;
    return function (f) {
      var c = cache[f];
      if (c === undefined) c = cache[f] = PK.frameColor(PK.colorKey(profile, f, mode), dark, mode);
      return c;
    };
  };

  // Whether the canvas already shows what `key` (an array) describes; keeps
  // the key. A view shown again unchanged is not drawn again (a hidden
  // canvas keeps its pixels).
  FlameView.prototype.unchanged = function (key) {
    var old = this._drawn, same = !!old && old.length === key.length;
    for (var i = 0; same && i < key.length; i++) if (old[i] !== key[i]) same = false;
    this._drawn = key;
    return same;
  };
  FlameView.prototype.draw = function (width) {
    var m = this.model, t0 = performance.now();
    if (!m) return 0;
    var dpr0 = (typeof window !== "undefined" && window.devicePixelRatio) || 1;
    if (this.unchanged([m.tree, m.v, m.which, m.order, m.zoom, m.icicle, m.colorMode, m.dark, m.matched, m.selectedFunc,
                        m.diff, m.rootLabel, m.hideAbove, width, dpr0])) return performance.now() - t0;
    var tree = m.tree, tot = m.which === "base" ? tree.baseTotal(m.v) : tree.total(m.v);
    // m.order: an Order (sorted as drawn, Tree.lazyOrder) or a sorted array.
    var ks = tree.kidStart, lazy = m.order && m.order.kids ? m.order : null, depthOf = tree.depth;
    // A diff's difference: frames as wide as the larger of BASE and NEW (so
    // what went away keeps its BASE size), in that order.
    var sized = m.diff && tree.baseSelf;
    if (sized) {
      tot = tree.maxTotal(m.v);
      lazy = tree.lazyOrder(lazy ? lazy.key : "width", m.v, m.profile.nameOf, "max");
    }
    var z = m.zoom || 0, zdepth = depthOf[z], ztot = tot[z];
    var scale = ztot > 0 ? width / ztot : 0;
    // First pass: which nodes are visible, and how deep it goes.
    var nodes = [], xs = [], ws = [];
    // Ancestors of the zoomed frame span the width, dimmed (unless hidden:
    // the sandwich's flames start at their function).
    var base = m.hideAbove ? zdepth : 0;
    var anc = m.hideAbove ? [] : tree.path(z);
    if (!m.hideAbove) anc.unshift(0);
    for (var a = 0; a < anc.length - 1; a++) { nodes.push(anc[a]); xs.push(0); ws.push(width); }
    var stack = [z], sx = [0];
    var maxRow = zdepth, undrawn = 0, live = null;
    while (stack.length) {
      var node = stack.pop(), x = sx.pop(), w = tot[node] * scale;
      nodes.push(node); xs.push(x); ws.push(w);
      if (depthOf[node] > maxRow) maxRow = depthOf[node];
      var cx = x, order = lazy ? lazy.kids(node) : m.order;
      for (var j = ks[node]; j < ks[node + 1]; j++) {
        var c = order[j], cw = tot[c] * scale;
        if (cw >= MIN_PX) { stack.push(c); sx.push(cx); }
        else if (tot[c] <= 0 && !sized) {
          // no width to draw, yet values below (a delta profile's +x and -x)
          if (!live) live = liveNodes(tree, m.which === "base" ? tree.baseSelf[m.v] : tree.self[m.v]);
          if (live[c]) undrawn++;
        }
        cx += cw;
      }
    }
    var rows = maxRow + 1 - base, height = rows * ROW;
    var dpr = (typeof window !== "undefined" && window.devicePixelRatio) || 1;
    var cv = this.canvas, ctx = this.ctx;
    if (cv.width !== Math.round(width * dpr) || cv.height !== Math.round(height * dpr)) {
      cv.width = Math.round(width * dpr);
      cv.height = Math.round(height * dpr);
      cv.style.width = width + "px";
      cv.style.height = height + "px";
    }
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, width, height);
    ctx.font = FONT;
    ctx.textBaseline = "middle";
    var boxes = { x: new Float64Array(nodes.length), y: new Float64Array(nodes.length),
                  w: new Float64Array(nodes.length), node: new Int32Array(nodes.length) };
    var diffScale = 0, ntot = null, btot = null;
    if (m.diff && tree.baseSelf) {
      ntot = tree.total(m.v); btot = tree.baseTotal(m.v);
      for (var q = 0; q < nodes.length; q++) {
        var dq = Math.abs(ntot[nodes[q]] - btot[nodes[q]]);
        if (nodes[q] > 0 && dq > diffScale) diffScale = dq;
      }
    }
    var profile = m.profile, func = tree.func, lastFill = null;
    // Colours per function, computed once per colour mode and scheme.
    var colorOf = this.colorCache(profile, m.colorMode, m.dark);
    // Inlined frames say so in their label, as in the hover (12_time.js).
    var app = PK.app, th = app && app.p === profile && app.state ? profile.threads[app.state.thread] : null;
    var markOf = PK.hoverInline && th && th.tree && th.tree.inline
      ? function (n) { return PK.hoverInline(profile, app.state.thread, m.v, tree, n); } : null;
    for (var i = 0; i < nodes.length; i++) {
      var n = nodes[i], d = depthOf[n] - base;
      var y = m.icicle ? d * ROW : (rows - 1 - d) * ROW;
      var bx = xs[i], bw = ws[i];
      boxes.x[i] = bx; boxes.y[i] = y; boxes.w[i] = bw; boxes.node[i] = n;
      var f = func[n], col;
      var ancestorOfZoom = d < zdepth - base;
      if (n === 0) col = PK.rootColor(m.dark);
      else if (m.matched && m.matched[n]) col = PK.matchColor(m.dark);
      else if (m.matched || ancestorOfZoom) col = PK.dimColor(m.dark);
      else if (ntot) col = ntot[n] === 0 && btot[n] !== 0 ? PK.removedColor(m.dark, ctx)
                         : btot[n] === 0 && ntot[n] !== 0 && n > 0 ? PK.addedColor(m.dark)
                         : PK.diffColor(ntot[n] - btot[n], diffScale, m.dark);
      else if (f === PK.OTHER_FUNC) col = PK.otherColor(m.dark);
      else col = colorOf(f);
      if (col.fill !== lastFill) { ctx.fillStyle = col.fill; lastFill = col.fill; }
      var gap = bw > 3 ? 1 : 0;
      ctx.fillRect(bx, y, Math.max(bw - gap, 0.5), ROW - 1);
      if (m.selectedFunc !== undefined && m.selectedFunc >= 0 && f === m.selectedFunc && bw > 2) {
        ctx.strokeStyle = m.dark ? "#ffffff" : "#000000";
        ctx.lineWidth = 1.5;
        ctx.strokeRect(bx + 0.75, y + 0.75, Math.max(bw - gap - 1.5, 0.5), ROW - 2.5);
      }
      if (bw > 12) {
        var mk = markOf && n > 0 ? markOf(n) : "";
        var text = mk ? this.markedLabel(ctx, profile.funcLabel(f), mk, bw - 2 * PAD)
                      : this.label(ctx, n === 0 ? (m.rootLabel || "all") : profile.funcLabel(f), bw - 2 * PAD);
        if (text) {
          ctx.fillStyle = col.text; lastFill = col.text;
          ctx.fillText(text, bx + PAD, y + ROW / 2);
        }
      }
    }
    this.boxes = boxes;
    this.rows = rows;
    this.width = width;
    this.sayUndrawn(undrawn);
    return performance.now() - t0;
  };

  // Per node: whether a value (self, not 0) is in its subtree.
  function liveNodes(tree, self) {
    var n = tree.n, par = tree.parent, live = new Uint8Array(n);
    for (var i = n - 1; i > 0; i--) if (live[i] || self[i] !== 0) { live[i] = 1; live[par[i]] = 1; }
    return live;
  }
  // Under the canvas, what the graph does not draw: subtrees of a total of
  // zero or less that hold values (the tables and query() list them).
  FlameView.prototype.sayUndrawn = function (k) {
    this.undrawn = k;
    var cv = this.canvas;
    if (!k && !this.note) return;
    if (!this.note && cv.parentNode && typeof document !== "undefined") {
      this.note = document.createElement("p");
      this.note.className = "note pk-undrawn";
      cv.parentNode.insertBefore(this.note, cv.nextSibling);
    }
    if (!this.note) return;
    this.note.hidden = !k;
    this.note.textContent = k ? k + (k === 1 ? " call path has" : " call paths have") +
      " values that add up to zero or less (e.g. a delta profile's gains and losses under one caller): not drawn here;" +
      " the call tree and top functions list them." : "";
  };

  // The node under canvas coordinates (CSS pixels), or -1.
  FlameView.prototype.hit = function (x, y) {
    var b = this.boxes;
    for (var i = b.node.length - 1; i >= 0; i--)
      if (y >= b.y[i] && y < b.y[i] + ROW && x >= b.x[i] && x < b.x[i] + b.w[i]) return b.node[i];
    return -1;
  };
  // Where node n was drawn (for tests and keyboard focus), or null.
  FlameView.prototype.boxOf = function (n) {
    var b = this.boxes;
    for (var i = 0; i < b.node.length; i++) if (b.node[i] === n) return { x: b.x[i], y: b.y[i], w: b.w[i], h: ROW };
    return null;
  };
  PK.FlameView = FlameView;
})(typeof globalThis !== "undefined" ? (globalThis.profkit = globalThis.profkit || {}) : (this.profkit = this.profkit || {}));
