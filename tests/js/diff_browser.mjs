// The diff page, the page's tables and the label picker in Debian's
// chromium (playwright-core); run by tests/cli/viewer_diff.sh. Screenshots:
// $PROFKIT_BUILD/screenshots/diff-*.png.
import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync, mkdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const PROFKIT = process.env.PROFKIT;
const SRC = process.env.PROFKIT_SRC;
const SHOTS = join(process.env.PROFKIT_BUILD || join(SRC, "build"), "screenshots");
const { chromium } = await import(join(process.env.PROFKIT_TOOLS, "node_modules", "playwright-core", "index.mjs"));
mkdirSync(SHOTS, { recursive: true });
const TMP = mkdtempSync(join(tmpdir(), "profkit-diff-"));
let failed = 0;
function check(what, ok, detail) {
  console.log((ok ? "ok   " : "FAIL ") + what + (ok || detail === undefined ? "" : ": " + detail));
  if (!ok) failed++;
}
const pk = (args) => execFileSync(PROFKIT, args, { encoding: "utf8", maxBuffer: 1 << 28, stdio: ["ignore", "pipe", "pipe"] });

const browser = await chromium.launch({
  executablePath: "/usr/bin/chromium",
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync"],
});
async function open(file, { hash = "", width = 1300, height = 700 } = {}) {
  const ctx = await browser.newContext({ viewport: { width, height }, colorScheme: "light" });
  const page = await ctx.newPage();
  const url = "file://" + file, log = { errors: [], requests: [] };
  page.on("console", (m) => { if (m.type() === "error" || m.type() === "warning") log.errors.push(m.type() + ": " + m.text()); });
  page.on("pageerror", (e) => log.errors.push("pageerror: " + e.message));
  page.on("request", (r) => { if (r.url().split("#")[0] !== url) log.requests.push(r.url()); });
  await page.goto(url + (hash ? "#" + hash : ""));
  await page.waitForFunction(() => window.profkitTimings && window.profkitTimings.interactive > 0, null, { timeout: 20000 });
  return { ctx, page, log };
}
async function close(o, what) {
  check(what + ": no console or page error", o.log.errors.length === 0, o.log.errors.slice(0, 3).join(" | "));
  check(what + ": no request leaves the page", o.log.requests.length === 0, o.log.requests.slice(0, 3).join(" "));
  await o.ctx.close();
}
const shot = (o, name) => o.page.screenshot({ path: join(SHOTS, "diff-" + name + ".png"), fullPage: true });
const nextFrame = (o) => o.page.evaluate(() => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0))));
async function view(o, v) { await o.page.click(`#pk-views [data-view="${v}"], button[data-view="${v}"]`); await nextFrame(o); }

