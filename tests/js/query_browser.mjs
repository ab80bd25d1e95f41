// window.profkit.query("top") and ("tree") against `profkit top --json`
// and `tree --json` on the page of every readable file of tests/data (and
// a folded and a speedscope profile merged, where one name has a file in
// one input and none in the other), in Debian's chromium through
// playwright-core: the page's rows are top's (a function is its name and
// its file, the calls column beside bsprof's time values, "inline" as
// top's and tree's; a delta profile's +x and -x under a node of total 0
// listed as top lists them).
//
// Environment: PROFKIT, PROFKIT_SRC, PROFKIT_TOOLS.
import { readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { SRC, CHROMIUM, chromium, scratch, pk, same, check, report } from "./lib.mjs";

const TMP = scratch("query");

// Rows top and tree mark inlined ("inline"), compared as the rest and
// counted (tests/data/pprof/ok_full.pb has one).
let inlineRows = 0;
const countInline = (rows) => { inlineRows += rows.filter((r) => "inline" in r).length; };

// Inputs: each ok_ file of these formats, and one merge.
const inputs = [];
for (const dir of ["bsprof", "br", "speedscope", "folded", "pprof", "perf_script", "v8_cpuprofile", "chrome", "gecko", "firefox", "dcpi", "gperftools"]) {
  let names = [];
  try { names = readdirSync(join(SRC, "tests", "data", dir)); } catch { continue; }
  for (const n of names.sort()) if (n.startsWith("ok_")) inputs.push([join(SRC, "tests", "data", dir, n)]);
}
writeFileSync(join(TMP, "nofile.folded"), "main;work;hot 5\nmain;io 3\n");
inputs.push([join(TMP, "nofile.folded"), join(SRC, "tests", "data", "speedscope", "ok_sampled.speedscope.json")]);

const browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
try {
  const page = await browser.newPage();
  let n = 0;
  for (const files of inputs) {
    const out = join(TMP, "p" + n++ + ".html");
    let top, tree;
    try {
      pk(["flame", "-q", ...files, "-o", out]);
      top = JSON.parse(pk(["top", "--json", "-n", "0", "-q", ...files]));
      tree = JSON.parse(pk(["tree", "--json", "-q", ...files]));
    } catch { continue; } // a file flame or top refuses is another test's
    await page.goto(pathToFileURL(out).href);
    await page.waitForFunction(() => window.profkit && window.profkit.query);
    const name = files.map((f) => f.slice(f.lastIndexOf("/") + 1)).join(" + ");
    const qtop = await page.evaluate(() => window.profkit.query("top", { limit: 0 }));
    countInline(top.rows);
    tree.trees.forEach((t) => countInline(t.nodes));
    check(`${name}: query("top") = top --json`, same(qtop.rows, top.rows) && qtop.total === top.total,
          JSON.stringify(qtop.rows).slice(0, 280) + " vs " + JSON.stringify(top.rows).slice(0, 280));
    const qtree = await page.evaluate(() => window.profkit.query("tree"));
    check(`${name}: query("tree") = tree --json`, same(qtree.trees, tree.trees),
          JSON.stringify(qtree.trees).slice(0, 280) + " vs " + JSON.stringify(tree.trees).slice(0, 280));
  }
  check("pages opened", n >= 10, n);
  check("rows marked inline compared", inlineRows > 0, inlineRows);
} finally {
  await browser.close();
  rmSync(TMP, { recursive: true, force: true });
}
report("query", ` (rows marked inline compared: ${inlineRows})`);
