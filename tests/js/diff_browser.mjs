// The diff page, the page's tables and the label picker in Debian's
// chromium (playwright-core); run by tests/cli/viewer_diff.sh. Screenshots:
// $PROFKIT_BUILD/screenshots/diff-*.png.
import { writeFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { SRC, shotsDir, launch, closePage, openPage, scratch, pk } from "./lib.mjs";

const SHOTS = shotsDir();
const TMP = scratch("diff");
let failed = 0;
function check(what, ok, detail) {
  console.log((ok ? "ok   " : "FAIL ") + what + (ok || detail === undefined ? "" : ": " + detail));
  if (!ok) failed++;
}

const browser = await launch();
const open = (file, { hash = "", width = 1300, height = 700 } = {}) => openPage(browser, file, { hash, width, height });
const close = (o, what) => closePage(o, what, { check });
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

  // NEW alone after a sort by change: the plain columns, sorted by self
  await o.page.selectOption("#pk-diff", "new");
  await nextFrame(o);
  const plainHead = await o.page.$$eval("#pk-top thead th", (t) => t.map((x) => x.textContent));
  const plainRows = await o.page.$$eval("#pk-top tbody tr[data-func] td.name", (t) => t.map((x) => x.textContent));
  check("NEW alone: Self/Total columns, sum first (NEW's biggest self)", plainHead[0].startsWith("Self") && /^sum/.test(plainRows[0] || ""), plainHead.join("|") + " " + plainRows.join(","));
  await o.page.selectOption("#pk-diff", "diff");
  await nextFrame(o);
  await view(o, "tree");
  const thead = await o.page.$$eval("#pk-tree thead th", (t) => t.map((x) => x.textContent));
  check("diff tree: columns Base, New, Change", ["Base", "New", "Change"].every((h) => thead.some((x) => x.startsWith(h))), thead.join("|"));
  const trows = await o.page.$$eval("#pk-tree tbody tr[data-node]", (t) => t.map((x) => x.innerText.replace(/\s+/g, " ").trim()));
  check("diff tree: is_prime's row with its BASE value", trows.some((c) => /is_prime 70 0 -70/.test(c)), trows.join(" / "));
  await shot(o, "tree");
  await close(o, "diff page");
}

