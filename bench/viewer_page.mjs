// Benchmark of the viewer page (src/report/flame/page/): builds a seeded
// data file (docs/viewer.md, schema 1) with NODES nodes in its all-threads
// tree (plus one timed thread with RUNS sample runs), assembles the page as
// `profkit flame` does, loads it from file:// in headless chromium and
// prints load-to-interactive and the time of each action (the page's own
// performance.now figures in window.profkitTimings, and the time to the
// next animation frame, which includes the paint): once on a page that has
// finished its idle preparation (the usual case: it takes well under a
// second after load), and once, first time only, on a page whose idle
// preparation is turned off (window.profkitNoIdle), so each view builds
// what it needs when asked; and the views that need the inverted tree as
// the first action on such a page.
//
//   node bench/viewer_page.mjs [NODES] [RUNS] [OUT_DIR]
//   PAGE_DIR=DIR node bench/viewer_page.mjs       the same data in the page
//     sources of DIR (another commit's src/report/flame/page: before/after)
//   MARKERS=N (default 1000000): markers on the timed thread
//   MARKERS_B64=1: the markers' columns as base64 varints (pages before
//     the packed form); MARKERS_JSON=1: as the six JSON columns of older pages
//   PAGE_MINIFY=0: the page's scripts as written (by default minified as
//     profkit's build does with Debian's terser, which must be installed)
//   PAGE_ONLY=1: write the page and stop
//   LOAD_ONLY=1: time the loads only (interactive, the markers read and
//     drawn, the longest task between), e.g. to compare two pages
//   PAGE=page.html node bench/viewer_page.mjs     a page made elsewhere
//     (e.g. `profkit flame` of bench/flame.sh's 1 GB Gecko profile): the
//     same load and actions on it (those it has no data for are skipped).
import { writeFileSync, mkdirSync, statSync, readFileSync } from "node:fs";
import { join, dirname, resolve } from "node:path";
import { gzipSync } from "node:zlib";
import { fileURLToPath } from "node:url";
import { assemble } from "../tests/js/make_page.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const NODES = +(process.argv[2] || 100000), RUNS = +(process.argv[3] || 20000);
const OUT = resolve(process.argv[4] || join(root, "build", "bench"));
mkdirSync(OUT, { recursive: true });
const tools = process.env.PROFKIT_TOOLS || join(root, "build", "tools");
const { chromium } = await import(join(tools, "node_modules", "playwright-core", "index.mjs"));

// Seeded PRNG (mulberry32), so every run measures the same tree.
let seed = 12345;
const rnd = () => { seed |= 0; seed = (seed + 0x6d2b79f5) | 0; let t = Math.imul(seed ^ (seed >>> 15), 1 | seed); t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t; return ((t ^ (t >>> 14)) >>> 0) / 4294967296; };

