"use strict";
// Memory graphs (docs/viewer.md, "Memory graph"): at the top of the Memory
// view, for a profile with counters by operation order (a bsprof file's
// `Memory` counter per thread: docs/formats/bsprof.md), a graph per thread
// of its bytes in use over the run, as Roku's own viewer draws it: a step
// line, x the operation index (the format gives memory operations no
// time), each row scaled from 0 (or its lowest, when below) to its peak.
// The thread shown: its graph; "All threads": every thread's, or past 4
// threads a compact row each, highest peak first (the 8 highest, a button
// shows all). A drag across a graph zooms to those operations: every
// graph then shows operations A..B-1 of its thread (ops=A-B in the URL, a
// breadcrumb to widen again), starting at the bytes in use carried in and
// scaled as `profkit counters --range Ams,Bms` scales it. Hover: the
// operation index, the bytes in use after it and the allocation (+) or
// free (-); where the series was thinned (past 8,192 operations per
// thread by the reader; by the page only past 400,000 samples of all the
// threads' graphs together, each thread's then past 6,144, flame_html.c)
// a sample stands for several operations and the hover says so, with
// their net change. A graph the page thinned says so (its range figures
// can differ from the command line's); the others are the command line's. The canvas's data-max, data-min, data-start and data-final
// hold, per graph drawn, what `profkit counters --json` (--range when
// zoomed) gives as total.max, total.min, total.start and its series' last
// total; query("counters") gives every counter of the page. A range also
// narrows the memory flame graph and table to what its operations did per
// allocation site, from each operation's record in the data (PK.memRange;
// query("mem") as `profkit counters --range --json`'s sites).
(function (PK) {
  var GUTTER = 190, PAD = 4;
  // "All threads" of more than COMPACT threads: a row each of ROW_C
  // pixels, highest peak first, the FEW highest unless all are asked for.
  var COMPACT = 4, FEW = 8, ROW_C = 22;

  function bytes(v) { return PK.formatValue(v, "bytes"); }
  function exact(v) { return PK.formatCount(v) + " B"; }

  // "A-B" (operation indexes, A shown, B the first not shown) -> [A, B], or null.
  PK.parseOps = function (text) {
    var m = /^(\d{1,15})-(\d{1,15})$/.exec(text || "");
    if (!m) return null;
    var a = Number(m[1]), b = Number(m[2]);
    return b > a ? [a, b] : null;
  };
  // The graph's range in the URL as ops=A-B, beside the other state.
  var encodeState = PK.encodeState, decodeState = PK.decodeState;
  PK.encodeState = function (st) {
    var s = encodeState(st);
    if (st.ops) s += (s ? "&" : "") + "ops=" + st.ops;
    return s;
  };
  PK.decodeState = function (hash) {
    var st = decodeState(hash), m = /(?:^#?|&)ops=([^&]*)/.exec(hash || "");
    st.ops = m && PK.parseOps(m[1]) ? m[1] : "";
    return st;
  };
  // The command giving the numbers of operations [a, b): ms read as an
  // operation's index for a counter by operation order (docs/json.md).
  PK.opsCommand = function (a, b) { return "profkit counters --range " + a + "ms," + b + "ms --json"; };

  // The page's counters by operation order, their columns added up once:
  // op (the operation index) and total (the running sum: the bytes in
  // use) from the data's steps and counts (flame_html.c).
  function orderCounters(p) {
    if (p._orderCounters) return p._orderCounters;
    // the columns are the page's strings (PK.column, zigzag) or a test's arrays
    p._orderCounters = (p.data.order_counters || []).map(function (c) {
      var packed = typeof c.count === "string", n = packed ? c.n || 0 : c.count.length;
      var step = PK.column(c.op, n, packed), count = PK.column(c.count, n, packed), number = PK.column(c.number, n, packed);
      var op = new Float64Array(n), total = new Float64Array(n), a = 0, t = 0;
      for (var r = 0; r < n; r++) { a += step[r]; t += count[r]; op[r] = a; total[r] = t; }
      return { name: c.name, category: c.category, thread: c.thread, thinned: !!c.thinned, op: op, total: total, count: count, number: number,
               rawOps: c.ops || null };
    });
    return p._orderCounters;
  }

  // Per counter by operation order: its highest, lowest and last total.
  function summary(c) {
    var n = c.total.length, hi = -Infinity, lo = Infinity;
    for (var r = 0; r < n; r++) { var v = c.total[r]; if (v > hi) hi = v; if (v < lo) lo = v; }
    return { n: n, max: n ? hi : null, min: n ? lo : null, final: n ? c.total[n - 1] : null,
             ops: n && c.op ? c.op[n - 1] + 1 : 0 };
  }

  // The first sample of c at operation x or later.
  function lowerBound(op, x) {
    var lo = 0, hi = op.length;
    while (lo < hi) { var mid = (lo + hi) >> 1; if (op[mid] < x) lo = mid + 1; else hi = mid; }
    return lo;
  }
  // Counter c over operations [a, b), as `profkit counters --range`
  // computes it (analysis/counters.h): its samples i..j (j exclusive), the
  // bytes in use carried in (start: at the last sample before a, else 0),
  // the last in the range (final: start when none), and the lowest and
  // highest over the samples in it, the last one before it, the one
  // before that and the first one after it (the Firefox Profiler's scale).
  function inRange(c, a, b) {
    var n = c.total.length, i = lowerBound(c.op, a), j = lowerBound(c.op, b), lo = Infinity, hi = -Infinity;
    for (var r = Math.max(0, i - 2); r <= j && r < n; r++) { var v = c.total[r]; if (v < lo) lo = v; if (v > hi) hi = v; }
    return { i: i, j: j, n: j - i, start: i > 0 ? c.total[i - 1] : 0, final: j > i ? c.total[j - 1] : (i > 0 ? c.total[i - 1] : 0),
             min: n ? lo : 0, max: n ? hi : 0 };
  }
  PK.counterOpsRange = inRange;

  // ---- what a range of operations did, per allocation site ----

  // Counter c's operations (flame_html.c, put_order_ops), decoded once:
  // per operation the node of its thread's tree its allocation is drawn
  // at (-1: it allocates nothing), the bytes it allocates, and the index
  // of the allocation it frees (-1: none). null when the page has none.
  function counterOps(c) {
    if (c._ops !== undefined) return c._ops;
    var o = c.rawOps;
    if (!o) return (c._ops = null);
    var n = o.n || 0;
    var nd = PK.column(o.node, n, false), fr = PK.column(o.freed, n, false);
    var node = new Int32Array(n), freed = new Int32Array(n), size = new Float64Array(n), allocs = 0, i;
    for (i = 0; i < n; i++) { node[i] = nd[i] - 1; if (nd[i]) allocs++; freed[i] = fr[i] ? i - fr[i] : -1; }
    var sz = PK.column(o.size, allocs, false);
    for (i = 0, allocs = 0; i < n; i++) if (node[i] >= 0) size[i] = sz[allocs++];
    return (c._ops = { n: n, node: node, size: size, freed: freed });
  }
  // The page's thread index of profile thread index `index`.
  function pageThread(p, index) {
    for (var t = 0; t < p.threads.length; t++) if (!p.threads[t].merged && p.threads[t].index === index) return t;
    return -1;
  }
  // Operations [a, b) of counter c per allocation site: for each node of
  // the counter's thread's tree (per node, via map when given) what the
  // docs/viewer.md calls the range's figures: allocations (objects,
  // bytes), frees of allocations made there (objects, bytes), and the
  // allocations of the range not freed in it (objects, bytes), into acc
  // {aobj, aspace, fobj, fspace, iobj, ispace} (arrays by node); the frees
  // that matched nothing are counted in acc.unmatched.
  function addSites(ops, a, b, map, acc) {
    var node = ops.node, size = ops.size, freed = ops.freed, end = Math.min(b, ops.n);
    for (var i = Math.max(0, a); i < end; i++) {
      var x = node[i];
      if (x >= 0) {
        if (map) x = map[x];
        acc.aobj[x]++; acc.aspace[x] += size[i]; acc.iobj[x]++; acc.ispace[x] += size[i];
      }
      var k = freed[i];
      if (k >= 0) {
        var y = node[k];
        if (y < 0) continue;
        if (map) y = map[y];
        acc.fobj[y]++; acc.fspace[y] += size[k];
        if (k >= a) { acc.iobj[y]--; acc.ispace[y] -= size[k]; }
      } else if (x < 0) acc.unmatched++;
    }
  }
  function newAcc(n) {
    return { aobj: new Float64Array(n), aspace: new Float64Array(n), fobj: new Float64Array(n), fspace: new Float64Array(n),
             iobj: new Float64Array(n), ispace: new Float64Array(n), unmatched: 0 };
  }
  // The operations of counter c the page has a record of: 0 .. kept - 1
  // (past the reader's budget, the file's first 1,000,000 operations: a
  // prefix of each thread's), of all: its operations in all.
  function kept(c) {
    var o = counterOps(c);
    return { kept: o ? o.n : 0, all: summary(c).ops };
  }
  PK.memOpsKept = kept;
  // Whether the page has a record of every one of operations [a, b) of c
  // (those past its last operation need none).
  function covers(c, a, b) {
    var k = kept(c);
    return Math.min(b, k.all) <= k.kept;
  }
  // Why the page cannot narrow the memory tables to operations [a, b) of
  // `list` (its counters), or "".
  function whyNot(p, list, a, b) {
    var d = p.data;
    if (d.order_ops_changed) return "the profile was filtered or merged after it was read, so its memory operations no longer match its call paths";
    if (list.some(function (c) { return !c.rawOps; }))
      return "the page has no record of each memory operation for this profile (profkit flame leaves them out of inputs over 64 MB; flame --markers and profkit view keep them)";
    if (a === undefined) return "";
    var past = list.filter(function (c) { return !covers(c, a, b); });
    if (!past.length) return "";
    var th = past.map(function (c) {
      var k = kept(c), name = labelOf(p, c);
      return k.kept ? name + " past operation " + PK.formatCount(k.kept - 1) : name + " at all";
    });
    var more = th.length > 3 ? " and " + (th.length - 3) + " more threads" : "";
    return "the page has a record of only the file's first " + PK.formatCount(1000000) + " memory operations (" +
      PK.formatCount(d.order_ops_left_out || 0) + " left out) and this range reaches past them: none of " +
      th.slice(0, 3).join(", ") + more + " (profkit counters --range --json gives ops_kept per thread)";
  }
  // A counter's thread as the graph's gutter names it.
  function labelOf(p, c) {
    for (var t = 0; t < p.threads.length; t++)
      if (!p.threads[t].merged && p.threads[t].index === c.thread) return p.threadLabel(t);
    return c.thread >= 0 ? "thread " + c.thread : "its thread";
  }
  // The Memory view's tree for the memory graph's range (ops=A-B) on thread
  // t: the shown tree's nodes (All threads: every thread's merged by call
  // path) with the memory value types' self values of the operations
  // A..B-1 of each thread, the others 0; {tree, ops, why}: tree null and
  // why set when the page cannot narrow; null without a range.
  PK.memRange = function (app) {
    var p = app.p, t = app.state.thread, ops = PK.parseOps(app.state.ops), th = p.threads[t];
    if (!ops || !th || p.diff) return null;
    var list = orderCounters(p).filter(function (c) { return th.merged || c.thread === th.index; });
    if (!list.length) return null;
    var key = t + "|" + app.state.ops;
    var why = whyNot(p, list, ops[0], ops[1]) || (p.xfSteps && p.xfSteps.length ? "the transforms in the breadcrumb above apply to the whole run's tables only (pop them to narrow)" : "");
    key += "|" + (p.xfSteps ? p.xfSteps.length : 0);
    if (p._memRange && p._memRange.key === key) return p._memRange;
    var out = { key: key, ops: ops, tree: null, inverted: null, why: why };
    p._memRange = out;
    if (why) return out;
    var base, maps = {};
    if (th.merged) {
      var M = p.mergedBase();
      base = M.tree;
      M.threads.forEach(function (pt, i) { maps[p.threads[pt].index] = M.maps[i]; });
    } else base = p.wholeTree(t);
    var acc = newAcc(base.n);
    list.forEach(function (c) { addSites(counterOps(c), ops[0], ops[1], th.merged ? maps[c.thread] : null, acc); });
    var nv = p.values.length, self = [];
    var put = { alloc_objects: acc.aobj, alloc_space: acc.aspace, free_objects: acc.fobj, inuse_objects: acc.iobj, inuse_space: acc.ispace };
    for (var v = 0; v < nv; v++) self.push(put[p.values[v].type] || new Float64Array(base.n));
    out.tree = new PK.Tree(base.parent, base.func, self, null);
    out.tree.opsRange = ops;
    out.unmatched = acc.unmatched;
    return out;
  };
  // Its inverted tree (the memory table's), made once.
  PK.memRangeInverted = function (r) {
    if (!r.inverted) r.inverted = new PK.Inverter(r.tree, PK.MIN_SHARE).step(Infinity);
    return r.inverted;
  };

  // query("mem"): per counter by operation order of the thread shown (All
  // threads: every one), what its operations A..B-1 (the memory graph's
  // range; without one, all of them) did per allocating call path, as
  // `profkit counters --range Ams,Bms --json` gives it in "sites": path
  // (function names, root first, ";" between), alloc_objects,
  // alloc_space, free_objects, freed_space, inuse_objects, inuse_space;
  // largest in use first; and unmatched_frees. A counter whose operations
  // the page does not have: sites null and why.
  PK.queryMem = function (app) {
    var p = app.p, t = app.state.thread, th = p.threads[t], ops = PK.parseOps(app.state.ops);
    var list = orderCounters(p).filter(function (c) { return th && (th.merged || c.thread === th.index); });
    return list.map(function (c) {
      var pt = pageThread(p, c.thread), x = pt >= 0 ? p.threads[pt] : null, o = counterOps(c);
      var r = { name: c.name, thread: x ? { index: x.index, name: p.str(x.name), tid: x.tid, pid: x.pid } : null,
                ops: ops ? ops.slice() : [0, summary(c).ops], sites: null };
      var why = whyNot(p, [c], r.ops[0], r.ops[1]);
      if (p.data.order_ops_left_out && o) { r.ops_left_out = p.data.order_ops_left_out; r.ops_kept = [0, o.n]; }
      if (why || !o || pt < 0) { r.why = why || "no thread"; return r; }
      var tree = p.wholeTree(pt), acc = newAcc(tree.n), rows = {};
      addSites(o, r.ops[0], r.ops[1], null, acc);
      for (var n = 1; n < tree.n; n++) {
        if (!acc.aobj[n] && !acc.fobj[n]) continue;
        var names = [];
        for (var u = n; u > 0; u = tree.parent[u]) names.push(p.funcLabel(tree.func[u]));
        var path = names.reverse().join(";"), e = rows[path];
        if (!e) e = rows[path] = { path: path, alloc_objects: 0, alloc_space: 0, free_objects: 0, freed_space: 0, inuse_objects: 0, inuse_space: 0 };
        e.alloc_objects += acc.aobj[n]; e.alloc_space += acc.aspace[n]; e.free_objects += acc.fobj[n];
        e.freed_space += acc.fspace[n]; e.inuse_objects += acc.iobj[n]; e.inuse_space += acc.ispace[n];
      }
      r.sites = Object.keys(rows).map(function (k) { return rows[k]; }).sort(function (a, b) {
        return b.inuse_space - a.inuse_space || b.alloc_space - a.alloc_space || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);
      });
      r.unmatched_frees = acc.unmatched;
      return r;
    });
  };

  function Graph(app) {
    this.app = app;
    this.stack = [];        // the breadcrumb: "A-B" texts, the last the shown range
    this.showAll = false;   // compact list: every thread, not only the FEW highest
    var el = PK.el, self = this;
    var host = this.host = el("div", "pk-memgraph");
    host.id = "pk-memgraph";
    var title = this.title = el("h3", "pk-mem-title");
    host.appendChild(title);
    var crumbs = this.crumbs = el("nav", "pk-crumbs pk-mem-crumbs");
    crumbs.id = "pk-mem-crumbs";
    crumbs.setAttribute("aria-label", "Range of operations");
    crumbs.style.cssText = "display:flex;flex-wrap:wrap;align-items:center;gap:4px;font-size:12px;min-height:22px";
    host.appendChild(crumbs);
    var wrap = el("div", "pk-memgraph-wrap");
    wrap.style.position = "relative";
    host.appendChild(wrap);
    var cv = this.canvas = el("canvas", "pk-memgraph-canvas");
    cv.id = "pk-memgraph-canvas";
    cv.style.display = "block";
    cv.style.cursor = "crosshair";
    cv.setAttribute("aria-label", "Memory graph: drag across it to zoom to a range of operations");
    wrap.appendChild(cv);
    var sel = this.selBox = el("div", "pk-memgraph-sel");
    sel.style.cssText = "position:absolute;top:0;pointer-events:none;background:rgba(66,133,244,0.18);border:1px solid rgba(66,133,244,0.7);display:none";
    wrap.appendChild(sel);
    this.more = el("button", "pk-btn pk-mem-more");
    this.more.id = "pk-mem-more";
    this.more.hidden = true;
    this.more.addEventListener("click", function () { self.showAll = !self.showAll; self._key = ""; app.render("memory graph threads"); });
    host.appendChild(this.more);
    this.note = el("p", "note");
    this.note.id = "pk-mem-note";
    host.appendChild(this.note);
    var pane = app.panes.memory;
    pane.insertBefore(host, pane.firstChild);
    this.ctx = cv.getContext("2d");
    var drag = null;
    var at = function (e) { var r = cv.getBoundingClientRect(); return [e.clientX - r.left, e.clientY - r.top]; };
    cv.addEventListener("mousedown", function (e) {
      var xy = at(e), row = self.rowAt(xy[1]);
      if (e.button !== 0 || !row || xy[0] < GUTTER) return;
      drag = { x: xy[0], row: row, moved: false };
      e.preventDefault();
    });
    window.addEventListener("mousemove", function (e) {
      if (!drag) return;
      var x = Math.max(GUTTER, Math.min(GUTTER + self.W, at(e)[0]));
      if (Math.abs(x - drag.x) >= 3) drag.moved = true;
      if (!drag.moved) return;
      sel.style.display = "block";
      sel.style.left = Math.min(x, drag.x) + "px";
      sel.style.width = Math.abs(x - drag.x) + "px";
      sel.style.height = cv.style.height;
    });
    window.addEventListener("mouseup", function (e) {
      if (!drag) return;
      var d = drag, x = Math.max(GUTTER, Math.min(GUTTER + self.W, at(e)[0]));
      drag = null;
      sel.style.display = "none";
      if (!d.moved) return;
      var r = d.row, f0 = (Math.min(x, d.x) - GUTTER) / self.W, f1 = (Math.max(x, d.x) - GUTTER) / self.W;
      var a = r.a + Math.floor(f0 * (r.b - r.a)), b = r.a + Math.ceil(f1 * (r.b - r.a));
      if (b <= a) b = a + 1;
      self.push(a, b);
    });
    cv.addEventListener("mousemove", function (e) {
      if (drag) { app.hideHover(); return; }
      var xy = at(e);
      self.hover(xy[0], xy[1], e.clientX, e.clientY);
    });
    cv.addEventListener("mouseleave", function () { app.hideHover(); });
    cv.addEventListener("click", function (e) {
      // compact list: a click on a thread's name shows that thread
      var xy = at(e), row = self.rowAt(xy[1]);
      if (!row || xy[0] >= GUTTER || !self.compact) return;
      var p = app.p;
      for (var t = 0; t < p.threads.length; t++)
        if (!p.threads[t].merged && p.threads[t].index === row.c.thread) {
          app.state.thread = t; app.apply(app.state); app.render("thread"); return;
        }
    });
  }

  Graph.prototype.rowAt = function (y) {
    for (var k = 0; this.rows && k < this.rows.length; k++)
      if (y >= this.rows[k].y && y < this.rows[k].y + this.rows[k].h) return this.rows[k];
    return null;
  };
  Graph.prototype.push = function (a, b) {
    var txt = a + "-" + b;
    if (txt === this.app.state.ops) return;
    this.stack.push(txt);
    this.app.change({ ops: txt }, "memory range");
  };
  Graph.prototype.pop = function (depth) {
    this.stack = this.stack.slice(0, depth);
    this.app.change({ ops: depth ? this.stack[depth - 1] : "" }, "memory range");
  };
  // The breadcrumb: the whole run, then each range zoomed to (a click
  // pops back to it); the state's range (from the URL) when it is not
  // the last one.
  Graph.prototype.renderCrumbs = function (r) {
    var self = this, el = PK.el, c = this.crumbs, st = this.app.state;
    if (st.ops && this.stack[this.stack.length - 1] !== st.ops) this.stack = [st.ops];
    if (!st.ops) this.stack = [];
    c.textContent = "";
    var full = el("button", "pk-crumb" + (this.stack.length ? "" : " on"), "Whole run");
    full.addEventListener("click", function () { self.pop(0); });
    c.appendChild(full);
    this.stack.forEach(function (txt, i) {
      var q = PK.parseOps(txt);
      c.appendChild(el("span", "pk-sep", "›"));
      var b = el("button", "pk-crumb" + (i === self.stack.length - 1 ? " on" : ""),
                 "operations " + PK.formatCount(q[0]) + " – " + PK.formatCount(q[1] - 1));
      b.title = "ops=" + txt;
      b.addEventListener("click", function () { self.pop(i + 1); });
      c.appendChild(b);
    });
    var n = el("span", "note pk-mem-range-note", r ? "the graph shows these operations of each thread (" + PK.opsCommand(r[0], r[1]) +
      " gives its numbers); click a crumb to widen" : "drag across the graph to zoom to a range of operations");
    n.style.marginLeft = "8px";
    c.appendChild(n);
  };

  // The counters to draw for page thread t: its own, or every one for
  // "All threads" (and for a thread of none, none).
  Graph.prototype.pick = function (t) {
    var p = this.app.p, th = p.threads[t], list = orderCounters(p);
    if (!th || th.merged) return list.slice();
    return list.filter(function (c) { return c.thread === th.index; });
  };

  Graph.prototype.label = function (c) {
    var p = this.app.p;
    for (var t = 0; t < p.threads.length; t++)
      if (!p.threads[t].merged && p.threads[t].index === c.thread) return p.threadLabel(t);
    return c.thread >= 0 ? "thread " + c.thread : "";
  };

  Graph.prototype.draw = function (width) {
    var app = this.app, list = this.pick(app.state.thread), dark = app.dark;
    var all = orderCounters(app.p), left = app.p.data.order_counters_left_out || 0;
    var range = PK.parseOps(app.state.ops);
    if (!range) app.state.ops = "";
    this.renderCrumbs(range);
    var count = list.length, compact = this.compact = count > COMPACT;
    if (compact) {
      // highest peak first; the FEW highest unless every one is asked for
      list = list.map(function (c) { return [c, summary(c).max]; })
        .sort(function (x, y) { return y[1] - x[1]; }).map(function (x) { return x[0]; });
      if (!this.showAll) list = list.slice(0, FEW);
    }
    this.more.hidden = !compact || count <= FEW;
    this.more.textContent = this.showAll ? "Show the " + FEW + " highest peaks only" : "Show all " + count + " threads";
    var ROW = compact ? ROW_C : list.length > 1 ? 56 : 120, GAP = compact ? 2 : 6;
    this.title.textContent = "Bytes in use over the run, by operation order" +
      (compact ? " (" + count + " threads, highest peak first, each with its " + (range ? "highest in the range" : "peak") + (list.length < count ? ": the " + list.length + " highest" : "") + "; click a name to show that thread)"
               : list.length > 1 ? " (a graph per thread)" : "");
    var notes = [];
    if (!list.length) notes.push("This thread made no memory operation: its graph is none (All threads shows every thread's).");
    if (left) notes.push(left + " thread" + (left === 1 ? "'s graph is" : "s' graphs are") + " left out (the page keeps at most a million samples of counters).");
    if (range) {
      // a thinned series: a range edge inside a run of merged operations
      var merged = list.filter(function (c) {
        if (!c.thinned) return false;   // every sample the command line has
        var q = inRange(c, range[0], range[1]), n = c.number.length;
        return (q.i < n && c.number[q.i] > 1) || (q.j < n && c.number[q.j] > 1);
      }).length;
      if (merged) notes.push(merged + " of the graphs start or end inside a run of operations merged in one sample (a long series is thinned): " +
        "there the graph starts at the run before, and profkit counters --range, which keeps more samples, can differ by that run.");
      else {
        var thinned = list.filter(function (c) { return c.thinned; }).length;
        if (thinned) notes.push(thinned + " of the graphs are thinned (the page keeps every operation only while its threads' graphs have at most 400,000 samples together): " +
          "their samples in the range are fewer than profkit counters --range counts, and its figures can differ.");
      }
    }
    if (!range && list.length && !list.some(function (c) { return c.rawOps; }) && !app.p.diff)
      notes.push("A drag zooms the graphs but does not narrow the flame graph and the table below: the page has no record of each memory operation " +
        "(profkit flame leaves them out of inputs over 64 MB; flame --markers and profkit view keep them).");
    var leftOps = app.p.data.order_ops_left_out || 0;
    if (!range && leftOps && list.length && list.every(function (c) { return c.rawOps; })) {
      // the records are a prefix: where a drag stops narrowing
      var part = list.filter(function (c) { var k = kept(c); return k.kept < k.all; });
      if (part.length) notes.push("A drag narrows the flame graph and the table below only within the operations the page has a record of, the file's first " +
        PK.formatCount(1000000) + " (" + PK.formatCount(leftOps) + " left out): " +
        part.slice(0, 3).map(function (c) { return labelOf(app.p, c) + " up to operation " + PK.formatCount(kept(c).kept) + " of " + PK.formatCount(kept(c).all); }).join(", ") +
        (part.length > 3 ? " and " + (part.length - 3) + " more threads" : "") + "; a range past that zooms the graphs only.");
    }
    var mr = range ? PK.memRange(app) : null;
    if (mr && mr.why) notes.push("The memory tables are not narrowed: the flame graph and the table below are still of the whole run, because " + mr.why + ".");
    else if (mr) notes.push("The flame graph and the table below show what operations " + PK.formatCount(range[0]) + " – " + PK.formatCount(range[1] - 1) +
      " did per allocation site: allocated, freed, and in use after them of what they allocated" +
      (mr.unmatched ? " (" + PK.formatCount(mr.unmatched) + " frees in the range matched no allocation)" : "") + ".");
    this.note.textContent = notes.join(" ");
    this.note.hidden = !notes.length;
    var height = list.length * (ROW + GAP) + 2, dpr = window.devicePixelRatio || 1, cv = this.canvas, ctx = this.ctx;
    var W = Math.max(100, width - GUTTER - PAD);
    var key = [app.state.thread, width, dark, dpr, app.state.ops, this.showAll].join("|");
    this.host.hidden = !all.length;
    if (key === this._key) return;
    this._key = key;
    cv.width = Math.round(width * dpr); cv.height = Math.round(height * dpr);
    cv.style.width = width + "px"; cv.style.height = height + "px";
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, width, height);
    ctx.font = "11px system-ui, -apple-system, 'Segoe UI', sans-serif";
    ctx.textBaseline = "middle";
    var maxes = [], mins = [], finals = [], starts = [], names = [], ns = [];
    this.rows = [];
    this.W = W;
    for (var k = 0; k < list.length; k++) {
      var c = list[k], s = summary(c), y = k * (ROW + GAP);
      var a = range ? range[0] : 0, b = range ? range[1] : Math.max(1, s.ops), q = inRange(c, a, b);
      var lo, hi;
      if (range) { lo = Math.min(q.min, q.start); hi = Math.max(q.max, q.start, lo + 1); }
      else { lo = Math.min(0, s.min === null ? 0 : s.min); hi = Math.max(s.max === null ? 0 : s.max, lo + 1); }
      var row = { c: c, s: s, q: q, a: a, b: b, y: y, h: ROW, lo: lo, hi: hi };
      this.rows.push(row);
      maxes.push(q.max); mins.push(q.min); finals.push(q.final); starts.push(q.start); ns.push(q.n); names.push(this.label(c));
      ctx.fillStyle = dark ? "#ddd" : "#222";
      if (compact) {
        // the name, cut to leave room for the figure at the right
        var fig = s.n ? (range ? (q.n ? bytes(q.max) : "none in range") : bytes(s.max)) : "";
        var room = GUTTER - 16 - ctx.measureText(fig).width, name = this.label(c);
        while (name.length > 1 && ctx.measureText(name).width > room) name = name.slice(0, -2) + "…";
        ctx.fillText(name, 4, y + ROW / 2);
        ctx.fillStyle = dark ? "#999" : "#666";
        ctx.textAlign = "right"; ctx.fillText(fig, GUTTER - 6, y + ROW / 2); ctx.textAlign = "left";
      } else {
        ctx.fillText(this.label(c).slice(0, 30), 4, y + 9);
        ctx.fillStyle = dark ? "#999" : "#666";
        if (s.n && range) {
          ctx.fillText("from " + bytes(q.start) + " to " + bytes(q.final), 4, y + 23);
          ctx.fillText("high " + bytes(q.max) + ", low " + bytes(q.min), 4, y + 37);
        } else if (s.n) {
          ctx.fillText("peak " + bytes(s.max) + ", end " + bytes(s.final), 4, y + 23);
          ctx.fillText(PK.formatCount(s.ops) + " operation" + (s.ops === 1 ? "" : "s"), 4, y + 37);
        }
      }
      ctx.strokeStyle = dark ? "#333" : "#ddd";
      ctx.strokeRect(GUTTER + 0.5, y + 0.5, W - 1, ROW - 1);
      if (!s.n) continue;
      this.plot(row, dark);
    }
    // what the graphs show, per graph drawn in order: as `profkit counters
    // --json` (with --range A ms,B ms when zoomed: data-ops) gives them,
    // total.max / total.min / total.start, the last bytes in use and the
    // samples in the range
    cv.setAttribute("data-max", JSON.stringify(maxes));
    cv.setAttribute("data-min", JSON.stringify(mins));
    cv.setAttribute("data-start", JSON.stringify(starts));
    cv.setAttribute("data-final", JSON.stringify(finals));
    cv.setAttribute("data-samples", JSON.stringify(ns));
    cv.setAttribute("data-ops", range ? JSON.stringify(range) : "null");
    cv.setAttribute("data-threads", JSON.stringify(names));
  };

  // One row's step line over operations [row.a, row.b), at most four
  // points per pixel column (the value it enters with, its lowest,
  // highest and last), so a thread of any number of samples draws in time
  // proportional to the width; it starts at the bytes in use carried in.
  Graph.prototype.plot = function (row, dark) {
    var ctx = this.ctx, c = row.c, q = row.q, W = this.W, a = row.a, span = row.b - row.a;
    var x0 = GUTTER, top = row.y + 3, bot = row.y + row.h - 3, range = row.hi - row.lo;
    var yOf = function (v) { return bot - (v - row.lo) / range * (bot - top); };
    var xOf = function (op) { return x0 + (op - a) / span * W; };
    ctx.beginPath();
    ctx.moveTo(x0, yOf(q.start));
    var col = -Infinity, prev = q.start, cmin = 0, cmax = 0, entry = 0;
    // a column's points after the one it enters with, those that differ
    var flush = function () {
      if (cmin !== entry) ctx.lineTo(col, yOf(cmin));
      if (cmax !== cmin) ctx.lineTo(col, yOf(cmax));
      if (prev !== cmax) ctx.lineTo(col, yOf(prev));
    };
    for (var r = q.i; r < q.j; r++) {
      var px = Math.floor(xOf(c.op[r])) + 0.5;
      if (px !== col) {
        if (col !== -Infinity) flush();
        ctx.lineTo(px, yOf(prev));   // a step: the value holds until this operation
        col = px; cmin = cmax = entry = prev;
      }
      var v = c.total[r];
      if (v < cmin) cmin = v;
      if (v > cmax) cmax = v;
      prev = v;
    }
    if (col !== -Infinity) flush();
    // a zoomed axis past the thread's last operation: the line ends there
    // and the rest is shaded ("ended")
    var end = Math.min(x0 + W, Math.max(x0, xOf(row.s.ops)));
    ctx.lineTo(end, yOf(prev));
    var color = "#e8890c", base = yOf(Math.max(row.lo, 0));
    ctx.strokeStyle = color; ctx.lineWidth = 1; ctx.stroke();
    ctx.lineTo(end, base);
    ctx.lineTo(x0, base);
    ctx.closePath();
    ctx.globalAlpha = 0.3; ctx.fillStyle = color; ctx.fill(); ctx.globalAlpha = 1;
    if (end < x0 + W - 1) {
      ctx.fillStyle = dark ? "rgba(255,255,255,0.06)" : "rgba(0,0,0,0.05)";
      ctx.fillRect(end, row.y + 1, x0 + W - end - 1, row.h - 2);
      if (x0 + W - end > 150) {
        ctx.fillStyle = dark ? "#888" : "#888";
        ctx.fillText("the thread's operations end at " + PK.formatCount(row.s.ops - 1), end + 6, row.y + row.h / 2);
      }
    }
    ctx.fillStyle = dark ? "#aaa" : "#555";
    ctx.textAlign = "right";
    if (row.h > ROW_C) {
      ctx.fillText(bytes(row.hi), x0 + W - 4, top + 7);
      if (row.lo !== 0) ctx.fillText(bytes(row.lo), x0 + W - 4, bot - 7);
      if (span !== row.s.ops) {
        // a zoomed axis: its first and last operation
        ctx.textAlign = "left";
        ctx.fillText("op " + PK.formatCount(row.a), x0 + 4, bot - 7);
        ctx.textAlign = "right";
        ctx.fillText("op " + PK.formatCount(row.b - 1), x0 + W - 70, bot - 7);
      }
    }
    ctx.textAlign = "left";
  };

  Graph.prototype.hover = function (x, y, cx, cy) {
    var app = this.app, row = this.rowAt(y);
    if (!row || !row.s.n || x < GUTTER) { app.hideHover(); return; }
    var c = row.c, op = row.a + Math.floor((x - GUTTER) / this.W * (row.b - row.a)), lo = 0, hi = c.op.length - 1;
    if (op < c.op[0] || op > c.op[hi]) {
      var add0 = app.hoverRows(this.label(c) + " — " + c.name);
      add0("Operation", PK.formatCount(op));
      add0("In use", op < c.op[0] ? "0 B (before the thread's first operation)" : bytes(c.total[hi]) + " (after the thread's last operation, " + PK.formatCount(c.op[hi]) + ")");
      app.placeHover(cx, cy);
      return;
    }
    while (lo < hi) { var mid = (lo + hi + 1) >> 1; if (c.op[mid] <= op) lo = mid; else hi = mid - 1; }
    var r = lo, num = c.number[r], d = c.count[r];
    var add = app.hoverRows(this.label(c) + " — " + c.name);
    add(num > 1 ? "Operations" : "Operation", num > 1 ? PK.formatCount(c.op[r] - num + 1) + " to " + PK.formatCount(c.op[r]) : PK.formatCount(c.op[r]));
    add("In use after it", bytes(c.total[r]) + (Math.abs(c.total[r]) >= 1024 ? " (" + exact(c.total[r]) + ")" : ""));
    if (num > 1) {
      add("Allocated - freed", (d > 0 ? "+" : "") + exact(d));
      add("Merged", PK.formatCount(num) + " operations in this sample: a long series keeps each run's lowest, highest and last (past 8,192 operations per thread, and past 6,144 samples on the page)");
    } else if (d > 0) add("Allocation", "+" + exact(d));
    else if (d < 0) add("Free", exact(d));
    else add("Free", "0 B (of no live allocation: allocated before profiling)");
    add("Peak of the thread", bytes(row.s.max));
    if (row.b - row.a !== row.s.ops) add("Highest in the range", bytes(row.q.max));
    app.placeHover(cx, cy);
  };

  // query("counters"): every counter of the page, by operation order
  // (order_counters) and over time (time.counters), as `profkit counters
  // --json` names them: name, category, by_order, thread {index, name, tid,
  // pid}, samples, and total {min, max, final} of the running sum; with
  // the memory graph's range (ops=A-B) a counter by operation order gives
  // those of operations A..B-1 (ops: [A, B], total.start: the bytes in use
  // carried in), as `profkit counters --range Ams,Bms --json`.
  PK.queryCounters = function (app) {
    var p = app.p, out = [], T = p.data.time, ops = PK.parseOps(app.state.ops), lists = [[orderCounters(p), true], [(T && T.counters) || [], false]];
    lists.forEach(function (l) {
      l[0].forEach(function (c) {
        var s = summary(c), th = null;
        for (var t = 0; t < p.threads.length; t++)
          if (!p.threads[t].merged && p.threads[t].index === c.thread) th = p.threads[t];
        var o = { name: c.name, category: c.category, by_order: l[1],
                  thread: th ? { index: th.index, name: p.str(th.name), tid: th.tid, pid: th.pid } : null,
                  samples: s.n, total: { min: s.min, max: s.max, final: s.final } };
        if (c.thinned) o.thinned = true;   // fewer samples than the command line's
        if (l[1] && ops) {
          // the memory graph's range: as counters --range Ams,Bms
          var q = inRange(c, ops[0], ops[1]);
          o.ops = ops.slice();
          o.samples = q.n;
          o.total = { start: q.start, min: q.min, max: q.max, final: q.final };
        }
        out.push(o);
      });
    });
    return out;
  };

  // The Memory view draws the graphs above its flame graph.
  PK.appHooks = PK.appHooks || [];
  PK.appHooks.push(function (App) {
    var renderMemory = App.prototype.renderMemory;
    App.prototype.renderMemory = function (base, width) {
      var t0 = performance.now(), list = this.p.data.order_counters;
      if (list && list.length) {
        if (!this.memGraph) this.memGraph = new Graph(this);
        this.memGraph.draw(width);
      }
      var g = performance.now() - t0;
      renderMemory.call(this, base, width);
      this.drawTime += g;
    };
  });
})(typeof globalThis !== "undefined" ? (globalThis.profkit = globalThis.profkit || {}) : (this.profkit = this.profkit || {}));