// ---- 2. One row per function; labels -------------------------------------
// A pprof profile with two function entries of one name and file (work,
// w.c:10; as a store selection gives them) and a string label `kind`.
function pprof({ functions, locations, samples, type = ["cpu", "nanoseconds"] }) {
  const S = [""], sid = (s) => { let i = S.indexOf(s); if (i < 0) { S.push(s); i = S.length - 1; } return i; };
  const out = [];
  const varint = (a, v) => { v = BigInt(v); while (v >= 0x80n) { a.push(Number(v & 0x7fn) | 0x80); v >>= 7n; } a.push(Number(v)); };
  const vf = (a, n, v) => { varint(a, (n << 3) | 0); varint(a, v); };
  const lf = (a, n, b) => { varint(a, (n << 3) | 2); varint(a, b.length); for (const x of b) a.push(x); };
  const msg = (fill) => { const a = []; fill(a); return a; };
  lf(out, 1, msg((a) => { vf(a, 1, sid(type[0])); vf(a, 2, sid(type[1])); }));
  for (const s of samples) lf(out, 2, msg((a) => {
    for (const l of s.locs) vf(a, 1, l);
    vf(a, 2, s.value);
    for (const [k, v] of Object.entries(s.labels || {})) lf(a, 3, msg((b) => { vf(b, 1, sid(k)); vf(b, 2, sid(v)); }));
  }));
  for (const l of locations) lf(out, 4, msg((a) => { vf(a, 1, l.id); vf(a, 3, l.address); lf(a, 4, msg((b) => { vf(b, 1, l.func); vf(b, 2, l.line); })); }));
  for (const f of functions) lf(out, 5, msg((a) => { vf(a, 1, f.id); vf(a, 2, sid(f.name)); vf(a, 3, sid(f.system || f.name)); vf(a, 4, sid(f.file)); vf(a, 5, f.line); }));
  for (const s of S) lf(out, 6, [...Buffer.from(s)]);
  return Buffer.from(out);
}
const dup = join(TMP, "dup.pb");
writeFileSync(dup, pprof({
  functions: [{ id: 1, name: "main", file: "m.c", line: 1 }, { id: 2, name: "work", file: "w.c", line: 10 },
              { id: 3, name: "work", system: "work.cold", file: "w.c", line: 10 }, { id: 4, name: "helper", file: "h.c", line: 5 }],
  locations: [{ id: 1, func: 1, line: 2, address: 0x100 }, { id: 2, func: 2, line: 11, address: 0x200 },
              { id: 3, func: 3, line: 12, address: 0x300 }, { id: 4, func: 4, line: 6, address: 0x400 }],
  samples: [{ locs: [2, 1], value: 260, labels: { kind: "slow" } }, { locs: [4, 3, 1], value: 130, labels: { kind: "fast" } },
            { locs: [3, 1], value: 40, labels: { kind: "slow" } }, { locs: [4, 1], value: 7 }],
}));
const dpage2 = join(TMP, "dup.html");
pk(["flame", "-q", "--min-percent", "0", dup, "-o", dpage2]);
const plain = join(TMP, "plain.html");
pk(["flame", "-q", "--min-percent", "0", neu, "-o", plain]);
const query = (o) => o.page.evaluate(() => window.profkit.query("top", { limit: 0 }));
const sameJSON = (a, b) => JSON.stringify(sortKeys(a)) === JSON.stringify(sortKeys(b));
function sortKeys(x) { if (Array.isArray(x)) return x.map(sortKeys); if (x && typeof x === "object") return Object.fromEntries(Object.keys(x).sort().map((k) => [k, sortKeys(x[k])])); return x; }
{
  const o = await open(dpage2);
  await view(o, "top");
  const rows = await o.page.evaluate(() => { const p = window.profkit.app.p; return window.profkit.app.topTable.rowsAll.map((r) => { const i = p.funcInfo(r.func); return [i.name, i.file, i.line, r.self, r.total]; }); });
  const keys = rows.map((r) => r.slice(0, 3).join(":"));
  check("one row per function: no (name, file, line) twice in Top functions", new Set(keys).size === keys.length, keys.join(" "));
  check("Top functions has no (other) row", !rows.some((r) => r[0] === "(other)"), keys.join(" "));
  const work = rows.find((r) => r[0] === "work");
  check("work is one row of 300 self, 430 total (as profkit top)", work && work[3] === 300 && work[4] === 430, JSON.stringify(work));
  const cli = JSON.parse(pk(["top", "--json", "-n", "0", dup]));
  const got = await query(o);
  check("query('top') equals profkit top --json -n 0", sameJSON(got, cli), JSON.stringify(got) + " vs " + JSON.stringify(cli));
  const cliTree = JSON.parse(pk(["tree", "--json", dup]));
  const gotTree = await o.page.evaluate(() => window.profkit.query("tree"));
  check("query('tree') equals profkit tree --json", sameJSON(gotTree, cliTree), JSON.stringify(gotTree).slice(0, 400) + " vs " + JSON.stringify(cliTree).slice(0, 400));
  await shot(o, "top-one-row");

  // the label picker
  const opts = await o.page.$$eval("#pk-label option", (os) => os.map((x) => x.textContent));
  check("label picker lists kind's values and groupings", ["kind = slow", "kind = fast", "kind = (none)", "group by kind at the root", "group by kind at the leaf"].every((x) => opts.includes(x)), opts.join(" | "));
  for (const [pick, args, name] of [[{ mode: "focus", key: "kind", value: "slow" }, ["--tagfocus", "kind=slow"], "focus-slow"],
                                    [{ mode: "focus", key: "kind", value: "fast" }, ["--tagfocus", "kind=fast"], "focus-fast"],
                                    [{ mode: "root", key: "kind" }, ["--tagroot", "kind"], "tagroot"],
                                    [{ mode: "leaf", key: "kind" }, ["--tagleaf", "kind"], "tagleaf"]]) {
    await o.page.selectOption("#pk-label", JSON.stringify(pick));
    await nextFrame(o);
    const c = JSON.parse(pk(["top", "--json", "-n", "0", ...args, dup]));
    const g = await query(o);
    check("label " + args.join(" ") + ": query('top') equals profkit top --json " + args.join(" "), sameJSON(g, c), JSON.stringify(g) + " vs " + JSON.stringify(c));
    await view(o, "flame");
    await shot(o, "label-" + name);
    await view(o, "top");
  }
  await o.page.selectOption("#pk-label", "");
  await nextFrame(o);
  check("label picker: all samples again", sameJSON(await query(o), cli));
  await close(o, "labels page");

  // a page of a profile without labels has no picker, and its data no label scope
  const o2 = await open(plain);
  check("no labels: no picker", !(await o2.page.$("#pk-label")));
  await close(o2, "plain page");
}
// A Go CPU profile recorded with pprof.Do labels (function=slow|fast)
{
  const go = join(SRC, "tests", "data", "pprof", "labels", "cpu.pb.gz"), page = join(TMP, "go.html");
  pk(["flame", "-q", "--min-percent", "0", go, "-o", page]);
  const o = await open(page);
  for (const [pick, args, name] of [[{ mode: "focus", key: "function", value: "slow" }, ["--tagfocus", "function=slow"], "go-slow"],
                                    [{ mode: "root", key: "function" }, ["--tagroot", "function"], "go-tagroot"],
                                    [{ mode: "leaf", key: "function" }, ["--tagleaf", "function"], "go-tagleaf"]]) {
    await o.page.selectOption("#pk-label", JSON.stringify(pick));
    await nextFrame(o);
    const c = JSON.parse(pk(["top", "--json", "-n", "0", ...args, go]));
    const g = await query(o);
    check("Go labels " + args.join(" ") + ": query('top') equals profkit top --json", sameJSON(g, c), JSON.stringify(g).slice(0, 300) + " vs " + JSON.stringify(c).slice(0, 300));
    await shot(o, "label-" + name);
  }
  await close(o, "Go labels page");
}
const withLabels = pk(["flame", "-q", "--min-percent", "0", dup]).length, withoutLabels = (() => {
  const nl = join(TMP, "nolabels.pb");
  writeFileSync(nl, pprof({ functions: [{ id: 1, name: "main", file: "m.c", line: 1 }], locations: [{ id: 1, func: 1, line: 2, address: 0x100 }], samples: [{ locs: [1], value: 1 }] }));
  return pk(["flame", "-q", nl]).length;
})();
console.log("page bytes: labelled " + withLabels + ", a one-function page " + withoutLabels);

await browser.close();
rmSync(TMP, { recursive: true, force: true });
if (failed) { console.log(failed + " check(s) failed"); process.exit(1); }
console.log("all diff page checks passed");
