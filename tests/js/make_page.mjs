// Builds viewer pages for the tests and the benchmark, independently of
// the C side: the data (docs/viewer.md, schema 1) comes from
// `profkit info` and `profkit convert --to speedscope --value V` (one call
// per value type), and the page is assembled from src/report/flame/page/
// exactly as docs/viewer.md says (index.html's three markers; *.css and
// *.js concatenated in file-name order).
//
//   node make_page.mjs --profkit BIN -o OUT.html FILE...       one profile (several merged)
//   node make_page.mjs --profkit BIN -o OUT.html --diff BASE NEW
//   node make_page.mjs --data DATA.json -o OUT.html            a data file made elsewhere
//   --data-out DATA.json also writes the data.
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync, readdirSync, existsSync, realpathSync } from "node:fs";
import { dirname, join, basename, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
export const pageDir = join(here, "..", "..", "src", "report", "flame", "page");

// The page's scripts through Debian's terser as the build runs it where it
// is installed (cmake/embed_page.cmake: --mangle --comments false --format
// wrap_func_args=false, its modules on NODE_PATH); throws when there is no
// terser.
export function minifyScripts(js) {
  const terser = execFileSync("sh", ["-c", "command -v terser"], { encoding: "utf8" }).trim();
  const modules = resolve(dirname(realpathSync(terser)), "..", "..");  // .../nodejs/terser/bin/terser
  return execFileSync(terser, ["--mangle", "--comments", "false", "--format", "wrap_func_args=false"], { input: js, encoding: "utf8", maxBuffer: 1 << 28,
    env: { ...process.env, NODE_PATH: modules } });
}

// dir: the page's sources (another commit's, for a before/after benchmark);
// minify: the scripts minified as profkit's build does (minifyScripts).
export function assemble(dataJson, dir = pageDir, minify = false) {
  const files = readdirSync(dir).sort();
  const cat = (ext) => files.filter((f) => f.endsWith(ext)).map((f) => readFileSync(join(dir, f), "utf8")).join("\n");
  const js = minify ? minifyScripts(cat(".js")) : cat(".js");
  const html = readFileSync(join(dir, "index.html"), "utf8");
  const data = dataJson.replace(/<\//g, "<\\/");
  for (const m of ["/*@PROFKIT_CSS@*/", "/*@PROFKIT_JS@*/", "@PROFKIT_DATA@"])
    if (html.split(m).length !== 2) throw new Error("index.html: marker " + m + " must occur exactly once");
  return html.replace("/*@PROFKIT_CSS@*/", () => cat(".css"))
    .replace("/*@PROFKIT_JS@*/", () => js)
    .replace("@PROFKIT_DATA@", () => data);
}

function run(bin, args) {
  return execFileSync(bin, args, { encoding: "utf8", maxBuffer: 1 << 30, stdio: ["ignore", "pipe", "pipe"] });
}

// What `profkit info` says: value types (name, unit, default), threads, timed.
function info(bin, files) {
  const out = run(bin, ["info", "-q", ...files]);
  const values = [], threads = [];
  let def = 0, section = "";
  for (const line of out.split("\n")) {
    if (/^value types:/.test(line)) { section = "values"; continue; }
    if (/^threads:/.test(line)) { section = "threads"; continue; }
    if (/^\S/.test(line)) { section = ""; }
    let m;
    if (section === "values" && (m = /^\s+(\S+)\s+(\S+)\s+total/.exec(line))) {
      if (/\[default\]/.test(line)) def = values.length;
      values.push({ type: m[1], unit: m[2] });
    } else if (section === "threads" && (m = /^\s+(\d+): (.*?)(?: tid (\d+))?, \d+ sample rows/.exec(line))) {
      threads.push({ name: m[2], tid: m[3] === undefined ? -1 : +m[3] });
    }
  }
  const timed = /samples:.*\(timed/.test(out);
  return { values, def, threads, timed };
}

// A profile as path tries: per thread, node -> children by func, self per value.
function profileTries(bin, files) {
  const inf = info(bin, files);
  const strings = [""], sidx = new Map([["", 0]]);
  const str = (s) => { if (!s) return 0; let i = sidx.get(s); if (i === undefined) { i = strings.length; strings.push(s); sidx.set(s, i); } return i; };
  const funcs = { name: [], file: [], line: [], module: [] }, fidx = new Map();
  const nv = inf.values.length;
  const threads = inf.threads.map((t) => ({ name: t.name, tid: t.tid, nodes: [{ parent: -1, func: -1, kids: new Map(), self: new Array(nv).fill(0) }], order: [] }));
  inf.values.forEach((vt, v) => {
    const ss = JSON.parse(run(bin, ["convert", "-q", ...files, "--to", "speedscope", "--value", vt.type]));
    const fmap = ss.shared.frames.map((fr) => {
      const key = fr.name + "\0" + (fr.file || "") + "\0" + (fr.line || 0);
      let f = fidx.get(key);
      if (f === undefined) {
        f = funcs.name.length; fidx.set(key, f);
        funcs.name.push(str(fr.name)); funcs.file.push(str(fr.file || "")); funcs.line.push(fr.line || 0); funcs.module.push(0);
      }
      return f;
    });
    ss.profiles.forEach((prof, pi) => {
      let t = threads[pi];
      if (!t) { t = { name: prof.name, tid: -1, nodes: [{ parent: -1, func: -1, kids: new Map(), self: new Array(nv).fill(0) }], order: [] }; threads.push(t); }
      prof.samples.forEach((stack, si) => {
        let node = 0;
        for (const fr of stack) {
          const f = fmap[fr];
          let c = t.nodes[node].kids.get(f);
          if (c === undefined) { c = t.nodes.length; t.nodes.push({ parent: node, func: f, kids: new Map(), self: new Array(nv).fill(0) }); t.nodes[node].kids.set(f, c); }
          node = c;
        }
        t.nodes[node].self[v] += prof.weights[si];
        if (v === inf.def) t.order.push([node, prof.weights[si], vt.unit]);
      });
    });
  });
  return { inf, strings, str, funcs, threads, nv };
}

function mergedThread(threads, nv) {
  const all = { name: "All threads", tid: -1, nodes: [{ parent: -1, func: -1, kids: new Map(), self: new Array(nv).fill(0) }], order: [] };
  for (const t of threads) {
    const map = [0];
    for (let i = 1; i < t.nodes.length; i++) {
      const n = t.nodes[i], p = map[n.parent];
      let c = all.nodes[p].kids.get(n.func);
      if (c === undefined) { c = all.nodes.length; all.nodes.push({ parent: p, func: n.func, kids: new Map(), self: new Array(nv).fill(0) }); all.nodes[p].kids.set(n.func, c); }
      map[i] = c;
      for (let v = 0; v < nv; v++) all.nodes[c].self[v] += n.self[v];
    }
  }
  return all;
}

function threadJson(t, nv, timed, merged, str, base) {
  const tree = { parent: t.nodes.map((n) => n.parent), func: t.nodes.map((n) => n.func), self: [] };
  for (let v = 0; v < nv; v++) tree.self.push(t.nodes.map((n) => n.self[v]));
  if (base) { tree.base_self = []; for (let v = 0; v < nv; v++) tree.base_self.push(t.nodes.map((n) => (n.base ? n.base[v] : 0))); }
  const out = { name: str(t.name), process: 0, pid: -1, tid: t.tid, merged, tree };
  if (timed && !merged && t.order.length) {
    // Runs: consecutive samples with one node; a time unit's weight is the
    // sample's duration, anything else counts a millisecond per unit.
    const start = [], node = [];
    let now = 0;
    const scale = { nanoseconds: 1, microseconds: 1e3, milliseconds: 1e6, seconds: 1e9 };
    for (const [n, w, unit] of t.order) {
      if (!node.length || node[node.length - 1] !== n) { start.push(now); node.push(n); }
      now += w * (scale[unit] || 1e6);
    }
    out.samples = { start, node, end: now };
  }
  return out;
}

// files: profkit's arguments (FILEs, and options such as --format NAME).
export function makeData(bin, files) {
  const P = profileTries(bin, files);
  const threads = [mergedThread(P.threads, P.nv), ...P.threads];
  return {
    schema: 1, generator: "tests/js/make_page.mjs", title: files.filter((f) => existsSync(f)).map((f) => basename(f)).join(" "),
    format: (/^format:\s+(\S+)/m.exec(run(bin, ["info", "-q", ...files])) || [])[1] || "",
    diff: false, strings: P.strings, values: P.inf.values, default_value: P.inf.def, funcs: P.funcs,
    threads: threads.map((t, i) => threadJson(t, P.nv, P.inf.timed, i === 0, P.str)),
  };
}

// Diff data: NEW's tree with BASE's paths added; self from NEW, base_self
// from BASE, per value type NEW has (matched by name).
export function makeDiff(bin, baseFile, newFile) {
  const N = profileTries(bin, [newFile]), B = profileTries(bin, [baseFile]);
  const nall = mergedThread(N.threads, N.nv), ball = mergedThread(B.threads, B.nv);
  for (const n of nall.nodes) n.base = new Array(N.nv).fill(0);
  const fkey = (P, f) => P.strings[P.funcs.name[f]] + "\0" + P.strings[P.funcs.file[f]] + "\0" + P.funcs.line[f];
  const nf = new Map(); N.funcs.name.forEach((_, f) => nf.set(fkey(N, f), f));
  const vmap = N.inf.values.map((vt) => B.inf.values.findIndex((b) => b.type === vt.type));
  const map = [0];
  for (let i = 1; i < ball.nodes.length; i++) {
    const b = ball.nodes[i], key = fkey(B, b.func);
    let f = nf.get(key);
    if (f === undefined) {
      f = N.funcs.name.length; nf.set(key, f);
      N.funcs.name.push(N.str(B.strings[B.funcs.name[b.func]])); N.funcs.file.push(N.str(B.strings[B.funcs.file[b.func]]));
      N.funcs.line.push(B.funcs.line[b.func]); N.funcs.module.push(0);
    }
    const p = map[b.parent];
    let c = nall.nodes[p].kids.get(f);
    if (c === undefined) { c = nall.nodes.length; nall.nodes.push({ parent: p, func: f, kids: new Map(), self: new Array(N.nv).fill(0), base: new Array(N.nv).fill(0) }); nall.nodes[p].kids.set(f, c); }
    map[i] = c;
    for (let v = 0; v < N.nv; v++) if (vmap[v] >= 0) nall.nodes[c].base[v] += b.self[vmap[v]];
  }
  return {
    schema: 1, generator: "tests/js/make_page.mjs", title: basename(baseFile) + " vs " + basename(newFile), format: "",
    diff: true, strings: N.strings, values: N.inf.values, default_value: N.inf.def, funcs: N.funcs,
    threads: [threadJson(nall, N.nv, false, true, N.str, true)],
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const a = process.argv.slice(2);
  let bin = "profkit", out = null, dataIn = null, dataOut = null, diff = false;
  const files = [];
  for (let i = 0; i < a.length; i++) {
    if (a[i] === "--profkit") bin = a[++i];
    else if (a[i] === "-o") out = a[++i];
    else if (a[i] === "--data") dataIn = a[++i];
    else if (a[i] === "--data-out") dataOut = a[++i];
    else if (a[i] === "--diff") diff = true;
    else files.push(a[i]);
  }
  let json;
  if (dataIn) json = readFileSync(dataIn, "utf8");
  else json = JSON.stringify(diff ? makeDiff(bin, files[0], files[1]) : makeData(bin, files));
  if (dataOut) writeFileSync(dataOut, json);
  if (out) writeFileSync(out, assemble(json));
}
