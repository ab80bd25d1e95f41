"use strict";
// Memory graphs (docs/viewer.md, "Memory graph"): at the top of the Memory
// view, for a profile with counters by operation order (a bsprof file's
// `Memory` counter per thread: docs/formats/bsprof.md), a graph per thread
// of its bytes in use over the run, as Roku's own viewer draws it: a step
// line, x the operation index (the format gives memory operations no
// time), each row scaled from 0 (or its lowest, when below) to its peak.
// The thread shown: its graph; "All threads": every thread's. Hover: the
// operation index, the bytes in use after it and the allocation (+) or
// free (-); where the series was thinned (past 8,192 operations per
// thread by the reader, past 6,144 samples for the page: flame_html.c) a
// sample stands for several operations and the hover says so, with their
// net change. The canvas's data-max and data-final hold, per
// graph drawn, the highest and the last bytes in use (what `profkit
// counters --json` gives as total.max and as its series' last total);
// query("counters") gives every counter of the page.
(function (PK) {
  var GUTTER = 190, PAD = 4;

  function bytes(v) { return PK.formatValue(v, "bytes"); }
  function exact(v) { return PK.formatCount(v) + " B"; }

  // The page's counters by operation order, their columns added up once:
  // op (the operation index) and total (the running sum: the bytes in
  // use) from the data's steps and counts (flame_html.c).
  function orderCounters(p) {
    if (p._orderCounters) return p._orderCounters;
    p._orderCounters = (p.data.order_counters || []).map(function (c) {
      var n = c.count.length, op = new Float64Array(n), total = new Float64Array(n), a = 0, t = 0;
      for (var r = 0; r < n; r++) { a += c.op[r]; t += c.count[r]; op[r] = a; total[r] = t; }
      return { name: c.name, category: c.category, thread: c.thread, op: op, total: total, count: c.count, number: c.number };
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

  function Graph(app) {
    this.app = app;
    var host = this.host = document.createElement("div");
    host.className = "pk-memgraph";
    host.id = "pk-memgraph";
    var title = this.title = document.createElement("h3");
    title.className = "pk-mem-title";
    host.appendChild(title);
    var cv = this.canvas = document.createElement("canvas");
    cv.className = "pk-memgraph-canvas";
    cv.id = "pk-memgraph-canvas";
    cv.style.display = "block";
    host.appendChild(cv);
    this.note = document.createElement("p");
    this.note.className = "note";
    host.appendChild(this.note);
    var pane = app.panes.memory;
    pane.insertBefore(host, pane.firstChild);
    this.ctx = cv.getContext("2d");
    var self = this;
    cv.addEventListener("mousemove", function (e) {
      var r = cv.getBoundingClientRect();
      self.hover(e.clientX - r.left, e.clientY - r.top, e.clientX, e.clientY);
    });
    cv.addEventListener("mouseleave", function () { app.hideHover(); });
  }

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
    var ROW = list.length > 1 ? 56 : 120, GAP = 6;
    this.title.textContent = "Bytes in use over the run, by operation order" +
      (list.length > 1 ? " (a graph per thread)" : "");
    var notes = [];
    if (!list.length) notes.push("This thread made no memory operation: its graph is none (All threads shows every thread's).");
    if (left) notes.push(left + " thread" + (left === 1 ? "'s graph is" : "s' graphs are") + " left out (the page keeps at most a million samples of counters).");
    this.note.textContent = notes.join(" ");
    this.note.hidden = !notes.length;
    var height = list.length * (ROW + GAP) + 2, dpr = window.devicePixelRatio || 1, cv = this.canvas, ctx = this.ctx;
    var W = Math.max(100, width - GUTTER - PAD);
    var key = [app.state.thread, width, dark, dpr].join("|");
    this.host.hidden = !all.length;
    if (key === this._key) return;
    this._key = key;
    cv.width = Math.round(width * dpr); cv.height = Math.round(height * dpr);
    cv.style.width = width + "px"; cv.style.height = height + "px";
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, width, height);
    ctx.font = "11px system-ui, -apple-system, 'Segoe UI', sans-serif";
    ctx.textBaseline = "middle";
    var maxes = [], finals = [], names = [];
    this.rows = [];
    this.W = W;
    for (var k = 0; k < list.length; k++) {
      var c = list[k], s = summary(c), y = k * (ROW + GAP);
      var lo = Math.min(0, s.min === null ? 0 : s.min), hi = Math.max(s.max === null ? 0 : s.max, lo + 1);
      var row = { c: c, s: s, y: y, h: ROW, lo: lo, hi: hi };
      this.rows.push(row);
      maxes.push(s.max); finals.push(s.final); names.push(this.label(c));
      ctx.fillStyle = dark ? "#ddd" : "#222";
      ctx.fillText(this.label(c).slice(0, 30), 4, y + 9);
      ctx.fillStyle = dark ? "#999" : "#666";
      if (s.n) {
        ctx.fillText("peak " + bytes(s.max) + ", end " + bytes(s.final), 4, y + 23);
        ctx.fillText(PK.formatCount(s.ops) + " operation" + (s.ops === 1 ? "" : "s"), 4, y + 37);
      }
      ctx.strokeStyle = dark ? "#333" : "#ddd";
      ctx.strokeRect(GUTTER + 0.5, y + 0.5, W - 1, ROW - 1);
      if (!s.n) continue;
      this.plot(row, dark);
    }
    cv.setAttribute("data-max", JSON.stringify(maxes));
    cv.setAttribute("data-final", JSON.stringify(finals));
    cv.setAttribute("data-threads", JSON.stringify(names));
  };

  // One row's step line, at most four points per pixel column (the value
  // it enters with, its lowest, highest and last), so a thread of any
  // number of samples draws in time proportional to the width.
  Graph.prototype.plot = function (row, dark) {
    var ctx = this.ctx, c = row.c, n = c.op.length, W = this.W, ops = row.s.ops || 1;
    var x0 = GUTTER, top = row.y + 3, bot = row.y + row.h - 3, range = row.hi - row.lo;
    var yOf = function (v) { return bot - (v - row.lo) / range * (bot - top); };
    var xOf = function (op) { return x0 + op / ops * W; };
    ctx.beginPath();
    ctx.moveTo(x0, yOf(0));
    var col = -Infinity, prev = 0, cmin = 0, cmax = 0, entry = 0;
    // a column's points after the one it enters with, those that differ
    var flush = function () {
      if (cmin !== entry) ctx.lineTo(col, yOf(cmin));
      if (cmax !== cmin) ctx.lineTo(col, yOf(cmax));
      if (prev !== cmax) ctx.lineTo(col, yOf(prev));
    };
    for (var r = 0; r < n; r++) {
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
    flush();
    ctx.lineTo(x0 + W, yOf(prev));
    var color = "#e8890c";
    ctx.strokeStyle = color; ctx.lineWidth = 1; ctx.stroke();
    ctx.lineTo(x0 + W, yOf(Math.max(row.lo, 0)));
    ctx.lineTo(x0, yOf(Math.max(row.lo, 0)));
    ctx.closePath();
    ctx.globalAlpha = 0.3; ctx.fillStyle = color; ctx.fill(); ctx.globalAlpha = 1;
    ctx.fillStyle = dark ? "#aaa" : "#555";
    ctx.textAlign = "right";
    ctx.fillText(bytes(row.hi), x0 + W - 4, top + 7);
    ctx.textAlign = "left";
  };

  Graph.prototype.hover = function (x, y, cx, cy) {
    var app = this.app, row = null;
    for (var k = 0; this.rows && k < this.rows.length; k++)
      if (y >= this.rows[k].y && y < this.rows[k].y + this.rows[k].h) row = this.rows[k];
    if (!row || !row.s.n || x < GUTTER) { app.hideHover(); return; }
    var c = row.c, op = Math.floor((x - GUTTER) / this.W * row.s.ops), lo = 0, hi = c.op.length - 1;
    if (op < c.op[0]) { app.hideHover(); return; }
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
    app.placeHover(cx, cy);
  };

  // query("counters"): every counter of the page, by operation order
  // (order_counters) and over time (time.counters), as `profkit counters
  // --json` names them: name, category, by_order, thread {index, name, tid,
  // pid}, samples, and total {min, max, final} of the running sum.
  PK.queryCounters = function (app) {
    var p = app.p, out = [], T = p.data.time, lists = [[orderCounters(p), true], [(T && T.counters) || [], false]];
    lists.forEach(function (l) {
      l[0].forEach(function (c) {
        var s = summary(c), th = null;
        for (var t = 0; t < p.threads.length; t++)
          if (!p.threads[t].merged && p.threads[t].index === c.thread) th = p.threads[t];
        out.push({ name: c.name, category: c.category, by_order: l[1],
                   thread: th ? { index: th.index, name: p.str(th.name), tid: th.tid, pid: th.pid } : null,
                   samples: s.n, total: { min: s.min, max: s.max, final: s.final } });
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
