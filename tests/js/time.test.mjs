// Unit tests of the page's time line (src/report/flame/page/12_time.js):
// a range's tree from the samples, top and tree as the reports print them,
// the markers' text, ticks. Loaded into a bare VM context as the page
// loads its files.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import vm from "node:vm";
import zlib from "node:zlib";
import { pageDir } from "./make_page.mjs";

const ctx = vm.createContext({ atob, TextDecoder });
for (const f of ["10_data.js", "11_inflate.js", "12_time.js", "15_format.js"])
  vm.runInContext(readFileSync(join(pageDir, f), "utf8"), ctx, { filename: f });
const PK = ctx.profkit;
const plain = (x) => JSON.parse(JSON.stringify(x));

// Tree: root -> main(1) -> {a(2), b(3)}; a -> b(4) (b recursive under a).
// Samples at 0..9 ms (ns on the samples' axis), zero at 0.
function profile() {
  const strings = ["", "main", "a", "b", "T", "M", "Cat"];
  const node = [1, 2, 2, 3, 4, 4, 2, 3, 1, 4];
  const time = node.map((_, i) => (i ? 1000000 : 0));
  const self = [0, 0, 0, 0, 0];
  node.forEach((n) => self[n]++);
  return new PK.Profile({
    schema: 1, title: "t", strings, values: [{ type: "samples", unit: "count" }], default_value: 0,
    funcs: { name: [1, 2, 3], file: [0, 0, 0], line: [0, 0, 0], module: [0, 0, 0] },
    threads: [{ name: 4, process: 0, pid: 1, tid: 2, index: 0, merged: false,
                tree: { parent: [-1, 0, 1, 1, 2], func: [-1, 0, 1, 2, 2], self: [self] },
                timeline: { time, node, value: [1] } }],
    time: { zero: 0, end: 10000000, threads: [{ name: 4, process: 0, pid: 1, tid: 2 }],
            markers: JSON.stringify([[0, 0], [5, 5], [6, 6], [2000000, 3000000], [1000000, -1], [0, 0]]) },
  });
}

test("a range's tree holds the samples with START <= time < END", () => {
  const p = profile();
  assert.equal(p.tree(0).total(0)[0], 10);
  p.setRange([2, 5]);                       // samples at 2, 3, 4 ms: nodes 2, 3, 4
  const t = p.tree(0), tot = t.total(0);
  assert.equal(tot[0], 3);
  assert.deepEqual(plain(Array.from(t.self[0])), [0, 0, 1, 1, 1]);
  assert.equal(tot[1], 3);
  p.setRange(null);
  assert.equal(p.tree(0).total(0)[0], 10);
});

test("query top: flat, cum counting recursion once, sorted as top sorts", () => {
  const p = profile();
  const r = PK.queryTop(p, 0, 0, { limit: 0 });
  // b: node 3 (2) and node 4 under a (3), both outermost: cum 5.
  assert.deepEqual(plain(r.rows), [{ name: "b", flat: 5, cum: 5 }, { name: "a", flat: 3, cum: 6 }, { name: "main", flat: 2, cum: 10 }]);
  assert.equal(r.total, 10);
  assert.equal(r.thread, "T");
  assert.equal(r.whole_total, undefined);
  p.setRange([0, 2]);
  const q = PK.queryTop(p, 0, 0, { limit: 0 });
  assert.equal(q.total, 2);
  assert.equal(q.whole_total, 2);
});

test("query tree: depth first, children by total then name", () => {
  const p = profile();
  const r = PK.queryTree(p, 0, 0);
  assert.deepEqual(plain(r.trees[0].nodes.map((n) => [n.depth, n.name, n.total, n.self])),
                   [[1, "main", 10, 2], [2, "a", 6, 3], [3, "b", 3, 3], [2, "b", 2, 2]]);
});

test("markers: the text's columns, starts as differences, instants", () => {
  const p = profile();
  const M = p.time().markers;
  assert.equal(M.n, 2);
  assert.deepEqual(Array.from(M.start), [2000000, 5000000]);
  assert.deepEqual(Array.from(M.duration), [1000000, -1]);
  assert.deepEqual(plain(PK.markersIn(p, 0, [4, 6])), [1]);   // the instant at 5 ms
  assert.deepEqual(plain(PK.markersIn(p, 0, [2.5, 4])), [0]); // the interval 2..3 ms overlaps
});

