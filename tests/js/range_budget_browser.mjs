// The page's timed samples in compact columns (docs/viewer.md, "timeline":
// base64 varints) still narrow every view exactly: a generated perf
// script text of 4 threads and 40,000 samples (times in whole µs with
// jitter, so the gaps are not one period), its page's timeline columns
// strings of a few bytes a sample, and for several ranges (edges on a
// sample's time, between samples, the whole) and each thread and All
// threads, query("top") equal to `profkit top --range A,B --json`, in
// Debian's chromium (playwright-core). Screenshot:
// $PROFKIT_BUILD/screenshots/range-budget-*.png.
//
// Environment: PROFKIT, PROFKIT_SRC, PROFKIT_BUILD, PROFKIT_TOOLS.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";

const PROFKIT = process.env.PROFKIT;
const SRC = process.env.PROFKIT_SRC;
const SHOTS = join(process.env.PROFKIT_BUILD || join(SRC, "build"), "screenshots");
mkdirSync(SHOTS, { recursive: true });
const { chromium } = await import(join(process.env.PROFKIT_TOOLS, "node_modules", "playwright-core", "index.mjs"));
const TMP = mkdtempSync(join(tmpdir(), "profkit-rangebudget-"));

let passed = 0, failed = 0;
function check(what, ok, detail) {
  if (ok) passed++;
  else { failed++; console.log("FAIL: " + what + (detail !== undefined ? ": " + String(detail).slice(0, 800) : "")); }
}
const pk = (args) => execFileSync(PROFKIT, args, { encoding: "utf8", maxBuffer: 1 << 28, stdio: ["ignore", "pipe", "pipe"] });
const J = JSON.stringify;

// The input: a seeded generator (no Math.random), 40,000 samples in time
// order over 4 threads, stacks of 2 to 7 frames of 19 functions.
let seed = 12345;
const rnd = (n) => { seed = (seed * 1103515245 + 12345) % 2147483648; return Math.floor(seed / 65536) % n; };
const N = 40000, THREADS = 4, lines = [];
let us = 1000000;   // µs
// one address per function (a frame is an address: one per name keeps the trees small)
const addr = (f) => (0x1000 + 16 * (f === "main" ? 0 : 1 + Number(f.slice(2)))).toString(16);
for (let i = 0; i < N; i++) {
  us += 200 + rnd(100);    // 200-299 µs apart
  const t = rnd(THREADS), depth = 2 + rnd(6), frames = [];
  for (let d = 0; d < depth; d++) frames.push(d === depth - 1 ? "main" : "fn" + (d * 10 + rnd(3)));   // few stacks: no tree is capped (--max-nodes)
  const s = String(Math.floor(us / 1e6)) + "." + String(us % 1e6).padStart(6, "0");
  lines.push(`worker-${t} ${100 + t} ${s}:     250000 cpu-clock: `);
  for (let d = 0; d < depth; d++) lines.push(`\t    ${addr(frames[d])} ${frames[d]} (/opt/app)`);
  lines.push("");
}
const PROF = join(TMP, "timed.perf"), PAGE = join(TMP, "timed.html");
writeFileSync(PROF, lines.join("\n") + "\n");

