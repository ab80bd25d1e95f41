// What the page marks and how it counts, in Debian's chromium through
// playwright-core, against the command line on the same files:
//   1. inlined functions: on tests/data/pprof/ok_full.pb and each profile
//      named on the command line (tests/cli/viewer_query_inline.sh gives
//      one of a program built with inlined calls), query("top") and
//      ("tree") equal top --json and tree --json with their "inline"
//      field; the top functions table marks "(inline)" / "(partial-inline)"
//      the rows top marks and no other; the call tree table marks rows of
//      functions tree marks; the hover over an inlined frame says so;
//   2. a delta profile (tests/data/pprof/ok_delta.pb) whose +x and -x
//      cancel under one node: the top table and the call tree list them,
//      and the flame graph says what it does not draw;
//   3. under a transform, the hover's "of all" and the sandwich title's
//      percentage are of the whole profile's total (top --json cum /
//      whole_total), and with "relative %" of what is left (top
//      --relative: cum / total); so is the hover's over the sandwich's
//      callers and callees graphs;
//   4. for every value type of each inline profile (and
//      tests/data/pprof/inline_values.pb, inlined on the rows of one
//      value type only, and inline_recursion.pb, a function inlined into
//      itself), plain and under --merge, --focus, --root-at and
//      --collapse-recursion given to `flame`: query("top")'s "inline" marks
//      equal top --json's with the same flags, query("tree")'s tree
//      --json's; the flame graph's labels of inlined frames end in
//      " (inline)" (or " (partial-inline)") as the hover says;
//   5. the diff page (flame --diff BASE NEW) marks a function inlined in
//      BASE only, gone from NEW, in its tables, hover and labels;
//   6. flame --format svg marks inlined frames in their labels and titles.
// Screenshots: $PROFKIT_BUILD/screenshots/marks-*.png (or $PROFKIT_SHOTS).
//
// Environment: PROFKIT, PROFKIT_SRC, PROFKIT_TOOLS (PROFKIT_BUILD, PROFKIT_CHROMIUM, PROFKIT_SHOTS).
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { SRC, CHROMIUM, chromium, shotsDir, scratch, pk, same, check, counts } from "./lib.mjs";

const SHOTS = shotsDir(process.env.PROFKIT_SHOTS);
const TMP = scratch("marks");

const MARK = { all: " (inline)", partial: " (partial-inline)" };

const browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
let n = 0;
async function open(files, hash = "", height = 2400, flags = []) {
  const out = join(TMP, "p" + n++ + ".html");
  pk(["flame", "-q", ...flags, ...files, "-o", out]);
  const ctx = await browser.newContext({ viewport: { width: 1400, height } });
  const page = await ctx.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(e.message));
  await page.addInitScript(() => {
    window.profkitNoIdle = true;
    // every label the canvases draw, for the flame graph's marks
    const fill = CanvasRenderingContext2D.prototype.fillText;
    window.pkTexts = new Set();
    CanvasRenderingContext2D.prototype.fillText = function (t, x, y) { window.pkTexts.add(String(t)); return fill.apply(this, arguments); };
  });
  await page.goto(pathToFileURL(out).href + (hash ? "#" + hash : ""));
  await page.waitForFunction(() => window.profkit && window.profkit.query && window.profkit.app);
  return { ctx, page, errors };
}
const shot = (o, name) => o.page.screenshot({ path: join(SHOTS, "marks-" + name + ".png") });
const view = async (o, v) => { await o.page.click(`.pk-tab[data-view="${v}"]`); await o.page.waitForTimeout(50); };
const hoverText = (o) => o.page.$eval("#pk-hover", (h) => (h.hidden ? "" : h.innerText));
// The centre of the flame graph's frame of node path `names`, or null.
const frameAt = (o, names) => o.page.evaluate((names) => {
  const app = window.profkit.app, v = app.flame, nd = window.profkit.findPath(app.p, v.model.tree, names);
  const b = nd >= 0 ? v.boxOf(nd) : null;
  if (!b) return null;
  const r = v.canvas.getBoundingClientRect();
  return { x: r.left + b.x + Math.min(b.w / 2, 40), y: r.top + b.y + b.h / 2 };
}, names);
// The rows a table shows: [name, file, mark].
const tableRows = (o, pane) => o.page.$$eval(`#pk-${pane} tr[data-${pane === "top" ? "func" : "node"}]`, (trs) => trs.map((tr) => {
  const fn = tr.querySelector(".fn"), loc = tr.querySelector(".loc:not(.pk-inline)"), mk = tr.querySelector(".pk-inline");
  return [fn ? fn.textContent : "", loc ? loc.textContent.trim().replace(/:\d+$/, "") : "", mk ? mk.textContent : ""];
}));

