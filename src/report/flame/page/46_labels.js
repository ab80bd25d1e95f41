"use strict";
// The label picker: pprof sample labels (docs/viewer.md, "Labels";
// docs/viewer_page.md, "Label"). The data holds, per label key, a tree for
// each of its values (a label scope; the value "" is the samples without
// the key; a numeric key's values are numbers, or buckets of them), of
// every thread's samples, and when the page shows several threads, of each
// thread's. Picked, the view of the thread shown is:
//   - "key = value": that value's tree (as `profkit top --tagfocus key=value`,
//     a number's as a range; its total is the filtered one);
//   - "group by key at the root": a frame per value above the root's
//     children, each over its value's tree (as --tagroot key);
//   - "group by key at the leaf": a frame per value under every frame with
//     a self value (as --tagleaf key).
// A key a sample has two values of (or numbers and strings of) has scopes
// per combination (the grouping) and per single value ("key = value").
// A numeric key's buckets are for "key = value"; grouping by a key whose
// numbers have a unit has a frame per number (as --tagroot) from the
// data's per-number scopes ("group"), up to 2048 numbers; above that its
// buckets group into one frame "LO to HI" each (the picker says so);
// "(none)" of a numeric key is
// --tagignore key=MIN:MAX on the command line.
// A label frame is named as --tagroot names it ("<unknown>" without a
// value) and its file is the key, as the command line's. The pick is in the
// URL as tag=focus:KEY=VALUE, tag=root:KEY or tag=leaf:KEY, and on the
// command line shown as --tagfocus, --tagignore (the samples without the
// key), --tagroot or --tagleaf. The label options apply where the command
// line applies them among the transforms (45_transforms.js): at the first
// filter step's place, else first (labelSplit). The label trees have no
// time line: a range does not narrow them, which the picker says
// (labelIgnoresRange) and the command line shown follows (no --range).
// Also here: query('top') as `profkit top --json` names its rows (no
// "(other)", file and line where the function has them).
(function (PK) {
  var Profile = PK.Profile;
  var NO_VALUE = "<unknown>";   // the name --tagroot gives a sample without a value (as pprof prints it)
  var GROUP_VALUES = 2048;      // PK_FLAME_LABEL_GROUP_VALUES: numbers of a key grouped one by one

  // The profile thread index (data "index") whose label scopes thread t's
  // pick uses: t's own (a page of several threads has scopes per thread),
  // -1 (every thread's) for "All threads" or the one thread of a profile
  // of one, else null (the data has no scopes for t: too many threads).
  Profile.prototype.labelScopeIndex = function (t) {
    var th = this.threads[t];
    if (!th || !(this.labelScopes || []).length) return null;
    var idx = th.merged ? -1 : th.index;
    if ((this.labelScopes || []).some(function (sc) { return sc.index === idx; })) return idx;
    var real = 0;
    this.threads.forEach(function (x) { if (!x.merged) real++; });
    return real === 1 ? -1 : null;
  };
  // key -> [{value, scope, num, unit, frame}] of thread t's scopes in the
  // data's order (t undefined: every thread's).
  Profile.prototype.labelKeys = function (t) {
    var idx = t === undefined ? -1 : this.labelScopeIndex(t);
    this._labelKeys = this._labelKeys || {};
    if (this._labelKeys[idx]) return this._labelKeys[idx];
    var keys = new Map(), self = this;
    (this.labelScopes || []).forEach(function (sc, i) {
      if (sc.index !== idx) return;
      var k = self.str(sc.name), list = keys.get(k);
      if (!list) keys.set(k, list = []);
      list.push({ value: self.str(sc.process), scope: i, num: sc.num || null, unit: sc.unit || "", frame: sc.frame, group: !!sc.group, bucket: sc.bucket });
    });
    // A key with a scope per number ("group") has its buckets of every
    // thread's samples made here, each of its numbers' scopes (the data
    // names each number's bucket), before its "(none)" as the data orders
    // a key's buckets.
    keys.forEach(function (list) {
      if (!list.some(function (x) { return x.group; })) return;
      var byBucket = new Map(), made = [];
      list.forEach(function (x) {
        if (!x.group) return;
        var b = byBucket.get(x.bucket);
        if (!b) {
          byBucket.set(x.bucket, b = { value: x.bucket, scopes: [], num: [x.num[0], x.num[1]], unit: x.unit, frame: x.frame, made: true });
          made.push(b);
        }
        b.scopes.push(x.scope);
        b.num[0] = Math.min(b.num[0], x.num[0]);
        b.num[1] = Math.max(b.num[1], x.num[1]);
      });
      list.unshift.apply(list, made);
    });
    // A key a sample has two values of, or numbers and strings of, has two
    // kinds of scope: per combination of values (a frame but no number;
    // only the rows without the key have the value ""), for the grouping,
    // and per single value (a number, or a string without a frame), for
    // "KEY = VALUE" (a row in each of its values'). Other keys' scopes are
    // both.
    keys.forEach(function (list) {
      var multi = list.some(function (x) { return !x.num && x.frame !== undefined && x.value !== ""; });
      list.forEach(function (x) { x.role = x.group ? "group" : x.made ? "focus" : !multi ? "both" : !x.num && x.frame !== undefined ? "group" : "focus"; });
    });
    return (this._labelKeys[idx] = keys);
  };
  // A bucket of several numbers (a numeric key of more distinct numbers
  // than the page lists one by one).
  function isBucket(x) { return !!x.num && x.num[0] !== x.num[1]; }
  // Whether grouping by the key merges frames --tagroot keeps apart: a
  // bucket of numbers with a unit (--tagroot names each number; numbers
  // without a unit are all "<unknown>" to it, whatever the bucket).
  function mergesFrames(list) { return list.some(function (x) { return isBucket(x) && x.frame !== NO_VALUE; }); }
  PK.labelMergesFrames = mergesFrames;
  // A key's scopes for "KEY = VALUE" (with its "(none)", the rows without
  // the key, when the command line can name them: a key of numbers, or of
  // strings) and for the grouping.
  function focusList(list) {
    var strs = list.some(function (x) { return x.role === "focus" && !x.num; });
    var nums = list.some(function (x) { return x.role === "focus" && x.num; });
    return list.filter(function (x) { return x.role !== "group" || (x.value === "" && !(strs && nums)); });
  }
  // A bucketed key whose numbers have a unit has, when they are not too
  // many (PK_FLAME_LABEL_GROUP_VALUES, src/report/flame/flame.h), a scope
  // per number for the grouping ("group": a frame per number, as
  // --tagroot); its buckets are then for "KEY = VALUE" only.
  function groupList(list) {
    var per = list.some(function (x) { return x.group; });
    return list.filter(function (x) { return x.role !== "focus" && (!per || x.group || !x.num); });
  }
  PK.labelFocusList = focusList;
  // The smallest and largest number of a numeric key (null: no number).
  function numSpan(list) {
    var lo = null, hi = null;
    list.forEach(function (x) {
      if (!x.num) return;
      if (lo === null || x.num[0] < lo) lo = x.num[0];
      if (hi === null || x.num[1] > hi) hi = x.num[1];
    });
    return lo === null ? null : [lo, hi];
  }
  // An entry's tree: its scope's, or a bucket's made of its numbers'.
  Profile.prototype.labelEntryTree = function (x) {
    if (!x.scopes) return this.labelScopeTree(x.scope);
    if (x._tree) return x._tree;
    var nv = this.values.length, b = new PK.TreeBuilder(nv, false), self = this;
    x.scopes.forEach(function (i) {
      var src = self.labelScopeTree(i), map = new Int32Array(src.n), j, v;
      for (j = 1; j < src.n; j++) map[j] = b.child(map[src.parent[j]], src.func[j]);
      for (j = 0; j < src.n; j++) for (v = 0; v < nv; v++) b.self[v][map[j]] += src.self[v][j];
    });
    return (x._tree = b.build());
  };
  Profile.prototype.labelScopeTree = function (i) {
    this._labelTrees = this._labelTrees || [];
    if (!this._labelTrees[i]) { var tr = this.labelScopes[i].tree; this._labelTrees[i] = new PK.Tree(tr.parent, tr.func, tr.self, null); }
    return this._labelTrees[i];
  };
  // A function of the page's own: a label frame named `name` (the value,
  // as --tagroot names it), its file `key`; a sample without a value gets
  // "<unknown>" without a file (the command line's one such function).
  Profile.prototype.labelFunc = function (key, name) {
    this._labelFuncs = this._labelFuncs || new Map();
    var none = name === "" || name === NO_VALUE;
    var k = none ? "\u0000" : key + "\u0000" + name, f = this._labelFuncs.get(k);
    if (f !== undefined) return f;
    var sid = function (p, s) { p.strings.push(s); return p.strings.length - 1; };
    f = this.funcName.length;
    this.funcName.push(sid(this, none ? NO_VALUE : name));
    this.funcFile.push(none ? 0 : sid(this, key));
    this.funcLine.push(0);
    this.funcModule.push(0);
    this._labelFuncs.set(k, f);
    return f;
  };
  // A pick's value name for --tagroot: the scope's frame (numbers), else
  // the value itself; a bucket of numbers with a unit (which --tagroot
  // splits, one frame per number) is one frame "LO to HI", which the
  // picker says (mergesFrames).
  function frameName(x) {
    if (isBucket(x) && x.frame !== NO_VALUE) return x.value.replace(":", " to ");
    return x.frame !== undefined ? x.frame : x.value === "" ? NO_VALUE : x.value;
  }

  // Where the command line applies its label options among the steps it
  // runs (PK.effectiveSteps): with pprof's filters, as one step at the
  // first filter flag's place, else first (src/cli/cli_transform.c). The
  // steps before it are applied to each label scope's tree, the label view
  // is made of those, and the rest apply to it.
  Profile.prototype.labelSplit = function () {
    var eff = PK.effectiveSteps ? PK.effectiveSteps(this.xfSteps || []) : [], at = 0;
    for (var i = 0; i < eff.length; i++) if (eff[i].kind === "filter") { at = i; break; }
    return { before: eff.slice(0, at), after: eff.slice(at), key: PK.encodeSteps ? PK.encodeSteps(this.xfSteps || []) + "#" + at : "" };
  };

  // Thread t's view under the pick (null: none), with the steps `before`
  // (effective steps) applied to each scope first.
  Profile.prototype.labelView = function (t, before, beforeKey) {
    var pick = this.labelPick;
    if (!pick) return null;
    before = before || [];
    var idx = this.labelScopeIndex(t);
    var key = idx + "\u0000" + pick.key + "\u0000" + pick.mode + "\u0000" + (pick.value || "") + "\u0000" + (before.length ? beforeKey : "");
    this._labelViews = this._labelViews || new Map();
    if (this._labelViews.has(key)) return this._labelViews.get(key);
    var list = this.labelKeys(t).get(pick.key) || [], self = this, tree;
    var nv = this.values.length;
    var scopeTree = function (x) {
      var tr = self.labelEntryTree(x);
      return before.length ? PK.applyTransforms(self, tr, before) : tr;
    };
    if (pick.mode === "focus") {
      var hit = focusList(list).filter(function (x) { return x.value === pick.value; })[0];
      if (hit) tree = scopeTree(hit);
      else {
        var zero = []; for (var v = 0; v < nv; v++) zero.push(new Float64Array(1));
        tree = new PK.Tree(new Int32Array([-1]), new Int32Array([PK.ROOT_FUNC]), zero, null);
      }
    } else {
      var b = new PK.TreeBuilder(nv, false);
      groupList(list).forEach(function (x) {
        var src = scopeTree(x), lf = self.labelFunc(pick.key, frameName(x));
        var map = new Int32Array(src.n), v;
        map[0] = pick.mode === "root" ? b.child(0, lf) : 0;
        for (var i = 1; i < src.n; i++) map[i] = b.child(map[src.parent[i]], src.func[i]);
        for (i = 0; i < src.n; i++) {
          var at = map[i];
          if (pick.mode === "leaf") {
            var any = false;
            for (v = 0; v < nv; v++) if (src.self[v][i] !== 0) any = true;
            if (!any) continue;
            at = b.child(map[i], lf);
          }
          for (v = 0; v < nv; v++) b.self[v][at] += src.self[v][i];
        }
      });
      tree = b.build();
    }
    tree.label = pick;
    if (this._labelViews.size > 16) this._labelViews.clear();
    this._labelViews.set(key, tree);
    return tree;
  };
  // Whether the pick applies to thread t: the data has label scopes for it
  // ("All threads", each thread of a page of several, the one thread of a
  // profile of one) and the key (and value) there.
  Profile.prototype.labelApplies = function (t) {
    return !!this.labelPick && this.labelScopeIndex(t) !== null && this.labelKeys(t).has(this.labelPick.key);
  };
  // Whether the view of thread t ignores the time range: a pick applies
  // and a range narrows the views (the label scopes have no time line).
  Profile.prototype.labelIgnoresRange = function (t) {
    return this.labelApplies(t) && !!this.range && !!this.narrows && this.narrows();
  };
  // The tree of thread t before the transforms: the pick's view where it
  // applies (with no step before its place), else the range's.
  var tree = Profile.prototype.baseTree || Profile.prototype.tree;
  Profile.prototype[Profile.prototype.baseTree ? "baseTree" : "tree"] = function (t) {
    if (this.labelPick && this.labelApplies(t)) {
      var sp = this.labelSplit();
      return this.labelView(t, sp.before, sp.key);
    }
    return tree.call(this, t);
  };
  // Under a pick with steps before the label options' place, the view is
  // those steps on each scope, the pick, then the rest (the command line's
  // order).
  var xfTree = Profile.prototype.tree;
  if (Profile.prototype.baseTree) Profile.prototype.tree = function (t) {
    if (this._xfOff || !this.labelPick || !this.labelApplies(t)) return xfTree.call(this, t);
    var sp = this.labelSplit();
    if (!sp.before.length) return xfTree.call(this, t);
    var key = "L|" + this.labelKey + "|" + sp.key + "|" + t;
    if (this._labelXf && this._labelXf.key === key) return this._labelXf.tree;
    var base, out;
    try {
      base = this.labelView(t, sp.before, sp.key);
      out = sp.after.length ? PK.applyTransforms(this, base, sp.after) : base;
    } catch (e) { this.xfError = e.message; out = base || tree.call(this, t); }
    this._labelXf = { key: key, tree: out };
    return out;
  };
  // Inline marks under "group by key at the root": the data's marks are by
  // call path from the root, which the label frames lengthen; a node below
  // a label frame (a child of the root) is looked up as if the label frame
  // were not there (the label frames themselves are no inlined frames).
  var nodeInline = PK.nodeInline;
  if (nodeInline) PK.nodeInline = function (p, t, tree, v) {
    if (!tree || !p.labelPick || p.labelPick.mode !== "root" || !p._labelFuncs) return nodeInline(p, t, tree, v);
    var memo = tree._labelInl || (tree._labelInl = {});
    if (memo[v] !== undefined) return memo[v];
    var lf = new Set(p._labelFuncs.values()), under = new Int32Array(tree.n), any = false, i;
    for (i = 1; i < tree.n; i++) if (tree.parent[i] === 0 && lf.has(tree.func[i])) { under[i] = 1; any = true; }
    if (!any) return nodeInline(p, t, tree, v);
    var parent = Int32Array.from(tree.parent);
    for (i = 1; i < tree.n; i++) if (under[parent[i]]) parent[i] = 0;
    var out = nodeInline(p, t, { n: tree.n, parent: parent, func: tree.func }, v);
    if (out) for (i = 1; i < tree.n; i++) if (under[i]) out[i] = 0;
    return (memo[v] = out);
  };
  // A pick as the URL's text and back ("" / null: none).
  PK.encodeTag = function (pick) {
    if (!pick || !pick.key) return "";
    return pick.mode === "focus" ? "focus:" + pick.key + "=" + (pick.value || "") : pick.mode + ":" + pick.key;
  };
  PK.decodeTag = function (text) {
    var m = /^(focus|root|leaf):(.*)$/.exec(text || "");
    if (!m) return null;
    if (m[1] !== "focus") return m[2] ? { mode: m[1], key: m[2] } : null;
    var eq = m[2].indexOf("=");
    return eq > 0 ? { mode: "focus", key: m[2].slice(0, eq), value: m[2].slice(eq + 1) } : null;
  };
  // The command-line flags of a pick (x: its value's entry of labelKeys,
  // for a number's range; list: the key's entries, for a numeric key's
  // "(none)").
  PK.tagArgs = function (pick, x, list) {
    if (!pick || !pick.key) return [];
    if (pick.mode === "root") return ["--tagroot", pick.key];
    if (pick.mode === "leaf") return ["--tagleaf", pick.key];
    if (x && x.num) {
      // a number (or a bucket's numbers, both ends kept) in the key's unit
      var u = x.unit || "";
      return ["--tagfocus", pick.key + "=" + (x.num[0] === x.num[1] ? x.num[0] + u : x.num[0] + u + ":" + x.num[1] + u)];
    }
    // "(none)" of a numeric key: the samples without it are those with no
    // number in the key's whole range (pprof has no other spelling for
    // them: a pattern matches string values only)
    var span = pick.value === "" && list ? numSpan(list) : null;
    if (span) {
      var un = (list.filter(function (y) { return y.num; })[0] || {}).unit || "";
      return ["--tagignore", pick.key + "=" + span[0] + un + ":" + span[1] + un];
    }
    // "(none)": the samples without the key (an empty pattern matches any value)
    return pick.value === "" ? ["--tagignore", pick.key + "="] : ["--tagfocus", pick.key + "=" + PK.exactRe(pick.value)];
  };
  // Picks (null: none). The inverted trees it applies to are made again.
  Profile.prototype.pickLabel = function (pick) {
    pick = pick && pick.key && this.labelKeys().has(pick.key) ? pick : null;
    if (PK.encodeTag(pick) === (this.labelKey || "")) return;
    this.labelPick = pick;
    this.labelKey = PK.encodeTag(pick);
    this._labelViews = null;
    this._labelXf = null;
    this._inverted = [];
    this._inverting = [];
  };

  // The picker: one select, "no label filter", then per key its values and
  // its two groupings. Built into the bar when the data has label scopes.
  PK.labelPicker = function (app) {
    var p = app.p, keys = p.labelKeys();
    if (!keys.size) return null;
    var l = document.createElement("label");
    l.className = "pk-field pk-labels";
    var span = document.createElement("span");
    span.textContent = "Label";
    l.appendChild(span);
    var s = document.createElement("select");
    s.id = "pk-label";
    s.title = "pprof sample labels of the thread shown: keep one value's samples (as --tagfocus; a number, or a range of numbers when a key has many), or group by a key at the root or the leaf (as --tagroot, --tagleaf)";
    var add = function (parent, value, text) { var o = document.createElement("option"); o.value = value; o.textContent = text; parent.appendChild(o); };
    add(s, "", "all samples");
    keys.forEach(function (vals, k) {
      var g = document.createElement("optgroup");
      g.label = k;
      focusList(vals).forEach(function (x) {
        add(g, JSON.stringify({ mode: "focus", key: k, value: x.value }), k + " = " + (x.value === "" ? "(none)" : isBucket(x) ? x.value.replace(":", " to ") : x.value));
      });
      // a key of many numbers with a unit: its frames are ranges, said here
      var merged = mergesFrames(groupList(vals)) ? " (ranges of values)" : "";
      add(g, JSON.stringify({ mode: "root", key: k }), "group by " + k + " at the root" + merged);
      add(g, JSON.stringify({ mode: "leaf", key: k }), "group by " + k + " at the leaf" + merged);
      s.appendChild(g);
    });
    s.addEventListener("change", function () { PK.setLabel(app, s.value ? JSON.parse(s.value) : null); });
    l.appendChild(s);
    // the label scopes have no time line: said plainly when a range is set
    var note = document.createElement("span");
    note.className = "pk-label-note";
    note.id = "pk-label-note";
    note.textContent = "label view: whole profile, the time range does not narrow it";
    note.hidden = true;
    l.appendChild(note);
    // grouping by a key of many numbers with a unit: what the page merged
    var mnote = document.createElement("span");
    mnote.className = "pk-label-note";
    mnote.id = "pk-label-merged";
    mnote.hidden = true;
    l.appendChild(mnote);
    app.labelSel = s;
    app.labelNote = note;
    app.labelMerged = mnote;
    return l;
  };
  // Picks a label view and shows it on the thread shown (all threads when
  // the data has no label scopes for it: a page of too many threads).
  PK.setLabel = function (app, pick) {
    var p = app.p, merged = 0;
    p.threads.forEach(function (th, i) { if (th.merged) merged = i; });
    app.change({ thread: pick && p.labelScopeIndex(app.state.thread) === null ? merged : app.state.thread, zoom: [], tag: PK.encodeTag(pick) }, "label");
  };
  function selValue(pick) {
    return pick ? JSON.stringify(pick.mode === "focus" ? { mode: "focus", key: pick.key, value: pick.value } : { mode: pick.mode, key: pick.key }) : "";
  }

  // ---- the URL: tag=... beside the other state; the page follows it ----
  var encodeState = PK.encodeState, decodeState = PK.decodeState;
  PK.encodeState = function (st) {
    var s = encodeState(st);
    if (st.tag) s += (s ? "&" : "") + "tag=" + encodeURIComponent(st.tag);
    return s;
  };
  PK.decodeState = function (hash) {
    var st = decodeState(hash), m = /(?:^#?|&)tag=([^&]*)/.exec(hash || "");
    st.tag = "";
    if (m) { try { st.tag = decodeURIComponent(m[1]); } catch (e) { /* none */ } }
    return st;
  };
  PK.appHooks = PK.appHooks || [];
  PK.appHooks.push(function (App) {
    var render = App.prototype.render, commandArgs = App.prototype.commandArgs;
    App.prototype.render = function (action, t0) {
      if (this.state && this.p.pickLabel) {
        this.p.pickLabel(PK.decodeTag(this.state.tag));
        this.state.tag = this.p.labelKey || "";
        if (this.labelSel) this.labelSel.value = selValue(this.p.labelPick);
        if (this.labelNote) this.labelNote.hidden = !this.p.labelIgnoresRange(this.state.thread);
        if (this.labelMerged) {
          var pk = this.p.labelPick, lst = pk && pk.mode !== "focus" && this.p.labelApplies(this.state.thread) ? this.p.labelKeys(this.state.thread).get(pk.key) || [] : [];
          lst = groupList(lst);
          var nb = lst.filter(isBucket).length;
          this.labelMerged.hidden = !mergesFrames(lst);
          this.labelMerged.textContent = this.labelMerged.hidden ? "" : pk.key + " has more values than the page groups one by one here (" + GROUP_VALUES + " for all threads, fewer for one thread of several): " + nb + " of its frames are" +
            " ranges \"LO to HI\" of values merged; the command line shown (--tag" + pk.mode + " " + pk.key + ") has a frame per value";
        }
      }
      render.call(this, action, t0);
    };
    // The command line shown names the pick's flag (after the inputs: the
    // command line applies label options at the first filter flag's place
    // wherever they are, as the page does), and no --range when the label
    // view ignores it.
    if (commandArgs) App.prototype.commandArgs = function () {
      var p = this.p, t = this.state.thread, pick = p.labelPick, args = commandArgs.call(this);
      if (!pick || !p.labelApplies(t)) return args;
      var x = focusList(p.labelKeys(t).get(pick.key) || []).filter(function (y) { return y.value === pick.value; })[0];
      var tag = PK.tagArgs(pick, pick.mode === "focus" ? x : null, focusList(p.labelKeys(t).get(pick.key) || []));
      var ri = args.indexOf("--range");
      if (ri > 0 && p.labelIgnoresRange(t)) args.splice(ri, 2);
      var files = this.p.data.inputs || [], at = 1;
      while (at < args.length && files.indexOf(args[at]) >= 0) at++;
      if (args[at] === "--diff") at++;
      return args.slice(0, at).concat(tag, args.slice(at));
    };
  });

  // query('top') as `profkit top --json`: "(other)" (frames merged for
  // size) is no function, and rows carry file and line as top's do
  // (query('tree')'s nodes too, as tree's).
  function nameInfo(p) {
    var info = new Map(), n = p.funcName.length;
    for (var f = 0; f < n; f++) { var nm = p.funcLabel(f); if (!info.has(nm)) info.set(nm, f); }
    return info;
  }
  function withPlace(p, info, r, rest) {
    var f = info.get(r.name), x = {};
    for (var k in r) { if (k === "name") break; x[k] = r[k]; }
    x.name = r.name;
    if ("file" in r || "line" in r) {
      // the row names its own function's place (top's rows by name and file)
      if (r.file) x.file = r.file;
      if (r.line) x.line = r.line;
    } else if (f !== undefined) {
      var file = p.str(p.funcFile[f]), line = p.funcLine[f] | 0;
      if (file) x.file = file;
      if (line) x.line = line;
    }
    if (r.inline) x.inline = r.inline;   // as top's and tree's rows
    rest.forEach(function (k) { x[k] = r[k]; });
    return x;
  }
  var queryTree = PK.queryTree;
  PK.queryTree = function (p, t, v) {
    var res = queryTree(p, t, v), info = nameInfo(p);
    if (res && res.trees) res.trees.forEach(function (tr) {
      tr.nodes = tr.nodes.map(function (nd) { return withPlace(p, info, nd, ["total", "self"]); });
    });
    return res;
  };
  var queryTop = PK.queryTop;
  PK.queryTop = function (p, t, v, opts) {
    var o = Object.assign({}, opts || {}), limit = o.limit === undefined ? 20 : o.limit;
    o.limit = 0;
    var res = queryTop(p, t, v, o);
    if (!res) return res;
    var info = nameInfo(p);
    var rows = res.rows.filter(function (r) { return r.name !== "(other)"; }).map(function (r) {
      return withPlace(p, info, r, "calls" in r ? ["flat", "cum", "calls"] : ["flat", "cum"]);
    });
    if (limit > 0) rows = rows.slice(0, limit);
    res.rows = rows;
    if (p.labelPick && p.labelApplies(t)) {
      // with a label option top notes every sample's total (--tagfocus:
      // its total is the kept samples')
      var out = {};
      for (var k in res) if (k !== "whole_total" && k !== "rows") out[k] = res[k];
      out.whole_total = (p.labelIgnoresRange(t) ? p.wholeTree(t) : tree.call(p, t)).total(v)[0];   // (top's order: before the rows)
      out.rows = res.rows;
      res = out;
    }
    return res;
  };
})(typeof globalThis !== "undefined" ? (globalThis.profkit = globalThis.profkit || {}) : (this.profkit = this.profkit || {}));
