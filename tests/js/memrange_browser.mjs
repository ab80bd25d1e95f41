// The Memory view narrowed to a range of operations in a real browser
// (Debian chromium through playwright-core): after a drag across the
// memory graph, the memory table (inverted: allocating function first)
// and the memory flame graph show what those operations did per
// allocation site, and window.profkit.query("mem") gives, per thread,
// the sites `profkit counters --range Ams,Bms --json` gives; the range
// from the URL (ops=A-B) narrows them on load; on a file of more
// operations than the reader keeps, a range within the kept ones (the
// file's first 1,000,000) narrows them as any other, and for one reaching
// past them the page says the tables are not narrowed and they stay the
// whole run's; a page of a file over 64 MB (no records) says a drag does
// not narrow them. Screenshots:
// $PROFKIT_BUILD/screenshots/memrange-*.png.
//
// Environment: PROFKIT, PROFKIT_SRC, PROFKIT_BUILD, PROFKIT_TOOLS.
import { execFileSync } from "node:child_process";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { SRC, shotsDir, launch, closePage, openPage, scratch, pk, check, counts, report, drag } from "./lib.mjs";

const SHOTS = shotsDir();
const TMP = scratch("memrange");
const DATA = join(SRC, "tests", "data", "bsprof");
const GUTTER = 190, PAD = 4;
const J = JSON.stringify;
counts.limit = 400;

const browser = await launch();
const open = (file, hash) => openPage(browser, file, { hash, height: 1000, timeout: 60000 });
// `profkit counters --json` (with --range Ams,Bms): by thread name, each
// counter by operation order's sites and unmatched frees.
function cli(file, a, b) {
  const args = ["counters", "--json", "-q"];
  if (a !== undefined) args.push("--range", a + "ms," + b + "ms");
  const out = {};
  for (const c of JSON.parse(pk([...args, file])).counters.filter((c) => c.by_order))
    out[c.thread.name] = { sites: c.sites, unmatched: c.unmatched_frees, left: c.ops_left_out };
  return out;
}
// What the page shows: the graph's range, its note, the memory table's
// rows of allocating functions (the inverted tree's roots: name and
// inuse_space, alloc_space, inuse_objects, alloc_objects, free_objects
// totals, as its columns), the memory flame graph's total, the title,
// query("mem") and whether the table is the whole run's.
const shown = (o) => o.page.evaluate(() => {
  const app = window.profkit.app, p = app.p, c = document.getElementById("pk-memgraph-canvas");
  const m = app.memTable && app.memTable.model, tree = m && m.tree, rows = {};
  const cols = ["inuse_space", "alloc_space", "inuse_objects", "alloc_objects", "free_objects"].map((t) => p.valueIndex(t));
  if (tree) {
    const tot = cols.map((v) => tree.total(v));
    for (let k = tree.kidStart[0]; k < tree.kidStart[1]; k++) {
      const n = tree.kids[k], name = p.funcLabel(tree.func[n]);
      const r = rows[name] || (rows[name] = [0, 0, 0, 0, 0]);
      tot.forEach((t, i) => { r[i] += t[n]; });
    }
  }
  const th = [...document.querySelectorAll("#pk-mem-table .pk-mem-table:not([hidden]) th")].map((x) => x.textContent.replace(/[▾▴]/g, "").trim());
  const mf = app.memFlame.model;
  return { ops: JSON.parse(c.getAttribute("data-ops") || "null"), note: document.getElementById("pk-mem-note").hidden ? "" : document.getElementById("pk-mem-note").textContent,
           rows, headers: th, whole: tree === p.inverted(app.state.thread), tableOps: JSON.parse(document.querySelector("#pk-mem-table .pk-mem-table:not([hidden])").getAttribute("data-ops") || "null"),
           flameTotal: mf.tree.total(mf.v)[0], title: app.memTitle.textContent,
           q: window.profkit.query("mem"), hash: location.hash, box: (() => { const r = c.getBoundingClientRect(); return [r.left, r.top, r.width, r.height]; })() };
});
// The table's rows the CLI's sites give: per allocating (leaf) function
// the sums of its paths' figures; free_objects of a path counts there
// too (the frees of what it allocated). Rows with nothing left out, as
// the page's range table lists only nodes with a value.
function rowsOf(sites) {
  const rows = {};
  for (const s of sites) {
    const leaf = s.path.split(";").pop(), r = rows[leaf] || (rows[leaf] = [0, 0, 0, 0, 0]);
    r[0] += s.inuse_space; r[1] += s.alloc_space; r[2] += s.inuse_objects; r[3] += s.alloc_objects; r[4] += s.free_objects;
  }
  return rows;
}
function addRows(a, b) {
  for (const k of Object.keys(b)) { const r = a[k] || (a[k] = [0, 0, 0, 0, 0]); b[k].forEach((v, i) => { r[i] += v; }); }
  return a;
}
const sorted = (o) => J(Object.keys(o).sort().map((k) => [k, o[k]]));
const qSites = (q) => Object.fromEntries(q.map((c) => [c.thread.name, c.sites]));

