// The Memory view's memory graphs (bytes in use per thread by operation
// order) in a real browser (Debian chromium through playwright-core):
// for tests/data/bsprof/*.bsprof with memory operations and a generated
// file (bench/bsprof_gen.c, past 8,192 operations per thread so the series
// is thinned), query("counters") lists every counter as `profkit counters
// --json` does (thread, samples, highest total, last total) and agrees
// with the generator's expect file (final value and peak per module); the
// Memory view draws a graph per thread ("All threads") or the shown
// thread's, its canvas's data-max / data-final equal to those; the hover
// gives the operation, the bytes in use and the allocation or free (and,
// where samples were merged, says so). A file without memory operations
// and a Gecko profile (counters over time) have no graph. Screenshots:
// $PROFKIT_BUILD/screenshots/memgraph-*.png.
//
// Environment: PROFKIT, PROFKIT_SRC, PROFKIT_BUILD, PROFKIT_TOOLS.
import { execFileSync } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { SRC, shotsDir, launch, closePage, openPage, scratch, pk, check, counts } from "./lib.mjs";

const SHOTS = shotsDir();
const TMP = scratch("memgraph");
const DATA = join(SRC, "tests", "data", "bsprof");

const J = JSON.stringify;

const browser = await launch();
const open = (file, hash) => openPage(browser, file, { hash, timeout: 30000 });
const graph = (o) => o.page.evaluate(() => {
  const c = document.getElementById("pk-memgraph-canvas"), h = document.getElementById("pk-memgraph");
  if (!c) return null;
  const r = c.getBoundingClientRect();
  return { shown: !!(h && !h.hidden && !h.closest("[hidden]")), max: JSON.parse(c.getAttribute("data-max") || "null"),
           final: JSON.parse(c.getAttribute("data-final") || "null"), threads: JSON.parse(c.getAttribute("data-threads") || "null"),
           box: [r.left, r.top, r.width, r.height] };
});
const hoverAt = async (o, x, y) => {
  await o.page.mouse.move(x, y);
  return o.page.evaluate(() => { const h = document.getElementById("pk-hover"); return h && !h.hidden ? h.innerText : ""; });
};
const pageThreads = (o) => o.page.evaluate(() => window.profkit.app.p.threads.map((t, i) => ({ i, merged: !!t.merged, index: t.index })));

// What the page should find for FILE: per counter by operation order
// [thread name, samples, max, final], from `profkit counters --json`.
function want(file) {
  return JSON.parse(pk(["counters", "--json", "-q", file])).counters.filter((c) => c.by_order)
    .map((c) => [c.thread.name, c.samples, c.total.max, c.series[c.series.length - 1][3]]);
}
// The page keeps every sample of the counters while they have at most
// 400,000 together; past that a counter it thinned says so (thinned) and
// keeps at most 6,144 (each run's lowest, highest and last).
const got = (q, w) => q.filter((c) => c.by_order).map((c, k) => [c.thread && c.thread.name,
  w[k] && (!c.thinned ? c.samples : c.samples <= 6144 && c.samples < w[k][1] ? w[k][1] : -c.samples), c.total.max, c.total.final]);

// Checks a bsprof page: query("counters"), the All threads graph, each thread's graph.
async function checkFile(name, prof, extra) {
  const file = join(TMP, name + ".html");
  pk(["flame", "-q", prof, "-o", file]);
  const w = want(prof);
  const o = await open(file, "view=memory");
  const q = await o.page.evaluate(() => window.profkit.query("counters"));
  check(name + ": query('counters') as profkit counters --json (thread, samples, max, final)", J(got(q, w)) === J(w), J(got(q, w)) + " vs " + J(w));
  check(name + ": every counter is by operation order, Memory", q.length === w.length && q.every((c) => c.by_order && c.name === "Memory" && c.category === "Memory"), J(q));
  const threads = await pageThreads(o);
  const merged = threads.find((t) => t.merged);
  // the view opened on the page's first thread: All threads when there is such a scope
  const g0 = await graph(o);
  check(name + ": the memory graph is shown in the Memory view", g0 && g0.shown, J(g0));
  if (merged && merged.i === 0) {
    check(name + ": All threads: a graph per thread, max and final as counters --json",
          g0 && J(g0.max) === J(w.map((x) => x[2])) && J(g0.final) === J(w.map((x) => x[3])), J(g0) + " vs " + J(w));
  }
  await o.page.screenshot({ path: join(SHOTS, "memgraph-" + name + "-all.png"), fullPage: false });
  await closePage(o, name, { requests: false });
  // each thread alone
  for (const t of threads.filter((x) => !x.merged)) {
    const o2 = await open(file, "view=memory&thread=" + t.i);
    const g = await graph(o2);
    const mine = q.filter((c) => c.thread && c.thread.index === t.index);
    check(name + " thread " + t.i + ": its graph only, max and final as counters --json",
          g && J(g.max) === J(mine.map((c) => c.total.max)) && J(g.final) === J(mine.map((c) => c.total.final)), J(g) + " vs " + J(mine));
    if (extra && mine.length) await extra(o2, g, t);
    await closePage(o2, name + " thread " + t.i, { requests: false });
  }
  return q;
}

