// The profiler's paused ranges in the page's timeline, in a real browser
// (Debian chromium through playwright-core): a hatched band over the
// tracks of each range's process, where the file's own pausedRanges say
// (read here from the file, not from the page: the pixels of the canvas
// and query("paused") against them), on a raw Gecko profile (a
// sub-process's ranges on its own start, as its samples) and on the same
// profile converted to a processed one (its ranges as that file has them);
// the hover ("profiler paused", the reason, start and duration; an open
// range says it runs to the end); a range dragged across a band still
// selects and zooms (the bands follow the axis), range=A-B from the URL
// too; a range of no known process is on every track; a profile without
// paused ranges draws no band. Screenshots:
// $PROFKIT_BUILD/screenshots/paused-*.png.
//
// Environment: PROFKIT, PROFKIT_SRC, PROFKIT_BUILD, PROFKIT_TOOLS.
import { readFileSync, writeFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { shotsDir, launch, closePage, openPage, scratch, pk, same, check, report } from "./lib.mjs";

const SHOTS = shotsDir();
const TMP = scratch("paused");
const J = JSON.stringify;

// ---- the profiles ----
// Raw Gecko: a parent process (pid 100: two threads) and a content process
// (pid 200) whose profile starts 50 ms later, samples every ms except while
// their process is paused. Times in each process's own ms.
const FUNCS = ["(root)", "main", "run", "layout", "paint", "gc"];
const PARENT_PAUSED = [{ startTime: 300, endTime: 450, reason: "profiler-paused" },
                       { startTime: 700, endTime: 720, reason: "collecting" }];
const CHILD_PAUSED = [{ startTime: 500, endTime: 580, reason: "profiler-paused" },
                      { startTime: 1000, endTime: null, reason: "profiler-paused" }];
const SHIFT = 50, END = 1200;
function thread(name, pid, tid, from, to, paused) {
  const samples = [];
  for (let t = from, i = 0; t < to; t++, i++) {
    if (paused.some((r) => t >= r.startTime && (r.endTime === null || t < r.endTime))) continue;
    samples.push([1 + (i % 4), t + 0.25, 0]);
  }
  return {
    name, processType: pid === 100 ? "default" : "tab", pid: String(pid), tid,
    samples: { schema: { stack: 0, time: 1, eventDelay: 2 }, data: samples },
    markers: { schema: { name: 0, startTime: 1, endTime: 2, phase: 3, category: 4, data: 5 }, data: [] },
    stackTable: { schema: { prefix: 0, frame: 1 }, data: [[null, 0], [0, 1], [1, 2], [2, 3], [1, 4]] },
    frameTable: { schema: { location: 0, relevantForJS: 1, innerWindowID: 2, implementation: 3, line: 4, column: 5, category: 6, subcategory: 7 },
                  data: FUNCS.map((_, i) => [i, false, 0, null, null, null, 0, 0]) },
    stringTable: FUNCS,
  };
}
const categories = [{ name: "Other", color: "blue", subcategories: ["Other"] }];
function gecko(withPaused) {
  const pp = withPaused ? PARENT_PAUSED : [], cp = withPaused ? CHILD_PAUSED : [];
  const prof = {
    meta: { version: 24, startTime: 1700000000000, interval: 1, product: "Firefox", categories,
            profilingStartTime: 0, profilingEndTime: END },
    libs: [],
    threads: [thread("GeckoMain", 100, 101, 0, END, pp), thread("Renderer", 100, 102, 100, END, pp)],
    processes: [{
      meta: { version: 24, startTime: 1700000000000 + SHIFT, interval: 1, product: "Firefox", categories },
      libs: [], threads: [thread("GeckoMain", 200, 201, 0, END - SHIFT, cp)], processes: [],
    }],
  };
  if (withPaused) { prof.pausedRanges = PARENT_PAUSED; prof.processes[0].pausedRanges = CHILD_PAUSED; }
  return prof;
}
const RAW = join(TMP, "paused.json"), NONE = join(TMP, "unpaused.json"), PROC = join(TMP, "processed.json");
writeFileSync(RAW, J(gecko(true)));
writeFileSync(NONE, J(gecko(false)));
pk(["convert", "-q", "--no-symbolize", RAW, "--to", "firefox", "-o", PROC]);

// What each file says, read here: per pid its ranges as ms after the root
// range's start (profilingStartTime). A range's times are on its process's
// own start: raw Gecko, a sub-process profile's meta.startTime; processed,
// its threads' processStartupTime (each thread repeats its process's
// ranges: one per process).
function expected(file) {
  const d = JSON.parse(readFileSync(file, "utf8")), out = [], seen = new Set();
  const zero = d.meta.profilingStartTime || 0, end = (d.meta.profilingEndTime || 0) - zero;
  const add = (r, pid, shift) => {
    const k = pid + J(r);
    if (seen.has(k)) return;
    seen.add(k);
    out.push({ pid, start: r.startTime + shift - zero, end: r.endTime === null ? end : r.endTime + shift - zero, open: r.endTime === null, reason: r.reason });
  };
  if (d.meta.preprocessedProfileVersion === undefined) {
    const walk = (p, shift) => {
      for (const r of p.pausedRanges || []) add(r, +p.threads[0].pid, shift);
      for (const c of p.processes || []) walk(c, shift + c.meta.startTime - p.meta.startTime);
    };
    walk(d, 0);
  } else {
    for (const t of d.threads) for (const r of t.pausedRanges || []) add(r, +t.pid, t.processStartupTime || 0);
  }
  out.sort((p, q) => p.pid - q.pid || p.start - q.start);
  return { ranges: out, end };
}

const browser = await launch();
const open = (file, o = {}) => openPage(browser, file, { height: 800, ...o });
const close = closePage;
const shot = (o, name) => o.page.screenshot({ path: join(SHOTS, "paused-" + name + ".png") });
const settle = (o) => o.page.evaluate(() => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 30))));

