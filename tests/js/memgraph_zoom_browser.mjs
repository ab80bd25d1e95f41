// The memory graph's range of operations in a real browser (Debian
// chromium through playwright-core): a drag across a thread's graph zooms
// it to those operations (ops=A-B in the URL, a breadcrumb to widen
// again), and the zoomed graph's start, lowest, highest and last bytes in
// use and its samples are what `profkit counters --range Ams,Bms --json`
// gives for that thread (total.start, total.min, total.max, the series'
// last total, samples); the hover on the zoomed graph still gives the
// operation, the bytes in use and the allocation or free; a URL with
// ops=A-B opens zoomed; "All threads" of 20 threads is a compact list (the
// 8 highest peaks, all of them behind a button) and a range there narrows
// every thread's graph as --range narrows each counter. Screenshots:
// $PROFKIT_BUILD/screenshots/memzoom-*.png.
//
// Environment: PROFKIT, PROFKIT_SRC, PROFKIT_BUILD, PROFKIT_TOOLS.
import { execFileSync } from "node:child_process";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { SRC, shotsDir, launch, closePage, openPage, scratch, pk, same, check, counts, drag } from "./lib.mjs";

const SHOTS = shotsDir();
const TMP = scratch("memzoom");
const DATA = join(SRC, "tests", "data", "bsprof");
const GUTTER = 190, PAD = 4;

counts.limit = 800;
const J = JSON.stringify;

const browser = await launch();
const open = (file, hash) => openPage(browser, file, { hash, timeout: 30000 });
// (the page writes the URL a frame after a change: waited for)
const graph = async (o) => (await o.page.waitForFunction(() => !window.profkit.app.hashPending, null, { timeout: 5000 }).catch(() => null), o.page.evaluate(() => {
  const c = document.getElementById("pk-memgraph-canvas");
  if (!c) return null;
  const r = c.getBoundingClientRect(), a = (k) => JSON.parse(c.getAttribute("data-" + k) || "null");
  const crumbs = [...document.querySelectorAll("#pk-mem-crumbs .pk-crumb")].map((b) => b.textContent);
  return { max: a("max"), min: a("min"), start: a("start"), final: a("final"), samples: a("samples"), ops: a("ops"),
           threads: a("threads"), box: [r.left, r.top, r.width, r.height], crumbs,
           note: document.getElementById("pk-mem-note").hidden ? "" : document.getElementById("pk-mem-note").textContent,
           hash: location.hash };
}));
const hoverAt = async (o, x, y) => {
  await o.page.mouse.move(x, y);
  return o.page.evaluate(() => { const h = document.getElementById("pk-hover"); return h && !h.hidden ? h.innerText : ""; });
};
// `profkit counters --range Ams,Bms --json` for FILE: per counter by
// operation order, by thread name, what the zoomed graph should show.
function cli(file, a, b) {
  const args = ["counters", "--json", "-q"];
  if (a !== undefined) args.push("--range", a + "ms," + b + "ms");
  const out = {};
  for (const c of JSON.parse(pk([...args, file])).counters.filter((c) => c.by_order)) {
    const last = c.series.length ? c.series[c.series.length - 1][3] : c.total.start;
    out[c.thread.name] = { start: c.total.start, min: c.total.min, max: c.total.max, final: last, samples: c.samples,
                           series: c.series, peak: c.total.max };
  }
  return out;
}
// The graph's figures for its thread k, as cli() gives them.
const row = (g, k) => ({ start: g.start[k], min: g.min[k], max: g.max[k], final: g.final[k], samples: g.samples[k] });
const want = (w) => ({ start: w.start, min: w.min, max: w.max, final: w.final, samples: w.samples });
const threadOf = (o, name) => o.page.evaluate((n) => {
  const p = window.profkit.app.p;
  return p.threads.findIndex((t) => !t.merged && p.str(t.name) === n);
}, name);