// Strings: 3,000 functions in 200 files and 20 modules.
const strings = [""], funcs = { name: [], file: [], line: [], module: [] };
const NF = 3000;
for (let m = 0; m < 20; m++) strings.push("lib" + m + ".so");
for (let f = 0; f < 200; f++) strings.push("src/dir" + (f % 17) + "/file" + f + ".c");
for (let i = 0; i < NF; i++) {
  strings.push("ns" + (i % 37) + "::Class" + (i % 101) + "::method_" + i);
  funcs.name.push(strings.length - 1); funcs.file.push(21 + (i % 200)); funcs.line.push(10 + i); funcs.module.push(1 + (i % 20));
}
// The tree: depth-first, each node gets a share of the remaining budget,
// split over 1-4 children with random weights (parents precede children).
const parent = [-1], func = [-1], cpu = [0], bytes = [0], inuse = [0];
const stack = [[0, NODES - 1, 0]];
while (stack.length) {
  const [node, budget, depth] = stack.pop();
  if (budget <= 0 || depth > 80) { cpu[node] += 1 + Math.floor(rnd() * 1000); bytes[node] += Math.floor(rnd() * 4096); continue; }
  const k = Math.min(budget, 1 + Math.floor(rnd() * 4));
  const w = []; let sw = 0;
  for (let j = 0; j < k; j++) { const x = rnd() ** 2 + 0.01; w.push(x); sw += x; }
  let left = budget - k;
  const kids = [];
  for (let j = 0; j < k; j++) {
    const c = parent.length;
    parent.push(node); func.push(Math.floor(rnd() * NF)); cpu.push(rnd() < 0.3 ? Math.floor(rnd() * 500) : 0); bytes.push(rnd() < 0.1 ? Math.floor(rnd() * 65536) : 0);
    inuse.push(0);
    const share = j === k - 1 ? left : Math.floor(left * w[j] / sw);
    left -= share; sw -= w[j];
    kids.push([c, share, depth + 1]);
  }
  for (let j = kids.length - 1; j >= 0; j--) stack.push(kids[j]);
}
// In-use bytes (the memory view): a quarter of the allocations never freed.
for (let i = 1; i < parent.length; i++) if (bytes[i] && rnd() < 0.25) inuse[i] = bytes[i];
// One timed thread: the same tree, runs over random leaves in time order.
const leaves = []; const hasKid = new Uint8Array(parent.length);
for (let i = 1; i < parent.length; i++) hasKid[parent[i]] = 1;
for (let i = 1; i < parent.length; i++) if (!hasKid[i]) leaves.push(i);
const start = [], node = []; let t = 0;
for (let r = 0; r < RUNS; r++) { start.push(t); node.push(leaves[Math.floor(rnd() * leaves.length)]); t += 100000 + Math.floor(rnd() * 2000000); }
const tree = { parent, func, self: [cpu, bytes, inuse] };
// The timed thread's samples (one per run: the page's time ranges sum
// them) and MARKERS markers over its time (30 names, intervals and
// instants, small payloads), in docs/viewer.md's "time".
const MARKERS = +(process.env.MARKERS || 1000000);
const tdelta = start.map((s, i) => (i ? s - start[i - 1] : s));
const timeline = { time: tdelta, node, value: [node.map((x) => cpu[x] || 1), node.map((x) => bytes[x]), node.map((x) => inuse[x])] };
const mk = { thread: [], name: [], category: [], start: [], duration: [], data: [] };
const mnames = [];
for (let k = 0; k < 30; k++) { strings.push("Marker" + k); mnames.push(strings.length - 1); }
strings.push("Graphics"); const mcat = strings.length - 1;
const payloads = [];
for (let k = 0; k < 100; k++) { strings.push(JSON.stringify({ type: "Text", name: "payload " + k })); payloads.push(strings.length - 1); }
const mstarts = [];
for (let i = 0; i < MARKERS; i++) mstarts.push(Math.floor(rnd() * t));
mstarts.sort((a, b) => a - b);
for (let i = 0; i < MARKERS; i++) {
  mk.thread.push(0); mk.name.push(mnames[i % 30]); mk.category.push(mcat); mk.start.push(mstarts[i]);
  mk.duration.push(i % 3 === 0 ? -1 : Math.floor(rnd() * 5000000)); mk.data.push(payloads[i % 100]);
}
const data = {
  schema: 1, generator: "bench/viewer_page.mjs", title: "synthetic " + parent.length + " nodes", format: "synthetic", diff: false,
  strings, values: [{ type: "cpu", unit: "nanoseconds" }, { type: "alloc_space", unit: "bytes" }, { type: "inuse_space", unit: "bytes" }], default_value: 0, funcs,
  threads: [
    { name: 0, process: 0, pid: -1, tid: -1, merged: true, tree },
    { name: 0, process: 0, pid: 1, tid: 1, index: 0, merged: false, tree, samples: { start, node, end: t }, timeline },
  ],
  time: { zero: 0, end: t, threads: [{ name: 0, process: 0, pid: 1, tid: 1 }],
          markers: { element: "profkit-markers", count: MARKERS } },
};
const given = process.env.PAGE ? resolve(process.env.PAGE) : null;
const page = given || join(OUT, "viewer_" + NODES + ".html");
// The markers in an element of their own after the page's script, as
// flame_html.c writes them (docs/viewer.md, "markers": kinds and payloads
// each once, the columns packed: one byte stream of varints and byte
// planes, gzip-compressed, in base85; MARKERS_B64=1: each column's
// varints in base64, as pages before that; MARKERS_JSON=1: the six JSON
// columns of pages before those, for PAGE_DIR of such a commit;
// MARKERS_BEFORE=1: those after the data, as older pages wrote them).
const varints = (vals, out = []) => { for (let v of vals) { while (v >= 128) { out.push((v % 128) | 128); v = Math.floor(v / 128); } out.push(v); } return out; };
const b64 = (vals) => Buffer.from(varints(vals)).toString("base64");
const zz = (v) => (v < 0 ? -2 * v - 1 : 2 * v);
// flame_pack.c's planes: the low bytes of the median's length, a plane each, then the rest as varints
function planesFor(vals) {
  const bits = new Array(65).fill(0);
  for (const v of vals) bits[v ? Math.floor(Math.log2(v)) + 1 : 0]++;
  let k = 0, seen = 0;
  for (; k < 64; k++) if ((seen += bits[k]) * 2 >= vals.length) break;
  return Math.min(7, Math.ceil(k / 8));
}
function planes(vals, s, out) {
  for (let k = 0; k < s; k++) for (const v of vals) out.push(Math.floor(v / 256 ** k) % 256);
  return varints(vals.map((v) => Math.floor(v / 256 ** s)), out);
}
const B85 = "!#$%&'()*+,-./0123456789:;=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[]^_`abcdefghijklmnopqrstuvwx";
function base85(buf) {
  let out = "";
  const parts = [];
  for (let i = 0; i < buf.length; i += 4) {
    let v = 0;
    for (let k = 0; k < 4; k++) v = v * 256 + (i + k < buf.length ? buf[i + k] : 0);
    let q = "";
    for (let k = 0; k < 5; k++) { q = B85[v % 85] + q; v = Math.floor(v / 85); }
    out += q;
    if (out.length > 65536) { parts.push(out); out = ""; }
  }
  parts.push(out);
  return parts.join("");
}
function markersObject() {
  const kinds = [], kindId = new Map(), kind = [], pay = [], payId = new Map(), data = [], dur = [];
  for (let i = 0; i < MARKERS; i++) {
    const flags = (mk.duration[i] >= 0 ? 1 : 0) | (mk.data[i] ? 2 : 0), key = mk.name[i] + "," + mk.category[i] + "," + flags;
    if (!kindId.has(key)) { kindId.set(key, kinds.length / 3); kinds.push(mk.name[i], mk.category[i], flags); }
    kind.push(kindId.get(key));
    if (flags & 1) dur.push(mk.duration[i]);
    if (flags & 2) { const s = strings[mk.data[i]]; if (!payId.has(s)) { payId.set(s, pay.length); pay.push(s); } data.push(payId.get(s)); }
  }
  // starts: a thread's first zigzag-coded, the others after the one before
  // (one thread here; times in ns, their greatest common divisor 1)
  const runs = [];
  for (let i = 0; i < MARKERS; i++) if (!i || mk.thread[i] !== mk.thread[i - 1]) runs.push(mk.thread[i], 0), runs[runs.length - 1]++; else runs[runs.length - 1]++;
  const head = { n: MARKERS, kinds, payloads: pay, unit: 1, runs: runs.length / 2, intervals: dur.length, with_data: data.length };
  const start = mk.start.map((s, i) => (i ? s - mk.start[i - 1] : zz(s))), dataCol = data.map((x, i) => zz(i ? x - data[i - 1] : x));
  if (process.env.MARKERS_B64)
    return JSON.stringify({ ...head, threads: b64(runs), kind: b64(kind), start: b64(start), duration: b64(dur), data: b64(dataCol) });
  const raw = [], parts = [];
  let at = 0;
  const part = () => { parts.push(raw.length - at); at = raw.length; };
  varints(runs, raw); part();
  varints(kind, raw); part();
  const sp = planesFor(start), dp = planesFor(dur);
  planes(start, sp, raw); part();
  planes(dur, dp, raw); part();
  varints(dataCol, raw); part();
  for (const c of Buffer.from(JSON.stringify(pay))) raw.push(c);
  part();
  delete head.payloads;
  const gz = gzipSync(Buffer.from(raw), { level: 6 });
  return JSON.stringify({ ...head, packed: { bytes: raw.length, gz_bytes: gz.length, parts, planes: [sp, dp] }, gz: base85(gz) });
}
const markersText = process.env.MARKERS_JSON || process.env.MARKERS_BEFORE
  ? JSON.stringify([mk.thread, mk.name, mk.category, mk.start.map((s, i) => (i ? s - mk.start[i - 1] : s)), mk.duration, mk.data])
  : markersObject();