// The object form (docs/viewer.md, "markers"), coded here as
// flame_html.c codes it: LEB128 varints in base64.
const b64 = (vals) => { const out = []; for (let v of vals) { while (v >= 128) { out.push((v % 128) | 128); v = Math.floor(v / 128); } out.push(v); }
  return Buffer.from(out).toString("base64"); };
test("markers: the object form's kinds, runs, starts per thread in units, payloads", () => {
  const p = profile();
  // 4 markers: thread 0 (M/Cat interval at -3 ms lasting 2 ms with payload
  // "x", instant at 1 ms with payload "y"), thread 1 (interval at 4 ms
  // lasting 1 ms, no payload; instant at 4 ms with "x" again). Unit 1 ms.
  const x = JSON.stringify({ type: "Text", name: "x" }), y = JSON.stringify({ type: "Text", name: "y" });
  p.data.time.markers = { n: 4, kinds: [5, 6, 3, 5, 6, 2, 4, 6, 1], payloads: [x, y], unit: 1000000, runs: 2,
    intervals: 2, with_data: 3, threads: b64([0, 2, 1, 2]), kind: b64([0, 1, 2, 1]),
    start: b64([5, 4, 8, 0]), duration: b64([2, 1]), data: b64([0, 2, 1]) };
  const nstr = p.strings.length;
  const M = p.time().markers;
  assert.equal(M.n, 4);
  assert.deepEqual(Array.from(M.thread), [0, 0, 1, 1]);
  assert.deepEqual(Array.from(M.name).map((i) => p.str(i)), ["M", "M", "T", "M"]);
  assert.deepEqual(Array.from(M.category).map((i) => p.str(i)), ["Cat", "Cat", "Cat", "Cat"]);
  assert.deepEqual(Array.from(M.start), [-3000000, 1000000, 4000000, 4000000]);
  assert.deepEqual(Array.from(M.duration), [2000000, -1, 1000000, -1]);
  assert.deepEqual(Array.from(M.data).map((i) => p.str(i)), [x, y, "", x]);
  assert.equal(p.strings.length, nstr + 2);                  // each payload's text once
  assert.deepEqual(plain(PK.markersIn(p, 0, [-2, 0])), [0]); // the interval -3..-1 ms overlaps
});

// The packed form (flame_pack.c): the same markers as one byte stream of
// varints and byte planes, gzip-compressed, in base85.
const B85 = "!#$%&'()*+,-./0123456789:;=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[]^_`abcdefghijklmnopqrstuvwx";
const base85 = (buf) => { let out = ""; for (let i = 0; i < buf.length; i += 4) {
  let v = 0; for (let k = 0; k < 4; k++) v = v * 256 + (i + k < buf.length ? buf[i + k] : 0);
  let q = ""; for (let k = 0; k < 5; k++) { q = B85[v % 85] + q; v = Math.floor(v / 85); } out += q; } return out; };
const varints = (vals, out = []) => { for (let v of vals) { while (v >= 128) { out.push((v % 128) | 128); v = Math.floor(v / 128); } out.push(v); } return out; };
test("markers: the packed form's stream, planes and parts decode as the columns", () => {
  const p = profile();
  const x = JSON.stringify({ type: "Text", name: "x" }), y = JSON.stringify({ type: "Text", name: "y" });
  // as the base64 test: starts 5, 4, 8, 0 (start planes 1: low bytes, then
  // the rest: 0s), durations 2, 1 with 2 planes (2 and 1, 0 and 0, then 0s)
  const raw = [], parts = [];
  let at = 0;
  const part = () => { parts.push(raw.length - at); at = raw.length; };
  varints([0, 2, 1, 2], raw); part();
  varints([0, 1, 2, 1], raw); part();
  raw.push(5, 4, 8, 0); varints([0, 0, 0, 0], raw); part();
  raw.push(2, 1, 0, 0); varints([0, 0], raw); part();
  varints([0, 2, 1], raw); part();
  // the payloads' texts in the object (level 0), or as the stream's sixth part
  for (const level of [0, 6]) {
    const r = level ? raw.concat(Array.from(Buffer.from(JSON.stringify([x, y])))) : raw;
    const ps = level ? parts.concat([r.length - raw.length]) : parts;
    const gz = zlib.gzipSync(Buffer.from(r), { level });
    p.data.time.markers = { n: 4, kinds: [5, 6, 3, 5, 6, 2, 4, 6, 1], unit: 1000000, runs: 2,
      intervals: 2, with_data: 3, packed: { bytes: r.length, gz_bytes: gz.length, parts: ps, planes: [1, 2] }, gz: base85(gz) };
    if (!level) p.data.time.markers.payloads = [x, y];
    p._time = undefined;
    const M = p.time().markers;
    assert.deepEqual(Array.from(M.thread), [0, 0, 1, 1]);
    assert.deepEqual(Array.from(M.name).map((i) => p.str(i)), ["M", "M", "T", "M"]);
    assert.deepEqual(Array.from(M.start), [-3000000, 1000000, 4000000, 4000000]);
    assert.deepEqual(Array.from(M.duration), [2000000, -1, 1000000, -1]);
    assert.deepEqual(Array.from(M.data).map((i) => p.str(i)), [x, y, "", x]);
  }
});

