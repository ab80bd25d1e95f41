// The page's transforms in a real browser (Debian chromium through
// playwright-core): each transform applied through the page's own UI (a
// frame's context menu in the flame graph and the tables, and the keys on
// the frame under the pointer), then window.profkit.query("top") compared
// with `profkit top --json -n 0` run with the command line the page shows
// (that text, run by the shell); a breadcrumb popped and checked again; the
// page reloaded from its URL and checked again; `profkit flame` given
// transform flags opening with them on the stack (poppable). Screenshots
// of every state go to $PROFKIT_BUILD/screenshots/xf-*.png.
//
// Profiles: the demo's program (examples/burn.c under libprofiler, built
// and run by viewer_transforms.sh: $PROFKIT_XF_DEMO) for its merge sort's
// recursion, and a Firefox Profiler profile from ../shared (samply
// recording `ls`) for its libraries (collapse a module).
//
// Environment: PROFKIT, PROFKIT_SRC, PROFKIT_SHARED, PROFKIT_BUILD,
// PROFKIT_TOOLS, PROFKIT_XF_DEMO.
import { spawnSync, spawn } from "node:child_process";
import { mkdirSync, symlinkSync, rmSync, statSync, copyFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { PROFKIT, SRC, shotsDir, launch, closePage, openPage, scratch, pk, check, counts } from "./lib.mjs";

const SHOTS = shotsDir();
const TMP = scratch("xf");
// `profkit` on PATH is the build's, so the page's command line runs as shown.
const BIN = join(TMP, "bin");
mkdirSync(BIN);
symlinkSync(PROFKIT, join(BIN, "profkit"));

counts.limit = 900;
// The page's command line, run by the shell as shown, with --json -n 0.
function runShown(cmd) {
  const r = spawnSync("bash", ["-c", cmd + " -q --json -n 0"], { encoding: "utf8", maxBuffer: 1 << 28,
    env: Object.assign({}, process.env, { PATH: BIN + ":" + process.env.PATH }) });
  if (r.status !== 0) return { error: "exit " + r.status + ": " + r.stderr.slice(0, 400) };
  return JSON.parse(r.stdout);
}
// What the page and top both say: the totals and every row's name, flat
// and cum in top's order (the page's rows carry no file and line yet).
// A frame without a name is labelled by its address in the page and by its
// module and offset by top: both are "(address)" here, the rows then in
// one order.
const unnamed = (n) => /^(.*\+)?0x[0-9a-f]+$/.test(n) ? "(address)" : n;
const cmpRow = (a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0) || a[1] - b[1] || a[2] - b[2];
const proj = (t) => t && t.rows ? JSON.stringify({ total: t.total, whole_total: t.whole_total, value: t.value, thread: t.thread,
                                                   rows: t.rows.map((r) => [unnamed(r.name), r.flat, r.cum]).sort(cmpRow) }) : JSON.stringify(t);

const browser = await launch();
const open = (file, o = {}) => openPage(browser, file, { ...o, noIdle: true, timeout: 30000 });
const close = closePage;
const shot = (o, name) => o.page.screenshot({ path: join(SHOTS, "xf-" + name + ".png") });
const state = (o) => o.page.evaluate(() => window.profkitState);
const query = (o, kind) => o.page.evaluate((k) => window.profkit.query(k, { limit: 0 }), kind);
const view = async (o, v) => { await o.page.click(`.pk-tab[data-view="${v}"]`); };

// The widest box of function `name` in the flame graph: page coordinates.
async function flameBox(o, name) {
  return o.page.evaluate((nm) => {
    const a = window.profkit.app, f = a.flame, b = f.boxes, tree = f.model.tree, p = a.p;
    let best = -1;
    for (let i = 0; i < b.node.length; i++)
      if (b.node[i] > 0 && p.funcLabel(tree.func[b.node[i]]) === nm && (best < 0 || b.w[i] > b.w[best])) best = i;
    if (best < 0) return null;
    const r = a.flameCanvas.getBoundingClientRect();
    return { x: r.left + b.x[best] + Math.min(b.w[best] / 2, 20), y: r.top + b.y[best] + 8, node: b.node[best] };
  }, name);
}
// Right-click `name` in the flame graph and pick the menu's `kind`.
async function menuFlame(o, name, kind) {
  await view(o, "flame");
  const b = await flameBox(o, name);
  if (!b) return "no box of " + name;
  await o.page.mouse.click(b.x, b.y, { button: "right" });
  const item = o.page.locator(`#pk-menu:not([hidden]) .pk-menu-item[data-kind="${kind}"]`);
  if (!(await item.count())) return "no menu item " + kind;
  if (menuShot) { await shot(o, menuShot); menuShot = ""; }
  await item.click();
  return "";
}
let menuShot = "";
// The key on `name`'s box under the pointer.
async function keyFlame(o, name, key) {
  await view(o, "flame");
  const b = await flameBox(o, name);
  if (!b) return "no box of " + name;
  await o.page.mouse.move(b.x, b.y);
  await o.page.keyboard.press(key);
  return "";
}
// Right-click the top functions' row of `name` and pick `kind`.
async function menuTop(o, name, kind) {
  await view(o, "top");
  const f = await o.page.evaluate((nm) => { const p = window.profkit.app.p; for (let i = 0; i < p.funcName.length; i++) if (p.funcLabel(i) === nm) return i; return -1; }, name);
  const row = o.page.locator(`#pk-top tr[data-func="${f}"]`);
  if (!(await row.count())) return "no row of " + name;
  await row.first().click({ button: "right" });
  const item = o.page.locator(`#pk-menu:not([hidden]) .pk-menu-item[data-kind="${kind}"]`);
  if (!(await item.count())) return "no menu item " + kind;
  await item.click();
  return "";
}
// Right-click the call tree's row of the node at `names` (expanding the
// path) and pick `kind`.
async function menuTree(o, names, kind) {
  await view(o, "tree");
  const n = await o.page.evaluate((path) => {
    const a = window.profkit.app, t = a.treeTable, tree = t.model.tree, node = window.profkit.findPath(a.p, tree, path);
    if (window.profkit.pathNames(a.p, tree, node).join(";") !== path.join(";")) return -1;
    for (let x = tree.parent[node]; x >= 0; x = tree.parent[x]) t.expanded.add(x);
    t.render();
    return node;
  }, names);
  if (n < 0) return "no node " + names.join(";");
  const row = o.page.locator(`#pk-tree tr[data-node="${n}"]`);
  if (!(await row.count())) return "no row of node " + n;
  await row.first().scrollIntoViewIfNeeded();
  await row.first().click({ button: "right" });
  const item = o.page.locator(`#pk-menu:not([hidden]) .pk-menu-item[data-kind="${kind}"]`);
  if (!(await item.count())) return "no menu item " + kind;
  await item.click();
  return "";
}
// The page's query("top") equals the shown command's top --json; the
// command is read in the top functions view (its report is top).
async function agrees(o, what, expectSteps) {
  await view(o, "top");
  const st = await state(o);
  check(what + ": the stack has " + expectSteps + " step(s)", st.transforms && st.transforms.length === expectSteps,
        JSON.stringify(st.transforms));
  const cmd = await o.page.locator("#pk-cmd").textContent();
  check(what + ": the command line is a profkit top command", /^profkit top /.test(cmd), cmd);
  const cli = runShown(cmd), mine = await query(o, "top");
  check(what + ": query(top) = `" + cmd + "` --json", proj(mine) === proj(cli), proj(mine).slice(0, 400) + "\n  vs " + proj(cli).slice(0, 400));
  return { cmd, cli, mine };
}
const treeNames = (t) => t.trees.flatMap((x) => x.nodes.map((n) => n.name));
// The deepest count of `name` on one path of query("tree").
function maxOnPath(t, name) {
  let most = 0;
  for (const tr of t.trees) {
    const path = [];
    for (const n of tr.nodes) { path.length = n.depth - 1; path.push(n.name); most = Math.max(most, path.filter((x) => x === name).length); }
  }
  return most;
}

try {
  // ---- the demo's merge sort: every transform through the UI ----
  const DEMO = process.env.PROFKIT_XF_DEMO;
  const page = join(TMP, "burn.html");
  pk(["flame", "-q", "--min-percent", "0", DEMO, "-o", page]);
  let o = await open(page);
  const MS = "msort_with_tmp";
  check("the demo's merge sort recurses", maxOnPath(await query(o, "tree"), MS) >= 5);
  await shot(o, "0-plain");
  let r = await agrees(o, "no transform", 0);
  check("no transform: the command has no transform flag", !/--(merge|root|focus|collapse|ignore)/.test(r.cmd), r.cmd);
  const plainTotal = r.mine.total;

  // 1. collapse recursion: the flame graph's context menu
  menuShot = "1-menu";
  check("collapse recursion: menu", (await menuFlame(o, MS, "collapse-recursion")) === "");
  await view(o, "flame");
  await shot(o, "1-collapse-recursion");
  r = await agrees(o, "collapse recursion", 1);
  check("collapse recursion: merge sort is one frame on every path", maxOnPath(await query(o, "tree"), MS) === 1);
  check("collapse recursion: total unchanged", r.mine.total === plainTotal, r.mine.total + " vs " + plainTotal);

  // 2. merge function: key m on the frame under the pointer
  check("merge: key m", (await keyFlame(o, "compare", "m")) === "");
  await shot(o, "2-merge");
  r = await agrees(o, "merge compare", 2);
  check("merge: compare is gone", !treeNames(await query(o, "tree")).includes("compare"));

  // 3. merge call node: the call tree's context menu
  const tree0 = await query(o, "tree");
  const hb = tree0.trees[0].nodes, pathTo = (name) => {
    const path = [];
    for (const n of hb) { path.length = n.depth - 1; path.push(n.name); if (n.name === name) return path.slice(); }
    return null;
  };
  const hpath = pathTo("hash_block");
  check("merge node: a call path to hash_block", !!hpath);
  check("merge node: menu in the call tree", (await menuTree(o, hpath, "merge-node")) === "");
  await shot(o, "3-merge-node");
  r = await agrees(o, "merge node", 3);

  // 4. drop samples with a function: the top table's context menu
  check("drop: menu in the top table", (await menuTop(o, "math_kernel", "ignore")) === "");
  await shot(o, "4-drop");
  r = await agrees(o, "drop math_kernel", 4);
  check("drop: math_kernel's samples are gone (total smaller)", r.mine.total < plainTotal && !treeNames(await query(o, "tree")).includes("math_kernel"));
  // the top table's percentages: of the whole profile's total, as top's
  // text (cum%); with "relative %" of what is left, as top --relative
  for (const rel of [false, true]) {
    if (rel) { await o.page.check("#pk-rel"); await view(o, "top"); }
    const cmd = await o.page.locator("#pk-cmd").textContent();
    check("percentages" + (rel ? " (relative)" : "") + ": the command line " + (rel ? "has" : "has no") + " --relative", / --relative( |$)/.test(cmd) === rel, cmd);
    const pageRows = await o.page.evaluate(() => Array.from(document.querySelectorAll("#pk-top tr[data-func]")).slice(0, 8).map((tr) => {
      const td = tr.querySelectorAll("td");
      return [window.profkit.app.p.funcLabel(+tr.getAttribute("data-func")), parseFloat(td[3].textContent)];
    }));
    const txt = spawnSync("bash", ["-c", cmd + " -q -n 0"], { encoding: "utf8", env: Object.assign({}, process.env, { PATH: BIN + ":" + process.env.PATH }) }).stdout;
    const cliPct = new Map();
    for (const line of txt.split("\n")) {
      const m = /^\s*\S+\s+[\d.]+%\s+[\d.]+%\s+\S+\s+([\d.]+)%\s+(.*)$/.exec(line);
      if (m) cliPct.set(m[2].trim(), parseFloat(m[1]));
    }
    // (the page shows three digits; a name the text marks, "(inline)" say, is left out)
    const found = pageRows.filter(([name]) => cliPct.has(name));
    const bad = found.filter(([name, pc]) => Math.abs(cliPct.get(name) - pc) > Math.max(0.051, pc * 0.005));
    check("percentages" + (rel ? " (relative)" : "") + ": the top table's Total % = the shown command's cum%", found.length >= 5 && bad.length === 0,
          JSON.stringify(bad.slice(0, 3).map(([n, pc]) => [n, pc, cliPct.get(n)])) + " rows " + pageRows.length);
    if (rel) { await shot(o, "4b-relative"); await o.page.uncheck("#pk-rel"); await view(o, "top"); }
  }

  // pop back to the first step (the breadcrumb), then the URL
  await o.page.click('#pk-xf-crumbs .pk-crumb[data-depth="1"]');
  await shot(o, "5-popped");
  r = await agrees(o, "popped to collapse recursion", 1);
  check("popped: compare is back", treeNames(await query(o, "tree")).includes("compare"));

  // 5. focus on function (root-at) by key F, collapse direct recursion by key R
  check("focus function: key F", (await keyFlame(o, "stage_sort", "F")) === "");
  r = await agrees(o, "focus on stage_sort", 2);
  const rootAt = await query(o, "tree");
  check("focus function: every root is stage_sort", rootAt.trees.every((t) => t.nodes.filter((n) => n.depth === 1).every((n) => n.name === "stage_sort")),
        JSON.stringify(rootAt.trees.map((t) => t.nodes.filter((n) => n.depth === 1).map((n) => n.name))));
  await shot(o, "6-root-at");
  await o.page.click('#pk-xf-crumbs .pk-crumb[data-depth="0"]');
  r = await agrees(o, "popped to the complete profile", 0);
  check("collapse direct recursion: key R", (await keyFlame(o, MS, "R")) === "");
  r = await agrees(o, "collapse direct recursion", 1);
  check("collapse direct recursion: merge sort is one frame", maxOnPath(await query(o, "tree"), MS) === 1);
  // 6. focus on subtree: the flame graph's menu, on stage_sort's node
  check("focus subtree: menu", (await menuFlame(o, "stage_sort", "focus-subtree")) === "");
  r = await agrees(o, "focus subtree", 2);
  await view(o, "flame");
  await shot(o, "7-focus-subtree");
  // reload from the URL: the stack is restored
  await o.page.waitForTimeout(400);
  const url = o.page.url();
  check("the URL holds the stack", /[#&]xf=/.test(url), url);
  const before = proj(await query(o, "top"));
  await close(o, "demo");
  o = await open(page, { hash: url.split("#")[1] });
  const st = await state(o);
  check("reload: the stack is restored", st.transforms && st.transforms.length === 2 && st.transforms[1].kind === "focus-subtree", JSON.stringify(st.transforms));
  check("reload: query(top) as before", proj(await query(o, "top")) === before);
  await shot(o, "8-reloaded");
  await close(o, "demo reloaded");

  // ---- --title and a path with a space: the command names the input as given ----
  {
    const spaced = join(TMP, "a run.prof"), titled = join(TMP, "titled.html");
    copyFileSync(DEMO, spaced);
    pk(["flame", "-q", "--min-percent", "0", "--title", "My run", spaced, "-o", titled]);
    o = await open(titled);
    r = await agrees(o, "--title and a spaced path", 0);
    check("--title: the command names the input file, not the title", r.cmd.includes(" '" + spaced + "'"), r.cmd);
    await close(o, "titled");
  }

  // ---- flame given transform flags: the page opens with them (poppable) ----
  const flagged = join(TMP, "flagged.html");
  const flags = ["--collapse-recursion", "^" + MS + "$", "--ignore", "^math_kernel$", "--merge", "^compare$"];
  pk(["flame", "-q", "--min-percent", "0", DEMO, ...flags, "-o", flagged]);
  o = await open(flagged);
  r = await agrees(o, "flame with flags", 3);
  const cliFlags = JSON.parse(pk(["top", "-q", "--json", "-n", "0", DEMO, ...flags]));
  check("flame with flags: query(top) = top with the same flags", proj(r.mine) === proj(cliFlags), proj(r.mine).slice(0, 300) + " vs " + proj(cliFlags).slice(0, 300));
  check("flame with flags: the command line carries them in order", r.cmd.includes("--collapse-recursion '^msort_with_tmp$' --ignore '^math_kernel$' --merge '^compare$'"), r.cmd);
  await view(o, "flame");
  await shot(o, "9-flame-flags");
  await o.page.click('#pk-xf-crumbs .pk-crumb[data-depth="0"]');
  r = await agrees(o, "flame with flags, popped", 0);
  check("flame with flags, popped: the whole profile", r.mine.total === plainTotal);
  await o.page.waitForTimeout(400);
  await o.page.reload();
  await o.page.waitForFunction(() => window.profkitTimings && window.profkitTimings.interactive > 0);
  check("flame with flags, popped and reloaded: stays popped", (await state(o)).transforms.length === 0);
  await close(o, "flame with flags");

  // ---- pprof's name filters as the page's steps: hide, show from, prune from ----
  o = await open(page);
  check("hide: menu", (await menuFlame(o, "compare", "hide")) === "");
  r = await agrees(o, "hide compare", 1);
  check("hide: the command has --hide", r.cmd.includes(" --hide '^compare$'"), r.cmd);
  check("hide: compare is gone, the total kept", !treeNames(await query(o, "tree")).includes("compare") && r.mine.total === plainTotal);
  check("show from: key s", (await keyFlame(o, "stage_sort", "s")) === "");
  r = await agrees(o, "show from stage_sort", 2);
  const sf = await query(o, "tree");
  check("show from: every root is stage_sort", sf.trees.every((t) => t.nodes.filter((n) => n.depth === 1).every((n) => n.name === "stage_sort")));
  check("prune from: menu in the top table", (await menuTop(o, MS, "prune-from")) === "");
  r = await agrees(o, "prune from the merge sort", 3);
  // (the innermost match: a recursion's outer calls keep their inner ones)
  check("prune from: the merge sort calls nothing but itself",
        (await query(o, "tree")).trees.every((t) => t.nodes.every((n, i, a) => n.name !== MS || !a[i + 1] || a[i + 1].depth <= n.depth || a[i + 1].name === MS)));
  check("prune from: the breadcrumb names the three steps", (await o.page.locator("#pk-xf-crumbs .pk-crumb").allTextContents()).join("|") ===
        "Complete profile|Hide: compare|Show from: stage_sort|Prune from: " + MS, (await o.page.locator("#pk-xf-crumbs .pk-crumb").allTextContents()).join("|"));
  await view(o, "flame");
  await shot(o, "13-hide-show-from-prune-from");
  await o.page.click('#pk-xf-crumbs .pk-crumb[data-depth="1"]');
  r = await agrees(o, "popped to hide", 1);
  await close(o, "name filters");
  {
    const nf = join(TMP, "filters.html");
    const fl = ["--hide", "^compare$", "--show-from", "^stage_sort$", "--merge", "^hash_block$", "--prune-from", "^" + MS + "$"];
    pk(["flame", "-q", "--min-percent", "0", DEMO, ...fl, "-o", nf]);
    o = await open(nf);
    r = await agrees(o, "flame with --hide --show-from --prune-from", 4);
    const cliNf = JSON.parse(pk(["top", "-q", "--json", "-n", "0", DEMO, ...fl]));
    check("flame with name filters: query(top) = top with the same flags", proj(r.mine) === proj(cliNf), proj(r.mine).slice(0, 300) + " vs " + proj(cliNf).slice(0, 300));
    check("flame with name filters: the command line carries them", r.cmd.includes("--hide '^compare$' --show-from '^stage_sort$' --prune-from '^msort_with_tmp$' --merge '^hash_block$'"), r.cmd);
    await o.page.click('#pk-xf-crumbs .pk-crumb[data-depth="0"]');
    r = await agrees(o, "flame with name filters, popped", 0);
    check("flame with name filters, popped: the whole profile", r.mine.total === plainTotal);
    await close(o, "flame with name filters");
  }

  // ---- view given transform flags: the page it serves opens with them ----
  {
    const v = spawn(PROFKIT, ["view", "--no-open", "--merge", "^compare$", "--ignore", "^math_kernel$", DEMO], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    v.stdout.on("data", (d) => { out += d; });
    const t0 = Date.now();
    while (!/http:\/\/127\.0\.0\.1:\d+\/\w+\//.test(out) && Date.now() - t0 < 20000) await new Promise((r) => setTimeout(r, 100));
    const addr = (/http:\/\/127\.0\.0\.1:\d+\/\w+\//.exec(out) || [""])[0];
    check("view: serves the page", !!addr, out);
    if (addr) {
      const ctx = await browser.newContext({ viewport: { width: 1400, height: 900 } });
      const pg = await ctx.newPage();
      await pg.goto(addr);
      await pg.waitForFunction(() => window.profkitTimings && window.profkitTimings.interactive > 0, null, { timeout: 30000 });
      const vo = { ctx, page: pg, log: { errors: [], requests: [] } };
      await agrees(vo, "view with flags", 2);
      const cliV = JSON.parse(pk(["top", "-q", "--json", "-n", "0", "--merge", "^compare$", "--ignore", "^math_kernel$", DEMO]));
      check("view with flags: query(top) = top with the same flags", proj(await query(vo, "top")) === proj(cliV));
      await ctx.close();
    }
    v.kill("SIGTERM");
  }

  // ---- a Firefox Profiler profile: collapse a library, focus, drop ----
  const SAMPLY = join(process.env.PROFKIT_SHARED, "fixtures", "firefox", "samply-ls-profile-v41.json");
  const sp = join(TMP, "samply.html");
  pk(["flame", "-q", "--min-percent", "0", SAMPLY, "-o", sp]);
  o = await open(sp);
  await o.page.selectOption("#pk-thread", { label: await o.page.evaluate(() => { const p = window.profkit.app.p; for (let t = 0; t < p.threads.length; t++) if (/ls: GeckoMain/.test(p.threadLabel(t))) return p.threadLabel(t); return p.threadLabel(0); }) });
  r = await agrees(o, "samply: no transform", 0);
  check("samply: the thread is on the command line", / --thread \d/.test(r.cmd), r.cmd);
  // a function of libc (the page's label of the widest one) and of the kernel
  const funcOf = (re) => o.page.evaluate((src) => {
    const a = window.profkit.app, p = a.p, rows = window.profkit.query("top", { limit: 0 }).rows, m = new RegExp(src);
    for (const row of rows) for (let f = 0; f < p.funcName.length; f++) if (p.funcLabel(f) === row.name && m.test(p.funcModuleName(f))) return row.name;
    return null;
  }, re.source);
  const libc = await funcOf(/libc\.so/), kern = await funcOf(/kallsyms/);
  check("samply: functions of libc and the kernel", libc && kern, libc + " " + kern);
  // focus on a category: the kernel frame's, from the flame graph's menu
  check("samply: focus category: menu", (await menuFlame(o, kern, "focus-category")) === "");
  r = await agrees(o, "samply: focus on category Kernel", 1);
  check("samply: focus category: the command has --focus-category Kernel", / --focus-category Kernel( |$)/.test(r.cmd), r.cmd);
  check("samply: focus category: only the kernel's samples are left", r.mine.total > 0 && r.mine.total < 1000, r.mine.total);
  await view(o, "flame");
  await shot(o, "10-samply-focus-category");
  await o.page.click('#pk-xf-crumbs .pk-crumb[data-depth="0"]');
  check("samply: collapse module: menu", (await menuTop(o, libc, "collapse-module")) === "");
  r = await agrees(o, "samply: collapse libc", 1);
  check("samply: libc is one function", r.mine.rows.some((x) => x.name === "libc.so.6") && !r.cli.rows.some((x) => /^libc\.so\.6\+/.test(x.name)));
  await view(o, "flame");
  await shot(o, "11-samply-collapse-module");
  check("samply: collapse the kernel: key C", (await keyFlame(o, kern, "C")) === "");
  r = await agrees(o, "samply: collapse the kernel", 2);
  check("samply: drop [kernel.kallsyms]: menu", (await menuTop(o, "[kernel.kallsyms]", "ignore")) === "");
  r = await agrees(o, "samply: drop the kernel", 3);
  check("samply: focus function: menu", (await menuTop(o, "libc.so.6", "root-at")) === "");
  r = await agrees(o, "samply: focus on libc", 4);
  await view(o, "tree");
  await shot(o, "12-samply-tree");
  // the stack chart draws the transformed stacks: every top box is libc's
  // one frame, no kernel frame and no libc function of its own
  const stackBoxes = async () => { await view(o, "stack"); await o.page.waitForTimeout(150); return o.page.evaluate(() => {
    const a = window.profkit.app, b = a.stack.boxes, tree = a.stack.model.tree, p = a.p, out = [];
    for (let i = 0; i < b.node.length; i++) out.push([Math.round(b.y[i]), p.funcLabel(tree.func[b.node[i]])]);
    return { boxes: out, same: tree === p.stackTree(a.state.thread) };
  }); };
  let sb = await stackBoxes();
  await shot(o, "14-samply-stack-transformed");
  const topY = Math.min(...sb.boxes.map((x) => x[0]));
  check("stack chart: transformed boxes drawn", sb.same && sb.boxes.length > 0, sb.boxes.length);
  check("stack chart: every top box is libc.so.6 (focus on it)", sb.boxes.filter((x) => x[0] === topY).every((x) => x[1] === "libc.so.6"),
        JSON.stringify(sb.boxes.filter((x) => x[0] === topY).slice(0, 5)));
  check("stack chart: no kernel or libc frame of its own", !sb.boxes.some((x) => x[1] === "[kernel.kallsyms]" || /^libc\.so\.6\+/.test(x[1])));
  await o.page.click('#pk-xf-crumbs .pk-crumb[data-depth="0"]');
  sb = await stackBoxes();
  check("stack chart popped: the recorded stacks again", sb.boxes.some((x) => x[0] === topY && x[1] !== "libc.so.6"));
  await close(o, "samply");

  // ---- focus on category on every Firefox fixture with categories: the
  // page's call-node categories (the Firefox Profiler's rule) give top's
  // answer for each thread and category ----
  {
    const FX = join(process.env.PROFKIT_SHARED, "fixtures", "firefox");
    let tried = 0;
    for (const f of ["gecko-2.json", "processed-3.json", "samply-profile_with_js-v66.json"]) {
      const fp = join(TMP, "cat.html");
      try { pk(["flame", "-q", "--min-percent", "0", join(FX, f), "-o", fp]); } catch (e) { continue; }
      o = await open(fp);
      const info = await o.page.evaluate(() => {
        const a = window.profkit.app, p = a.p, C = p.data.categories;
        return C ? { names: C.names, threads: p.threads.map((t, i) => [i, p.threadIndex(i), !!t.merged]) } : null;
      });
      if (info) for (const [t, ti, merged] of info.threads) {
        for (const name of info.names) {
          const got = await o.page.evaluate(([t, name]) => {
            const a = window.profkit.app, PK = window.profkit;
            a.change({ thread: t, xf: PK.encodeSteps([{ kind: "focus-category", arg: name }]), zoom: [] }, "transform");
            return PK.query("top", { limit: 0 });
          }, [t, name]);
          const args = ["top", "-q", "--json", "-n", "0", "--focus-category", name, join(FX, f)];
          if (!merged) args.push("--thread", String(ti));
          const cli = JSON.parse(pk(args));
          tried++;
          check(f + " thread " + (merged ? "all" : ti) + ": focus category " + name + ": query(top) = top", proj(got) === proj(cli),
                proj(got).slice(0, 300) + " vs " + proj(cli).slice(0, 300));
        }
      }
      await close(o, f);
    }
    check("focus category: fixtures with categories tried", tried >= 6, tried);
  }

  // ---- a call node's category, the Firefox Profiler's rule: the category
  // of the stacks reaching it, the default one where they disagree. A Gecko
  // profile made here: main (Other) > work > leaf, work and leaf of sample
  // i JavaScript for even i, Layout for odd i (leafA and leafB) ----
  {
    const CATS = [{ name: "Other", color: "grey", subcategories: ["Other"] }, { name: "JavaScript", color: "yellow", subcategories: ["Other"] },
                  { name: "Layout", color: "purple", subcategories: ["Other"] }];
    const frames = [[0, false, null, null, null, null, 0, 0], [1, false, null, null, null, null, 1, 0], [2, false, null, null, null, null, 1, 0],
                    [1, false, null, null, null, null, 2, 0], [3, false, null, null, null, null, 2, 0]];
    const stacks = [[null, 0], [0, 1], [1, 2], [0, 3], [3, 4]];
    const samples = [];
    for (let i = 0; i < 40; i++) samples.push([i % 2 ? 4 : 2, 10 + i, 0]);
    const prof = { meta: { version: 36, startTime: 1700000000000.0, interval: 1, product: "Firefox", categories: CATS },
      threads: [{ name: "Mixed", processType: "default", processName: "App", pid: "10", tid: 11,
        samples: { schema: { stack: 0, time: 1, eventDelay: 2 }, data: samples },
        markers: { schema: { name: 0, startTime: 1, endTime: 2, phase: 3, category: 4, data: 5 }, data: [] },
        stackTable: { schema: { prefix: 0, frame: 1 }, data: stacks },
        frameTable: { schema: { location: 0, relevantForJS: 1, innerWindowID: 2, implementation: 3, line: 4, column: 5, category: 6, subcategory: 7 }, data: frames },
        stringTable: ["main", "work", "leafA", "leafB"] }] };
    const gp = join(TMP, "mixed.json"), gh = join(TMP, "mixed.html");
    writeFileSync(gp, JSON.stringify(prof));
    pk(["flame", "-q", "--min-percent", "0", gp, "-o", gh]);
    o = await open(gh);
    const cats = await o.page.evaluate(() => {
      const a = window.profkit.app, p = a.p, PK = window.profkit, C = p.data.categories;
      let t = 0;
      for (let i = 0; i < p.threads.length; i++) if (!p.threads[i].merged) t = i;
      const tree = p.tree(t), nc = p.nodeCategories(tree), tl = p.timeline(t), out = {};
      for (const path of [["main"], ["main", "work"], ["main", "work", "leafA"], ["main", "work", "leafB"]]) {
        const n = PK.findPath(p, tree, path);
        out[path.join(";")] = [C.names[nc[n] - 1], tl.nodeCategory ? tl.nodeCategory[n] : -1, nc[n]];
      }
      return out;
    });
    check("call-node category: main is Other", cats["main"][0] === "Other", JSON.stringify(cats));
    check("call-node category: work (JavaScript and Layout stacks) is the default, Other", cats["main;work"][0] === "Other", JSON.stringify(cats));
    check("call-node category: leafA is JavaScript, leafB Layout", cats["main;work;leafA"][0] === "JavaScript" && cats["main;work;leafB"][0] === "Layout", JSON.stringify(cats));
    check("call-node category: the data's node_category gives them", Object.values(cats).every((x) => x[1] === x[2]), JSON.stringify(cats));
    await close(o, "mixed categories");
  }

  // the page's size: the untransformed data and the stack
  const s1 = statSync(page).size, s2 = statSync(flagged).size;
  check("the page with a stack is the page without it and a few bytes", s2 - s1 < 400 && s2 > s1, s1 + " vs " + s2);
} catch (e) {
  counts.failed++;
  console.log("FAIL: " + (e && e.stack || e));
} finally {
  await browser.close();
  rmSync(TMP, { recursive: true, force: true });
}
console.log(`transforms browser: ${counts.passed} passed, ${counts.failed} failed`);
process.exit(counts.failed ? 1 : 0);
