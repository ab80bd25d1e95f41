// Unit tests of the viewer page's non-DOM logic (src/report/flame/page/
// 10_data.js, 15_format.js, 20_colors.js), loaded into a bare VM context
// as the page loads them: plain scripts attaching to one `profkit` object.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import vm from "node:vm";
import { pageDir } from "./make_page.mjs";

function load() {
  const ctx = vm.createContext({});
  for (const f of ["10_data.js", "15_format.js", "20_colors.js"])
    vm.runInContext(readFileSync(join(pageDir, f), "utf8"), ctx, { filename: f });
  return ctx.profkit;
}
const PK = load();
// Arrays made in the VM context have another realm's prototype: compare plain copies.
const plain = (x) => JSON.parse(JSON.stringify(x));

// A profile from folded-style lines "a;b;c N" (one value type, "cpu" ns).
function profile(lines, extra) {
  const strings = [""], funcs = { name: [], file: [], line: [], module: [] }, fi = new Map();
  const parent = [-1], func = [-1], self = [0], kids = [new Map()];
  for (const l of lines) {
    const sp = l.lastIndexOf(" "), stack = l.slice(0, sp).split(";"), n = +l.slice(sp + 1);
    let node = 0;
    for (const name of stack) {
      let f = fi.get(name);
      if (f === undefined) { f = funcs.name.length; fi.set(name, f); strings.push(name); funcs.name.push(strings.length - 1); funcs.file.push(0); funcs.line.push(0); funcs.module.push(0); }
      let c = kids[node].get(f);
      if (c === undefined) { c = parent.length; parent.push(node); func.push(f); self.push(0); kids.push(new Map()); kids[node].set(f, c); }
      node = c;
    }
    self[node] += n;
  }
  return new PK.Profile(Object.assign({
    schema: 1, title: "t", strings, funcs, values: [{ type: "cpu", unit: "nanoseconds" }], default_value: 0,
    threads: [{ name: 0, process: 0, pid: -1, tid: -1, merged: true, tree: { parent, func, self: [self] } }],
  }, extra || {}));
}
const label = (p, t, n) => p.funcLabel(t.func[n]);
function nodeByPath(p, t, path) { return PK.findPath(p, t, path.split(";")); }

test("totals are self plus the children's totals", () => {
  const p = profile(["a;b 3", "a;c 2", "a 1", "d 4"]);
  const t = p.tree(0), tot = t.total(0);
  assert.equal(tot[0], 10);
  assert.equal(tot[nodeByPath(p, t, "a")], 6);
  assert.equal(tot[nodeByPath(p, t, "a;b")], 3);
  assert.equal(t.maxDepth, 2);
});

test("a parent after its child is refused", () => {
  assert.throws(() => new PK.Tree([-1, 2, 0], [-1, 0, 1], [[0, 1, 1]]), /parents must precede children/);
});

test("children order: widest first, ties by name; or by name", () => {
  const p = profile(["x;b 1", "x;a 1", "x;c 5"]);
  const t = p.tree(0), x = nodeByPath(p, t, "x");
  const kids = (o) => Array.from(o.slice(t.kidStart[x], t.kidStart[x + 1])).map((n) => label(p, t, n));
  assert.deepEqual(kids(t.order("width", 0, p.nameOf)), ["c", "a", "b"]);
  assert.deepEqual(kids(t.order("name", 0, p.nameOf)), ["a", "b", "c"]);
});

test("inverted tree: roots are where value is spent, children their callers", () => {
  const p = profile(["main;f;g 3", "main;h;g 2", "main;f 1"]);
  const inv = p.inverted(0), tot = inv.total(0);
  assert.equal(tot[0], 6);
  const g = nodeByPath(p, inv, "g");
  assert.equal(label(p, inv, g), "g");
  assert.equal(tot[g], 5);
  assert.equal(tot[nodeByPath(p, inv, "g;f")], 3);
  assert.equal(tot[nodeByPath(p, inv, "g;h")], 2);
  assert.equal(tot[nodeByPath(p, inv, "g;f;main")], 3);
  assert.equal(tot[nodeByPath(p, inv, "f;main")], 1);
});

test("top functions count recursion once in the total", () => {
  const p = profile(["main;r;r;r 4", "main;r 1", "main;x 2"]);
  const rows = PK.topFunctions(p.tree(0), 0);
  const by = Object.fromEntries(rows.map((r) => [p.funcLabel(r.func), r]));
  assert.deepEqual([by.r.self, by.r.total], [5, 5]);
  assert.deepEqual([by.main.self, by.main.total], [0, 7]);
  assert.deepEqual([by.x.self, by.x.total], [2, 2]);
});

