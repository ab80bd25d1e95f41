// The label picker in a real browser (tests/cli/viewer_labels.sh): on the
// Go CPU profile with string labels (function=slow|fast), each pick made in
// the picker on the thread shown; the command line the page shows, run by
// the shell with --json -n 0, equals window.profkit.query("top"); the URL
// keeps the pick (reload, and a hash change); a transform on top of a pick
// is applied to the label view, as the command line applies its label
// options first. Screenshots: $PROFKIT_BUILD/screenshots/labels-*.png.
//
// Environment: PROFKIT, PROFKIT_SRC, PROFKIT_BUILD, PROFKIT_TOOLS.
import { spawnSync } from "node:child_process";
import { mkdirSync, symlinkSync, rmSync } from "node:fs";
import { join } from "node:path";
import { PROFKIT, SRC, shotsDir, launch, closePage, openPage, scratch, pk, same, check, counts } from "./lib.mjs";

const SHOTS = shotsDir();
const TMP = scratch("labels");
const BIN = join(TMP, "bin");
mkdirSync(BIN);
symlinkSync(PROFKIT, join(BIN, "profkit"));

counts.limit = 900;
function runShown(cmd) {
  const r = spawnSync("bash", ["-c", cmd + " -q --json -n 0"], { encoding: "utf8", maxBuffer: 1 << 28,
    env: Object.assign({}, process.env, { PATH: BIN + ":" + process.env.PATH }) });
  if (r.status !== 0) return { error: "exit " + r.status + ": " + r.stderr.slice(0, 400) };
  return JSON.parse(r.stdout);
}
const browser = await launch();
const open = (file, hash = "") => openPage(browser, file, { hash, width: 1300, height: 760, noIdle: true, timeout: 30000 });
const close = closePage;
const shot = (o, name) => o.page.screenshot({ path: join(SHOTS, "labels-" + name + ".png") });
const nextFrame = (o) => o.page.evaluate(() => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0))));
const view = async (o, v) => { await o.page.click(`.pk-tab[data-view="${v}"]`); await nextFrame(o); };
const query = (o) => o.page.evaluate(() => window.profkit.query("top", { limit: 0 }));
// query("top") equals the command line shown (read in the top view), run.
async function agrees(o, what) {
  await view(o, "top");
  const cmd = await o.page.locator("#pk-cmd").textContent();
  const cli = runShown(cmd), mine = await query(o);
  check(what + ": query(top) = `" + cmd + "` --json", same(mine, cli), JSON.stringify(mine).slice(0, 300) + "\n  vs " + JSON.stringify(cli).slice(0, 300));
  return { cmd, cli, mine };
}

try {
  const go = join(SRC, "tests", "data", "pprof", "labels", "cpu.pb.gz"), page = join(TMP, "go.html");
  pk(["flame", "-q", "--min-percent", "0", go, "-o", page]);
  let o = await open(page);
  const thread0 = await o.page.evaluate(() => window.profkit.app.state.thread);
  let r = await agrees(o, "no pick");
  const whole = r.mine.total;
  for (const [pick, flag, name] of [[{ mode: "focus", key: "function", value: "slow" }, "--tagfocus 'function=^slow$'", "slow"],
                                    [{ mode: "focus", key: "function", value: "" }, "--tagignore function=", "none"],
                                    [{ mode: "root", key: "function" }, "--tagroot function", "tagroot"],
                                    [{ mode: "leaf", key: "function" }, "--tagleaf function", "tagleaf"]]) {
    await view(o, "flame");
    await o.page.selectOption("#pk-label", JSON.stringify(pick));
    await nextFrame(o);
    await shot(o, name);
    const st = await o.page.evaluate(() => window.profkit.app.state.thread);
    check("pick " + name + ": the thread shown is kept (one thread: the scopes are its samples)", st === thread0, st + " vs " + thread0);
    r = await agrees(o, "pick " + name);
    check("pick " + name + ": the command line names " + flag, r.cmd.includes(" " + flag + " ") || r.cmd.endsWith(" " + flag), r.cmd);
    if (name === "slow") check("pick slow: fewer samples", r.mine.total < whole && r.mine.total > 0, r.mine.total);
    if (name === "tagroot") check("pick tagroot: label frames slow and fast", r.mine.rows.some((x) => x.name === "slow") && r.mine.rows.some((x) => x.name === "fast"));
    // the URL keeps it: a reload restores the pick
    await o.page.waitForTimeout(300);
    const url = o.page.url();
    check("pick " + name + ": in the URL", /[#&]tag=/.test(url), url);
    await close(o, "pick " + name);
    o = await open(page, url.split("#")[1]);
    const sel = await o.page.locator("#pk-label").inputValue();
    check("pick " + name + ": restored from the URL (picker)", sel === JSON.stringify(pick), sel);
    check("pick " + name + ": restored from the URL (top)", same(await query(o), r.mine));
  }
  // a hash change (back to no pick, then a pick) is followed
  await o.page.evaluate(() => { location.hash = location.hash.replace(/&?tag=[^&]*/, ""); });
  await o.page.waitForTimeout(300);
  check("hash without tag=: no pick", (await o.page.locator("#pk-label").inputValue()) === "" && (await query(o)).total === whole);
  await o.page.evaluate(() => { location.hash += "&tag=" + encodeURIComponent("focus:function=fast"); });
  await o.page.waitForTimeout(300);
  check("hash with tag=focus:function=fast: picked", (await o.page.locator("#pk-label").inputValue()) === JSON.stringify({ mode: "focus", key: "function", value: "fast" }));
  r = await agrees(o, "pick fast by the hash");
  // a transform over a pick: applied to the label view (label options first)
  await o.page.evaluate(() => window.profkit.app.pushTransform({ kind: "merge", arg: "^main\\.spin$" }));
  await nextFrame(o);
  r = await agrees(o, "pick fast, merge main.spin");
  check("pick fast + merge: the command line has both", r.cmd.includes("--tagfocus 'function=^fast$'") && r.cmd.includes("--merge"), r.cmd);
  check("pick fast + merge: main.spin is gone", !r.mine.rows.some((x) => x.name === "main.spin"));
  await view(o, "flame");
  await shot(o, "fast-merge");
  // the profile's one thread picked: the pick stays on it (--thread 0)
  await o.page.selectOption("#pk-thread", { label: await o.page.evaluate(() => { const p = window.profkit.app.p; for (let t = 0; t < p.threads.length; t++) if (!p.threads[t].merged) return p.threadLabel(t); return ""; }) });
  await nextFrame(o);
  const t1 = await o.page.evaluate(() => window.profkit.app.state.thread);
  await o.page.selectOption("#pk-label", JSON.stringify({ mode: "root", key: "function" }));
  await nextFrame(o);
  check("one thread: the pick keeps it", (await o.page.evaluate(() => window.profkit.app.state.thread)) === t1);
  r = await agrees(o, "one thread, tagroot, merge main.spin");
  check("one thread: the command line has --thread 0 and --tagroot", / --thread 0( |$)/.test(r.cmd) && r.cmd.includes("--tagroot function"), r.cmd);
  await view(o, "flame");
  await shot(o, "thread-tagroot");
  await close(o, "Go labels");
} catch (e) {
  counts.failed++;
  console.log("FAIL: " + (e && e.stack || e));
} finally {
  await browser.close();
  rmSync(TMP, { recursive: true, force: true });
}
console.log(`labels browser: ${counts.passed} passed, ${counts.failed} failed`);
process.exit(counts.failed ? 1 : 0);
