// The viewer page in a real browser (Debian chromium through
// playwright-core), used the way a person uses it: load from file://,
// click, hover, type, press keys, read back what the page shows, and save a
// screenshot of every state under $PROFKIT_BUILD/screenshots/.
//
// Pages come from `profkit flame IN -o OUT.html` when this profkit has
// that command, else from tests/js/make_page.mjs (the same template and
// files, data from profkit's speedscope output). Both are real pages.
//
// Environment: PROFKIT, PROFKIT_SRC, PROFKIT_SHARED, PROFKIT_BUILD, PROFKIT_TOOLS.
import { execFileSync } from "node:child_process";
import { writeFileSync, readFileSync, existsSync, rmSync } from "node:fs";
import { join, basename } from "node:path";
import { assemble, makeData, makeDiff } from "./make_page.mjs";
import { PROFKIT, SRC, shotsDir, launch, closePage, openPage, scratch, pk, check, counts } from "./lib.mjs";

const FIX = join(process.env.PROFKIT_SHARED, "fixtures");
const SHOTS = shotsDir();
const TMP = scratch("viewer");
counts.limit = Infinity;

// Where pages come from (see the header).
let flameHelp = null;
try { flameHelp = pk(["flame", "--help"]); } catch (e) { flameHelp = null; }
const diffFlag = flameHelp && (/--base(?![-\w])/.test(flameHelp) ? "--base" : /--diff\b/.test(flameHelp) ? "--diff" : null);
console.log("pages from: " + (flameHelp ? "profkit flame" : "tests/js/make_page.mjs (profkit has no flame command)"));
function makePage(files, name, opts = {}) {
  const out = join(TMP, name + ".html");
  if (opts.diff) {
    if (diffFlag === "--base") pk(["flame", "-q", "--base", files[0], files[1], "-o", out]);
    else if (diffFlag) pk(["flame", "-q", "--diff", files[0], files[1], "-o", out]);
    else writeFileSync(out, assemble(JSON.stringify(makeDiff(PROFKIT, files[0], files[1]))));
  } else if (flameHelp) pk(["flame", "-q", ...files, "-o", out]);  // files may hold --format NAME
  else writeFileSync(out, assemble(JSON.stringify(makeData(PROFKIT, files))));
  return out;
}

const browser = await launch();  // launch() gives chromium a new empty user-data-dir of its own

// Opens a page; collects console errors, page errors and requests.
const open = (file, { invertBudget, ...o } = {}) => openPage(browser, file, {
  height: 860, ...o,
  init: invertBudget === undefined ? undefined : (page) => page.addInitScript((b) => {
    window.profkitInvertBudget = b;
    // The note of a partial inverted tree, seen however briefly.
    new MutationObserver(() => { const n = document.querySelector(".pk-busy"); if (n) window.profkitBusySeen = n.textContent; })
      .observe(document, { subtree: true, childList: true });
  }, invertBudget),
});
const close = closePage;
const shot = (o, name) => o.page.screenshot({ path: join(SHOTS, name + ".png"), fullPage: true });
const state = (o) => o.page.evaluate(() => window.profkitState);
const crumbs = (o) => o.page.$$eval("#pk-crumbs .pk-crumb", (bs) => bs.map((b) => b.textContent));
const hoverText = (o) => o.page.$eval("#pk-hover", (h) => (h.hidden ? "" : h.innerText));
const nextFrame = (o) => o.page.evaluate(() => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0))));
// Scrolls a virtual table's host until the row of function `name` is in the DOM.
async function scrollToRow(o, host, name) {
  const sel = `${host} tr[data-func]:has(.fn:text-is("${name}"))`;
  if (!(await o.page.$(sel))) { await o.page.$eval(host, (h) => { h.scrollTop = 0; }); await nextFrame(o); }
  for (let k = 0; k < 200 && !(await o.page.$(sel)); k++) {
    const end = await o.page.$eval(host, (h) => { const at = h.scrollTop; h.scrollTop += h.clientHeight / 2; return h.scrollTop === at; });
    await nextFrame(o);
    if (end && !(await o.page.$(sel))) break;
  }
  // In the middle of the view and settled, so that the click's own scroll
  // into view does not move the virtual rows under the pointer.
  if (await o.page.$(sel)) {
    await o.page.$eval(sel, (r) => r.scrollIntoView({ block: "center" }));
    await nextFrame(o);
    await nextFrame(o);
  }
  return sel;
}

// The centre of a node's frame (by its path of names) on a canvas, in page coordinates.
async function frameAt(o, names, canvas = "flame") {
  return o.page.evaluate(([names, canvas]) => {
    const app = window.profkit.app, PK = window.profkit;
    const view = app[canvas], tree = view.model.tree;
    const n = canvas === "flame" ? PK.findPath(app.p, tree, names) : PK.findPath(app.p, tree, names);
    const b = view.boxOf(n);
    if (!b) return null;
    const r = view.canvas.getBoundingClientRect();
    return { x: r.left + b.x + Math.min(b.w / 2, 40), y: r.top + b.y + b.h / 2, node: n };
  }, [names, canvas]);
}

// profkit's own numbers: "1.35ms", "550us", "1.33kB", "152364" in the unit's base.
function parseAmount(s, unit) {
  const m = /^(-?[\d.]+)(ns|us|µs|ms|s|B|kB|MB|GB)?$/.exec(s);
  if (!m) return NaN;
  const x = +m[1], u = m[2] || "";
  const ns = { ns: 1, us: 1e3, "µs": 1e3, ms: 1e6, s: 1e9 };
  if (u in ns) return x * ns[u] / ({ nanoseconds: 1, microseconds: 1e3, milliseconds: 1e6, seconds: 1e9 }[unit] || 1);
  return x * ({ B: 1, kB: 1024, MB: 1048576, GB: 1073741824, "": 1 }[u]);  // profkit: kB = 1024 bytes
}
// `profkit tree` as nodes {name, depth, total, parent}.
function profkitTree(args) {
  const nodes = [], stack = [];
  for (const line of pk(["tree", "-q", ...args]).split("\n")) {
    const m = /^\s*(\S+)\s+\S+\s+\S+\s+\S+  ( *)(\S.*)$/.exec(line);
    if (!m || m[1] === "total") { if (/^Thread/.test(line)) stack.length = 0; continue; }
    const depth = m[2].length / 2, n = { name: m[3], depth, total: m[1], parent: null };
    stack.length = depth;
    n.parent = depth ? stack[depth - 1] : null;
    stack.push(n);
    nodes.push(n);
  }
  return nodes;
}