test("search share counts a path once, at its outermost match", () => {
  const p = profile(["main;parse;parse_num 3", "main;parse 1", "main;eval;parse 2", "main;other 4"]);
  const t = p.tree(0);
  const s = PK.searchShare(p, t, 0, PK.searchRegex("parse"));
  assert.equal(s.value, 6);                 // 3 + 1 + 2: parse_num under parse is not counted again
  assert.equal(s.count, 3);                 // matched nodes: parse, parse_num, eval;parse
  const none = PK.searchShare(p, t, 0, PK.searchRegex("^zzz$"));
  assert.equal(none.value, 0);
  assert.ok(PK.searchRegex("(").error, "a bad expression is reported, not thrown");
  assert.equal(PK.searchRegex("Parse").flags, "", "an upper-case letter makes the search case-sensitive");
});

test("sandwich: callees merged over every place, callers inverted, recursion once", () => {
  const p = profile(["main;a;f;g 3", "main;b;f;h 2", "main;b;f;f;g 1", "main;f 4"]);
  const t = p.tree(0), f = p.funcName.findIndex((_, i) => p.funcLabel(i) === "f");
  const sw = PK.sandwich(t, f);
  const ce = sw.callees, ct = ce.total(0);
  assert.equal(ct[1], 10);                          // every value under f, once
  assert.equal(ct[nodeByPath(p, ce, "f;g")], 3);
  assert.equal(ct[nodeByPath(p, ce, "f;h")], 2);
  assert.equal(ct[nodeByPath(p, ce, "f;f;g")], 1);  // recursion stays inside the callees
  const cr = sw.callers, rt = cr.total(0);
  assert.equal(rt[1], 10);
  assert.equal(rt[nodeByPath(p, cr, "f;a")], 3);
  assert.equal(rt[nodeByPath(p, cr, "f;b")], 3);
  assert.equal(rt[nodeByPath(p, cr, "f;main")], 4);     // main calls f directly for 4
  assert.equal(rt[nodeByPath(p, cr, "f;b;main")], 3);
  assert.equal(sw.occurrences, 3);
});

test("diff trees carry base totals", () => {
  const p = profile(["a;b 3"], { diff: true });
  p.threads[0].tree.base_self = [[0, 1, 5]];
  const t = p.tree(0);
  assert.deepEqual(Array.from(t.baseTotal(0)), [6, 6, 5]);
  assert.deepEqual(Array.from(t.total(0)), [3, 3, 3]);
  const inv = p.inverted(0);
  assert.equal(inv.baseTotal(0)[nodeByPath(p, inv, "a")], 1);
});

test("zoom paths: names to nodes and back", () => {
  const p = profile(["a;b;c 1", "a;d 1"]);
  const t = p.tree(0), c = nodeByPath(p, t, "a;b;c");
  assert.deepEqual(plain(PK.pathNames(p, t, c)), ["a", "b", "c"]);
  assert.equal(nodeByPath(p, t, "a;zz"), nodeByPath(p, t, "a"), "a path that no longer exists stops where it breaks");
});

