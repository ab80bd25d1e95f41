"use strict";
// The page's time: the timeline above the views, the selected range (a
// breadcrumb of ranges, the last in the URL as range=START-END, ms on the
// Firefox Profiler's zero as --range takes them) that narrows every view,
// the marker table, the stack chart's runs refined for a zoomed range, and
// window.profkit.query.
(function (PK) {
  if (typeof document === "undefined") return;
  var el = PK.el, App = PK.App;
  // A zoomed stack chart draws runs made from the samples themselves when
  // it shows at most this many (else the whole range's runs, merged).
  var REFINE_MAX = 200000;

  // "START-END" (ms, either may be negative) -> [start, end], or null.
  PK.parseMsRange = function (text) {
    var m = /^(-?\d+(?:\.\d+)?)-(-?\d+(?:\.\d+)?)$/.exec(text || "");
    if (!m) return null;
    var a = Number(m[1]), b = Number(m[2]);
    return isFinite(a) && isFinite(b) && b >= a ? [a, b] : null;
  };
  // ms as the URL holds them: at most 3 decimals (1 µs).
  function msText(x) { return String(Math.round(x * 1000) / 1000); }
  PK.msRangeText = function (a, b) { return msText(a) + "-" + msText(b); };

  App.prototype.initTime = function () {
    var p = this.p, T = p.time(), st = this.state;
    this.rangeStack = [];
    if (!T) { st.range = ""; return; }
    if (!st.range && T.range) st.range = PK.msRangeText(T.range[0], T.range[1]);
    if (!PK.parseMsRange(st.range)) st.range = "";
    if (st.range) this.rangeStack.push(st.range);
    // The stack chart opens on the busiest timed thread, never on one
    // without timed samples.
    if (st.view === "stack" && !this.hasSamples()) st.thread = this.busiestThread();
  };
  // The timed thread with the most samples (0 when none is timed).
  App.prototype.busiestThread = function () {
    var p = this.p, best = -1, most = -1;
    p.threads.forEach(function (th, i) {
      var n = th.timeline && th.timeline.time ? (typeof th.timeline.time === "string" ? th.timeline.n : th.timeline.time.length) : th.samples && th.samples.start ? th.samples.start.length : 0;
      if (!th.merged && n > most) { most = n; best = i; }
    });
    return most > 0 ? best : this.state.thread;
  };
  App.prototype.buildTime = function (app) {
    var p = this.p;
    if (!p.time()) return;
    var box = this.timeBox = el("section", "pk-timeline");
    box.id = "pk-timeline";
    this.rangeCrumbs = el("nav", "pk-range-crumbs");
    this.rangeCrumbs.id = "pk-range-crumbs";
    this.rangeCrumbs.setAttribute("aria-label", "Time range");
    box.appendChild(this.rangeCrumbs);
    var host = el("div", "pk-tl-host");
    box.appendChild(host);
    app.appendChild(box);
    this.timeline = new PK.Timeline(host, this);
    // The marker table (the Markers view).
    var mp = this.panes_markers = el("div", "pk-mk");
    this.mkSearch = el("input", "pk-search");
    this.mkSearch.type = "search";
    this.mkSearch.placeholder = "Search markers (name, category, data)";
    this.mkSearch.id = "pk-marker-search";
    var self = this;
    this.mkSearch.addEventListener("input", function () { self.mkSearchText = self.mkSearch.value; self.render("marker search"); });
    mp.appendChild(this.mkSearch);
    this.mkInfo = el("span", "note pk-mk-info"); mp.appendChild(this.mkInfo);
    this.mkTable = el("table", "pk-table pk-mk-table"); this.mkTable.id = "pk-marker-table";
    mp.appendChild(this.mkTable);
    this.mkSort = { key: "start", dir: 1 };
  };
  // Before every render: the range from the state, the range breadcrumb,
  // the timeline.
  App.prototype.renderTime = function (mainW) {
    var p = this.p, st = this.state;
    if (!p.time()) return;
    if (st.view === "stack" && !this.hasSamples()) st.thread = this.busiestThread(), this.threadSel.value = String(st.thread);
    if (this.panes_markers && !this.panes_markers.parentNode) this.panes.markers.appendChild(this.panes_markers);
    var r = PK.parseMsRange(st.range);
    if (!r) st.range = "";
    if (st.range && this.rangeStack[this.rangeStack.length - 1] !== st.range) this.rangeStack = [st.range];
    if (!st.range) this.rangeStack = [];
    p.setRange(r);
    this.renderRangeCrumbs();
    var t0 = performance.now();
    this.timeline.draw(Math.max(300, mainW - 16));
    if (PK.counterTrack) PK.counterTrack(this); // 33_counters.js
    this.timings.timeline = performance.now() - t0;
  };
  App.prototype.renderRangeCrumbs = function () {
    var self = this, c = this.rangeCrumbs, T = this.p.time();
    c.textContent = "";
    var full = el("button", "pk-crumb" + (this.rangeStack.length ? "" : " on"), "Full range (" + PK.formatMs((T.end - T.zero) / 1e6) + ")");
    full.addEventListener("click", function () { self.popRange(0); });
    c.appendChild(full);
    this.rangeStack.forEach(function (txt, i) {
      var r = PK.parseMsRange(txt);
      c.appendChild(el("span", "pk-sep", "›"));
      var b = el("button", "pk-crumb" + (i === self.rangeStack.length - 1 ? " on" : ""), PK.formatMs(r[0]) + " – " + PK.formatMs(r[1]));
      b.title = "range=" + txt;
      b.addEventListener("click", function () { self.popRange(i + 1); });
      c.appendChild(b);
    });
    var note = this.rangeStack.length ? "every view shows this range; click a crumb to widen" : "drag in the timeline to select a range";
    if (T.samplesLeftOut) note = (this.rangeStack.length ? "the timeline shows this range, the views the whole profile" : "drag in the timeline to select a range (the views show the whole profile)") +
      ": its " + PK.formatCount(T.samplesLeftOut) + " timed samples are more than the page holds" +
      (T.samplesBytes ? " (their columns would take more than " + PK.formatCount(T.samplesBytes) + " bytes); profkit convert --range A,B --to firefox, then profkit flame of that file, makes a page of a range"
                      : "; profkit flame --range A,B makes a page of a range");
    if (T.samplesLean) note += " · the samples' CPU use and categories left out (past the page's " + PK.formatCount(T.samplesLean) + " bytes for the samples): one colour, the activity by value";
    if (T.markersLeftOut) note += " · " + PK.formatCount(T.markersLeftOut) + " markers past the page's 2,000,000 left out";
    if (T.payloadsLeftOut) note += " · " + PK.formatCount(T.payloadsLeftOut) + " markers' data left out (past 8 MB)";
    if (T.markersError) note += " · " + T.markersError + ": no markers shown";
    var n = el("span", "note pk-range-note", note);
    n.id = "pk-range-note";
    c.appendChild(n);
  };
  App.prototype.pushRange = function (a, b) {
    var txt = PK.msRangeText(a, b);
    if (txt === this.state.range) return;
    this.rangeStack.push(txt);
    this.change({ range: txt, span: "" }, "range");
  };
  App.prototype.popRange = function (depth) {
    this.rangeStack = this.rangeStack.slice(0, depth);
    this.change({ range: this.rangeStack.length ? this.rangeStack[depth - 1] : "", span: "" }, "range");
  };
  // A marker picked in the chart or the table: its range (an instant: none).
  App.prototype.selectMarker = function (i) {
    var M = this.p.time().markers;
    if (M.duration[i] <= 0) return;
    var s = M.start[i] / 1e6;
    this.pushRange(s, s + M.duration[i] / 1e6);
  };

  App.prototype.hoverRows = function (title) {
    var h = this.hover;
    h.textContent = "";
    h.appendChild(el("div", "pk-h-name", title));
    return function (k, v) { var d = el("div", "pk-h-row"); d.appendChild(el("span", "k", k)); d.appendChild(el("span", "v", v)); h.appendChild(d); };
  };
  App.prototype.showMarkerHover = function (i, cx, cy) {
    var p = this.p, M = p.time().markers, row = this.hoverRows(p.str(M.name[i]));
    row("Start", PK.formatMs(M.start[i] / 1e6));
    row("Duration", M.duration[i] < 0 ? "instant" : PK.formatMs(M.duration[i] / 1e6));
    row("Category", p.str(M.category[i]));
    var data = p.str(M.data[i]);
    if (data) {
      var d = el("div", "pk-h-loc pk-h-data", data.length > 400 ? data.slice(0, 400) + "…" : data);
      this.hover.appendChild(d);
    }
    this.placeHover(cx, cy);
  };
  App.prototype.showTimeHover = function (t, cx, cy, a, b) {
    var p = this.p, row = this.hoverRows(t === null ? "Selection" : p.threadLabel(t));
    row(b === undefined ? "Time" : "Start", PK.formatMs(a));
    if (b !== undefined) row("Duration", PK.formatMs(b - a));
    this.placeHover(cx, cy);
  };

  // A paused band: the profiler paused (or collecting) in that process.
  App.prototype.showPausedHover = function (i, cx, cy) {
    var r = this.p.time().paused[i], row = this.hoverRows("profiler paused");
    row("Reason", r.reason || "none given");
    row("Start", PK.formatMs(r.start));
    row("Duration", PK.formatMs(r.end - r.start) + (r.open ? ", open: paused to the end of the profile" : ""));
    row("Process", r.pid >= 0 ? "pid " + r.pid : "every process");
    this.placeHover(cx, cy);
  };

  // The stack chart's runs for the visible range r (ns): made from the
  // samples when the range shows few enough of them (every run where it
  // happened), else the whole range's runs (runs narrower than a pixel of
  // the whole range merged, which the hover says).
  App.prototype.stackSamples = function (r) {
    var p = this.p, t = this.state.thread, th = p.threads[t], tl = p.timeline(t);
    if (!tl) return th.samples;
    var a = Math.max(0, PK.lowerBound(tl.time, r[0]) - 1), b = Math.min(tl.n, PK.lowerBound(tl.time, r[1]) + 1);
    if (b - a > REFINE_MAX) { th.samples.coarse = true; return th.samples; }
    var key = t + ":" + a + ":" + b, c = this._refinedRuns;
    if (c && c.key === key) return c.runs;
    var start = [], node = [], N = tl.node, T = tl.time;
    for (var i = a; i < b; i++) if (!node.length || node[node.length - 1] !== N[i]) { start.push(T[i]); node.push(N[i]); }
    var end = b < tl.n ? T[b] : th.samples.end;
    var runs = { start: Float64Array.from(start), node: Int32Array.from(node), end: end, refined: true };
    this._refinedRuns = { key: key, runs: runs };
    return runs;
  };

  // The stack chart coloured by the frames' categories: the shown
  // thread's node categories (its whole tree's nodes), when it has two or
  // more (one category, "Other" say, would make every box one colour:
  // then by name).
  var renderStack = App.prototype.renderStack;
  App.prototype.renderStack = function (width) {
    var p = this.p, T = p.time(), tl = T && T.categories.length ? p.timeline(this.state.thread) : null;
    if (tl && tl.nodeCategory && tl.categoryKinds === undefined) {
      var seen = {}, kinds = 0, nc = tl.nodeCategory;
      for (var i = 1; i < nc.length && kinds < 2; i++) if (nc[i] && !seen[nc[i]]) { seen[nc[i]] = 1; kinds++; }
      tl.categoryKinds = kinds;
    }
    this.stack.categories = tl && tl.nodeCategory && tl.categoryKinds > 1 ? { node: tl.nodeCategory, list: T.categories } : null;
    return renderStack.call(this, width);
  };

  // The Markers view: the shown thread's markers in the range, sortable
  // by a click on a header, searchable; a click selects a marker's range.
  // At most ROWS rows are made (the count says how many match).
  var ROWS = 500;
  App.prototype.markerList = function () {
    var p = this.p, t = this.state.thread, M = p.time().markers;
    var list = PK.markersIn(p, p.threads[t].merged ? -1 : t, p.range);
    var q = (this.mkSearchText || "").toLowerCase();
    if (q) list = list.filter(function (i) {
      return p.str(M.name[i]).toLowerCase().indexOf(q) >= 0 || p.str(M.category[i]).toLowerCase().indexOf(q) >= 0 ||
             p.str(M.data[i]).toLowerCase().indexOf(q) >= 0;
    });
    var k = this.mkSort.key, dir = this.mkSort.dir;
    var val = k === "start" ? function (i) { return M.start[i]; } : k === "duration" ? function (i) { return M.duration[i]; }
      : k === "name" ? function (i) { return p.str(M.name[i]); } : k === "category" ? function (i) { return p.str(M.category[i]); }
      : function (i) { return M.thread[i]; };
    // In time order already (one thread's markers are): no sort.
    var sorted = k === "start" && dir > 0;
    for (var j = 1; sorted && j < list.length; j++) sorted = M.start[list[j - 1]] <= M.start[list[j]];
    if (!sorted) list.sort(function (x, y) { var a = val(x), b = val(y); return (a < b ? -1 : a > b ? 1 : x - y) * dir; });
    return list;
  };
  App.prototype.renderMarkerTable = function () {
    var t0 = performance.now(), self = this, p = this.p, M = p.time().markers, T = p.time();
    var list = this.markerList(), tb = this.mkTable;
    tb.textContent = "";
    var head = el("tr", "");
    [["start", "Start"], ["duration", "Duration"], ["name", "Name"], ["category", "Category"], ["thread", "Thread"], ["", "Data"]].forEach(function (c) {
      var th = el("th", "", c[1] + (self.mkSort.key === c[0] ? (self.mkSort.dir > 0 ? " ▲" : " ▼") : ""));
      if (c[0]) {
        th.className = "pk-sortable";
        th.addEventListener("click", function () {
          self.mkSort = { key: c[0], dir: self.mkSort.key === c[0] ? -self.mkSort.dir : 1 };
          self.render("marker sort");
        });
      }
      head.appendChild(th);
    });
    var thead = el("thead", ""); thead.appendChild(head); tb.appendChild(thead);
    var body = el("tbody", "");
    for (var k = 0; k < list.length && k < ROWS; k++) {
      var i = list[k], tr = el("tr", "pk-mk-row"), th = T.threads[M.thread[i]] || {};
      tr.setAttribute("data-marker", i);
      tr.appendChild(el("td", "num", PK.formatMs(M.start[i] / 1e6)));
      tr.appendChild(el("td", "num", M.duration[i] < 0 ? "—" : PK.formatMs(M.duration[i] / 1e6)));
      tr.appendChild(el("td", "", p.str(M.name[i])));
      tr.appendChild(el("td", "", p.str(M.category[i])));
      tr.appendChild(el("td", "", p.str(th.name) + (th.tid >= 0 ? " (" + th.tid + ")" : "")));
      var data = p.str(M.data[i]);
      tr.appendChild(el("td", "pk-mk-data", data.length > 160 ? data.slice(0, 160) + "…" : data));
      body.appendChild(tr);
    }
    body.addEventListener("click", function (e) {
      var row = e.target.closest("tr");
      if (row) self.selectMarker(+row.getAttribute("data-marker"));
    });
    tb.appendChild(body);
    this.mkInfo.textContent = list.length + " marker" + (list.length === 1 ? "" : "s") + (list.length > ROWS ? " (the first " + ROWS + " shown: search or select a range to narrow)" : "") +
      " · click a header to sort, a row to select its range";
    this.markerCount = list.length;
    return performance.now() - t0;
  };

  // For tests and scripts: the reports' JSON for the view shown (thread,
  // value, range): query("top") as `profkit top --json` (opts.limit: rows,
  // default 20, 0 = all), query("tree") as `profkit tree --json`,
  // query("markers") as `profkit markers --list --json`'s markers,
  // query("counters"): every counter of the page, query("mem"): what the
  // memory graph's range did per allocation site (34_memgraph.js),
  // query("paused"): the paused ranges (ms) and the bands drawn of each
  // (the track's thread, x0 and x1 in the timeline canvas's pixels).
  PK.query = function (kind, opts) {
    var app = PK.app;
    if (!app || !app.state) return null;
    var p = app.p, t = app.state.thread, v = app.v();
    if (kind === "top") return PK.queryTop(p, t, v, opts);
    if (kind === "tree") return PK.queryTree(p, t, v);
    if (kind === "counters") return PK.queryCounters(app);
    if (kind === "mem") return PK.queryMem(app);
    if (kind === "paused") {
      var L = app.timeline && app.timeline.layout;
      return p.time() ? p.time().paused.map(function (r, i) {
        return { start: r.start, end: r.end, open: r.open, reason: r.reason, pid: r.pid,
                 bands: L ? L.paused.filter(function (q) { return q.index === i; }).map(function (q) { return { thread: q.thread, x0: q.x0, x1: q.x1, y: q.y }; }) : [] };
      }) : [];
    }
    if (kind === "markers") {
      var M = p.time() ? p.time().markers : null, T = p.time();
      if (!M) return [];
      return PK.markersIn(p, p.threads[t].merged ? -1 : t, p.range).map(function (i) {
        var th = T.threads[M.thread[i]] || {}, o = { thread: { name: p.str(th.name), tid: th.tid, pid: th.pid }, name: p.str(M.name[i]),
                                                      category: p.str(M.category[i]), start: M.start[i] / 1e6 };
        if (M.duration[i] >= 0) o.duration = M.duration[i] / 1e6;
        return o;
      });
    }
    throw new Error("profkit.query: 'top', 'tree', 'markers', 'counters', 'mem' or 'paused', not '" + kind + "'");
  };
})(typeof globalThis !== "undefined" ? (globalThis.profkit = globalThis.profkit || {}) : (this.profkit = this.profkit || {}));