const browser = await chromium.launch({
  executablePath: "/usr/bin/chromium",
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync"],
});
try {
  pk(["flame", "-q", "--no-symbolize", "--min-percent", "0", PROF, "-o", PAGE]);   // every frame: the page's top is top's
  const html = readFileSync(PAGE, "utf8");
  const data = JSON.parse(/id="profkit-data">(.*?)<\/script>/s.exec(html)[1]);
  const tls = data.threads.filter((t) => t.timeline).map((t) => t.timeline);
  check("every thread's timeline is in the page, its columns strings", tls.length === THREADS &&
        tls.every((tl) => typeof tl.time === "string" && typeof tl.node === "string") && tls.reduce((a, tl) => a + tl.n, 0) === N,
        J(tls.map((tl) => [tl.n, typeof tl.time])));
  check("the time unit is the gaps' divisor (1 µs)", tls.every((tl) => tl.unit === 1000), J(tls.map((tl) => tl.unit)));
  const bytes = tls.reduce((a, tl) => a + tl.time.length + tl.node.length, 0);
  check("the samples take at most 5 bytes each (time and node)", bytes / N <= 5, (bytes / N).toFixed(2));

  const ctx = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  const page = await ctx.newPage();
  const errors = [];
  page.on("console", (m) => { if (m.type() === "error" || m.type() === "warning") errors.push(m.text()); });
  page.on("pageerror", (e) => errors.push("pageerror: " + e.message));
  await page.goto("file://" + PAGE);
  await page.waitForFunction(() => window.profkitTimings && window.profkitTimings.interactive > 0, null, { timeout: 30000 });
  // the threads: page index (1..) by name, as top --thread takes them
  const threads = await page.evaluate(() => { const p = window.profkit.app.p; return p.threads.map((t, i) => [i, t.merged ? null : p.str(t.name)]); });
  // sample times (ms on the zero) to put range edges on
  const times = await page.evaluate(() => { const p = window.profkit.app.p, tl = p.timeline(1); return [tl.time[100], tl.time[5000], tl.time[tl.n - 1]].map((x) => p.msOf(x)); });
  const round = (x) => Math.round(x * 1e6) / 1e6;
  const ranges = [[0, round(times[2]) + 1], [round(times[0]), round(times[1])], [round(times[0]) + 0.0005, 2500.25], [1234.5, 1234.6], [round(times[1]), round(times[2])]];
  let compared = 0;
  const bad = [];
  for (const [a, b] of ranges)
    for (const [i, name] of threads) {
      const got = await page.evaluate(([i, a, b]) => {
        const app = window.profkit.app;
        app.change({ thread: i, range: a + "-" + b }, "range");
        return window.profkit.query("top", { limit: 0 });
      }, [i, a, b]);
      const args = ["top", "--json", "-n", "0", "--no-symbolize", "--range", `${a}ms,${b}ms`];
      if (name !== null) args.push("--thread", name);
      const want = JSON.parse(pk([...args, PROF]));
      compared++;
      if (J(got) !== J(want)) {
        const g = J(got), w = J(want);
        let k = 0;
        while (k < g.length && g[k] === w[k]) k++;
        bad.push([a, b, name, g.slice(Math.max(0, k - 150), k + 150), w.slice(Math.max(0, k - 150), k + 150)]);
      }
    }
  check("query('top') under each range, each thread and All threads = profkit top --range --json", compared === ranges.length * (THREADS + 1) && bad.length === 0,
        compared + " " + J(bad.slice(0, 2)));
  // a range from the URL, its flame graph's total as top --range's
  await page.goto("file://" + PAGE + "#thread=1&range=" + ranges[1][0] + "-" + ranges[1][1]);
  await page.waitForFunction(() => window.profkitTimings && window.profkitTimings.interactive > 0, null, { timeout: 30000 });
  await page.waitForTimeout(300);
  const st = await page.evaluate(() => window.profkitState);
  const want = JSON.parse(pk(["top", "--json", "-n", "0", "--no-symbolize", "--range", `${ranges[1][0]}ms,${ranges[1][1]}ms`, "--thread", threads[1][1], PROF]));
  check("the URL's range: the flame graph's total is top --range's", st.total === want.total && want.total > 0, st.total + " vs " + want.total);
  await page.screenshot({ path: join(SHOTS, "range-budget-flame.png") });
  await page.click('button:has-text("Stack chart")');
  await page.waitForTimeout(300);
  await page.screenshot({ path: join(SHOTS, "range-budget-stack.png") });
  check("no console or page error", errors.length === 0, errors.join(" | "));
  await ctx.close();
} catch (e) {
  check("no exception", false, e && e.stack);
} finally {
  await browser.close();
  rmSync(TMP, { recursive: true, force: true });
}
console.log("range budget browser: " + passed + " passed, " + failed + " failed");
process.exit(failed ? 1 : 0);
