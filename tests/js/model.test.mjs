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
