// The label picker on numeric labels in a real browser
// (tests/cli/viewer_numlabels.sh): grouping at the root or the leaf by a
// numeric key, "(none)" of a numeric key, and a bucketed key's grouping
// (a frame per number, as --tagroot).
// The command line the page shows, run by the shell with --json -n 0,
// equals window.profkit.query("top") (tests/cli/labels_numeric.sh checks
// that command line against Go pprof), also grouping by a key of more
// numbers than the picker lists (the page has a scope per number for it). Screenshots: $PROFKIT_BUILD/screenshots/labels-*.png.
//
// Environment: PROFKIT, PROFKIT_SRC, PROFKIT_BUILD, PROFKIT_TOOLS.
import { spawnSync, execFileSync } from "node:child_process";
import { mkdirSync, symlinkSync, rmSync } from "node:fs";
import { join } from "node:path";
import { PROFKIT, SRC, shotsDir, launch, closePage, openPage, scratch, pk, check, counts, report } from "./lib.mjs";

const SHOTS = shotsDir();
counts.limit = 900;
const TMP = scratch("numlabels");
const BIN = join(TMP, "bin");
mkdirSync(BIN);
symlinkSync(PROFKIT, join(BIN, "profkit"));

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
const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
// What differs between two top results (for a failure's message).
function diffRows(a, b) {
  const out = [];
  for (const k of Object.keys(Object.assign({}, a, b))) if (k !== "rows" && JSON.stringify(a[k]) !== JSON.stringify(b[k])) out.push(k + ": " + JSON.stringify(a[k]) + " vs " + JSON.stringify(b[k]));
  const key = (x) => x.name + "|" + (x.file || "");
  const m = new Map((b.rows || []).map((x) => [key(x), x]));
  for (const x of a.rows || []) { const y = m.get(key(x)); if (!y) out.push("page only: " + JSON.stringify(x)); else if (JSON.stringify(x) !== JSON.stringify(y)) out.push(JSON.stringify(x) + " vs " + JSON.stringify(y)); m.delete(key(x)); }
  for (const y of m.values()) out.push("command line only: " + JSON.stringify(y));
  if (!out.length) out.push("row order: " + (a.rows || []).map(key).join(",") + " vs " + (b.rows || []).map(key).join(","));
  return out.slice(0, 6).join("\n  ");
}
// query("top") equals the command line shown (read in the top view), run.
async function agrees(o, what) {
  await view(o, "top");
  const cmd = await o.page.locator("#pk-cmd").textContent();
  const cli = runShown(cmd), mine = await query(o);
  check(what + ": query(top) = `" + cmd + "` --json", same(mine, cli), diffRows(mine, cli));
  return { cmd, cli, mine };
}

