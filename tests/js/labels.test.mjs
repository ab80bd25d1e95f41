// Unit tests of the page's label picks (src/report/flame/page/46_labels.js)
// without a browser: the scopes a thread's pick uses, a numeric value's
// --tagfocus range, where the label options go among the transforms (the
// command line's place: the first filter step, else first), and a time
// range the label view cannot narrow (said so: labelIgnoresRange).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import vm from "node:vm";
import { pageDir } from "./make_page.mjs";

const ctx = vm.createContext({});
for (const f of ["10_data.js", "12_time.js", "15_format.js", "45_transforms.js", "46_labels.js"])
  vm.runInContext(readFileSync(join(pageDir, f), "utf8"), ctx, { filename: f });
const PK = ctx.profkit;
const plain = (x) => JSON.parse(JSON.stringify(x));

// One thread (T, index 0) with samples at 0..3 ms: main;a 1, main;a 1,
// main;b 1, main;b 1; its "all threads" entry; label scopes of key k:
// x (the a samples) and y (the b samples), of every thread (index -1), and
// numeric key n: 64 (a), 128..256 (b, a bucket).
function profile() {
  const strings = ["", "main", "a", "b", "T", "k", "x", "y", "n", "64B", "128B:256B", "bytes", "(all threads)"];
  const one = (f, s) => ({ parent: [-1, 0, 1], func: [-1, 0, f], self: [[0, 0, s]] });
  const scope = (name, proc, tree, extra = {}) => Object.assign({ name, process: proc, pid: -1, tid: -1, index: -1, merged: false, label: true, tree }, extra);
  const whole = { parent: [-1, 0, 1, 1], func: [-1, 0, 1, 2], self: [[0, 0, 2, 2]] };
  return new PK.Profile({
    schema: 1, title: "t", strings, values: [{ type: "samples", unit: "count" }], default_value: 0,
    funcs: { name: [1, 2, 3], file: [0, 0, 0], line: [0, 0, 0], module: [0, 0, 0] },
    threads: [
      { name: 12, process: 0, pid: -1, tid: -1, index: -1, merged: true, tree: whole },
      { name: 4, process: 0, pid: 1, tid: 2, index: 0, merged: false, tree: whole,
        timeline: { time: [0, 1000000, 1000000, 1000000], node: [2, 2, 3, 3], value: [1] } },
      scope(5, 6, one(1, 2)), scope(5, 7, one(2, 2)),
      scope(8, 9, one(1, 2), { num: [64, 64], unit: "bytes", frame: "64B" }),
      scope(8, 10, one(2, 2), { num: [128, 256], unit: "bytes", frame: "128B" }),
    ],
    time: { zero: 0, end: 4000000, threads: [{ name: 4, process: 0, pid: 1, tid: 2 }] },
  });
}
const rows = (p, t) => { const tr = p.tree(t), out = []; for (let i = 1; i < tr.n; i++) out.push(tr.path(i).map((x) => p.funcLabel(tr.func[x])).join(";") + " " + tr.total(0)[i]); return out.sort(); };

test("a pick on the one thread of a profile of one uses every thread's scopes", () => {
  const p = profile();
  assert.equal(p.labelScopeIndex(1), -1);
  p.pickLabel({ mode: "focus", key: "k", value: "x" });
  assert.ok(p.labelApplies(1));
  assert.deepEqual(rows(p, 1), ["main 2", "main;a 2"]);
});

test("a numeric value's --tagfocus is a range in the key's unit", () => {
  const p = profile(), keys = p.labelKeys(1).get("n");
  assert.deepEqual(plain(PK.tagArgs({ mode: "focus", key: "n", value: "64B" }, keys[0])), ["--tagfocus", "n=64bytes"]);
  assert.deepEqual(plain(PK.tagArgs({ mode: "focus", key: "n", value: "128B:256B" }, keys[1])), ["--tagfocus", "n=128bytes:256bytes"]);
  assert.deepEqual(plain(PK.tagArgs({ mode: "focus", key: "k", value: "x" })), ["--tagfocus", "k=^x$"]);
});

test("grouping frames are named as --tagroot names them", () => {
  const p = profile();
  p.pickLabel({ mode: "root", key: "k" });
  assert.deepEqual(rows(p, 1), ["x 2", "x;main 2", "x;main;a 2", "y 2", "y;main 2", "y;main;b 2"]);
});

test("label options go where the command line applies them", () => {
  const p = profile();
  p.pickLabel({ mode: "root", key: "k" });
  // a merge alone: the label options first (no filter step), so the label
  // frame x is merged away
  p.setTransforms(PK.encodeSteps([{ kind: "merge", arg: "^x$" }]));
  let sp = p.labelSplit();
  assert.equal(sp.before.length, 0);
  assert.deepEqual(rows(p, 1), ["main 2", "main;a 2", "y 2", "y;main 2", "y;main;b 2"]);
  // a merge, then a filter: the labels at the filter's place, after the merge
  p.setTransforms(PK.encodeSteps([{ kind: "merge", arg: "^x$" }, { kind: "hide", arg: "^b$" }]));
  sp = p.labelSplit();
  assert.deepEqual(plain(sp.before.map((s) => s.kind)), ["merge"]);
  assert.deepEqual(plain(sp.after.map((s) => s.kind)), ["filter"]);
  assert.deepEqual(rows(p, 1), ["x 2", "x;main 2", "x;main;a 2", "y 2", "y;main 2"]);
});

test("a time range: the label view ignores it, and says so", () => {
  const p = profile();
  p.setRange([0, 1]);                     // the first sample only
  assert.equal(p.tree(1).total(0)[0], 1);
  assert.equal(p.labelIgnoresRange(1), false);
  p.pickLabel({ mode: "focus", key: "k", value: "x" });
  assert.equal(p.labelIgnoresRange(1), true);
  assert.equal(p.tree(1).total(0)[0], 2); // the whole profile's x samples
  p.setRange(null);
  assert.equal(p.labelIgnoresRange(1), false);
});
