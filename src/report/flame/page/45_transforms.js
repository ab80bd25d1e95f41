"use strict";
// Transforms (docs/transforms.md, docs/viewer.md "Transforms"): an ordered
// stack of steps that reshape every view's tree, with the meaning of the
// command line's flags of the same names (src/analysis/transform.c):
// merge, merge-node, root-at, focus-subtree, collapse-recursion,
// collapse-direct-recursion, collapse-module, and pprof's filters --focus,
// --ignore, --hide, --show, --show-from and --prune-from (src/analysis/
// filter.c). The command line applies pprof's filters as one step at the
// place of the first filter flag, each flag's last pattern winning; the
// page applies its stack the same way (effectiveSteps()), so the command
// it shows gives the view it shows. Its "drop" and "hide" steps join into
// one pattern each (dropping or hiding a then b is dropping or hiding
// a|b).
//
// Each step maps the nodes of a tree (parents before children) onto the
// nodes of a new one, as transform.c maps stacks: a node's new node is
// made from its parent's new node and its own function. The page's trees
// are by function (a node per path of functions), so a step on the tree
// is the step on every sample's stack.
//
// The DOM part (context menu, keys, breadcrumb, command box, URL) is
// installed on the App when 50_app.js defines it (PK.appHooks).
(function (PK) {
  var Profile = PK.Profile, TreeBuilder = PK.TreeBuilder, ROOT_FUNC = PK.ROOT_FUNC;
  var DROP = -1;

  // kind: [flag, label in the breadcrumb, key, by call node]
  var KINDS = {
    "merge": ["--merge", "Merge", "m", false],
    "merge-node": ["--merge-node", "Merge node", "M", true],
    "root-at": ["--root-at", "Focus function", "F", false],
    "focus-subtree": ["--focus-subtree", "Focus subtree", "f", true],
    "focus-category": ["--focus-category", "Focus category", "c", false],
    "collapse-recursion": ["--collapse-recursion", "Collapse recursion", "r", false],
    "collapse-direct-recursion": ["--collapse-direct-recursion", "Collapse direct recursion", "R", false],
    "collapse-module": ["--collapse-module", "Collapse", "C", false],
    "focus": ["--focus", "Focus (pprof)", "", false],
    "ignore": ["--ignore", "Drop", "d", false],
    "hide": ["--hide", "Hide", "h", false],
    "show": ["--show", "Show only", "", false],
    "show-from": ["--show-from", "Show from", "s", false],
    "prune-from": ["--prune-from", "Prune from", "p", false]
  };
  PK.TRANSFORM_KINDS = KINDS;
  var FILTERS = { focus: 1, ignore: 1, hide: 1, show: 1, "show-from": 1, "prune-from": 1 };
  var FILTER_ORDER = ["focus", "ignore", "hide", "show", "show-from", "prune-from"];

  // A name as a regular expression matching it whole (POSIX ERE and
  // JavaScript read it the same).
  PK.exactRe = function (name) { return "^" + name.replace(/[.[\](){}*+?|^$\\]/g, "\\$&") + "$"; };

  // The steps as the command line applies them: the filter flags (the last
  // of each kind; the page joins its "drop" steps into one pattern) as one
  // step at the place of the first.
  PK.effectiveSteps = function (steps) {
    var out = [], filt = null;
    steps.forEach(function (s) {
      if (!FILTERS[s.kind]) { out.push(s); return; }
      if (!filt) { filt = { kind: "filter" }; out.push(filt); }
      if ((s.kind === "ignore" || s.kind === "hide") && filt[s.kind] !== undefined) filt[s.kind] = "(" + filt[s.kind] + ")|(" + s.arg + ")";
      else filt[s.kind] = s.arg;
    });
    return out;
  };
  // The command-line flags of a stack, in order, as argv.
  PK.transformArgs = function (steps) {
    var args = [];
    PK.effectiveSteps(steps).forEach(function (s) {
      if (s.kind === "filter") {
        FILTER_ORDER.forEach(function (k) { if (s[k] !== undefined) args.push(KINDS[k][0], s[k]); });
      } else args.push(KINDS[s.kind][0], s.arg);
    });
    return args;
  };

  // The stack in the URL: "kind:arg" joined by ";" (";" and "\" escaped).
  PK.encodeSteps = function (steps) { return PK.joinPath(steps.map(function (s) { return s.kind + ":" + s.arg; })); };
  PK.decodeSteps = function (text) {
    var out = [];
    PK.splitPath(text || "").forEach(function (x) {
      var c = x.indexOf(":"), kind = c < 0 ? "" : x.slice(0, c);
      if (KINDS[kind]) out.push({ kind: kind, arg: x.slice(c + 1) });
    });
    return out;
  };

  // A function added by a step (a module's collapsed frame): one per
  // name and module, as the library's functions are.
  Profile.prototype.addFunc = function (name, module) {
    var key = name + "\u0000" + module;
    this._added = this._added || new Map();
    if (this._added.has(key)) return this._added.get(key);
    var str = function (p, s) { p.strings.push(s); return p.strings.length - 1; };
    var fi = this.funcName.length;
    this.funcName.push(str(this, name));
    this.funcFile.push(0);
    this.funcLine.push(0);
    this.funcModule.push(str(this, module));
    this._added.set(key, fi);
    return fi;
  };
  // The module a function's frames collapse by: its module, else its file
  // (the page holds no mappings).
  Profile.prototype.funcModuleName = function (fi) {
    if (fi < 0) return "";
    return this.str(this.funcModule[fi]) || this.str(this.funcFile[fi]);
  };

  // Per node of tree t, its category (1 + index into data.categories.names,
  // 0 = none), by the Firefox Profiler's call-node rule: the category of
  // the stacks that reach the node (a stack's is its frame's, else its
  // caller's, at the root the default one), the default one where they
  // disagree. A timed thread's tree (whole or of a range) has it from its
  // samples (timeline.node_category); a transformed tree from the tree it
  // was made of (a new node: its old nodes of the same function, else all
  // its old nodes, by the same rule). Else, with no stacks to look at (the
  // merged tree, untimed threads): each function's category (its first
  // frame's), else its caller's.
  Profile.prototype.nodeCategories = function (t) {
    if (t._cats) return t._cats;
    var C = this.data.categories, n = t.n, out = new Uint16Array(n), i;
    if (!C) return out;
    var def = (C["default"] | 0) + 1;
    if (t.xfFrom) {
      var src = this.nodeCategories(t.xfFrom), map = t.nodeMap, sf = t.xfFrom.func, set = new Uint8Array(n);
      for (var pass = 0; pass < 2; pass++)
        for (i = 1; i < map.length; i++) {
          var x = map[i];
          if (x <= 0 || (pass === 0 ? sf[i] !== t.func[x] : set[x] !== 0) || !src[i]) continue;
          if (set[x] === 0) { set[x] = pass + 1; out[x] = src[i]; } else if (out[x] !== src[i]) out[x] = def;
        }
      for (i = 1; i < n; i++) if (!out[i]) out[i] = t.parent[i] > 0 ? out[t.parent[i]] : def;
      return (t._cats = out);
    }
    for (var th = 0; th < this.threads.length; th++) {
      if (this.threads[th].merged || !this.timeline) continue;
      var tl = this.timeline(th);
      if (tl && tl.nodeCategory && tl.nodeCategory.length === n && this.wholeTree(th).parent === t.parent) {
        for (i = 1; i < n; i++) out[i] = tl.nodeCategory[i] || (t.parent[i] > 0 ? out[t.parent[i]] : def);
        return (t._cats = out);
      }
    }
    var fc = C.func || [];
    for (i = 1; i < n; i++) {
      var f = t.func[i], c = f >= 0 && f < fc.length ? fc[f] | 0 : 0;
      out[i] = c || (t.parent[i] > 0 ? out[t.parent[i]] : def);
    }
    return (t._cats = out);
  };

  function regex(text) {
    try { return new RegExp(text); } catch (e) { throw new Error("transform: bad regular expression '" + text + "': " + e.message); }
  }
  // Per function (index f + 2): 1 when its label matches re (computed once).
  function matcher(p, re) {
    var memo = new Map();
    return function (f) {
      var m = memo.get(f);
      if (m === undefined) { m = re.test(p.funcLabel(f)); memo.set(f, m); }
      return m;
    };
  }
  function splitCallPath(text) {
    var k = text.split(";");
    if (!text || k.some(function (x) { return !x; })) throw new Error("transform: bad call path '" + text + "'");
    return k;
  }

  // One step on tree t: the new tree.
  function applyStep(p, t, s) {
    var n = t.n, par = t.parent, func = t.func, nv = t.self.length, diff = !!t.baseSelf;
    var b = new TreeBuilder(nv, diff), nm = new Int32Array(n), i, v;
    // A node of no value (in every value type, both sides of a diff) is
    // left out: nothing of it would show.
    var live = new Uint8Array(n);
    for (v = 0; v < nv; v++) {
      var tot = t.total(v), bt = diff ? t.baseTotal(v) : null;
      for (i = 0; i < n; i++) if (tot[i] !== 0 || (bt && bt[i] !== 0)) live[i] = 1;
    }
    var label = function (i) { return p.funcLabel(func[i]); };
    nm[0] = 0;
    var k = s.kind, match = null, comp = null, m = null, inF = null, dropRoot = false;
    if (k === "filter") return filterStep(p, t, s, b, live);
    if (k === "focus-category") {
      // Each node's category: its function's, else its caller's, at the
      // root the default one; only the frames of the wanted one stay, and
      // the samples left with none go (transform.c, the Firefox Profiler's).
      var C = p.data.categories, want = C ? C.names.indexOf(s.arg) + 1 : 0;
      if (!want) throw new Error("focus-category: no category named '" + s.arg + "'" + (C ? " (the profile's: " + C.names.join(", ") + ")" : " (this profile has none)"));
      var cat = p.nodeCategories(t);
      for (i = 1; i < n; i++) {
        var q = nm[par[i]];
        nm[i] = !live[i] || q === DROP ? DROP : cat[i] !== want ? q : b.child(q, func[i]);
      }
      for (i = 1; i < n; i++) if (nm[i] === 0) nm[i] = DROP;
      nm[0] = DROP;
      return finish(b, t, nm, null);
    }
    if (k === "merge-node" || k === "focus-subtree") { comp = splitCallPath(s.arg); m = new Int32Array(n); }
    else match = matcher(p, regex(s.arg));
    if (k === "root-at" || k === "focus-subtree") { inF = new Uint8Array(n); dropRoot = true; }
    var outerAt = null;
    if (k === "collapse-recursion") outerAt = outerSame(t, match);
    var modFunc = null;
    if (k === "collapse-module") {
      var re = regex(s.arg), memo = new Map();
      modFunc = function (f) {
        var r = memo.get(f);
        if (r !== undefined) return r;
        var mod = p.funcModuleName(f);
        r = -3;
        if (mod && re.test(mod)) {
          var slash = mod.lastIndexOf("/");
          r = p.addFunc(slash >= 0 && slash + 1 < mod.length ? mod.slice(slash + 1) : mod, mod);
        }
        memo.set(f, r);
        return r;
      };
    }
    for (i = 1; i < n; i++) {
      var pp = par[i], np = nm[pp], f = func[i], out = DROP;
      if (!live[i]) { nm[i] = DROP; if (m) m[i] = -1; continue; }
      if (k === "merge") {
        out = np === DROP ? DROP : match(f) ? np : b.child(np, f);
      } else if (k === "merge-node") {
        var mp = m[pp];
        m[i] = mp >= 0 && mp < comp.length && label(i) === comp[mp] ? mp + 1 : -1;
        out = np === DROP ? DROP : m[i] === comp.length ? np : b.child(np, f);
      } else if (k === "root-at") {
        if (inF[pp]) { inF[i] = 1; out = b.child(np, f); }
        else if (match(f)) { inF[i] = 1; out = b.child(0, f); }
      } else if (k === "focus-subtree") {
        var mq = m[pp];
        m[i] = mq >= 0 && mq < comp.length && label(i) === comp[mq] ? mq + 1 : -1;
        if (inF[pp]) { inF[i] = 1; out = b.child(np, f); }
        else if (m[i] === comp.length) { inF[i] = 1; out = b.child(0, f); }
      } else if (k === "collapse-recursion") {
        out = np === DROP ? DROP : outerAt[i] >= 0 ? nm[outerAt[i]] : b.child(np, f);
      } else if (k === "collapse-direct-recursion") {
        out = np === DROP ? DROP : np !== 0 && match(f) && b.funcA[np] === f ? np : b.child(np, f);
      } else if (k === "collapse-module") {
        if (np !== DROP) {
          var cf = modFunc(f);
          out = cf === -3 ? b.child(np, f) : np !== 0 && b.funcA[np] === cf ? np : b.child(np, cf);
        }
      }
      nm[i] = out;
    }
    if (dropRoot) nm[0] = DROP;
    return finish(b, t, nm, null);
  }
  // pprof's filters as one step, in filter.c's order on each sample's
  // stack: focus/ignore keep or drop the sample (one without a frame goes
  // under either); hide/show take frames out
  // (a sample left with none goes); show-from cuts the callers above the
  // outermost match (a sample without one goes); prune-from cuts the
  // callees below the innermost match. Per old node: rep, the old node
  // whose new node its frame's path ends at (0: none); at, where its own
  // value goes (-1: dropped). Only the new nodes some value reaches are made.
  function filterStep(p, t, s, b, live) {
    var n = t.n, par = t.parent, func = t.func, nv = t.self.length, i, v;
    var M = function (x) { return s[x] !== undefined ? matcher(p, regex(s[x])) : null; };
    var fm = M("focus"), im = M("ignore"), hm = M("hide"), sm = M("show"), sfm = M("show-from"), pfm = M("prune-from");
    var hasF = new Uint8Array(n), hasI = new Uint8Array(n), started = new Uint8Array(n), made = new Uint8Array(n);
    var rep = new Int32Array(n), pf = new Int32Array(n), at = new Int32Array(n), need = new Uint8Array(n);
    started[0] = sfm ? 0 : 1; pf[0] = -1;
    for (i = 1; i < n; i++) {
      var pa = par[i], f = func[i];
      hasF[i] = hasF[pa] || (fm && fm(f)) ? 1 : 0;
      hasI[i] = hasI[pa] || (im && im(f)) ? 1 : 0;
      var kept = !(hm && hm(f)) && !(sm && !sm(f));
      started[i] = started[pa] || (kept && sfm && sfm(f)) ? 1 : 0;
      made[i] = kept && started[i] ? 1 : 0;
      rep[i] = made[i] ? i : rep[pa];
      pf[i] = made[i] && pfm && pfm(f) ? i : pf[pa];
    }
    for (i = 0; i < n; i++) {
      var own = false;
      for (v = 0; v < nv && !own; v++) if (t.self[v][i] !== 0 || (t.baseSelf && t.baseSelf[v][i] !== 0)) own = true;
      var ok = live[i] && (!fm || hasF[i]) && !hasI[i] && started[i], to = pf[i] >= 0 ? pf[i] : rep[i];
      if (ok && (hm || sm) && to === 0) ok = false;
      // a sample without a frame (the root's own value) matches no focus
      // and, as pprof's focus/ignore test has it, is dropped by an ignore too
      if (ok && im && i === 0) ok = false;
      at[i] = ok ? to : -1;
      if (ok && own) for (var x = to; x > 0 && !need[x]; x = rep[par[x]]) need[x] = 1;
    }
    var nm = new Int32Array(n);
    for (i = 1; i < n; i++) nm[i] = made[i] && need[i] ? b.child(nm[rep[par[i]]], func[i]) : DROP;
    for (i = 0; i < n; i++) at[i] = at[i] < 0 ? DROP : nm[at[i]];
    return finish(b, t, at, null);
  }
  // collapse-recursion: per node, the outermost ancestor of the same
  // function when the node's function matches (-1: none, or no match).
  function outerSame(t, match) {
    var n = t.n, func = t.func, ks = t.kidStart, kids = t.kids, out = new Int32Array(n).fill(-1);
    var active = new Map(), stack = [0], it = [ks[0]];
    while (stack.length) {
      var top = stack.length - 1, node = stack[top];
      if (it[top] < ks[node + 1]) {
        var c = kids[it[top]++], f = func[c];
        if (match(f)) {
          var a = active.get(f);
          if (a === undefined) active.set(f, c); else out[c] = a;
        }
        stack.push(c); it.push(ks[c]);
      } else {
        stack.pop(); it.pop();
        if (node > 0 && active.get(func[node]) === node) active.delete(func[node]);
      }
    }
    return out;
  }
  // The new tree: each old node's self values go to its new node (own:
  // only the nodes it marks, for the filter step).
  // The new tree's nodeMap: per old node, the new node its own value went
  // to (DROP: none), for the stack chart's samples.
  function finish(b, t, nm, own) {
    var nv = t.self.length, map = new Int32Array(t.n);
    for (var i = 0; i < t.n; i++) {
      var to = nm[i];
      if (own && !own[i]) to = DROP;
      map[i] = to;
      if (to === DROP) continue;
      for (var v = 0; v < nv; v++) {
        b.self[v][to] += t.self[v][i];
        if (b.base) b.base[v][to] += t.baseSelf[v][i];
      }
    }
    var out = b.build();
    out.nodeMap = map;
    out.xfFrom = t;
    return out;
  }
  // The stack's steps applied to tree t, in the command line's order.
  // The result's nodeMap: per node of t, its node in the result (DROP: its
  // samples are dropped).
  PK.applyTransforms = function (p, t, steps) {
    var map = null, t0 = t;
    PK.effectiveSteps(steps).forEach(function (s) {
      t = applyStep(p, t, s);
      if (!map) map = Int32Array.from(t.nodeMap);
      else for (var i = 0; i < map.length; i++) if (map[i] !== DROP) map[i] = t.nodeMap[map[i]];
    });
    if (map) { t._cats = p.nodeCategories(t); t.nodeMap = map; t.xfFrom = t0; }
    return t;
  };

  // Every view's tree is the transformed one (the range's tree first, as
  // the command line filters by time before it transforms); the stack
  // chart's is the whole tree transformed (stackTree: its nodeMap takes
  // the samples' nodes to the new ones).
  // baseTree: the tree the steps apply to (the range's, 12_time.js; under
  // a label pick its label view, 46_labels.js, which applies the steps
  // before the label options' place itself, as the command line orders
  // them).
  Profile.prototype.baseTree = Profile.prototype.tree;
  Profile.prototype.rangeTree = Profile.prototype.tree;   // before labels and transforms
  Profile.prototype.tree = function (t) {
    if (!this.xfSteps || !this.xfSteps.length || this._xfOff) return this.baseTree(t);
    var key = (this._rangeKey || "") + "|" + (this.labelKey || "") + "|" + this.xfKey;
    if (this._xfKey !== key) { this._xfKey = key; this._xfTrees = []; }
    if (this._xfTrees[t]) return this._xfTrees[t];
    this._xfOff = true;
    var base;
    try { base = this.baseTree(t); } finally { this._xfOff = false; }
    var out;
    try { out = PK.applyTransforms(this, base, this.xfSteps); }
    catch (e) { this.xfError = e.message; out = base; }
    if (base.range) out.range = base.range;
    this._xfTrees[t] = out;
    return out;
  };
  // The stack chart's tree of thread t: its whole tree transformed, with
  // nodeMap (per whole-tree node, its node here or -1: dropped).
  Profile.prototype.stackTree = function (t) {
    var whole = this.wholeTree(t);
    if (!this.xfSteps || !this.xfSteps.length) return whole;
    this._xfStack = this._xfStack && this._xfStack.key === this.xfKey ? this._xfStack : { key: this.xfKey, trees: [] };
    var c = this._xfStack.trees[t];
    if (c && c.whole === whole) return c.tree;
    var out;
    try { out = PK.applyTransforms(this, whole, this.xfSteps); }
    catch (e) { this.xfError = e.message; out = whole; }
    if (out !== whole) out.source = whole;
    this._xfStack.trees[t] = { whole: whole, tree: out };
    return out;
  };
  // Sets the stack (its URL text); the trees made from another one go.
  Profile.prototype.setTransforms = function (text) {
    text = text || "";
    if (text === (this.xfKey || "")) return false;
    this.xfKey = text;
    this.xfSteps = PK.decodeSteps(text);
    this.xfError = "";
    this._inverted = [];
    this._inverting = [];
    return true;
  };

  // query("top") under transforms: top's whole total is the total before
  // them (of the range shown), as the command line notes it.
  var queryTop = PK.queryTop;
  if (queryTop) PK.queryTop = function (p, t, v, opts) {
    var res = queryTop(p, t, v, opts);
    if (!p.xfSteps || !p.xfSteps.length) return res;
    p._xfOff = true;
    var whole;
    try { whole = p.tree(t).total(v)[0]; } finally { p._xfOff = false; }
    var out = {};
    for (var k in res) if (k !== "whole_total" && k !== "rows") out[k] = res[k];
    out.whole_total = whole;
    out.rows = res.rows;
    return out;
  };

  // The total a table's percentages are of (model m of the thread shown,
  // own: its tree's total): as the command line's, the whole profile's
  // (of the range shown: before the label pick and the transforms), or with
  // "relative" (--relative) what is left. A table of another tree (the
  // memory table, a sandwich's callers) keeps its own.
  PK.percentBase = function (m, own) {
    var app = PK.app, p = m.profile;
    if (!app || !app.state || app.p !== p || p.diff || app.state.rel) return own;
    var t = app.state.thread;
    if (!(p.xfSteps && p.xfSteps.length) && !p.labelPick) return own;
    if (!p.threads[t] || m.tree.total(m.v)[0] !== p.tree(t).total(m.v)[0]) return own;
    return (p.labelIgnoresRange && p.labelIgnoresRange(t) ? p.wholeTree(t) : p.rangeTree(t)).total(m.v)[0];
  };

  // ---- the URL: the stack as xf=... beside the other state ----
  var encodeState = PK.encodeState, decodeState = PK.decodeState;
  PK.encodeState = function (st) {
    var s = encodeState(st);
    if (st.xf !== undefined && st.xf !== PK.initialTransforms) s += (s ? "&" : "") + "xf=" + encodeURIComponent(st.xf);
    if (st.rel) s += (s ? "&" : "") + "rel=1";
    return s;
  };
  PK.decodeState = function (hash) {
    var st = decodeState(hash), m = /(?:^#?|&)xf=([^&]*)/.exec(hash || "");
    st.xf = PK.initialTransforms || "";
    if (m) { try { st.xf = decodeURIComponent(m[1]); } catch (e) { /* kept: the initial stack */ } }
    st.rel = /(?:^#?|&)rel=1(&|$)/.test(hash || "");
    return st;
  };

  // ---- the page ----
  PK.appHooks = PK.appHooks || [];
  PK.appHooks.push(function (App) {
    if (typeof document === "undefined") return;
    var el = PK.el;
    var build = App.prototype.build, render = App.prototype.render, selectNode = App.prototype.selectNode;

    App.prototype.build = function () {
      // The stack the page opens with (flame/view given transform flags):
      // the URL's when it names one (xf=, popped to nothing: empty).
      PK.initialTransforms = PK.encodeSteps((this.p.data.transforms || []).filter(function (x) { return x && KINDS[x[0]]; })
                                                                         .map(function (x) { return { kind: x[0], arg: String(x[1]) }; }));
      if (!/(?:^#?|&)xf=/.test(location.hash)) this.state.xf = PK.initialTransforms;
      build.call(this);
      var self = this, app = document.getElementById("app");
      var box = this.xfBox = el("section", "pk-xf");
      box.id = "pk-xf";
      this.xfCrumbs = el("nav", "pk-xf-crumbs");
      this.xfCrumbs.id = "pk-xf-crumbs";
      this.xfCrumbs.setAttribute("aria-label", "Transforms");
      box.appendChild(this.xfCrumbs);
      var cmd = el("div", "pk-cmd");
      cmd.appendChild(el("span", "pk-cmd-label", "Command line"));
      this.cmdText = el("code", "pk-cmd-text");
      this.cmdText.id = "pk-cmd";
      this.cmdText.title = "The profkit command that gives this view";
      cmd.appendChild(this.cmdText);
      var copy = el("button", "pk-btn", "Copy");
      copy.id = "pk-cmd-copy";
      copy.addEventListener("click", function () { self.copyCommand(copy); });
      cmd.appendChild(copy);
      // percentages of what the filters left (--relative), else of the whole
      var rl = el("label", "pk-rel");
      this.relBox = el("input");
      this.relBox.type = "checkbox";
      this.relBox.id = "pk-rel";
      rl.title = "Percentages of what the transforms and the label pick leave (--relative), else of the whole profile's total (as pprof)";
      this.relBox.addEventListener("change", function () { self.change({ rel: self.relBox.checked }, "relative"); });
      rl.appendChild(this.relBox);
      rl.appendChild(el("span", "", "relative %"));
      cmd.appendChild(rl);
      box.appendChild(cmd);
      app.insertBefore(box, this.crumbs);
      this.menu = el("div", "pk-menu");
      this.menu.id = "pk-menu";
      this.menu.hidden = true;
      this.menu.setAttribute("role", "menu");
      document.body.appendChild(this.menu);
      this.wireTransforms();
    };

    App.prototype.render = function (action, t0) {
      if (this.state && this.p.setTransforms) {
        if (this.state.xf === undefined) this.state.xf = PK.initialTransforms || "";
        this.p.setTransforms(this.state.xf);
      }
      render.call(this, action, t0);
      this.renderTransforms();
    };

    // The call node the keys act on: the one under the pointer in a flame
    // graph, else the call tree's selected row; its tree and whether it is
    // a call path of the plain tree (not inverted, not the sandwich's).
    App.prototype.selectNode = function (tree, n) {
      this.xfTarget = { tree: tree, node: n, path: !this.state.inverted && tree === this.p.tree(this.state.thread) };
      selectNode.call(this, tree, n);
    };

    App.prototype.wireTransforms = function () {
      var self = this;
      var flames = [[this.flameCanvas, function () { return self.flame; }], [this.memCanvas, function () { return self.memFlame; }],
                    [this.callersCanvas, function () { return self.callers; }], [this.calleesCanvas, function () { return self.callees; }]];
      flames.forEach(function (fv) {
        var canvas = fv[0], view = fv[1];
        var at = function (e) {
          var r = canvas.getBoundingClientRect(), v = view(), n = v.hit(e.clientX - r.left, e.clientY - r.top);
          if (n <= 0) return null;
          return { tree: v.model.tree, node: n, path: canvas === self.flameCanvas && !self.state.inverted };
        };
        canvas.addEventListener("mousemove", function (e) { var t = at(e); if (t) self.xfTarget = t; });
        canvas.addEventListener("contextmenu", function (e) {
          var t = at(e);
          if (!t) return;
          e.preventDefault();
          self.xfTarget = t;
          self.openMenu(t, e.clientX, e.clientY);
        });
      });
      var tables = [[this.panes.tree, function () { return self.treeTable; }], [this.panes.top, function () { return self.topTable; }],
                    [this.panes.sandwich, function () { return self.swTop; }]];
      tables.forEach(function (tv) {
        tv[0].addEventListener("contextmenu", function (e) {
          var tr = e.target.closest && e.target.closest("tr");
          if (!tr) return;
          var t = null, tbl = tv[1]();
          if (tr.hasAttribute("data-node") && tbl.model) {
            var n = +tr.getAttribute("data-node");
            if (n > 0) t = { tree: tbl.model.tree, node: n, path: !self.state.inverted };
          } else if (tr.hasAttribute("data-func")) {
            var f = +tr.getAttribute("data-func");
            if (f >= 0) t = { func: f };
          }
          if (!t) return;
          e.preventDefault();
          self.xfTarget = t;
          self.openMenu(t, e.clientX, e.clientY);
        });
        tv[0].addEventListener("click", function (e) {
          var tr = e.target.closest && e.target.closest("tr[data-func]");
          if (tr && +tr.getAttribute("data-func") >= 0) self.xfTarget = { func: +tr.getAttribute("data-func") };
        });
      });
      document.addEventListener("mousedown", function (e) { if (!self.menu.hidden && !self.menu.contains(e.target)) self.closeMenu(); });
      document.addEventListener("keydown", function (e) {
        if (e.key === "Escape" && !self.menu.hidden) { self.closeMenu(); return; }
        var tag = document.activeElement && document.activeElement.tagName;
        if (tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA" || e.ctrlKey || e.metaKey || e.altKey) return;
        if (!self.xfTarget || self.state.view === "stack" || self.state.view === "markers") return;
        for (var k in KINDS) {
          if (KINDS[k][2] && KINDS[k][2] === e.key) {
            var step = self.stepFor(k, self.xfTarget);
            if (step) { e.preventDefault(); self.closeMenu(); self.pushTransform(step); }
            return;
          }
        }
      });
    };
    // The function of a target (a call node or a function).
    App.prototype.targetFunc = function (t) { return t.func !== undefined ? t.func : t.tree.func[t.node]; };
    // The step of kind k for target t, or null when it does not apply.
    App.prototype.stepFor = function (k, t) {
      var p = this.p, f = this.targetFunc(t);
      if (f < 0) return null;
      if (KINDS[k][3]) {
        if (!t.path || t.node === undefined) return null;
        return { kind: k, arg: PK.pathNames(p, t.tree, t.node).join(";") };
      }
      if (k === "collapse-module") {
        var mod = p.funcModuleName(f);
        return mod ? { kind: k, arg: PK.exactRe(mod) } : null;
      }
      if (k === "focus-category") {
        var C = p.data.categories;
        if (!C || !t.path || t.node === undefined) return null;
        var c = p.nodeCategories(t.tree)[t.node];
        return c ? { kind: k, arg: C.names[c - 1] } : null;
      }
      if (k === "focus") return null;
      return { kind: k, arg: PK.exactRe(p.funcLabel(f)) };
    };
    var MENU = [["merge", "Merge function", "its time goes to its caller"],
                ["hide", "Hide function", "profkit --hide: its frames leave the stacks (as pprof's -hide)"],
                ["show-from", "Show from function", "profkit --show-from: the callers above it go, samples without it too"],
                ["prune-from", "Prune below function", "profkit --prune-from: its callees go"],
                ["merge-node", "Merge node only", "this call node only"],
                ["root-at", "Focus on function", "every call of it combined, as the root"],
                ["focus-subtree", "Focus on subtree only", "this call node as the root"],
                ["collapse-recursion", "Collapse recursion", "calls of it from within itself become one"],
                ["collapse-direct-recursion", "Collapse direct recursion only", "calls straight from itself only"],
                ["collapse-module", "Collapse module", "its module's frames become one frame"],
                ["focus-category", "Focus on category", "only the frames of its category stay"],
                ["ignore", "Drop samples with this function", "profkit --ignore"]];
    App.prototype.openMenu = function (t, x, y) {
      var self = this, m = this.menu, p = this.p, f = this.targetFunc(t);
      m.textContent = "";
      m.appendChild(el("div", "pk-menu-title", p.funcLabel(f)));
      MENU.forEach(function (it) {
        var step = self.stepFor(it[0], t);
        if (!step) return;
        var label = it[1] + (it[0] === "collapse-module" ? " " + p.funcModuleName(f).replace(/^.*\//, "") : it[0] === "focus-category" ? " " + step.arg : "");
        var b = el("button", "pk-menu-item", "");
        b.setAttribute("role", "menuitem");
        b.setAttribute("data-kind", it[0]);
        b.title = it[2];
        b.appendChild(el("span", "", label));
        b.appendChild(el("kbd", "", KINDS[it[0]][2]));
        b.addEventListener("click", function () { self.closeMenu(); self.pushTransform(step); });
        m.appendChild(b);
      });
      m.hidden = false;
      this.hideHover();
      var W = document.documentElement.clientWidth, H = document.documentElement.clientHeight, r = m.getBoundingClientRect();
      m.style.left = Math.max(4, Math.min(x, W - r.width - 4)) + "px";
      m.style.top = Math.max(4, Math.min(y, H - r.height - 4)) + "px";
    };
    App.prototype.closeMenu = function () { if (this.menu) this.menu.hidden = true; };

    App.prototype.transformSteps = function () { return PK.decodeSteps(this.state.xf); };
    App.prototype.pushTransform = function (step) {
      var steps = this.transformSteps();
      steps.push(step);
      this.xfTarget = null;
      this.change({ xf: PK.encodeSteps(steps), zoom: [] }, "transform");
    };
    App.prototype.popTransform = function (depth) {
      this.xfTarget = null;
      this.change({ xf: PK.encodeSteps(this.transformSteps().slice(0, depth)), zoom: [] }, "transform");
    };

    // The command that gives the view shown: the view's report (top for
    // the top functions, tree for the call tree, else flame), the files,
    // the transforms in order, the thread, the value, the range.
    App.prototype.commandArgs = function () {
      var p = this.p, st = this.state, view = st.view;
      // (a diff: diff BASE NEW for the tables, flame --diff else)
      var args = [view === "top" || view === "sandwich" ? (p.diff ? "diff" : "top") : view === "tree" && !p.diff ? "tree" : "flame"];
      var files = p.data.inputs || (p.title ? p.title.split(p.diff ? " vs " : " ") : []);
      if (p.diff && args[0] === "flame") args.push("--diff");
      args = args.concat(files, PK.transformArgs(this.transformSteps()));
      var ti = p.threadIndex(st.thread);
      if (ti >= 0) args.push("--thread", String(ti));
      if (p.values.length > 1 || p.valueIndex(st.value) !== p.defaultValue) args.push("--value", st.value);
      var r = PK.parseMsRange && PK.parseMsRange(st.range);
      if (r) args.push("--range", String(r[0]) + "ms," + String(r[1]) + "ms");
      if (st.rel && args[0] !== "flame" && (this.transformSteps().length || p.labelPick)) args.push("--relative");
      if (args[0] === "flame") args.push("-o", "view.html");
      return args;
    };
    function quote(a) { return /^[A-Za-z0-9_.,\/:=+%@-]+$/.test(a) ? a : "'" + a.replace(/'/g, "'\\''") + "'"; }
    App.prototype.commandLine = function () { return ["profkit"].concat(this.commandArgs()).map(quote).join(" "); };
    App.prototype.copyCommand = function (btn) {
      var text = this.commandLine();
      var done = function () { btn.textContent = "Copied"; setTimeout(function () { btn.textContent = "Copy"; }, 1200); };
      if (navigator.clipboard && navigator.clipboard.writeText) navigator.clipboard.writeText(text).then(done, function () { fallback(); });
      else fallback();
      function fallback() {
        var ta = document.createElement("textarea");
        ta.value = text; document.body.appendChild(ta); ta.select();
        try { document.execCommand("copy"); done(); } catch (e) { /* the text stays selectable */ }
        document.body.removeChild(ta);
      }
    };

    App.prototype.renderTransforms = function () {
      if (!this.xfCrumbs) return;
      if (this.relBox) this.relBox.checked = !!this.state.rel;
      var self = this, c = this.xfCrumbs, steps = this.transformSteps();
      c.textContent = "";
      var b0 = el("button", "pk-crumb" + (steps.length ? "" : " on"), "Complete profile");
      b0.setAttribute("data-depth", "0");
      b0.addEventListener("click", function () { self.popTransform(0); });
      c.appendChild(b0);
      steps.forEach(function (s, i) {
        c.appendChild(el("span", "pk-sep", "›"));
        var arg = s.kind === "merge-node" || s.kind === "focus-subtree" ? s.arg.split(";").pop()
                : s.arg.replace(/^\^/, "").replace(/\$$/, "").replace(/\\(.)/g, "$1");
        var b = el("button", "pk-crumb" + (i === steps.length - 1 ? " on" : ""), KINDS[s.kind][1] + ": " + arg);
        b.title = KINDS[s.kind][0] + " " + s.arg;
        b.setAttribute("data-depth", String(i + 1));
        b.addEventListener("click", function () { self.popTransform(i + 1); });
        c.appendChild(b);
      });
      var note = this.p.xfError ? "cannot apply: " + this.p.xfError
        : steps.length ? "click a step to go back to it" : "right-click a frame (or keys m M F f r R C c d h s p on the one under the pointer) to transform";
      var nt = el("span", "note pk-xf-note" + (this.p.xfError ? " bad" : ""), note);
      nt.id = "pk-xf-note";
      c.appendChild(nt);
      this.cmdText.textContent = this.commandLine();
      if (window.profkitState) { window.profkitState.transforms = steps; window.profkitState.command = this.commandLine(); }
    };
  });

  PK.commandLine = function () { return PK.app && PK.app.commandLine ? PK.app.commandLine() : null; };
})(typeof globalThis !== "undefined" ? (globalThis.profkit = globalThis.profkit || {}) : (this.profkit = this.profkit || {}));
