"use strict";
// The page: toolbar, breadcrumb, the views, the hover box, and the view
// state kept in the URL fragment. Each change of state redraws the current
// view from the arrays (the trees are built once per thread, the inverted
// ones once on first use). Timings go to window.profkitTimings.
(function (PK) {
  if (typeof document === "undefined") return;
  var el = PK.el;
  var VIEWS = [["flame", "Flame graph"], ["stack", "Stack chart"], ["tree", "Call tree"],
               ["sandwich", "Sandwich"], ["top", "Top functions"], ["memory", "Memory"]];

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
    this.build();
    this.apply(this.state);
    this.render("load");
    this.timings.interactive = performance.now();
  }

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
      function (v) { self.change({ thread: +v, range: "" }, "thread"); });
    this.valueSel = select("pk-value", "Value", p.values.map(function (v) { return [v.type, v.type + " (" + v.unit + ")"]; }),
      function (v) { self.change({ value: v }, "value"); });
    if (p.diff) {
      this.diffSel = select("pk-diff", "Show", [["diff", "Difference"], ["new", "New profile"], ["base", "Base profile"]],
        function (v) { self.change({ diff: v }, "diff"); });
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
    app.appendChild(bar);

    this.crumbs = el("nav", "pk-crumbs"); this.crumbs.id = "pk-crumbs";
    this.crumbs.setAttribute("aria-label", "Zoom path");
    app.appendChild(this.crumbs);

    var main = el("main", "pk-main");
    this.panes = {};
    VIEWS.forEach(function (v) { var d = el("section", "pk-pane"); d.id = "pk-" + v[0]; main.appendChild(d); self.panes[v[0]] = d; });
    app.appendChild(main);

    this.flameCanvas = el("canvas", "pk-canvas"); this.flameCanvas.id = "pk-flame-canvas";
    this.panes.flame.appendChild(this.flameCanvas);
    this.flame = new PK.FlameView(this.flameCanvas);
    this.stackCanvas = el("canvas", "pk-canvas"); this.stackCanvas.id = "pk-stack-canvas";
    this.stackNote = el("p", "note");
    this.panes.stack.appendChild(this.stackNote);
    this.panes.stack.appendChild(this.stackCanvas);
    this.stack = new PK.StackView(this.stackCanvas);
    this.treeTable = new PK.TreeTable(this.panes.tree, this);
    this.memTable = new PK.TreeTable(this.panes.memory, this);
    this.memTable.select = function (n) { PK.TreeTable.prototype.select.call(this, n); };
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
    this.wireCanvas(this.callersCanvas, function () { return self.callers; }, function (n, view) { self.pickFromSandwich(view, n); });
    this.wireCanvas(this.calleesCanvas, function () { return self.callees; }, function (n, view) { self.pickFromSandwich(view, n); });
    this.wireStack();

    document.addEventListener("keydown", function (e) {
      if (e.key === "Escape") {
        if (self.state.zoom.length || self.state.range) self.change({ zoom: [], range: "" }, "reset");
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
  App.prototype.wireStack = function () {
    var self = this, canvas = this.stackCanvas;
    function pos(e) { var r = canvas.getBoundingClientRect(); return [e.clientX - r.left, e.clientY - r.top]; }
    canvas.addEventListener("mousemove", function (e) {
      var xy = pos(e), b = self.stack.hitBox(xy[0], xy[1]);
      canvas.style.cursor = b ? "pointer" : "default";
      if (b) self.showHover(self.stack.model, b.node, e.clientX, e.clientY, b); else self.hideHover();
    });
    canvas.addEventListener("mouseleave", function () { self.hideHover(); });
    // Drag across the chart to zoom to that time range; click a box to zoom to its extent.
    var downX = null, dragged = false;
    canvas.addEventListener("mousedown", function (e) { downX = pos(e)[0]; dragged = false; });
    canvas.addEventListener("mouseup", function (e) {
      var x = pos(e)[0];
      if (downX !== null && Math.abs(x - downX) > 5) {
        var r = self.stack.model.range, w = self.stack.width, a = Math.min(x, downX), b = Math.max(x, downX);
        var t0 = r[0] + (r[1] - r[0]) * Math.max(0, a) / w, t1 = r[0] + (r[1] - r[0]) * Math.min(w, b) / w;
        dragged = true;
        self.change({ range: Math.round(t0) + "-" + Math.round(t1) }, "zoom");
      }
      downX = null;
    });
    canvas.addEventListener("click", function (e) {
      if (dragged) { dragged = false; return; }
      var xy = pos(e), b = self.stack.hitBox(xy[0], xy[1]);
      if (b) self.change({ range: Math.round(b.t0) + "-" + Math.round(b.t1), func: self.p.funcLabel(self.stack.model.tree.func[b.node]) }, "zoom");
    });
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
    var cur = this.currentTree();
    // A zoom path is kept across thread and value switches when it still exists.
    for (var k in delta) this.state[k] = delta[k];
    if ("func" in delta) this.apply(this.state);
    if ("inverted" in delta) this.state.zoom = [];
    this.render(action, t0);
    return cur;
  };

  App.prototype.currentTree = function () {
    var st = this.state;
    return st.inverted ? this.p.inverted(st.thread) : this.p.tree(st.thread);
  };
  App.prototype.v = function () { return Math.max(0, this.p.valueIndex(this.state.value)); };
  App.prototype.which = function () { return this.p.diff && this.state.diff === "base" ? "base" : "new"; };
  App.prototype.totalsOf = function (tree) { return this.which() === "base" ? tree.baseTotal(this.v()) : tree.total(this.v()); };

  App.prototype.writeHash = function () {
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
    this.hideHover();
    var hasStack = this.hasSamples(), hasMem = this.memTypes().length > 0;
    this.tabs.stack.hidden = !p.threads.some(function (t) { return t.samples && t.samples.start && t.samples.start.length; });
    this.tabs.memory.hidden = !hasMem;
    if (st.view === "memory" && !hasMem) st.view = "flame";
    for (var name in this.tabs) {
      var on = name === st.view;
      this.tabs[name].classList.toggle("on", on);
      this.tabs[name].setAttribute("aria-selected", on ? "true" : "false");
      this.panes[name].hidden = !on;
    }
    var tree = this.currentTree(), v = this.v(), which = this.which();
    var zoom = PK.findPath(p, tree, st.zoom);
    st.zoom = PK.pathNames(p, tree, zoom);
    this.zoomNode = zoom;
    // Search: matched nodes and the matched share of the total.
    var re = PK.searchRegex(st.search), share = null;
    this.searchBox.classList.toggle("bad", !!(re && re.error));
    if (re && !re.error) share = PK.searchShare(p, tree, v, re, which);
    this.share = share;
    var tot = this.totalsOf(tree), unit = p.values[v].unit;
    if (share) {
      this.matchInfo.textContent = share.count ? "Matched " + PK.formatPercent(share.value, tot[0]) + " (" + PK.formatValue(share.value, unit) + ")" : "No match";
    } else this.matchInfo.textContent = re && re.error ? "Bad expression" : "";
    this.renderCrumbs(tree, zoom);
    // The canvas views' width (reading it lays the page out: tables skip it).
    var pane = this.panes[st.view], width = function () {
      return Math.max(200, pane.clientWidth || document.documentElement.clientWidth - 16);
    };
    var rootLabel = p.threadLabel(st.thread);
    var base = { profile: p, tree: tree, v: v, which: which, order: tree.order(st.sort, v, p.nameOf, which === "base" ? "base" : ""),
                 zoom: zoom, icicle: st.icicle, colorMode: st.color, dark: this.dark,
                 matched: share ? share.matched : null, selectedFunc: st.selectedFunc,
                 diff: p.diff && st.diff === "diff", rootLabel: rootLabel };
    this.drawTime = 0;
    if (st.view === "flame") {
      this.flame.set(base);
      this.drawTime = this.flame.draw(width());
    } else if (st.view === "stack") {
      this.renderStack(width());
    } else if (st.view === "tree") {
      this.treeTable.set({ profile: p, tree: tree, v: v, which: which, rootLabel: rootLabel });
      this.drawTime = this.treeTable.render();
    } else if (st.view === "top") {
      this.topTable.set({ profile: p, tree: p.tree(st.thread), v: v, which: which, filter: re && !re.error ? re : null });
      this.drawTime = this.topTable.render();
    } else if (st.view === "sandwich") {
      this.renderSandwich(document.documentElement.clientWidth);
    } else if (st.view === "memory") {
      var mt = this.memTypes(), inv = p.inverted(st.thread);
      this.memTable.set({ profile: p, tree: inv, v: mt[0], which: which, extra: mt.slice(1), rootLabel: rootLabel });
      this.drawTime = this.memTable.render();
    }
    this.writeHash();
    var ms = performance.now() - t0;
    this.timings.actions.push({ action: action, view: st.view, ms: ms, draw: this.drawTime });
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
      func: st.func, range: st.range, nodes: tree.n, drawn: 0
    };
    var S = window.profkitState;
    if (st.view === "memory") S.total = this.memTable.totals(this.memTable.model.v)[0];
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
      var r = this.stackRange();
      var b0 = el("button", "pk-crumb", "Whole range");
      b0.addEventListener("click", function () { self.change({ range: "" }, "zoom"); });
      c.appendChild(b0);
      if (this.state.range) {
        c.appendChild(el("span", "pk-sep", "›"));
        c.appendChild(el("span", "pk-crumb on", PK.formatValue(r[0], "nanoseconds") + " – " + PK.formatValue(r[1], "nanoseconds")));
      }
      return;
    }
    if (this.state.view === "memory") {
      c.appendChild(el("span", "note", "Bytes still allocated at the end (leaks) by allocating function first, then its callers; widest first."));
      return;
    }
    if (this.state.view !== "flame") return;
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
    var th = this.p.threads[this.state.thread], s = th.samples;
    var r = (this.state.range || "").split("-").map(Number);
    if (r.length === 2 && r[1] > r[0]) return r;
    return [s.start[0] || 0, s.end];
  };
  App.prototype.renderStack = function (width) {
    var st = this.state, p = this.p;
    if (!this.hasSamples()) {
      this.stackNote.textContent = "This thread has no timed samples: pick a timed thread to see its stack chart.";
      this.stackCanvas.hidden = true;
      return;
    }
    this.stackNote.textContent = "";
    this.stackCanvas.hidden = false;
    var tree = p.tree(st.thread), v = this.v();
    var re = PK.searchRegex(st.search), share = re && !re.error ? PK.searchShare(p, tree, v, re, "new") : null;
    var th = p.threads[st.thread];
    this.stack.set({ profile: p, tree: tree, samples: th.samples, range: this.stackRange(), colorMode: st.color,
                     dark: this.dark, matched: share ? share.matched : null, selectedFunc: st.selectedFunc });
    this.drawTime = this.stack.draw(width);
  };
  App.prototype.renderSandwich = function (width) {
    var st = this.state, p = this.p, tree = p.tree(st.thread), v = this.v(), which = this.which();
    var re = PK.searchRegex(st.search);
    this.swTop.set({ profile: p, tree: tree, v: v, which: which, filter: re && !re.error ? re : null });
    var t = this.swTop.render();
    var f = st.selectedFunc;
    this.callersCanvas.hidden = this.calleesCanvas.hidden = f < 0;
    if (f < 0) { this.swTitle.textContent = "Pick a function on the left"; this.drawTime = t; return; }
    var sw = PK.sandwich(tree, f);
    var tot = which === "base" ? sw.callers.baseTotal(v) : sw.callers.total(v), all = this.totalsOf(tree)[0];
    this.swTitle.textContent = p.funcLabel(f) + " — " + PK.formatValue(tot[1], p.values[v].unit) + " (" + PK.formatPercent(tot[1], all) + ")";
    // The flames' column: the page's width less the list's (38%, at least
    // 20em) and the gaps, without laying out the list.
    var w = Math.max(200, Math.floor(width - Math.max(0.38 * (width - 16), 260) - 16 - 12 - 2));
    var common = { profile: p, v: v, which: which, zoom: 1, hideAbove: true, colorMode: st.color, dark: this.dark,
                   matched: null, selectedFunc: f, diff: p.diff && st.diff === "diff" };
    this.callers.set(Object.assign({ tree: sw.callers, order: sw.callers.order(st.sort, v, p.nameOf, which === "base" ? "base" : ""), icicle: false }, common));
    this.callees.set(Object.assign({ tree: sw.callees, order: sw.callees.order(st.sort, v, p.nameOf, which === "base" ? "base" : ""), icicle: true }, common));
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
    if (this.state.view === "memory") { this.change({ view: "flame", inverted: true }, "view"); }
    this.change({ view: "flame", zoom: PK.pathNames(this.p, tree, n) }, "zoom");
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
    h.appendChild(el("div", "pk-h-name", n === 0 ? (model.rootLabel || "all") : info.name));
    var where = [];
    if (info.module) where.push(info.module);
    if (info.file) where.push(info.file + (info.line ? ":" + info.line : ""));
    if (where.length) h.appendChild(el("div", "pk-h-loc", where.join(" — ")));
    function row(k, val) { var d = el("div", "pk-h-row"); d.appendChild(el("span", "k", k)); d.appendChild(el("span", "v", val)); h.appendChild(d); }
    var root = tot[0], z = model.zoom || 0;
    if (box) row("Duration", PK.formatValue(box.t1 - box.t0, "nanoseconds"));
    else {
      row("Total", PK.formatValue(tot[n], unit) + " — " + PK.formatPercent(tot[n], root) + " of all" +
          (z > 0 && !model.hideAbove ? ", " + PK.formatPercent(tot[n], tot[z]) + " of " + p.funcLabel(tree.func[z]) : ""));
      row("Self", PK.formatValue(self[n], unit) + " — " + PK.formatPercent(self[n], root));
    }
    var ci = p.valueIndex("calls");
    if (ci >= 0 && ci !== v && !box) {
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
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start); else start();
})(typeof globalThis !== "undefined" ? (globalThis.profkit = globalThis.profkit || {}) : (this.profkit = this.profkit || {}));