test("URL state round trip, defaults left out, ';' in names escaped", () => {
  const st = PK.defaultState();
  assert.equal(PK.encodeState(st), "");
  Object.assign(st, { view: "tree", thread: 2, value: "alloc_space", zoom: ["main", "a;b", "x\\y"], search: "foo|bar&baz",
                      inverted: true, color: "module", func: "operator new(unsigned long)" });
  const enc = PK.encodeState(st);
  assert.ok(!/[#;]/.test(enc.replace(/%3B/g, "")), enc);
  const back = PK.decodeState("#" + enc);
  for (const k of ["view", "thread", "value", "search", "inverted", "color", "func", "icicle", "sort"])
    assert.deepEqual(plain(back[k]), st[k], k);
  assert.deepEqual(plain(back.zoom), st.zoom);
  assert.deepEqual(PK.decodeState("#thread=-3&bogus=1&search=%E0%A4%A").thread, 0, "bad input falls back to defaults");
});

test("values with units and percentages", () => {
  assert.equal(PK.formatValue(838000000, "nanoseconds"), "838 ms");
  assert.equal(PK.formatValue(1500, "microseconds"), "1.5 ms");
  assert.equal(PK.formatValue(2.5e9, "nanoseconds"), "2.5 s");
  assert.equal(PK.formatValue(1360, "bytes"), "1.33 KB");
  assert.equal(PK.formatValue(3 * 1048576, "bytes"), "3 MB");
  assert.equal(PK.formatValue(512, "bytes"), "512 B");
  assert.equal(PK.formatValue(1234567, "count"), "1,234,567");
  assert.equal(PK.formatValue(17, "calls"), "17 calls");
  assert.equal(PK.formatPercent(1, 3), "33.3%");
  assert.equal(PK.formatPercent(1, 400), "0.25%");
  assert.equal(PK.formatPercent(0, 0), "–");
});

test("colours are stable per name and differ between schemes", () => {
  const a = PK.frameColor("main", false, "name"), b = PK.frameColor("main", false, "name");
  assert.deepEqual(plain(a), plain(b));
  assert.notEqual(PK.frameColor("main", true, "name").fill, a.fill);
  assert.equal(PK.hash("main"), PK.hash("main"));
  assert.notEqual(PK.hash("main"), PK.hash("mainx"));
  assert.match(PK.diffColor(10, 10, false).fill, /^hsl\(0,/);     // growth red
  assert.match(PK.diffColor(-10, 10, false).fill, /^hsl\(220,/);  // shrinkage blue
});

// A seeded random tree (parents first) with two value types, some zeros.
function randomTree(n, nf, seed) {
  let s = seed;
  const rnd = () => { s = (Math.imul(s, 1103515245) + 12345) >>> 0; return s / 4294967296; };
  const parent = [-1], func = [-1], a = [0], b = [0];
  for (let i = 1; i < n; i++) {
    parent.push(Math.floor(rnd() * i));
    func.push(Math.floor(rnd() * nf));
    a.push(rnd() < 0.6 ? Math.floor(rnd() * 100) : 0);
    b.push(rnd() < 0.2 ? Math.floor(rnd() * 1000) : 0);
  }
  return { parent, func, a, b };
}
// Every path from an inverted root down to a node, as "f;g;h" -> totals.
function pathTotals(p, t, v) {
  const out = new Map(), tot = t.total(v);
  for (let i = 1; i < t.n; i++) out.set(PK.pathNames(p, t, i).join(";"), (out.get(PK.pathNames(p, t, i).join(";")) || 0) + tot[i]);
  return out;
}
function randomProfile(n, nf, seed) {
  const r = randomTree(n, nf, seed), strings = [""], funcs = { name: [], file: [], line: [], module: [] };
  for (let f = 0; f < nf; f++) { strings.push("f" + f); funcs.name.push(f + 1); funcs.file.push(0); funcs.line.push(0); funcs.module.push(0); }
  return new PK.Profile({ schema: 1, title: "r", strings, funcs, values: [{ type: "cpu", unit: "nanoseconds" }, { type: "alloc_space", unit: "bytes" }],
    default_value: 0, threads: [{ name: 0, process: 0, pid: -1, tid: -1, merged: true, tree: { parent: r.parent, func: r.func, self: [r.a, r.b] } }] });
}

test("inverted tree without the cut: every caller path reversed, its value once", () => {
  const p = randomProfile(400, 12, 7), t = p.tree(0);
  // Brute force: each node's self value goes to its path read upwards.
  for (const v of [0, 1]) {
    const want = new Map();
    for (let i = 1; i < t.n; i++) {
      if (!t.self[v][i]) continue;
      const up = [];
      for (let x = i; x > 0; x = t.parent[x]) up.push(p.funcLabel(t.func[x]));
      for (let k = 1; k <= up.length; k++) { const key = up.slice(0, k).join(";"); want.set(key, (want.get(key) || 0) + t.self[v][i]); }
    }
    const got = pathTotals(p, PK.invert(t, 0), v);
    for (const [k, x] of got) if (x === 0) got.delete(k);
    assert.deepEqual([...got].sort(), [...want].sort(), "value type " + v);
  }
});

test("inverted tree with the cut: totals kept, a narrow node's callers are one (other)", () => {
  const p = randomProfile(3000, 40, 11), t = p.tree(0), inv = PK.invert(t, 0.01);
  for (const v of [0, 1]) assert.equal(inv.total(v)[0], t.total(v)[0]);
  for (let i = 1; i < inv.n; i++) {
    const kids = Array.from(inv.kids.slice(inv.kidStart[i], inv.kidStart[i + 1]));
    const other = kids.filter((c) => inv.func[c] === PK.OTHER_FUNC);
    assert.ok(other.length <= 1);
    if (other.length) {
      assert.equal(kids.length, 1, "an (other) node has no siblings");
      const wide = [0, 1].some((v) => inv.total(v)[i] > 0 && inv.total(v)[i] >= 0.01 * t.total(v)[0]);
      assert.ok(!wide, "only narrow nodes are cut");
    }
  }
});

test("inverted tree built in slices is the one built at once", () => {
  const p = randomProfile(3000, 40, 5), q = randomProfile(3000, 40, 5);
  let slices = 0;
  while (!p.prepareInverted(0, 0)) slices++;   // until = 0: a few nodes per slice
  assert.ok(slices > 3, "several slices: " + slices);
  const a = p.inverted(0), b = q.inverted(0);
  assert.deepEqual(Array.from(a.parent), Array.from(b.parent));
  assert.deepEqual(Array.from(a.func), Array.from(b.func));
  assert.deepEqual(Array.from(a.self[1]), Array.from(b.self[1]));
});

test("lazy child order: each node sorted when asked, as the full order", () => {
  const p = randomProfile(2000, 30, 3), t = p.tree(0);
  const full = Array.from(t.order("width", 1, p.nameOf));
  const q = randomProfile(2000, 30, 3), u = q.tree(0), lazy = u.lazyOrder("width", 1, q.nameOf);
  for (const i of [0, 5, 17, 400]) {
    const got = Array.from(lazy.kids(i).slice(u.kidStart[i], u.kidStart[i + 1]));
    assert.deepEqual(got, full.slice(t.kidStart[i], t.kidStart[i + 1]));
  }
  assert.equal(lazy.done[1], 0, "a node not drawn is not sorted");
});

test("top functions come from a cache the caller cannot spoil", () => {
  const p = profile(["main;a 3", "main;b 1"]), t = p.tree(0);
  const r1 = PK.topFunctions(t, 0);
  r1.sort((x, y) => x.self - y.self).length = 1;
  assert.equal(PK.topFunctions(t, 0).length, 3);
});

test("stack chart boxes: runs sharing a frame at a depth are one box", () => {
  // main;a;x | main;a;y | main;b | main;a;x  at t = 0, 10, 20, 30; end 40
  const p = profile(["main;a;x 1", "main;a;y 1", "main;b 1"]), t = p.tree(0);
  const node = (s) => nodeByPath(p, t, s);
  const T = PK.stackTiming(t, { start: [0, 10, 20, 30], node: [node("main;a;x"), node("main;a;y"), node("main;b"), node("main;a;x")], end: 40 });
  const boxes = (d) => Array.from({ length: T.count[d] }, (_, k) => [T.start[d][k], T.end[d][k], PK.pathNames(p, t, T.node[d][k]).join(";")]);
  assert.equal(T.depth, 3);
  assert.deepEqual(boxes(1), [[0, 40, "main"]]);
  assert.deepEqual(boxes(2), [[0, 20, "main;a"], [20, 30, "main;b"], [30, 40, "main;a"]]);
  assert.deepEqual(boxes(3), [[0, 10, "main;a;x"], [10, 20, "main;a;y"], [30, 40, "main;a;x"]]);
});

test("inverted tree in progress: what is built has the whole tree's totals and nodes", () => {
  const p = randomProfile(3000, 40, 9), q = randomProfile(3000, 40, 9), whole = q.inverted(0);
  let snaps = 0, last = -1;
  while (!p.prepareInverted(0, 0)) {
    const part = p.invertedBy(0, 0);                 // no work: what is built
    assert.equal(part.partial, true);
    assert.ok(part.n <= whole.n && part.n >= last, "nodes only grow");
    last = part.n;
    assert.deepEqual(Array.from(part.parent), Array.from(whole.parent.slice(0, part.n)), "the first nodes of the whole tree");
    assert.deepEqual(Array.from(part.func), Array.from(whole.func.slice(0, part.n)));
    for (const v of [0, 1]) {
      const a = part.total(v), b = whole.total(v);
      for (let i = 0; i < part.n; i++) assert.ok(Math.abs(a[i] - b[i]) <= 1e-9 * Math.max(1, b[0]), `total of node ${i}, value ${v}`);
    }
    snaps++;
  }
  assert.ok(snaps > 3, "several partial trees: " + snaps);
  assert.equal(p.invertedBy(0, 0), p.inverted(0), "done: the whole tree");
  assert.ok(!p.inverted(0).partial);
});