// ---- 1. Every input format: the page loads, shows the right total, asks for nothing.
const inputs = [];
for (const dir of ["br", "bsprof", "dcpi", "firefox", "folded", "gecko", "gperftools", "pprof"]) {
  // As cli/bad_files reads them: with --format (an empty pprof profile has nothing to detect).
  for (const f of execFileSync("bash", ["-c", `ls "${SRC}/tests/data/${dir}"/ok_* 2>/dev/null || true`], { encoding: "utf8" }).split("\n").filter(Boolean))
    inputs.push([f, "--format", dir]);
}
for (const f of ["gperftools-real/real1.prof", "gperftools-real/gzip.prof", "pprof/cppbench.pb.gz", "pprof/gobench.cpu",
                 "firefox/gecko-2.json", "firefox/processed-3.json", "firefox/samply-ls-profile-v41.json",
                 "firefox/unsymbolicated-v49.json.gz", "folded/perf-flamegraph.txt"])
  if (existsSync(join(FIX, f))) inputs.push([join(FIX, f)]);
for (const args of inputs) {
  const f = args[0], name = basename(f).replace(/[^A-Za-z0-9_.-]/g, "_");
  let file;
  try { file = makePage(args, "load_" + name); } catch (e) {
    // profkit flame refuses a profile with no value types, with a message;
    // anything else that fails to make a page is a failure.
    const msg = String(e.stderr || e.message);
    const empty = /value types:\s+0\b/.test(pk(["info", "-q", ...args]));
    check(name + ": page made" + (empty ? " (or refused with a message: no value types)" : ""), empty && /no value types/.test(msg), msg.slice(0, 300));
    continue;
  }
  const o = await open(file);
  const st = (await state(o)) || {};
  // The default value type's total, as `profkit info` prints it.
  const info = pk(["info", "-q", ...args]), dm = /^\s+(\S+)\s+(\S+)\s+total (\d+) .*\[default\]/m.exec(info);
  if (dm) check(name + ": total of " + dm[1] + " is profkit info's", st.value === dm[1] && st.total === +dm[3], `page ${st.value} ${st.total}, info ${dm[1]} ${dm[3]}`);
  check(name + ": the flame graph draws frames", st.total === 0 || st.drawn > 1, "drawn " + st.drawn);
  await shot(o, "load_" + name);
  await close(o, name);
}

