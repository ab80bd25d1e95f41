// The inflate alone in Node (V8, chromium's engine, without the browser's
// other work: steadier than bench/inflate_page.mjs's in-page figures):
// a page's markers stream (its base85 decoded once) inflated by the page's
// own inflater (src/report/flame/page/11_inflate.js) and by pako's
// (Debian's node-pako, dist/pako_inflate.min.js, as bench/inflate_pako.js
// puts it behind the page's interface), each
//   - cold: the first inflate in a fresh process (the page inflates once),
//     COLD processes each (default 9), interleaved;
//   - warm: WARM more in one process (default 15).
// Medians, fastest and slowest, in ms: the process's CPU time (user +
// system, all its threads: V8's compiler threads too; steadier than wall
// time on a loaded machine) and wall time.
//
//   node bench/inflate_node.mjs PAGE.html
//   PAKO=DIR (default /usr/share/nodejs/pako/dist)
//   BEFORE=FILE: another 11_inflate.js timed beside them (e.g.
//     `git show COMMIT:src/report/flame/page/11_inflate.js > FILE`)
import { readFileSync } from "node:fs";
import { join, dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { execFileSync } from "node:child_process";
import vm from "node:vm";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const PAKO = process.env.PAKO || "/usr/share/nodejs/pako/dist";
const page = resolve(process.argv[2] || "");
const ways = {
  own: "const z = new PK.Gunzip(gz, size); z.step(Infinity); return z.out.length;",
  "own, 64 KB steps": "const z = new PK.Gunzip(gz, size); while (!z.step(65536)); return z.out.length;",
  "pako, one step": "const z = new PP.Gunzip(gz, size); z.step(Infinity); return z.out.length;",
  "pako, 64 KB steps": "const z = new PP.Gunzip(gz, size); while (!z.step(65536)); return z.out.length;",
};
if (process.env.BEFORE) {
  ways.before = "const z = new PB.Gunzip(gz, size); z.step(Infinity); return z.out.length;";
  ways["before, 64 KB steps"] = "const z = new PB.Gunzip(gz, size); while (!z.step(65536)); return z.out.length;";
}

// The page's stream and both inflaters in a context of their own each.
function setup() {
  const html = readFileSync(page, "utf8");
  const m = /<script type="application\/json" id="profkit-markers">([\s\S]*?)<\/script>/.exec(html);
  if (!m) throw new Error(page + ": no markers element");
  const obj = JSON.parse(m[1]);
  if (obj.gz === undefined) throw new Error(page + ": its markers are not packed");
  const load = (files) => { const c = vm.createContext({}); for (const f of files) vm.runInContext(readFileSync(f, "utf8"), c, { filename: f }); return c.profkit; };
  const own = join(root, "src", "report", "flame", "page", "11_inflate.js");
  const PK = load([own]), PP = load([own, join(PAKO, "pako_inflate.min.js"), join(root, "bench", "inflate_pako.js")]);
  const PB = process.env.BEFORE ? load([resolve(process.env.BEFORE)]) : null;
  return { PK, PP, PB, gz: PK.base85(obj.gz, obj.packed.gz_bytes), size: obj.packed.bytes };
}
function time(s, way) {
  const f = new Function("PK", "PP", "PB", "gz", "size", ways[way]);
  const c0 = process.cpuUsage(), t0 = performance.now(), n = f(s.PK, s.PP, s.PB, s.gz, s.size), ms = performance.now() - t0, c = process.cpuUsage(c0);
  if (n !== s.size) throw new Error(way + ": " + n + " bytes, not " + s.size);
  return [(c.user + c.system) / 1000, ms];
}
if (process.env.INFLATE_ONE) {   // a child: one cold inflate
  console.log(JSON.stringify(time(setup(), process.env.INFLATE_ONE)));
  process.exit(0);
}
const COLD = +(process.env.COLD || 9), WARM = +(process.env.WARM || 15);
const median = (a) => { const s = [...a].sort((x, y) => x - y); return s[s.length >> 1]; };
const fmt = (a) => `${median(a).toFixed(1)} (${Math.min(...a).toFixed(1)}-${Math.max(...a).toFixed(1)})`;
const s = setup(), cold = {}, warm = {};
for (let r = 0; r < COLD; r++)
  for (const w of Object.keys(ways))
    (cold[w] = cold[w] || []).push(JSON.parse(execFileSync(process.execPath, [fileURLToPath(import.meta.url), page],
                                                 { env: { ...process.env, INFLATE_ONE: w }, encoding: "utf8" })));
for (let r = 0; r < WARM; r++) for (const w of Object.keys(ways)) (warm[w] = warm[w] || []).push(time(s, w));
console.log(`${page}: ${s.gz.length} bytes of gzip to ${s.size}; Node ${process.version}; ms, median (fastest-slowest)`);
console.log(`| inflater | cold, CPU: first in a process (${COLD}) | cold, wall | warm, CPU (${WARM}) | warm, wall |`);
console.log("|---|---|---|---|---|");
const at = (a, i) => a.map((x) => x[i]);
for (const w of Object.keys(ways)) console.log(`| ${w} | ${fmt(at(cold[w], 0))} | ${fmt(at(cold[w], 1))} | ${fmt(at(warm[w], 0))} | ${fmt(at(warm[w], 1))} |`);