try {
  // ---- 1. inlined functions ----
  const inlineFiles = [join(SRC, "tests", "data", "pprof", "ok_full.pb"), ...process.argv.slice(2)];
  for (const file of inlineFiles) {
    const name = file.slice(file.lastIndexOf("/") + 1);
    const top = JSON.parse(pk(["top", "--json", "-n", "0", "-q", file]));
    const tree = JSON.parse(pk(["tree", "--json", "-q", file]));
    const marked = top.rows.filter((r) => r.inline);
    check(`${name}: top marks inlined functions`, marked.length > 0, JSON.stringify(top.rows).slice(0, 300));
    const o = await open([file]);
    const qtop = await o.page.evaluate(() => window.profkit.query("top", { limit: 0 }));
    check(`${name}: query("top") = top --json, "inline" too`, same(qtop.rows, top.rows),
          JSON.stringify(qtop.rows).slice(0, 400) + " vs " + JSON.stringify(top.rows).slice(0, 400));
    const qtree = await o.page.evaluate(() => window.profkit.query("tree"));
    check(`${name}: query("tree") = tree --json, "inline" too`, same(qtree.trees, tree.trees),
          JSON.stringify(qtree.trees).slice(0, 400) + " vs " + JSON.stringify(tree.trees).slice(0, 400));
    // the top table: the marks top's rows have, on the rows the table shows
    await view(o, "top");
    const want = new Map(top.rows.map((r) => [r.name + "\u0000" + (r.file || ""), r.inline ? MARK[r.inline] : ""]));
    const rows = await tableRows(o, "top");
    const bad = rows.filter(([nm, fl, mk]) => want.has(nm + "\u0000" + fl) && want.get(nm + "\u0000" + fl) !== mk);
    const shownMarks = rows.filter((r) => r[2]).length;
    check(`${name}: the top table marks what top marks`, rows.length > 0 && bad.length === 0 && shownMarks > 0,
          JSON.stringify(bad.slice(0, 4)) + " marked " + shownMarks + " of " + rows.length);
    await shot(o, "inline-top-" + name);
    // the call tree table, every row open: marked rows are of functions tree marks
    await view(o, "tree");
    await o.page.evaluate(() => { const t = window.profkit.app.treeTable; for (let i = 0; i < t.model.tree.n; i++) t.expanded.add(i); t.render(); });
    const treeMarks = new Map();
    for (const t of tree.trees) for (const nd of t.nodes) if (nd.inline) treeMarks.set(nd.name, MARK[nd.inline]);
    const trows = await tableRows(o, "tree");
    const tbad = trows.filter(([nm, , mk]) => mk && !treeMarks.has(nm));
    check(`${name}: the call tree table marks inlined nodes`, trows.some((r) => r[2]) && tbad.length === 0,
          JSON.stringify(tbad.slice(0, 4)) + " rows " + trows.length);
    await shot(o, "inline-tree-" + name);
    // the hover over a frame tree marks "all"
    await view(o, "flame");
    let path = null;
    for (const t of tree.trees) {  // (a thread's path is one of the merged tree the page opens on)
      const stack = [];
      for (const nd of t.nodes) {
        stack.length = nd.depth - 1;
        stack.push(nd.name);
        if (nd.inline === "all" && !path) path = stack.slice();
      }
    }
    const at = path ? await frameAt(o, path) : null;
    check(`${name}: an inlined frame is drawn`, !!at, JSON.stringify(path));
    if (at) {
      await o.page.mouse.move(at.x, at.y);
      const hov = await hoverText(o);
      check(`${name}: the hover marks the inlined frame`, hov.split("\n")[0] === path[path.length - 1] + " (inline)", hov);
      await shot(o, "inline-hover-" + name);
    }
    check(`${name}: no page error`, o.errors.length === 0, o.errors.join(" | "));
    await o.ctx.close();
  }

  // ---- 2. a subtree of total 0 ----
  {
    const file = join(SRC, "tests", "data", "pprof", "ok_delta.pb");
    const top = JSON.parse(pk(["top", "--json", "-n", "0", "-q", file]));
    const o = await open([file], "", 900);
    const note = await o.page.$eval(".pk-undrawn", (e) => (e.hidden ? "" : e.textContent)).catch(() => "");
    check("delta: the flame graph says what it does not draw", /^1 call path has values that add up to zero/.test(note), note);
    await shot(o, "delta-flame");
    await view(o, "top");
    const rows = (await tableRows(o, "top")).map((r) => r[0]);
    check("delta: the top table lists top's rows", same(rows.slice().sort(), top.rows.map((r) => r.name).sort()), rows + " vs " + top.rows.map((r) => r.name));
    await shot(o, "delta-top");
    await view(o, "tree");
    await o.page.evaluate(() => { const t = window.profkit.app.treeTable; for (let i = 0; i < t.model.tree.n; i++) t.expanded.add(i); t.render(); });
    const trows = (await tableRows(o, "tree")).map((r) => r[0]);
    check("delta: the call tree lists main (total 0) and its +x and -x", ["main", "new", "old"].every((x) => trows.includes(x)), trows);
    await shot(o, "delta-tree");
    check("delta: no page error", o.errors.length === 0, o.errors.join(" | "));
    await o.ctx.close();
  }

  // ---- 3. the hover's and the sandwich's totals under a transform ----
  {
    const file = join(TMP, "four.folded");
    writeFileSync(file, "main;a;x 30\nmain;a;y 10\nmain;b;x 20\nmain;c 40\n");
    const o = await open([file], "xf=" + encodeURIComponent("ignore:c"), 900);
    for (const rel of [false, true]) {
      const top = JSON.parse(pk(["top", "--json", "-n", "0", "-q", "--ignore", "c", ...(rel ? ["--relative"] : []), file]));
      const of = rel ? top.total : (top.whole_total || top.total);
      check("totals: --ignore leaves less than the whole" + (rel ? " (relative)" : ""), top.total === 60 && (rel || top.whole_total === 100), JSON.stringify(top).slice(0, 200));
      const cum = (nm) => top.rows.find((r) => r.name === nm).cum;
      if (rel) { await o.page.check("#pk-rel"); await o.page.waitForTimeout(50); }
      await view(o, "flame");
      const at = await frameAt(o, ["main", "a"]);
      check("totals: frame a is drawn", !!at);
      if (at) {
        await o.page.mouse.move(at.x, at.y);
        const hov = await hoverText(o), m = /([\d.]+)% of all/.exec(hov);
        const want = 100 * cum("a") / of;
        check(`totals: hover "of all" = top${rel ? " --relative" : ""} cum% (${want.toFixed(1)}%)`, m && Math.abs(+m[1] - want) < 0.051, hov);
        await shot(o, "totals-hover" + (rel ? "-relative" : ""));
      }
      await o.page.mouse.move(1, 1);
      await o.page.evaluate(() => { const a = window.profkit.app, p = a.p; for (let f = 0; f < p.funcName.length; f++) if (p.funcLabel(f) === "x") a.openSandwich(f); });
      await o.page.waitForTimeout(100);
      const title = await o.page.$eval("#pk-sw-title", (e) => e.textContent), m = /\(([\d.]+)%\)/.exec(title);
      const want = 100 * cum("x") / of;
      check(`totals: sandwich title % = top${rel ? " --relative" : ""} cum% of x (${want.toFixed(1)}%)`, m && Math.abs(+m[1] - want) < 0.051, title);
      // the callers' and callees' graphs: x's frame "of all" as the title's
      for (const pane of ["callers", "callees"]) {
        const box = await o.page.evaluate((pane) => {
          const v = window.profkit.app[pane], b = v.boxOf(v.model.zoom || 1), r = v.canvas.getBoundingClientRect();
          return b ? { x: r.left + b.x + Math.min(b.w / 2, 40), y: r.top + b.y + b.h / 2 } : null;
        }, pane);
        check(`totals: the sandwich's ${pane} graph draws x`, !!box);
        if (!box) continue;
        await o.page.mouse.move(box.x, box.y);
        const hov = await hoverText(o), hm = /([\d.]+)% of all/.exec(hov);
        check(`totals: sandwich ${pane} hover "of all" = top${rel ? " --relative" : ""} cum% of x (${want.toFixed(1)}%)`,
              hov.split("\n")[0] === "x" && hm && Math.abs(+hm[1] - want) < 0.051, hov);
        if (pane === "callees") await shot(o, "totals-sandwich-hover" + (rel ? "-relative" : ""));
        await o.page.mouse.move(1, 1);
      }
      await shot(o, "totals-sandwich" + (rel ? "-relative" : ""));
    }
    check("totals: no page error", o.errors.length === 0, o.errors.join(" | "));
    await o.ctx.close();
  }

  // ---- 4. every value type, plain and under transforms: the page's marks are top's and tree's ----
  const topMarks = (rows) => JSON.stringify(rows.filter((r) => r.inline).map((r) => [r.name, r.file || "", r.inline]).sort());
  // the tree's marked nodes by path (its other numbers are not the point here)
  const treeMarks = (trees) => {
    const out = [];
    for (const t of trees) {
      const stack = [];
      for (const nd of t.nodes) {
        stack.length = nd.depth - 1;
        stack.push(nd.name);
        if (nd.inline) out.push((t.thread || "") + ":" + stack.join(";") + "=" + nd.inline);
      }
    }
    return JSON.stringify(out.sort());
  };
  const setValue = async (o, type) => {
    await o.page.evaluate((type) => {
      const a = window.profkit.app, sel = document.querySelectorAll("select");
      a.change({ value: type }, "value");
      // the value picker shows it too (for the screenshots)
      for (const s of sel) for (const op of s.options) if (op.textContent.split(" (")[0] === type) s.value = op.value;
    }, type);
    await o.page.waitForTimeout(50);
  };
  const labels = (o) => o.page.evaluate(() => Array.from(window.pkTexts));
  const ivFile = join(SRC, "tests", "data", "pprof", "inline_values.pb");
  let perValue = false, xfChecked = 0;
  const recFile = join(SRC, "tests", "data", "pprof", "inline_recursion.pb");
  for (const file of [ivFile, recFile, ...process.argv.slice(2)]) {
    const name = file.slice(file.lastIndexOf("/") + 1);
    const types = JSON.parse(pk(["info", "--json", "-q", file])).value_types.map((x) => x.type);
    // a function top marks and its caller: what the transforms act on
    let callee = null, caller = null;
    for (const t of types.flatMap((type) => JSON.parse(pk(["tree", "--json", "-q", "--value", type, file])).trees)) {
      const stack = [];
      for (const nd of t.nodes) {
        stack.length = nd.depth - 1;
        if (!callee && nd.inline && stack.length) { callee = nd.name; caller = stack[stack.length - 1]; }
        stack.push(nd.name);
      }
    }
    check(`${name}: an inlined function with a caller`, !!callee);
    if (!callee) continue;
    const re = (x) => "^" + x.replace(/[.[\](){}*+?|^$\\]/g, "\\$&") + "$";
    const sets = [[], ["--merge", re(caller)], ["--merge", re(callee)], ["--focus", re(callee)], ["--root-at", re(caller)],
                  ["--collapse-recursion", re(caller)]];
    for (const flags of sets) {
      const what = `${name} ${flags.join(" ") || "(no transform)"}`;
      const o = await open([file], "", 1200, flags);
      const seen = new Set();
      for (const type of types) {
        await setValue(o, type);
        const top = JSON.parse(pk(["top", "--json", "-n", "0", "-q", "--value", type, ...flags, file]));
        const tree = JSON.parse(pk(["tree", "--json", "-q", "--value", type, ...flags, file]));
        const qtop = await o.page.evaluate(() => window.profkit.query("top", { limit: 0 }));
        const qtree = await o.page.evaluate(() => window.profkit.query("tree"));
        check(`${what} value ${type}: the page shows it`, qtop.value.type === type, JSON.stringify(qtop.value));
        check(`${what} value ${type}: query("top")'s inline marks = top --json's`, topMarks(qtop.rows) === topMarks(top.rows),
              topMarks(qtop.rows) + " vs " + topMarks(top.rows));
        check(`${what} value ${type}: query("tree")'s inline marks = tree --json's`, treeMarks(qtree.trees) === treeMarks(tree.trees),
              treeMarks(qtree.trees) + " vs " + treeMarks(tree.trees));
        seen.add(topMarks(top.rows));
        xfChecked++;
        // the flame graph's labels: an inlined frame's label says so, as tree marks it
        if (!flags.length) {
          await view(o, "flame");
          const marked = new Map();
          for (const t of tree.trees) for (const nd of t.nodes) if (nd.inline) marked.set(nd.name + MARK[nd.inline], true);
          const texts = await o.page.evaluate(() => { window.pkTexts.clear(); const a = window.profkit.app; a.flame._drawn = null; a.render("value"); return Array.from(window.pkTexts); });
          // (labels of whole names: a cut one keeps its mark, "f… (inline)")
          const withMark = texts.filter((x) => / \((partial-)?inline\)$/.test(x) && !x.includes("\u2026"));
          // (a narrow frame's label is cut, its mark with it: "f (inli…")
          check(`${what} value ${type}: the flame graph labels inlined frames`, marked.size === 0 || texts.some((x) => / \((partial-)?inl/.test(x)),
                JSON.stringify(texts).slice(0, 300));
          check(`${what} value ${type}: each marked label is a node tree marks so`, withMark.every((x) => marked.has(x)), JSON.stringify(withMark) + " vs " + JSON.stringify([...marked.keys()]));
          if (name === "inline_values.pb" || type === types[0]) await shot(o, `inline-labels-${name}-${type}`);
        }
      }
      if (seen.size > 1 && !flags.length) perValue = true;
      check(`${what}: no page error`, o.errors.length === 0, o.errors.join(" | "));
      await o.ctx.close();
    }
  }
  check("a profile whose marks differ by value type was checked", perValue);
  check("every value type under every transform was checked", xfChecked >= 6 * (2 + 1 + process.argv.slice(2).length), xfChecked);

  // ---- 5. the diff page: a function inlined in BASE only, gone from NEW ----
  {
    const neu = join(TMP, "new.folded");
    writeFileSync(neu, "main;work 5\n");
    const o = await open([ivFile, neu], "", 900, ["--diff", "--value", "samples"]);
    await view(o, "top");
    const rows = await tableRows(o, "top");
    const helper = rows.find((r) => r[0] === "helper");
    check("diff: the top table lists helper (gone from NEW)", !!helper, JSON.stringify(rows));
    check("diff: the top table marks helper inlined (BASE's calls)", helper && helper[2] === " (inline)", JSON.stringify(rows));
    check("diff: no other row marked", rows.filter((r) => r[2]).length === 1, JSON.stringify(rows));
    await shot(o, "diff-inline-top");
    await view(o, "tree");
    await o.page.evaluate(() => { const t = window.profkit.app.treeTable; for (let i = 0; i < t.model.tree.n; i++) t.expanded.add(i); t.render(); });
    const trows = await tableRows(o, "tree");
    check("diff: the call tree table marks helper inlined", trows.some((r) => r[0] === "helper" && r[2] === " (inline)"), JSON.stringify(trows));
    await shot(o, "diff-inline-tree");
    await view(o, "flame");
    const texts = await o.page.evaluate(() => { window.pkTexts.clear(); const a = window.profkit.app; a.flame._drawn = null; a.render("value"); return Array.from(window.pkTexts); });
    check("diff: the flame graph's label of helper says inline", texts.includes("helper (inline)"), JSON.stringify(texts));
    const at = await frameAt(o, ["main", "work", "helper"]);
    check("diff: helper's frame is drawn (BASE's size)", !!at);
    if (at) {
      await o.page.mouse.move(at.x, at.y);
      const hov = await hoverText(o);
      check("diff: the hover marks helper inlined", hov.split("\n")[0] === "helper (inline)", hov);
      await shot(o, "diff-inline-hover");
    }
    check("diff: no page error", o.errors.length === 0, o.errors.join(" | "));
    await o.ctx.close();
    // both sides inline: the same program twice
    for (const file of process.argv.slice(2)) {
      const o2 = await open([file, file], "", 1200, ["--diff"]);
      const top = JSON.parse(pk(["top", "--json", "-n", "0", "-q", file]));
      await view(o2, "top");
      const rows2 = await tableRows(o2, "top");
      const want = new Map(top.rows.map((r) => [r.name, r.inline ? MARK[r.inline] : ""]));
      const bad = rows2.filter(([nm, , mk]) => want.has(nm) && want.get(nm) !== mk);
      check(`diff of ${file.slice(file.lastIndexOf("/") + 1)} with itself: the top table marks what top marks`,
            bad.length === 0 && rows2.some((r) => r[2]), JSON.stringify(bad.slice(0, 4)));
      await shot(o2, "diff-inline-self-top");
      check("diff (self): no page error", o2.errors.length === 0, o2.errors.join(" | "));
      await o2.ctx.close();
    }
  }

  // ---- 6. the SVG flame graph ----
  {
    const svg = (flags) => { const out = join(TMP, "f" + n++ + ".svg"); pk(["flame", "-q", ...flags, ivFile, "-o", out]); return readFileSync(out, "utf8"); };
    const a = svg(["--value", "samples"]), b = svg(["--value", "cpu"]);
    check("svg: helper's label and title say inline (samples)", a.includes("<title>helper (inline) (") && />helper \(inline\)</.test(a), a.slice(-600));
    check("svg: not under cpu (a real call there)", b.includes("<title>helper (") && !b.includes("(inline)"), b.slice(-600));
  }
} finally {
  await browser.close();
  rmSync(TMP, { recursive: true, force: true });
}
console.log(`mark checks: ${counts.passed} passed, ${counts.failed} failed`);
process.exit(counts.failed ? 1 : 0);