test("gunzip: stored, fixed and dynamic blocks; a stream cut short or too long is an error", () => {
  const big = Buffer.alloc(200000);
  let s = 1;
  for (let i = 0; i < big.length; i++) { s = (Math.imul(s, 1103515245) + 12345) >>> 0; big[i] = i % 3 ? s >>> 24 : i % 7; }
  for (const input of [Buffer.alloc(0), Buffer.from("abcabcabcabc"), big])
    for (const opts of [{ level: 0 }, { level: 1 }, { level: 9 }, { strategy: zlib.constants.Z_FIXED }, { strategy: zlib.constants.Z_HUFFMAN_ONLY }]) {
      const out = PK.gunzip(new Uint8Array(zlib.gzipSync(input, opts)), input.length);
      assert.ok(Buffer.from(out).equals(input), input.length + " " + JSON.stringify(opts));
    }
  const gz = new Uint8Array(zlib.gzipSync(big));
  // a block or more per step, a slice of base85 groups per step
  const z = new PK.Gunzip(gz, big.length);
  let steps = 1;
  while (!z.step(5000)) steps++;
  assert.ok(steps > 5 && Buffer.from(z.out).equals(big), "steps " + steps);
  const text = base85(gz), d = new PK.Base85(text, gz.length);
  steps = 1;
  while (!d.step(1000)) steps++;
  assert.ok(steps > 2 && Buffer.from(d.out).equals(Buffer.from(gz)), "steps " + steps);
  assert.throws(() => PK.gunzip(gz.subarray(0, gz.length >> 1), big.length), /cut short|more than/);
  assert.throws(() => PK.gunzip(gz, big.length - 1), /more than/);
  assert.throws(() => PK.gunzip(gz, big.length + 1), /not the/);
  assert.deepEqual(Array.from(PK.base85(base85([1, 2, 3, 4, 255, 0, 7]), 7)), [1, 2, 3, 4, 255, 0, 7]);
  assert.throws(() => PK.base85("ab<cd", 4), /no base85 digit/);
});

test("lowerBound: the first at or after", () => {
  assert.equal(PK.lowerBound(Float64Array.from([1, 2, 2, 3]), 2), 1);
  assert.equal(PK.lowerBound(Float64Array.from([1, 2, 2, 3]), 4), 4);
});

test("paused ranges: ms after zero, a null start the root range's, an open end the root range's end (never before the start)", () => {
  const p = new PK.Profile({
    schema: 1, title: "t", strings: ["", "T", "profiler-paused", "collecting"], values: [{ type: "samples", unit: "count" }], default_value: 0,
    funcs: { name: [], file: [], line: [], module: [] },
    threads: [{ name: 1, process: 0, pid: 7, tid: 8, index: 0, merged: false, tree: { parent: [-1], func: [-1], self: [[0]] } }],
    time: { zero: -2000000, end: 10000000, threads: [],
            paused: [{ start: 1000000, end: 4000000, reason: 2, pid: 7 }, { start: null, end: 0, reason: 3, pid: -1 },
                     { start: 6000000, end: null, reason: 2, pid: 7 }, { start: 20000000, end: null, reason: 2, pid: 7 }] },
  });
  assert.deepEqual(plain(p.time().paused), [
    { start: 3, end: 6, open: false, reason: "profiler-paused", pid: 7 },
    { start: 0, end: 2, open: false, reason: "collecting", pid: -1 },
    { start: 8, end: 12, open: true, reason: "profiler-paused", pid: 7 },
    { start: 22, end: 22, open: true, reason: "profiler-paused", pid: 7 },
  ]);
  assert.deepEqual(plain(profile().time().paused), []);
});
