// The label picker per thread, on numbers, and in the command line's order
// (tests/cli/viewer_labels_threads.sh), in a real browser:
//   - a pprof profile written here with a `thread` label (so profkit reads
//     two threads) and the labels kind=a|b and size (bytes): a pick on one
//     thread stays on it (the page does not switch to "All threads"), and
//     window.profkit.query("top") equals the command line the page shows
//     (with --thread), run by the shell with --json -n 0;
//   - numeric labels are in the picker: size's values ("64B", ...) as
//     --tagfocus ranges, grouped at the root as --tagroot names them; Go's
//     heap profile (bytes without a unit, 40 distinct numbers) in buckets,
//     each a --tagfocus LO:HI range, its "(none)" and its grouping
//     (tests/js/numlabels_browser.mjs checks those two);
//   - a label pick and transforms: the label options apply at the first
//     filter flag's place (or first), as the command line applies them:
//     `--tagroot kind --merge '^a$'` merges the label frame `a` away,
//     `--tagroot kind --merge '^a$' --hide X` does not (the merge comes
//     before the labels); the page's numbers equal the command's in both.
// Screenshots: $PROFKIT_SHOTS (else $PROFKIT_BUILD/screenshots)/labels-threads-*.png.
//
// Environment: PROFKIT, PROFKIT_SRC, PROFKIT_BUILD, PROFKIT_TOOLS, PROFKIT_SHOTS.
import { spawnSync } from "node:child_process";
import { mkdirSync, symlinkSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { PROFKIT, SRC, shotsDir, launch, closePage, openPage, scratch, pk, check, counts } from "./lib.mjs";

const SHOTS = shotsDir(process.env.PROFKIT_SHOTS);
const TMP = scratch("labels-threads");
const BIN = join(TMP, "bin");
mkdirSync(BIN);
symlinkSync(PROFKIT, join(BIN, "profkit"));

counts.limit = 900;

// ---- a pprof protobuf, written by hand (the wire format: varints and
// length-delimited fields) ----
const varint = (n) => { const out = []; let v = BigInt(n); do { let b = Number(v & 0x7fn); v >>= 7n; if (v) b |= 0x80; out.push(b); } while (v); return out; };
const field = (no, bytes) => [...varint((no << 3) | 2), ...varint(bytes.length), ...bytes];
const vfield = (no, n) => [...varint(no << 3), ...varint(n)];
const packed = (no, ns) => field(no, ns.flatMap(varint));
function pprof() {
  const strings = [""], sid = (s) => { let i = strings.indexOf(s); if (i < 0) { i = strings.length; strings.push(s); } return i; };
  const funcs = ["main", "work", "spin", "alloc", "helper"];
  let out = [...field(1, [...vfield(1, sid("cpu")), ...vfield(2, sid("nanoseconds"))])];
  // [stack leaf first, value, thread, kind or null, size or null]
  const samples = [
    [["spin", "work", "main"], 10, "T1", "a", 64],
    [["alloc", "work", "main"], 20, "T1", "b", 128],
    [["spin", "helper", "main"], 30, "T2", "a", 64],
    [["helper", "main"], 5, "T2", null, 4096],
    [["spin", "work", "main"], 7, "T2", "b", null],
    [["alloc", "main"], 3, "T1", null, 128],
  ];
  for (const [stack, v, th, kind, size] of samples) {
    let s = [...packed(1, stack.map((f) => funcs.indexOf(f) + 1)), ...packed(2, [v])];
    s.push(...field(3, [...vfield(1, sid("thread")), ...vfield(2, sid(th))]));
    if (kind) s.push(...field(3, [...vfield(1, sid("kind")), ...vfield(2, sid(kind))]));
    if (size) s.push(...field(3, [...vfield(1, sid("size")), ...vfield(3, size), ...vfield(4, sid("bytes"))]));
    out.push(...field(2, s));
  }
  funcs.forEach((f, i) => {
    out.push(...field(4, [...vfield(1, i + 1), ...field(4, [...vfield(1, i + 1), ...vfield(2, 10 + i)])]));
    out.push(...field(5, [...vfield(1, i + 1), ...vfield(2, sid(f)), ...vfield(3, sid(f)), ...vfield(4, sid("prog.go"))]));
  });
  for (const s of strings) out.push(...field(6, [...Buffer.from(s, "utf8")]));
  return Buffer.from(out);
}

function runShown(cmd) {
  const r = spawnSync("bash", ["-c", cmd + " -q --json -n 0"], { encoding: "utf8", maxBuffer: 1 << 28, cwd: TMP,
    env: Object.assign({}, process.env, { PATH: BIN + ":" + process.env.PATH }) });
  if (r.status !== 0) return { error: "exit " + r.status + ": " + r.stderr.slice(0, 400) };
  return JSON.parse(r.stdout);
}
const browser = await launch();
const open = (file, hash = "") => openPage(browser, file, { hash, width: 1300, height: 760, noIdle: true, timeout: 30000 });
const close = closePage;
const shot = (o, name) => o.page.screenshot({ path: join(SHOTS, "labels-threads-" + name + ".png") });
const nextFrame = (o) => o.page.evaluate(() => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0))));
const view = async (o, v) => { await o.page.click(`.pk-tab[data-view="${v}"]`); await nextFrame(o); };
const query = (o) => o.page.evaluate(() => window.profkit.query("top", { limit: 0 }));
// (rows compared without "inline", the inline marks being another change's)
const noInline = (x) => JSON.stringify(x, (k, v) => (k === "inline" ? undefined : v));
const same = (a, b) => noInline(a) === noInline(b);
async function agrees(o, what) {
  await view(o, "top");
  const cmd = await o.page.locator("#pk-cmd").textContent();
  const cli = runShown(cmd), mine = await query(o);
  check(what + ": query(top) = `" + cmd + "` --json", same(mine, cli), JSON.stringify(mine).slice(0, 400) + "\n  vs " + JSON.stringify(cli).slice(0, 400));
  return { cmd, cli, mine };
}
const options = (o) => o.page.evaluate(() => [...document.querySelectorAll("#pk-label option")].map((x) => [x.value, x.textContent]));
async function pick(o, p) { await view(o, "flame"); await o.page.selectOption("#pk-label", JSON.stringify(p)); await nextFrame(o); }
// the thread picked in the page's own thread picker
async function setThread(o, t) {
  await o.page.selectOption("#pk-thread", { label: await o.page.evaluate((t) => window.profkit.app.p.threadLabel(t), t) });
  await nextFrame(o);
}
const state = (o) => o.page.evaluate(() => window.profkit.app.state.thread);