try {
  // 1. ok_lines, MainScene: 64, 128, -64, -128, 256, 32 at operations 0..5.
  const prof = join(DATA, "ok_lines.bsprof"), file = join(TMP, "ok_lines.html");
  pk(["flame", "-q", prof, "-o", file]);
  let o = await open(file, "view=memory");
  const t = await threadOf(o, "MainScene");
  await o.ctx.close();
  o = await open(file, "view=memory&thread=" + t);
  let g = await graph(o);
  check("ok_lines MainScene: the whole run as counters --json", J(row(g, 0)) === J(want(cli(prof).MainScene)) && g.ops === null,
        J(g) + " vs " + J(cli(prof).MainScene));
  check("ok_lines: the breadcrumb is the whole run only", J(g.crumbs) === J(["Whole run"]), J(g.crumbs));
  {
    const [x, y, wd] = g.box, W = wd - GUTTER - PAD;
    // from inside operation 2 to inside operation 4: operations 2..4
    await drag(o, x + GUTTER + W * (2.2 / 6), x + GUTTER + W * (4.8 / 6), y + 60);
  }
  g = await graph(o);
  const w25 = cli(prof, 2, 5).MainScene;
  check("drag over operations 2..4: the graph zooms to ops 2-5", J(g.ops) === "[2,5]" && /(^#|&)ops=2-5(&|$)/.test(g.hash), J(g));
  check("zoomed: start, min, max, last and samples as counters --range 2ms,5ms --json", J(row(g, 0)) === J(want(w25)),
        J(row(g, 0)) + " vs " + J(want(w25)));
  check("zoomed: it starts at the 192 B in use after operation 1", g.start[0] === 192 && w25.start === 192, J(g.start));
  check("zoomed: a breadcrumb to widen", J(g.crumbs) === J(["Whole run", "operations 2 – 4"]), J(g.crumbs));
  check("zoomed: the page says the flame graph and table show what the range did", /flame graph and the table below show what operations 2 – 4 did/.test(g.note), g.note);
  {
    const [x, y, wd] = g.box, W = wd - GUTTER - PAD;
    // three operations across the width: op 2 at 0..1/3, op 4 at 2/3..1
    const h2 = await hoverAt(o, x + GUTTER + W * (0.5 / 3), y + 60);
    check("zoomed hover at operation 2: the free and the bytes in use",
          /Operation\s*2\b/.test(h2) && /In use after it\s*128 B/.test(h2) && /Free\s*-64 B/.test(h2), h2);
    const h4 = await hoverAt(o, x + GUTTER + W * (2.5 / 3), y + 60);
    check("zoomed hover at operation 4: the allocation and the bytes in use",
          /Operation\s*4\b/.test(h4) && /In use after it\s*256 B/.test(h4) && /Allocation\s*\+256 B/.test(h4), h4);
    await o.page.screenshot({ path: join(SHOTS, "memzoom-ok_lines-zoomed-hover.png") });
    // a second drag inside the zoomed graph: operations 3..4 (the axis is 2..4 now)
    await o.page.mouse.move(x + 10, y - 40);
    await drag(o, x + GUTTER + W * (1.2 / 3), x + GUTTER + W * (2.7 / 3), y + 60);
  }
  g = await graph(o);
  check("a drag on the zoomed graph zooms further: ops 3-5, as counters --range 3ms,5ms",
        J(g.ops) === "[3,5]" && J(row(g, 0)) === J(want(cli(prof, 3, 5).MainScene)) &&
        J(g.crumbs) === J(["Whole run", "operations 2 – 4", "operations 3 – 4"]), J(g));
  // pop one crumb, then the whole run
  await o.page.click("#pk-mem-crumbs .pk-crumb:nth-of-type(2)");
  g = await graph(o);
  check("the breadcrumb pops back to ops 2-5", J(g.ops) === "[2,5]" && /ops=2-5/.test(g.hash) && J(row(g, 0)) === J(want(w25)), J(g));
  await o.page.click("#pk-mem-crumbs .pk-crumb:nth-of-type(1)");
  g = await graph(o);
  check("Whole run: the range gone from the URL and the graph", g.ops === null && !/ops=/.test(g.hash) &&
        J(row(g, 0)) === J(want(cli(prof).MainScene)), J(g));
  await closePage(o, "ok_lines", { requests: false });

  // 2. the URL's range restored on load (and a bad one ignored)
  o = await open(file, "view=memory&thread=" + t + "&ops=1-4");
  g = await graph(o);
  check("ops=1-4 in the URL opens zoomed, as counters --range 1ms,4ms",
        J(g.ops) === "[1,4]" && J(row(g, 0)) === J(want(cli(prof, 1, 4).MainScene)) && J(g.crumbs) === J(["Whole run", "operations 1 – 3"]), J(g));
  await o.ctx.close();
  o = await open(file, "view=memory&thread=" + t + "&ops=4-1");
  g = await graph(o);
  check("ops=4-1 (empty) is no range", g.ops === null && !/ops=/.test(g.hash), J(g));
  await closePage(o, "restore", { requests: false });

  // 3. a generated file of 20 threads (modules), about 3,300 operations each: no series thinned (the page keeps up to 6,144 samples a thread), so the samples match too
  {
    const gen = join(TMP, "gen"), many = join(TMP, "many.bsprof"), mfile = join(TMP, "many.html");
    execFileSync("cc", ["-O1", "-o", gen, join(SRC, "bench", "bsprof_gen.c")]);
    execFileSync(gen, ["random", many, "modules=20", "elements=400", "cpu=2000", "memops=20000", "live=1500", "seed=11"],
                 { stdio: ["ignore", "ignore", "ignore"] });
    pk(["flame", "-q", many, "-o", mfile]);
    const whole = cli(many);
    const names = Object.keys(whole);
    check("generated: 20 threads with memory operations", names.length === 20, J(names));
    const byPeak = names.slice().sort((a, b) => whole[b].peak - whole[a].peak || names.indexOf(a) - names.indexOf(b));
    o = await open(mfile, "view=memory");
    g = await graph(o);
    check("All threads of 20: the 8 highest peaks, highest first, as counters --json",
          g.threads.length === 8 && J(g.threads.map((n) => n.replace(/ \(.*$/, ""))) === J(byPeak.slice(0, 8)) &&
          J(g.max) === J(byPeak.slice(0, 8).map((n) => whole[n].peak)), J(g.threads) + " " + J(g.max) + " vs " + J(byPeak.slice(0, 8)));
    check("All threads of 20: compact (at most 8 rows of 24 px)", g.box[3] <= 8 * 24 + 2, J(g.box));
    await o.page.screenshot({ path: join(SHOTS, "memzoom-20threads-compact.png") });
    await o.page.click("#pk-mem-more");
    g = await graph(o);
    check("Show all 20 threads: 20 rows, still compact", g.threads.length === 20 && g.box[3] <= 20 * 24 + 2 &&
          J(g.max) === J(byPeak.map((n) => whole[n].peak)), J(g.threads) + " " + J(g.box));
    await o.page.screenshot({ path: join(SHOTS, "memzoom-20threads-all.png"), fullPage: true });
    // a drag on the first row: its operations, every thread narrowed to them
    const [x, y, wd] = g.box, W = wd - GUTTER - PAD;
    const ops0 = (await o.page.evaluate(() => window.profkit.query("counters"))).length;
    await drag(o, x + GUTTER + W * 0.25, x + GUTTER + W * 0.5, y + 10);
    g = await graph(o);
    const [a, b] = g.ops || [0, 0];
    const zoomed = cli(many, a, b);
    const bad = g.threads.map((n, k) => [n.replace(/ \(.*$/, ""), k]).filter(([n, k]) => J(row(g, k)) !== J(want(zoomed[n])));
    check("All threads zoomed: every thread's start, min, max, last and samples as counters --range " + a + "ms," + b + "ms",
          ops0 === 20 && b > a && g.threads.length === 20 && bad.length === 0,
          J(g.ops) + " " + J(bad.slice(0, 3).map(([n, k]) => [n, row(g, k), want(zoomed[n] || {})])));
      const qz = await o.page.evaluate(() => window.profkit.query("counters"));
    const qbad = qz.filter((c) => J(c.ops) !== J([a, b]) || J({ start: c.total.start, min: c.total.min, max: c.total.max, final: c.total.final, samples: c.samples }) !==
                                  J(want(zoomed[c.thread.name])));
    check("All threads zoomed: query('counters') gives the range's figures as counters --range", qz.length === 20 && qbad.length === 0,
          J(qbad.slice(0, 2)));
    check("All threads zoomed: some thread carries bytes in use in", g.start.some((v) => v !== 0), J(g.start));
    await o.page.screenshot({ path: join(SHOTS, "memzoom-20threads-zoomed.png"), fullPage: true });
    // a click on a thread's name shows that thread, its graph zoomed the same
    const first = g.threads[0];
    await o.page.mouse.click(x + 20, y + 10);
    g = await graph(o);
    check("a click on a name shows that thread alone, still zoomed", g.threads.length === 1 && g.threads[0] === first &&
          J(g.ops) === J([a, b]) && J(row(g, 0)) === J(want(zoomed[first.replace(/ \(.*$/, "")])), J(g));
    await o.page.screenshot({ path: join(SHOTS, "memzoom-20threads-one-zoomed.png") });
    await closePage(o, "20 threads", { requests: false });
  }
  // 4. a long file (bench/bsprof_gen.c, 3 modules, two of them past
  // 6,144 samples, the page's old cut): the page keeps every sample the
  // command line has (its threads' graphs hold fewer than 400,000 together),
  // so over a range every thread's figures and samples are the command
  // line's, and nothing says a graph was thinned
  {
    const gen = join(TMP, "gen"), thin = join(TMP, "thin.bsprof"), tfile = join(TMP, "thin.html");
    execFileSync(gen, ["random", thin, "modules=3", "elements=300", "cpu=2000", "memops=60000", "live=2000", "seed=7"],
                 { stdio: ["ignore", "ignore", "ignore"] });
    pk(["flame", "-q", thin, "-o", tfile]);
    const whole = cli(thin);
    check("long: two threads past 6,144 samples", Object.values(whole).filter((w) => w.samples > 6144).length === 2,
          J(Object.values(whole).map((w) => w.samples)));
    o = await open(tfile, "view=memory&ops=3239-6479");
    g = await graph(o);
    const z = cli(thin, 3239, 6479);
    const bad = g.threads.map((n, k) => [n.replace(/ \(.*$/, ""), k]).filter(([n, k]) => J(row(g, k)) !== J(want(z[n])));
    check("long: every thread's start, min, max, last and samples as counters --range 3239ms,6479ms",
          g.threads.length === 3 && bad.length === 0 && J(g.ops) === "[3239,6479]",
          J(bad.map(([n, k]) => [n, row(g, k), want(z[n])])));
    check("long: nothing says a graph was thinned or merged", !/thinned|merged/.test(g.note), g.note);
    const q = await o.page.evaluate(() => window.profkit.query("counters"));
    const qbad = q.filter((c) => c.by_order && (c.thinned || J({ start: c.total.start, min: c.total.min, max: c.total.max, final: c.total.final, samples: c.samples }) !==
                                  J(want(z[c.thread.name]))));
    check("long: query('counters') gives the range's figures and samples as counters --range", q.length === 3 && qbad.length === 0, J(qbad));
    await o.page.screenshot({ path: join(SHOTS, "memzoom-long-zoomed.png") });
    // several ranges, their edges anywhere: each as the command line's
    const ranges = [[0, 1], [1, 20000], [17, 17 + 4096], [12345, 32397], [32000, 40000]];
    const rbad = [];
    for (const [ra, rb] of ranges) {
      const w = cli(thin, ra, rb);
      const got = await o.page.evaluate(([ra, rb]) => {
        const app = window.profkit.app;
        app.change({ ops: ra + "-" + rb }, "memory range");
        return window.profkit.query("counters");
      }, [ra, rb]);
      for (const c of got)
        if (J({ start: c.total.start, min: c.total.min, max: c.total.max, final: c.total.final, samples: c.samples }) !== J(want(w[c.thread.name])))
          rbad.push([ra, rb, c.thread.name, c.total, c.samples, want(w[c.thread.name])]);
    }
    check("long: ranges with edges anywhere equal counters --range", rbad.length === 0, J(rbad.slice(0, 3)));
    await closePage(o, "long", { requests: false });
  }
} catch (e) {
  check("no exception", false, e && e.stack);
} finally {
  await browser.close();
  rmSync(TMP, { recursive: true, force: true });
}
console.log("memgraph zoom browser: " + counts.passed + " passed, " + counts.failed + " failed");
process.exit(counts.failed ? 1 : 0);
