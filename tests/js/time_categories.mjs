// The page's timeline and stack chart coloured by the frames' categories
// (Gecko's meta.categories), in a real browser (Debian chromium through
// playwright-core). The profile is made here: three threads, one whose
// frames are all "Graphics" (green), one all "JavaScript" (yellow), one
// half "Layout" (purple) and half "Idle" (transparent: not drawn). The
// pixels of each track's activity graph and of the stack chart's boxes
// take the category's colour; the data's per-sample categories equal the
// profile's. Screenshots: $PROFKIT_BUILD/screenshots/time-categories-*.png.
//
// Environment: PROFKIT, PROFKIT_SRC, PROFKIT_BUILD, PROFKIT_TOOLS.
import { writeFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { shotsDir, launch, scratch, pk, check, counts } from "./lib.mjs";

const SHOTS = shotsDir();
const TMP = scratch("timecat");

const CATS = [{ name: "Idle", color: "transparent", subcategories: ["Other"] }, { name: "Other", color: "grey", subcategories: ["Other"] },
              { name: "Layout", color: "purple", subcategories: ["Other"] }, { name: "JavaScript", color: "yellow", subcategories: ["Other"] },
              { name: "Graphics", color: "green", subcategories: ["Other"] }];
const IDLE = 0, OTHER = 1, LAYOUT = 2, JS = 3, GFX = 4;
// A thread of n samples, 1 ms apart, over stacks root > f1 > f2 (a few
// leaves); catOf(i) gives sample i's frames' category.
function thread(name, tid, n, catOf) {
  const strings = ["main", "work", "leafA", "leafB", "sleep"];
  const frames = [], stacks = [], key = new Map();
  const frameOf = (loc, cat) => { const k = loc + ":" + cat; if (!key.has("f" + k)) { key.set("f" + k, frames.length); frames.push([loc, false, null, null, null, null, cat, 0]); } return key.get("f" + k); };
  const stackOf = (locs, cat) => {
    let s = null;
    for (const l of locs) {
      const f = frameOf(l, cat), k = s + ":" + f;
      if (!key.has(k)) { key.set(k, stacks.length); stacks.push([s, f]); }
      s = key.get(k);
    }
    return s;
  };
  const samples = [];
  for (let i = 0; i < n; i++) {
    const c = catOf(i);
    samples.push([stackOf(c === IDLE ? [0, 4] : [0, 1, 2 + (i % 2)], c), 10 + i, 0]);
  }
  // "main" (the root frame) is always "Other": its box is grey.
  for (const f of frames) if (f[0] === 0) f[6] = OTHER;
  {
  }
  return {
    name, processType: "default", processName: "App", pid: "10", tid,
    samples: { schema: { stack: 0, time: 1, eventDelay: 2 }, data: samples },
    markers: { schema: { name: 0, startTime: 1, endTime: 2, phase: 3, category: 4, data: 5 }, data: [] },
    stackTable: { schema: { prefix: 0, frame: 1 }, data: stacks },
    frameTable: { schema: { location: 0, relevantForJS: 1, innerWindowID: 2, implementation: 3, line: 4, column: 5, category: 6, subcategory: 7 }, data: frames },
    stringTable: strings,
  };
}
const N = 1200;
const profile = {
  meta: { version: 36, startTime: 1700000000000.0, interval: 1, product: "Firefox", categories: CATS },
  threads: [
    thread("Painter", 11, N, () => GFX),
    thread("Scripter", 12, N, () => JS),
    // Layout in the first half, Idle in the second.
    thread("Layouter", 13, N, (i) => (i < N / 2 ? LAYOUT : IDLE)),
    // Every frame "Other": one category, so its stack chart is by name.
    thread("Plain", 14, N, () => OTHER),
  ],
};
const PROF = join(TMP, "cats.json");
writeFileSync(PROF, JSON.stringify(profile));

const browser = await launch();
try {
  const page = join(TMP, "cats.html");
  pk(["flame", "-q", "--min-percent", "0", PROF, "-o", page]);
  const ctx = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  const pg = await ctx.newPage();
  const errors = [];
  pg.on("pageerror", (e) => errors.push(e.message));
  pg.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); });
  await pg.goto("file://" + page);
  await pg.waitForFunction(() => window.profkitTimings && window.profkitTimings.interactive > 0, null, { timeout: 20000 });
  await pg.evaluate(() => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 50))));

  // The data: the category table, each sample's category.
  const data = await pg.evaluate(() => {
    const p = window.profkit.app.p, T = p.time();
    return { cats: T.categories.map((c) => [c.name, c.color]),
             threads: p.threads.map((th, i) => (th.merged ? null : { name: p.str(th.name), cats: Array.from(new Set(p.timeline(i).category)) })) };
  });
  check("the page has the profile's categories", JSON.stringify(data.cats) === JSON.stringify(CATS.map((c) => [c.name, c.color])), JSON.stringify(data.cats));
  const want = { Painter: [GFX + 1], Scripter: [JS + 1], Layouter: [LAYOUT + 1, IDLE + 1], Plain: [OTHER + 1] };
  for (const th of data.threads.filter(Boolean))
    check(`samples of ${th.name}: their frames' category`, JSON.stringify(th.cats) === JSON.stringify(want[th.name]), JSON.stringify(th.cats));

  // The activity graph: per track, the colours of its pixels right of the
  // labels (the track's background and the axis lines aside).
  const tracks = await pg.evaluate(() => {
    const app = window.profkit.app, tl = app.timeline, cv = document.getElementById("pk-timeline-canvas");
    const dpr = cv.width / parseFloat(cv.style.width), ctx = cv.getContext("2d"), out = [];
    const AXIS = 18, TRACK = 26, G = window.profkit.TIMELINE_GUTTER;
    const hex = (d, i) => "#" + [d[i], d[i + 1], d[i + 2]].map((x) => x.toString(16).padStart(2, "0")).join("");
    tl.tracks().forEach((tr, k) => {
      const x0 = Math.round((G + 2) * dpr), y0 = Math.round((AXIS + k * TRACK + 2) * dpr);
      const w = cv.width - x0 - Math.round(4 * dpr), h = Math.round((TRACK - 3) * dpr);
      const d = ctx.getImageData(x0, y0, w, h).data, count = {};
      // The left half and the right half apart (the Layouter changes halfway).
      for (const [a, b, part] of [[0, w >> 1, "left"], [w >> 1, w, "right"]]) {
        const c = {};
        for (let y = 0; y < h; y++) for (let x = a; x < b; x++) { const i = (y * w + x) * 4; if (d[i + 3] < 250) continue; const key = hex(d, i); c[key] = (c[key] || 0) + 1; }
        count[part] = c;
      }
      out.push({ name: app.p.str(app.p.threads[tr.thread].name), count, area: (w >> 1) * h });
    });
    return { out, fills: Object.fromEntries(app.p.time().categories.map((c) => [c.name, c.fill])) };
  });
  const top = (c) => Object.entries(c).sort((a, b) => b[1] - a[1])[0] || ["none", 0];
  const share = (c, col) => (c[col] || 0);
  for (const t of tracks.out) {
    if (t.name === "Painter" || t.name === "Scripter") {
      const fill = tracks.fills[t.name === "Painter" ? "Graphics" : "JavaScript"];
      for (const part of ["left", "right"]) {
        const [col, n] = top(t.count[part]);
        check(`activity of ${t.name} (${part} half): its pixels take its category's colour ${fill}`, col === fill && n > t.area * 0.5, col + " x" + n + " of " + t.area);
      }
    } else if (t.name === "Plain") {
      const [col, n] = top(t.count.left);
      check("activity of Plain: Other's grey", col === tracks.fills.Other && n > t.area * 0.5, col + " x" + n);
    } else {
      const purple = tracks.fills.Layout;
      check(`activity of Layouter, Layout half: purple ${purple}`, top(t.count.left)[0] === purple && top(t.count.left)[1] > t.area * 0.5, JSON.stringify(top(t.count.left)));
      check("activity of Layouter, Idle half: nothing drawn (Idle is transparent)", share(t.count.right, purple) < t.area * 0.02 && top(t.count.right)[1] < t.area * 0.5,
            JSON.stringify(Object.entries(t.count.right).sort((a, b) => b[1] - a[1]).slice(0, 3)));
    }
  }
  await pg.screenshot({ path: join(SHOTS, "time-categories-timeline.png") });

  // The stack chart of the Painter: its boxes green (main's grey), of the
  // Scripter yellow; of the Plain thread (one category) coloured by name.
  for (const [name, cat] of [["Painter", "Graphics"], ["Scripter", "JavaScript"], ["Plain", null]]) {
    const t = await pg.evaluate((nm) => { const p = window.profkit.app.p; return p.threads.findIndex((th) => !th.merged && p.str(th.name) === nm); }, name);
    await pg.evaluate((t) => window.profkit.app.change({ view: "stack", thread: t, span: "" }, "view"), t);
    // Zoomed in (x20, at the middle): the leaves' 1 ms runs wide enough to read.
    await pg.evaluate(() => { const app = window.profkit.app; app.change({ span: app.stackZoomed(app.stackRange(), 1 / 20, 0.5) }, "wheel"); });
    await pg.evaluate(() => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 50))));
    const boxes = await pg.evaluate(() => {
      const v = window.profkit.app.stack, b = v.boxes, cv = v.canvas, ctx = cv.getContext("2d"), dpr = cv.width / parseFloat(cv.style.width);
      const hex = (d) => "#" + [d[0], d[1], d[2]].map((x) => x.toString(16).padStart(2, "0")).join("");
      const out = {};
      for (let i = 0; i < b.node.length; i++) {
        if (b.w[i] < 6) continue;
        // A pixel inside the box, off its label (the box's last pixels).
        const x = Math.floor((b.x[i] + b.w[i] - 3) * dpr), y = Math.floor((b.y[i] + 2) * dpr);
        const c = hex(ctx.getImageData(x, y, 1, 1).data), f = window.profkit.app.p.funcLabel(v.model.tree.func[b.node[i]]);
        out[f] = out[f] || {};
        out[f][c] = (out[f][c] || 0) + 1;
      }
      return out;
    });
    if (cat) {
      const fill = tracks.fills[cat], grey = tracks.fills.Other;
      const bad = Object.entries(boxes).filter(([f, cs]) => Object.keys(cs).length !== 1 || Object.keys(cs)[0] !== (f === "main" ? grey : fill));
      check(`stack chart of ${name}: main's box grey ${grey}, every other box ${cat}'s colour ${fill}`, Object.keys(boxes).length >= 3 && bad.length === 0, JSON.stringify(boxes));
    } else {
      const colours = new Set(Object.values(boxes).flatMap((cs) => Object.keys(cs)));
      check(`stack chart of ${name} (one category): coloured by name, not all grey`, colours.size >= 3 && !colours.has(tracks.fills.Other), JSON.stringify(boxes));
    }
    await pg.screenshot({ path: join(SHOTS, "time-categories-stack-" + name + ".png") });
  }
  // Colour by module: the stack chart leaves the categories.
  await pg.evaluate(() => window.profkit.app.change({ color: "module" }, "color"));
  await pg.evaluate(() => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 50))));
  const byModule = await pg.evaluate(() => { const v = window.profkit.app.stack, cv = v.canvas, b = v.boxes, dpr = cv.width / parseFloat(cv.style.width);
    let i = 0; while (i < b.node.length && b.w[i] < 6) i++;
    const d = cv.getContext("2d").getImageData(Math.floor((b.x[i] + b.w[i] - 3) * dpr), Math.floor((b.y[i] + 2) * dpr), 1, 1).data;
    return "#" + [d[0], d[1], d[2]].map((x) => x.toString(16).padStart(2, "0")).join(""); });
  check("stack chart coloured by module: not the category's colour", byModule !== tracks.fills.JavaScript, byModule);
  check("no page error", errors.length === 0, errors.join(" | "));
  await ctx.close();
} finally {
  await browser.close();
  rmSync(TMP, { recursive: true, force: true });
}
console.log(`${counts.passed} passed, ${counts.failed} failed`);
process.exit(counts.failed ? 1 : 0);
