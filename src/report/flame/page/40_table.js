"use strict";
// Tables: the call tree (expandable rows, sortable columns, keyboard
// navigation; also its inverted form and the memory view) and the top
// functions. Plain DOM, virtual: a table has a row per entry, but only the
// rows in view (and SPARE either side) are in the page; the host scrolls
// and spacer rows stand for the others, so 3,000 rows cost what 60 cost.
(function (PK) {
  var MAX_ROWS = 100000, ROW_H = 20, SPARE = 6;

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }
  PK.el = el;

  // The virtual rows of a table in a scrolling host: fill() puts rows
  // first..last of `count` into a new tbody, make(i) making row i.
  function Virtual(host) {
    this.host = host;
    this.rowH = ROW_H;
    this.scrollTop = 0;
    this.body = null;
    this.count = 0;
    this.make = null;
    var self = this, pending = false;
    host.classList.add("pk-vscroll");
    host.addEventListener("scroll", function () {
      self.scrollTop = host.scrollTop;
      if (pending) return;
      pending = true;
      requestAnimationFrame(function () { pending = false; self.fill(); });
    });
  }
  // A new table (thead given) with `count` rows made by make(i).
  Virtual.prototype.start = function (table, thead, count, make, keepScroll) {
    this.count = count; this.make = make;
    table.appendChild(thead);
    this.body = el("tbody");
    table.appendChild(this.body);
    this.table = table;
    if (!keepScroll) this.scrollTop = 0;
    this.fill();
  };
  Virtual.prototype.fill = function () {
    if (!this.body) return;
    var colspan = this.table.tHead ? this.table.tHead.rows[0].cells.length : 1;
    var view = Math.ceil((window.innerHeight || 1000) / this.rowH);
    var first = Math.max(0, Math.min(Math.floor(this.scrollTop / this.rowH) - SPARE, this.count - view - SPARE));
    var last = Math.min(this.count, first + view + 2 * SPARE), rowH = this.rowH;
    var body = el("tbody");
    function spacer(n) { var tr = el("tr", "pk-spacer"), td = el("td"); td.colSpan = colspan; td.style.height = (n * rowH) + "px"; tr.appendChild(td); return tr; }
    if (first > 0) body.appendChild(spacer(first));
    for (var i = first; i < last; i++) body.appendChild(this.make(i));
    if (last < this.count) body.appendChild(spacer(this.count - last));
    this.body.parentNode.replaceChild(body, this.body);
    this.body = body;
    // The rows' real height, once (the CSS gives about ROW_H), read in the
    // next frame, when the browser lays the rows out anyway.
    if (!this.measured && first < last && !this.measuring) {
      var self = this;
      this.measuring = true;
      requestAnimationFrame(function () {
        self.measuring = false;
        var tr = self.body && self.body.querySelector("tr:not(.pk-spacer)");
        var h = tr ? tr.getBoundingClientRect().height : 0;
        if (h > 0) { self.measured = true; if (Math.abs(h - self.rowH) > 0.25) { self.rowH = h; self.fill(); } }
      });
    }
  };
  // Scrolls so that row i is in view (and fills).
  Virtual.prototype.show = function (i) {
    var top = i * this.rowH, head = this.table && this.table.tHead ? this.table.tHead.offsetHeight : 0;
    var h = this.host.clientHeight - head, at = this.host.scrollTop;
    if (top < at) this.host.scrollTop = top;
    else if (top + this.rowH > at + h) this.host.scrollTop = top + this.rowH - h;
    this.scrollTop = this.host.scrollTop;
    this.fill();
  };

  // The call tree table. model: {profile, tree, v, which, extra (value
  // indexes shown as extra total columns), rootLabel, hideZero (rows whose
  // total of v is 0 left out: the memory view's freed paths)}.
  function TreeTable(host, app) {
    this.host = host;
    this.app = app;
    this.virtual = new Virtual(host);
    this.expanded = new Set([0]);
    this.selected = 0;
    this.sort = { key: "total", dir: -1 };
    this.model = null;
    this.rows = [];
    var self = this;
    host.tabIndex = 0;
    host.setAttribute("role", "tree");
    host.addEventListener("keydown", function (e) { self.key(e); });
    host.addEventListener("click", function (e) {
      var th = e.target.closest("th[data-sort]");
      if (th) {
        var k = th.getAttribute("data-sort");
        if (self.sort.key === k) self.sort.dir = -self.sort.dir; else self.sort = { key: k, dir: k === "name" ? 1 : -1 };
        self.render();
        return;
      }
      var tr = e.target.closest("tr[data-node]");
      if (!tr) return;
      var n = +tr.getAttribute("data-node");
      if (e.target.classList.contains("tw")) self.toggle(n);
      self.select(n);
      host.focus();
    });
    host.addEventListener("dblclick", function (e) {
      var tr = e.target.closest("tr[data-node]");
      if (tr) self.app.openNode(+tr.getAttribute("data-node"));
    });
  }
  TreeTable.prototype.set = function (model, reset) {
    var old = this.model;
    this.model = model;
    // What the rows show changed: show() renders again.
    if (!old || old.tree !== model.tree || old.v !== model.v || old.which !== model.which ||
        String(old.extra) !== String(model.extra) || old.rootLabel !== model.rootLabel || !old.hideZero !== !model.hideZero) this.stale = true;
    // (the total the percentages are of: 45_transforms.js)
    model.pct = PK.percentBase ? PK.percentBase(model, -1) : -1;
    if (old && old.pct !== model.pct) this.stale = true;
    if (reset || !old || old.tree !== model.tree) {
      this.expanded = new Set([0]);
      this.selected = 0;
      this.expandHeaviest();
      this.fresh = true;        // back to the top
    }
  };
  // Opens the heaviest path while it holds most of its parent's value.
  TreeTable.prototype.expandHeaviest = function () {
    var m = this.model, tree = m.tree, tot = this.totals(m.v), node = 0;
    for (var guard = 0; guard < 200; guard++) {
      this.expanded.add(node);
      var best = -1;
      for (var j = tree.kidStart[node]; j < tree.kidStart[node + 1]; j++) {
        var c = tree.kids[j];
        if (best < 0 || tot[c] > tot[best]) best = c;
      }
      if (best < 0 || tot[best] < 0.5 * tot[node]) break;
      node = best;
    }
  };
  // A diff shown as the difference: base, new and change columns.
  TreeTable.prototype.isDiff = function () {
    var m = this.model;
    return !!(m && m.tree.baseSelf && !m.extra && m.profile.diff && this.app && this.app.state && this.app.state.diff === "diff");
  };
  TreeTable.prototype.totals = function (v) {
    var t = this.model.tree;
    return this.model.which === "base" ? t.baseTotal(v) : t.total(v);
  };
  TreeTable.prototype.selfs = function (v) {
    var t = this.model.tree;
    return this.model.which === "base" ? t.baseSelf[v] : t.self[v];
  };
  // A node's children in the table's order: the tree's own cached order for
  // the default (total, largest first), else sorted here once per node
  // until the sort or the model changes.
  TreeTable.prototype.kids = function (node) {
    var m = this.model, tree = m.tree, key = this.sort.key, dir = this.sort.dir, p = m.profile;
    var diff = this.isDiff();
    if (key === "total" && dir < 0) {
      var ord = tree.lazyOrder("width", m.v, p.nameOf, diff ? "max" : m.which === "base" ? "base" : "").kids(node);
      var out0 = Array.prototype.slice.call(ord, tree.kidStart[node], tree.kidStart[node + 1]);
      if (m.hideZero) { var zt = this.totals(m.v); out0 = out0.filter(function (c) { return zt[c] !== 0; }); }
      return out0;
    }
    var ck = key + dir + ":" + m.v + ":" + m.which + (diff ? ":diff" : "");
    if (this._kidsKey !== ck || this._kidsTree !== tree) { this._kids = new Map(); this._kidsKey = ck; this._kidsTree = tree; }
    var hit = this._kids.get(node);
    if (hit) return hit;
    var tot = this.totals(m.v), self = this.selfs(m.v);
    var out = Array.prototype.slice.call(tree.kids, tree.kidStart[node], tree.kidStart[node + 1]);
    if (m.hideZero) out = out.filter(function (c) { return tot[c] !== 0; });
    out.sort(function (a, b) {
      if (key === "name") {
        var x = p.funcLabel(tree.func[a]), y = p.funcLabel(tree.func[b]);
        return (x < y ? -1 : x > y ? 1 : 0) * dir || tot[b] - tot[a];
      }
      if (diff && (key === "change" || key === "base")) {
        var bt = tree.baseTotal(m.v);
        if (key === "base") return (bt[a] - bt[b]) * dir || tot[b] - tot[a];
        return (Math.abs(tot[a] - bt[a]) - Math.abs(tot[b] - bt[b])) * dir || tot[b] - tot[a];
      }
      var arr = key === "self" ? self : tot;
      return (arr[a] - arr[b]) * dir || tot[b] - tot[a];
    });
    this._kids.set(node, out);
    return out;
  };
  TreeTable.prototype.flatten = function () {
    var rows = [], stack = [0];
    while (stack.length && rows.length < MAX_ROWS) {
      var n = stack.pop();
      rows.push(n);
      if (this.expanded.has(n)) {
        var k = this.kids(n);
        for (var i = k.length - 1; i >= 0; i--) stack.push(k[i]);
      }
    }
    this.truncated = stack.length > 0;
    return rows;
  };
  // Renders when the model changed since the last render (a view switch
  // back to an unchanged table costs nothing).
  TreeTable.prototype.show = function () {
    if (!this.stale && this.host.firstChild) return 0;
    return this.render();
  };
  TreeTable.prototype.render = function () {
    var m = this.model, t0 = performance.now();
    if (!m) return 0;
    this.stale = false;
    var tree = m.tree, p = m.profile, v = m.v, unit = p.values[v].unit;
    var tot = this.totals(v), self = this.selfs(v), rootTot = PK.percentBase ? PK.percentBase(m, tot[0]) : tot[0];
    var rows = this.flatten();
    this.rows = rows;
    var inl = inlineOf(this.app, m, false);
    var table = el("table", "pk-table pk-fixed");
    table.setAttribute("data-rows", rows.length);
    var head = el("tr");
    var tl = m.extra ? p.values[v].type : "Total";   // the memory view names its value
    var diff = this.isDiff(), btot = diff ? tree.baseTotal(v) : null, bself = diff ? tree.baseSelf[v] : null;
    var cols = diff ? [["name", "Function"], ["base", "Base"], ["total", "New"], ["change", "Change"], ["change", "Change %"], ["self", "Self change"]]
                    : [["name", "Function"], ["total", tl], ["total", "%"], ["self", "Self"], ["self", "Self %"]];
    cols.forEach(function (c, i) {
      var th = el("th", i ? (diff ? "num" : i % 2 ? "num" : "num pct") : "", c[1]);
      th.setAttribute("data-sort", c[0]);
      head.appendChild(th);
    });
    var extra = m.extra || [];
    extra.forEach(function (ev) {
      var th = el("th", "num", p.values[ev].type);
      head.appendChild(th);
    });
    var arrow = this.sort.dir < 0 ? " ▾" : " ▴";
    for (var h = 0; h < head.children.length; h++) {
      var thh = head.children[h];
      if (thh.getAttribute("data-sort") === this.sort.key && (h === 0 || h === 1 || h === 3 || (diff && h === 2))) thh.textContent += arrow;
    }
    var thead = el("thead"); thead.appendChild(head);
    var extraTot = extra.map(function (ev) { return m.which === "base" ? tree.baseTotal(ev) : tree.total(ev); });
    var me = this;
    var make = function (r) {
      var n = rows[r], tr = el("tr");
      tr.setAttribute("data-node", n);
      tr.setAttribute("role", "treeitem");
      tr.setAttribute("aria-level", tree.depth[n] + 1);
      var has = m.hideZero ? me.kids(n).length > 0 : tree.kidStart[n + 1] > tree.kidStart[n];
      if (has) tr.setAttribute("aria-expanded", me.expanded.has(n) ? "true" : "false");
      if (n === me.selected) { tr.className = "sel"; tr.setAttribute("aria-selected", "true"); }
      var name = el("td", "name");
      name.style.paddingLeft = (4 + 14 * tree.depth[n]) + "px";
      var tw = el("span", "tw", has ? (me.expanded.has(n) ? "▾" : "▸") : "");
      name.appendChild(tw);
      var info = p.funcInfo(tree.func[n]);
      name.appendChild(el("span", "fn", n === 0 ? (m.rootLabel || "all") : info.name));
      if (inl) markCell(name, PK.inlineMark(inl[n]));
      if (info.file && n) name.appendChild(el("span", "loc", " " + info.file + (info.line ? ":" + info.line : "")));
      name.title = info.name;
      tr.appendChild(name);
      if (diff) {
        tr.appendChild(el("td", "num", PK.formatValue(btot[n], unit)));
        tr.appendChild(el("td", "num", PK.formatValue(tot[n], unit)));
        PK.changeCells(tr, tot[n] - btot[n], btot[0], unit);
        var sc = self[n] - bself[n];
        tr.appendChild(el("td", "num" + (sc > 0 ? " up" : sc < 0 ? " down" : ""), PK.signed(PK.formatValue(sc, unit), sc)));
        if (tot[n] === 0 && btot[n] !== 0) tr.classList.add("pk-removed");
        return tr;
      }
      tr.appendChild(el("td", "num", PK.formatValue(tot[n], unit)));
      tr.appendChild(el("td", "num pct", PK.formatPercent(tot[n], rootTot)));
      tr.appendChild(el("td", "num", PK.formatValue(self[n], unit)));
      tr.appendChild(el("td", "num pct", PK.formatPercent(self[n], rootTot)));
      for (var x = 0; x < extra.length; x++) tr.appendChild(el("td", "num", PK.formatValue(extraTot[x][n], p.values[extra[x]].unit)));
      return tr;
    };
    var keep = !this.fresh, wasAt = this.virtual.scrollTop;
    this.fresh = false;
    this.virtual.start(table, thead, rows.length, make, keep);
    this.host.textContent = "";
    this.host.appendChild(table);
    // Back to the top only when scrolled (writing scrollTop lays the page
    // out at once, in the middle of the action).
    if (!keep && wasAt) this.host.scrollTop = 0;
    if (this.truncated) this.host.appendChild(el("p", "note", "Only the first " + MAX_ROWS + " rows are shown; collapse rows to see the rest."));
    return performance.now() - t0;
  };
  TreeTable.prototype.toggle = function (n) {
    if (this.expanded.has(n)) this.expanded.delete(n); else this.expanded.add(n);
    this.render();
  };
  TreeTable.prototype.select = function (n) {
    this.selected = n;
    var old = this.host.querySelector("tr.sel");
    if (old) { old.className = ""; old.removeAttribute("aria-selected"); }
    var i = this.rows.indexOf(n);
    if (i >= 0) this.virtual.show(i);        // scrolls to the row and puts it in the page
    var tr = this.host.querySelector('tr[data-node="' + n + '"]');
    if (tr) { tr.className = "sel"; tr.setAttribute("aria-selected", "true"); }
    this.app.selectNode(this.model.tree, n);
  };
  TreeTable.prototype.key = function (e) {
    var rows = this.rows, i = rows.indexOf(this.selected), n = this.selected, tree = this.model.tree;
    var has = this.model.hideZero ? this.kids(n).length > 0 : tree.kidStart[n + 1] > tree.kidStart[n];
    switch (e.key) {
      case "ArrowDown": if (i + 1 < rows.length) this.select(rows[i + 1]); break;
      case "ArrowUp": if (i > 0) this.select(rows[i - 1]); break;
      case "Home": this.select(rows[0]); break;
      case "End": this.select(rows[rows.length - 1]); break;
      case "ArrowRight":
        if (has && !this.expanded.has(n)) { this.expanded.add(n); this.render(); }
        else if (has) this.select(this.kids(n)[0]);
        break;
      case "ArrowLeft":
        if (has && this.expanded.has(n)) { this.expanded.delete(n); this.render(); }
        else if (n > 0) this.select(tree.parent[n]);
        break;
      case "*": {  // expand everything under the selected row
        var st = [n];
        while (st.length) { var x = st.pop(); this.expanded.add(x); for (var j = tree.kidStart[x]; j < tree.kidStart[x + 1]; j++) st.push(tree.kids[j]); }
        this.render();
        break;
      }
      case "Enter": this.app.openNode(n); break;
      default: return;
    }
    e.preventDefault();
  };
  PK.TreeTable = TreeTable;

  // The inline marks (12_time.js) of a table's tree when it is the shown
  // thread's tree (in a diff, of BASE's calls and NEW's): per node, or per
  // function (top's key, byFunc); null for another tree (the memory view's
  // inverted one) or without inlined frames.
  function inlineOf(app, m, byFunc) {
    var p = m.profile, t = app && app.state ? app.state.thread : -1;
    if (!PK.nodeInline || !p.threads[t] || p.tree(t) !== m.tree) return null;
    return byFunc ? PK.topInline(p, t, m.v, m.tree) : PK.nodeInline(p, t, m.tree, m.v);
  }
  function markCell(td, mark) { if (mark) td.appendChild(el("span", "loc pk-inline", mark)); }

  // Top functions: self and total (recursion once) per function, sortable;
  // a click selects the function everywhere, a double click opens its
  // sandwich. Every function is a row, but only the rows in view (and a
  // screenful either side) are in the DOM: the host scrolls, and spacer
  // rows stand for the others, so a table of 3,000 functions costs what 60
  // rows cost.
  function TopTable(host, app) {
    this.host = host;
    this.app = app;
    this.sort = { key: "self", dir: -1 };
    this.virtual = new Virtual(host);
    var self = this;
    host.addEventListener("click", function (e) {
      var th = e.target.closest("th[data-sort]");
      if (th) {
        var k = th.getAttribute("data-sort");
        if (self.sort.key === k) self.sort.dir = -self.sort.dir; else self.sort = { key: k, dir: k === "name" ? 1 : -1 };
        self.sortPicked = true;
        self.render();
        return;
      }
      var tr = e.target.closest("tr[data-func]");
      if (tr) self.app.selectFunc(+tr.getAttribute("data-func"));
    });
    host.addEventListener("dblclick", function (e) {
      var tr = e.target.closest("tr[data-func]");
      if (tr) self.app.openSandwich(+tr.getAttribute("data-func"));
    });
  }
  TopTable.prototype.set = function (model) {
    this.model = model;
  };
  TopTable.prototype.render = function () {
    var m = this.model, t0 = performance.now(), p = m.profile, unit = p.values[m.v].unit, me = this;
    var diff = !!(m.tree.baseSelf && p.diff && this.app.state && this.app.state.diff === "diff");
    var sig = { tree: m.tree, v: m.v, which: m.which + (diff ? ":diff" : "") + ":" + (PK.percentBase ? PK.percentBase(m, -1) : -1),
                key: this.sort.key + this.sort.dir, filter: String(m.filter || "") };
    var o = this._shown;
    // Same rows as last time: only the selection moves (the rows stay, so a
    // double click lands on the row it started on).
    if (o && o.tree === sig.tree && o.v === sig.v && o.which === sig.which && o.key === sig.key && o.filter === sig.filter && this.virtual.body) {
      var sel = this.app.state.selectedFunc, trs = this.virtual.body.querySelectorAll("tr[data-func]");
      for (var q = 0; q < trs.length; q++) trs[q].className = +trs[q].getAttribute("data-func") === sel ? "sel" : "";
      return performance.now() - t0;
    }
    this._shown = sig;
    var rows = PK.topFunctions(m.tree, m.v, diff ? "diff" : m.which), inl = inlineOf(this.app, m, true);
    if (m.filter) rows = rows.filter(function (r) { m.filter.lastIndex = 0; return m.filter.test(p.funcLabel(r.func)); });
    // A diff sorts by the size of the change (the biggest first), as
    // `profkit diff` does, unless a column was picked.
    if (diff && this.sort.key === "self" && !this.sortPicked) this.sort = { key: "change", dir: -1 };
    else if (!diff && !/^(self|total|name)$/.test(this.sort.key)) { this.sort = { key: "self", dir: -1 }; this.sortPicked = false; }
    var key = this.sort.key, dir = this.sort.dir;
    rows.sort(function (a, b) {
      if (key === "name") { var x = p.funcLabel(a.func), y = p.funcLabel(b.func); return (x < y ? -1 : x > y ? 1 : 0) * dir; }
      if (key === "change" || key === "selfChange") return (Math.abs(a[key]) - Math.abs(b[key])) * dir || b.total - a.total;
      return (a[key] - b[key]) * dir || b.total - a.total;
    });
    this.rowsAll = rows;
    var rootTot = (m.which === "base" ? m.tree.baseTotal(m.v) : m.tree.total(m.v))[0];
    if (PK.percentBase && m.which !== "base") rootTot = PK.percentBase(m, rootTot);
    var table = el("table", "pk-table pk-fixed");
    table.setAttribute("data-rows", rows.length);
    var head = el("tr"), arrow = this.sort.dir < 0 ? " ▾" : " ▴", sortKey = this.sort.key, seen = false;
    var cols = diff ? [["baseTotal", "Base"], ["total", "New"], ["change", "Change"], ["change", "Change %"], ["selfChange", "Self change"], ["name", "Function"]]
                    : [["self", "Self"], ["self", "Self %"], ["total", "Total"], ["total", "Total %"], ["name", "Function"]];
    var baseRoot = diff ? m.tree.baseTotal(m.v)[0] : 0;
    cols.forEach(function (c, i) {
      var th = el("th", i < cols.length - 1 ? (c[1].slice(-1) === "%" ? "num pct" : "num") : "", c[1] + (c[0] === sortKey && !seen ? arrow : ""));
      if (c[0] === sortKey) seen = true;
      th.setAttribute("data-sort", c[0]);
      head.appendChild(th);
    });
    var thead = el("thead"); thead.appendChild(head);
    var make = function (i) {
      var r = rows[i], tr = el("tr");
      tr.setAttribute("data-func", r.func);
      if (r.func === me.app.state.selectedFunc) tr.className = "sel";
      if (diff) {
        tr.appendChild(el("td", "num", PK.formatValue(r.baseTotal, unit)));
        tr.appendChild(el("td", "num", PK.formatValue(r.total, unit)));
        PK.changeCells(tr, r.change, baseRoot, unit);
        tr.appendChild(el("td", "num" + (r.selfChange > 0 ? " up" : r.selfChange < 0 ? " down" : ""), PK.signed(PK.formatValue(r.selfChange, unit), r.selfChange)));
        if (r.total === 0 && r.baseTotal !== 0) tr.classList.add("pk-removed");
      } else {
      tr.appendChild(el("td", "num", PK.formatValue(r.self, unit)));
      tr.appendChild(el("td", "num pct", PK.formatPercent(r.self, rootTot)));
      tr.appendChild(el("td", "num", PK.formatValue(r.total, unit)));
      tr.appendChild(el("td", "num pct", PK.formatPercent(r.total, rootTot)));
      }
      var info = p.funcInfo(r.func), td = el("td", "name");
      td.appendChild(el("span", "fn", info.name));
      if (inl) markCell(td, PK.inlineMark(inl.get(PK.topKeyOf(p, r.func))));
      if (info.file) td.appendChild(el("span", "loc", " " + info.file + (info.line ? ":" + info.line : "")));
      td.title = info.name;
      tr.appendChild(td);
      return tr;
    };
    var wasAt = this.virtual.scrollTop;
    this.virtual.start(table, thead, rows.length, make, false);
    this.host.textContent = "";
    this.host.appendChild(table);
    if (wasAt) this.host.scrollTop = 0;     // (a write lays the page out at once)
    return performance.now() - t0;
  };
  PK.TopTable = TopTable;

  // A diff's change and change % cells (of BASE's total, as `profkit diff`).
  PK.changeCells = function (tr, d, baseRoot, unit) {
    var cls = "num" + (d > 0 ? " up" : d < 0 ? " down" : "");
    tr.appendChild(el("td", cls, PK.signed(PK.formatValue(d, unit), d)));
    tr.appendChild(el("td", cls + " pct", baseRoot ? PK.signed(PK.formatPercent(d, baseRoot), d) : ""));
  };
})(typeof globalThis !== "undefined" ? (globalThis.profkit = globalThis.profkit || {}) : (this.profkit = this.profkit || {}));
