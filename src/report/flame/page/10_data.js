"use strict";
// The page's model: the data JSON (docs/viewer.md, schema 1) turned into
// typed arrays, and every computation the views share (totals, child order,
// inverted tree, sandwich, top functions, search share). No DOM here: the
// Node unit tests (tests/js/) load this file on its own.
(function (PK) {
  var ROOT_FUNC = -1, OTHER_FUNC = -2;
  PK.ROOT_FUNC = ROOT_FUNC;
  PK.OTHER_FUNC = OTHER_FUNC;

  // A tree: parent/func arrays (parents precede children), self values per
  // value type; totals, children and depth are derived once, here.
  function Tree(parent, func, self, baseSelf) {
    var n = parent.length;
    this.n = n;
    this.parent = parent instanceof Int32Array ? parent : Int32Array.from(parent);
    this.func = func instanceof Int32Array ? func : Int32Array.from(func);
    this.self = self.map(function (a) { return a instanceof Float64Array ? a : Float64Array.from(a); });
    this.baseSelf = baseSelf ? baseSelf.map(function (a) { return a instanceof Float64Array ? a : Float64Array.from(a); }) : null;
    this._total = [];
    this._baseTotal = [];
    this._order = {};
    // Children in CSR form: kids[kidStart[i] .. kidStart[i+1]) in data order.
    var count = new Int32Array(n + 1), i;
    var depth = new Int32Array(n), maxDepth = 0;
    for (i = 1; i < n; i++) {
      var p = this.parent[i];
      if (p < 0 || p >= i) throw new Error("tree: node " + i + " has parent " + p + " (parents must precede children)");
      count[p + 1]++;
      depth[i] = depth[p] + 1;
      if (depth[i] > maxDepth) maxDepth = depth[i];
    }
    for (i = 0; i < n; i++) count[i + 1] += count[i];
    var kids = new Int32Array(Math.max(0, n - 1)), fill = count.slice(0, n);
    for (i = 1; i < n; i++) kids[fill[this.parent[i]]++] = i;
    this.kidStart = count;
    this.kids = kids;
    this.depth = depth;
    this.maxDepth = maxDepth;
  }
  Tree.prototype.total = function (v) {
    if (this._total[v]) return this._total[v];
    this._total[v] = totals(this.parent, this.self[v]);
    return this._total[v];
  };
  Tree.prototype.baseTotal = function (v) {
    if (!this.baseSelf) return null;
    if (this._baseTotal[v]) return this._baseTotal[v];
    this._baseTotal[v] = totals(this.parent, this.baseSelf[v]);
    return this._baseTotal[v];
  };
  // Children of every node, ordered by `key` ("width": widest first, ties by
  // name; "name": by name), for value type v (and "base" widths in diff).
  // Returns an Int32Array laid out like kids, cached per (key, v).
  Tree.prototype.order = function (key, v, names, which) {
    var k = key + ":" + v + ":" + (which || "");
    if (this._order[k]) return this._order[k];
    var tot = which === "base" ? this.baseTotal(v) : this.total(v), func = this.func;
    var out = this.kids.slice(), ks = this.kidStart;
    var nameOf = function (i) { return names(func[i]); };
    for (var i = 0; i < this.n; i++) {
      var a = ks[i], b = ks[i + 1];
      if (b - a < 2) continue;
      var sub = Array.prototype.slice.call(out, a, b);
      if (key === "name") sub.sort(function (x, y) { return cmpStr(nameOf(x), nameOf(y)) || tot[y] - tot[x]; });
      else sub.sort(function (x, y) { return tot[y] - tot[x] || cmpStr(nameOf(x), nameOf(y)); });
      for (var j = 0; j < sub.length; j++) out[a + j] = sub[j];
    }
    this._order[k] = out;
    return out;
  };
  // Path of node i from the root's child down to i (node indexes).
  Tree.prototype.path = function (i) {
    var p = [];
    for (; i > 0; i = this.parent[i]) p.push(i);
    return p.reverse();
  };
  PK.Tree = Tree;

  function cmpStr(a, b) { return a < b ? -1 : a > b ? 1 : 0; }

  // A node's total is its self value plus its children's totals.
  function totals(parent, self) {
    var n = parent.length, t = Float64Array.from(self);
    for (var i = n - 1; i > 0; i--) t[parent[i]] += t[i];
    return t;
  }
  PK.totals = totals;

  // The profile: strings, functions, value types, threads (trees built on
  // first use, so opening a page with many threads stays fast).
  function Profile(data) {
    if (!data || data.schema !== 1) throw new Error("profkit data: schema 1 expected, got " + (data && data.schema));
    this.data = data;
    this.strings = data.strings || [""];
    this.title = data.title || "";
    this.format = data.format || "";
    this.diff = !!data.diff;
    this.values = data.values || [];
    this.defaultValue = data.default_value | 0;
    var f = data.funcs || {};
    this.funcName = f.name || [];
    this.funcFile = f.file || [];
    this.funcLine = f.line || [];
    this.funcModule = f.module || [];
    this.threads = data.threads || [];
    this._trees = [];
    this._inverted = [];
    var self = this;
    this.nameOf = function (fi) { return self.funcLabel(fi); };
  }
  Profile.prototype.str = function (i) { return i > 0 && i < this.strings.length ? this.strings[i] : ""; };
  Profile.prototype.funcLabel = function (fi) {
    if (fi === ROOT_FUNC) return "all";
    if (fi === OTHER_FUNC) return "(other)";
    return this.str(this.funcName[fi]) || "(unknown)";
  };
  Profile.prototype.funcInfo = function (fi) {
    if (fi < 0) return { name: this.funcLabel(fi), file: "", line: 0, module: "" };
    return { name: this.funcLabel(fi), file: this.str(this.funcFile[fi]), line: this.funcLine[fi] | 0,
             module: this.str(this.funcModule[fi]) };
  };
  Profile.prototype.threadLabel = function (t) {
    var th = this.threads[t];
    if (!th) return "";
    if (th.merged) return "All threads";
    var name = this.str(th.name) || "thread", proc = this.str(th.process);
    var s = name;
    if (th.tid !== undefined && th.tid >= 0) s += " (" + th.tid + ")";
    if (proc) s = proc + ": " + s;
    return s;
  };
  Profile.prototype.tree = function (t) {
    if (this._trees[t]) return this._trees[t];
    var tr = this.threads[t].tree;
    this._trees[t] = new Tree(tr.parent, tr.func, tr.self, this.diff ? tr.base_self : null);
    return this._trees[t];
  };
  Profile.prototype.inverted = function (t) {
    if (!this._inverted[t]) this._inverted[t] = invert(this.tree(t));
    return this._inverted[t];
  };
  Profile.prototype.valueIndex = function (name) {
    for (var i = 0; i < this.values.length; i++) if (this.values[i].type === name) return i;
    return -1;
  };
  PK.Profile = Profile;

  // Builds a tree from paths: add(path of funcs, root first, weights per value).
  function TreeBuilder(nv, diff) {
    this.nv = nv;
    this.parent = [-1];
    this.func = [ROOT_FUNC];
    this.self = [];
    this.base = diff ? [] : null;
    for (var v = 0; v < nv; v++) { this.self.push([0]); if (diff) this.base.push([0]); }
    this.map = new Map();
  }
  TreeBuilder.prototype.child = function (node, f) {
    var key = node * 4194304 + (f + 2);  // exact while nodes < 2^31 and funcs < 2^22
    var c = this.map.get(key);
    if (c !== undefined) return c;
    c = this.parent.length;
    this.parent.push(node);
    this.func.push(f);
    for (var v = 0; v < this.nv; v++) { this.self[v].push(0); if (this.base) this.base[v].push(0); }
    this.map.set(key, c);
    return c;
  };
  TreeBuilder.prototype.build = function () { return new Tree(this.parent, this.func, this.self, this.base); };
  PK.TreeBuilder = TreeBuilder;

  // The inverted (bottom-up) tree: each root is a function where value is
  // spent (self), its children are its callers. A node's self moves to the
  // inverted node of its whole path, so inverted totals come out bottom-up.
  function invert(tree) {
    var nv = tree.self.length, b = new TreeBuilder(nv, !!tree.baseSelf);
    var n = tree.n, par = tree.parent, func = tree.func;
    for (var i = 1; i < n; i++) {
      var any = false, v;
      for (v = 0; v < nv; v++) if (tree.self[v][i] || (tree.baseSelf && tree.baseSelf[v][i])) { any = true; break; }
      if (!any) continue;
      var node = 0;
      for (var j = i; j > 0; j = par[j]) node = b.child(node, func[j]);
      for (v = 0; v < nv; v++) {
        b.self[v][node] += tree.self[v][i];
        if (b.base) b.base[v][node] += tree.baseSelf[v][i];
      }
    }
    return b.build();
  }
  PK.invert = invert;

  // Walks the tree depth-first (children in data order) calling
  // visit(node, outermost) where outermost is true when no ancestor is "in"
  // (inFn(node) says whether a node is in the set: a function, a match).
  function outermost(tree, inFn, visit) {
    var n = tree.n, ks = tree.kidStart, kids = tree.kids;
    // inside[i]: number of ancestors of i (itself included) that are in.
    var inside = new Int32Array(n);
    for (var i = 1; i < n; i++) {
      var p = tree.parent[i], own = inFn(i) ? 1 : 0;
      inside[i] = inside[p] + own;
      if (own && inside[p] === 0) visit(i);
    }
    return inside;
  }
  PK.outermost = outermost;

  // Top functions: per function, self (summed) and total (outermost
  // occurrences only: recursion counts once, as `profkit top` does).
  function topFunctions(tree, v, which) {
    var self = which === "base" ? tree.baseSelf[v] : tree.self[v];
    var tot = which === "base" ? tree.baseTotal(v) : tree.total(v);
    var func = tree.func, n = tree.n;
    var selfBy = new Map(), totBy = new Map();
    // A function's total: for each node, add its total unless an ancestor
    // has the same function. Track with per-function ancestor counts.
    var ks = tree.kidStart, kids = tree.kids;
    var onPath = new Map(), stack = [0], it = [ks[0]], i;
    for (i = 1; i < n; i++) if (self[i]) selfBy.set(func[i], (selfBy.get(func[i]) || 0) + self[i]);
    // Iterative DFS.
    while (stack.length) {
      var top = stack.length - 1, node = stack[top];
      if (it[top] < ks[node + 1]) {
        var c = kids[it[top]++], f = func[c], k = onPath.get(f) || 0;
        if (k === 0 && tot[c]) totBy.set(f, (totBy.get(f) || 0) + tot[c]);
        onPath.set(f, k + 1);
        stack.push(c);
        it.push(ks[c]);
      } else {
        stack.pop(); it.pop();
        if (node > 0) onPath.set(func[node], onPath.get(func[node]) - 1);
      }
    }
    var rows = [];
    totBy.forEach(function (t, f) { rows.push({ func: f, self: selfBy.get(f) || 0, total: t }); });
    selfBy.forEach(function (s, f) { if (!totBy.has(f)) rows.push({ func: f, self: s, total: 0 }); });
    return rows;
  }
  PK.topFunctions = topFunctions;

  // The share of the total in nodes whose function matches (re on its
  // name): each path counts once, at its outermost match, as flamegraph.pl
  // counts. Returns {value, matched: Uint8Array per node, count}.
  function searchShare(profile, tree, v, re, which) {
    var tot = which === "base" ? tree.baseTotal(v) : tree.total(v), func = tree.func;
    var cache = new Map();
    var matched = new Uint8Array(tree.n), count = 0, value = 0;
    for (var i = 1; i < tree.n; i++) {
      var f = func[i], m = cache.get(f);
      if (m === undefined) { re.lastIndex = 0; m = re.test(profile.funcLabel(f)); cache.set(f, m); }
      if (m) { matched[i] = 1; count++; }
    }
    outermost(tree, function (i) { return matched[i] === 1; }, function (i) { value += tot[i]; });
    return { value: value, matched: matched, count: count };
  }
  PK.searchShare = searchShare;

  // Sandwich for function f: callees (outermost occurrences' subtrees merged
  // under one root) and callers (each outermost occurrence's callers,
  // inverted, weighted by the occurrence's total). Both roots are f.
  function sandwich(tree, f) {
    var nv = tree.self.length, diff = !!tree.baseSelf, func = tree.func, par = tree.parent;
    var callees = new TreeBuilder(nv, diff), callers = new TreeBuilder(nv, diff);
    var outer = [];
    var inside = outermost(tree, function (i) { return func[i] === f; }, function (i) { outer.push(i); });
    // callees: every node inside an outermost occurrence maps to a merged
    // node; the occurrence itself maps to the callees root's child 1 (f).
    var map = new Int32Array(tree.n).fill(-1), v;
    var froot = callees.child(0, f);
    for (var i = 1; i < tree.n; i++) {
      if (!inside[i]) continue;
      var m;
      if (func[i] === f && inside[par[i]] === 0) m = froot;
      else m = callees.child(map[par[i]], func[i]);
      map[i] = m;
      for (v = 0; v < nv; v++) {
        callees.self[v][m] += tree.self[v][i];
        if (diff) callees.base[v][m] += tree.baseSelf[v][i];
      }
    }
    var groot = callers.child(0, f);
    for (var k = 0; k < outer.length; k++) {
      var o = outer[k], node = groot;
      for (var j = par[o]; j > 0; j = par[j]) node = callers.child(node, func[j]);
      for (v = 0; v < nv; v++) {
        callers.self[v][node] += tree.total(v)[o];
        if (diff) callers.base[v][node] += tree.baseTotal(v)[o];
      }
    }
    return { callers: callers.build(), callees: callees.build(), occurrences: outer.length };
  }
  PK.sandwich = sandwich;

  // Finds a node by a path of function labels from the root (first match).
  PK.findPath = function (profile, tree, names) {
    var node = 0;
    for (var k = 0; k < names.length; k++) {
      var next = -1;
      for (var j = tree.kidStart[node]; j < tree.kidStart[node + 1]; j++) {
        var c = tree.kids[j];
        if (profile.funcLabel(tree.func[c]) === names[k]) { next = c; break; }
      }
      if (next < 0) break;
      node = next;
    }
    return node;
  };
  PK.pathNames = function (profile, tree, node) {
    return tree.path(node).map(function (i) { return profile.funcLabel(tree.func[i]); });
  };
})(typeof globalThis !== "undefined" ? (globalThis.profkit = globalThis.profkit || {}) : (this.profkit = this.profkit || {}));