const before = !!process.env.MARKERS_BEFORE;
const body = JSON.stringify(data) + (before ? "@MARKERS@" : "");
if (!given) {
  // the scripts minified as profkit's build does where terser is installed
  // (PAGE_MINIFY=0: as written, the pages before 2026-11-27's change)
  let html = assemble(body, process.env.PAGE_DIR ? resolve(process.env.PAGE_DIR) : undefined, process.env.PAGE_MINIFY !== "0");
  if (before) html = html.replace("@MARKERS@", () => '</script>\n<script type="application/json" id="profkit-markers">' + markersText);
  else { const at = html.lastIndexOf("</body>"); html = html.slice(0, at) + '<script type="application/json" id="profkit-markers">' + markersText + "</script>\n" + html.slice(at); }
  writeFileSync(page, html);
}
console.log(`page: ${page} (${(statSync(page).size / 1048576).toFixed(1)} MB` + (given ? ")" : `; ${parent.length} nodes, ${RUNS} runs and samples, ${MARKERS} markers)`));
if (process.env.PAGE_ONLY) process.exit(0);   // the page alone (bench/viewer_page.sh times its load)

const browser = await chromium.launch({
  executablePath: "/usr/bin/chromium",
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync"],
});
const median = (a) => { const s = [...a].sort((x, y) => x - y); return s[s.length >> 1]; };
const loads = [];
let p;
async function load(noIdle, early = false) {
  const ctx = await browser.newContext({ viewport: { width: 1600, height: 1000 } });
  const pg = await ctx.newPage();
  if (noIdle && !early) await pg.addInitScript(() => { window.profkitNoIdle = true; });
  // Long tasks (over 50 ms, the browser's measure): the page answers no
  // input during one.
  await pg.addInitScript(() => {
    window.profkitLongTasks = [];
    try { new PerformanceObserver((l) => l.getEntries().forEach((e) => window.profkitLongTasks.push([e.startTime, e.duration]))).observe({ type: "longtask", buffered: true }); } catch (e) { /* no observer */ }
  });
  await pg.goto("file://" + page);
  await pg.waitForFunction(() => window.profkitTimings && window.profkitTimings.interactive > 0);
  // The idle preparation's end (pages without one: at once).
  if (!noIdle) await pg.waitForFunction(() => window.profkitTimings.prepared > 0 || !window.profkit.app.prepare, null, { timeout: 60000 });
  // And the markers read and drawn (pages with markers).
  if (!noIdle) await pg.waitForFunction(() => { const a = window.profkit.app, T = a.p.time && a.p.time();
    return !T || !T.markers || !a.timeline || (a.timeline._rows && Object.keys(a.timeline._rows).length > 0) || (T.markersReady && T.markersReady() && !a.timeline._job); }, null, { timeout: 60000 });
  return { ctx, pg };
}
for (let i = 0; i < 5; i++) {
  const { ctx, pg } = await load(false);
  p = pg;
  loads.push(await p.evaluate(() => ({ parse: window.profkitTimings.parse, interactive: window.profkitTimings.interactive,
                                        draw: window.profkitTimings.actions[0].ms, prepared: window.profkitTimings.prepared || 0,
                                        longest: Math.max(0, ...window.profkitLongTasks.filter((x) => x[0] >= window.profkitTimings.interactive).map((x) => x[1])),
                                        ready: performance.now() })));
  if (i < 4) await ctx.close();
}
console.log(`load to interactive (navigation start to first flame graph drawn), median of 5: ${median(loads.map((l) => l.interactive)).toFixed(0)} ms, fastest ${Math.min(...loads.map((l) => l.interactive)).toFixed(0)} ms` +
            ` (first draw with totals and order ${median(loads.map((l) => l.draw)).toFixed(0)} ms)` +
            `; idle preparation done ${median(loads.map((l) => l.prepared)).toFixed(0)} ms after navigation start (median)` +
            `; longest task after interactive until prepared and the markers drawn, median of 5: ${median(loads.map((l) => l.longest)).toFixed(0)} ms (fastest ${Math.min(...loads.map((l) => l.longest)).toFixed(0)} ms)` +
            `; prepared and the markers drawn at ${median(loads.map((l) => l.ready)).toFixed(0)} ms (median; an upper bound: polled)`);
