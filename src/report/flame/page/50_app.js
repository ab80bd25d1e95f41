"use strict";
// The page: toolbar, breadcrumb, the views, the hover box, and the view
// state kept in the URL fragment. Each change of state redraws the current
// view from the arrays (the trees are built once per thread, the inverted
// ones once on first use). Timings go to window.profkitTimings.
(function (PK) {
  if (typeof document === "undefined") return;
  var el = PK.el;
  // How long a view may spend on the inverted tree before drawing what is
  // built (currentTree): the rest of an action's 50 ms is the draw's.
  var INVERT_BUDGET = 10;
  var VIEWS = [["flame", "Flame graph"], ["stack", "Stack chart"], ["tree", "Call tree"],
               ["sandwich", "Sandwich"], ["top", "Top functions"], ["memory", "Memory"], ["markers", "Markers"]];

  function App(data) {
    var t0 = performance.now();
    this.timings = window.profkitTimings = { parse: 0, interactive: 0, actions: [] };
    this.p = new PK.Profile(data);
    this.timings.parse = performance.now() - t0;
    if (!this.p.values.length || !this.p.threads.length) {
      // Nothing to draw: say so (an empty profile is not an error).
      var app = document.getElementById("app");
      app.textContent = "";
      app.appendChild(el("p", "note pk-empty", (this.p.title || "This profile") + ": no samples, nothing to show."));
      window.profkitState = { view: "empty", total: 0, drawn: 0, nodes: 0, zoom: [] };
      this.timings.interactive = performance.now();
      return;
    }
    this.state = PK.decodeState(location.hash);
    this.state.selectedFunc = -1;
    this.dark = !!(window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches);
    this.initTime();
    this.build();
    this.apply(this.state);
    this.render("load");
    this.timings.interactive = performance.now();
    this.prepare();
  }

  // While the page is idle, in slices of a few milliseconds, build what the
  // other views of the shown thread need on first use, the quick parts
  // first and the long one (the inverted tree, a few hundred ms on 100,000
  // nodes, in bounded chunks) after them: the stack chart's boxes, the
  // recursion flags and per-function node lists (top functions, sandwich),
  // the top functions of the shown value and their tables, the memory
  // view's flame graph; then the inverted tree, the other orientation's
  // flame graph and the memory table; then the stack chart's boxes of the
  // other timed threads. A view asked for before its part is ready builds
  // it then (the inverted tree: what its budget allows, the rest follows
  // from where the slices left it).
  App.prototype.prepare = function () {
    if (window.profkitNoIdle) return;
    var self = this, p = this.p, gen = (this.prepareGen = (this.prepareGen || 0) + 1), t = this.state.thread;
    var steps = [
      function () {
        var th = p.threads[t];
        if (th.samples && th.samples.start && th.samples.start.length) self.stack.timing(p.wholeTree(t), th.samples);
        return true;
      },
      function () { p.tree(t).funcNodes(); return true; },
      function () { PK.topFunctions(p.tree(t), self.v(), self.which()); return true; },
      // The tables of the views not shown, built in their hidden panes
      // (shown later, only their layout is left).
      function () { if (self.state.view !== "top") self.topTable.set(self.topModel()), self.topTable.render(); return true; },
      function () { if (self.state.view !== "sandwich") self.swTop.set(self.topModel()), self.swTop.render(); return true; },
      // The memory view's flame graph, drawn on its hidden canvas as it
      // would be shown now (its first draw sorts and measures what it
      // shows; shown unchanged later, it is not drawn again).
      function () {
        var st = self.state, tree = self.currentTree();
        if (!self.memTypes().length || st.view === "memory" || st.thread !== t || tree.partial) return true;
        var zoom = PK.findPath(p, tree, st.zoom), re = PK.searchRegex(st.search);
        var share = re && !re.error ? self.shareOf(tree, self.v(), re, self.which()) : null;
        self.memFlame.set(self.memFlameModel(self.flameModel(tree, zoom, share)));
        self.memFlame.draw(Math.max(200, (self.lastWidth || 0) - 16));
        return true;
      },
      function (until) { return p.prepareInverted(t, until); },
      // The other orientation's flame graph (inverted when the plain one is
      // shown, and back), drawn on a canvas of its own that is never shown:
      // its first draw sorts the children it shows and measures their
      // labels, which the shown view then finds done.
      function () {
        var st = self.state;
        if (st.thread !== t) return true;
        var tree = st.inverted ? p.tree(t) : p.inverted(t);
        var warm = self.warmFlame || (self.warmFlame = new PK.FlameView(document.createElement("canvas")));
        warm.set(Object.assign(self.flameModel(tree, 0, null), { colorMode: st.color }));
        warm.draw(Math.max(200, (self.lastWidth || 0) - 16));
        return true;
      },
      function () {
        var mt = self.memTypes();
        if (mt.length && self.state.view !== "memory") {
          mt.forEach(function (i) { p.tree(t).total(i); });
          var tbl = self.memTableFor(t);
          tbl.set(self.memModel(t)); tbl.show();
        }
        return true;
      },
    ];
    // Then the stack chart's boxes of the other timed threads, one a step.
    p.threads.forEach(function (th, i) {
      if (i !== t && th.samples && th.samples.start && th.samples.start.length)
        steps.push(function () { self.stack.timing(p.wholeTree(i), th.samples); return true; });
    });
    var k = 0;
    function slice() {
      if (gen !== self.prepareGen) return;      // the thread changed: a new round started
      var until = performance.now() + 8;
      while (k < steps.length && performance.now() < until) if (steps[k](until)) k++;
      if (k < steps.length) setTimeout(slice, 0);
      else self.timings.prepared = performance.now();
    }
    setTimeout(slice, 0);
  };

  App.prototype.build = function () {
    var self = this, p = this.p, app = document.getElementById("app");
    app.textContent = "";
    var bar = el("header", "pk-bar");
    // The file names without their folders (the whole title on hover).
    var short = (p.title || "profkit").replace(/(^|\s)[^\s]*\//g, "$1");
    var title = el("span", "pk-title", short);
    document.title = short + " — profkit";
    title.title = (p.format ? p.format + ": " : "") + p.title;
    bar.appendChild(title);
    var tabs = el("nav", "pk-tabs");
    tabs.setAttribute("role", "tablist");
    this.tabs = {};
    VIEWS.forEach(function (v) {
      var b = el("button", "pk-tab", v[1]);
      b.setAttribute("data-view", v[0]);
      b.setAttribute("role", "tab");
      b.addEventListener("click", function () { self.change({ view: v[0] }, "view"); });
      tabs.appendChild(b);
      self.tabs[v[0]] = b;
    });
    bar.appendChild(tabs);
    function select(id, label, options, onchange) {
      var l = el("label", "pk-field");
      l.appendChild(el("span", "", label));
      var s = el("select");
      s.id = id;
      options.forEach(function (o) { var op = el("option", "", o[1]); op.value = o[0]; s.appendChild(op); });
      s.addEventListener("change", function () { onchange(s.value); });
      l.appendChild(s);
      bar.appendChild(l);
      return s;
    }
    this.threadSel = select("pk-thread", "Thread", p.threads.map(function (t, i) { return [String(i), p.threadLabel(i)]; }),
      function (v) { self.change({ thread: +v, span: "" }, "thread"); });
    this.valueSel = select("pk-value", "Value", p.values.map(function (v) { return [v.type, v.type + " (" + v.unit + ")"]; }),
      function (v) { self.change({ value: v }, "value"); });
    if (p.diff) {
      this.diffSel = select("pk-diff", "Show", [["diff", "Difference"], ["new", "New profile"], ["base", "Base profile"]],
        function (v) { self.change({ diff: v }, "diff"); });
      // pagediff: the diff's colour legend (slower, faster, new, removed)
      if (PK.diffLegend) bar.appendChild(PK.diffLegend(this.dark));
    }
    var search = el("span", "pk-search");
    this.searchBox = el("input");
    this.searchBox.id = "pk-search";
    this.searchBox.type = "search";
    this.searchBox.placeholder = "Search (regular expression)";
    this.searchBox.setAttribute("aria-label", "Search functions by regular expression");
    this.searchBox.addEventListener("input", function () { self.change({ search: self.searchBox.value }, "search"); });
    this.searchBox.addEventListener("keydown", function (e) {
      if (e.key === "Enter") { self.nextMatch(e.shiftKey ? -1 : 1); e.preventDefault(); }
    });
    search.appendChild(this.searchBox);
    var prev = el("button", "pk-btn", "◀"); prev.id = "pk-prev"; prev.title = "Previous match (Shift+Enter)";
    var next = el("button", "pk-btn", "▶"); next.id = "pk-next"; next.title = "Next match (Enter)";
    prev.addEventListener("click", function () { self.nextMatch(-1); });
    next.addEventListener("click", function () { self.nextMatch(1); });
    search.appendChild(prev); search.appendChild(next);
    this.matchInfo = el("span", "pk-match"); this.matchInfo.id = "pk-match";
    search.appendChild(this.matchInfo);
    bar.appendChild(search);
    function check(id, label, key) {
      var l = el("label", "pk-field pk-check"), c = el("input");
      c.type = "checkbox"; c.id = id;
      c.addEventListener("change", function () { var o = {}; o[key] = c.checked; self.change(o, key); });
      l.appendChild(c); l.appendChild(el("span", "", label));
      bar.appendChild(l);
      return c;
    }
    this.invertedBox = check("pk-inverted", "Inverted", "inverted");
    this.icicleBox = check("pk-icicle", "Icicle", "icicle");
    this.colorSel = select("pk-color", "Colour", [["name", "by name"], ["file", "by file"], ["module", "by module"]],
      function (v) { self.change({ color: v }, "color"); });
    this.sortSel = select("pk-sort", "Order", [["width", "widest first"], ["name", "by name"]],
      function (v) { self.change({ sort: v }, "sort"); });
    // pagediff: the label picker (46_labels.js), when the data has labels
    if (PK.labelPicker) { var lp = PK.labelPicker(this); if (lp) bar.appendChild(lp); }
    app.appendChild(bar);

    this.crumbs = el("nav", "pk-crumbs"); this.crumbs.id = "pk-crumbs";
    this.crumbs.setAttribute("aria-label", "Zoom path");
    app.appendChild(this.crumbs);

    this.buildTime(app);
    var main = this.main = el("main", "pk-main");
    this.panes = {};
    VIEWS.forEach(function (v) { var d = el("section", "pk-pane"); d.id = "pk-" + v[0]; main.appendChild(d); self.panes[v[0]] = d; });
    app.appendChild(main);

    this.flameCanvas = el("canvas", "pk-canvas"); this.flameCanvas.id = "pk-flame-canvas";
    this.panes.flame.appendChild(this.flameCanvas);
    this.flame = new PK.FlameView(this.flameCanvas);
    this.stackCanvas = el("canvas", "pk-canvas"); this.stackCanvas.id = "pk-stack-canvas";
    this.stackCanvas.tabIndex = 0;
    this.stackCanvas.setAttribute("aria-label", "Stack chart: wheel or + and - zoom, drag or the arrow keys pan, Shift+drag zooms to a range");
    this.stackNote = el("p", "note");
    this.panes.stack.appendChild(this.stackNote);
    this.panes.stack.appendChild(this.stackCanvas);
    this.stack = new PK.StackView(this.stackCanvas);
    this.treeTable = new PK.TreeTable(this.panes.tree, this);
    // Memory: the in-use bytes as a flame graph by allocating path, then the
    // table by allocating function (inverted: its callers under it).
    var mp = this.panes.memory;
    this.memTitle = el("h3", "pk-mem-title"); mp.appendChild(this.memTitle);
    this.memCanvas = el("canvas", "pk-canvas"); this.memCanvas.id = "pk-mem-canvas";
    mp.appendChild(this.memCanvas);
    this.memFlame = new PK.FlameView(this.memCanvas);
    mp.appendChild(el("h3", "pk-mem-title", "By allocating function (its callers under it)"));
    // One table per thread, each in its own host, kept: a thread shown
    // again shows its table as it was left (rows, expansion, scroll), and
    // the idle preparation of another thread's table does not replace it.
    this.memBox = el("div", "pk-mem-tables"); this.memBox.id = "pk-mem-table"; mp.appendChild(this.memBox);
    this.memTables = [];
    this.memTable = this.memTableFor(0);
    this.topTable = new PK.TopTable(this.panes.top, this);
    // Sandwich: the top functions on the left, the chosen one's callers
    // (flame, upward) and callees (icicle, downward) on the right.
    var sw = this.panes.sandwich;
    var swList = el("div", "pk-sw-list"); sw.appendChild(swList);
    this.swTop = new PK.TopTable(swList, this);
    var swRight = el("div", "pk-sw-flames"); sw.appendChild(swRight);
    this.swTitle = el("h2", "pk-sw-title"); this.swTitle.id = "pk-sw-title";
    swRight.appendChild(this.swTitle);
    swRight.appendChild(el("h3", "", "Callers"));
    this.callersCanvas = el("canvas", "pk-canvas"); this.callersCanvas.id = "pk-callers-canvas";
    swRight.appendChild(this.callersCanvas);
    swRight.appendChild(el("h3", "", "Callees"));
    this.calleesCanvas = el("canvas", "pk-canvas"); this.calleesCanvas.id = "pk-callees-canvas";
    swRight.appendChild(this.calleesCanvas);
    this.callers = new PK.FlameView(this.callersCanvas);
    this.callees = new PK.FlameView(this.calleesCanvas);

    this.hover = el("div", "pk-hover"); this.hover.id = "pk-hover"; this.hover.hidden = true;
    document.body.appendChild(this.hover);

    this.wireCanvas(this.flameCanvas, function () { return self.flame; }, function (n) { self.zoomTo(n); });
    this.wireCanvas(this.memCanvas, function () { return self.memFlame; }, function (n) { self.zoomTo(n); });
    this.wireCanvas(this.callersCanvas, function () { return self.callers; }, function (n, view) { self.pickFromSandwich(view, n); });
    this.wireCanvas(this.calleesCanvas, function () { return self.callees; }, function (n, view) { self.pickFromSandwich(view, n); });
    this.wireStack();

    document.addEventListener("keydown", function (e) {
      if (e.key === "Escape") {
        if (self.state.zoom.length || self.state.span) self.change({ zoom: [], span: "" }, "reset");
        else if (self.state.search) { self.searchBox.value = ""; self.change({ search: "" }, "search"); }
        self.hideHover();
      } else if (e.key === "/" && document.activeElement !== self.searchBox) {
        self.searchBox.focus(); e.preventDefault();
      }
    });
    window.addEventListener("hashchange", function () {
      if (location.hash.replace(/^#/, "") === self.encoded) return;
      self.apply(PK.decodeState(location.hash)); self.render("hash");
    });
    if (typeof ResizeObserver !== "undefined") {
      new ResizeObserver(function () {
        var w = self.main.clientWidth;
        if (w && self.lastWidth && w !== self.lastWidth)
          requestAnimationFrame(function () { if (self.main.clientWidth !== self.lastWidth) self.render("resize"); });
      }).observe(main);
    }
    var resizeTimer = 0;
    window.addEventListener("resize", function () {
      clearTimeout(resizeTimer);
      resizeTimer = setTimeout(function () { self.render("resize"); }, 50);
    });
    if (window.matchMedia) {
      var mq = window.matchMedia("(prefers-color-scheme: dark)");
      var onScheme = function () { self.dark = mq.matches; self.render("scheme"); };
      if (mq.addEventListener) mq.addEventListener("change", onScheme);
    }
  };

  App.prototype.wireCanvas = function (canvas, view, click) {
    var self = this;
    function pos(e) { var r = canvas.getBoundingClientRect(); return [e.clientX - r.left, e.clientY - r.top]; }
    canvas.addEventListener("mousemove", function (e) {
      var v = view(), xy = pos(e), n = v.hit(xy[0], xy[1]);
      canvas.style.cursor = n >= 0 ? "pointer" : "default";
      if (n >= 0) self.showHover(v.model, n, e.clientX, e.clientY, null); else self.hideHover();
    });
    canvas.addEventListener("mouseleave", function () { self.hideHover(); });
    canvas.addEventListener("click", function (e) {
      var v = view(), xy = pos(e), n = v.hit(xy[0], xy[1]);
      if (n >= 0) click(n, v);
    });
  };
  // The stack chart, as the Firefox Profiler's: the wheel (with or without
  // Ctrl) zooms around the pointer, a horizontal wheel pans, dragging pans,
  // Shift+drag zooms to the dragged range, a click zooms to a box's extent;
  // with the chart focused, + / - (or W / S) zoom around the centre and
  // the arrows (or A / D) pan. Moves are drawn once per animation frame.
  App.prototype.wireStack = function () {
    var self = this, canvas = this.stackCanvas;
    function pos(e) { var r = canvas.getBoundingClientRect(); return [e.clientX - r.left, e.clientY - r.top]; }
    var queued = null;        // [range, action] waiting for the next frame
    function later(range, action) {
      if (!queued) requestAnimationFrame(function () { var q = queued; queued = null; self.change({ span: q[0] }, q[1]); });
      queued = [range, action];
    }
    var drag = null;          // {x, range, moved, shift}
    canvas.addEventListener("mousemove", function (e) {
      var xy = pos(e);
      if (drag) {
        if (Math.abs(xy[0] - drag.x) > 3) drag.moved = true;
        if (drag.moved && !drag.shift) { later(self.stackShifted(drag.range, -(xy[0] - drag.x)), "pan"); self.hideHover(); }
        return;
      }
      var b = self.stack.hitBox(xy[0], xy[1]);
      canvas.style.cursor = b ? "pointer" : "grab";
      if (b) self.showHover(self.stack.model, b.node, e.clientX, e.clientY, b); else self.hideHover();
    });
    canvas.addEventListener("mouseleave", function () { self.hideHover(); });
    canvas.addEventListener("mousedown", function (e) {
      if (e.button !== 0) return;
      drag = { x: pos(e)[0], range: self.stackRange().slice(), moved: false, shift: e.shiftKey };
      canvas.style.cursor = e.shiftKey ? "col-resize" : "grabbing";
      e.preventDefault();
    });
    window.addEventListener("mouseup", function (e) {
      if (!drag) return;
      var d = drag, x = pos(e)[0];
      drag = null;
      canvas.style.cursor = "grab";
      if (!d.moved) return;
      canvas.focus({ preventScroll: true });
      if (d.shift) {
        // Shift+drag: zoom to the dragged range.
        var r = d.range, w = self.stack.width, a = Math.min(x, d.x), b = Math.max(x, d.x);
        var t0 = r[0] + (r[1] - r[0]) * Math.max(0, a) / w, t1 = r[0] + (r[1] - r[0]) * Math.min(w, b) / w;
        self.change({ span: self.rangeText([t0, t1]) }, "zoom");
      }
      self.lastDrag = performance.now();
    });
    canvas.addEventListener("click", function (e) {
      if (self.lastDrag && performance.now() - self.lastDrag < 300) { self.lastDrag = 0; return; }
      canvas.focus({ preventScroll: true });
      var xy = pos(e), b = self.stack.hitBox(xy[0], xy[1]);
      if (b) self.change({ span: self.rangeText([b.t0, b.t1]), func: self.p.funcLabel(self.stack.model.tree.func[b.node]) }, "zoom");
    });
    canvas.addEventListener("wheel", function (e) {
      e.preventDefault();
      var unit = e.deltaMode === 1 ? 16 : e.deltaMode === 2 ? 400 : 1;
      var dx = e.deltaX * unit, dy = e.deltaY * unit, cur = queued ? self.parseRange(queued[0]) : self.stackRange();
      if (Math.abs(dx) > Math.abs(dy)) later(self.stackShifted(cur, dx), "pan");
      else later(self.stackZoomed(cur, Math.exp(dy * 0.002), pos(e)[0] / self.stack.width), "wheel");
    }, { passive: false });
    canvas.addEventListener("keydown", function (e) {
      var k = e.key, w = self.stack.width || 1, cur = self.stackRange(), r = null;
      if (k === "+" || k === "=" || k === "w" || k === "W") r = self.stackZoomed(cur, 1 / 1.5, 0.5);
      else if (k === "-" || k === "_" || k === "s" || k === "S") r = self.stackZoomed(cur, 1.5, 0.5);
      else if (k === "ArrowLeft" || k === "a" || k === "A") r = self.stackShifted(cur, -0.1 * w);
      else if (k === "ArrowRight" || k === "d" || k === "D") r = self.stackShifted(cur, 0.1 * w);
      else return;
      e.preventDefault();
      self.change({ span: r }, k === "ArrowLeft" || k === "ArrowRight" || /^[aAdD]$/.test(k) ? "pan" : "zoom");
    });
  };
  // The thread's whole time range.
  // (A thread without samples has none: [0, 0].)
  App.prototype.stackFull = function () {
    var s = this.p.threads[this.state.thread].samples;
    if (this.p.range && s && s.start && s.start.length) return this.p.rangeNs();
    return s && s.start && s.start.length ? [s.start[0] || 0, s.end] : [0, 0];
  };
  App.prototype.parseRange = function (text) {
    var r = (text || "").split("-").map(Number);
    return r.length === 2 && r[1] > r[0] ? r : this.stackFull();
  };
  // A range as the URL holds it: "" for the whole range, else "t0-t1" (ns, integers).
  App.prototype.rangeText = function (r) {
    var full = this.stackFull(), a = Math.round(r[0]), b = Math.round(r[1]);
    if (a <= full[0] && b >= full[1]) return "";
    return a + "-" + Math.max(b, a + 1);
  };
  // Range r zoomed by `factor` (< 1 zooms in) around the point at fraction
  // `at` of the width, kept inside the whole range; as URL text.
  App.prototype.stackZoomed = function (r, factor, at) {
    var full = this.stackFull(), fullSpan = full[1] - full[0], span = r[1] - r[0];
    var minSpan = Math.min(fullSpan, Math.max(1000, fullSpan * 1e-7));
    var ns = Math.min(fullSpan, Math.max(minSpan, span * factor));
    at = Math.min(1, Math.max(0, at));
    var t = r[0] + span * at, a = t - ns * at;
    a = Math.min(Math.max(a, full[0]), full[1] - ns);
    return this.rangeText([a, a + ns]);
  };
  // Range r moved right by dx pixels (left when negative), kept inside.
  App.prototype.stackShifted = function (r, dx) {
    var full = this.stackFull(), span = r[1] - r[0], a = r[0] + dx * span / (this.stack.width || 1);
    a = Math.min(Math.max(a, full[0]), full[1] - span);
    return this.rangeText([a, a + span]);
  };

  // Applies a decoded state to the controls (nothing is drawn here).
  App.prototype.apply = function (st) {
    var p = this.p;
    st.selectedFunc = -1;
    if (!(st.thread >= 0 && st.thread < p.threads.length)) st.thread = 0;
    if (p.valueIndex(st.value) < 0) st.value = p.values[p.defaultValue] ? p.values[p.defaultValue].type : (p.values[0] || {}).type;
    if (!this.tabs[st.view]) st.view = "flame";
    this.state = st;
    this.threadSel.value = String(st.thread);
    this.valueSel.value = st.value;
    if (this.diffSel) this.diffSel.value = st.diff;
    this.searchBox.value = st.search;
    this.invertedBox.checked = st.inverted;
    this.icicleBox.checked = st.icicle;
    this.colorSel.value = st.color;
    this.sortSel.value = st.sort;
    if (st.func) {
      for (var f = 0; f < p.funcName.length; f++) if (p.funcLabel(f) === st.func) { st.selectedFunc = f; break; }
    }
  };

  App.prototype.change = function (delta, action) {
    var t0 = performance.now();
    // A zoom path is kept across thread and value switches when it still exists.
    for (var k in delta) this.state[k] = delta[k];
    if ("func" in delta) this.apply(this.state);
    if ("inverted" in delta) this.state.zoom = [];
    this.render(action, t0);
    if ("thread" in delta) this.prepare();
  };

  // The search's matches and matched share, kept for the last search (a
  // pan or zoom of the stack chart does not search again).
  App.prototype.shareOf = function (tree, v, re, which) {
    var k = this._share;
    if (k && k.tree === tree && k.v === v && k.re === String(re) && k.which === which) return k.share;
    var share = PK.searchShare(this.p, tree, v, re, which);
    this._share = { tree: tree, v: v, re: String(re), which: which, share: share };
    return share;
  };
  // The tree shown. Inverted, before the idle preparation has built it:
  // `until` (performance.now(); render gives INVERT_BUDGET from the
  // action's start) is how long it may work on it, then it shows what is
  // built (a partial tree: the levels expanded so far, every total right)
  // and finishes in slices, drawing again when done. Without `until` no
  // work is done: what is built, as the view shows it.
  App.prototype.currentTree = function (until) {
    var st = this.state, p = this.p;
    if (!st.inverted) return p.tree(st.thread);
    if (p.invertedReady(st.thread)) return p.inverted(st.thread);
    var tree = p.invertedBy(st.thread, until || 0);
    if (tree.partial) this.whenInverted(st.thread, this.invertedDone);
    return tree;
  };
  // The inverted tree of thread t finished while a view showed part of it:
  // draw that view again.
  App.prototype.invertedDone = function (t) {
    var st = this.state;
    if (st.inverted && st.thread === t && st.view !== "sandwich" && st.view !== "top" && st.view !== "stack") this.render("inverted built");
  };
  // Calls fn(t) (a method of the app) once thread t's inverted tree is
  // built, building it in 8 ms slices (the idle preparation builds the same
  // tree; whichever slice finishes it, the calls follow).
  App.prototype.whenInverted = function (t, fn) {
    var self = this, p = this.p, w = this.invertWait || (this.invertWait = {});
    if (p.invertedReady(t)) { fn.call(this, t); return; }
    if (w[t]) { if (w[t].indexOf(fn) < 0) w[t].push(fn); return; }
    w[t] = [fn];
    function slice() {
      if (!p.prepareInverted(t, performance.now() + 8)) { setTimeout(slice, 0); return; }
      var fns = w[t];
      w[t] = null;
      fns.forEach(function (f) { f.call(self, t); });
    }
    setTimeout(slice, 0);
  };
  App.prototype.v = function () { return Math.max(0, this.p.valueIndex(this.state.value)); };
  App.prototype.which = function () { return this.p.diff && this.state.diff === "base" ? "base" : "new"; };
  App.prototype.totalsOf = function (tree) { return this.which() === "base" ? tree.baseTotal(this.v()) : tree.total(this.v()); };

  // The URL is written just after the next frame is drawn (a history
  // write saves the scroll position, which lays the page out at once: in
  // the middle of an action it costs a layout of the new view before its
  // paint), and while the stack chart pans or zooms by wheel or drag, once
  // it rests (browsers refuse a burst of history writes). now: at once.
  App.prototype.writeHash = function (later, now) {
    var self = this;
    // (A write waiting for its frame is never cancelled here: a render
    // between the frame and its timer would leave the URL behind.)
    if (later) { clearTimeout(this.hashTimer); this.hashPending = false; this.hashTimer = setTimeout(function () { self.writeHash(false, true); }, 250); return; }
    if (!now) {
      if (!this.hashPending) {
        this.hashPending = true;
        requestAnimationFrame(function () {
          self.hashTimer = setTimeout(function () { self.writeHash(false, true); }, 0);
        });
      }
      return;
    }
    clearTimeout(this.hashTimer);
    this.hashPending = false;
    var enc = PK.encodeState(this.state);
    this.encoded = enc;
    if (location.hash.replace(/^#/, "") !== enc) history.replaceState(null, "", enc ? "#" + enc : location.pathname + location.search);
  };

  App.prototype.hasSamples = function () {
    var th = this.p.threads[this.state.thread];
    return !!(th && th.samples && th.samples.start && th.samples.start.length);
  };
  App.prototype.memTypes = function () {
    var p = this.p, out = [];
    ["inuse_space", "alloc_space", "inuse_objects", "alloc_objects"].forEach(function (t) { var i = p.valueIndex(t); if (i >= 0) out.push(i); });
    return p.valueIndex("inuse_space") >= 0 ? out : [];
  };

  App.prototype.render = function (action, t0) {
    if (t0 === undefined) t0 = performance.now();
    var st = this.state, p = this.p;
    // The page's width, read before anything changes (the layout is still
    // clean then): the canvases are as wide as the main area's content. A
    // pane read after it is shown would lay the page out twice, old view and
    // new; a width that changes afterwards (a scroll bar) redraws through
    // the ResizeObserver.
    var mainW = this.main.clientWidth || document.documentElement.clientWidth;
    this.lastWidth = mainW;
    this.hideHover();
    this.renderTime(mainW);
    var hasStack = this.hasSamples(), hasMem = this.memTypes().length > 0;
    this.tabs.stack.hidden = !p.threads.some(function (t) { return t.samples && t.samples.start && t.samples.start.length; });
    this.tabs.memory.hidden = !hasMem;
    this.tabs.markers.hidden = !p.time();
    if (st.view === "memory" && !hasMem) st.view = "flame";
    for (var name in this.tabs) {
      var on = name === st.view;
      this.tabs[name].classList.toggle("on", on);
      this.tabs[name].setAttribute("aria-selected", on ? "true" : "false");
      this.panes[name].hidden = !on;
    }
    var budget = typeof window.profkitInvertBudget === "number" ? window.profkitInvertBudget : INVERT_BUDGET;  // tests: 0
    var tree = this.currentTree(t0 + budget), v = this.v(), which = this.which();
    var zoom = PK.findPath(p, tree, st.zoom);
    // A partial tree may not have the zoom path's deeper levels yet: the
    // path is kept for the whole tree.
    if (!tree.partial) st.zoom = PK.pathNames(p, tree, zoom);
    this.zoomNode = zoom;
    // Search: matched nodes and the matched share of the total.
    var re = PK.searchRegex(st.search), share = null;
    this.searchBox.classList.toggle("bad", !!(re && re.error));
    if (re && !re.error) share = this.shareOf(tree, v, re, which);
    this.share = share;
    var tot = this.totalsOf(tree), unit = p.values[v].unit;
    if (share) {
      this.matchInfo.textContent = share.count ? "Matched " + PK.formatPercent(share.value, tot[0]) + " (" + PK.formatValue(share.value, unit) + ")" : "No match";
    } else this.matchInfo.textContent = re && re.error ? "Bad expression" : "";
    this.renderCrumbs(tree, zoom);
    if (tree.partial) this.crumbs.appendChild(el("span", "note pk-busy", "Building the inverted tree: its first " + tree.levels +
                                                   " level" + (tree.levels === 1 ? " is" : "s are") + " shown (their totals are final), the callers above follow…"));
    // The canvas views' width (reading it lays the page out: tables skip it).
    var width = function () { return Math.max(200, mainW - 16); };
    var rootLabel = p.threadLabel(st.thread);
    var base = this.flameModel(tree, zoom, share);
    this.drawTime = 0;
    if (st.view === "flame") {
      this.flame.set(base);
      this.drawTime = this.flame.draw(width());
    } else if (st.view === "stack") {
      this.renderStack(width());
    } else if (st.view === "tree") {
      this.treeTable.set({ profile: p, tree: tree, v: v, which: which, rootLabel: rootLabel });
      this.drawTime = this.treeTable.show();
    } else if (st.view === "top") {
      this.topTable.set(this.topModel());
      this.drawTime = this.topTable.render();
    } else if (st.view === "sandwich") {
      this.renderSandwich(mainW);
    } else if (st.view === "memory") {
      this.renderMemory(base, width());
    } else if (st.view === "markers") {
      this.drawTime = this.renderMarkerTable();
    }
    this.writeHash(action === "pan" || action === "wheel");
    var ms = performance.now() - t0;
    this.timings.actions.push({ action: action, view: st.view, ms: ms, draw: this.drawTime, partial: !!tree.partial, nodes: tree.n, total: tot[0] });
    if (this.timings.actions.length > 200) this.timings.actions.shift();
    this.publish(tree, zoom, tot, share);
  };

  // What the tests and the benchmark read: the state as shown.
  App.prototype.publish = function (tree, zoom, tot, share) {
    var st = this.state;
    window.profkitState = {
      view: st.view, thread: st.thread, value: st.value, inverted: st.inverted, icicle: st.icicle,
      zoom: st.zoom.slice(), zoomNode: zoom, zoomTotal: tot[zoom], total: tot[0], search: st.search,
      matchValue: share ? share.value : null, matchCount: share ? share.count : 0,
      func: st.func, range: st.range, span: st.span, nodes: tree.n, drawn: 0, partial: !!tree.partial
    };
    var S = window.profkitState;
    if (st.view === "memory") {
      S.total = this.memFlame.model.tree.total(this.memFlame.model.v)[0];
      S.drawn = this.memFlame.boxes.node.length;
      S.zoomTotal = this.memFlame.model.tree.total(this.memFlame.model.v)[zoom];
    }
    if (st.view === "flame") S.drawn = this.flame.boxes.node.length;
    if (st.view === "stack" && this.stack.boxes) S.drawn = this.stack.boxes.node.length;
    if (st.view === "sandwich" && this.sandwichTrees && st.selectedFunc >= 0) {
      // The chosen function's direct callers and callees with their totals.
      var p = this.p, v = this.v(), sw = this.sandwichTrees;
      var kidsOf = function (t) {
        var tt = t.total(v), out = [];
        for (var j = t.kidStart[1]; j < t.kidStart[2]; j++) out.push({ name: p.funcLabel(t.func[t.kids[j]]), total: tt[t.kids[j]] });
        return out;
      };
      S.sandwich = { func: st.func, total: sw.callers.total(v)[1], callers: kidsOf(sw.callers), callees: kidsOf(sw.callees) };
    }
    document.body.setAttribute("data-view", st.view);
  };

  App.prototype.renderCrumbs = function (tree, zoom) {
    var self = this, p = this.p, c = this.crumbs;
    c.textContent = "";
    if (this.state.view === "stack") {
      if (!this.hasSamples()) return;
      var r = this.stackRange();
      var b0 = el("button", "pk-crumb", "Whole range");
      b0.addEventListener("click", function () { self.change({ span: "" }, "zoom"); });
      c.appendChild(b0);
      if (this.state.span) {
        c.appendChild(el("span", "pk-sep", "›"));
        c.appendChild(el("span", "pk-crumb on", PK.formatValue(r[0], "nanoseconds") + " – " + PK.formatValue(r[1], "nanoseconds")));
      }
      return;
    }
    if (this.state.view !== "flame" && this.state.view !== "memory") return;
    var path = [0].concat(tree.path(zoom));
    path.forEach(function (n, i) {
      if (i) c.appendChild(el("span", "pk-sep", "›"));
      var b = el("button", "pk-crumb" + (n === zoom ? " on" : ""), n === 0 ? p.threadLabel(self.state.thread) : p.funcLabel(tree.func[n]));
      b.addEventListener("click", function () { self.zoomTo(n); });
      c.appendChild(b);
    });
    if (zoom) {
      var reset = el("button", "pk-btn pk-reset", "Reset zoom");
      reset.title = "Escape";
      reset.addEventListener("click", function () { self.zoomTo(0); });
      c.appendChild(reset);
    }
  };

  App.prototype.stackRange = function () {
    return this.parseRange(this.state.span);
  };
  App.prototype.renderStack = function (width) {
    var st = this.state, p = this.p;
    if (!this.hasSamples()) {
      this.stackNote.textContent = "This thread has no timed samples: pick a timed thread to see its stack chart.";
      this.stackCanvas.hidden = true;
      return;
    }
    this.stackNote.textContent = "Wheel: zoom around the pointer · drag: pan · Shift+drag: zoom to a range · click a box: zoom to it · keys + − ← → · Escape: whole range";
    this.stackCanvas.hidden = false;
    var tree = p.stackTree ? p.stackTree(st.thread) : p.wholeTree(st.thread), v = this.v();   // (transformed: 45_transforms.js)
    var re = PK.searchRegex(st.search), share = re && !re.error ? this.shareOf(tree, v, re, "new") : null;
    var range = this.stackRange();
    this.stack.set({ profile: p, tree: tree, samples: this.stackSamples(range), range: range, colorMode: st.color,
                     dark: this.dark, matched: share ? share.matched : null, selectedFunc: st.selectedFunc });
    this.drawTime = this.stack.draw(width);
  };
  // The top functions' table model (the top view's and the sandwich's list).
  App.prototype.topModel = function () {
    var re = PK.searchRegex(this.state.search);
    return { profile: this.p, tree: this.p.tree(this.state.thread), v: this.v(), which: this.which(), filter: re && !re.error ? re : null };
  };
  // The memory table's model (thread t, else the shown one): the inverted
  // tree, in-use first, every memory type; rows of no in-use bytes (paths
  // that freed all they allocated) left out.
  // With mr (a range of operations, 34_memgraph.js): its tree's inverted
  // tree, with the frees in the range too, every row that did something.
  App.prototype.memModel = function (t, mr) {
    if (t === undefined) t = this.state.thread;
    var mt = this.memTypes();
    if (mr && mr.tree) {
      var fo = this.p.valueIndex("free_objects");
      return { profile: this.p, tree: PK.memRangeInverted(mr), v: mt[0], which: "new", extra: mt.slice(1).concat(fo >= 0 ? [fo] : []),
               rootLabel: this.p.threadLabel(t), hideZero: false };
    }
    return { profile: this.p, tree: this.p.inverted(t), v: mt[0], which: "new", extra: mt.slice(1),
             rootLabel: this.p.threadLabel(t), hideZero: true };
  };
  // The flame graph's model for the state shown (tree, zoom node, search).
  App.prototype.flameModel = function (tree, zoom, share) {
    var st = this.state, p = this.p, v = this.v(), which = this.which();
    return { profile: p, tree: tree, v: v, which: which, order: tree.lazyOrder(st.sort, v, p.nameOf, which === "base" ? "base" : ""),
             zoom: zoom, icicle: st.icicle, colorMode: st.color, dark: this.dark,
             matched: share ? share.matched : null, selectedFunc: st.selectedFunc,
             diff: p.diff && st.diff === "diff", rootLabel: p.threadLabel(st.thread) };
  };
  // The memory view's flame graph: the same, by in-use bytes, widest first.
  App.prototype.memFlameModel = function (base) {
    var mt = this.memTypes();
    return Object.assign({}, base, { v: mt[0], which: "new", diff: false, memory: mt,
                                     order: base.tree.lazyOrder("width", mt[0], this.p.nameOf, "") });
  };
  // Thread t's memory table (made on first use, hidden until shown).
  App.prototype.memTableFor = function (t) {
    if (!this.memTables[t]) {
      var host = el("div", "pk-mem-table");
      host.setAttribute("data-thread", t);
      host.hidden = true;
      this.memBox.appendChild(host);
      this.memTables[t] = new PK.TreeTable(host, this);
    }
    return this.memTables[t];
  };
  // Memory: in-use bytes by allocating path as a flame graph (the tree
  // shown, zoom and search as in the flame graph; value inuse_space), then
  // the table by allocating function with every memory value type.
  App.prototype.renderMemory = function (base, width) {
    var st = this.state, p = this.p, mt = this.memTypes();
    // The memory graph's range of operations (34_memgraph.js): the tree of
    // what those operations did, when the page can narrow to it.
    var mr = PK.memRange ? PK.memRange(this) : null;
    if (mr && mr.tree) {
      var rt = st.inverted ? PK.memRangeInverted(mr) : mr.tree;
      base = Object.assign({}, base, { tree: rt, zoom: PK.findPath(p, rt, st.zoom), matched: null });
    }
    var tree = base.tree, tot = tree.total(mt[0]);
    this.memTitle.textContent = (mr && mr.tree ? "Operations " + PK.formatCount(mr.ops[0]) + " – " + PK.formatCount(mr.ops[1] - 1) +
                                 ": allocated in them and not freed in them: " : "In use at the end (not freed): ") +
      PK.formatValue(tot[0], p.values[mt[0]].unit) +
      (st.inverted ? ", by allocating function, its callers above" : ", by allocating call path") + "; widest first";
    this.memTitle.setAttribute("data-ops", mr && mr.tree ? JSON.stringify(mr.ops) : "null");
    this.memFlame.set(this.memFlameModel(base));
    var t = this.memFlame.draw(width);
    var tbl = this.memTableFor(st.thread);
    if (this.memTable !== tbl) this.memTable.host.hidden = true;
    this.memTable = tbl;
    tbl.host.hidden = false;
    tbl.host.setAttribute("data-ops", mr && mr.tree ? JSON.stringify(mr.ops) : "null");
    if (mr && mr.tree) {
      tbl.set(this.memModel(st.thread, mr));
      this.drawTime = t + tbl.show();
      return;
    }
    if (!p.invertedReady(st.thread)) {
      // Opened before the idle preparation made the inverted tree: the
      // flame graph now, the table once the tree is built, in slices.
      this.drawTime = t;
      this.memTableLater(st.thread);
      return;
    }
    tbl.set(this.memModel());
    this.drawTime = t + tbl.show();
  };
  // Once thread t's inverted tree is built (in slices), its memory table
  // (if the memory view of thread t is still shown).
  App.prototype.memTableLater = function (t) {
    var tbl = this.memTableFor(t);
    if (!tbl.model) tbl.host.textContent = "", tbl.host.appendChild(el("p", "note pk-mem-wait", "Building the table by allocating function…"));
    this.whenInverted(t, this.memTableNow);
  };
  App.prototype.memTableNow = function (t) {
    if (this.state.view !== "memory" || this.state.thread !== t) return;
    var mr = PK.memRange ? PK.memRange(this) : null;
    if (mr && mr.tree) return;   // a range of operations: renderMemory made its table
    var t0 = performance.now(), tbl = this.memTableFor(t);
    if (tbl.model && tbl.model.tree === this.p.inverted(t)) return;   // the view drawn again made it
    tbl.set(this.memModel(t));
    tbl.show();
    this.timings.actions.push({ action: "memory table", view: "memory", ms: performance.now() - t0, draw: 0 });
  };
  App.prototype.renderSandwich = function (width) {
    var st = this.state, p = this.p, tree = p.tree(st.thread), v = this.v(), which = this.which();
    this.swTop.set(this.topModel());
    var t = this.swTop.render();
    var f = st.selectedFunc;
    this.callersCanvas.hidden = this.calleesCanvas.hidden = f < 0;
    if (f < 0) { this.swTitle.textContent = "Pick a function on the left"; this.drawTime = t; return; }
    // The last sandwich is kept (its view shown again is not made again).
    if (!this._sw || this._sw.tree !== tree || this._sw.f !== f) this._sw = { tree: tree, f: f, sw: PK.sandwich(tree, f) };
    var sw = this._sw.sw;
    var tot = which === "base" ? sw.callers.baseTotal(v) : sw.callers.total(v), all = this.totalsOf(tree)[0];
    // of the whole profile, as the tables' percentages (45_transforms.js)
    if (PK.percentBase && which !== "base") all = PK.percentBase({ profile: p, tree: tree, v: v }, all);
    this.swTitle.textContent = p.funcLabel(f) + " — " + PK.formatValue(tot[1], p.values[v].unit) + " (" + PK.formatPercent(tot[1], all) + ")";
    // The flames' column: the page's width less the list's (38%, at least
    // 20em) and the gaps, without laying out the list.
    var w = Math.max(200, Math.floor(width - Math.max(0.38 * (width - 16), 260) - 16 - 12 - 2));
    var common = { profile: p, v: v, which: which, zoom: 1, hideAbove: true, colorMode: st.color, dark: this.dark,
                   matched: null, selectedFunc: f, diff: p.diff && st.diff === "diff", allTotal: all };
    this.callers.set(Object.assign({ tree: sw.callers, order: sw.callers.lazyOrder(st.sort, v, p.nameOf, which === "base" ? "base" : ""), icicle: false }, common));
    this.callees.set(Object.assign({ tree: sw.callees, order: sw.callees.lazyOrder(st.sort, v, p.nameOf, which === "base" ? "base" : ""), icicle: true }, common));
    this.sandwichTrees = sw;
    this.drawTime = t + this.callers.draw(w) + this.callees.draw(w);
  };

  App.prototype.zoomTo = function (n) {
    var tree = this.currentTree();
    this.change({ zoom: PK.pathNames(this.p, tree, n) }, "zoom");
  };
  App.prototype.nextMatch = function (dir) {
    var share = this.share;
    if (!share || !share.count) return;
    var tree = this.currentTree(), order = tree.order(this.state.sort, this.v(), this.p.nameOf, this.which() === "base" ? "base" : "");
    // Matches in drawing order (depth first, the children's order).
    var list = [], stack = [0];
    while (stack.length) {
      var n = stack.pop();
      if (share.matched[n]) list.push(n);
      for (var j = tree.kidStart[n + 1] - 1; j >= tree.kidStart[n]; j--) stack.push(order[j]);
    }
    var i = list.indexOf(this.zoomNode);
    i = i < 0 ? (dir > 0 ? 0 : list.length - 1) : (i + dir + list.length) % list.length;
    this.matchIndex = i;
    if (this.state.view !== "flame") this.state.view = "flame";
    this.zoomTo(list[i]);
    this.matchInfo.textContent += " — " + (i + 1) + " of " + list.length;
  };
  App.prototype.selectFunc = function (f) {
    this.change({ func: f >= 0 ? this.p.funcLabel(f) : "" }, "select");
  };
  App.prototype.openSandwich = function (f) {
    this.change({ func: this.p.funcLabel(f), view: "sandwich" }, "sandwich");
  };
  App.prototype.pickFromSandwich = function (view, n) {
    var f = view.model.tree.func[n];
    if (f >= 0) this.openSandwich(f);
  };
  // A node picked in a table: the flame graph zooms to it (Enter, double click).
  App.prototype.openNode = function (n) {
    var tbl = this.state.view === "memory" ? this.memTable : this.treeTable, tree = tbl.model.tree;
    // From the memory table (inverted): the memory flame graph, inverted, zoomed there.
    if (this.state.view === "memory") { this.state.inverted = true; this.invertedBox.checked = true; }
    this.change({ view: this.state.view === "memory" ? "memory" : "flame", zoom: PK.pathNames(this.p, tree, n) }, "zoom");
  };
  App.prototype.selectNode = function (tree, n) {
    // Table selection shows the row's function as selected (not a redraw).
    this.state.func = n > 0 && tree.func[n] >= 0 ? this.p.funcLabel(tree.func[n]) : "";
    this.state.selectedFunc = n > 0 ? tree.func[n] : -1;
    this.writeHash();
    if (window.profkitState) window.profkitState.func = this.state.func;
  };

  App.prototype.showHover = function (model, n, cx, cy, box) {
    var p = this.p, tree = model.tree, v = model.v !== undefined ? model.v : this.v(), unit = p.values[v].unit;
    var which = model.which || "new";
    var tot = which === "base" ? tree.baseTotal(v) : tree.total(v), self = which === "base" ? tree.baseSelf[v] : tree.self[v];
    var h = this.hover, info = p.funcInfo(tree.func[n]);
    h.textContent = "";
    if (box && box.merged) h.appendChild(el("div", "pk-h-loc", "runs shorter than a pixel of the whole range merged here: zoom in to see them"));
    h.appendChild(el("div", "pk-h-name", n === 0 ? (model.rootLabel || "all") : info.name +
                     (PK.hoverInline ? PK.hoverInline(p, this.state.thread, v, tree, n) : "")));
    var where = [];
    if (info.module) where.push(info.module);
    if (info.file) where.push(info.file + (info.line ? ":" + info.line : ""));
    if (where.length) h.appendChild(el("div", "pk-h-loc", where.join(" — ")));
    function row(k, val) { var d = el("div", "pk-h-row"); d.appendChild(el("span", "k", k)); d.appendChild(el("span", "v", val)); h.appendChild(d); }
    var root = tot[0], z = model.zoom || 0;
    // "of all": the whole profile's, as the tables' percentages (45_transforms.js)
    if (PK.percentBase && which !== "base" && !model.memory) root = PK.percentBase(model, root);
    if (model.allTotal !== undefined) root = model.allTotal;   // a sandwich's callers or callees: of the whole profile too
    if (box) {
      row("Start", PK.formatMs(p.msOf(box.t0)));
      row("Duration", PK.formatValue(box.t1 - box.t0, "nanoseconds"));
    }
    else {
      row(model.memory ? "In use" : "Total", PK.formatValue(tot[n], unit) + " — " + PK.formatPercent(tot[n], root) + " of all" +
          (z > 0 && !model.hideAbove ? ", " + PK.formatPercent(tot[n], tot[z]) + " of " + p.funcLabel(tree.func[z]) : ""));
      row("Self", PK.formatValue(self[n], unit) + " — " + PK.formatPercent(self[n], root));
    }
    if (model.memory && !box) {
      // The memory view: objects in use, and what was allocated there.
      var memRow = function (type, label) {
        var i = p.valueIndex(type);
        if (i < 0 || i === v) return;
        row(label, PK.formatValue(tree.total(i)[n], p.values[i].unit));
      };
      memRow("inuse_objects", "Objects in use");
      memRow("alloc_space", "Allocated");
      memRow("alloc_objects", "Allocations");
    }
    var ci = p.valueIndex("calls");
    if (ci >= 0 && ci !== v && !box && !model.memory) {
      // Calls of this frame are the calls recorded with it as the leaf (its
      // own "calls" value), as profkit top counts them; time per call is
      // its total over those.
      var calls = (which === "base" ? tree.baseSelf[ci] : tree.self[ci])[n];
      row("Calls", PK.formatCount(calls) + (calls > 0 ? " — " + PK.formatValue(tot[n] / calls, unit) + " per call" : ""));
    }
    if (tree.baseSelf && !box) {
      var nt = tree.total(v)[n], bt = tree.baseTotal(v)[n], d = nt - bt;
      row("Base", PK.formatValue(bt, unit));
      row("New", PK.formatValue(nt, unit));
      row("Change", PK.signed(PK.formatValue(d, unit), d) + " (" + PK.signed(PK.formatPercent(d, tree.baseTotal(v)[0]), d) + " of base)");
    }
    this.placeHover(cx, cy);
  };
  App.prototype.placeHover = function (cx, cy) {
    var h = this.hover;
    h.hidden = false;
    var W = document.documentElement.clientWidth, H = document.documentElement.clientHeight;
    var r = h.getBoundingClientRect();
    var x = cx + 14, y = cy + 14;
    if (x + r.width > W - 4) x = Math.max(4, cx - r.width - 14);
    if (y + r.height > H - 4) y = Math.max(4, cy - r.height - 14);
    h.style.left = x + "px";
    h.style.top = y + "px";
  };
  App.prototype.hideHover = function () { if (this.hover) this.hover.hidden = true; };

  PK.App = App;
  (PK.appHooks || []).forEach(function (hook) { hook(App); });   // 45_transforms.js
  function start() {
    var node = document.getElementById("profkit-data");
    var app;
    try {
      app = new App(JSON.parse(node.textContent));
    } catch (e) {
      document.getElementById("app").textContent = "profkit: cannot show this profile: " + e.message;
      throw e;
    }
    PK.app = app;
  }
  // The data precedes this script: start as soon as the script has run
  // (every file of it), while the parser reads what follows it (the
  // markers' element, docs/viewer.md).
  if (document.readyState !== "loading" || document.getElementById("profkit-data")) Promise.resolve().then(start);
  else document.addEventListener("DOMContentLoaded", start);
})(typeof globalThis !== "undefined" ? (globalThis.profkit = globalThis.profkit || {}) : (this.profkit = this.profkit || {}));
