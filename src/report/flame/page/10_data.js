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
    var cmp = key === "name" ? function (x, y) { return cmpStr(nameOf(x), nameOf(y)) || tot[y] - tot[x]; }
                             : function (x, y) { return tot[y] - tot[x] || cmpStr(nameOf(x), nameOf(y)); };
    for (var i = 0; i < this.n; i++) {
      var a = ks[i], b = ks[i + 1];
      if (b - a < 2) continue;
      if (b - a <= 12) {               // most nodes have a few children: insertion sort in place
        for (var p = a + 1; p < b; p++) {
          var x = out[p], q = p - 1;
          while (q >= a && cmp(out[q], x) > 0) { out[q + 1] = out[q]; q--; }
          out[q + 1] = x;
        }
        continue;
      }
      var sub = Array.prototype.slice.call(out, a, b).sort(cmp);
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

  // Builds a tree by adding children: child(node, func) finds or makes the
  // node. Typed arrays that double as they fill, and an open-addressing
  // hash of (node, func) pairs: a Map keyed by numbers past 2^31 was 50x
  // slower on the inverted tree of 100,000 nodes.
  function TreeBuilder(nv, diff) {
    this.nv = nv;
    this.n = 1;
    this.cap = 1024;
    this.parentA = new Int32Array(this.cap); this.parentA[0] = -1;
    this.funcA = new Int32Array(this.cap); this.funcA[0] = ROOT_FUNC;
    this.self = []; this.base = diff ? [] : null;
    for (var v = 0; v < nv; v++) { this.self.push(new Float64Array(this.cap)); if (diff) this.base.push(new Float64Array(this.cap)); }
    this.hcap = 2048;
    this.hkey = new Int32Array(this.hcap).fill(-1);  // the node of each slot (-1 empty); its func is funcA[child]
    this.hval = new Int32Array(this.hcap);
  }
  function slot(node, f, mask) {
    var h = Math.imul(node, 0x27d4eb2d) ^ (f + 3);   // mixed well, so linear probing stays short
    h = Math.imul(h ^ (h >>> 15), 0x85ebca6b);
    h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
    return ((h ^ (h >>> 16)) >>> 0) & mask;
  }
  TreeBuilder.prototype.grow = function () {
    var cap = this.cap * 2, v;
    var np = new Int32Array(cap); np.set(this.parentA); this.parentA = np;
    var nf = new Int32Array(cap); nf.set(this.funcA); this.funcA = nf;
    for (v = 0; v < this.nv; v++) {
      var ns = new Float64Array(cap); ns.set(this.self[v]); this.self[v] = ns;
      if (this.base) { var nb = new Float64Array(cap); nb.set(this.base[v]); this.base[v] = nb; }
    }
    this.cap = cap;
  };
  TreeBuilder.prototype.rehash = function () {
    var hcap = this.hcap * 2, mask = hcap - 1, key = new Int32Array(hcap).fill(-1), val = new Int32Array(hcap);
    for (var c = 1; c < this.n; c++) {
      var h = slot(this.parentA[c], this.funcA[c], mask);
      while (key[h] !== -1) h = (h + 1) & mask;
      key[h] = this.parentA[c]; val[h] = c;
    }
    this.hcap = hcap; this.hkey = key; this.hval = val;
  };
  TreeBuilder.prototype.child = function (node, f) {
    var mask = this.hcap - 1, h = slot(node, f, mask), key = this.hkey, val = this.hval, fa = this.funcA;
    while (key[h] !== -1) {
      if (key[h] === node && fa[val[h]] === f) return val[h];
      h = (h + 1) & mask;
    }
    var c = this.n++;
    if (c >= this.cap) { this.grow(); fa = this.funcA; }
    this.parentA[c] = node;
    fa[c] = f;
    key[h] = node; val[h] = c;
    if (this.n * 2 > this.hcap) this.rehash();
    return c;
  };
  TreeBuilder.prototype.build = function () {
    var n = this.n;
    var cut = function (a) { return a.slice(0, n); };
    return new Tree(cut(this.parentA), cut(this.funcA), this.self.map(cut), this.base ? this.base.map(cut) : null);
  };
  PK.TreeBuilder = TreeBuilder;

  // The inverted (bottom-up) tree: each root is a function where value is
  // spent (self), its children are its callers. Built level by level: every
  // node with a self value is an entry (its start node, and where its path
  // has climbed to); an inverted node's entries are grouped by the function
  // of their next caller. Inverted nodes narrower than MIN_SHARE of the
  // total in every value type are not expanded: what lies above them goes to
  // one "(other)" child, as the data's own tree does (docs/viewer.md). A
  // random 100,000-node tree has a 2,000,000-node inverted tree otherwise.
  var MIN_SHARE = 0.00025;
  PK.MIN_SHARE = MIN_SHARE;
  function invert(tree, minShare) {
    if (minShare === undefined) minShare = MIN_SHARE;
    var nv = tree.self.length, diff = !!tree.baseSelf, b = new TreeBuilder(nv, diff);
    var n = tree.n, par = tree.parent, func = tree.func, v, i;
    var weights = tree.self.concat(diff ? tree.baseSelf : []), nw = weights.length;
    var limit = weights.map(function (w) { var s = 0; for (var k = 1; k < w.length; k++) s += w[k]; return s * minShare; });
    var start = [], cur = [];
    for (i = 1; i < n; i++) {
      for (v = 0; v < nw; v++) if (weights[v][i]) { start.push(i); cur.push(i); break; }
    }
    var nf = 3;
    for (i = 1; i < n; i++) if (func[i] + 3 > nf) nf = func[i] + 3;
    var head = new Int32Array(nf).fill(-1), touched = [];
    var add = function (node, s, w) {
      for (var q = 0; q < nw; q++) {
        if (q < nv) b.self[q][node] += weights[q][s]; else b.base[q - nv][node] += weights[q][s];
      }
    };
    var S = Int32Array.from(start), C = Int32Array.from(cur);
    var queue = [[0, 0, S.length, true]];   // [inverted node, lo, hi, entries are at their own node (roots level)]
    var next = new Int32Array(S.length);
    while (queue.length) {
      var level = queue; queue = [];
      var NS = new Int32Array(S.length), NC = new Int32Array(S.length), out = 0;
      for (var L = 0; L < level.length; L++) {
        var node = level[L][0], lo = level[L][1], hi = level[L][2], roots = level[L][3];
        // Expand? (the root always; others when wide enough in some value type)
        var wide = node === 0;
        if (!wide) {
          for (v = 0; v < nw && !wide; v++) {
            var sum = 0; for (var e = lo; e < hi; e++) sum += weights[v][S[e]];
            if (sum > 0 && sum >= limit[v]) wide = true;
          }
        }
        touched.length = 0;
        var other = -1;
        for (var e2 = lo; e2 < hi; e2++) {
          var c = roots ? C[e2] : par[C[e2]];
          if (c <= 0) { add(node, S[e2], 0); continue; }         // the path ends here: self
          if (!wide) { if (other < 0) other = b.child(node, OTHER_FUNC); add(other, S[e2], 0); continue; }
          var k = func[c] + 2;
          if (head[k] === -1) touched.push(k);
          next[e2] = head[k]; head[k] = e2;
        }
        for (var t = 0; t < touched.length; t++) {
          var key = touched[t], child = b.child(node, key - 2), from = out;
          // The chain is in reverse entry order; order does not matter for sums.
          for (var x = head[key]; x !== -1; x = next[x]) { NS[out] = S[x]; NC[out] = roots ? C[x] : par[C[x]]; out++; }
          head[key] = -1;
          queue.push([child, from, out, false]);
        }
      }
      S = NS; C = NC;
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
    var func = tree.func, n = tree.n, nf = 0, i;
    for (i = 1; i < n; i++) if (func[i] + 3 > nf) nf = func[i] + 3;
    // Indexed by func + 2 ("(other)" is -2).
    var selfBy = new Float64Array(nf), totBy = new Float64Array(nf), seen = new Uint8Array(nf);
    for (i = 1; i < n; i++) { selfBy[func[i] + 2] += self[i]; seen[func[i] + 2] = 1; }
    // A node counts in its function's total unless an ancestor has the same
    // function: a depth-first walk with per-function counts on the path.
    var onPath = new Int32Array(nf), ks = tree.kidStart, kids = tree.kids;
    var stack = new Int32Array(tree.maxDepth + 2), it = new Int32Array(tree.maxDepth + 2), sp = 0;
    stack[0] = 0; it[0] = ks[0];
    while (sp >= 0) {
      var node = stack[sp];
      if (it[sp] < ks[node + 1]) {
        var c = kids[it[sp]++], f = func[c] + 2;
        if (onPath[f] === 0) totBy[f] += tot[c];
        onPath[f]++;
        sp++; stack[sp] = c; it[sp] = ks[c];
      } else {
        if (node > 0) onPath[func[node] + 2]--;
        sp--;
      }
    }
    var rows = [];
    for (var k = 0; k < nf; k++) if (seen[k] && (selfBy[k] || totBy[k])) rows.push({ func: k - 2, self: selfBy[k], total: totBy[k] });
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