try {
  // ---- two threads, string and numeric labels ----
  const file = join(TMP, "threads.pb"), page = join(TMP, "threads.html");
  writeFileSync(file, pprof());
  const info = JSON.parse(pk(["info", "--json", file]));
  check("the written profile has two threads", info.threads && info.threads.length === 2, JSON.stringify(info.threads));
  pk(["flame", "-q", "--min-percent", "0", file, "-o", page]);
  let o = await open(page);
  const t2 = await o.page.evaluate(() => { const p = window.profkit.app.p; for (let t = 0; t < p.threads.length; t++) if (p.threadLabel(t).includes("T2")) return t; return -1; });
  check("thread T2 in the page", t2 >= 0);
  await setThread(o, t2);
  await pick(o, { mode: "focus", key: "kind", value: "a" });
  check("pick kind=a on T2: the thread shown stays T2", (await state(o)) === t2, await state(o));
  check("pick kind=a on T2: the thread picker still says T2", (await o.page.locator("#pk-thread option:checked").textContent()).includes("T2"));
  let r = await agrees(o, "T2, kind=a");
  check("T2, kind=a: --thread and --tagfocus on the command line", / --thread \d+/.test(r.cmd) && r.cmd.includes("--tagfocus 'kind=^a$'"), r.cmd);
  check("T2, kind=a: T2's 30 only (T1's 10 is another thread's)", r.mine.total === 30, r.mine.total);
  await shot(o, "t2-kind-a");
  await pick(o, { mode: "root", key: "kind" });
  check("group by kind on T2: still T2", (await state(o)) === t2);
  r = await agrees(o, "T2, tagroot kind");
  check("T2, tagroot kind: the samples without kind under <unknown>", r.mine.rows.some((x) => x.name === "<unknown>" && x.cum === 5), JSON.stringify(r.mine.rows));
  // the URL keeps thread and tag together
  await o.page.waitForTimeout(300);
  const url = o.page.url();
  check("URL has tag= and the thread", /[#&]tag=/.test(url) && /[#&]thread=/.test(url), url);
  await close(o, "T2 picks");
  o = await open(page, url.split("#")[1]);
  check("reload: thread T2 kept", (await state(o)) === t2);
  r = await agrees(o, "reload: T2, tagroot kind");
  // numbers: size's values with their unit
  const opts = await options(o);
  check("numeric key size in the picker: 64B, 128B, 4kB", ["size = 64B", "size = 128B", "size = 4kB"].every((t) => opts.some((x) => x[1] === t)), JSON.stringify(opts.map((x) => x[1])));
  await setThread(o, await o.page.evaluate(() => window.profkit.app.p.threads.findIndex((x) => x.merged)));
  await pick(o, { mode: "focus", key: "size", value: "128B" });
  r = await agrees(o, "all threads, size=128B");
  check("size=128B: --tagfocus size=128bytes, 23", r.cmd.includes("--tagfocus size=128bytes") && r.mine.total === 23, r.cmd + " " + r.mine.total);
  await pick(o, { mode: "root", key: "size" });
  r = await agrees(o, "all threads, tagroot size");
  check("tagroot size: frames 64B and 4kB", r.mine.rows.some((x) => x.name === "64B" && x.cum === 40) && r.mine.rows.some((x) => x.name === "4kB"), JSON.stringify(r.mine.rows));
  await view(o, "flame");
  await shot(o, "tagroot-size");

  // ---- the command line's order: labels at the first filter flag ----
  await pick(o, { mode: "root", key: "kind" });
  await o.page.evaluate(() => window.profkit.app.pushTransform({ kind: "merge", arg: "^a$" }));
  await nextFrame(o);
  r = await agrees(o, "tagroot kind, merge ^a$ (labels first)");
  check("tagroot kind + merge ^a$: the label frame a is merged away", !r.mine.rows.some((x) => x.name === "a") && r.mine.rows.some((x) => x.name === "b"), JSON.stringify(r.mine.rows.map((x) => x.name)));
  await o.page.evaluate(() => window.profkit.app.pushTransform({ kind: "hide", arg: "^helper$" }));
  await nextFrame(o);
  r = await agrees(o, "tagroot kind, merge ^a$, hide ^helper$ (labels at the hide's place)");
  check("... + hide: the merge comes before the labels, a stays", r.mine.rows.some((x) => x.name === "a" && x.cum === 40) && !r.mine.rows.some((x) => x.name === "helper"),
        JSON.stringify(r.mine.rows));
  await view(o, "flame");
  await shot(o, "order-merge-hide");
  // and on one thread, a focus pick with a transform before a filter
  await setThread(o, t2);
  await pick(o, { mode: "focus", key: "kind", value: "b" });
  check("T2 shown in the thread picker", (await o.page.locator("#pk-thread option:checked").textContent()).includes("T2"));
  r = await agrees(o, "T2, kind=b, merge ^a$, hide ^helper$");
  check("T2, kind=b: 7", r.mine.total === 7, r.mine.total);
  await close(o, "two threads");

  // ---- Go's heap profile: bytes without a unit, bucketed ----
  const heap = join(SRC, "tests", "data", "pprof", "labels", "heap.pb.gz"), hpage = join(TMP, "heap.html");
  pk(["flame", "-q", "--min-percent", "0", heap, "-o", hpage]);
  o = await open(hpage);
  const hopts = (await options(o)).filter((x) => x[0]);
  check("heap: bytes in the picker", hopts.some((x) => x[1] === "bytes = 40kB"), JSON.stringify(hopts.map((x) => x[1])));
  const hvals = hopts.filter((x) => /^bytes = /.test(x[1]) && x[1] !== "bytes = (none)");
  check("heap: at most 31 values of bytes (buckets), (none) beside them", hvals.length <= 31 && hvals.length > 10 &&
    hopts.some((x) => x[1] === "bytes = (none)"), hopts.length);
  check("heap: buckets shown as ranges", hopts.some((x) => / to /.test(x[1])), JSON.stringify(hopts.map((x) => x[1])));
  check("heap: grouping of the bucketed key offered (its numbers have no unit: one frame, as --tagroot)",
    hopts.filter((x) => /^group by bytes at the (root|leaf)$/.test(x[1])).length === 2);
  for (const v of ["inuse_space", "alloc_objects"]) {
    await o.page.selectOption("#pk-value", v);
    await nextFrame(o);
    for (const want of ["40kB", hopts.find((x) => / to /.test(x[1]))[1].replace("bytes = ", "").replace(" to ", ":")]) {
      await pick(o, { mode: "focus", key: "bytes", value: want });
      r = await agrees(o, "heap " + v + ", bytes=" + want);
      check("heap bytes=" + want + ": a range flag", /--tagfocus bytes=\d+bytes(:\d+bytes)?( |$)/.test(r.cmd), r.cmd);
    }
  }
  await view(o, "flame");
  await shot(o, "heap-bucket");
  await close(o, "heap");
} catch (e) {
  counts.failed++;
  console.log("FAIL: " + (e && e.stack || e));
} finally {
  await browser.close();
  rmSync(TMP, { recursive: true, force: true });
}
console.log(`labels threads browser: ${counts.passed} passed, ${counts.failed} failed`);
process.exit(counts.failed ? 1 : 0);