// The timeline as drawn: its tracks (thread, pid, y), the canvas's width,
// the gutter, and per track the pixel columns the band's fill covers: a
// column is banded when nearly all of the track's pixels there are the
// hatching's greys (semi-transparent, r = g = b, darker than the axis's
// tick lines), read from the canvas itself.
const TRACK = 26;
const drawn = (o) => o.page.evaluate((TRACK) => {
  const app = window.profkit.app, tl = app.timeline, cv = document.querySelector("#pk-timeline-canvas");
  // one read of a copy (reads of the page's own canvas would make it warn)
  const copy = document.createElement("canvas");
  copy.width = cv.width; copy.height = cv.height;
  const g = copy.getContext("2d", { willReadFrequently: true });
  g.drawImage(cv, 0, 0);
  const all = g.getImageData(0, 0, cv.width, cv.height).data, dpr = cv.width / cv.clientWidth, L = tl.layout;
  const tracks = L.tracks.map((tr, k) => {
    const y0 = Math.round((18 + k * TRACK + 2) * dpr), y1 = Math.round((18 + (k + 1) * TRACK - 2) * dpr);
    const img = all.subarray(y0 * cv.width * 4, y1 * cv.width * 4), runs = [];
    let from = -1;
    for (let x = 0; x <= cv.width; x++) {
      let grey = 0;
      for (let y = 0; x < cv.width && y < y1 - y0; y++) {
        const i = (y * cv.width + x) * 4, r = img[i], gg = img[i + 1], b = img[i + 2], a = img[i + 3];
        if (a > 0 && Math.abs(r - gg) <= 10 && Math.abs(gg - b) <= 10 && (r < 215 || a < 255)) grey++;
      }
      const on = x < cv.width && grey >= 0.9 * (y1 - y0);
      if (on && from < 0) from = x;
      if (!on && from >= 0) { if (x - from >= 2) runs.push([from / dpr, x / dpr]); from = -1; }
    }
    return { thread: tr.thread, pid: tr.group.pid, runs };
  });
  return { tracks, width: cv.clientWidth, gutter: window.profkit.TIMELINE_GUTTER, a: L.a, b: L.b,
           range: window.profkitState.range, query: (() => { try { return window.profkit.query("paused"); } catch (e) { return String(e); } })() };
}, TRACK);