try {
  // 1. ok_lines, MainScene: 64, 128 (parseJson), their frees, 256
  // (loadData) and 32 (init) at operations 0..5.
  const prof = join(DATA, "ok_lines.bsprof"), file = join(TMP, "ok_lines.html");
  pk(["flame", "-q", prof, "-o", file]);
  let o = await open(file, "view=memory");
  const t = await o.page.evaluate(() => { const p = window.profkit.app.p; return p.threads.findIndex((x) => !x.merged && p.str(x.name) === "MainScene"); });
  await o.ctx.close();
  o = await open(file, "view=memory&thread=" + t);
  let g = await shown(o);
  const whole = cli(prof);
  check("ok_lines: without a range the table is the whole run's", g.whole && g.tableOps === null && g.ops === null, J(g));
  check("ok_lines: query('mem') without a range gives the whole run's sites, as counters --json", J(qSites(g.q)) === J({ MainScene: whole.MainScene.sites }),
        J(g.q) + " vs " + J(whole.MainScene));
  {
    const [x, y, wd] = g.box, W = wd - GUTTER - PAD;
    await drag(o, x + GUTTER + W * (2.2 / 6), x + GUTTER + W * (4.8 / 6), y + 60);
  }
  g = await shown(o);
  const w25 = cli(prof, 2, 5).MainScene;
  check("drag over operations 2..4: the graph and the table narrowed to ops 2-5", J(g.ops) === "[2,5]" && J(g.tableOps) === "[2,5]" && !g.whole, J(g));
  check("ops 2-5: query('mem') gives counters --range 2ms,5ms's sites", J(qSites(g.q)) === J({ MainScene: w25.sites }) && g.q[0].unmatched_frees === w25.unmatched,
        J(g.q) + " vs " + J(w25));
  check("ops 2-5: the memory table's rows by allocating function are those sites' (loadData 256 B in use; parseJson's two frees)",
        sorted(g.rows) === sorted(rowsOf(w25.sites)) && g.rows.loadData && g.rows.loadData[0] === 256 && g.rows.parseJson[4] === 2,
        sorted(g.rows) + " vs " + sorted(rowsOf(w25.sites)));
  check("ops 2-5: the table has a free_objects column", g.headers.includes("free_objects"), J(g.headers));
  check("ops 2-5: the memory flame graph's total is the range's bytes still in use (256)", g.flameTotal === 256, J(g.flameTotal));
  check("ops 2-5: the title and the note say what is shown", /^Operations 2 – 4: allocated in them and not freed in them: 256 B/.test(g.title) &&
        /flame graph and the table below show what operations 2 – 4 did/.test(g.note), g.title + " | " + g.note);
  await o.page.screenshot({ path: join(SHOTS, "memrange-ok_lines-2-5.png"), fullPage: true });
  // the inverted flame graph narrowed too
  await o.page.evaluate(() => window.profkit.app.change({ inverted: true }, "test"));
  g = await shown(o);
  check("ops 2-5, inverted: the flame graph's total is still the range's 256", g.flameTotal === 256 && J(g.ops) === "[2,5]", J(g.flameTotal));
  await o.page.evaluate(() => window.profkit.app.change({ inverted: false }, "test"));
  // back to the whole run
  await o.page.click("#pk-mem-crumbs .pk-crumb:nth-of-type(1)");
  g = await shown(o);
  check("Whole run again: the table is the whole run's", g.whole && g.tableOps === null && g.flameTotal === 288, J([g.whole, g.tableOps, g.flameTotal]));
  await closePage(o, "ok_lines", { requests: false });
  // the URL's range narrows on load
  o = await open(file, "view=memory&thread=" + t + "&ops=0-2");
  g = await shown(o);
  const w02 = cli(prof, 0, 2).MainScene;
  check("ops=0-2 in the URL: the table narrowed on load, as counters --range 0ms,2ms (parseJson 192 B)",
        J(g.tableOps) === "[0,2]" && sorted(g.rows) === sorted(rowsOf(w02.sites)) && J(qSites(g.q)) === J({ MainScene: w02.sites }) && g.flameTotal === 192,
        sorted(g.rows) + " vs " + sorted(rowsOf(w02.sites)));
  await o.ctx.close();

  // under a transform (flame --focus) the tables stay the whole run's, and the page says why
  {
    const ffile = join(TMP, "focus.html");
    pk(["flame", "-q", "--focus", "init", prof, "-o", ffile]);
    o = await open(ffile, "view=memory&thread=" + t + "&ops=2-5");
    g = await shown(o);
    check("under a transform: the graph zoomed, the tables not narrowed, and the note says why",
          J(g.ops) === "[2,5]" && g.tableOps === null && /not narrowed/.test(g.note) && /transforms/.test(g.note), g.note + " " + J(g.tableOps));
    await closePage(o, "transform", { requests: false });
  }

  // 2. 20 threads (bench/bsprof_gen.c) whose frees are often of other
  // threads' allocations: All threads, a drag, every thread's sites, and
  // the table's rows the sum of every thread's
  {
    const gen = join(TMP, "gen"), many = join(TMP, "many.bsprof"), mfile = join(TMP, "many.html");
    execFileSync("cc", ["-O1", "-o", gen, join(SRC, "bench", "bsprof_gen.c")]);
    execFileSync(gen, ["random", many, "modules=20", "elements=300", "cpu=2000", "memops=20000", "live=1500", "unknown=2", "seed=11"],
                 { stdio: ["ignore", "ignore", "ignore"] });
    pk(["flame", "-q", many, "-o", mfile]);
    o = await open(mfile, "view=memory");
    g = await shown(o);
    const [x, y, wd] = g.box, W = wd - GUTTER - PAD;
    await drag(o, x + GUTTER + W * 0.3, x + GUTTER + W * 0.55, y + 10);
    g = await shown(o);
    const [a, b] = g.ops || [0, 0];
    const z = cli(many, a, b);
    const want = Object.fromEntries(Object.keys(z).map((n) => [n, z[n].sites]));
    const got = qSites(g.q);
    const bad = Object.keys(want).filter((n) => J(got[n]) !== J(want[n]));
    check("20 threads, All threads zoomed: query('mem') gives every thread's sites as counters --range " + a + "ms," + b + "ms",
          b > a && g.q.length === Object.keys(z).length && g.q.length > 10 && bad.length === 0, J([a, b, g.q.length, Object.keys(z).length]) + J(bad.slice(0, 2).map((n) => [n, got[n] && got[n].slice(0, 2), want[n] && want[n].slice(0, 2)])));
    check("20 threads: unmatched frees per thread as the command line's", g.q.every((c) => c.unmatched_frees === z[c.thread.name].unmatched), J(g.q.map((c) => c.unmatched_frees)));
    const all = Object.values(z).reduce((acc, w) => addRows(acc, rowsOf(w.sites)), {});
    for (const k of Object.keys(all)) if (all[k].every((v) => v === 0)) delete all[k];
    check("20 threads: the table's rows (All threads) are the sum of every thread's sites by allocating function",
          sorted(g.rows) === sorted(all) && !g.whole, sorted(g.rows).slice(0, 400) + " vs " + sorted(all).slice(0, 400));
    check("20 threads: the flame graph's total is the range's bytes still in use",
          g.flameTotal === Object.values(all).reduce((s, r) => s + r[0], 0), J(g.flameTotal));
    await o.page.screenshot({ path: join(SHOTS, "memrange-20threads.png"), fullPage: true });
    // one thread: a click on its name, the same range, its sites only
    const one = g.q[0].thread.name;
    const tt = await o.page.evaluate((n) => { const p = window.profkit.app.p; return p.threads.findIndex((x) => !x.merged && p.str(x.name) === n); }, one);
    await o.page.evaluate((tt) => window.profkit.app.change({ thread: tt }, "test"), tt);
    g = await shown(o);
    check("one of 20 threads in the same range: its table rows and query('mem') as the command line's",
          J(g.ops) === J([a, b]) && g.q.length === 1 && J(g.q[0].sites) === J(want[one]) && sorted(g.rows) === sorted(rowsOf(want[one])),
          J(g.q[0].sites && g.q[0].sites.slice(0, 2)) + " vs " + J(want[one].slice(0, 2)));
    await closePage(o, "20 threads", { requests: false });
  }

  // 3. past the reader's 1,000,000 kept operations: the records are the
  // file's first million (a prefix of each thread's); a range within them
  // narrows as any other, one reaching past them does not, and the page
  // says so under the graph
  {
    const gen = join(TMP, "gen"), big = join(TMP, "big.bsprof"), bfile = join(TMP, "big.html");
    execFileSync(gen, ["random", big, "modules=2", "elements=100", "cpu=10", "memops=1100000", "live=1000", "seed=3"],
                 { stdio: ["ignore", "ignore", "ignore"] });
    pk(["flame", "-q", big, "-o", bfile]);
    const full = JSON.parse(pk(["counters", "--json", "-q", big])).counters.filter((c) => c.by_order);
    const keptCli = Object.fromEntries(full.map((c) => [c.thread.name, c.ops_kept]));
    check("past 1,000,000 operations: counters --json gives each thread's kept prefix, a million in all, and the rest left out",
          full.length === 2 && full.every((c) => c.ops_kept && c.ops_kept[0] === 0 && c.ops_left_out === 100000) &&
          full.reduce((s, c) => s + c.ops_kept[1], 0) === 1000000, J(full.map((c) => [c.ops_kept, c.ops_left_out])));
    o = await open(bfile, "view=memory");
    g = await shown(o);
    check("past 1,000,000 operations, no range: the note says where a drag stops narrowing",
          /only within the operations the page has a record of/.test(g.note) && /100,000 left out/.test(g.note), g.note);
    await o.ctx.close();
    o = await open(bfile, "view=memory&ops=1000-2000");
    g = await shown(o);
    const z = cli(big, 1000, 2000);
    check("past 1,000,000 operations, a range within the kept ones (1000-2000): the tables narrowed, query('mem') as counters --range 1000ms,2000ms",
          J(g.ops) === "[1000,2000]" && J(g.tableOps) === "[1000,2000]" && !g.whole && /did per allocation site/.test(g.note) &&
          g.q.length === 2 && g.q.every((c) => c.sites && c.sites.length && J(c.sites) === J(z[c.thread.name].sites) && J(c.ops_kept) === J(keptCli[c.thread.name])),
          g.note + " " + J([g.whole, g.tableOps]) + J(g.q.map((c) => [c.why, c.ops_kept])));
    await o.page.screenshot({ path: join(SHOTS, "memrange-budget-within.png") });
    check("budget, within: no console or page error", o.errors.length === 0, o.errors.join(" | "));
    await o.ctx.close();
    const past = Math.max(...Object.values(keptCli).map((k) => (k ? k[1] : 0))) + 10;
    o = await open(bfile, "view=memory&ops=" + (past - 5000) + "-" + past);
    g = await shown(o);
    const zp = cli(big, past - 5000, past);
    check("a range reaching past the kept operations: the graph zoomed, the note says the tables are not narrowed and why, the table the whole run's",
          J(g.ops) === J([past - 5000, past]) && /memory tables are not narrowed/.test(g.note) && /reaches past them/.test(g.note) && g.whole && g.tableOps === null,
          g.note + " " + J([g.whole, g.tableOps]));
    check("reaching past: query('mem') gives no sites and says why, as counters --range gives none",
          g.q.length === 2 && g.q.every((c) => c.sites === null && /reaches past/.test(c.why)) && Object.values(zp).every((c) => c.sites === null), J(g.q) + J(zp));
    await o.page.screenshot({ path: join(SHOTS, "memrange-budget.png") });
    await closePage(o, "budget", { requests: false });
  }
  // 4. flame of a file over 64 MB: the graphs, no records; the note says
  // a drag does not narrow the tables, before and in a range
  {
    const gen = join(TMP, "gen"), huge = join(TMP, "huge.bsprof"), hfile = join(TMP, "huge.html");
    execFileSync(gen, ["random", huge, "modules=3", "elements=2000", "cpu=1000", "size_mb=68", "lines=0", "seed=7"],
                 { stdio: ["ignore", "ignore", "ignore"] });
    pk(["flame", "-q", huge, "-o", hfile]);
    o = await open(hfile, "view=memory");
    g = await shown(o);
    const graphs = await o.page.evaluate(() => (window.profkit.app.p.data.order_counters || []).length);
    check("over 64 MB: a memory graph per thread, and the note says a drag does not narrow the tables (no records)",
          graphs === 3 && /does not narrow the flame graph/.test(g.note) && /over 64 MB/.test(g.note), graphs + " " + g.note);
    await o.ctx.close();
    o = await open(hfile, "view=memory&ops=100-200");
    g = await shown(o);
    check("over 64 MB, a range: the graphs zoomed, the tables not narrowed, and why",
          J(g.ops) === "[100,200]" && /memory tables are not narrowed/.test(g.note) && /no record of each memory operation/.test(g.note) && g.whole && g.tableOps === null,
          g.note + " " + J([g.whole, g.tableOps]));
    await o.page.screenshot({ path: join(SHOTS, "memrange-over64mb.png") });
    check("over 64 MB: no console or page error", o.errors.length === 0, o.errors.join(" | "));
    await o.ctx.close();
  }
} catch (e) {
  check("no exception", false, e.stack || String(e));
} finally {
  await browser.close();
  rmSync(TMP, { recursive: true, force: true });
}
report("memory view narrowed to a range of operations");