try {
  // ---- the Go heap profile: bytes, numbers without a unit (pprof names
  // every frame of them <unknown>), more of them than the page lists
  const heap = join(SRC, "tests", "data", "pprof", "labels", "heap.pb.gz"), hpage = join(TMP, "heap.html");
  pk(["flame", "-q", "--min-percent", "0", heap, "-o", hpage]);
  let o = await open(hpage);
  let r = await agrees(o, "heap: no pick");
  const hwhole = r.mine.total;
  const hopts = await o.page.evaluate(() => Array.from(document.querySelectorAll("#pk-label option")).map((x) => x.value));
  check("heap: bytes is bucketed in the picker", hopts.some((v) => v.includes(':"') && /"value":"[^"]*:[^"]*"/.test(v)), hopts.slice(0, 5).join(" "));
  for (const [pick, re, name] of [[{ mode: "root", key: "bytes" }, / --tagroot bytes( |$)/, "heap-tagroot"],
                                  [{ mode: "leaf", key: "bytes" }, / --tagleaf bytes( |$)/, "heap-tagleaf"],
                                  [{ mode: "focus", key: "bytes", value: "" }, / --tagignore bytes=\d+bytes:\d+bytes( |$)/, "heap-none"]]) {
    check(name + ": offered by the picker", hopts.includes(JSON.stringify(pick)));
    await view(o, "flame");
    await o.page.selectOption("#pk-label", JSON.stringify(pick));
    await nextFrame(o);
    await shot(o, name);
    r = await agrees(o, name);
    check(name + ": the command line names it", re.test(r.cmd), r.cmd);
    check(name + ": no note of merged frames (no unit: every number is <unknown> to --tagroot)",
      await o.page.locator("#pk-label-merged").isHidden());
    if (name !== "heap-none") {
      const lab = r.mine.rows.filter((x) => x.name === "<unknown>");
      check(name + ": one label frame, <unknown>, over every sample", lab.length === 1 && lab[0].cum === hwhole, JSON.stringify(lab));
    } else {
      check(name + ": not every sample (those without bytes: none of inuse_space here)", r.mine.total < hwhole, r.mine.total + " of " + hwhole);
    }
  }
  await close(o, "heap");

  // ---- a profile with numbers with units (tests/data/pprof/numlabels):
  // pages (3 values), size (40 values: bucketed), samples without either
  const num = join(SRC, "tests", "data", "pprof", "numlabels", "numlabels.pb.gz"), npage = join(TMP, "num.html");
  pk(["flame", "-q", "--min-percent", "0", num, "-o", npage]);
  o = await open(npage);
  r = await agrees(o, "numlabels: no pick");
  const nwhole = r.mine.total;
  for (const [pick, re, name] of [[{ mode: "root", key: "pages" }, / --tagroot pages( |$)/, "pages-tagroot"],
                                  [{ mode: "leaf", key: "pages" }, / --tagleaf pages( |$)/, "pages-tagleaf"],
                                  [{ mode: "focus", key: "pages", value: "" }, / --tagignore pages=1count:3count( |$)/, "pages-none"],
                                  [{ mode: "focus", key: "size", value: "" }, / --tagignore size=16bytes:25600bytes( |$)/, "size-none"],
                                  [{ mode: "focus", key: "size", value: "256B:400B" }, / --tagfocus size=256bytes:400bytes( |$)/, "size-bucket"]]) {
    await view(o, "flame");
    await o.page.selectOption("#pk-label", JSON.stringify(pick));
    await nextFrame(o);
    await shot(o, name);
    r = await agrees(o, name);
    check(name + ": the command line names it", re.test(r.cmd), r.cmd);
    if (pick.mode === "root" || pick.mode === "leaf") {
      const names = r.mine.rows.filter((x) => x.file === "pages" || x.name === "<unknown>").map((x) => x.name).sort().join(" ");
      check(name + ": frames 1, 2, 3 and <unknown> (as --tag" + pick.mode + ")", names === "1 2 3 <unknown>", names);
    }
    if (name.endsWith("-none")) check(name + ": the samples without the key (14788 bytes)", r.mine.total === 14788, r.mine.total);
  }
  // keys a sample has two values of (pair: two numbers; mixed: numbers and
  // strings): pprof's frames ("1kB,2kB", "some,2kB"), each single value
  // as --tagfocus keeps it (a sample with it among its values), pair's
  // "(none)"; mixed has no "(none)" (no one pprof option names it)
  const mopts = await o.page.evaluate(() => Array.from(document.querySelectorAll("#pk-label option")).map((x) => x.value));
  check("mixed: no (none) offered", !mopts.includes(JSON.stringify({ mode: "focus", key: "mixed", value: "" })));
  for (const [pick, re, name, frames] of [
    [{ mode: "root", key: "pair" }, / --tagroot pair( |$)/, "pair-tagroot", "1kB 1kB,2kB 4kB <unknown>"],
    [{ mode: "leaf", key: "pair" }, / --tagleaf pair( |$)/, "pair-tagleaf", "1kB 1kB,2kB 4kB <unknown>"],
    [{ mode: "root", key: "mixed" }, / --tagroot mixed( |$)/, "mixed-tagroot", "512B <unknown> lots some,2kB"],
    [{ mode: "leaf", key: "mixed" }, / --tagleaf mixed( |$)/, "mixed-tagleaf", "512B <unknown> lots some,2kB"],
    [{ mode: "focus", key: "pair", value: "2kB" }, / --tagfocus pair=2048bytes( |$)/, "pair-2kB"],
    [{ mode: "focus", key: "pair", value: "1kB" }, / --tagfocus pair=1024bytes( |$)/, "pair-1kB"],
    [{ mode: "focus", key: "pair", value: "" }, / --tagignore pair=1024bytes:4096bytes( |$)/, "pair-none"],
    [{ mode: "focus", key: "mixed", value: "some" }, / --tagfocus 'mixed=\^some\$'( |$)/, "mixed-some"],
    [{ mode: "focus", key: "mixed", value: "2kB" }, / --tagfocus mixed=2048bytes( |$)/, "mixed-2kB"]]) {
    check(name + ": offered by the picker", mopts.includes(JSON.stringify(pick)));
    await view(o, "flame");
    await o.page.selectOption("#pk-label", JSON.stringify(pick));
    await nextFrame(o);
    await shot(o, name);
    r = await agrees(o, name);
    check(name + ": the command line names it", re.test(r.cmd), r.cmd);
    if (frames) {
      const names = r.mine.rows.filter((x) => x.file === pick.key || x.name === "<unknown>").map((x) => x.name).sort().join(" ");
      check(name + ": pprof's frames " + frames, names === frames, names);
    }
    if (name === "pair-1kB") check(name + ": both samples with 1kB (4096 bytes)", r.mine.total === 4096, r.mine.total);
  }
  // grouping by size: 40 numbers with a unit, bucketed for "size = ..."
  // (31 buckets), grouped a frame per number as --tagroot has them: the
  // page's top is the command line's, no note of merged frames
  const sopts = await o.page.evaluate(() => Array.from(document.querySelectorAll("#pk-label option")).map((x) => x.value));
  check("size: buckets in the picker", sopts.some((v) => /"key":"size","value":"[^"]*:[^"]*"/.test(v)), sopts.join(" ").slice(0, 300));
  check("size: no single number of a bucket in the picker", !sopts.includes(JSON.stringify({ mode: "focus", key: "size", value: "19.14kB" })));
  // each bucket (made by the page of its numbers' trees) is its range's
  // --tagfocus on the command line
  for (const v of sopts.filter((x) => /"mode":"focus","key":"size","value":"[^"]*:/.test(x))) {
    await view(o, "flame");
    await o.page.selectOption("#pk-label", v);
    await nextFrame(o);
    r = await agrees(o, "size bucket " + JSON.parse(v).value);
    check("size bucket " + JSON.parse(v).value + ": --tagfocus size=LO:HI", / --tagfocus size=\d+bytes:\d+bytes( |$)/.test(r.cmd), r.cmd);
  }
  for (const mode of ["root", "leaf"]) {
    const name = "size-tag" + mode;
    await view(o, "flame");
    await o.page.selectOption("#pk-label", JSON.stringify({ mode, key: "size" }));
    await nextFrame(o);
    await shot(o, name);
    r = await agrees(o, name);
    check(name + ": the command line names --tag" + mode + " size", r.cmd.includes(" --tag" + mode + " size"), r.cmd);
    check(name + ": no note of merged frames", await o.page.locator("#pk-label-merged").isHidden());
    const frames = r.mine.rows.filter((x) => x.file === "size");
    check(name + ": a frame per number (40), none a range", frames.length === 40 && !frames.some((x) => / to /.test(x.name)), frames.map((x) => x.name).join(" "));
    check(name + ": the whole total", r.mine.total === nwhole, r.mine.total + " vs " + nwhole);
  }
  await close(o, "numlabels");

  // ---- more numbers than the page groups one by one (2048): the
  // grouping merges them into ranges and says so; totals stay the command
  // line's (bench/gen_pprof_labels.py: `bytes` of ~2800 sizes with a unit)
  const many = join(TMP, "many.pb"), mpage = join(TMP, "many.html");
  execFileSync("python3", [join(SRC, "bench", "gen_pprof_labels.py"), many, "8000", "300", "2", "3000"]);
  const nsizes = JSON.parse(pk(["tags", "--json", many])).keys.find((k) => k.key === "bytes").values.length;
  check("many: more than 2048 sizes", nsizes > 2048, nsizes);
  pk(["flame", "-q", "--min-percent", "0", many, "-o", mpage]);
  o = await open(mpage);
  // (its trees are more than the page keeps whole: totals are compared)
  const mwhole = JSON.parse(pk(["top", "-q", "--json", "-n", "1", "--value", "cpu", many])).total;
  await view(o, "flame");
  await o.page.selectOption("#pk-label", JSON.stringify({ mode: "root", key: "bytes" }));
  await nextFrame(o);
  await view(o, "top");
  const mcmd = await o.page.locator("#pk-cmd").textContent(), mnote = o.page.locator("#pk-label-merged");
  check("many: the page says it merged", await mnote.isVisible() && /more values than the page groups one by one here \(2048 for all threads.*ranges "LO to HI" of values merged/.test(await mnote.textContent()),
    await mnote.textContent());
  const mtop = await query(o), mcli = runShown(mcmd);
  check("many: the same total as the command line", mtop.total === mcli.total && mtop.total === mwhole, mtop.total + " vs " + mcli.total);
  check("many: range frames", mtop.rows.some((x) => x.file === "bytes" && / to /.test(x.name)));
  await close(o, "many");
} catch (e) {
  check("no exception", false, e && e.stack || e);
} finally {
  await browser.close();
  rmSync(TMP, { recursive: true, force: true });
}
report("numeric labels browser");
