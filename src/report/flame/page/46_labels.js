"use strict";
// The label picker: pprof sample labels (docs/viewer.md, "Labels"). The
// data holds, per string label key, a tree of every thread's samples for
// each of its values (a label scope; the value "" is the samples without
// the key). Picked, the view of all threads (and of the one thread of a
// profile that has one, as a Go profile: the scopes are its samples) is:
//   - "key = value": that value's tree (as `profkit top --tagfocus key=value`;
//     its total is the filtered one);
//   - "group by key at the root": a frame per value above the root's
//     children, each over its value's tree (as --tagroot key);
//   - "group by key at the leaf": a frame per value under every frame with
//     a self value (as --tagleaf key).
// A label frame is named by the value and its file is the key, as the
// command line's. The pick is in the URL as tag=focus:KEY=VALUE, tag=root:KEY
// or tag=leaf:KEY, and on the command line shown as --tagfocus, --tagignore
// (the samples without the key), --tagroot or --tagleaf; the transforms
// apply to the label view (the tree under them, 45_transforms.js), as the
// command line applies its label options first. Also here: query('top') as
// `profkit top --json` names its rows (no "(other)", file and line where
// the function has them).
(function (PK) {
  var Profile = PK.Profile;

  // key -> [{value, scope}] in the data's order.
  Profile.prototype.labelKeys = function () {
    if (this._labelKeys) return this._labelKeys;
    var keys = new Map(), self = this;
    (this.labelScopes || []).forEach(function (sc, i) {
      var k = self.str(sc.name), list = keys.get(k);
      if (!list) keys.set(k, list = []);
      list.push({ value: self.str(sc.process), scope: i });
    });
    return (this._labelKeys = keys);
  };
  Profile.prototype.labelScopeTree = function (i) {
    this._labelTrees = this._labelTrees || [];
    if (!this._labelTrees[i]) { var tr = this.labelScopes[i].tree; this._labelTrees[i] = new PK.Tree(tr.parent, tr.func, tr.self, null); }
    return this._labelTrees[i];
  };
  // A function of the page's own: a label frame named `value`, its file `key`.
  Profile.prototype.labelFunc = function (key, value) {
    this._labelFuncs = this._labelFuncs || new Map();
    var k = key + "\u0000" + value, f = this._labelFuncs.get(k);
    if (f !== undefined) return f;
    var sid = function (p, s) { p.strings.push(s); return p.strings.length - 1; };
    f = this.funcName.length;
    this.funcName.push(sid(this, value));
    this.funcFile.push(value === "" ? 0 : sid(this, key));   // (the CLI's frame for samples without the key has no file)
    this.funcLine.push(0);
    this.funcModule.push(0);
    if (value === "") { this._emptyLabel = this._emptyLabel || new Set(); this._emptyLabel.add(f); }
    this._labelFuncs.set(k, f);
    return f;
  };
  var funcLabel = Profile.prototype.funcLabel;
  Profile.prototype.funcLabel = function (fi) {
    if (this._emptyLabel && this._emptyLabel.has(fi)) return "";   // samples without the label (as the CLI's frame)
    return funcLabel.call(this, fi);
  };

  // The view of all threads under the pick (null: none).
  Profile.prototype.labelView = function () {
    var pick = this.labelPick;
    if (!pick) return null;
    var key = pick.key + "\u0000" + pick.mode + "\u0000" + (pick.value || "");
    if (this._labelView && this._labelView.key === key) return this._labelView.tree;
    var list = this.labelKeys().get(pick.key) || [], self = this, tree;
    var nv = this.values.length;
    if (pick.mode === "focus") {
      var hit = list.filter(function (x) { return x.value === pick.value; })[0];
      if (hit) tree = this.labelScopeTree(hit.scope);
      else {
        var zero = []; for (var v = 0; v < nv; v++) zero.push(new Float64Array(1));
        tree = new PK.Tree(new Int32Array([-1]), new Int32Array([PK.ROOT_FUNC]), zero, null);
      }
    } else {
      var b = new PK.TreeBuilder(nv, false);
      list.forEach(function (x) {
        var src = self.labelScopeTree(x.scope), lf = self.labelFunc(pick.key, x.value);
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
    this._labelView = { key: key, tree: tree };
    return tree;
  };
  // Whether the pick applies to thread t: "All threads", or the one
  // thread of a profile of one (the label scopes hold every thread's
  // samples, not one thread's of several).
  Profile.prototype.labelApplies = function (t) {
    var th = this.threads[t];
    if (!th) return false;
    if (th.merged) return true;
    var real = 0;
    this.threads.forEach(function (x) { if (!x.merged) real++; });
    return real === 1;
  };
  // The tree of thread t before the transforms: the pick's view where it
  // applies.
  var tree = Profile.prototype.baseTree || Profile.prototype.tree;
  Profile.prototype[Profile.prototype.baseTree ? "baseTree" : "tree"] = function (t) {
    if (this.labelPick && this.labelApplies(t)) return this.labelView();
    return tree.call(this, t);
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
  // The command-line flags of a pick.
  PK.tagArgs = function (pick) {
    if (!pick || !pick.key) return [];
    if (pick.mode === "root") return ["--tagroot", pick.key];
    if (pick.mode === "leaf") return ["--tagleaf", pick.key];
    // "(none)": the samples without the key (an empty pattern matches any value)
    return pick.value === "" ? ["--tagignore", pick.key + "="] : ["--tagfocus", pick.key + "=" + PK.exactRe(pick.value)];
  };
  // Picks (null: none). The inverted trees it applies to are made again.
  Profile.prototype.pickLabel = function (pick) {
    pick = pick && pick.key && this.labelKeys().has(pick.key) ? pick : null;
    if (PK.encodeTag(pick) === (this.labelKey || "")) return;
    this.labelPick = pick;
    this.labelKey = PK.encodeTag(pick);
    this._labelView = null;
    var self = this;
    this.threads.forEach(function (th, t) { if (self.labelApplies(t)) { self._inverted[t] = null; self._inverting[t] = null; } });
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
    s.title = "pprof sample labels (all threads, or a profile's one thread; the whole profile): keep one value's samples (as --tagfocus), or group by a key at the root or the leaf (as --tagroot, --tagleaf)";
    var add = function (parent, value, text) { var o = document.createElement("option"); o.value = value; o.textContent = text; parent.appendChild(o); };
    add(s, "", "all samples");
    keys.forEach(function (vals, k) {
      var g = document.createElement("optgroup");
      g.label = k;
      vals.forEach(function (x) { add(g, JSON.stringify({ mode: "focus", key: k, value: x.value }), k + " = " + (x.value === "" ? "(none)" : x.value)); });
      add(g, JSON.stringify({ mode: "root", key: k }), "group by " + k + " at the root");
      add(g, JSON.stringify({ mode: "leaf", key: k }), "group by " + k + " at the leaf");
      s.appendChild(g);
    });
    s.addEventListener("change", function () { PK.setLabel(app, s.value ? JSON.parse(s.value) : null); });
    l.appendChild(s);
    app.labelSel = s;
    return l;
  };
  // Picks a label view and shows it (all threads when the thread shown is
  // one of several).
  PK.setLabel = function (app, pick) {
    var p = app.p, merged = 0;
    p.threads.forEach(function (th, i) { if (th.merged) merged = i; });
    app.change({ thread: pick && !p.labelApplies(app.state.thread) ? merged : app.state.thread, zoom: [], tag: PK.encodeTag(pick) }, "label");
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
      }
      render.call(this, action, t0);
    };
    // The command line shown names the pick's flag (after the inputs).
    if (commandArgs) App.prototype.commandArgs = function () {
      var args = commandArgs.call(this), tag = this.p.labelPick && this.p.labelApplies(this.state.thread) ? PK.tagArgs(this.p.labelPick) : [];
      if (!tag.length) return args;
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
      out.whole_total = tree.call(p, t).total(v)[0];   // (top's order: before the rows)
      out.rows = res.rows;
      res = out;
    }
    return res;
  };
})(typeof globalThis !== "undefined" ? (globalThis.profkit = globalThis.profkit || {}) : (this.profkit = this.profkit || {}));
