// The page's time line in a real browser (Debian chromium through
// playwright-core): the timeline's tracks, the marker chart and table
// against `profkit markers --json`, a range dragged in the timeline
// narrowing every view to `profkit top --range`'s and `tree --range`'s
// JSON (window.profkit.query), the range kept in the URL and restored,
// `flame --range` opening with it, the stack chart on the busiest timed
// thread with its runs refined when zoomed. Screenshots of every state go
// to $PROFKIT_BUILD/screenshots/time-*.png.
//
// The profile is made here: a raw Gecko profile with two processes, three
// threads, named functions, and interval and instant markers
// (deterministic), so that every name the page shows is the one the
// reports print.
//
// Environment: PROFKIT, PROFKIT_SRC, PROFKIT_SHARED, PROFKIT_BUILD, PROFKIT_TOOLS.
import { spawnSync } from "node:child_process";
import { writeFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { PROFKIT, shotsDir, launch, closePage, openPage, scratch, pk, same, check, counts } from "./lib.mjs";

const SHOTS = shotsDir();
const TMP = scratch("time");

// ---- the profile ----
let seed = 12345;
const rnd15 = () => { seed = (seed * 1103515245 + 12345) % 2147483648; return Math.floor(seed / 65536) % 32768; };
const rnd = (n) => (rnd15() * 32768 + rnd15()) % n;
const FUNCS = ["main", "run", "parse", "layout", "paint", "gc", "tokenize", "reflow", "compose", "decode",
               "fetch", "hash", "sort", "draw", "wait", "idle", "encode", "scan", "lex", "eval"];
function thread(name, processName, pid, tid, n, t0, markerNames) {
  const strings = ["(root)", ...FUNCS.map((f) => f + " (in app)"), ...markerNames];
  const frames = strings.slice(0, FUNCS.length + 1).map((_, i) => [i]);
  const stacks = [[null, 0]], key = new Map();
  const stackOf = (path) => {
    let s = 0;
    for (const f of path) {
      const k = s + ":" + f;
      if (!key.has(k)) { key.set(k, stacks.length); stacks.push([s, f]); }
      s = key.get(k);
    }
    return s;
  };
  // Phases: the stacks change every few ms, so ranges cut through runs.
  const samples = [];
  let path = [1, 2];
  for (let i = 0; i < n; i++) {
    if (rnd(5) === 0) {
      const depth = 2 + rnd(5);
      path = [1];
      for (let d = 1; d < depth; d++) path.push(2 + rnd(FUNCS.length - 1));
    }
    samples.push([stackOf(path), t0 + i * 1.0 + (rnd(10) / 100), 0]);
  }
  const markers = [];
  const base = FUNCS.length + 1;
  for (let i = 0; i < n / 4; i++) {
    const k = rnd(markerNames.length), start = t0 + rnd(n * 100) / 100;
    if (k % 3 === 2) markers.push([base + k, start, null, 0, 1, { type: "Text", name: "tick " + i }]);
    else markers.push([base + k, start, start + 0.5 + rnd(4000) / 100, 1, k % 2, { type: "Text", name: "span " + i }]);
  }
  markers.sort((a, b) => a[1] - b[1]);
  return {
    name, processType: "default", processName, pid: String(pid), tid,
    samples: { schema: { stack: 0, time: 1, eventDelay: 2 }, data: samples },
    markers: { schema: { name: 0, startTime: 1, endTime: 2, phase: 3, category: 4, data: 5 }, data: markers },
    stackTable: { schema: { prefix: 0, frame: 1 }, data: stacks },
    frameTable: { schema: { location: 0, relevantForJS: 1, innerWindowID: 2, implementation: 3, line: 4, column: 5, category: 6, subcategory: 7 }, data: frames },
    stringTable: strings,
  };
}
const profile = {
  meta: { version: 36, startTime: 1700000000000.0, interval: 1, product: "Firefox",
          categories: [{ name: "Other", color: "grey", subcategories: ["Other"] }, { name: "Graphics", color: "green", subcategories: ["Other"] }] },
  threads: [
    thread("GeckoMain", "Parent Process", 100, 101, 3000, 0, ["Paint", "DOMEvent", "Vsync", "GCMajor", "Styles"]),
    thread("Renderer", "Parent Process", 100, 102, 1500, 500, ["Composite", "Upload", "Frame"]),
    thread("GeckoMain", "Web Content", 200, 201, 2000, 800, ["Paint", "DOMEvent", "Vsync", "Script"]),
  ],
};
const PROF = join(TMP, "timed.json");
writeFileSync(PROF, JSON.stringify(profile));

const browser = await launch();
const open = (file, o = {}) => openPage(browser, file, o);
const close = closePage;
const shot = (o, name) => o.page.screenshot({ path: join(SHOTS, "time-" + name + ".png") });
const state = (o) => o.page.evaluate(() => window.profkitState);
const query = (o, kind, opts) => o.page.evaluate(([k, x]) => window.profkit.query(k, x), [kind, opts]);
const settle = (o) => o.page.evaluate(() => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 30))));
async function pickThread(o, t) {
  await o.page.selectOption("#pk-thread", String(t));
  await settle(o);
}
const threadIndexes = [1, 2, 3];      // the page's threads (0 is all threads merged)
const cliThread = (t) => String(t - 1); // profkit's --thread index

