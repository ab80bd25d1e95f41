// The page's counter tracks in a real browser (Debian chromium through
// playwright-core): for tests/data/gecko/ok_counters.json (memory and
// power counters in two processes) the track canvas exists below the
// timeline, holds a track per counter, and each track's highest running
// sum (its data-max) equals `profkit counters --json`'s total.max, at the
// whole range and after a range in the URL (`--range`'s), where each track
// starts at the running sum carried in from before the range (data-start,
// --range's total.start); the hover names the counter and its bytes in use. Screenshots:
// $PROFKIT_BUILD/screenshots/counters-*.png.
//
// Environment: PROFKIT, PROFKIT_SRC, PROFKIT_BUILD, PROFKIT_TOOLS.
import { rmSync } from "node:fs";
import { join } from "node:path";
import { SRC, shotsDir, launch, closePage, openPage, scratch, pk, check, counts } from "./lib.mjs";

const SHOTS = shotsDir();
const TMP = scratch("counters");
const PROF = join(SRC, "tests", "data", "gecko", "ok_counters.json");

const browser = await launch();
const open = (file, hash) => openPage(browser, file, { hash, height: 700 });
const maxes = (o) => o.page.evaluate(() => {
  const c = document.getElementById("pk-counters-canvas");
  return c ? JSON.parse(c.getAttribute("data-max") || "null") : null;
});

try {
  const file = join(TMP, "counters.html");
  pk(["flame", "-q", PROF, "-o", file]);
  const report = (range) => JSON.parse(pk(["counters", "--json", "-q", ...(range ? ["--range", range] : []), PROF])).counters;
  const whole = report(null);
  const want = (range) => report(range).map((c, k) => (whole[k].samples ? c.total.max : null));
  const starts = (o) => o.page.evaluate(() => JSON.parse(document.getElementById("pk-counters-canvas").getAttribute("data-start") || "null"));

  // the whole range
  {
    const o = await open(file, "");
    const got = await maxes(o);
    check("the counter track canvas exists", got !== null);
    const w = want(null);
    check("a track per counter", got && got.length === w.length, JSON.stringify(got));
    check("each track's highest running sum is profkit counters' total.max", JSON.stringify(got) === JSON.stringify(w),
          JSON.stringify(got) + " vs " + JSON.stringify(w));
    const box = await o.page.evaluate(() => { const r = document.getElementById("pk-counters-canvas").getBoundingClientRect(); return [r.left, r.top, r.width, r.height]; });
    check("the tracks have height", box[3] >= 3 * 30, JSON.stringify(box));
    await o.page.mouse.move(box[0] + box[2] * 0.5, box[1] + 10);
    const hover = await o.page.evaluate(() => { const h = document.getElementById("pk-hover"); return h && !h.hidden ? h.textContent : ""; });
    check("the hover names the counter and its bytes in use", /malloc \(Memory\)/.test(hover) && /In use/.test(hover), hover);
    await o.page.screenshot({ path: join(SHOTS, "counters-whole.png") });
    await closePage(o, "whole range", { requests: false });
  }
  // a range in the URL: the tracks show its samples only, as --range
  {
    const o = await open(file, "range=4-15");
    const got = await maxes(o);
    const w = want("4ms,15ms");
    check("range 4-15 ms: each track's highest sum is profkit counters --range's",
          JSON.stringify(got) === JSON.stringify(w), JSON.stringify(got) + " vs " + JSON.stringify(w));
    // the parent's malloc carries 4096 bytes in from its sample at 1 ms
    const s = await starts(o), ws = report("4ms,15ms").map((c) => c.total.start);
    check("range 4-15 ms: each track starts at the sum carried in, profkit counters --range's total.start",
          JSON.stringify(s) === JSON.stringify(ws) && ws[0] === 4096, JSON.stringify(s) + " vs " + JSON.stringify(ws));
    await o.page.screenshot({ path: join(SHOTS, "counters-range.png") });
    await closePage(o, "range", { requests: false });
  }
} catch (e) {
  check("no exception", false, e && e.stack);
} finally {
  await browser.close();
  rmSync(TMP, { recursive: true, force: true });
}
console.log("counters browser: " + counts.passed + " passed, " + counts.failed + " failed");
process.exit(counts.failed ? 1 : 0);