// ---- 1. The diff page: what went away is drawn at its BASE size -----------
// BASE spends 70% in is_prime, which NEW no longer has; NEW has sieve, new.
const base = join(TMP, "base.folded"), neu = join(TMP, "new.folded");
writeFileSync(base, "main;is_prime 70\nmain;work;sum 30\n");
writeFileSync(neu, "main;work;sum 35\nmain;sieve 5\n");
const dpage = join(TMP, "diff.html");
pk(["flame", "-q", "--diff", base, neu, "-o", dpage]);
{
  const o = await open(dpage);
  const got = await o.page.evaluate(() => {
    const app = window.profkit.app, PK = window.profkit, tree = app.flame.model.tree;
    const n = PK.findPath(app.p, tree, ["main", "is_prime"]), b = app.flame.boxOf(n), root = app.flame.boxOf(0);
    return { drawn: !!b, w: b ? b.w : 0, rootW: root ? root.w : 0, base: tree.baseTotal(app.v())[n], now: tree.total(app.v())[n],
             legend: document.querySelector("#pk-legend") ? document.querySelector("#pk-legend").innerText : "" };
  });
  check("diff: is_prime (BASE only) is drawn", got.drawn, JSON.stringify(got));
  check("diff: is_prime keeps its BASE value 70 (NEW 0)", got.base === 70 && got.now === 0, JSON.stringify(got));
  // sized by the larger side: main's width is max(70,0)+max(30,35)+max(0,5) = 110
  check("diff: is_prime is 70/110 of the width", Math.abs(got.w / got.rootW - 70 / 110) < 0.01, JSON.stringify(got));
  check("diff: a legend names slower, faster, new and removed", /slower/.test(got.legend) && /faster/.test(got.legend) && /new/.test(got.legend) && /removed/.test(got.legend), got.legend);
  await shot(o, "flame");
  // the hatched frame: pixels in is_prime's box are of two colours (stripes)
  const px = await o.page.evaluate(() => {
    const app = window.profkit.app, PK = window.profkit, tree = app.flame.model.tree;
    const b = app.flame.boxOf(PK.findPath(app.p, tree, ["main", "is_prime"]));
    const cv = app.flame.canvas, d = window.devicePixelRatio || 1, ctx = cv.getContext("2d");
    const img = ctx.getImageData(Math.round((b.x + b.w - 40) * d), Math.round((b.y + 2) * d), Math.round(30 * d), Math.round(12 * d)).data;
    const seen = new Set();
    for (let i = 0; i < img.length; i += 4) seen.add(img[i] + "," + img[i + 1] + "," + img[i + 2]);
    return seen.size;
  });
  check("diff: the removed frame is hatched (several colours in its box)", px >= 3, px);
  // Base alone and NEW alone: sized by that side
  await o.page.selectOption("#pk-diff", "base");
  await nextFrame(o);
  const bw = await o.page.evaluate(() => window.profkitState.total);
  check("diff: BASE alone totals 100", bw === 100, bw);
  await shot(o, "base");
  await o.page.selectOption("#pk-diff", "new");
  await nextFrame(o);
  const nw = await o.page.evaluate(() => {
    const app = window.profkit.app, PK = window.profkit, tree = app.flame.model.tree;
    return { total: window.profkitState.total, prime: !!app.flame.boxOf(PK.findPath(app.p, tree, ["main", "is_prime"])) };
  });
  check("diff: NEW alone totals 40, without is_prime", nw.total === 40 && !nw.prime, JSON.stringify(nw));
  await o.page.selectOption("#pk-diff", "diff");
  await nextFrame(o);

  // The top table's columns against `profkit diff --json`
  const cli = JSON.parse(pk(["diff", "--json", "-n", "0", base, neu]));
  await view(o, "top");
  const rows = await o.page.evaluate(() => window.profkit.app.topTable.rowsAll.map((r) => ({
    name: window.profkit.app.p.funcLabel(r.func), base: r.baseTotal, new: r.total, change: r.change, self_change: r.selfChange })));
  const byName = new Map(rows.map((r) => [r.name, r]));
  let same = rows.length === cli.rows.length;
  for (const c of cli.rows) {
    const r = byName.get(c.name);
    if (!r || r.base !== c.base_cum || r.new !== c.new_cum || r.change !== c.cum_change || r.self_change !== c.flat_change) { same = false; console.log("  differs:", c, r); }
  }
  check("diff top: base, new, change per function equal profkit diff --json", same, JSON.stringify(rows));
  check("diff top: sorted by the size of the change (is_prime first)", rows[0] && rows[0].name === "is_prime", rows.map((r) => r.name).join(","));
  const head = await o.page.$$eval("#pk-top thead th", (t) => t.map((x) => x.textContent));
  check("diff top: columns Base, New, Change, Change %", ["Base", "New", "Change", "Change %"].every((h) => head.some((x) => x.startsWith(h))), head.join("|"));
  const cells = await o.page.$$eval("#pk-top tbody tr[data-func]", (t) => t.map((x) => x.innerText.replace(/\s+/g, " ")));
  check("diff top: is_prime's row shows 70, 0, -70, -70%", cells.some((c) => /^70 0 -70 -70(\.0)?% -70 is_prime/.test(c)), cells.join(" / "));
  await shot(o, "top");
  // sorting by a header click: Change toggles its direction
  await o.page.click("#pk-top thead th[data-sort=change]");
  await nextFrame(o);
  const first = await o.page.$eval("#pk-top tbody tr[data-func] td.name", (t) => t.textContent);
  check("diff top: Change sorted the other way puts the smallest change first", !/is_prime/.test(first), first);

  await view(o, "tree");
  const thead = await o.page.$$eval("#pk-tree thead th", (t) => t.map((x) => x.textContent));
  check("diff tree: columns Base, New, Change", ["Base", "New", "Change"].every((h) => thead.some((x) => x.startsWith(h))), thead.join("|"));
  const trows = await o.page.$$eval("#pk-tree tbody tr[data-node]", (t) => t.map((x) => x.innerText.replace(/\s+/g, " ").trim()));
  check("diff tree: is_prime's row with its BASE value", trows.some((c) => /is_prime 70 0 -70/.test(c)), trows.join(" / "));
  await shot(o, "tree");
  await close(o, "diff page");
}

await browser.close();
rmSync(TMP, { recursive: true, force: true });
if (failed) { console.log(failed + " check(s) failed"); process.exit(1); }
console.log("all diff page checks passed");
