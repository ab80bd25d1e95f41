"use strict";
// The page's model: the data JSON (docs/viewer.md, schema 1) turned into
// typed arrays, and every computation the views share (totals, child order,
// inverted tree, sandwich, top functions, search share). No DOM here: the
// Node unit tests (tests/js/) load this file on its own.
(function (PK) {
  var ROOT_FUNC = -1, OTHER_FUNC = -2;
  // The clock of time budgets (the unit tests run without `performance`).
  var now = typeof performance !== "undefined" ? function () { return performance.now(); } : Date.now;
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
  // A diff's sizes: every node as wide as the larger of BASE and NEW. Each
  // node's own part is the larger of its two self values, and its width is
  // that summed bottom-up, so a node is at least as wide as each side's
  // total and its children fit inside it; a frame only in BASE keeps its
  // BASE size. Without a base: the totals.
  Tree.prototype.maxTotal = function (v) {
    if (!this.baseSelf) return this.total(v);
    this._maxTotal = this._maxTotal || [];
    if (this._maxTotal[v]) return this._maxTotal[v];
    var s = this.self[v], b = this.baseSelf[v], n = this.n, m = new Float64Array(n);
    for (var i = 0; i < n; i++) m[i] = s[i] > b[i] ? s[i] : b[i];
    return (this._maxTotal[v] = totals(this.parent, m));
  };
  // Children of every node, ordered by `key` ("width": widest first, ties by
  // name; "name": by name), for value type v (and "base" widths in diff).
  // Lazy: a node's children are sorted the first time a view asks for them
  // (order.kids(node)), so a draw sorts only what it shows. Cached per
  // (key, v, which).
  function Order(tree, key, tot, names) {
    var func = tree.func;
    this.ks = tree.kidStart;
    this.out = tree.kids.slice();
    this.done = new Uint8Array(tree.n);
    var nameOf = function (i) { return names(func[i]); };
    this.key = key;
    this.cmp = key === "name" ? function (x, y) { return cmpStr(nameOf(x), nameOf(y)) || tot[y] - tot[x]; }
                              : function (x, y) { return tot[y] - tot[x] || cmpStr(nameOf(x), nameOf(y)); };
  }
  // The sorted children array, with node i's range sorted.
  Order.prototype.kids = function (i) {
    if (this.done[i] === 0) this.sort(i);
    return this.out;
  };
  Order.prototype.sort = function (i) {
    this.done[i] = 1;
    var a = this.ks[i], b = this.ks[i + 1], out = this.out, cmp = this.cmp;
    if (b - a < 2) return;
    if (b - a <= 12) {                 // most nodes have a few children: insertion sort in place
      for (var p = a + 1; p < b; p++) {
        var x = out[p], q = p - 1;
        while (q >= a && cmp(out[q], x) > 0) { out[q + 1] = out[q]; q--; }
        out[q + 1] = x;
      }
      return;
    }
    var sub = Array.prototype.slice.call(out, a, b).sort(cmp);
    for (var j = 0; j < sub.length; j++) out[a + j] = sub[j];
  };
  Tree.prototype.lazyOrder = function (key, v, names, which) {
    var k = key + ":" + v + ":" + (which || "");
    if (!this._order[k]) this._order[k] = new Order(this, key, which === "base" ? this.baseTotal(v) : which === "max" ? this.maxTotal(v) : this.total(v), names);
    return this._order[k];
  };
  // The same, every node sorted: an Int32Array laid out like kids.
  Tree.prototype.order = function (key, v, names, which) {
    var o = this.lazyOrder(key, v, names, which);
    if (!o.all) { for (var i = 0; i < this.n; i++) if (o.done[i] === 0) o.sort(i); o.all = true; }
    return o.out;
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

  // A column of the page's timeline (docs/viewer.md, "timeline"): an array
  // of numbers as it is, or the page's string, base64 of unsigned LEB128
  // varints (zigzag when signed: 0, 1, 2, 3 ... are 0, -1, 1, -2 ...), into
  // n numbers (doubles: exact to 2^53, as JSON's numbers).
  function column(x, n, signed) {
    if (typeof x !== "string") return Float64Array.from(x || []);
    var b = atob(x), out = new Float64Array(n), k = 0, i = 0, len = b.length;
    while (k < n && i < len) {
      var c = b.charCodeAt(i++), v = c & 127;
      if (c & 128) {
        var m = 128;
        do { c = b.charCodeAt(i++); v += (c & 127) * m; m *= 128; } while (c & 128 && i < len);
      }
      out[k++] = signed ? (v % 2 ? -(v + 1) / 2 : v / 2) : v;
    }
    return out;
  }
  PK.column = column;

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
    // The data's label scopes (docs/viewer.md, "Labels") are no threads:
    // the label picker's (46_labels.js), kept apart.
    this.threads = (data.threads || []).filter(function (th) { return !th.label; });
    this.labelScopes = (data.threads || []).filter(function (th) { return !!th.label; });
    this._trees = [];
    this._inverted = [];
    this._inverting = [];
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
  // The inverted tree, built on first use, or in slices while the page is
  // idle (prepareInverted): step(until) works until then and says whether
  // it is done.
  Profile.prototype.inverted = function (t) {
    if (!this._inverted[t]) {
      var job = this._inverting[t] || new Inverter(this.tree(t), MIN_SHARE);
      this._inverted[t] = job.step(Infinity);
      this._inverting[t] = null;
    }
    return this._inverted[t];
  };
  Profile.prototype.invertedReady = function (t) { return !!this._inverted[t]; };
  // The inverted tree if it can be finished by `until` (performance.now()),
  // else what is built by then (Inverter.snapshot: tree.partial is true).
  // until in the past: no work, only what is built.
  Profile.prototype.invertedBy = function (t, until) {
    if (this._inverted[t]) return this._inverted[t];
    if (until > now() && this.prepareInverted(t, until)) return this._inverted[t];
    if (!this._inverting[t]) this._inverting[t] = new Inverter(this.tree(t), MIN_SHARE);
    var job = this._inverting[t];
    if (!job.snap || job.snapAt !== job.nn) { job.snap = job.snapshot(); job.snapAt = job.nn; }
    return job.snap;
  };
  Profile.prototype.prepareInverted = function (t, until) {
    if (this._inverted[t]) return true;
    if (!this._inverting[t]) this._inverting[t] = new Inverter(this.tree(t), MIN_SHARE);
    var done = this._inverting[t].step(until);
    if (done) { this._inverted[t] = done; this._inverting[t] = null; }
    return !!done;
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
  // of their next caller, so each inverted node is made once, by appending
  // (no lookup), with its totals summed as it is grouped. Inverted nodes
  // narrower than MIN_SHARE of the total in every value type are not
  // expanded: what lies above them goes to one "(other)" child, as the
  // data's own tree does (docs/viewer.md). A random 100,000-node tree has a
  // 2,000,000-node inverted tree otherwise.
  // The work is in small methods called once per inverted node (one large
  // function run once was deoptimized over and over, 5 times slower), and
  // it can be done in slices (step) while the page is idle.
  var MIN_SHARE = 0.00025;
  PK.MIN_SHARE = MIN_SHARE;
  // Every part of the work is bounded: the set-up runs in passes (one per
  // value type, then the entries, then the arrays), an expansion groups its
  // entries in chunks, and step() reads the clock between them, so a view
  // that may spend 20 ms on the tree spends about that (see snapshot).
  var CHUNK = 4096;
  function Inverter(tree, minShare) {
    this.src = tree; this.minShare = minShare;
    this.par = tree.parent; this.func = tree.func;
    this.nv = tree.self.length;
    this.w = tree.self.concat(tree.baseSelf ? tree.baseSelf : []);
    this.nw = this.w.length;
    this.whole = new Float64Array(this.nw);
    this.limit = new Float64Array(this.nw);
    this.setup = 0;                               // set-up passes done
    this.nn = 0;                                  // no node yet
    this.levels = 0;                              // levels fully expanded
    this.eAt = -1;                                // the expansion in progress: its next entry
    this.tree = null;
  }
  function sum(a, lo, hi) { var s = 0; for (var i = lo; i < hi; i++) s += a[i]; return s; }
  // One pass of the set-up; true when the set-up is done.
  Inverter.prototype.setupPass = function () {
    var n = this.src.n, nw = this.nw, i, q;
    if (this.setup < nw) {                        // the value type's sum and limit
      q = this.setup++;
      this.whole[q] = sum(this.w[q], 1, n);
      this.limit[q] = this.whole[q] * this.minShare;
      return false;
    }
    if (this.setup === nw) {                      // the entries: the nodes with a value
      var S = new Int32Array(n), w = this.w, func = this.func, ne = 0, nf = 3;
      for (i = 1; i < n; i++) {
        if (func[i] + 3 > nf) nf = func[i] + 3;
        for (q = 0; q < nw; q++) if (w[q][i] !== 0) { S[ne++] = i; break; }
      }
      this.ne = ne; this.nf = nf;
      this.S = S.subarray(0, ne); this.C = this.S.slice();
      this.setup++;
      return false;
    }
    var ne2 = this.ne, nf2 = this.nf;
    this.NS = new Int32Array(ne2); this.NC = new Int32Array(ne2);
    this.cap = Math.max(1024, 2 * ne2); this.nn = 1;
    this.oPar = new Int32Array(this.cap); this.oFunc = new Int32Array(this.cap); this.oW = [];
    // pW: a node's value while it waits to be expanded (what snapshot shows).
    this.pW = [];
    for (q = 0; q < nw; q++) { this.oW.push(new Float64Array(this.cap)); this.pW.push(new Float64Array(this.cap)); this.pW[q][0] = this.whole[q]; }
    this.oPar[0] = -1; this.oFunc[0] = ROOT_FUNC;
    this.head = new Int32Array(nf2).fill(-1); this.touched = new Int32Array(nf2); this.nt = 0;
    this.gsum = []; this.selfAcc = new Float64Array(nw);
    for (q = 0; q < nw; q++) this.gsum.push(new Float64Array(nf2));
    this.next = new Int32Array(ne2);
    // The queue of this level (q*) and of the next (r*): inverted nodes wide
    // enough to expand, and their entries lo..hi.
    this.qN = new Int32Array(ne2 + 1); this.qL = new Int32Array(ne2 + 1); this.qH = new Int32Array(ne2 + 1);
    this.rN = new Int32Array(ne2 + 1); this.rL = new Int32Array(ne2 + 1); this.rH = new Int32Array(ne2 + 1);
    this.qH[0] = ne2; this.nq = 1; this.at = 0;
    this.nr = 0; this.out = 0; this.roots = true;
    this.setup++;
    return true;
  };
  Inverter.prototype.node = function (p, f) {
    if (this.nn === this.cap) {
      var cap = this.cap *= 2;
      var a = new Int32Array(cap); a.set(this.oPar); this.oPar = a;
      var b = new Int32Array(cap); b.set(this.oFunc); this.oFunc = b;
      for (var r = 0; r < this.nw; r++) {
        var w = new Float64Array(cap); w.set(this.oW[r]); this.oW[r] = w;
        var pw = new Float64Array(cap); pw.set(this.pW[r]); this.pW[r] = pw;
      }
    }
    this.oPar[this.nn] = p; this.oFunc[this.nn] = f;
    return this.nn++;
  };
  Inverter.prototype.add = function (to, s) {
    for (var q = 0; q < this.nw; q++) this.oW[q][to] += this.w[q][s];
  };
  // One inverted node: its entries' next callers become its children. The
  // entries are grouped in chunks (from eAt), the clock read between them
  // when `until` is given; false when it stopped before the end (the node
  // is then still waiting: its self value is added at the end).
  Inverter.prototype.expand = function (at, lo, hi, until) {
    var roots = this.roots, nw = this.nw;
    var S = this.S, C = this.C, par = this.par, func = this.func, head = this.head, next = this.next;
    var touched = this.touched, nt = this.nt, e, q, acc = this.selfAcc, k = 0;
    if (this.eAt < 0) { this.eAt = lo; nt = 0; for (q = 0; q < nw; q++) acc[q] = 0; }
    for (e = this.eAt; e < hi; e++) {
      if (++k === CHUNK) {                        // a chunk done in this call: the clock
        k = 0;
        if (until !== Infinity && now() > until) { this.eAt = e; this.nt = nt; return false; }
      }
      var c = roots ? C[e] : par[C[e]], s = S[e];
      if (c <= 0) { for (q = 0; q < nw; q++) acc[q] += this.w[q][s]; continue; }   // the path ends here: self
      var g = func[c] + 2;
      if (head[g] === -1) { touched[nt++] = g; for (q = 0; q < nw; q++) this.gsum[q][g] = 0; }
      for (q = 0; q < nw; q++) this.gsum[q][g] += this.w[q][s];
      next[e] = head[g]; head[g] = e;
    }
    this.eAt = -1;
    for (q = 0; q < nw; q++) this.oW[q][at] += acc[q];
    var NS = this.NS, NC = this.NC, out = this.out;
    for (var t = 0; t < nt; t++) {
      var key = touched[t], child = this.node(at, key - 2), from = out, w = 0, x;
      for (q = 0; q < nw; q++) { var g = this.gsum[q][key]; if (g > 0 && g >= this.limit[q]) w = 1; }
      if (w) {
        for (q = 0; q < nw; q++) this.pW[q][child] = this.gsum[q][key];
        for (x = head[key]; x !== -1; x = next[x]) { NS[out] = S[x]; NC[out] = roots ? C[x] : par[C[x]]; out++; }
        this.rN[this.nr] = child; this.rL[this.nr] = from; this.rH[this.nr] = out; this.nr++;
      } else this.narrow(child, head[key], roots);
      head[key] = -1;
    }
    this.out = out;
    return true;
  };
  // A node too narrow to expand, made from the chain of entries at x: each
  // entry's value is its self (its path ends here) or its "(other)" child's.
  Inverter.prototype.narrow = function (child, x, roots) {
    var S = this.S, C = this.C, par = this.par, next = this.next, other = -1;
    for (; x !== -1; x = next[x]) {
      var cur = roots ? C[x] : par[C[x]];
      if (par[cur] <= 0) this.add(child, S[x]);
      else { if (other < 0) other = this.node(child, OTHER_FUNC); this.add(other, S[x]); }
    }
  };
  // Works until `until` (performance.now()) passes, or to the end when
  // until is Infinity. Returns the tree when done, else null.
  Inverter.prototype.step = function (until) {
    while (this.nn === 0) {
      var last = this.setupPass();
      if (!last && until !== Infinity && now() > until) return null;
    }
    var work = 0;
    while (this.nq > 0) {
      for (; this.at < this.nq; this.at++) {
        if (work > CHUNK && until !== Infinity) { if (now() > until) return null; work = 0; }
        var L = this.at;
        if (!this.expand(this.qN[L], this.qL[L], this.qH[L], until)) return null;
        work += this.qH[L] - this.qL[L] + 16;
      }
      var sw = this.S; this.S = this.NS; this.NS = sw; sw = this.C; this.C = this.NC; this.NC = sw;
      sw = this.qN; this.qN = this.rN; this.rN = sw; sw = this.qL; this.qL = this.rL; this.rL = sw;
      sw = this.qH; this.qH = this.rH; this.rH = sw;
      this.nq = this.nr; this.nr = 0; this.out = 0; this.at = 0; this.roots = false;
      this.levels++;
    }
    if (!this.tree) {
      var nn = this.nn, cut = function (a) { return a.slice(0, nn); }, self = [], base = this.nw > this.nv ? [] : null;
      for (var q = 0; q < this.nw; q++) (q < this.nv ? self : base).push(cut(this.oW[q]));
      this.tree = new Tree(cut(this.oPar), cut(this.oFunc), self, base);
    }
    return this.tree;
  };
  // What is built so far, as a tree of its own (for a view that cannot
  // wait for the rest): every node made so far, and each node still to be
  // expanded carries its entries' values as its self value. The totals of
  // every node shown are the whole tree's; only the callers above the
  // nodes still to expand are missing. Its nodes are the first nodes of the
  // whole tree, in the same order. Before the set-up is done: the root.
  Inverter.prototype.snapshot = function () {
    if (this.tree) return this.tree;
    var t, q;
    if (this.nn === 0) {
      var src = this.src, self = [], base = src.baseSelf ? [] : null;
      // The root's value: every node's but the data root's own.
      for (q = 0; q < this.nv; q++) self.push(new Float64Array([src.total(q)[0] - src.self[q][0]]));
      if (base) for (q = 0; q < this.nv; q++) base.push(new Float64Array([src.baseTotal(q)[0] - src.baseSelf[q][0]]));
      t = new Tree(new Int32Array([-1]), new Int32Array([ROOT_FUNC]), self, base);
    } else {
      var nn = this.nn, nw = this.nw, w = [], i;
      for (q = 0; q < nw; q++) w.push(this.oW[q].slice(0, nn));
      for (q = 0; q < nw; q++) {
        var a = w[q], pw = this.pW[q];
        for (i = this.at; i < this.nq; i++) a[this.qN[i]] += pw[this.qN[i]];
        for (i = 0; i < this.nr; i++) a[this.rN[i]] += pw[this.rN[i]];
      }
      t = new Tree(this.oPar.slice(0, nn), this.oFunc.slice(0, nn), w.slice(0, this.nv), this.nw > this.nv ? w.slice(this.nv) : null);
    }
    t.partial = true;
    t.levels = this.levels;
    return t;
  };
  PK.Inverter = Inverter;
  function invert(tree, minShare) {
    return new Inverter(tree, minShare === undefined ? MIN_SHARE : minShare).step(Infinity);
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

  // Per node, 1 when no ancestor has the same function (the node is an
  // outermost occurrence: recursion counts once there). Value-independent:
  // one depth-first walk per tree, on first use.
  Tree.prototype.outer = function () {
    if (this._outer) return this._outer;
    var func = this.func, n = this.n, ks = this.kidStart, kids = this.kids, nf = 3, i;
    for (i = 1; i < n; i++) if (func[i] + 3 > nf) nf = func[i] + 3;
    var out = new Uint8Array(n), onPath = new Int32Array(nf);
    var stack = new Int32Array(this.maxDepth + 2), it = new Int32Array(this.maxDepth + 2), sp = 0;
    stack[0] = 0; it[0] = ks[0];
    while (sp >= 0) {
      var node = stack[sp];
      if (it[sp] < ks[node + 1]) {
        var c = kids[it[sp]++], f = func[c] + 2;
        if (onPath[f] === 0) out[c] = 1;
        onPath[f]++;
        sp++; stack[sp] = c; it[sp] = ks[c];
      } else {
        if (node > 0) onPath[func[node] + 2]--;
        sp--;
      }
    }
    this._outer = out;
    this._nf = nf;
    return out;
  };
  // Each function's nodes, in node order: nodes[start[f + 2] .. start[f + 3]).
  Tree.prototype.funcNodes = function () {
    if (this._funcNodes) return this._funcNodes;
    this.outer();
    var nf = this._nf, func = this.func, n = this.n, start = new Int32Array(nf + 1), i;
    for (i = 1; i < n; i++) start[func[i] + 3]++;
    for (i = 0; i < nf; i++) start[i + 1] += start[i];
    var fill = start.slice(0, nf), nodes = new Int32Array(Math.max(0, n - 1));
    for (i = 1; i < n; i++) nodes[fill[func[i] + 2]++] = i;
    this._funcNodes = { start: start, nodes: nodes };
    return this._funcNodes;
  };

  // Top functions: per function, self (summed) and total (outermost
  // occurrences only: recursion counts once, as `profkit top` does).
  // "(other)" (frames merged for size) is no function: never a row. In a
  // diff each row has base and new values (which "diff": self/total are
  // NEW's, baseSelf/baseTotal BASE's, change the totals' difference).
  // Cached per tree, value type and which; callers sort copies.
  function topFunctions(tree, v, which) {
    var key = v + ":" + (which || "");
    tree._top = tree._top || {};
    if (tree._top[key]) return tree._top[key].map(function (r) { return Object.assign({}, r); });
    var rows;
    if (which === "diff" && tree.baseSelf) {
      var nw = topFunctions(tree, v, "new"), bs = topFunctions(tree, v, "base"), by = new Map();
      rows = [];
      nw.forEach(function (r) { var x = { func: r.func, self: r.self, total: r.total, baseSelf: 0, baseTotal: 0 }; by.set(r.func, x); rows.push(x); });
      bs.forEach(function (r) {
        var x = by.get(r.func);
        if (!x) { x = { func: r.func, self: 0, total: 0, baseSelf: 0, baseTotal: 0 }; by.set(r.func, x); rows.push(x); }
        x.baseSelf = r.self; x.baseTotal = r.total;
      });
      rows.forEach(function (r) { r.change = r.total - r.baseTotal; r.selfChange = r.self - r.baseSelf; });
    } else {
      var self = which === "base" ? tree.baseSelf[v] : tree.self[v];
      var tot = which === "base" ? tree.baseTotal(v) : tree.total(v);
      var outer = tree.outer(), nf = tree._nf, func = tree.func, n = tree.n, i;
      // Indexed by func + 2 ("(other)" is -2).
      var selfBy = new Float64Array(nf), totBy = new Float64Array(nf), seen = new Uint8Array(nf);
      for (i = 1; i < n; i++) {
        var f = func[i] + 2;
        selfBy[f] += self[i]; seen[f] = 1;
        if (outer[i]) totBy[f] += tot[i];
      }
      rows = [];
      for (var k = 2; k < nf; k++) if (seen[k] && (selfBy[k] || totBy[k])) rows.push({ func: k - 2, self: selfBy[k], total: totBy[k] });
    }
    tree._top[key] = rows;
    return rows.map(function (r) { return Object.assign({}, r); });
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
  // inverted, weighted by the occurrence's total). Both roots are f. Only
  // f's occurrences are visited (Tree.funcNodes), and their subtrees.
  function sandwich(tree, f) {
    var nv = tree.self.length, diff = !!tree.baseSelf, func = tree.func, par = tree.parent;
    var ks = tree.kidStart, kids = tree.kids, outerFlag = tree.outer(), fn = tree.funcNodes();
    var callees = new TreeBuilder(nv, diff), callers = new TreeBuilder(nv, diff);
    var outer = [], v, k;
    if (f + 2 >= 0 && f + 3 < fn.start.length)
      for (k = fn.start[f + 2]; k < fn.start[f + 3]; k++) if (outerFlag[fn.nodes[k]]) outer.push(fn.nodes[k]);
    var totals = [], baseTotals = [];
    for (v = 0; v < nv; v++) { totals.push(tree.total(v)); if (diff) baseTotals.push(tree.baseTotal(v)); }
    // callees: a walk of each outermost occurrence's subtree, every node
    // mapped to its merged node (the occurrence to the callees root's f).
    var froot = callees.child(0, f), sN = [], sM = [];
    for (k = 0; k < outer.length; k++) {
      sN.push(outer[k]); sM.push(froot);
      while (sN.length) {
        var i = sN.pop(), m = sM.pop();
        for (v = 0; v < nv; v++) {
          callees.self[v][m] += tree.self[v][i];
          if (diff) callees.base[v][m] += tree.baseSelf[v][i];
        }
        for (var j = ks[i]; j < ks[i + 1]; j++) { var c = kids[j]; sN.push(c); sM.push(callees.child(m, func[c])); }
      }
    }
    var groot = callers.child(0, f);
    for (k = 0; k < outer.length; k++) {
      var o = outer[k], node = groot;
      for (var q = par[o]; q > 0; q = par[q]) node = callers.child(node, func[q]);
      for (v = 0; v < nv; v++) {
        callers.self[v][node] += totals[v][o];
        if (diff) callers.base[v][node] += baseTotals[v][o];
      }
    }
    return { callers: callers.build(), callees: callees.build(), occurrences: outer.length };
  }
  PK.sandwich = sandwich;

  // The stack chart's boxes, once per thread: for each depth d (1 = the
  // root's children), the boxes in time order (start, end, node), where
  // consecutive sample runs that share the frame at depth d make one box.
  // A draw then looks at the visible time range only (binary search per
  // depth), whatever the zoom. Two passes over the runs (count, then fill
  // arrays of the exact size). Returns {depth, count, start, end, node}:
  // count and the arrays per depth (index 0 unused).
  function stackTiming(tree, samples) {
    var D = tree.maxDepth, count = new Int32Array(D + 2);
    var maxUsed = stackPass(tree, samples, count, null, null, null);
    var bs = [], be = [], bn = [];
    for (var d = 0; d <= D + 1; d++) { bs.push(new Float64Array(count[d])); be.push(new Float64Array(count[d])); bn.push(new Int32Array(count[d])); }
    stackPass(tree, samples, new Int32Array(D + 2), bs, be, bn);
    return { depth: maxUsed, count: count, start: bs, end: be, node: bn };
  }
  // One pass over the runs: counts the boxes per depth, and fills bs/be/bn
  // when given. Returns the deepest depth used.
  function stackPass(tree, samples, count, bs, be, bn) {
    var start = samples.start, runNode = samples.node, n = start.length, D = tree.maxDepth;
    var par = tree.parent, depthOf = tree.depth, k, d;
    var open = new Int32Array(D + 2), openAt = new Float64Array(D + 2), top = 0, path = new Int32Array(D + 2), maxUsed = 0;
    for (var i = 0; i < n; i++) {
      // Climb from the run's node only until the open boxes agree: the
      // next run's stack mostly shares the last one's.
      var np = 0, x = runNode[i], dx = depthOf[x];
      while (dx > top) { path[np++] = x; x = par[x]; dx--; }
      while (dx > 0 && open[dx] !== x) { path[np++] = x; x = par[x]; dx--; }
      var t = start[i];
      for (d = top; d > dx; d--) {          // close the boxes above the shared part
        k = count[d]++;
        if (bs) { bs[d][k] = openAt[d]; be[d][k] = t; bn[d][k] = open[d]; }
      }
      top = dx;
      while (np > 0) { top++; open[top] = path[--np]; openAt[top] = t; }
      if (top > maxUsed) maxUsed = top;
    }
    for (d = top; d >= 1; d--) {
      k = count[d]++;
      if (bs) { bs[d][k] = openAt[d]; be[d][k] = samples.end; bn[d][k] = open[d]; }
    }
    return maxUsed;
  }
  PK.stackTiming = stackTiming;

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
