// Unit tests of the page's transforms (src/report/flame/page/45_transforms.js)
// on small trees, each against the folded stacks the command line's
// transform (src/analysis/transform.c, the Firefox Profiler's meaning)
// gives, and the stack's URL form and command-line flags.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import vm from "node:vm";
import { pageDir } from "./make_page.mjs";

const ctx = vm.createContext({});
for (const f of ["10_data.js", "12_time.js", "15_format.js", "45_transforms.js"])
  vm.runInContext(readFileSync(join(pageDir, f), "utf8"), ctx, { filename: f });
const PK = ctx.profkit;
const plain = (x) => JSON.parse(JSON.stringify(x));

// A profile from folded lines "a;b;c N" ("" is the root's own value);
// modules: name -> module.
function profile(lines, modules = {}) {
  const strings = [""], funcs = { name: [], file: [], line: [], module: [] }, fi = new Map();
  const parent = [-1], func = [-1], self = [0], kids = [new Map()];
  const str = (s) => { strings.push(s); return strings.length - 1; };
  for (const l of lines) {
    const sp = l.lastIndexOf(" "), text = l.slice(0, sp), n = +l.slice(sp + 1);
    let node = 0;
    for (const name of text ? text.split(";") : []) {
      let f = fi.get(name);
      if (f === undefined) {
        f = funcs.name.length; fi.set(name, f);
        funcs.name.push(str(name)); funcs.file.push(0); funcs.line.push(0); funcs.module.push(modules[name] ? str(modules[name]) : 0);
      }
      let c = kids[node].get(f);
      if (c === undefined) { c = parent.length; parent.push(node); func.push(f); self.push(0); kids.push(new Map()); kids[node].set(f, c); }
      node = c;
    }
    self[node] += n;
  }
  return new PK.Profile({ schema: 1, title: "t", strings, funcs, values: [{ type: "cpu", unit: "nanoseconds" }], default_value: 0,
                          threads: [{ name: 0, process: 0, pid: -1, tid: -1, index: 0, tree: { parent, func, self: [self] } }] });
}
// The tree as sorted folded lines (nodes with a self value).
function folded(p, t) {
  const out = [];
  for (let i = 0; i < t.n; i++) if (t.self[0][i]) out.push(t.path(i).map((x) => p.funcLabel(t.func[x])).join(";") + " " + t.self[0][i]);
  return out.sort();
}
const LINES = ["main;a;a;b 1", "main;a;c;a;b 2", "main;d 4", "main 8", " 16"];
function run(steps, lines = LINES, modules) {
  const p = profile(lines, modules);
  p.setTransforms(PK.encodeSteps(steps));
  return folded(p, p.tree(0));
}