if (process.env.LOAD_ONLY) { await browser.close(); process.exit(0); }

// Each action: the page's own time for it (state change + layout + canvas
// draw, or table DOM) and the time to the next animation frame.
async function act(name, fn, arg, pg = p) {
  const r = await pg.evaluate(async ([fn, arg]) => {
    const app = window.profkit.app, PK = window.profkit;
    const t0 = performance.now();
    if ((new Function("app", "PK", "arg", fn))(app, PK, arg) === "n/a") return null;   // not in this page
    const js = performance.now() - t0;
    const frame = await new Promise((res) => requestAnimationFrame(() => setTimeout(() => res(performance.now() - t0), 0)));
    // A partial inverted tree drawn first: the time until the whole is drawn.
    let whole = null;
    if (window.profkitState.partial) {
      whole = await new Promise((res) => { const poll = () => window.profkitState.partial ? setTimeout(poll, 1) : res(performance.now() - t0); poll(); });
    }
    return { js, frame, whole, state: window.profkitState.view, drawn: window.profkitState.drawn };
  }, [fn, arg]);
  return r;
}
const deep = await p.evaluate(() => {
  const t = window.profkit.app.currentTree(), tot = t.total(0); let n = 0;
  for (let d = 0; d < 12; d++) { let best = -1; for (let j = t.kidStart[n]; j < t.kidStart[n + 1]; j++) if (best < 0 || tot[t.kids[j]] > tot[best]) best = t.kids[j]; if (best < 0) break; n = best; }
  return n;
});
const actions = [
  ["zoom into a frame 12 deep", "app.zoomTo(arg)", deep],
  ["zoom out (reset)", "app.zoomTo(0)"],
  ["search /method_1\\d\\d$/", "app.change({search: 'method_1\\\\d\\\\d$'}, 'search')"],
  ["next match", "app.nextMatch(1)"],
  ["clear search, reset zoom", "app.change({search: '', zoom: []}, 'search')"],
  ["switch value (alloc_space)", "app.change({value: 'alloc_space'}, 'value')"],
  ["switch value back (cpu)", "app.change({value: 'cpu'}, 'value')"],
  ["inverted on", "app.change({inverted: true}, 'inverted')"],
  ["inverted off", "app.change({inverted: false}, 'inverted')"],
  ["icicle toggle", "app.change({icicle: !app.state.icicle}, 'icicle')"],
  ["switch thread (timed one)", "var t = app.p.threads.findIndex(function (th) { return th.samples && th.samples.start.length > 1; }); if (t < 0) return 'n/a'; app.change({thread: t}, 'thread')"],
  ["stack chart view", "app.change({view: 'stack'}, 'view')"],
  ["stack chart: wheel zoom in (x2.7, at 30%)", "if (!app.stackZoomed) return 'n/a'; app.change({span: app.stackZoomed(app.stackRange(), 1 / Math.E, 0.3)}, 'wheel')"],
  ["stack chart: pan 200 px", "if (!app.stackShifted) return 'n/a'; app.change({span: app.stackShifted(app.stackRange(), 200)}, 'pan')"],
  ["stack chart: whole range", "app.change({span: ''}, 'zoom')"],
  ["call tree view", "app.change({view: 'tree'}, 'view')"],
  // The time line (issue 25): the timeline drawn, a range selected in it
  // with the call tree shown (every view narrows: the call tree redrawn for
  // the range), the range moved, widened again; the marker table.
  ["timeline: draw", "if (!app.timeline) return 'n/a'; app.timeline._key = null; app.timeline.draw(app.lastWidth - 16)"],
  ["range: select 25%-75% (call tree of the range)", "if (!app.timeline) return 'n/a'; var T = app.p.time(), w = (T.end - T.zero) / 1e6; app.pushRange(w * 0.25, w * 0.75)"],
  ["range: move it by a tenth (call tree)", "if (!app.timeline) return 'n/a'; var T = app.p.time(), w = (T.end - T.zero) / 1e6; app.pushRange(w * 0.35, w * 0.85)"],
  ["range: pop to the whole profile", "if (!app.timeline) return 'n/a'; app.popRange(0)"],
  ["marker table view", "if (!app.timeline) return 'n/a'; app.change({view: 'markers'}, 'view')"],
  ["top functions view", "app.change({view: 'top'}, 'view')"],
  ["sandwich of method_7", "app.change({view: 'sandwich', func: app.p.funcLabel(7)}, 'sandwich')"],
  ["memory view (in-use bytes)", "if (!app.memTypes().length) return 'n/a'; app.change({view: 'memory', thread: 0}, 'view')"],
  ["back to the flame graph", "app.change({view: 'flame', thread: 0}, 'view')"],
];
// First time only, nothing prepared in idle time: a fresh page per round
// (3 rounds, median).
const cold = new Map();
for (let r = 0; r < 3; r++) {
  const { ctx, pg } = await load(true);
  for (const [name, fn, arg] of actions) {
    const x = await act(name, fn, arg, pg);
    if (!x) continue;
    if (!cold.has(name)) cold.set(name, []);
    cold.get(name).push(x.js);
  }
  await ctx.close();
}
// The views that need the inverted tree, as the very first action on a
// fresh page with no idle preparation (a view opened right after load).
const firstAct = new Map();
for (let r = 0; r < 3; r++) {
  for (const name of ["inverted on", "sandwich of method_7", "memory view (in-use bytes)"]) {
    const a = actions.find((x) => x[0] === name);
    const { ctx, pg } = await load(true);
    const x = await act(a[0], a[1], a[2], pg);
    if (x) { if (!firstAct.has(name)) firstAct.set(name, []); firstAct.get(name).push(x); }
    await ctx.close();
  }
}
// The same views as a person's first action soon after load, the idle
// preparation running: 100 ms after the page is interactive (a fresh page
// per action and round, 3 rounds). What the view needs and the idle
// preparation has not built yet is built when asked (the inverted tree:
// what fits in its budget, the rest in slices).
const soon = new Map();
for (let r = 0; r < 3; r++) {
  for (const name of ["inverted on", "stack chart view", "call tree view", "top functions view", "sandwich of method_7", "memory view (in-use bytes)"]) {
    const a = actions.find((x) => x[0] === name);
    const { ctx, pg } = await load(true, true);
    await pg.evaluate(() => new Promise((res) => setTimeout(res, Math.max(0, window.profkitTimings.interactive + 100 - performance.now()))));
    const x = await act(a[0], a[1], a[2], pg);
    if (x) { if (!soon.has(name)) soon.set(name, []); soon.get(name).push(x); }
    await ctx.close();
  }
}
const rounds = 7, res = new Map();
for (let r = 0; r < rounds; r++) {
  for (const [name, fn, arg] of actions) {
    const x = await act(name, fn, arg);
    if (!x) continue;
    if (!res.has(name)) res.set(name, { first: x, js: [], frame: [] });
    res.get(name).js.push(x.js); res.get(name).frame.push(x.frame);
  }
}
const nodesShown = await p.evaluate(() => window.profkit.app.p.tree(0).n);
console.log(`\n| action (${nodesShown} nodes in the all-threads tree) | first time, idle preparation off: JS (median of 3 pages) | first time: JS, to next frame | median of ${rounds}: JS, to next frame | fastest of ${rounds}: JS |`);
console.log("|---|---|---|---|---|");
for (const [name] of actions) {
  const x = res.get(name);
  if (!x) { console.log(`| ${name} | n/a | n/a | n/a | n/a |`); continue; }
  console.log(`| ${name} | ${median(cold.get(name)).toFixed(1)} ms | ${x.first.js.toFixed(1)} ms, ${x.first.frame.toFixed(1)} ms | ${median(x.js).toFixed(1)} ms, ${median(x.frame).toFixed(1)} ms | ${Math.min(...x.js).toFixed(1)} ms |`);
}

