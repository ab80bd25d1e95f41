// The page's inflater against pako's and the browser's DecompressionStream
// (docs/viewer.md, "markers"): for each page given (made by `profkit flame`
// or bench/viewer_page.mjs), three variants of it that differ only in what
// inflates the markers' gzip stream, and for each
//   - its size in bytes;
//   - loads in headless chromium, the variants interleaved, ROUNDS rounds
//     (default 5): load to interactive, the markers read (the page's own
//     timings.markers: from the timeline asking for them to the columns
//     decoded, the element's HTML parse included) and the longest task
//     after interactive until then; medians;
//   - the inflate alone, on the page's own stream in the same browser
//     (REPS times each, default 7, median and fastest): the page's
//     inflater, pako's one-shot ungzip, pako behind the page's sliced
//     interface, DecompressionStream("gzip").
// The variants:
//   own     the page as written (src/report/flame/page/11_inflate.js)
//   pako    11_inflate.js's inflater (its tables, Huffman codes, PK.Gunzip)
//           cut out, Debian's node-pako dist/pako_inflate.min.js and
//           bench/inflate_pako.js (PK.Gunzip on pako.Inflate) in its place
//   dstream the same cut, bench/inflate_dstream.js in its place (the
//           browser's DecompressionStream, asynchronous: 12_time.js's
//           loop patched to yield while it runs; T.markers before it is
//           done throws, so this one is for measuring only)
//
//   node bench/inflate_page.mjs OUT_DIR PAGE.html...
//   PAKO=DIR (default /usr/share/nodejs/pako/dist)
import { readFileSync, writeFileSync, mkdirSync, statSync } from "node:fs";
import { join, dirname, basename, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const OUT = resolve(process.argv[2] || join(root, "build", "bench", "inflate"));
const pages = process.argv.slice(3).map((p) => resolve(p));
if (!pages.length) { console.error("usage: node bench/inflate_page.mjs OUT_DIR PAGE.html..."); process.exit(2); }
mkdirSync(OUT, { recursive: true });
const ROUNDS = +(process.env.ROUNDS || 5), REPS = +(process.env.REPS || 7);
const tools = process.env.PROFKIT_TOOLS || join(root, "build", "tools");
const { chromium } = await import(join(tools, "node_modules", "playwright-core", "index.mjs"));
const PAKO = process.env.PAKO || "/usr/share/nodejs/pako/dist";
const pakoMin = readFileSync(join(PAKO, "pako_inflate.min.js"), "utf8");
const own = readFileSync(join(root, "src", "report", "flame", "page", "11_inflate.js"), "utf8");
const shimPako = readFileSync(join(root, "bench", "inflate_pako.js"), "utf8");
const shimStream = readFileSync(join(root, "bench", "inflate_dstream.js"), "utf8");

// 11_inflate.js without its inflater: Base85 and varints kept.
const cutAt = own.indexOf("  var LBASE = "), cutEnd = own.lastIndexOf("})(typeof globalThis");
if (cutAt < 0 || cutEnd < cutAt) throw new Error("11_inflate.js: its inflater's start or end not found");
const ownLess = own.slice(0, cutAt) + own.slice(cutEnd);
const LOOP = "if (slice && Date.now() - t0 >= 8) return false;";
const LOOP_YIELD = "if (slice && (Date.now() - t0 >= 8 || unz.gz && unz.gz.waiting)) return false;";
const once = (text, what, name) => { if (text.split(what).length !== 2) throw new Error(name + ": expected exactly one " + JSON.stringify(what.slice(0, 40))); };

function variants(page) {
  const html = readFileSync(page, "utf8");
  once(html, own, page);
  once(html, LOOP, page);
  const base = join(OUT, basename(page, ".html"));
  const v = { own: page,
    pako: html.replace(own, () => ownLess + "\n" + pakoMin + "\n" + shimPako),
    dstream: html.replace(own, () => ownLess + "\n" + shimStream).replace(LOOP, LOOP_YIELD) };
  for (const k of ["pako", "dstream"]) { writeFileSync(base + "." + k + ".html", v[k]); v[k] = base + "." + k + ".html"; }
  return v;
}

const browser = await chromium.launch({
  executablePath: "/usr/bin/chromium",
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync"],
});
const median = (a) => { const s = [...a].sort((x, y) => x - y); return s[s.length >> 1]; };
const fmt = (a) => `${median(a).toFixed(0)} (${Math.min(...a).toFixed(0)}-${Math.max(...a).toFixed(0)})`;

async function load(file) {
  const ctx = await browser.newContext({ viewport: { width: 1600, height: 1000 }, bypassCSP: true });
  const pg = await ctx.newPage();
  const errors = [];
  pg.on("pageerror", (e) => errors.push(e.message));
  await pg.addInitScript(() => {
    window.profkitLongTasks = [];
    try { new PerformanceObserver((l) => l.getEntries().forEach((e) => window.profkitLongTasks.push([e.startTime, e.duration]))).observe({ type: "longtask", buffered: true }); } catch (e) { /* none */ }
    // The inflate during the load, whichever PK.Gunzip the page defines:
    // the time in its constructor and steps (this thread's work), and from
    // the constructor to the step that ends it (wall).
    const pk = window.profkit = window.profkit || {}, I = window.profkitInflate = { ms: 0, steps: 0, span: 0 };
    let G;
    Object.defineProperty(pk, "Gunzip", { configurable: true, get: () => G, set: (f) => {
      G = function (src, size) {
        const t0 = performance.now(), z = new f(src, size), step = z.step;
        I.ms += performance.now() - t0;
        z.step = function (limit) {
          const t = performance.now();
          try { const done = step.call(z, limit); if (done) I.span = performance.now() - t0; return done; }
          finally { I.ms += performance.now() - t; I.steps++; }
        };
        return z;
      };
    } });
  });
  await pg.goto("file://" + file);
  await pg.waitForFunction(() => window.profkitTimings && window.profkitTimings.interactive > 0, null, { timeout: 120000 });
  await pg.waitForFunction(() => window.profkitTimings.markers > 0, null, { timeout: 120000 });
  const r = await pg.evaluate(() => {
    const T = window.profkitTimings, M = window.profkit.app.p.time().markers;
    return { interactive: T.interactive, markers: T.markers, n: M.n, inflate: window.profkitInflate.ms,
             span: window.profkitInflate.span, steps: window.profkitInflate.steps,
             longest: Math.max(0, ...window.profkitLongTasks.filter((x) => x[0] >= T.interactive).map((x) => x[1])) };
  });
  if (errors.length) throw new Error(file + ": " + errors.join("; "));
  return { ctx, pg, r };
}

for (const page of pages) {
  const v = variants(page), names = Object.keys(v), res = {};
  console.log(`\n${page}`);
  console.log("| variant | page bytes | vs own |");
  console.log("|---|---|---|");
  for (const k of names) console.log(`| ${k} | ${statSync(v[k]).size} | ${statSync(v[k]).size - statSync(v.own).size >= 0 ? "+" : ""}${statSync(v[k]).size - statSync(v.own).size} |`);
  let n = -1;
  for (let r = 0; r < ROUNDS; r++)
    for (const k of names) {
      const { ctx, r: x } = await load(v[k]);
      await ctx.close();
      if (n >= 0 && x.n !== n) throw new Error(k + ": " + x.n + " markers, not " + n);
      n = x.n;
      res[k] = res[k] || { interactive: [], markers: [], longest: [], inflate: [], span: [], steps: [] };
      for (const f of Object.keys(res[k])) res[k][f].push(x[f]);
    }
  console.log(`\n${n} markers; loads, median (min-max) of ${ROUNDS}, interleaved, ms:`);
  console.log("| variant | load to interactive | the markers read | longest task after interactive | the inflate: in its steps (steps) | the inflate: first to last step (wall) |");
  console.log("|---|---|---|---|---|---|");
  for (const k of names) console.log(`| ${k} | ${fmt(res[k].interactive)} | ${fmt(res[k].markers)} | ${fmt(res[k].longest)} | ${fmt(res[k].inflate)} (${median(res[k].steps)}) | ${fmt(res[k].span)} |`);

  // The inflate alone: the page's stream, each inflater REPS times.
  const { ctx, pg } = await load(v.own);
  await pg.addScriptTag({ content: pakoMin });
  await pg.evaluate((shim) => {
    const PK = window.profkit, obj = JSON.parse(document.getElementById("profkit-markers").textContent);
    const P = obj.packed;
    window.bz = { gz: PK.base85(obj.gz, P.gz_bytes), size: P.bytes, own: PK.Gunzip };
    // the pako shim, kept apart from the page's PK.Gunzip
    const save = { Gunzip: PK.Gunzip, gunzip: PK.gunzip };
    (0, eval)(shim);
    window.bz.pakoSliced = PK.Gunzip;
    PK.Gunzip = save.Gunzip; PK.gunzip = save.gunzip;
  }, shimPako);
  const info = await pg.evaluate(() => ({ gz: window.bz.gz.length, size: window.bz.size }));
  const ways = {
    own: "const z = new bz.own(bz.gz, bz.size); z.step(Infinity); return z.out.length;",
    "own, 64 KB steps": "const z = new bz.own(bz.gz, bz.size); while (!z.step(65536)); return z.out.length;",
    "pako.ungzip": "return pako.ungzip(bz.gz).length;",
    "pako, one step (chunkSize: the size)": "const z = new bz.pakoSliced(bz.gz, bz.size); z.step(Infinity); return z.out.length;",
    "pako, 64 KB steps": "const z = new bz.pakoSliced(bz.gz, bz.size); while (!z.step(65536)); return z.out.length;",
    "DecompressionStream": "return new Response(new Blob([bz.gz]).stream().pipeThrough(new DecompressionStream('gzip'))).arrayBuffer().then((b) => b.byteLength);",
  };
  const times = {};
  for (let r = 0; r < REPS; r++)
    for (const [k, code] of Object.entries(ways)) {
      const t = await pg.evaluate(async (code) => {
        const t0 = performance.now(), len = await (new Function(code))();
        const ms = performance.now() - t0;
        if (len !== bz.size) throw new Error("inflated " + len + " bytes, not " + bz.size);
        return ms;
      }, code);
      (times[k] = times[k] || []).push(t);
    }
  await ctx.close();
  console.log(`\nthe inflate alone: ${info.gz} bytes of gzip to ${info.size}, median (fastest-slowest) of ${REPS}, ms:`);
  console.log("| inflater | ms | MB/s of output (median) |");
  console.log("|---|---|---|");
  for (const k of Object.keys(ways)) console.log(`| ${k} | ${median(times[k]).toFixed(1)} (${Math.min(...times[k]).toFixed(1)}-${Math.max(...times[k]).toFixed(1)}) | ${(info.size / 1e3 / median(times[k])).toFixed(0)} |`);
}
await browser.close();