// The bands one track should show over the shown range [a, b]: the
// columns of each range of its process, clipped to the range.
function want(ex, pid, a, b, width, gutter) {
  const W = width - gutter, x = (ms) => gutter + (ms - a) / (b - a) * W;
  return ex.ranges.filter((r) => r.pid === pid && r.end >= a && r.start <= b)
    .map((r) => [Math.max(gutter, x(r.start)), Math.min(gutter + W, x(r.end))]).sort((p, q) => p[0] - q[0]);
}
// Runs next to each other (two ranges touching) are one run of pixels.
function merged(list) {
  const out = [];
  for (const r of list) if (out.length && r[0] <= out[out.length - 1][1] + 1) out[out.length - 1][1] = Math.max(out[out.length - 1][1], r[1]); else out.push(r.slice());
  return out;
}
// Zoomed in, the activity graph holds a sample over the interval after it
// (1 ms here), over the band's first columns: a band's start may show that
// much later.
const near = (got, exp, msPx) => got.length === exp.length && got.every((r, i) => r[0] >= exp[i][0] - 2 && r[0] <= exp[i][0] + 2 + msPx && Math.abs(r[1] - exp[i][1]) <= 2);

function checkBands(what, d, ex) {
  for (const tr of d.tracks) {
    const exp = merged(want(ex, tr.pid, d.a, d.b, d.width, d.gutter));
    check(`${what}: track of thread ${tr.thread} (pid ${tr.pid}): the hatched columns are its process's paused ranges`,
          near(tr.runs, exp, (d.width - d.gutter) / (d.b - d.a)), J(tr.runs.map((r) => r.map(Math.round))) + " vs " + J(exp.map((r) => r.map(Math.round))));
  }
  // query("paused"): the ranges in ms, and the band of each on its
  // process's tracks at the same columns.
  if (!Array.isArray(d.query)) return check(`${what}: query("paused") answers`, false, d.query);
  const q = d.query.slice().sort((p, r) => p.pid - r.pid || p.start - r.start), e = ex.ranges;
  check(`${what}: query("paused") has the file's ranges (start, end, open, reason, pid)`,
        q.length === e.length && q.every((r, i) => Math.abs(r.start - e[i].start) < 1e-6 && Math.abs(r.end - e[i].end) < 1e-6 &&
                                                 r.open === e[i].open && r.reason === e[i].reason && r.pid === e[i].pid),
        J(q.map(({ bands, ...r }) => r)) + " vs " + J(e));
  for (let i = 0; i < q.length; i++) {
    const on = d.tracks.filter((tr) => tr.pid === q[i].pid && q[i].end >= d.a && q[i].start <= d.b).map((tr) => tr.thread);
    check(`${what}: range ${i} (pid ${q[i].pid}) drawn on its process's tracks only`, same(q[i].bands.map((b) => b.thread), on), J(q[i].bands) + " vs " + J(on));
  }
}

