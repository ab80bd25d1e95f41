"use strict";
// Time: the timeline's samples and markers (docs/viewer.md, "time" and
// "timeline"), the selected time range that narrows every view, and the
// page's answers to window.profkit.query. No DOM: the Node unit tests load
// this file after 10_data.js.
(function (PK) {
  var Profile = PK.Profile, Tree = PK.Tree;
  var baseTree = Profile.prototype.tree;

  // The profile's time line: null for a profile without times.
  Profile.prototype.time = function () {
    if (this._time !== undefined) return this._time;
    var d = this.data.time;
    if (!d) return (this._time = null);
    var T = this._time = {
      zero: d.zero || 0, end: d.end || 0,            // ns on the samples' axis
      threads: d.threads || [],
      range: d.range || null,                         // ms: the range to open with
      // Frame categories (Gecko's): [{name, color}], and their fills.
      categories: (d.categories || []).map(function (c) { return { name: c.name, color: c.color, fill: PK.categoryFill(c.color, false), dark: PK.categoryFill(c.color, true) }; }),
      samplesLeftOut: d.samples_left_out || 0,        // > 0: no samples, activity bins only
      samplesBytes: d.samples_left_out_bytes || 0,    // > 0: left out for their bytes (fewer than 1,000,000)
      samplesLean: d.samples_lean || 0,               // > 0: kept without CPU deltas and categories (their bytes)
      markersLeftOut: d.markers_left_out || 0,
      payloadsLeftOut: d.payloads_left_out || 0,
      markersError: null                              // why the markers could not be read
    };
    // The paused ranges (docs/viewer.md, "The timeline"): ms on the page's
    // zero, a null start or end the root range's (open: paused to the end).
    var z = T.zero, str = this.str.bind(this);
    T.paused = (d.paused || []).map(function (r) {
      var s = r.start === null ? 0 : (r.start - z) / 1e6;
      return { start: s, end: r.end === null ? Math.max(s, (T.end - z) / 1e6) : (r.end - z) / 1e6,
               open: r.end === null, reason: str(r.reason), pid: r.pid };
    });
    // The markers: an object of columns (docs/viewer.md, "markers": their
    // kinds and payloads each once, varints in base64 for the threads' runs,
    // each marker's kind, its start as a difference, the intervals'
    // durations, the payloads of those that have one), or (older pages and
    // tests) an array of plain columns (thread, name, category, start as
    // differences, duration, data), in an element of their own after the
    // page's script (or, in tests, its text, the object or the array).
    // Read after the first view is drawn and the document is parsed (a
    // million markers are most of a page's bytes), a column per task
    // (T.loadMarkers), so the page answers input while it reads them;
    // T.markers reads what is left at once. They come out as columns of
    // the page's string ids (a payload's text appended to the strings).
    var prof = this, obj = null, kindOf = null;
    var raw = d.markers, parsed = null, cols = null, waiting = [], loading = false;
    if (raw && raw.element) {
      var id = raw.element;
      raw = function () { var e = typeof document !== "undefined" && document.getElementById(id); return e ? e.textContent : "[]"; };
    }
    T.markersReady = function () { return !!parsed; };
    // The columns' texts ("[[...],[...],...]" holds no nested brackets),
    // each cut at commas into pieces of about PIECE characters: a task
    // parses one piece.
    var PIECE = 1 << 20;
    function split() {
      if (typeof raw === "function") raw = raw();
      cols = [];
      for (var k = 0; k < 6; k++) cols.push({ pieces: [], parts: [] });
      if (typeof raw === "string" && /^\s*\{/.test(raw)) raw = JSON.parse(raw);
      if (raw && typeof raw === "object" && !Array.isArray(raw)) {
        obj = raw; raw = null;
        return;
      }
      if (typeof raw !== "string") {
        (raw || []).forEach(function (c, k) { if (k < 6) cols[k].parts.push(c); });
        raw = null;
        return;
      }
      for (var i = raw.indexOf("[") + 1, c = 0; c < 6 && i > 0; c++) {
        var e = raw.indexOf("]", i);
        if (raw.charCodeAt(i) !== 91 || e < 0) break;
        for (var j = i + 1; j < e;) {
          var f = j + PIECE >= e ? e : raw.indexOf(",", j + PIECE);
          if (f < 0 || f > e) f = e;
          cols[c].pieces.push([j, f]);
          j = f + 1;
        }
        i = e + 2;
      }
    }
    function piece(c) {
      var x = cols[c].pieces.shift();
      cols[c].parts.push(JSON.parse("[" + raw0.slice(x[0], x[1]) + "]"));
    }
    var raw0 = null;
    // The object form's varint columns, decoded a slice of SLICE numbers
    // per task (slice(); col(name) decodes what is left at once), then
    // column k from them.
    var SLICE = 1 << 18, got = {}, cur = null, packed = null;
    var VCOLS = [["kind", "n", false], ["start", "n", false], ["duration", "intervals", false], ["data", "with_data", true]];
    // The packed form (obj.gz): one stream, its base85 and then its gzip
    // decoded 8 ms a task (unpack(true): the next slice; false when not
    // done), cut into its parts (threads, kind, start, duration, data,
    // and the payloads' texts unless the object has them).
    // A stream that cannot be read (damaged: the inflater's error) gives no
    // markers, and T.markersError says why (the range note shows it).
    var unz = null;
    function unpack(slice) {
      if (packed) return packed;
      var P = obj.packed || {}, t0 = Date.now();
      if (!unz) unz = { text: new PK.Base85(obj.gz || "", P.gz_bytes || 0), gz: null };
      // small steps (16,384 groups; a block or more up to 64 KB) for 8 ms a task
      try {
        for (;;) {
          if (!unz.gz) {
            if (unz.text.step(slice ? 1 << 14 : Infinity)) unz.gz = new PK.Gunzip(unz.text.out, P.bytes || 0);
          } else if (unz.gz.step(slice ? 1 << 16 : Infinity)) break;
          if (slice && Date.now() - t0 >= 8) return false;
        }
      } catch (e) {
        T.markersError = String(e && e.message || e);
        obj.n = obj.runs = obj.intervals = obj.with_data = 0;
        unz = { gz: { out: new Uint8Array(0) } };
        P = {};
      }
      var u = unz.gz.out, parts = P.parts || [], at = 0;
      unz = null;
      packed = {};
      ["threads", "kind", "start", "duration", "data", "payloads"].forEach(function (name, k) {
        var len = Math.max(0, parts[k] | 0);
        packed[name] = u.subarray(Math.min(at, u.length), Math.min(at + len, u.length));
        at += len;
      });
      return packed;
    }
    // The bytes of a varint column: a part of the packed stream, or (the
    // form before it) its base64 text.
    function bytesOf(name) {
      if (obj.gz !== undefined) return unpack()[name];
      var t = atob(obj[name] || ""), b = new Uint8Array(t.length);
      for (var i = 0; i < t.length; i++) b[i] = t.charCodeAt(i);
      return b;
    }
    // n varints of b from byte i; with planes s, value k is the varint
    // times 256^s plus its low bytes b[p n + k] * 256^p (p < s).
    function advance(spec, limit) {
      if (got[spec[0]]) return true;
      if (!cur || cur.name !== spec[0]) {
        var n0 = obj[spec[1]] | 0, pl = obj.gz !== undefined && obj.packed && obj.packed.planes || [];
        var s = spec[0] === "start" ? pl[0] | 0 : spec[0] === "duration" ? pl[1] | 0 : 0;
        cur = { name: spec[0], b: bytesOf(spec[0]), i: s * n0, k: 0, n: n0, s: s, out: new Float64Array(n0) };
        if (cur.b.length < cur.i) cur.i = cur.b.length;
        return false;
      }
      var b = cur.b, i = cur.i, k = cur.k, n = cur.n, out = cur.out, len = b.length, signed = spec[2], s = cur.s;
      var end = Math.min(n, k + limit), f = Math.pow(256, s);
      while (k < end && i < len) {
        var c = b[i++], v = c & 127;
        if (c & 128) {
          var m = 128;
          do { c = b[i++]; v += (c & 127) * m; m *= 128; } while (c & 128 && i < len);
        }
        if (s) {
          v *= f;
          for (var p = 0, q = 1; p < s; p++, q *= 256) v += b[p * n + k] * q;
        }
        out[k++] = signed ? (v % 2 ? -(v + 1) / 2 : v / 2) : v;
      }
      cur.i = i; cur.k = k;
      if (k < n && i < len) return false;
      got[spec[0]] = out; cur = null;
      return true;
    }
    function slice() {
      if (obj.gz !== undefined && !packed) { unpack(true); return false; }
      for (var s = 0; s < VCOLS.length; s++) if (!got[VCOLS[s][0]]) { advance(VCOLS[s], SLICE); return false; }
      return true;
    }
    function col(name) {
      for (var s = 0; s < VCOLS.length; s++) if (VCOLS[s][0] === name) while (!advance(VCOLS[s], Infinity));
      return got[name];
    }
    // Column k of the object form.
    function decoded(k) {
      var n = obj.n | 0, kinds = obj.kinds || [], i, j = 0, out;
      if (!kindOf) kindOf = Int32Array.from(col("kind"));
      var flags = function (i) { return kinds[3 * kindOf[i] + 2] | 0; };
      var runs = obj.gz !== undefined ? PK.varints(unpack().threads, 2 * (obj.runs | 0)) : PK.column(obj.threads || "", 2 * (obj.runs | 0));
      var unit = obj.unit || 1, r;
      if (k === 0) {
        out = new Int32Array(n);
        for (i = r = 0; r < runs.length; r += 2) { var e = Math.min(n, i + runs[r + 1]); out.fill(runs[r], i, e); i = e; }
        return out;
      }
      if (k === 1 || k === 2) {
        out = new Int32Array(n);
        for (i = 0; i < n; i++) out[i] = kinds[3 * kindOf[i] + k - 1] | 0;
        return out;
      }
      if (k === 3) {
        // a thread's first start zigzag-coded, the others after the one before
        out = col("start");
        for (i = r = 0; r < runs.length; r += 2) {
          var end = Math.min(n, i + runs[r + 1]), v = out[i];
          if (i < end) out[i] = (v % 2 ? -(v + 1) / 2 : v / 2) * unit;
          for (var a = i + 1; a < end; a++) out[a] = out[a - 1] + out[a] * unit;
          i = Math.max(i, end);
        }
        return out;
      }
      if (k === 4) {
        var dur = col("duration");
        out = new Float64Array(n);
        for (i = 0; i < n; i++) out[i] = flags(i) & 1 ? (j < dur.length ? dur[j++] * unit : 0) : -1;
        return out;
      }
      // payloads: the difference from the one before, zigzag-coded
      var idx = col("data"), texts = obj.payloads || [], base = prof.strings.length, x = 0;
      // the packed stream's sixth part: their JSON array (UTF-8)
      if (obj.gz !== undefined && !obj.payloads && unpack().payloads.length) texts = JSON.parse(new TextDecoder().decode(unpack().payloads));
      for (i = 0; i < texts.length; i++) prof.strings.push(texts[i]);
      out = new Int32Array(n);
      for (i = 0; i < n; i++) if (flags(i) & 2 && j < idx.length) { x += idx[j++]; out[i] = x >= 0 && x < texts.length ? base + x : 0; }
      return out;
    }
    function column(k) {
      if (obj) return decoded(k);
      var parts = cols[k].parts, n = 0, i, j, o = 0;
      for (i = 0; i < parts.length; i++) n += parts[i].length;
      var out = k === 3 || k === 4 ? new Float64Array(n) : new Int32Array(n), acc = 0;
      for (i = 0; i < parts.length; i++)
        for (j = 0; j < parts[i].length; j++) out[o++] = k === 3 ? (acc += parts[i][j]) : parts[i][j];
      return out;
    }
    function finish() {
      for (var c = 0; c < 6; c++) while (cols[c].pieces.length) piece(c);
      var C = [];
      for (c = 0; c < 6; c++) C.push(cols[c].out || column(c));
      parsed = { n: C[1].length, thread: C[0], name: C[1], category: C[2], start: C[3], duration: C[4], data: C[5] };
      cols = null; raw0 = null; obj = null; kindOf = null; got = {}; cur = null; packed = null; unz = null;
      var w = waiting; waiting = [];
      w.forEach(function (f) { f(parsed); });
      return parsed;
    }
    function begin() { var r = typeof raw === "function" ? raw() : raw; raw = r; split(); raw0 = typeof r === "string" ? r : null; raw = null; }
    // Reads the markers a piece per task (after the document is parsed),
    // then calls done(markers).
    T.loadMarkers = function (done) {
      if (parsed) { done(parsed); return; }
      waiting.push(done);
      if (loading) return;
      loading = true;
      function step() {
        if (parsed) return;
        if (!cols) begin();
        else if (obj && !slice()) { /* a slice of the varint columns */ }
        else {
          var c = 0;
          while (c < 6 && !cols[c].pieces.length && cols[c].out) c++;
          if (c === 6) { finish(); return; }
          if (cols[c].pieces.length) piece(c); else cols[c].out = column(c), cols[c].parts = null;
        }
        setTimeout(step, 0);
      }
      if (typeof document !== "undefined" && document.readyState === "loading")
        document.addEventListener("DOMContentLoaded", function () { setTimeout(step, 0); });
      else setTimeout(step, 0);
    };
    Object.defineProperty(T, "markers", { get: function () {
      if (parsed) return parsed;
      // Not in the document yet: none for now (loadMarkers reads them later).
      if (!cols && typeof raw === "function" && typeof document !== "undefined" && document.readyState === "loading")
        return { n: 0, thread: new Int32Array(0), name: new Int32Array(0), category: new Int32Array(0),
                 start: new Float64Array(0), duration: new Float64Array(0), data: new Int32Array(0) };
      if (!cols) begin();
      return finish();
    } });
    return T;
  };
  // A category's fill for the colour name Gecko gives it (as the Firefox
  // Profiler's palette names them); null for "transparent" (Idle: not
  // drawn). Unknown names are grey.
  var CATEGORY_FILLS = {
    grey: ["#b8b8bd", "#6e6e73"], gray: ["#b8b8bd", "#6e6e73"], yellow: ["#ffd60a", "#b89a00"],
    orange: ["#ff9f1a", "#c26f00"], red: ["#ff4f5e", "#c4313d"], green: ["#3fcf5c", "#2a9640"],
    blue: ["#3d8bff", "#2f64bd"], lightblue: ["#8cc8ff", "#4f86b8"], purple: ["#9a6bff", "#6f47c2"],
    magenta: ["#ff4fd8", "#b8359c"], brown: ["#b08850", "#7d5f35"], darkgray: ["#7d7d82", "#55555a"]
  };
  PK.categoryFill = function (color, dark) {
    if (color === "transparent") return null;
    var f = CATEGORY_FILLS[color] || CATEGORY_FILLS.grey;
    return f[dark ? 1 : 0];
  };
  // ms on the Firefox Profiler's zero <-> ns on the samples' axis.
  Profile.prototype.msOf = function (ns) { var T = this.time(); return (ns - (T ? T.zero : 0)) / 1e6; };
  Profile.prototype.nsOf = function (ms) { var T = this.time(); return (T ? T.zero : 0) + ms * 1e6; };

  // Thread t's every timed sample, decoded on first use: time (ns on the
  // samples' axis), node, and per value type a number (every sample's)
  // or the values.
  Profile.prototype.timeline = function (t) {
    this._tl = this._tl || [];
    if (this._tl[t] !== undefined) return this._tl[t];
    var th = this.threads[t], d = th && th.timeline;
    // the page's columns are strings (PK.column), a test's arrays
    var n = d && d.time ? (typeof d.time === "string" ? d.n || 0 : d.time.length) : 0;
    if (!n) return (this._tl[t] = null);
    var gap = PK.column(d.time, n, false), unit = d.unit || 1, time = new Float64Array(n), acc = 0, i;
    for (i = 0; i < n; i++) { acc += gap[i] * unit; time[i] = acc; }
    var node = new Int32Array(n), nd = PK.column(d.node, n, typeof d.node === "string");
    if (typeof d.node === "string") for (acc = 0, i = 0; i < n; i++) { acc += nd[i]; node[i] = acc; }
    else node.set(nd);
    var cat = d.category ? Uint16Array.from(PK.column(d.category, n, false)) : null, cpu = null;
    if (typeof d.cpu === "string") {
      cpu = PK.column(d.cpu, n, false);   // 1 + zigzag, 0 for a sample without
      for (i = 0; i < n; i++) cpu[i] = cpu[i] ? (cpu[i] % 2 ? (cpu[i] - 1) / 2 : -cpu[i] / 2) : 0;
    } else if (d.cpu) cpu = d.cpu;
    this._tl[t] = {
      n: n, time: time, node: node,
      // Per sample and per node: 1 + index into time().categories, 0 = none.
      category: cat && cat.length === n ? cat : null,
      nodeCategory: d.node_category ? Uint16Array.from(d.node_category) : null,
      // CPU deltas (Gecko's threadCPUDelta), null or 0 for a sample without
      cpu: cpu && cpu.length === n ? cpu : null,
      value: (d.value || []).map(function (v) { return typeof v === "number" ? v : PK.column(v, n, typeof v === "string"); })
    };
    return this._tl[t];
  };
  // The first sample at or after time x (ns).
  function lowerBound(a, x) {
    var lo = 0, hi = a.length;
    while (lo < hi) { var mid = (lo + hi) >> 1; if (a[mid] < x) lo = mid + 1; else hi = mid; }
    return lo;
  }
  PK.lowerBound = lowerBound;

  // The range that narrows every view: null, or [startMs, endMs] on the
  // zero, as --range takes it (START <= time < END; an empty range holds
  // its one instant). The trees of the range are made on first use.
  Profile.prototype.setRange = function (r) {
    var key = r ? r[0] + "-" + r[1] : "";
    if (key === (this._rangeKey || "")) return;
    this._rangeKey = key;
    this.range = r;
    this._trees = this._rangeTrees = [];
    this._inverted = [];
    this._inverting = [];
    this._rangeCache = this._rangeCache || {};
    if (this._rangeCache[key]) this._trees = this._rangeCache[key];
    else this._rangeCache = {}, this._rangeCache[key] = this._trees;   // keep one range's trees
  };
  // The range in ns on the samples' axis, [lo, hi).
  Profile.prototype.rangeNs = function () {
    if (!this.range) return null;
    var lo = Math.round(this.nsOf(this.range[0])), hi = Math.round(this.nsOf(this.range[1]));
    return [lo, hi === lo ? hi + 1 : hi];
  };
  // The whole tree of thread t, whatever the range.
  Profile.prototype.wholeTree = function (t) {
    this._whole = this._whole || [];
    if (!this._whole[t]) {
      var keep = this._trees; this._trees = [];
      this._whole[t] = baseTree.call(this, t);
      this._trees = keep;
    }
    return this._whole[t];
  };
  // Whether a range narrows the views (the page holds every sample).
  Profile.prototype.narrows = function () { var T = this.time(); return !!T && !T.samplesLeftOut; };
  Profile.prototype.tree = function (t) {
    if (!this.range || !this.narrows()) return this.wholeTree(t);
    if (this._trees[t]) return this._trees[t];
    var th = this.threads[t], ns = this.rangeNs(), tree;
    if (th.merged) {
      // All threads merged: the threads' trees of the range, merged by
      // call path (its "(other)" nodes are the threads' own). The merged
      // nodes and each thread's map onto them are made once; a range only
      // adds its threads' self values.
      // Each thread's samples of the range go straight to the merged
      // nodes (no thread's tree of the range is made).
      var M = this.mergedBase(), nv = this.values.length, self = [], v, k;
      for (v = 0; v < nv; v++) self.push(new Float64Array(M.tree.n));
      for (var i = 0; i < M.threads.length; i++) {
        var tl = this.timeline(M.threads[i]), map = M.maps[i];
        if (!tl) continue;
        var a = lowerBound(tl.time, ns[0]), b = lowerBound(tl.time, ns[1]), node = tl.node;
        for (v = 0; v < nv; v++) {
          var to = self[v], w = tl.value[v];
          if (typeof w === "number") for (k = a; k < b; k++) to[map[node[k]]] += w;
          else for (k = a; k < b; k++) to[map[node[k]]] += w[k];
        }
      }
      tree = shareTree(M.tree, self);
    } else tree = rangedTree(this.wholeTree(t), this.timeline(t), ns[0], ns[1]);
    tree.range = this.range;
    this._trees[t] = tree;
    return tree;
  };
  // The merged nodes of every thread's whole tree, and each thread's map
  // onto them (node 0 onto 0).
  Profile.prototype.mergedBase = function () {
    if (this._mergedBase) return this._mergedBase;
    var b = new PK.TreeBuilder(1, false), self = this, threads = [], maps = [];
    this.threads.forEach(function (x, i) {
      if (x.merged) return;
      var tr = self.wholeTree(i), map = new Int32Array(tr.n);
      for (var k = 1; k < tr.n; k++) map[k] = b.child(map[tr.parent[k]], tr.func[k]);
      threads.push(i); maps.push(map);
    });
    return (this._mergedBase = { tree: b.build(), threads: threads, maps: maps });
  };
  // A tree with t's nodes and other self values.
  function shareTree(t0, self) {
    var t = Object.create(Tree.prototype);
    t.n = t0.n; t.parent = t0.parent; t.func = t0.func; t.self = self; t.baseSelf = null;
    t.kidStart = t0.kidStart; t.kids = t0.kids; t.depth = t0.depth; t.maxDepth = t0.maxDepth;
    t._total = []; t._baseTotal = []; t._order = {};
    return t;
  }
  // The tree of the samples in [lo, hi): the whole tree's nodes with the
  // self values of those samples only (untimed samples are in no range).
  function rangedTree(whole, tl, lo, hi) {
    var nv = whole.self.length, self = [], v, i;
    for (v = 0; v < nv; v++) self.push(new Float64Array(whole.n));
    if (tl) {
      var a = lowerBound(tl.time, lo), b = lowerBound(tl.time, hi), node = tl.node;
      for (v = 0; v < nv; v++) {
        var s = self[v], w = tl.value[v];
        if (typeof w === "number") for (i = a; i < b; i++) s[node[i]] += w;
        else for (i = a; i < b; i++) s[node[i]] += w[i];
      }
    }
    return shareTree(whole, self);
  }
  PK.rangedTree = rangedTree;

  // ---- window.profkit.query: the reports' JSON for the view shown ----

  function threadName(p, t) { var th = p.threads[t]; return th.merged ? null : p.str(th.name); }
  function cmpBytes(a, b) { return a < b ? -1 : a > b ? 1 : 0; }
  function valueOf(p, v) { return { type: p.values[v].type, unit: p.values[v].unit }; }

  // top's rows: a function is its name, apart by file where functions of
  // two or more files share the name (one without a file is the name's);
  // a row names a function of its file where one has it.
  function topKeys(p) {
    if (p._topKeys) return p._topKeys;
    var n = p.funcName.length, files = new Map(), key = new Array(n), rep = new Map(), f;
    for (f = 0; f < n; f++) {
      var nm = p.funcLabel(f), fl = p.str(p.funcFile[f]);
      if (!fl) continue;
      var had = files.get(nm);
      if (had === undefined) files.set(nm, fl);
      else if (had !== fl) files.set(nm, true);
    }
    for (f = 0; f < n; f++) {
      var name = p.funcLabel(f), file = p.str(p.funcFile[f]);
      var k = files.get(name) === true && file ? name + "\u0000" + file : name;
      key[f] = k;
      var r = rep.get(k);
      if (r === undefined || (!p.str(p.funcFile[r]) && file)) rep.set(k, f);
    }
    // functions the page adds later (a label's pseudo-frames) and the
    // root and "(other)" are keyed by their label, named by themselves
    var of = function (f) { return f >= 0 && f < n ? key[f] : "\u0001" + p.funcLabel(f); };
    var repOf = function (f) { return f >= 0 && f < n ? rep.get(key[f]) : f; };
    return (p._topKeys = { key: key, rep: rep, of: of, repOf: repOf });
  }
  // ---- inlined functions (docs/viewer.md: a tree's "inline" pairs) ----
  // Per node of `tree` (a tree of the page's thread t: whole, of a range,
  // of a label, transformed) for value v, the data's flags of the node with
  // its call path: 1 every call of its frames inlined into its caller, 2
  // none, 3 some, 0 unknown ("(other)", a path the data has not). The
  // calls are those of the thread's rows with a value of v (the data's
  // "inline_values" when they differ from its "inline", which is every
  // row's), by the rule top and tree mark by (src/analysis/inline_marks.c);
  // in a diff of BASE's rows too. A transformed tree's node has the flags
  // of the nodes of its function mapped to it. null when no frame of the
  // profile is inlined.
  function dataFlags(th, v) {
    var dt = th.tree, per = dt.inline_values, pairs = per && v !== undefined && per[v] ? per[v] : dt.inline;
    var cache = th._inlFlags || (th._inlFlags = new Map()), s = cache.get(pairs);
    if (s) return s;
    var dp = dt.parent, df = dt.func, i;
    // the pairs (gap, flag): a function's node not listed is 2
    s = new Uint8Array(dp.length);
    for (i = 1; i < dp.length; i++) s[i] = df[i] >= 0 ? 2 : 0;
    for (var j = 0, at0 = 0; j + 1 < pairs.length; j += 2) { at0 += pairs[j]; if (at0 < dp.length) s[at0] = pairs[j + 1]; }
    cache.set(pairs, s);
    return s;
  }
  PK.nodeInline = function (p, t, tree, v) {
    var th = p.threads[t], dt = th && th.tree;
    if (!dt || !dt.inline || !tree) return null;
    var key = dt.inline_values && v !== undefined && dt.inline_values[v] ? v : -1;
    if (tree._inlOf !== th) { tree._inl = new Map(); tree._inlOf = th; }
    var out = tree._inl.get(key);
    if (out) return out;
    var n = tree.n, i;
    out = new Uint8Array(n);
    if (tree.xfFrom && tree.nodeMap) {
      // transformed: each old node's flags go to its new node of the same
      // function, unless its caller's went there too (a collapsed
      // recursion keeps the outer frame, as the command line does)
      var old = PK.nodeInline(p, t, tree.xfFrom, v), map = tree.nodeMap, of = tree.xfFrom.func, op = tree.xfFrom.parent;
      for (i = 1; i < map.length; i++) {
        var to = map[i];
        if (to > 0 && tree.func[to] === of[i] && map[op[i]] !== to) out[to] |= old[i];
      }
    } else {
      var s = dataFlags(th, v), dp = dt.parent, df = dt.func;
      var same = n === dp.length;
      for (i = 1; same && i < n; i++) same = tree.parent[i] === dp[i] && tree.func[i] === df[i];
      if (same) out.set(s);
      else {
        var idx = th._inlIdx, at = new Int32Array(n);
        if (!idx) { idx = th._inlIdx = new Map(); for (i = 1; i < dp.length; i++) idx.set(dp[i] + ":" + df[i], i); }
        for (i = 1; i < n; i++) {
          var up = at[tree.parent[i]], k = up >= 0 ? idx.get(up + ":" + tree.func[i]) : undefined;
          at[i] = k === undefined ? -1 : k;
          if (k !== undefined) out[i] = s[k];
        }
      }
    }
    tree._inl.set(key, out);
    return out;
  };
  // Per function (top's key) of thread t's tree for value v, as `profkit
  // top` marks its rows: the flags of its nodes under a caller (not at the
  // root) with a value in them (in a diff, in BASE or NEW). null when no
  // frame is inlined.
  PK.topInline = function (p, t, v, tree) {
    var inl = PK.nodeInline(p, t, tree, v);
    if (!inl) return null;
    if (tree._topInlOf === inl && tree._topInlV === v) return tree._topInl;
    var n = tree.n, self = tree.self[v], bself = tree.baseSelf ? tree.baseSelf[v] : null;
    var par = tree.parent, depth = tree.depth, func = tree.func;
    var keys = topKeys(p), live = new Uint8Array(n), out = new Map(), i;
    for (i = n - 1; i > 0; i--) if (live[i] || self[i] !== 0 || (bself && bself[i] !== 0)) { live[i] = 1; live[par[i]] = 1; }
    for (i = 1; i < n; i++) {
      if (!live[i] || depth[i] < 2 || !inl[i]) continue;
      var k = keys.of(func[i]);
      out.set(k, (out.get(k) | 0) | inl[i]);
    }
    tree._topInlOf = inl; tree._topInlV = v; tree._topInl = out;
    return out;
  };
  // The JSON rows' "inline" ("all", "partial") and the text's mark.
  PK.inlineWord = function (b) { return b === 1 ? "all" : b === 3 ? "partial" : null; };
  PK.inlineMark = function (b) { return b === 1 ? " (inline)" : b === 3 ? " (partial-inline)" : ""; };
  PK.topKeyOf = function (p, f) { return topKeys(p).of(f); };
  // The mark (hover, frame label) for node n of `tree` (the page's thread
  // t, value v): the node's own when tree is the thread's, else its
  // function's (a sandwich's callers, the inverted tree).
  PK.hoverInline = function (p, t, v, tree, n) {
    if (n <= 0 || !p.threads[t] || !(p.threads[t].tree || {}).inline) return "";
    var shown = p.tree(t);
    if (tree === shown) return PK.inlineMark(PK.nodeInline(p, t, tree, v)[n]);
    var f = tree.func[n], m = f >= 0 ? PK.topInline(p, t, v, shown) : null;
    return m ? PK.inlineMark(m.get(topKeys(p).of(f))) : "";
  };

  // top's calls column: the calls value beside a cpu or wall value (bsprof)
  function callsValue(p, v) {
    var t = p.values[v].type;
    if (t !== "cpu" && t !== "wall") return -1;
    for (var w = 0; w < p.values.length; w++) if (w !== v && p.values[w].type === "calls") return w;
    return -1;
  }

  // `profkit top --json` (by function, sorted by flat) for thread t, value
  // v, the range shown. opts.limit: rows (default 20, as top's; 0 = all).
  PK.queryTop = function (p, t, v, opts) {
    opts = opts || {};
    var limit = opts.limit === undefined ? 20 : opts.limit;
    var tree = p.tree(t), self = tree.self[v], tot = tree.total(v), n = tree.n, func = tree.func;
    // Rows by name (as top's labels); cum counts a name once per path.
    var keys = topKeys(p), cv = callsValue(p, v), cself = cv >= 0 ? tree.self[cv] : null;
    var marks = PK.topInline(p, t, v, tree);
    var rows = new Map(), onPath = new Map(), stack = [0], state = [], i;
    var row = function (name, f) {
      var r = rows.get(name);
      if (!r) {
        var nm = p.funcLabel(f), rf = keys.repOf(f);
        r = { name: nm };
        if (rf >= 0 && p.str(p.funcFile[rf])) r.file = p.str(p.funcFile[rf]);
        if (rf >= 0 && (p.funcLine[rf] | 0)) r.line = p.funcLine[rf] | 0;
        var iw = marks && PK.inlineWord(marks.get(name));
        if (iw) r.inline = iw;
        r.flat = 0; r.cum = 0;
        if (cself) r.calls = 0;
        rows.set(name, r);
      }
      return r;
    };
    // Depth-first walk; a name counts in cum at its outermost occurrence.
    var ks = tree.kidStart, kids = tree.kids;
    var names = new Array(n);
    for (i = 1; i < n; i++) names[i] = keys.of(func[i]);
    // a subtree is walked when a value is in it (a delta profile's
    // +x and -x under one node total 0 and are still rows)
    var live = new Uint8Array(n), par = tree.parent;
    for (i = n - 1; i > 0; i--) if (live[i] || self[i] !== 0) { live[i] = 1; live[par[i]] = 1; }
    var it = [0], pos = [ks[0]];
    while (it.length) {
      var x = it[it.length - 1], j = pos[pos.length - 1];
      if (j < ks[x + 1]) {
        pos[pos.length - 1]++;
        var c = kids[j];
        if (!live[c]) continue;
        var nm = names[c], k = onPath.get(nm) || 0;
        var r = row(nm, func[c]);
        r.flat += self[c];
        if (cself) r.calls += cself[c];
        if (k === 0) r.cum += tot[c];
        onPath.set(nm, k + 1);
        it.push(c); pos.push(ks[c]);
      } else {
        it.pop(); pos.pop();
        if (x > 0) onPath.set(names[x], onPath.get(names[x]) - 1);
      }
    }
    var out = [];
    rows.forEach(function (r) { if (r.flat || r.cum) out.push(r); });
    out.sort(function (a, b) { return b.flat - a.flat || b.cum - a.cum || cmpBytes(a.name, b.name) || cmpBytes(a.file || "", b.file || ""); });
    if (limit > 0) out = out.slice(0, limit);
    var res = { schema: 1, report: "top", value: valueOf(p, v), thread: threadName(p, t), by: "function",
                sort: "flat", min_percent: 0, total: tot[0] };
    // top's whole total is noted after its time filter: the range's
    if (p.range) res.whole_total = tot[0];
    res.rows = out;
    return res;
  };

  // One thread's tree as `profkit tree --json` lists it: depth first,
  // children by total (the largest first), ties by name.
  function treeNodes(p, tree, v, t) {
    var tot = tree.total(v), self = tree.self[v], ks = tree.kidStart, kids = tree.kids, func = tree.func;
    var inl = PK.nodeInline(p, t, tree, v);
    var out = [], stack = [[0, 0]], keys = topKeys(p);
    var sorted = function (x) {
      var a = [];
      for (var j = ks[x]; j < ks[x + 1]; j++) if (tot[kids[j]] !== 0 || self[kids[j]] !== 0) a.push(kids[j]);
      a.sort(function (m, q) { return tot[q] - tot[m] || cmpBytes(p.funcLabel(func[m]), p.funcLabel(func[q])); });
      return a;
    };
    while (stack.length) {
      var e = stack.pop(), x = e[0], d = e[1];
      if (x > 0) {
        // named as top names the function (a frame of its file)
        var fx = keys.repOf(func[x]), nd = { depth: d, name: p.funcLabel(func[x]) };
        if (fx >= 0 && p.str(p.funcFile[fx])) nd.file = p.str(p.funcFile[fx]);
        if (fx >= 0 && (p.funcLine[fx] | 0)) nd.line = p.funcLine[fx] | 0;
        var iw = inl && PK.inlineWord(inl[x]);
        if (iw) nd.inline = iw;
        nd.total = tot[x]; nd.self = self[x];
        out.push(nd);
      }
      var ch = sorted(x);
      for (var i = ch.length - 1; i >= 0; i--) stack.push([ch[i], d + 1]);
    }
    return out;
  }
  // `profkit tree --json` for thread t (the merged entry: each thread, as
  // tree without --thread lists them), value v, the range shown.
  PK.queryTree = function (p, t, v) {
    var list = [];
    if (p.threads[t].merged) p.threads.forEach(function (th, i) { if (!th.merged) list.push(i); });
    else list.push(t);
    var all = 0;
    p.threads.forEach(function (th, i) { if (!th.merged) all += p.tree(i).total(v)[0]; });
    var trees = list.map(function (i) {
      var tree = p.tree(i);
      return { thread: threadName(p, i), total: tree.total(v)[0], nodes: treeNodes(p, tree, v, i) };
    }).filter(function (x) { return x.nodes.length || x.total; });   // (a thread of samples without a frame: tree lists it)
    return { schema: 1, report: "tree", value: valueOf(p, v), thread: threadName(p, t), total: all,
             max_depth: 0, min_percent: 0, trees: trees };
  };

  // The profile's index of the page's thread t (-1: the merged entry).
  Profile.prototype.threadIndex = function (t) {
    var th = this.threads[t];
    return !th || th.merged || th.index === undefined ? -1 : th.index;
  };
  // The markers of the page's thread t (-1 or the merged entry: every
  // thread) that overlap the range r [lo, hi) ms (null: all), as
  // `profkit markers --list --json` lists them.
  PK.markersIn = function (p, t, r) {
    var T = p.time();
    if (!T) return [];
    t = t >= 0 ? p.threadIndex(t) : -1;
    var M = T.markers, out = [];
    for (var i = 0; i < M.n; i++) {
      if (t >= 0 && M.thread[i] !== t) continue;
      var s = M.start[i] / 1e6, d = M.duration[i] < 0 ? null : M.duration[i] / 1e6;
      if (r && !(d === null ? s >= r[0] && s < r[1] : s < r[1] && s + d >= r[0])) continue;
      out.push(i);
    }
    return out;
  };
})(typeof globalThis !== "undefined" ? (globalThis.profkit = globalThis.profkit || {}) : (this.profkit = this.profkit || {}));