console.log("\nthe first action on a fresh page, idle preparation off: JS, median of 3 pages (fastest)");
// A view drawn first with part of the inverted tree: the time until the
// whole tree is drawn (median), and how many of the runs were partial.
const wholeOf = (xs) => { const w = xs.filter((x) => x.whole !== null).map((x) => x.whole);
  return w.length ? `; ${w.length} of ${xs.length} drew part of the inverted tree first, the whole drawn at ${median(w).toFixed(0)} ms` : ""; };
const jsOf = (xs) => xs.map((x) => x.js);
for (const [name, a] of firstAct) console.log(`  ${name}: ${median(jsOf(a)).toFixed(1)} ms (${Math.min(...jsOf(a)).toFixed(1)} ms)${wholeOf(a)}`);
console.log("\nthe first action 100 ms after the page is interactive, idle preparation running: JS, median of 3 pages (fastest, slowest)");
for (const [name, a] of soon) console.log(`  ${name}: ${median(jsOf(a)).toFixed(1)} ms (${Math.min(...jsOf(a)).toFixed(1)}, ${Math.max(...jsOf(a)).toFixed(1)} ms)${wholeOf(a)}`);

// The same tree in speedscope's own app (npm package speedscope), when
// bench/viewer_page.sh installed it: one sample per node with a cpu self
// value, its stack and that value as the weight. Timed from handing the
// file to its file input to the first frame after it names the profile.
const ssApp = join(OUT, "speedscope", "node_modules", "speedscope", "dist", "release", "index.html");
let ssExists = false;
try { statSync(ssApp); ssExists = process.env.SPEEDSCOPE !== "0"; } catch (e) { ssExists = false; }
if (ssExists && !given) {
  const frames = strings.length ? funcs.name.map((ni, f) => ({ name: strings[ni], file: strings[funcs.file[f]], line: funcs.line[f] })) : [];
  const samples = [], weights = [], path = [];
  for (let i = 1; i < parent.length; i++) {
    if (!cpu[i]) continue;
    path.length = 0;
    for (let x = i; x > 0; x = parent[x]) path.push(func[x]);
    samples.push(path.slice().reverse()); weights.push(cpu[i]);
  }
  const ssFile = join(OUT, "viewer_" + NODES + ".speedscope.json");
  writeFileSync(ssFile, JSON.stringify({ $schema: "https://www.speedscope.app/file-format-schema.json", shared: { frames },
    profiles: [{ type: "sampled", name: "synthetic", unit: "nanoseconds", startValue: 0, endValue: weights.reduce((a, b) => a + b, 0), samples, weights }] }));
  const times = [];
  for (let i = 0; i < 3; i++) {
    const ctx = await browser.newContext({ viewport: { width: 1600, height: 1000 } });
    const sp = await ctx.newPage();
    await sp.goto("file://" + ssApp);
    await sp.waitForSelector("input[type=file]", { state: "attached" });
    const t0 = Date.now();
    await sp.setInputFiles("input[type=file]", ssFile);
    await sp.waitForFunction(() => /synthetic|speedscope\.json/.test(document.title), null, { timeout: 120000 });
    await sp.evaluate(() => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0))));
    times.push(Date.now() - t0);
    if (i === 2) await sp.screenshot({ path: join(OUT, "speedscope_" + NODES + ".png") });
    await ctx.close();
  }
  console.log(`\nspeedscope ${JSON.parse(readFileSync(join(OUT, "speedscope", "node_modules", "speedscope", "package.json"), "utf8")).version}, the same tree (${samples.length} samples, ${(statSync(ssFile).size / 1048576).toFixed(1)} MB JSON): file handed to its input to the profile drawn, median of 3: ${median(times)} ms`);
}
await browser.close();