try {
  // ---- 1. raw Gecko: the bands where the file says ----
  const page = join(TMP, "paused.html");
  pk(["flame", "-q", RAW, "-o", page]);
  const ex = expected(RAW);
  check("the profile has ranges in both processes, one open", ex.ranges.length === 4 && ex.ranges.some((r) => r.open) &&
        new Set(ex.ranges.map((r) => r.pid)).size === 2, J(ex.ranges));
  {
    const o = await open(page);
    const d = await drawn(o);
    check("raw: three tracks (pids 100, 100, 200)", same(d.tracks.map((t) => t.pid), [100, 100, 200]), J(d.tracks));
    checkBands("raw", d, ex);
    await shot(o, "timeline");

    // hover: the middle of the parent's first range on its first track
    const box = await o.page.locator("#pk-timeline-canvas").boundingBox();
    const xAt = (ms) => box.x + d.gutter + (ms - d.a) / (d.b - d.a) * (d.width - d.gutter);
    const yOf = (k) => box.y + 18 + k * TRACK + TRACK / 2;
    const r0 = ex.ranges[0];
    await o.page.mouse.move(xAt((r0.start + r0.end) / 2), yOf(0));
    await settle(o);
    let hov = await o.page.textContent("#pk-hover");
    const visible = await o.page.evaluate(() => !document.querySelector("#pk-hover").hidden);
    check("hover on a band: profiler paused, its reason, start and duration",
          visible && /profiler paused/.test(hov) && hov.includes(r0.reason) && hov.includes("300.00 ms") && hov.includes("150.00 ms") && !/open/.test(hov), hov);
    await shot(o, "hover");
    // the open one: the content process's last, to the end of the profile
    const r3 = ex.ranges.find((r) => r.open);
    await o.page.mouse.move(xAt((r3.start + r3.end) / 2), yOf(2));
    await settle(o);
    hov = await o.page.textContent("#pk-hover");
    check("hover on an open range: it runs to the end of the profile",
          /profiler paused/.test(hov) && /open: paused to the end of the profile/.test(hov) && hov.includes((r3.end - r3.start).toFixed(2) + " ms") && hov.includes("pid 200"), hov);
    await shot(o, "hover-open");
    // outside any band: the track's own hover
    await o.page.mouse.move(xAt(150), yOf(0));
    await settle(o);
    hov = await o.page.textContent("#pk-hover");
    check("hover off the bands: the thread's time, not a paused range", !/profiler paused/.test(hov) && /Time/.test(hov), hov);

    // a range dragged across the parent's first band: selected, and the
    // bands drawn on the zoomed axis
    const y = yOf(1);
    await o.page.mouse.move(xAt(250), y);
    await o.page.mouse.down();
    await o.page.mouse.move(xAt(400), y, { steps: 4 });
    await o.page.mouse.move(xAt(500), y, { steps: 4 });
    await shot(o, "dragging");
    await o.page.mouse.up();
    await settle(o);
    const z = await drawn(o);
    const r = z.range.split(/(?<=\d)-/).map(Number), px = (d.b - d.a) / (d.width - d.gutter);
    check("a drag across a band selects its range", Math.abs(r[0] - 250) <= 2 * px && Math.abs(r[1] - 500) <= 2 * px, z.range);
    check("the zoomed timeline shows the selected range", Math.abs(z.a - r[0]) < 1e-6 && Math.abs(z.b - r[1]) < 1e-6, J([z.a, z.b]));
    checkBands("zoomed by a drag", z, ex);
    await shot(o, "zoomed");
    await close(o, "raw profile");
  }
  // range=A-B from the URL: the band cut at the range's start
  {
    const o = await open(page, { hash: "range=400-1100" });
    const d = await drawn(o);
    check("range from the URL: the timeline shows it", d.a === 400 && d.b === 1100, J([d.a, d.b]));
    checkBands("range=400-1100", d, ex);
    await shot(o, "url-range");
    // a drag that starts on a band (the content process's at 550-630 ms)
    const box = await o.page.locator("#pk-timeline-canvas").boundingBox();
    const xAt = (ms) => box.x + d.gutter + (ms - d.a) / (d.b - d.a) * (d.width - d.gutter), y = box.y + 18 + 2.5 * TRACK;
    await o.page.mouse.move(xAt(600), y);
    await o.page.mouse.down();
    await o.page.mouse.move(xAt(700), y, { steps: 4 });
    await o.page.mouse.move(xAt(800), y, { steps: 4 });
    await o.page.mouse.up();
    await settle(o);
    const z = await drawn(o), r = z.range.split(/(?<=\d)-/).map(Number), px = (d.b - d.a) / (d.width - d.gutter);
    check("a drag that starts on a band selects its range", Math.abs(r[0] - 600) <= 2 * px && Math.abs(r[1] - 800) <= 2 * px, z.range);
    checkBands("zoomed by a drag from a band", z, ex);
    await close(o, "range from the URL");
  }
  // dark scheme: the bands are drawn the same places
  {
    const o = await open(page, { scheme: "dark" });
    checkBands("dark", await drawn(o), ex);
    await shot(o, "dark");
    await close(o, "dark scheme");
  }

  // ---- 2. the processed profile: its ranges as it has them ----
  {
    const pex = expected(PROC), ppage = join(TMP, "processed.html");
    check("the processed file repeats the ranges per thread (4 distinct)", pex.ranges.length === 4, J(pex.ranges));
    pk(["flame", "-q", PROC, "-o", ppage]);
    const o = await open(ppage);
    checkBands("processed", await drawn(o), pex);
    await shot(o, "processed");
    await close(o, "processed profile");
  }

  // ---- 3. a range of no known process (a process profile with ranges and
  // no thread): a band over every track ----
  {
    const prof = gecko(true);
    prof.processes.push({ meta: { version: 24, startTime: prof.meta.startTime, interval: 1, product: "Firefox", categories },
                          libs: [], threads: [], processes: [], pausedRanges: [{ startTime: 150, endTime: 170, reason: "collecting" }] });
    const file = join(TMP, "nopid.json"), npage = join(TMP, "nopid.html");
    writeFileSync(file, J(prof));
    pk(["flame", "-q", file, "-o", npage]);
    const o = await open(npage);
    const d = await drawn(o), r = Array.isArray(d.query) ? d.query.find((x) => x.pid === -1) : null;
    const W = d.width - d.gutter, x0 = d.gutter + 150 / 1200 * W, x1 = d.gutter + 170 / 1200 * W;
    check("no known process: the range is on every track, at its columns",
          r && Math.abs(r.start - 150) < 1e-6 && Math.abs(r.end - 170) < 1e-6 && same(r.bands.map((b) => b.thread), d.tracks.map((t) => t.thread)) &&
          r.bands.every((b) => Math.abs(b.x0 - x0) <= 1 && Math.abs(b.x1 - x1) <= 1), J(r) + " vs " + J([x0, x1]));
    const box = await o.page.locator("#pk-timeline-canvas").boundingBox();
    await o.page.mouse.move(box.x + (x0 + x1) / 2, box.y + 18 + 2.5 * TRACK);
    await settle(o);
    const hov = await o.page.textContent("#pk-hover");
    check("no known process: the hover says every process", /profiler paused/.test(hov) && /collecting/.test(hov) && /every process/.test(hov), hov);
    await shot(o, "no-process");
    await close(o, "range of no known process");
  }

  // ---- 4. no paused ranges: nothing new ----
  {
    const npage = join(TMP, "unpaused.html");
    pk(["flame", "-q", NONE, "-o", npage]);
    const data = JSON.parse(/<script type="application\/json" id="profkit-data">(.*?)<\/script>/s.exec(readFileSync(npage, "utf8"))[1]);
    check("no paused ranges: the page's data has no \"paused\"", data.time && !("paused" in data.time), J(Object.keys(data.time || {})));
    const o = await open(npage);
    const d = await drawn(o);
    check("no paused ranges: query(\"paused\") is empty", same(d.query, []), J(d.query));
    check("no paused ranges: no hatched column on any track", d.tracks.length === 3 && d.tracks.every((t) => t.runs.length === 0), J(d.tracks));
    await shot(o, "none");
    await close(o, "profile without paused ranges");
  }
} catch (e) {
  check("no exception", false, e.stack || String(e));
} finally {
  await browser.close();
  rmSync(TMP, { recursive: true, force: true });
}
report("paused ranges in the timeline");