try {
  const page = join(TMP, "timed.html");
  pk(["flame", "-q", "--min-percent", "0", PROF, "-o", page]);

  // ---- the timeline: a track per thread, grouped by process ----
  {
    const o = await open(page);
    const tl = await o.page.evaluate(() => {
      const t = window.profkit.app.timeline;
      return { tracks: t.tracks().map((x) => ({ thread: x.thread, process: x.group.process, pid: x.group.pid })),
               canvas: !!document.querySelector("#pk-timeline-canvas"), h: document.querySelector("#pk-timeline-canvas").height };
    });
    check("timeline: a track per timed thread", tl.tracks.length === 3, JSON.stringify(tl.tracks));
    check("timeline: tracks grouped by process (Parent Process 100 twice, then Web Content 200)",
          same(tl.tracks.map((x) => x.process + " " + x.pid), ["Parent Process 100", "Parent Process 100", "Web Content 200"]), JSON.stringify(tl.tracks));
    check("timeline: one canvas (no DOM node per sample or marker)", tl.canvas && (await o.page.$$("#pk-timeline *")).length < 40,
          (await o.page.$$("#pk-timeline *")).length);
    await shot(o, "timeline");

    // The whole range: query("top") and ("tree") equal the reports' JSON.
    for (const t of threadIndexes) {
      await pickThread(o, t);
      const top = await query(o, "top", { limit: 0 });
      const cli = JSON.parse(pk(["top", "--json", "-n", "0", "--thread", cliThread(t), PROF]));
      check(`query("top") = profkit top --json, thread ${t}`, same(top, cli), JSON.stringify(top).slice(0, 300) + " vs " + JSON.stringify(cli).slice(0, 300));
      const tree = await query(o, "tree");
      const ctree = JSON.parse(pk(["tree", "--json", "--thread", cliThread(t), PROF]));
      // tree's "total" is every thread's: the page has every thread too.
      check(`query("tree") = profkit tree --json, thread ${t}`, same(tree, ctree), JSON.stringify(tree).slice(0, 300) + " vs " + JSON.stringify(ctree).slice(0, 300));
    }
    // The merged entry: top of every thread, tree of each thread.
    await pickThread(o, 0);
    check(`query("top") = profkit top --json, all threads`, same(await query(o, "top", { limit: 0 }), JSON.parse(pk(["top", "--json", "-n", "0", PROF]))));
    check(`query("top") keeps top's default of 20 rows`, (await query(o, "top")).rows.length === 20);

    // ---- markers: counts and times equal profkit markers --json ----
    const all = JSON.parse(pk(["markers", "--list", "--json", PROF]));
    for (const t of threadIndexes) {
      await pickThread(o, t);
      const mine = await query(o, "markers");
      const theirs = all.markers.filter((m) => m.thread.index === t - 1);
      check(`markers of thread ${t}: count = profkit markers --json`, mine.length === theirs.length && mine.length > 0, mine.length + " vs " + theirs.length);
      const key = (m) => [m.name, m.category, m.start.toFixed(6), m.duration === undefined ? "-" : m.duration.toFixed(6)].join("|");
      check(`markers of thread ${t}: names, categories, starts, durations = profkit markers --json`,
            same(mine.map(key).sort(), theirs.map(key).sort()), mine.map(key).slice(0, 3) + " vs " + theirs.map(key).slice(0, 3));
      const rows = await o.page.evaluate(() => window.profkit.app.timeline.layout.rows.length);
      check(`marker chart of thread ${t}: a row per marker name`, rows === new Set(theirs.map((m) => m.name)).size, rows);
    }
    // The marker table: sortable, searchable; a click selects the range.
    await pickThread(o, 1);
    await o.page.click('.pk-tab:has-text("Markers"), button:has-text("Markers")');
    await settle(o);
    const count = await o.page.evaluate(() => window.profkit.app.markerCount);
    check("marker table: every marker of the thread", count === all.markers.filter((m) => m.thread.index === 0).length, count);
    await o.page.fill("#pk-marker-search", "paint");
    await settle(o);
    const paints = all.markers.filter((m) => m.thread.index === 0 && /paint/i.test(m.name + " " + m.category + " " + JSON.stringify(m.data))).length;
    const found = await o.page.evaluate(() => window.profkit.app.markerCount);
    check("marker table: the search finds the Paint markers", found === paints && found > 0, found + " vs " + paints);
    await o.page.click('#pk-marker-table th:has-text("Duration")');
    await o.page.click('#pk-marker-table th:has-text("Duration")');
    await settle(o);
    const durs = await o.page.$$eval("#pk-marker-table tbody tr td:nth-child(2)", (tds) => tds.map((td) => parseFloat(td.textContent)));
    check("marker table: sorted by duration, longest first", durs.length > 1 && durs.every((d, i) => i === 0 || d <= durs[i - 1]), durs.slice(0, 5));
    await shot(o, "marker-table");
    await o.page.click("#pk-marker-table tbody tr:first-child");
    await settle(o);
    let st = await state(o);
    const longest = all.markers.filter((m) => m.thread.index === 0 && /paint/i.test(m.name + " " + m.category + " " + JSON.stringify(m.data)) && m.duration !== undefined)
      .sort((a, b) => b.duration - a.duration)[0];
    const r = st.range.split(/(?<=\d)-/).map(Number);
    check("a click on a marker selects its range", Math.abs(r[0] - longest.start) < 0.002 && Math.abs(r[1] - (longest.start + longest.duration)) < 0.002,
          st.range + " vs " + longest.start + "+" + longest.duration);
    await shot(o, "marker-selected");
    await close(o, "timeline page");
  }

  // ---- a range dragged in the timeline narrows every view ----
  {
    const o = await open(page, { hash: "thread=1" });
    const box = await o.page.locator("#pk-timeline-canvas").boundingBox();
    const g = await o.page.evaluate(() => window.profkit.TIMELINE_GUTTER);
    const x0 = box.x + g + (box.width - g) * 0.30, x1 = box.x + g + (box.width - g) * 0.55, y = box.y + 30;
    await o.page.mouse.move(x0, y);
    await o.page.mouse.down();
    await o.page.mouse.move((x0 + x1) / 2, y, { steps: 4 });
    await o.page.mouse.move(x1, y, { steps: 4 });
    await shot(o, "dragging");
    await o.page.mouse.up();
    await settle(o);
    let st = await state(o);
    check("drag in the timeline selects a range (range=START-END in the state)", /^-?[\d.]+--?[\d.]+$/.test(st.range), st.range);
    const [a, b] = st.range.split(/(?<=\d)-/).map(Number);
    const cliTop = JSON.parse(pk(["top", "--json", "-n", "0", "--thread", "0", "--range", `${a}ms,${b}ms`, PROF]));
    check("the flame graph's total is top --range's", st.total === cliTop.total && st.total > 0 && st.total < 3000, st.total + " vs " + cliTop.total);
    check(`query("top") under the range = profkit top --range --json`, same(await query(o, "top", { limit: 0 }), cliTop),
          JSON.stringify(await query(o, "top", { limit: 0 })).slice(0, 300) + " vs " + JSON.stringify(cliTop).slice(0, 300));
    const cliTree = JSON.parse(pk(["tree", "--json", "--thread", "0", "--range", `${a}ms,${b}ms`, PROF]));
    check(`query("tree") under the range = profkit tree --range --json`, same(await query(o, "tree"), cliTree),
          JSON.stringify(await query(o, "tree")).slice(0, 300) + " vs " + JSON.stringify(cliTree).slice(0, 300));
    await shot(o, "range-flame");
    // The call tree narrowed: its root row's total.
    await o.page.click('button:has-text("Call tree")');
    await settle(o);
    st = await state(o);
    check("the call tree shows the range's total", st.view === "tree" && st.total === cliTop.total, st.view + " " + st.total);
    await shot(o, "range-calltree");
    for (const v of ["Top functions", "Sandwich", "Stack chart"]) {
      await o.page.click(`button:has-text("${v}")`);
      await settle(o);
      st = await state(o);
      if (v !== "Stack chart") check(`${v} shows the range's total`, st.total === cliTop.total, st.total);
    }
    const span = await o.page.evaluate(() => window.profkit.app.stackRange().map((x) => window.profkit.app.p.msOf(x)));
    check("the stack chart shows the range", Math.abs(span[0] - a) < 0.01 && Math.abs(span[1] - b) < 0.01, JSON.stringify(span));
    await shot(o, "range-stack");
    // Inverted: the same total.
    await o.page.click('button:has-text("Flame graph")');
    await o.page.check("#pk-inverted");
    await settle(o);
    await o.page.waitForFunction(() => !window.profkitState.partial, null, { timeout: 5000 }).catch(() => {});
    st = await state(o);
    check("the inverted tree shows the range's total", st.total === cliTop.total, st.total);
    await o.page.uncheck("#pk-inverted");
    // The range is in the URL.
    await o.page.waitForFunction((r) => location.hash.includes("range=" + r), st.range, { timeout: 5000 }).catch(() => {});
    const hash = await o.page.evaluate(() => location.hash);
    check("the range is in the URL fragment", hash.includes("range=" + st.range),
          hash + " " + st.range + " " + (await o.page.evaluate(() => window.profkit.encodeState(window.profkit.app.state))));
    // A second range inside the first, then pop back.
    const x2 = box.x + g + (box.width - g) * 0.4, x3 = box.x + g + (box.width - g) * 0.6;
    await o.page.mouse.move(x2, y); await o.page.mouse.down(); await o.page.mouse.move(x3, y, { steps: 5 }); await o.page.mouse.up();
    await settle(o);
    const crumbs = await o.page.$$eval("#pk-range-crumbs button", (bs) => bs.map((b) => b.textContent));
    check("ranges stack up in the breadcrumb", crumbs.length === 3, JSON.stringify(crumbs));
    const inner = (await state(o)).range.split(/(?<=\d)-/).map(Number);
    check("the second range lies inside the first", inner[0] >= a - 1e-9 && inner[1] <= b + 1e-9, inner + " in " + [a, b]);
    await shot(o, "range-nested");
    await o.page.click("#pk-range-crumbs button:nth-of-type(2)");
    await settle(o);
    check("popping the breadcrumb widens to the first range", (await state(o)).range === st.range, (await state(o)).range);
    await o.page.click("#pk-range-crumbs button:nth-of-type(1)");
    await settle(o);
    st = await state(o);
    check("the full range again: the whole total", st.range === "" && st.total === 3000, st.range + " " + st.total);
    await close(o, "dragged range");

    // ---- the URL's range restored on load ----
    const o2 = await open(page, { hash: `thread=1&view=tree&range=${a}-${b}` });
    const st2 = await state(o2);
    check("the URL's range is restored on load", st2.range === `${a}-${b}` && st2.total === cliTop.total, st2.range + " " + st2.total);
    check("restored: the breadcrumb shows it", (await o2.page.$$("#pk-range-crumbs button")).length === 2);
    await shot(o2, "range-restored");
    await close(o2, "restored range");
  }

  // ---- flame --range opens the page with the range selected (poppable) ----
  {
    const out = join(TMP, "ranged.html");
    pk(["flame", "-q", "--min-percent", "0", "--range", "1000ms,1500ms", PROF, "-o", out]);
    const o = await open(out, { hash: "thread=3" });
    let st = await state(o);
    const cli = JSON.parse(pk(["top", "--json", "-n", "0", "--thread", "2", "--range", "1000ms,1500ms", PROF]));
    check("flame --range: the page opens with the range", st.range === "1000-1500" && st.total === cli.total, st.range + " " + st.total + " vs " + cli.total);
    check("flame --range: query(top) = top --range", same(await query(o, "top", { limit: 0 }), cli));
    await shot(o, "flame-range");
    await o.page.click("#pk-range-crumbs button:nth-of-type(1)");
    await settle(o);
    st = await state(o);
    check("flame --range: the range pops to the whole profile", st.range === "" && st.total === 2000, st.range + " " + st.total);
    await close(o, "flame --range");
  }

  // ---- the stack chart: the busiest timed thread, refined runs ----
  {
    const o = await open(page, { hash: "view=stack" });
    let st = await state(o);
    check("the stack chart opens on the busiest timed thread (not all threads)", st.thread === 1, st.thread);
    const note = await o.page.textContent("#pk-stack");
    check("no 'no timed samples' note", !/no timed samples/.test(note), note.slice(0, 100));
    // Zoomed to 20 ms: every run of the samples is drawn where it happened.
    const runs = await o.page.evaluate(() => {
      const app = window.profkit.app, p = app.p, tl = p.timeline(1);
      const a = Math.round(p.nsOf(1200)), b = Math.round(p.nsOf(1260));
      app.change({ span: a + "-" + b }, "zoom");
      // The runs of the samples themselves (from the one before the range
      // to the one after), and the whole range's runs there.
      let n = 0, last = -1, i0 = -1, i1 = 0;
      for (let i = 0; i < tl.n; i++) { if (tl.time[i] < a) i0 = i; if (tl.time[i] < b) i1 = i + 1; }
      for (let i = Math.max(0, i0); i <= Math.min(tl.n - 1, i1); i++) { if (tl.node[i] !== last) n++; last = tl.node[i]; }
      const m = app.stack.model.samples;
      const starts = Array.from(m.start), ok = starts.every((s, k) => s === tl.time[Math.max(0, i0) + 0] || starts.indexOf(s) === k);
      return { refined: !!m.refined, sampleRuns: n, modelRuns: m.node.length, first: m.start[0], sample0: tl.time[Math.max(0, i0)], ok };
    });
    check("zoomed: the stack chart draws every run of the samples, where it happened",
          runs.refined && runs.modelRuns === runs.sampleRuns && runs.sampleRuns > 5 && runs.first === runs.sample0, JSON.stringify(runs));
    await settle(o);
    // Hover a box: start and duration.
    const sbox = await o.page.locator("#pk-stack-canvas").boundingBox();
    await o.page.mouse.move(sbox.x + sbox.width / 2, sbox.y + 16 + 9);
    await settle(o);
    const hov = await o.page.textContent("#pk-hover");
    check("stack chart hover shows start and duration", /Start/.test(hov) && /Duration/.test(hov), hov);
    await shot(o, "stack-zoomed");
    await close(o, "stack chart");
  }
  // ---- past the page's budget of 1,000,000 timed samples ----
  {
    const big = join(TMP, "big.json"), n = 1100000, data = [];
    for (let i = 0; i < n; i++) data.push([1 + ((i >> 6) % 3), i * 0.1, 0]);
    writeFileSync(big, JSON.stringify({
      meta: { version: 36, startTime: 0, interval: 0.1, product: "Firefox", categories: [{ name: "Other", color: "grey", subcategories: ["Other"] }] },
      threads: [{ name: "Main", processType: "default", pid: "1", tid: 2,
        samples: { schema: { stack: 0, time: 1, eventDelay: 2 }, data },
        markers: { schema: { name: 0, startTime: 1, endTime: 2, phase: 3, category: 4, data: 5 }, data: [] },
        stackTable: { schema: { prefix: 0, frame: 1 }, data: [[null, 0], [0, 1], [1, 2], [1, 3]] },
        frameTable: { schema: { location: 0 }, data: [[0], [1], [2], [3]] }, stringTable: ["(root)", "main", "a", "b"] }],
    }));
    const out = join(TMP, "big.html");
    pk(["flame", "-q", big, "-o", out]);
    const html = (await import("node:fs")).readFileSync(out, "utf8");
    const d = JSON.parse(/id="profkit-data">(.*?)<\/script>/s.exec(html)[1]);
    check("past the budget: no samples embedded, the count said", d.time.samples_left_out === n && d.threads.every((x) => !x.timeline), JSON.stringify(d.time).slice(0, 200));
    const bins = d.threads.find((x) => x.activity);
    check("past the budget: the thread's activity per 4000th of the range, summing to its samples",
          bins && bins.activity.length === 4000 && bins.activity.reduce((a, b) => a + b, 0) === n);
    const o = await open(out, { hash: "thread=1" });
    const note = await o.page.textContent("#pk-range-note");
    check("past the budget: the page says its views show the whole profile", /views show the whole profile/.test(note) && /1,100,000/.test(note), note);
    await shot(o, "past-budget");
    await close(o, "past the budget");
    // flame --range then makes a page of the range alone, and says so.
    const r = spawnSync(PROFKIT, ["flame", "--range", "10000ms,20000ms", big, "-o", join(TMP, "bigr.html")], { encoding: "utf8" });
    check("past the budget: flame --range says the page is of the range alone", r.status === 0 && /the page is of the range 10000ms,20000ms alone/.test(r.stderr), r.stderr);
    const d2 = JSON.parse(/id="profkit-data">(.*?)<\/script>/s.exec((await import("node:fs")).readFileSync(join(TMP, "bigr.html"), "utf8"))[1]);
    const total = d2.threads[1].tree.self[0].reduce((a, b) => a + b, 0);
    const cli = JSON.parse(pk(["top", "--json", "--range", "10000ms,20000ms", big])).total;
    check("past the budget: flame --range makes a page of the range alone (top --range's total)", total === cli && total === 100000, total + " vs " + cli);
  }
  // ---- a damaged markers stream: no markers, the range note says why, no page error ----
  {
    const { readFileSync } = await import("node:fs");
    const html = readFileSync(page, "utf8");
    const m = /(<script type="application\/json" id="profkit-markers">)(.*?)(<\/script>)/s.exec(html);
    const obj = m && JSON.parse(m[2]);
    check("the page's markers are packed (a gzip stream in base85)", obj && typeof obj.gz === "string" && obj.gz.length > 100,
          m ? m[2].slice(0, 200) : "no markers element");
    if (obj && obj.gz) {
      const at = obj.gz.length >> 1;
      obj.gz = obj.gz.slice(0, at) + (obj.gz[at] === "0" ? "1" : "0") + obj.gz.slice(at + 1);
      const bad = join(TMP, "damaged.html");
      writeFileSync(bad, html.slice(0, m.index) + m[1] + JSON.stringify(obj) + m[3] + html.slice(m.index + m[0].length));
      const o = await open(bad, { hash: "thread=1" });
      await o.page.waitForFunction(() => window.profkit.app.p.time().markersReady(), null, { timeout: 20000 }).catch(() => {});
      await settle(o);
      const note = await o.page.textContent("#pk-range-note");
      check("damaged markers: the range note says why", /markers: .*: no markers shown/.test(note), note);
      check("damaged markers: none shown", (await query(o, "markers")).length === 0);
      check("damaged markers: the samples still there", (await query(o, "top", { limit: 0 })).total > 0);
      await shot(o, "damaged-markers");
      await close(o, "damaged markers");
    }
  }
} finally {
  await browser.close();
  rmSync(TMP, { recursive: true, force: true });
}
console.log(`time browser checks: ${counts.passed} passed, ${counts.failed} failed`);
process.exit(counts.failed ? 1 : 0);
