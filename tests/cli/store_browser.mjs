// The store browser (`profkit view --db DB`) in Debian's chromium through
// playwright-core, used as a person uses it, each answer checked against
// the command line's: the table against `store ls --json` (all, a label
// picked, a time range), one profile and a merged selection opened in the
// viewer (window.profkit.query("top") against `top --db --where --json -n
// 0`), the diff page of two selections against the page `flame --db
// --base-where --new-where` writes, and the trend chart against `trend
// --json` (and of one thread, its picker against `info --db --json`'s
// threads, the chart against `trend --thread --json`; of checked rows,
// `trend --ids`). The pickers: several values of a key (any of them), !=, a
// regex, more terms typed, a value type and a thread for what is opened;
// every page opened has a command line box whose command (run here) gives
// the same data: its top, and the page flame writes. Screenshots:
// $PROFKIT_BUILD/screenshots/store_ENGINE_*.png.
//
// ClickHouse (STORE_COMPARE=summary): two loads of one selection may number
// functions and nodes in another order, so pages are compared by their
// names and sums there, not byte for byte.
//
// The server is started here (on 127.0.0.1, port 0) and stopped with
// SIGTERM; it must exit 0 with nothing on standard error but its "stopped".
//
// Environment: PROFKIT, PROFKIT_BUILD, PROFKIT_TOOLS, STORE_DB (made by
// store_browser.sh), STORE_ENGINE (a name for the screenshots),
// STORE_COMPARE (exact or summary).
import { execFileSync, spawn } from "node:child_process";
import { mkdirSync, readFileSync, mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";

const PROFKIT = process.env.PROFKIT;
const DB = process.env.STORE_DB;
const SHOTS = join(process.env.PROFKIT_BUILD, "screenshots");
const ENGINE = process.env.STORE_ENGINE || "sqlite";
const SUMMARY = process.env.STORE_COMPARE === "summary";
mkdirSync(SHOTS, { recursive: true });
const TMP = mkdtempSync(join(tmpdir(), "profkit-store-browser-"));
const { chromium } = await import(join(process.env.PROFKIT_TOOLS, "node_modules", "playwright-core", "index.mjs"));

let passed = 0, failed = 0;
function check(what, ok, detail) {
  if (ok) passed++;
  else { failed++; console.log("FAIL [" + ENGINE + "]: " + what + (detail !== undefined ? ": " + detail : "")); }
}
const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
const pk = (args) => execFileSync(PROFKIT, args, { encoding: "utf8", maxBuffer: 1 << 28, stdio: ["ignore", "pipe", "pipe"] });
const ls = (...sel) => JSON.parse(pk(["store", "ls", DB, "--json", ...sel])).profiles.map((p) => p.id);
const cliTop = (...sel) => JSON.parse(pk(["top", "--db", DB, ...sel, "--json", "-n", "0"]));

// ---- the server ----
// --min-percent 0: the viewer pages keep every node (no "(other)"), so that
// their top is the command line's to the unit
const server = spawn(PROFKIT, ["view", "--db", DB, "--no-open", "--min-percent", "0"], { stdio: ["ignore", "pipe", "pipe"] });
let out = "", err = "";
server.stdout.on("data", (d) => { out += d; });
server.stderr.on("data", (d) => { err += d; });
const exited = new Promise((res) => server.on("exit", (code, sig) => res({ code, sig })));
// a check that throws (a timeout) must not leave the server running
process.on("exit", () => { if (server.exitCode === null && server.signalCode === null) server.kill("SIGTERM"); });
for (let i = 0; i < 300 && !/Serving until/.test(out); i++) await new Promise((r) => setTimeout(r, 100));
const m = /^store: (http:\/\/127\.0\.0\.1:\d+\/[0-9a-f]{32}\/)$/m.exec(out);
check("view --db prints the store browser's address", !!m, out + err);
if (!m) { server.kill("SIGTERM"); process.exit(1); }
const URL0 = m[1];

const browser = await chromium.launch({
  executablePath: "/usr/bin/chromium",
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync"],
});
const ctx = await browser.newContext({ viewport: { width: 1400, height: 900 } });
const errors = [], foreign = [];
ctx.on("page", (pg) => {
  // (the one 400 the bad regex below asks for is logged by chromium itself)
  pg.on("console", (msg) => {
    if ((msg.type() === "error" || msg.type() === "warning") && !/status of 400/.test(msg.text())) errors.push(msg.text());
  });
  pg.on("pageerror", (e) => errors.push("pageerror: " + e.message));
  pg.on("request", (r) => { if (!r.url().startsWith(URL0)) foreign.push(r.url()); });
});
const page = await ctx.newPage();
await page.goto(URL0);
await page.waitForFunction(() => window.profkitStore && window.profkitStore.ready, null, { timeout: 20000 });
const shot = (pg, name) => pg.screenshot({ path: join(SHOTS, "store_" + ENGINE + "_" + name + ".png"), fullPage: true });
const rowIds = () => page.$$eval("#pk-rows tr", (rs) => rs.map((r) => r.dataset.id));
const status = () => page.textContent("#pk-status");

// A page's data (its title aside), or with SUMMARY its names and sums.
function data(html) {
  const d = JSON.parse(/<script type="application\/json" id="profkit-data">([\s\S]*?)<\/script>/.exec(html)[1]);
  delete d.title;
  if (!SUMMARY) return d;
  const sum = (rows) => (rows || []).map((r) => r.reduce((a, b) => a + b, 0));
  return { strings: [...d.strings].sort(), values: d.values, diff: d.diff, inputs: d.inputs,
           sums: d.threads.map((t) => [sum(t.tree.self), sum(t.tree.base_self)]) };
}
// The words of a command line the page quotes for a shell ('...', '\'').
function words(line) {
  const out = [];
  const re = /'((?:[^']|'\\'')*)'|(\S+)/g;
  let m;
  while ((m = re.exec(line))) out.push(m[1] !== undefined ? m[1].replace(/'\\''/g, "'") : m[2]);
  return out;
}
// The command line box of an opened page v: run as it says (flame, its -o
// here, every node kept), it writes the page's data; as top, v's top.
async function commandGives(v, what, want) {
  const line = await v.evaluate(() => window.profkitState && window.profkitState.command);
  const w = words(line || "");
  check(what + ": the command line box names a flame command", w[0] === "profkit" && w[1] === "flame" && w.at(-2) === "-o", line);
  if (want) for (const x of want) check(what + ": the command line says " + x, w.includes(x), line);
  const args = w.slice(2, -2), out = join(TMP, "cmd.html");
  let html;
  try { pk(["flame", "-q", ...args, "--min-percent", "0", "-o", out]); html = readFileSync(out, "utf8"); } catch (e) { check(what + ": " + line + " runs", false, String(e.stderr || e)); return; }
  check(what + ": " + line + " writes the page's data", same(data(html), data(await v.content())), line);
  if (!args.includes("--base-where") && !args.includes("--base-ids")) {
    const top = JSON.parse(pk(["top", ...args, "--json", "-n", "0"]));
    check(what + ": top of the command's selection = the page's top", same(await v.evaluate(() => window.profkit.query("top", { limit: 0 })), top), line);
  }
  return args;
}

// ---- the table ----
check("the table lists every profile (store ls --json)", same(await rowIds(), ls()), (await rowIds()).length);
check("the status counts them", (await status()) === ls().length + " profiles", await status());
const keys = await page.$$eval("select.pk-label", (s) => s.map((x) => x.dataset.key));
check("a picker per label key", ["host", "set", "version"].every((k) => keys.includes(k)), keys.join(","));
await shot(page, "list");

// a label picked
await page.selectOption('select.pk-label[data-key="version"]', "1.3");
await page.click("#pk-apply");
await page.waitForFunction(() => document.getElementById("pk-status").textContent.endsWith("profiles"));
check("version=1.3 picked: the rows of store ls --where version=1.3", same(await rowIds(), ls("--where", "version=1.3")),
      (await rowIds()).join(" "));
await shot(page, "picked");

// the merged selection (no row checked: the pickers' selection) in the viewer
async function opened(click) {
  const [pg] = await Promise.all([ctx.waitForEvent("page"), page.click(click)]);
  await pg.waitForFunction(() => window.profkitTimings && window.profkitTimings.interactive > 0, null, { timeout: 30000 });
  return pg;
}
let v = await opened("#pk-open");
check("merge: the viewer's top = top --db --where version=1.3", same(await v.evaluate(() => window.profkit.query("top", { limit: 0 })), cliTop("--where", "version=1.3")));
check("merge: the page's title names the selection", (await v.title()).includes("version=1.3"), await v.title());
await commandGives(v, "merge", ["version=1.3"]);
await shot(v, "merged");
await v.close();

// a time range
await page.selectOption('select.pk-label[data-key="version"]', []);
await page.fill("#pk-since", "2026-11-03");
await page.fill("#pk-until", "2026-11-05");
await page.click("#pk-apply");
await page.waitForFunction(() => document.getElementById("pk-status").textContent.endsWith("profiles"));
const ranged = ls("--since", "2026-11-03", "--until", "2026-11-05");
check("a time range: the rows of store ls --since --until", ranged.length > 0 && same(await rowIds(), ranged), (await rowIds()).join(" "));
v = await opened("#pk-open");
check("a time range merged: top = top --db --since --until", same(await v.evaluate(() => window.profkit.query("top", { limit: 0 })), cliTop("--since", "2026-11-03", "--until", "2026-11-05")));
await commandGives(v, "a time range", ["--since", "--until"]);
await v.close();
await shot(page, "range");

// rows checked by hand, merged
await page.fill("#pk-since", "");
await page.fill("#pk-until", "");
await page.click("#pk-apply");
await page.waitForFunction((n) => document.querySelectorAll("#pk-rows tr").length === n, ls().length);
const picked = ls("--where", "version~^1\\.[34]$");
for (const id of picked) await page.check(`#pk-rows tr[data-id="${id}"] input`);
check("the selection line counts the checked rows", (await page.textContent("#pk-sel-text")).includes(picked.length + " profiles"), await page.textContent("#pk-sel-text"));
await shot(page, "checked");
v = await opened("#pk-open");
check("checked rows merged: top = top --db --where version~^1\\.[34]$", same(await v.evaluate(() => window.profkit.query("top", { limit: 0 })), cliTop("--where", "version~^1\\.[34]$")));
await commandGives(v, "checked rows", ["--ids", picked.join(",")]);
await v.close();
// the same by a POST (the page posts a form when the address would be long)
await page.evaluate(() => { window.profkitStore.maxGet = 0; });
const posts = [];
ctx.on("request", (r) => { if (r.method() === "POST") posts.push(r.url()); });
v = await opened("#pk-open");
check("checked rows merged by a POST: top = top --db --where version~^1\\.[34]$", same(await v.evaluate(() => window.profkit.query("top", { limit: 0 })), cliTop("--where", "version~^1\\.[34]$")));
check("that page came from a POST", posts.length === 1 && posts[0] === URL0 + "api/view", posts.join(" "));
await v.close();
await page.evaluate(() => { window.profkitStore.maxGet = 4000; });
for (const id of picked) await page.uncheck(`#pk-rows tr[data-id="${id}"] input`);
// every row checked: the listed selection itself
await page.check("#pk-all");
check("all rows checked: the selection is the list's", (await page.textContent("#pk-sel-text")).startsWith("Selection: all profiles"),
      await page.textContent("#pk-sel-text"));
await page.uncheck("#pk-all");
check("none checked again", (await page.$$eval("#pk-rows input:checked", (x) => x.length)) === 0);

// one profile: its id's link
const one = ls("--where", "host=h05")[0];
v = await opened(`#pk-rows tr[data-id="${one}"] a`);
check("one profile: top = top --db --where host=h05", same(await v.evaluate(() => window.profkit.query("top", { limit: 0 })), cliTop("--where", "host=h05")));
await commandGives(v, "one profile", ["--ids", one]);
await v.close();

// ---- the pickers: several values, !=, a regex, terms typed ----
async function apply() {
  await page.click("#pk-apply");
  await page.waitForFunction(() => !document.getElementById("pk-status").textContent.startsWith("Loading"));
}
async function resetPickers() {
  for (const k of keys) {
    await page.selectOption(`.pk-pick[data-key="${k}"] select.pk-op`, "=");
    await page.selectOption(`select.pk-label[data-key="${k}"]`, []);
  }
  await page.fill("#pk-terms", "");
}
// picks: [key, op, values or regex]; terms: typed; want: the --where terms
async function pickCase(what, picks, terms, want) {
  await resetPickers();
  for (const [k, op, vals] of picks) {
    await page.selectOption(`.pk-pick[data-key="${k}"] select.pk-op`, op);
    if (op === "~") await page.fill(`.pk-pick[data-key="${k}"] input.pk-re`, vals);
    else await page.selectOption(`select.pk-label[data-key="${k}"]`, vals);
  }
  await page.fill("#pk-terms", terms.join("\n"));
  await apply();
  const got = await page.evaluate(() => window.profkitStore.pickerTerms());
  check(what + ": the --where terms", same(got, want), JSON.stringify(got));
  const sel = want.flatMap((t) => ["--where", t]);
  const rows = ls(...sel);
  check(what + ": the rows = store ls " + sel.join(" "), rows.length > 0 && same(await rowIds(), rows), (await rowIds()).join(" "));
  check(what + ": the page's command line names them", (await page.textContent("#pk-cmd")).includes(want.map((t) => /^[A-Za-z0-9_.,\/:=+%@-]+$/.test(t) ? t : "'" + t + "'").join(" --where ")),
        await page.textContent("#pk-cmd"));
  return sel;
}
let sel = await pickCase("two versions (any of them)", [["version", "=", ["1.3", "1.4"]]], [], ["version~^(1\\.3|1\\.4)$"]);
check("the picker says how many values are picked", (await page.textContent('.pk-pick[data-key="version"] .pk-npicked')) === "2 of 21",
      await page.textContent('.pk-pick[data-key="version"] .pk-npicked'));
await shot(page, "multi");
v = await opened("#pk-open");
check("two versions merged: top = top --where version~^(1\\.3|1\\.4)$", same(await v.evaluate(() => window.profkit.query("top", { limit: 0 })), cliTop(...sel)));
await commandGives(v, "two versions", ["version~^(1\\.3|1\\.4)$"]);
await v.close();
await pickCase("none of two versions", [["version", "!=", ["1.3", "1.4"]]], [], ["version!=1.3", "version!=1.4"]);
await pickCase("a host regex and a version", [["host", "~", "^h0[0-7]$"], ["version", "=", ["1.2", "1.5", "2.0"]]], [],
               ["host~^h0[0-7]$", "version~^(1\\.2|1\\.5|2\\.0)$"]);
sel = await pickCase("terms typed", [["set", "=", ["gen"]]], ["host!=h01", "version~^1\\.[0-3]$"], ["set=gen", "host!=h01", "version~^1\\.[0-3]$"]);
v = await opened("#pk-open");
await commandGives(v, "terms typed", ["host!=h01"]);
await v.close();
await shot(page, "terms");

// ---- a value type and a thread for what is opened ----
// (the store holds one profile of two threads, MainThread and Worker, and
// two value types, time and samples: store_browser.sh adds it)
await resetPickers();
await apply();
const values = await page.$$eval("#pk-value option", (o) => o.map((x) => x.value));
const threads = await page.$$eval("#pk-thread option", (o) => o.map((x) => x.value));
check("the value type picker lists the store's", ["", "samples", "time"].every((x) => values.includes(x)), values.join(","));
check("the thread picker lists the store's", ["", "main", "MainThread", "Worker"].every((x) => threads.includes(x)), threads.join(","));
await page.selectOption("#pk-value", "time");
await page.selectOption("#pk-thread", "Worker");
check("the command line has --value and --thread", /--value time --thread Worker/.test(await page.textContent("#pk-cmd")), await page.textContent("#pk-cmd"));
v = await opened("#pk-open");
check("value time, thread Worker: top = top --db --value time --thread Worker",
      same(await v.evaluate(() => window.profkit.query("top", { limit: 0 })), cliTop("--value", "time", "--thread", "Worker")));
await commandGives(v, "value time, thread Worker", ["--value", "time", "--thread"]);
check("the page's title names the thread", (await v.title()).includes("(thread Worker)"), await v.title());
await shot(v, "thread");
await v.close();
// the API's top takes them too
const apiTop = await page.evaluate(() => window.profkitStore.api("top", new URLSearchParams("value=time&thread=MainThread")));
check("api/top?value=time&thread=MainThread = top --value time --thread MainThread", same(apiTop, cliTop("--value", "time", "--thread", "MainThread")));
// an id's link opens that profile with the pickers' value type and thread
const ss = ls("--where", "format=speedscope")[0];
v = await opened(`#pk-rows tr[data-id="${ss}"] a`);
check("one profile's link, value time, thread Worker: top = top --ids ID --value time --thread Worker",
      same(await v.evaluate(() => window.profkit.query("top", { limit: 0 })), cliTop("--ids", ss, "--value", "time", "--thread", "Worker")));
await commandGives(v, "one profile, thread Worker", ["--ids", ss, "--value", "time"]);
await v.close();
await page.selectOption("#pk-value", "samples");
await page.selectOption("#pk-thread", "");

// ---- the diff of two selections ----
await page.selectOption('select.pk-label[data-key="version"]', "1.3");
await page.click("#pk-apply");
await page.waitForFunction(() => document.getElementById("pk-status").textContent.endsWith("profiles"));
await page.click("#pk-set-base");
check("the base is kept", (await page.textContent("#pk-base-text")) === "Base: version=1.3", await page.textContent("#pk-base-text"));
await page.selectOption('select.pk-label[data-key="version"]', "1.4");
await page.click("#pk-apply");
await page.waitForFunction(() => document.getElementById("pk-sel-text").textContent.includes("version=1.4"));
await shot(page, "base");
v = await opened("#pk-diff");
const cliDiff = join(TMP, "diff.html");
pk(["flame", "-q", "--min-percent", "0", "--db", DB, "--base-where", "version=1.3", "--new-where", "version=1.4", "-o", cliDiff]);
const pageData = data(await v.content());
check("diff: the page's data = flame --min-percent 0 --db --base-where version=1.3 --new-where version=1.4",
      same(pageData, data(readFileSync(cliDiff, "utf8"))), JSON.stringify(pageData).slice(0, 200));
check("diff: it is a diff page", JSON.stringify(pageData).includes("base"), Object.keys(pageData).join(","));
await commandGives(v, "diff", ["--base-where", "--new-where"]);
check("diff: the title names both", (await v.title()).includes("version=1.3 vs version=1.4"), await v.title());
await shot(v, "diff");
await v.close();

// a diff whose sides have time bounds of their own: the command line
// names the bounded side by its profiles' ids; and several values a side
await resetPickers();
await page.fill("#pk-since", "2026-11-02");
await page.fill("#pk-until", "2026-11-04");
await apply();
await page.click("#pk-set-base");
await page.fill("#pk-since", "");
await page.fill("#pk-until", "");
await page.selectOption('select.pk-label[data-key="version"]', ["1.4", "1.5", "1.6"]);
await apply();
await page.selectOption("#pk-value", "samples");
v = await opened("#pk-diff");
const baseIds = ls("--since", "2026-11-02", "--until", "2026-11-04").join(",");
const args = await commandGives(v, "a diff with a bounded base", ["--base-ids", baseIds, "--new-where", "version~^(1\\.4|1\\.5|1\\.6)$"]);
check("that diff's command has no --since (the new side has none)", args && !args.includes("--since"), args && args.join(" "));
const cliDiff2 = join(TMP, "diff2.html");
pk(["flame", "-q", "--min-percent", "0", "--db", DB, "--base-ids", baseIds, "--new-where", "version~^(1\\.4|1\\.5|1\\.6)$", "-o", cliDiff2]);
check("that diff = flame --base-ids (the range's profiles) --new-where version~^(1\\.4|1\\.5|1\\.6)$",
      same(data(await v.content()), data(readFileSync(cliDiff2, "utf8"))));
await shot(v, "diff_bounded");
await v.close();
// both sides in one range: --since and --until, once
await page.fill("#pk-since", "2026-11-02");
await page.fill("#pk-until", "2026-11-06");
await page.selectOption('select.pk-label[data-key="version"]', ["1.1"]);
await apply();
await page.click("#pk-set-base");
await page.selectOption('select.pk-label[data-key="version"]', ["1.2", "1.3"]);
await apply();
v = await opened("#pk-diff");
await commandGives(v, "a diff in one range", ["--since", "--until", "--base-where", "version=1.1", "--new-where"]);
await v.close();
await page.fill("#pk-since", "");
await page.fill("#pk-until", "");

// ---- the trend ----
await page.selectOption('select.pk-label[data-key="version"]', []);
await page.click("#pk-apply");
await page.waitForFunction((n) => document.querySelectorAll("#pk-rows tr").length === n, ls().length);
async function trend(by, fn, value, thread) {
  await page.selectOption("#pk-value", value || "");
  await page.selectOption("#pk-trend-thread", thread || "");
  await page.selectOption("#pk-trend-by", by);
  await page.fill("#pk-trend-fn", fn);
  await page.click("#pk-trend-draw");
  await page.waitForFunction(() => /^Trend of|^[^C]/.test(document.getElementById("pk-status").textContent) &&
                                   !document.getElementById("pk-status").textContent.startsWith("Computing"));
  const bars = await page.$$eval("#pk-chart rect.pk-bar", (rs) => rs.map((r) => [r.dataset.group, Number(r.dataset.value)]));
  const rows = await page.$$eval("#pk-trend-table tbody tr", (rs) => rs.map((r) => [r.dataset.group, Number(r.children[1].textContent)]));
  const cli = JSON.parse(pk(["trend", "--db", DB, "--by", by, ...(fn ? ["--function", fn] : []), ...(value ? ["--value", value] : []),
                            ...(thread ? ["--thread", thread] : []), "--json"]));
  // the command the page shows under the chart gives the same
  const w = words(await page.textContent("#pk-trend-cmd"));
  check(`trend per ${by}: the page's command line is a trend`, w[0] === "profkit" && w[1] === "trend", w.join(" "));
  check(`trend per ${by}: its command line gives the bars`, same(JSON.parse(pk([...w.slice(1), "--json"])), cli), w.join(" "));
  check(`trend per ${by}${fn ? " of " + fn : ""}: the bars = trend --json`, cli.points.length > 1 &&
        same(bars, cli.points.map((p) => [p.group, p.value])), JSON.stringify(bars).slice(0, 200));
  check(`trend per ${by}${fn ? " of " + fn : ""}: the table's profiles = trend --json`, same(rows, cli.points.map((p) => [p.group, p.profiles])));
  return cli;
}
await trend("version", "fn_02");
await shot(page, "trend_version");
await trend("day", "");
await shot(page, "trend_day");
await trend("version", "^(hot|io)$", "time");
await shot(page, "trend_value");

// ---- the trend of one thread: its picker lists the threads of the
// selection merged, as `info --db --json` does; the chart of one is
// `trend --thread NAME --json` ----
const infoThreads = (...sel) => JSON.parse(pk(["info", "--db", DB, ...sel, "--json"])).threads.map((t) => [String(t.index), t.name]);
const trendThreads = () => page.$$eval("#pk-trend-thread option", (o) => o.map((x) => [x.value, x.dataset.index, x.textContent]));
let opts = await trendThreads();
check("the trend's thread picker: all threads, then those of info --db --json", opts.length > 1 && opts[0][0] === "" &&
      same(opts.slice(1).map((o) => [o[1], o[0]]), infoThreads()), JSON.stringify(opts));
check("the trend's thread picker lists the speedscope profile's two threads and gen's", ["main", "MainThread", "Worker"].every((t) => opts.some((o) => o[0] === t)),
      JSON.stringify(opts));
let tcli = await trend("version", "", "time", "Worker");
check("trend of thread Worker: the command line says --thread Worker", /--thread Worker/.test(await page.textContent("#pk-trend-cmd")), await page.textContent("#pk-trend-cmd"));
check("trend of thread Worker: trend --thread --json names the thread", tcli.thread === "Worker", JSON.stringify(tcli).slice(0, 200));
// only the speedscope profile (version 2.0) has that thread: its bar alone
check("trend of thread Worker: one group has a value, the others 0", tcli.points.filter((q) => q.value > 0).map((q) => q.group).join() === "2.0",
      JSON.stringify(tcli.points));
check("trend of thread Worker: the chart's caption names it", (await page.textContent("#pk-trend-caption")).includes("thread Worker"),
      await page.textContent("#pk-trend-caption"));
check("trend of thread Worker: the status names it", (await status()).includes("in thread Worker"), await status());
await shot(page, "trend_thread");
tcli = await trend("day", "", "samples", "main");
check("trend of thread main per day: a value on the generated profiles' days", tcli.points.some((q) => q.value > 0), JSON.stringify(tcli.points));
await shot(page, "trend_thread_day");
// the picker follows the selection: set=other has the speedscope profile's threads only
await page.selectOption('select.pk-label[data-key="set"]', "other");
await apply();
opts = await trendThreads();
check("set=other: the trend's thread picker lists info --db --where set=other's threads",
      same(opts.slice(1).map((o) => [o[1], o[0]]), infoThreads("--where", "set=other")), JSON.stringify(opts));
check("set=other: the thread picker of what is opened lists the same threads",
      same(await page.$$eval("#pk-thread option", (o) => o.map((x) => x.value)), opts.map((o) => o[0])), JSON.stringify(opts));
check("set=other: the thread picked (main) is not there: all threads again", (await page.inputValue("#pk-trend-thread")) === "", await page.inputValue("#pk-trend-thread"));
await page.selectOption("#pk-trend-thread", "MainThread");
await page.selectOption("#pk-value", "time");
await page.selectOption("#pk-trend-by", "host");
await page.fill("#pk-trend-fn", "");
await page.click("#pk-trend-draw");
await page.waitForFunction(() => !document.getElementById("pk-status").textContent.startsWith("Computing"));
const w = words(await page.textContent("#pk-trend-cmd"));
const want = JSON.parse(pk(["trend", "--db", DB, "--where", "set=other", "--by", "host", "--thread", "MainThread", "--value", "time", "--json"]));
check("set=other, thread MainThread: the command line is trend --where set=other --thread MainThread",
      same(JSON.parse(pk([...w.slice(1), "--json"])), want), w.join(" "));
const bars = await page.$$eval("#pk-chart rect.pk-bar", (rs) => rs.map((r) => [r.dataset.group, Number(r.dataset.value)]));
check("set=other, thread MainThread: the bars = trend --thread MainThread --json", want.points.length === 1 && want.points[0].value > 0 &&
      same(bars, want.points.map((q) => [q.group, q.value])), JSON.stringify(bars));
await shot(page, "trend_thread_selection");
// (the API's answer is the command line's too)
const apiThreads = await page.evaluate(() => window.profkitStore.api("threads", new URLSearchParams("where=set=other")));
check("api/threads?where=set=other: index, name, process, pid, tid of info --db --where set=other --json",
      same(apiThreads.threads.map((t) => [t.index, t.name, t.process, t.pid, t.tid]),
           JSON.parse(pk(["info", "--db", DB, "--where", "set=other", "--json"])).threads.map((t) => [t.index, t.name, t.process, t.pid, t.tid])),
      JSON.stringify(apiThreads));
await page.selectOption('select.pk-label[data-key="set"]', []);
await apply();
await page.selectOption("#pk-trend-thread", "");
// rows checked: the trend is theirs (--ids), as the buttons above open;
// its thread picker lists their threads (gen's profiles: main alone)
const two = [ls("--where", "host=h05")[0], ls("--where", "host=h06")[0]];
for (const id of two) await page.check(`#pk-rows tr[data-id="${id}"] input`);
await page.waitForFunction(() => document.querySelectorAll("#pk-trend-thread option").length === 2);
opts = await trendThreads();
check("two rows checked: the trend's thread picker lists info --db --ids's threads", same(opts.slice(1).map((o) => [o[1], o[0]]), infoThreads("--ids", two.join(","))),
      JSON.stringify(opts));
check("two rows checked: the trend says which", (await page.textContent("#pk-trend-sel")) === "of 2 profiles", await page.textContent("#pk-trend-sel"));
// through POSTs this time (the page posts a form when an address would be long)
await page.evaluate(() => { window.profkitStore.maxGet = 0; });
const nposts = posts.length;
await page.selectOption("#pk-trend-thread", "main");
await page.selectOption("#pk-value", "samples");
await page.selectOption("#pk-trend-by", "version");
await page.click("#pk-trend-draw");
await page.waitForFunction(() => !document.getElementById("pk-status").textContent.startsWith("Computing"));
await page.evaluate(() => { window.profkitStore.maxGet = 4000; });
check("that trend came by a POST", posts.slice(nposts).includes(URL0 + "api/trend"), posts.slice(nposts).join(" "));
const w2 = words(await page.textContent("#pk-trend-cmd"));
const want2 = JSON.parse(pk(["trend", "--db", DB, "--ids", two.join(","), "--by", "version", "--thread", "main", "--value", "samples", "--json"]));
check("two rows checked, thread main: the command line is trend --ids ... --thread main", w2.includes("--ids") && w2.includes(two.join(",")) &&
      same(JSON.parse(pk([...w2.slice(1), "--json"])), want2), w2.join(" "));
const bars2 = await page.$$eval("#pk-chart rect.pk-bar", (rs) => rs.map((r) => [r.dataset.group, Number(r.dataset.value)]));
check("two rows checked, thread main: the bars = trend --ids --thread main --json", want2.points.length === 2 && same(bars2, want2.points.map((q) => [q.group, q.value])),
      JSON.stringify(bars2));
await shot(page, "trend_thread_checked");
for (const id of two) await page.uncheck(`#pk-rows tr[data-id="${id}"] input`);
await page.waitForFunction(() => document.querySelectorAll("#pk-trend-thread option").length > 2);
await page.selectOption("#pk-trend-thread", "");
// an error is shown, not thrown
await page.fill("#pk-trend-fn", "(");
await page.click("#pk-trend-draw");
await page.waitForFunction(() => document.getElementById("pk-status").className === "pk-err");
check("a bad regex: the page shows the server's error", /regex|parenthes|\(/i.test(await status()), await status());
await shot(page, "trend_error");

check("no console or page error", errors.length === 0, errors.slice(0, 3).join(" | "));
check("no request leaves the server", foreign.length === 0, foreign.slice(0, 3).join(" "));
await browser.close();

server.kill("SIGTERM");
const end = await exited;
check("the server stops on SIGTERM with status 0", end.code === 0, JSON.stringify(end));
check("the server said nothing but stopped", err.trim() === "profkit view: stopped", err.slice(0, 2000));
rmSync(TMP, { recursive: true, force: true });
console.log(`store browser: ${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