test("merge: the function's frames leave every stack, its time to its caller", () => {
  assert.deepEqual(run([{ kind: "merge", arg: "^a$" }]), [" 16", "main 8", "main;b 1", "main;c;b 2", "main;d 4"].sort());
});
test("merge-node: only the call node at the path", () => {
  assert.deepEqual(run([{ kind: "merge-node", arg: "main;a" }]), [" 16", "main 8", "main;a;b 1", "main;c;a;b 2", "main;d 4"].sort());
});
test("root-at: samples through the function, cut above its outermost frame; the rest goes", () => {
  assert.deepEqual(run([{ kind: "root-at", arg: "^a$" }]), ["a;a;b 1", "a;c;a;b 2"]);
});
test("focus-subtree: the call node's samples, re-rooted there", () => {
  assert.deepEqual(run([{ kind: "focus-subtree", arg: "main;a;c" }]), ["c;a;b 2"]);
});
test("collapse-recursion: calls from within itself, through others, become the outermost", () => {
  assert.deepEqual(run([{ kind: "collapse-recursion", arg: "^a$" }]), [" 16", "main 8", "main;a;b 3", "main;d 4"].sort());
});
test("collapse-direct-recursion: only calls straight from itself", () => {
  assert.deepEqual(run([{ kind: "collapse-direct-recursion", arg: "^a$" }]), [" 16", "main 8", "main;a;b 1", "main;a;c;a;b 2", "main;d 4"].sort());
});
test("collapse-module: a run of a module's frames is one frame named after it", () => {
  const mods = { a: "/lib/libx.so", c: "/lib/libx.so", b: "/lib/liby.so" };
  assert.deepEqual(run([{ kind: "collapse-module", arg: "libx" }], LINES, mods), [" 16", "main 8", "main;libx.so;b 3", "main;d 4"].sort());
});
test("ignore and focus: pprof's filters (the root's own samples, which have no frame, go under both)", () => {
  // filter.c, as pprof: a sample stays when a frame is focused (with no
  // focus: not ignored) and none is ignored, so one without a frame goes
  assert.deepEqual(run([{ kind: "ignore", arg: "^d$" }]), ["main 8", "main;a;a;b 1", "main;a;c;a;b 2"].sort());
  assert.deepEqual(run([{ kind: "focus", arg: "^c$" }]), ["main;a;c;a;b 2"]);
});
test("steps apply in order; filters as one step at the first, drops joined", () => {
  // merge a then root-at a: nothing left goes through a
  assert.deepEqual(run([{ kind: "merge", arg: "^a$" }, { kind: "root-at", arg: "^a$" }]), []);
  const steps = [{ kind: "ignore", arg: "^d$" }, { kind: "merge", arg: "^a$" }, { kind: "ignore", arg: "^c$" }];
  assert.deepEqual(plain(PK.transformArgs(steps)), ["--ignore", "(^d$)|(^c$)", "--merge", "^a$"]);
  assert.deepEqual(run(steps), ["main 8", "main;b 1"].sort());
});
test("the stack's URL form round-trips, names with ; and \\ escaped", () => {
  const steps = [{ kind: "merge-node", arg: "a;b" }, { kind: "merge", arg: PK.exactRe("f;g\\h(int)") }];
  assert.deepEqual(plain(PK.decodeSteps(PK.encodeSteps(steps))), steps);
  assert.equal(PK.exactRe("a.b(c)[d]*+?{}|^$"), "^a\\.b\\(c\\)\\[d\\]\\*\\+\\?\\{\\}\\|\\^\\$$");
  const st = PK.decodeState("#view=top&xf=" + encodeURIComponent(PK.encodeSteps(steps)));
  assert.equal(st.view, "top");
  assert.deepEqual(plain(PK.decodeSteps(st.xf)), steps);
  assert.match(PK.encodeState(st), /(^|&)xf=/);
});
test("focus-category: a frame's category is its function's, else its caller's, at the root the default", () => {
  const p = profile(["main;a;b 1", "main;a;c 2", "k;c 4"]);
  // categories: Other (the default), User, Kernel; main none, a User, b none, c Kernel, k Kernel
  const fi = (nm) => { for (let f = 0; f < p.funcName.length; f++) if (p.funcLabel(f) === nm) return f; };
  const func = [];
  func[fi("a")] = 2; func[fi("c")] = 3; func[fi("k")] = 3; func[fi("main")] = 0; func[fi("b")] = 0;
  p.data.categories = { names: ["Other", "User", "Kernel"], default: 0, func };
  const only = (name) => { p.setTransforms(PK.encodeSteps([{ kind: "focus-category", arg: name }])); return folded(p, p.tree(0)); };
  assert.deepEqual(only("User"), ["a 2", "a;b 1"]);          // b inherits User; c is Kernel
  assert.deepEqual(only("Kernel"), ["c 2", "k;c 4"].sort());
  assert.deepEqual(only("Other"), ["main 3"]);                // main: the default, at the root
  p.setTransforms(PK.encodeSteps([{ kind: "focus-category", arg: "GPU" }]));
  p.tree(0);
  assert.match(p.xfError, /no category named 'GPU'/);
});
test("values of no sample make no node", () => {
  const p = profile(["main;a 0", "main;b 2"]);
  p.setTransforms(PK.encodeSteps([{ kind: "merge", arg: "^zzz$" }]));
  assert.equal(p.tree(0).n, 3);
});
test("hide: pprof's -hide takes the frames out; a sample left with none goes", () => {
  assert.deepEqual(run([{ kind: "hide", arg: "^a$" }]), ["main 8", "main;b 1", "main;c;b 2", "main;d 4"].sort());
});
test("show: only the matching frames stay; samples left with none go", () => {
  assert.deepEqual(run([{ kind: "show", arg: "^(a|b)$" }]), ["a;a;b 3"]);
});
test("show-from: the callers above the outermost match go, and the samples without one", () => {
  assert.deepEqual(run([{ kind: "show-from", arg: "^a$" }]), ["a;a;b 1", "a;c;a;b 2"]);
});
test("prune-from: the callees below the innermost match go; samples without one stay", () => {
  assert.deepEqual(run([{ kind: "prune-from", arg: "^a$" }]), [" 16", "main 8", "main;a;a 1", "main;a;c;a 2", "main;d 4"].sort());
});
test("the name filters as one step in filter.c's order: hide before prune-from", () => {
  assert.deepEqual(run([{ kind: "prune-from", arg: "^a$" }, { kind: "hide", arg: "^c$" }]), ["main 8", "main;a;a 3", "main;d 4"].sort());
  const steps = [{ kind: "hide", arg: "^c$" }, { kind: "merge", arg: "^a$" }, { kind: "prune-from", arg: "^a$" },
                 { kind: "show-from", arg: "^x$" }, { kind: "hide", arg: "^d$" }];
  assert.deepEqual(plain(PK.transformArgs(steps)), ["--hide", "(^c$)|(^d$)", "--show-from", "^x$", "--prune-from", "^a$", "--merge", "^a$"]);
});
test("nodeMap: each node of the tree before the steps to its node after (the stack chart's samples)", () => {
  const p = profile(LINES);
  const whole = p.tree(0);
  p.setTransforms(PK.encodeSteps([{ kind: "merge", arg: "^c$" }, { kind: "ignore", arg: "^d$" }]));
  const t = p.tree(0), names = (tr, n) => PK.pathNames(p, tr, n).join(";");
  for (const [from, to] of [["main;a;c;a;b", "main;a;a;b"], ["main;a;c", "main;a"], ["main;a;a;b", "main;a;a;b"]])
    assert.equal(names(t, t.nodeMap[PK.findPath(p, whole, from.split(";"))]), to);
  assert.equal(t.nodeMap[PK.findPath(p, whole, ["main", "d"])], -1);
});
