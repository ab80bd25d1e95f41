// What the browser tests in tests/js share: the environment they run in
// (set by their tests/cli/viewer_*.sh), playwright-core's chromium on
// Debian's browser, a page opened and closed with the checks every page
// ends with, a scratch directory, profkit's output, and the
// check/count/report of their results.
//
// Environment: PROFKIT (the binary), PROFKIT_SRC (the source tree),
// PROFKIT_BUILD (screenshots go to its screenshots/, else the source
// tree's build/screenshots/), PROFKIT_TOOLS (build/tools, for
// playwright-core), PROFKIT_CHROMIUM (the browser; /usr/bin/chromium).
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";

export const PROFKIT = process.env.PROFKIT;
export const SRC = process.env.PROFKIT_SRC;
export const CHROMIUM = process.env.PROFKIT_CHROMIUM || "/usr/bin/chromium";
// where screenshots go (made on first use by shotsDir)
export const SHOTS = process.env.PROFKIT_BUILD || SRC ? join(process.env.PROFKIT_BUILD || join(SRC, "build"), "screenshots") : null;
export function shotsDir(dir = SHOTS) {
  mkdirSync(dir, { recursive: true });
  return dir;
}
export const { chromium } = await import(join(process.env.PROFKIT_TOOLS, "node_modules", "playwright-core", "index.mjs"));

// the flags every headless run of the viewer's tests passes
export const BROWSER_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                             "--disable-background-networking", "--disable-component-update", "--disable-sync"];
export const launch = (args = BROWSER_ARGS) => chromium.launch({ executablePath: CHROMIUM, args });

// A page of profkit's in a new context of `browser` (a context per page):
// file://FILE#HASH in a viewport of width x height, colour scheme
// `scheme`; noIdle sets window.profkitNoIdle (the page's idle preparation
// off) and init(page) runs before the page loads (init scripts of a test's
// own). Waited on until interactive (window.profkitTimings.interactive,
// at most `timeout` ms; else "never interactive" and the start of the
// app's text go in the log). log.errors: console errors and warnings and
// page errors; log.requests: every request that leaves the page.
// Returns {ctx, page, log, errors (log.errors), url}.
export async function openPage(browser, file, { hash = "", width = 1400, height = 900, scheme = "light", noIdle = false,
                                                timeout = 20000, init } = {}) {
  const ctx = await browser.newContext({ viewport: { width, height }, colorScheme: scheme });
  const page = await ctx.newPage();
  if (noIdle) await page.addInitScript(() => { window.profkitNoIdle = true; });
  if (init) await init(page);
  const url = "file://" + file, log = { errors: [], requests: [] };
  page.on("console", (m) => { if (m.type() === "error" || m.type() === "warning") log.errors.push(m.type() + ": " + m.text()); });
  page.on("pageerror", (e) => log.errors.push("pageerror: " + e.message));
  page.on("request", (r) => { if (r.url().split("#")[0] !== url) log.requests.push(r.url()); });
  await page.goto(url + (hash ? "#" + hash : ""));
  try {
    await page.waitForFunction(() => window.profkitTimings && window.profkitTimings.interactive > 0, null, { timeout });
  } catch (e) {
    log.errors.push("never interactive: " + (await page.textContent("#app").catch(() => "")).slice(0, 200));
  }
  return { ctx, page, log, errors: log.errors, url };
}
// How a page of openPage ends: the checks "WHAT: no console or page
// error" and (unless requests is false) "WHAT: no request leaves the
// page" (through `check`: a script's own, else this file's), then its
// context closed.
export async function closePage(o, what, { requests = true, check: ck = check } = {}) {
  ck(what + ": no console or page error", o.log.errors.length === 0, o.log.errors.slice(0, 3).join(" | "));
  if (requests) ck(what + ": no request leaves the page", o.log.requests.length === 0, o.log.requests.slice(0, 3).join(" "));
  await o.ctx.close();
}

// A drag with the mouse from x0 to x1 (page pixels) at height y, in
// steps as a hand moves, then a moment for the page to answer.
export async function drag(o, x0, x1, y) {
  await o.page.mouse.move(x0, y);
  await o.page.mouse.down();
  await o.page.mouse.move((x0 + x1) / 2, y, { steps: 3 });
  await o.page.mouse.move(x1, y, { steps: 3 });
  await o.page.mouse.up();
  await o.page.waitForTimeout(50);
}

// a new scratch directory profkit-NAME-XXXXXX under the system's
export const scratch = (name) => mkdtempSync(join(tmpdir(), "profkit-" + name + "-"));

// profkit ARGS... : its stdout (throws on a non-zero exit)
export const pk = (args) => execFileSync(PROFKIT, args, { encoding: "utf8", maxBuffer: 1 << 28, stdio: ["ignore", "pipe", "pipe"] });
export const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

// checks: counts.passed / counts.failed; a failure prints "FAIL: what:
// detail" with the detail cut to `limit` characters
export const counts = { passed: 0, failed: 0, limit: 600 };
export function check(what, ok, detail) {
  if (ok) counts.passed++;
  else {
    counts.failed++;
    console.log("FAIL: " + what + (detail !== undefined ? ": " + String(detail).slice(0, counts.limit) : ""));
  }
}
// prints "LABEL checks: N passed, N failed[ EXTRA]" and exits 1 on a failure
export function report(label, extra = "") {
  console.log(`${label} checks: ${counts.passed} passed, ${counts.failed} failed${extra}`);
  process.exit(counts.failed ? 1 : 0);
}