try {
  // 1. ok_lines: MainScene 64, 128, -64, -128, 256, 32 (ops 0..5); TaskNode 1024, 0.
  await checkFile("ok_lines", join(DATA, "ok_lines.bsprof"), async (o, g, t) => {
    const [x, y, wd, ht] = g.box, GUTTER = 190, W = wd - GUTTER - 4;
    const names = g.threads.join(" ");
    if (/MainScene/.test(names)) {
      // op 2 is the free of the 64-byte allocation: 128 bytes in use after it
      const h2 = await hoverAt(o, x + GUTTER + W * (2.5 / 6), y + 30);
      check("ok_lines MainScene: hover at operation 2 gives the free and the bytes in use",
            /Operation\s*2\b/.test(h2) && /In use after it\s*128 B/.test(h2) && /Free\s*-64 B/.test(h2) && !/Merged/.test(h2), h2);
      const h4 = await hoverAt(o, x + GUTTER + W * (4.5 / 6), y + 30);
      check("ok_lines MainScene: hover at operation 4 gives the allocation",
            /Operation\s*4\b/.test(h4) && /In use after it\s*256 B/.test(h4) && /Allocation\s*\+256 B/.test(h4), h4);
      await o.page.screenshot({ path: join(SHOTS, "memgraph-ok_lines-hover.png") });
    } else if (/TaskNode/.test(names)) {
      const h1 = await hoverAt(o, x + GUTTER + W * 0.75, y + 30);
      check("ok_lines TaskNode: hover at operation 1, a free of no live allocation",
            /Operation\s*1\b/.test(h1) && /In use after it\s*1(\.0)? KB/.test(h1) && /Free\s*0 B/.test(h1), h1);
    }
  });
  // 2. every other bsprof file with memory operations
  for (const f of ["ok_components.bsprof", "ok_components_base.bsprof", "ok_nolines.bsprof"]) {
    if (want(join(DATA, f)).length) await checkFile(f.replace(".bsprof", ""), join(DATA, f));
  }
  // 2b. --thread: that thread's counter only; a diff: none (one profile's)
  {
    const one = join(TMP, "one.html"), diff = join(TMP, "diff.html"), prof = join(DATA, "ok_lines.bsprof");
    pk(["flame", "-q", "--thread", "TaskNode", prof, "-o", one]);
    pk(["flame", "-q", "--diff", prof, prof, "-o", diff]);
    let o = await open(one, "view=memory");
    let q = await o.page.evaluate(() => window.profkit.query("counters"));
    let g = await graph(o);
    check("--thread TaskNode: its counter only, its graph shown",
          J(q.map((c) => [c.thread.name, c.total.max, c.total.final])) === J([["TaskNode", 1024, 1024]]) && g && g.shown && J(g.max) === "[1024]", J(q) + " " + J(g));
    await closePage(o, "--thread", { requests: false });
    o = await open(diff, "");
    q = await o.page.evaluate(() => window.profkit.query("counters"));
    check("a diff page: no counter", q.length === 0, J(q));
    await o.ctx.close();
  }
  // 3. no memory operations: no graph, no counter
  {
    const file = join(TMP, "nomem.html");
    pk(["flame", "-q", join(DATA, "ok_nomem.bsprof"), "-o", file]);
    const o = await open(file, "");
    const q = await o.page.evaluate(() => window.profkit.query("counters"));
    const g = await graph(o);
    check("ok_nomem: no counter, no memory graph", q.length === 0 && (g === null || !g.shown), J(q) + " " + J(g));
    await closePage(o, "ok_nomem", { requests: false });
  }
  // 4. a generated file: 3 modules, 60,000 memory operations (thinned
  // past 8,192 per thread), against the generator's expect file.
  {
    const gen = join(TMP, "gen"), prof = join(TMP, "gen.bsprof"), expect = join(TMP, "gen.expect");
    execFileSync("cc", ["-O1", "-o", gen, join(SRC, "bench", "bsprof_gen.c")]);
    execFileSync(gen, ["random", prof, "modules=3", "elements=300", "cpu=2000", "memops=60000", "live=2000", "seed=7", "expect=" + expect],
                 { stdio: ["ignore", "ignore", "ignore"] });
    const exp = {}, ops = {};
    for (const line of readFileSync(expect, "utf8").split("\n")) {
      const f = line.split(/\s+/);
      if (f[0] === "memory") { exp[f[1]] = [Number(f[2]), Number(f[3])]; ops[f[1]] = Number(f[4]); }
    }
    const q = await checkFile("generated", prof, async (o, g, t) => {
      // a thinned series (more operations than samples): somewhere along it
      // a sample stands for several operations; else none does
      const c = (await o.page.evaluate(() => window.profkit.query("counters"))).find((c) => c.thread.index === t.index);
      const thinned = c.samples < ops[c.thread.name];
      const [x, y, wd] = g.box, GUTTER = 190, W = wd - GUTTER - 4;
      let merged = "";
      for (const f of [0.5, 0.7, 0.9, 0.97]) {
        const h = await hoverAt(o, x + GUTTER + W * f, y + 60);
        if (/Merged/.test(h)) { merged = h; break; }
      }
      if (thinned)
        check("generated thread " + t.i + ": the hover says where operations were merged",
              /Operations\s*[\d,]+ to [\d,]+/.test(merged) && /Merged\s*[\d,]+ operations/.test(merged), merged);
      else
        check("generated thread " + t.i + " (not thinned): no hover says merged", merged === "", merged);
      // the page's numbers add up to the thread's operations, thinned or not
      const sum = await o.page.evaluate((ix) => window.profkit.app.p.data.order_counters.filter((c) => c.thread === ix)
        .map((c) => Array.from(window.profkit.column(c.number, c.n, typeof c.number === "string")).reduce((a, b) => a + b, 0)), t.index);
      check("generated thread " + t.i + ": the numbers add up to the generator's operations", J(sum) === J([ops[c.thread.name]]), J(sum));
      if (t.i === 1) await o.page.screenshot({ path: join(SHOTS, "memgraph-generated-thread.png") });
    });
    const mine = {};
    for (const c of q) mine[c.thread.name] = [c.total.final, c.total.max];
    check("generated: each module's final value and peak are the generator's", J(mine) === J(exp), J(mine) + " vs " + J(exp));
    check("generated: two of the three series were thinned by the reader (fewer samples than operations), the page keeps them whole (past 6,144 samples)",
          q.length === 3 && q.filter((c) => c.samples < ops[c.thread.name]).length === 2 && q.every((c) => !c.thinned) &&
          q.filter((c) => c.samples > 6144).length === 2, J(q) + " " + J(ops));
  }
  // 5. a Gecko profile: counters over time in query("counters"), no memory graph
  {
    const prof = join(SRC, "tests", "data", "gecko", "ok_counters.json"), file = join(TMP, "gecko.html");
    pk(["flame", "-q", prof, "-o", file]);
    const o = await open(file, "view=memory");
    const q = await o.page.evaluate(() => window.profkit.query("counters"));
    const w = JSON.parse(pk(["counters", "--json", "-q", prof])).counters.filter((c) => c.samples).map((c) => [c.name, c.total.max]);
    check("gecko: query('counters') gives the counters over time with profkit counters' total.max",
          J(q.map((c) => [c.name, c.total.max])) === J(w) && q.every((c) => !c.by_order), J(q) + " vs " + J(w));
    const g = await graph(o);
    check("gecko: no memory graph", g === null || !g.shown, J(g));
    await o.ctx.close();
  }
} catch (e) {
  check("no exception", false, e && e.stack);
} finally {
  await browser.close();
  rmSync(TMP, { recursive: true, force: true });
}
console.log("memgraph browser: " + counts.passed + " passed, " + counts.failed + " failed");
process.exit(counts.failed ? 1 : 0);