// ---- 2. The flame graph: zoom by click, breadcrumb, hover, search against profkit top.
const FOLDED = join(FIX, "folded", "perf-flamegraph.txt");
if (existsSync(FOLDED)) {
  const file = makePage([FOLDED], "folded");
  const o = await open(file);
  await shot(o, "flame_initial");
  const tree = profkitTree([FOLDED]);
  // What the data merged into "(other)" nodes (profkit flame merges frames
  // narrower than --min-percent; the assembler's data merges nothing): the
  // comparisons with profkit's own numbers allow that much, and no more.
  const slack = await o.page.evaluate(() => {
    const t = window.profkit.app.p.tree(0), tot = t.total(window.profkit.app.v());
    let s = 0; for (let i = 1; i < t.n; i++) if (t.func[i] === -2) s += tot[i];
    return s;
  });
  const near = (got, want) => Math.abs(got - want) <= slack;
  // A frame three deep on the widest path.
  let target = tree[0];
  while (target && target.depth < 2) target = tree.find((n) => n.parent === target);
  const path = []; for (let n = target; n; n = n.parent) path.unshift(n.name);
  const at = await frameAt(o, path);
  check("zoom target is drawn", !!at);
  await o.page.mouse.move(at.x, at.y);
  const hov = await hoverText(o);
  check("hover names the frame", hov.startsWith(target.name), hov);
  check("hover shows the total with % of all", hov.replace(/,/g, "").includes(target.total) && /% of all/.test(hov), hov);
  await shot(o, "flame_hover");
  await o.page.mouse.click(at.x, at.y);
  let st = await state(o);
  check("click zooms to the frame", JSON.stringify(st.zoom) === JSON.stringify(path), JSON.stringify(st.zoom));
  check("zoomed total is profkit tree's", String(st.zoomTotal) === target.total, st.zoomTotal + " vs " + target.total);
  const cr = await crumbs(o);
  check("breadcrumb shows the zoom path", JSON.stringify(cr) === JSON.stringify(["All threads", ...path]), JSON.stringify(cr));
  await shot(o, "flame_zoomed");
  // Hover inside the zoom: % of the zoomed frame too.
  const child = tree.find((n) => n.parent === target);
  if (child) {
    const c = await frameAt(o, [...path, child.name]);
    await o.page.mouse.move(c.x, c.y);
    const h2 = await hoverText(o);
    const pctZoom = (100 * +child.total / +target.total);
    const want = (pctZoom >= 10 ? pctZoom.toFixed(1) : pctZoom.toFixed(2)) + "% of " + target.name;
    check("hover in a zoom shows % of the zoomed frame", h2.includes(want), h2 + " / want " + want);
  }
  // Breadcrumb click goes back up; Escape resets.
  await o.page.click("#pk-crumbs .pk-crumb >> nth=1");
  st = await state(o);
  check("breadcrumb click zooms out to that frame", st.zoom.length === 1 && st.zoom[0] === path[0], JSON.stringify(st.zoom));
  await o.page.keyboard.press("Escape");
  st = await state(o);
  check("Escape resets the zoom", st.zoom.length === 0 && st.zoomNode === 0);
  // Search: a function in the middle of stacks, against profkit top's cum.
  const top = pk(["top", "-q", "--cum", "-n", "0", FOLDED]).split("\n");
  let fn = null;
  for (const l of top) {
    const m = /^\s*(\d+)\s+\S+\s+\S+\s+(\d+)\s+([\d.]+)%\s+(.*)$/.exec(l);
    if (m && +m[3] > 5 && +m[3] < 60 && +m[1] === 0 && /^[\w:$]+$/.test(m[4])) { fn = { name: m[4], cum: +m[2], pct: +m[3] }; break; }
  }
  check("a function to search for", !!fn);
  if (fn) {
    const re = "^" + fn.name.replace(/[$]/g, "\\$") + "$";
    await o.page.fill("#pk-search", re);
    st = await state(o);
    check("search matches profkit top's cum for " + fn.name, near(st.matchValue, fn.cum), st.matchValue + " vs " + fn.cum);
    const shown = await o.page.textContent("#pk-match");
    const pct = (100 * fn.cum / st.total);
    check("search shows the matched percentage", shown.includes((pct >= 10 ? pct.toFixed(1) : pct.toFixed(2)) + "%") && Math.abs(pct - fn.pct) < 0.01, shown + " vs top " + fn.pct);
    await shot(o, "flame_search");
    await o.page.press("#pk-search", "Enter");
    st = await state(o);
    check("next match zooms to a match", st.zoom[st.zoom.length - 1] === fn.name, JSON.stringify(st.zoom));
    const first = JSON.stringify(st.zoom);
    await o.page.click("#pk-next");
    st = await state(o);
    if (st.matchCount > 1) check("next goes to another match", JSON.stringify(st.zoom) !== first && st.zoom[st.zoom.length - 1] === fn.name, JSON.stringify(st.zoom));
    await o.page.click("#pk-prev");
    st = await state(o);
    check("previous comes back", JSON.stringify(st.zoom) === first, JSON.stringify(st.zoom));
    await shot(o, "flame_search_next");
    // The URL holds the view: reload it elsewhere and get the same view.
    await nextFrame(o);     // the URL is written after the frame
    const hash = await o.page.evaluate(() => location.hash.slice(1));
    const before = await state(o), crBefore = await crumbs(o);
    const o2 = await open(file, { hash });
    const after = await state(o2);
    for (const k of ["view", "thread", "value", "search", "zoomNode", "matchValue"])
      check("URL round trip keeps " + k, JSON.stringify(after[k]) === JSON.stringify(before[k]), JSON.stringify([before[k], after[k]]));
    check("URL round trip keeps the breadcrumb", JSON.stringify(await crumbs(o2)) === JSON.stringify(crBefore));
    check("search box shows the search again", (await o2.page.inputValue("#pk-search")) === fn.name.replace(/[$]/g, "\\$").replace(/^/, "^") + "$");
    await shot(o2, "url_roundtrip");
    await close(o2, "url round trip");
  }
  await o.page.fill("#pk-search", "");
  // Text never overflows a frame: every label drawn fits its frame, in this browser's font.
  const overflow = await o.page.evaluate(() => {
    const v = window.profkit.app.flame, b = v.boxes, ctx = v.ctx, p = window.profkit.app.p, bad = [];
    let labelled = 0;
    for (let i = 0; i < b.node.length; i++) {
      if (b.w[i] <= 12) continue;
      const text = v.label(ctx, b.node[i] === 0 ? "All threads" : p.funcLabel(v.model.tree.func[b.node[i]]), b.w[i] - 6);
      if (text) labelled++;
      if (text && ctx.measureText(text).width > b.w[i] - 6) bad.push(text + " in " + b.w[i].toFixed(1) + "px");
    }
    return { labelled, bad };
  });
  check("labels fit their frames", overflow.labelled > 20 && overflow.bad.length === 0, JSON.stringify(overflow).slice(0, 300));
  // Icicle, inverted.
  await o.page.check("#pk-icicle");
  await shot(o, "flame_icicle");
  await o.page.check("#pk-inverted");
  st = await state(o);
  const leafTop = top.map((l) => /^\s*(\d+)\s+\S+\s+\S+\s+(\d+)\s+\S+\s+(.*)$/.exec(l)).filter(Boolean).sort((a, b) => b[1] - a[1])[0];
  const roots = await o.page.evaluate(() => {
    const app = window.profkit.app, t = app.currentTree(), o = t.order("width", app.v(), app.p.nameOf, "");
    const out = [];
    for (let j = t.kidStart[0]; j < t.kidStart[1]; j++) out.push({ name: app.p.funcLabel(t.func[o[j]]), total: t.total(app.v())[o[j]] });
    return out;
  });
  const want = roots.find((r) => r.name === leafTop[3]);
  check("inverted: the widest root is top's largest flat", want && near(want.total, +leafTop[1]) && (slack > 0 || roots[0] === want),
        JSON.stringify(roots.slice(0, 2)) + " vs " + leafTop[3] + " " + leafTop[1]);
  await shot(o, "flame_inverted");
  // The inverted view opened before its tree is built, with no time to
  // build any of it (budget 0, no idle preparation): the first draw shows
  // what is built, with the whole total and a note, the URL's zoom path is
  // kept, and the tree follows in slices, the same as built at once.
  const invPath = await o.page.evaluate(() => {
    const app = window.profkit.app, t = app.currentTree(), o = t.order("width", app.v(), app.p.nameOf, "");
    let n = 0; const names = [];
    for (let d = 0; d < 2 && t.kidStart[n + 1] > t.kidStart[n]; d++) { n = o[t.kidStart[n]]; names.push(app.p.funcLabel(t.func[n])); }
    return { names, node: n, total: t.total(app.v())[n], nodes: t.n };
  });
  const hashInv = await o.page.evaluate((z) => window.profkit.encodeState(Object.assign({}, window.profkit.app.state, { zoom: z })), invPath.names);
  const o4 = await open(file, { hash: hashInv, noIdle: true, invertBudget: 0 });
  await o4.page.waitForFunction(() => window.profkitState.partial === false, null, { timeout: 20000 }).catch(() => {});
  const draws = await o4.page.evaluate(() => window.profkitTimings.actions.map((a) => [a.action, a.partial, a.nodes, a.total]));
  check("inverted before its tree: the first draw is partial, the whole total", draws[0][1] === true && draws[0][2] < invPath.nodes && near(draws[0][3], st.total),
        JSON.stringify([draws[0], invPath.nodes, st.total]));
  check("inverted before its tree: drawn again once built", draws.some((d) => d[0] === "inverted built" && d[1] === false), JSON.stringify(draws));
  const busy = await o4.page.evaluate(() => window.profkitBusySeen || "");
  check("inverted before its tree: a note says the callers follow", /Building the inverted tree/.test(busy), busy);
  const late = await state(o4);
  check("inverted before its tree: then the whole tree, zoomed as the URL says",
        late.partial === false && late.nodes === invPath.nodes && near(late.zoomTotal, invPath.total) && late.drawn > 1 && JSON.stringify(late.zoom) === JSON.stringify(invPath.names),
        JSON.stringify([late.partial, late.nodes, invPath.nodes, late.zoomTotal, invPath.total, late.zoom]));
  check("inverted before its tree: the note is gone", !/Building the inverted tree/.test(await o4.page.textContent("#pk-crumbs")));
  await shot(o4, "flame_inverted_built_later");
  await close(o4, "inverted before its tree");
  await o.page.uncheck("#pk-inverted");
  await o.page.uncheck("#pk-icicle");

  // ---- 3. Call tree table: keyboard navigation.
  await o.page.click('button[data-view="tree"]');
  await o.page.focus("#pk-tree");
  const selRow = () => o.page.$eval("#pk-tree tr.sel", (r) => ({ name: r.querySelector(".fn").textContent, level: +r.getAttribute("aria-level"), exp: r.getAttribute("aria-expanded") }));
  await o.page.keyboard.press("ArrowDown");
  let row = await selRow();
  check("ArrowDown selects the root's widest child", row.name === tree[0].name && row.level === 2, JSON.stringify(row));
  await o.page.keyboard.press("ArrowLeft");   // expanded: collapses
  row = await selRow();
  check("ArrowLeft collapses", row.exp === "false", JSON.stringify(row));
  await o.page.keyboard.press("ArrowRight");  // expands
  await o.page.keyboard.press("ArrowRight");  // to the first child
  row = await selRow();
  const kid = tree.filter((n) => n.parent === tree[0]).sort((a, b) => b.total - a.total)[0];
  check("ArrowRight expands then goes to the widest child", row.name === kid.name && row.level === 3, JSON.stringify(row) + " vs " + kid.name);
  if (row.exp === "true") await o.page.keyboard.press("ArrowLeft");  // an open row closes first
  await o.page.keyboard.press("ArrowLeft");   // to the parent
  row = await selRow();
  check("ArrowLeft goes to the parent", row.name === tree[0].name, JSON.stringify(row));
  const rows = await o.page.$$eval("#pk-tree tbody tr", (rs) => rs.slice(0, 3).map((r) => [...r.children].map((c) => c.textContent)));
  check("call tree rows show total and percentage", rows[0][0].endsWith("All threads") && rows[1][0].endsWith(tree[0].name) &&
        rows[1][1].replace(/,/g, "") === tree[0].total && rows[1][2] === "100.0%", JSON.stringify(rows));
  const kidPct = (100 * kid.total / tree[0].total);
  check("call tree child row: total and % of all", rows[2][0].endsWith(kid.name) && rows[2][1].replace(/,/g, "") === kid.total &&
        rows[2][2] === (kidPct >= 10 ? kidPct.toFixed(1) : kidPct.toFixed(2)) + "%", JSON.stringify(rows[2]));
  await o.page.click('#pk-tree th[data-sort="name"]');
  await shot(o, "tree_keyboard");
  await o.page.keyboard.press("Enter");
  st = await state(o);
  check("Enter opens the row in the flame graph", st.view === "flame" && st.zoom[0] === tree[0].name, JSON.stringify(st.zoom));

  // ---- 4. Top functions and sandwich: callers against profkit tree.
  // A function called from at least two places.
  const callers = new Map();
  for (const n of tree) {
    let anc = n.parent, rec = false;
    while (anc) { if (anc.name === n.name) rec = true; anc = anc.parent; }
    if (rec || !n.parent) continue;
    if (!callers.has(n.name)) callers.set(n.name, new Map());
    const m = callers.get(n.name);
    m.set(n.parent.name, (m.get(n.parent.name) || 0) + +n.total);
  }
  const [swName, swCallers] = [...callers].filter(([, m]) => m.size >= 2).sort((a, b) => b[1].size - a[1].size)[0];
  await o.page.click('button[data-view="top"]');
  // The table has a row per function; only those in view are in the DOM.
  const topRows = await o.page.$eval("#pk-top table", (t) => +t.getAttribute("data-rows"));
  const inDom = await o.page.$$eval("#pk-top tbody tr[data-func]", (rs) => rs.length);
  const nTop = +/of (\d+) functions/.exec(top.join("\n"))[1];
  check("top functions table lists every function", slack ? topRows > 0 && topRows <= nTop + 1 : topRows === nTop, topRows + " vs " + nTop);
  check("top functions table puts only the rows in view in the page", inDom > 10 && inDom <= topRows && (topRows < 150 || inDom < topRows), inDom + " of " + topRows);
  await shot(o, "top");
  // Scrolled to the end, the last function is there.
  const lastName = await o.page.evaluate(() => { const t = window.profkit.app.topTable; return t.model.profile.funcLabel(t.rowsAll[t.rowsAll.length - 1].func); });
  const lastSel = await scrollToRow(o, "#pk-top", lastName);
  check("top functions table: scrolling brings the last row", !!(await o.page.$(lastSel)), lastName);
  await shot(o, "top_scrolled");
  await o.page.dblclick(await scrollToRow(o, "#pk-top", swName));
  st = await state(o);
  check("double click in top opens the sandwich", st.view === "sandwich" && st.func === swName, st.view + " " + st.func);
  const got = new Map(st.sandwich.callers.map((c) => [c.name, c.total]));
  check("sandwich callers are profkit tree's callers of " + swName, (slack || got.size === swCallers.size) && [...swCallers].every(([k, v]) => near(got.get(k) || 0, v)),
        JSON.stringify([...got]) + " vs " + JSON.stringify([...swCallers]));
  const swTitle = await o.page.textContent("#pk-sw-title");
  check("sandwich title names the function", swTitle.startsWith(swName), swTitle);
  await shot(o, "sandwich");
  // Selecting in the top table highlights it in the flame graph.
  await o.page.click(await scrollToRow(o, "#pk-sandwich .pk-sw-list", tree[1].name));
  st = await state(o);
  check("a click in the top table selects the function everywhere", st.func === tree[1].name, st.func);
  await o.page.click('button[data-view="flame"]');
  await shot(o, "flame_selected");
  await close(o, "folded");

  // A high-density screen: the canvas has device pixels, the frames stay put.
  {
    const ctx2 = await browser.newContext({ viewport: { width: 1000, height: 700 }, deviceScaleFactor: 2 });
    const pg = await ctx2.newPage();
    await pg.goto("file://" + file);
    await pg.waitForFunction(() => window.profkitTimings && window.profkitTimings.interactive > 0);
    const dims = await pg.evaluate(() => { const c = document.getElementById("pk-flame-canvas"); return [c.width, c.height, c.clientWidth, c.clientHeight]; });
    check("devicePixelRatio 2: the canvas has twice the CSS pixels", dims[0] === 2 * dims[2] && dims[1] === 2 * dims[3] && dims[2] > 0, JSON.stringify(dims));
    await pg.screenshot({ path: join(SHOTS, "flame_dpr2.png") });
    await ctx2.close();
  }
  // Dark scheme: the same page, readable.
  const d = await open(file, { scheme: "dark", hash: "zoom=" + encodeURIComponent(path.slice(0, 2).join(";")) });
  const bg = await d.page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  check("dark scheme: dark background", /rgb\((\d+), (\d+), (\d+)\)/.exec(bg) && +/rgb\((\d+)/.exec(bg)[1] < 60, bg);
  await shot(d, "flame_dark");
  await d.page.click('button[data-view="tree"]');
  await shot(d, "tree_dark");
  await close(d, "dark");

  // ---- 5. Diff: NEW is the folded fixture with its largest stack doubled and
  // its smallest removed; colours and hover against the changes.
  const lines = readFileSync(FOLDED, "utf8").split("\n").filter(Boolean);
  const counts = lines.map((l) => +l.slice(l.lastIndexOf(" ") + 1));
  const big = counts.indexOf(Math.max(...counts));
  const newLines = lines.map((l, i) => (i === big ? l.slice(0, l.lastIndexOf(" ")) + " " + counts[i] * 2 : l));
  const newFile = join(TMP, "new.folded");
  writeFileSync(newFile, newLines.join("\n") + "\n");
  const df = makePage([FOLDED, newFile], "diff", { diff: true });
  const od = await open(df);
  st = await state(od);
  check("diff: total is NEW's", st.total === counts.reduce((a, b) => a + b, 0) + counts[big], st.total);
  const bigPath = lines[big].slice(0, lines[big].lastIndexOf(" ")).split(";");
  const leaf = await frameAt(od, bigPath);
  check("diff: the grown stack's leaf is drawn", !!leaf);
  if (leaf) {
    await od.page.mouse.move(leaf.x, leaf.y);
    const h = await hoverText(od);
    check("diff hover: base, new and change", h.includes("Base") && h.includes(PKfmt(counts[big])) && h.includes("+" + PKfmt(counts[big])), h);
    const px = await od.page.evaluate(([x, y]) => {
      const c = window.profkit.app.flame.canvas, r = c.getBoundingClientRect(), dpr = window.devicePixelRatio || 1;
      return Array.from(c.getContext("2d").getImageData(Math.round((x - r.left) * dpr), Math.round((y - r.top - 5) * dpr), 1, 1).data);
    }, [leaf.x, leaf.y]);
    check("diff: growth is red", px[0] > px[2] + 40, JSON.stringify(px));
    await shot(od, "diff");
    // An unchanged frame is neutral grey.
    const other = lines.findIndex((l, i) => i !== big && !lines[big].startsWith(l.slice(0, l.indexOf(";"))));
    await od.page.selectOption("#pk-diff", "base");
    st = await state(od);
    check("diff: base profile alone", st.total === counts.reduce((a, b) => a + b, 0), st.total);
    await shot(od, "diff_base");
    await od.page.selectOption("#pk-diff", "new");
    st = await state(od);
    check("diff: new profile alone", st.total === counts.reduce((a, b) => a + b, 0) + counts[big]);
  }
  await close(od, "diff");
}
function PKfmt(x) { return String(x).replace(/\B(?=(\d{3})+(?!\d))/g, ","); }

// ---- 6. Threads and values (bsprof: calls, memory), stack chart (gecko).
const BS = join(SRC, "tests", "data", "bsprof", "ok_lines.bsprof");
{
  const file = makePage([BS], "bsprof");
  const o = await open(file);
  const tops = (args) => { const m = /total ([^,\s]+)/.exec(pk(["top", "-q", ...args, BS]).split("\n")[0]); return m[1]; };
  // profkit's thread 1 (TaskNode), picked by its label as a person would.
  const opt = await o.page.$$eval("#pk-thread option", (os) => (os.find((x) => /TaskNode/.test(x.textContent)) || {}).value);
  check("a TaskNode entry in the thread selector", opt !== undefined);
  await o.page.selectOption("#pk-thread", opt || "1");
  let st = await state(o);
  const want = parseAmount(tops(["--thread", "1"]), "microseconds");
  check("thread switch: total is profkit top's for thread 1", Math.abs(st.total - want) <= want * 0.01, st.total + " vs " + want);
  check("thread switch shows in the breadcrumb", (await crumbs(o))[0].startsWith("TaskNode"), JSON.stringify(await crumbs(o)));
  await shot(o, "bsprof_thread");
  await o.page.selectOption("#pk-value", "wall");
  st = await state(o);
  const wantWall = parseAmount(tops(["--thread", "1", "--value", "wall"]), "microseconds");
  check("value switch: wall total is profkit top's", st.value === "wall" && Math.abs(st.total - wantWall) <= wantWall * 0.01, st.total + " vs " + wantWall);
  await o.page.selectOption("#pk-thread", "0");
  await o.page.selectOption("#pk-value", "cpu");
  const at = await frameAt(o, ["main"]);
  await o.page.mouse.move(at.x, at.y);
  const h = await hoverText(o);
  // profkit top's calls and avg/call for main (called once, from the root).
  const mainRow = pk(["top", "-q", BS]).split("\n").find((l) => / main$/.test(l)).trim().split(/\s+/);
  const perCall = parseAmount(mainRow[6], "microseconds");
  const hm = /Calls\s*(\d+) — ([\d.]+) (µs|ms) per call/.exec(h);
  check("bsprof hover: calls and time per call as profkit top's", hm && +hm[1] === +mainRow[5] &&
        Math.abs(+hm[2] * (hm[3] === "ms" ? 1000 : 1) - perCall) <= perCall * 0.01, h + " vs " + mainRow.join(" "));
  check("hover shows the file:line", /\.brs:\d+|\.brs/.test(h) || /:\d+/.test(h), h);
  await shot(o, "bsprof_hover");
  // Memory view: in-use bytes by allocating path, largest first.
  await o.page.click('button[data-view="memory"]');
  const memRows = await o.page.$$eval("#pk-memory tbody tr", (rs) => rs.map((r) => [...r.children].map((c) => c.textContent)));
  const inuse = +/^\s+inuse_space\s+bytes\s+total (\d+)/m.exec(pk(["info", "-q", BS]))[1];
  const live = /Live:\s+\d+ objects, (\S+)/.exec(pk(["mem", "-q", BS]))[1];
  const rootB = await o.page.evaluate(() => window.profkitState.total);
  check("memory view: in-use total is profkit info's inuse_space", rootB === inuse, rootB + " vs " + inuse);
  check("memory view: in-use total is profkit mem's live bytes", Math.abs(rootB - parseAmount(live, "bytes")) <= inuse * 0.01, rootB + " vs " + live);
  check("memory view: rows sorted by in-use bytes, with alloc columns", memRows.length > 2 && memRows[0].length >= 6, JSON.stringify(memRows.slice(0, 3)));
  // Rows of no in-use bytes (paths that freed all they allocated) are left
  // out of the memory table; the root's totals still count every path.
  const zeros = await o.page.evaluate(() => {
    const app = window.profkit.app, t = app.memTable.model.tree, v = app.memTable.model.v, tot = t.total(v);
    const alloc = app.p.valueIndex("alloc_space"), at = t.total(alloc);
    let freedRoots = 0, freedAlloc = 0, shownAlloc = 0;
    for (let j = t.kidStart[0]; j < t.kidStart[1]; j++) {
      const c = t.kids[j];
      if (tot[c] === 0) { freedRoots++; freedAlloc += at[c]; } else shownAlloc += at[c];
    }
    return { shownZero: app.memTable.rows.filter((n) => n > 0 && tot[n] === 0).length, freedRoots, freedAlloc, shownAlloc, rootAlloc: at[0],
             domZero: [...document.querySelectorAll("#pk-memory tbody tr[data-node]")].filter((r) => +r.dataset.node > 0 && tot[+r.dataset.node] === 0).length };
  });
  check("memory table: no row of 0 in-use bytes", zeros.shownZero === 0 && zeros.domZero === 0, JSON.stringify(zeros));
  check("memory table: the fixture has paths of 0 in-use bytes, left out", zeros.freedRoots > 0, JSON.stringify(zeros));
  check("memory table: the root's allocated bytes still count every path", zeros.rootAlloc === zeros.shownAlloc + zeros.freedAlloc, JSON.stringify(zeros));
  // A thread shown and the first shown again: its table is the one kept
  // (same rows, same element), not made again.
  const memBefore = await o.page.evaluate(() => ({ rows: window.profkit.app.memTable.rows.join(","), text: document.querySelector('#pk-mem-table .pk-mem-table:not([hidden])').innerText }));
  await o.page.evaluate(() => { window.__memTableEl = document.querySelector('#pk-mem-table .pk-mem-table:not([hidden]) table'); });
  await o.page.selectOption("#pk-thread", opt || "1");
  st = await state(o);
  const memOther = await o.page.evaluate(() => ({ thread: window.profkitState.thread, shown: document.querySelectorAll('#pk-mem-table .pk-mem-table:not([hidden])').length,
                                                  label: (document.querySelector('#pk-mem-table .pk-mem-table:not([hidden]) tbody tr[data-node="0"] .fn') || {}).textContent }));
  check("memory view of another thread: its own table, one shown", st.view === "memory" && memOther.shown === 1 && /TaskNode/.test(memOther.label || ""), JSON.stringify(memOther));
  await o.page.selectOption("#pk-thread", "0");
  const memAgain = await o.page.evaluate(() => ({ rows: window.profkit.app.memTable.rows.join(","), text: document.querySelector('#pk-mem-table .pk-mem-table:not([hidden])').innerText,
                                                  same: document.querySelector('#pk-mem-table .pk-mem-table:not([hidden]) table') === window.__memTableEl }));
  check("memory view: the first thread's table shown again is the one kept, same rows", memAgain.same && memAgain.rows === memBefore.rows && memAgain.text === memBefore.text,
        JSON.stringify({ same: memAgain.same, rows: memAgain.rows === memBefore.rows, text: memAgain.text === memBefore.text }));
  // The flame graph of in-use bytes by allocating path: profkit mem's
  // largest leak first (leftmost, under the root), with its bytes and count.
  const memOut = pk(["mem", "-q", BS]).split("\n");
  const leakRow = memOut[memOut.findIndex((l) => /^By allocating call path, largest leaks first/.test(l)) + 2].trim().split(/\s+/);
  const leakPath = leakRow[6].split(";"), leakBytes = parseAmount(leakRow[0], "bytes"), leakObjects = +leakRow[1];
  st = await state(o);
  check("memory view draws a flame graph", st.view === "memory" && st.drawn > 2, JSON.stringify(st));
  const firstPath = await o.page.evaluate(() => {
    const v = window.profkit.app.memFlame, b = v.boxes, t = v.model.tree, p = window.profkit.app.p;
    // The leftmost frame of each depth, from the root's child down.
    const out = [];
    for (let d = 1; d <= t.maxDepth; d++) {
      let best = -1;
      for (let i = 0; i < b.node.length; i++) if (b.node[i] > 0 && t.depth[b.node[i]] === d && (best < 0 || b.x[i] < b.x[best])) best = i;
      if (best < 0 || b.x[best] > 0.5) break;
      out.push(p.funcLabel(t.func[b.node[best]]));
    }
    return out;
  });
  check("memory flame: the largest leak's path first (leftmost)", JSON.stringify(firstPath.slice(0, leakPath.length)) === JSON.stringify(leakPath),
        JSON.stringify(firstPath) + " vs profkit mem " + leakPath.join(";"));
  const leakAt = await frameAt(o, leakPath, "memFlame");
  check("memory flame: the leak's frame is drawn", !!leakAt);
  if (leakAt) {
    await o.page.mouse.move(leakAt.x, leakAt.y);
    const hm2 = await hoverText(o);
    const inUse = /In use\s*([\d.,]+ (?:B|KB|MB|GB))/.exec(hm2), objs = /Objects in use\s*([\d,]+)/.exec(hm2);
    const bytesOf = (t) => { const m = /^([\d.,]+) (B|KB|MB|GB)$/.exec(t); return +m[1].replace(/,/g, "") * { B: 1, KB: 1024, MB: 1048576, GB: 1073741824 }[m[2]]; };
    check("memory hover: in-use bytes are profkit mem's", inUse && Math.abs(bytesOf(inUse[1]) - leakBytes) <= leakBytes * 0.01, hm2 + " vs " + leakRow.join(" "));
    check("memory hover: objects in use are profkit mem's", objs && +objs[1].replace(/,/g, "") === leakObjects, hm2 + " vs " + leakRow.join(" "));
    check("memory hover: allocated bytes and allocations", /Allocated\s*[\d.,]+ (B|KB)/.test(hm2) && /Allocations\s*\d/.test(hm2), hm2);
    await shot(o, "bsprof_memory_hover");
    await o.page.mouse.click(leakAt.x, leakAt.y);
    st = await state(o);
    check("memory flame: a click zooms, in the memory view", st.view === "memory" && JSON.stringify(st.zoom) === JSON.stringify(leakPath) && st.zoomTotal === leakBytes,
          JSON.stringify([st.view, st.zoom, st.zoomTotal]));
  }
  await shot(o, "bsprof_memory");
  // Opened before the inverted tree exists (no idle preparation, the memory
  // view straight from the URL): the flame graph at once, then the same
  // table once the tree is built.
  const memText = await o.page.evaluate(() => { const h = document.querySelector('#pk-mem-table .pk-mem-table[data-thread="0"]'); return h ? h.innerText : ""; });
  const o3 = await open(file, { hash: "view=memory", noIdle: true });
  const early = await o3.page.evaluate(() => ({ view: window.profkitState.view, drawn: window.profkitState.drawn, total: window.profkitState.total,
                                                ready: window.profkit.app.p.invertedReady(0) }));
  check("memory view before the inverted tree: flame graph drawn, total right", early.view === "memory" && early.drawn > 2 && early.total === inuse, JSON.stringify(early));
  await o3.page.waitForSelector("#pk-memory tbody tr[data-node]", { timeout: 10000 }).catch(() => {});
  const lateText = await o3.page.evaluate(() => { const h = document.querySelector('#pk-mem-table .pk-mem-table[data-thread="0"]'); return h ? h.innerText : ""; });
  const later = await o3.page.evaluate(() => window.profkitTimings.actions.some((a) => a.action === "memory table"));
  check("memory view before the inverted tree: its table made after the first draw", later);
  check("memory view before the inverted tree: its table follows, the same rows", lateText.length > 0 && lateText === memText, JSON.stringify([lateText.slice(0, 200), memText.slice(0, 200)]));
  await close(o3, "bsprof memory first");
  await close(o, "bsprof");
}
const GECKO = join(FIX, "firefox", "samply-ls-profile-v41.json");
if (existsSync(GECKO)) {
  const file = makePage([GECKO], "stack");
  const o = await open(file);
  // The timed thread with the most runs.
  const timed = await o.page.evaluate(() => {
    const ts = window.profkit.app.p.threads; let best = -1;
    ts.forEach((t, i) => { if (t.samples && (best < 0 || t.samples.start.length > ts[best].samples.start.length)) best = i; });
    return best;
  });
  check("a timed thread", timed > 0);
  await o.page.selectOption("#pk-thread", String(timed));
  await o.page.click('button[data-view="stack"]');
  let st = await state(o);
  check("stack chart draws the timed thread's runs", st.view === "stack" && st.drawn > 0, JSON.stringify(st));
  await shot(o, "stack_chart");
  const box = await o.page.evaluate(() => {
    const v = window.profkit.app.stack, b = v.boxes, r = v.canvas.getBoundingClientRect();
    let best = 0; for (let i = 0; i < b.node.length; i++) if (b.y[i] > b.y[best] || (b.y[i] === b.y[best] && b.w[i] > b.w[best])) best = i;
    for (let i = 0; i < b.node.length; i++) if (b.y[i] === 16 + 2 * 18 && b.w[i] > 20) { best = i; break; }
    return { x: r.left + b.x[best] + Math.min(b.w[best] / 2, 20), y: r.top + b.y[best] + 9 };
  });
  await o.page.mouse.move(box.x, box.y);
  check("stack chart hover shows a duration", /Duration/.test(await hoverText(o)));
  await o.page.mouse.click(box.x, box.y);
  st = await state(o);
  check("stack chart click zooms the time range", /^\d+-\d+$/.test(st.span) && (await crumbs(o)).length === 2, st.span);
  await shot(o, "stack_chart_zoomed");
  // Shift+drag across the chart: zooms to the dragged time range.
  const range = async () => (await state(o)).span.split("-").map(Number);
  const before = await range();
  const cb = await o.page.$eval("#pk-stack-canvas", (c) => { const r = c.getBoundingClientRect(); return { x: r.left, y: r.top, w: r.width }; });
  await o.page.keyboard.down("Shift");
  await o.page.mouse.move(cb.x + cb.w * 0.25, cb.y + 5);
  await o.page.mouse.down();
  await o.page.mouse.move(cb.x + cb.w * 0.5, cb.y + 5, { steps: 4 });
  await o.page.mouse.up();
  await o.page.keyboard.up("Shift");
  const after = await range();
  const span = before[1] - before[0];
  check("stack chart Shift+drag zooms to the dragged quarter", Math.abs(after[0] - (before[0] + span / 4)) <= span / 100 && Math.abs(after[1] - (before[0] + span / 2)) <= span / 100,
        JSON.stringify([before, after]));
  await shot(o, "stack_chart_selected");
  // Back to the whole range, then the wheel: zooms in around the pointer
  // (the time under it stays under it), the breadcrumb and URL follow.
  await o.page.keyboard.press("Escape");
  st = await state(o);
  check("Escape: the whole range again", st.span === "", st.span);
  const whole = await o.page.evaluate(() => window.profkit.app.stackRange());
  const atX = cb.x + cb.w * 0.3, tAt = whole[0] + (whole[1] - whole[0]) * 0.3;
  await o.page.mouse.move(atX, cb.y + 5);
  await o.page.mouse.wheel(0, -400);
  await o.page.waitForFunction(() => window.profkitState.span !== "", null, { timeout: 5000 }).catch(() => {});
  await nextFrame(o);
  let w1 = await range();
  const wspan = whole[1] - whole[0], s1 = w1[1] - w1[0];
  check("wheel zooms in: the visible time range shrinks", s1 > 0 && s1 < wspan * 0.8, JSON.stringify([whole, w1]));
  check("wheel zooms around the pointer", Math.abs(w1[0] + s1 * 0.3 - tAt) <= wspan / 200, JSON.stringify([w1, tAt]));
  check("wheel zoom shows the range in the breadcrumb", (await crumbs(o)).length === 2, JSON.stringify(await crumbs(o)));
  await o.page.waitForFunction((r) => location.hash.includes("span=" + r), `${w1[0]}-${w1[1]}`, { timeout: 5000 }).catch(() => {});
  check("wheel zoom is in the URL", (await o.page.evaluate(() => location.hash)).includes(`span=${w1[0]}-${w1[1]}`), await o.page.evaluate(() => location.hash));
  const drawnZoomed = (await state(o)).drawn;
  await shot(o, "stack_chart_wheel");
  // Drag pans: dragging right by a fifth of the width shows a fifth earlier.
  await o.page.mouse.move(cb.x + cb.w * 0.5, cb.y + 5);
  await o.page.mouse.down();
  await o.page.mouse.move(cb.x + cb.w * 0.7, cb.y + 5, { steps: 5 });
  await o.page.mouse.up();
  await nextFrame(o);
  const w2 = await range();
  check("drag pans: the same span, a fifth of it earlier", Math.abs((w2[1] - w2[0]) - s1) <= 2 && Math.abs(w2[0] - (w1[0] - s1 * 0.2)) <= s1 / 100,
        JSON.stringify([w1, w2]));
  check("the zoomed chart draws boxes", drawnZoomed > 0, drawnZoomed);
  await shot(o, "stack_chart_panned");
  // Keys on the focused chart: "+" zooms in around the centre, → pans right.
  await o.page.focus("#pk-stack-canvas");
  await o.page.keyboard.press("+");
  const w3 = await range(), s3 = w3[1] - w3[0];
  check("key + zooms in around the centre", Math.abs(s3 - (w2[1] - w2[0]) / 1.5) <= 2 && Math.abs((w3[0] + w3[1]) / 2 - (w2[0] + w2[1]) / 2) <= s3 / 100,
        JSON.stringify([w2, w3]));
  await o.page.keyboard.press("ArrowRight");
  const w4 = await range();
  check("key → pans right by a tenth", Math.abs(w4[0] - (w3[0] + s3 * 0.1)) <= s3 / 100 && Math.abs((w4[1] - w4[0]) - s3) <= 2, JSON.stringify([w3, w4]));
  // The wheel never zooms out past the whole range.
  await o.page.mouse.move(atX, cb.y + 5);
  for (let k = 0; k < 4; k++) await o.page.mouse.wheel(0, 2000);
  await o.page.waitForFunction(() => window.profkitState.span === "", null, { timeout: 5000 }).catch(() => {});
  check("wheel out stops at the whole range", (await state(o)).span === "", (await state(o)).span);
  await shot(o, "stack_chart_whole");
  // A thread without timed samples (all threads merged) in the stack chart: a note, no error.
  await o.page.selectOption("#pk-thread", "0");
  st = await state(o);
  const note = await o.page.textContent("#pk-stack .note");
  check("stack chart never shows all threads merged: the busiest timed thread instead", st.view === "stack" && st.thread > 0 && st.drawn > 0 && !/no timed samples/.test(note), st.view + " " + st.thread + " " + note);
  await shot(o, "stack_chart_untimed");
  await close(o, "stack chart");
}

await browser.close();
rmSync(TMP, { recursive: true, force: true });
console.log(`${counts.passed} checks passed, ${counts.failed} failed (screenshots in ${SHOTS})`);
process.exit(counts.failed ? 1 : 0);
