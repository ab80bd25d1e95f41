// The store browser (docs/store.md, "Browsing a store"): the profiles of a
// store in a table, label pickers and a time range to select them, the
// viewer page of one profile or a merged selection, the diff page of two
// selections, and a trend chart. Everything comes from the JSON API of the
// server that serves this page (api/NAME, relative to /TOKEN/).
//
// A label picker is an operator and values: "=" with several values is
// any of them (one --where KEY~^(A|B)$ term), "!=" none of them (a
// KEY!=V term each), "~" a regex of its own; more terms, one a line, as
// --where takes them. The value type and thread pickers apply to what is
// opened (--value, --thread); the trend has a thread picker of its own
// (trend --thread). Both list the threads of the selection merged
// (api/threads, as `info --db` lists them). Each selection's command line is shown: the same
// data from `profkit`.
"use strict";
(function () {
  const cfg = JSON.parse(document.getElementById("profkit-store").textContent);
  const app = document.getElementById("app");
  const state = { labels: [], profiles: [], checked: new Set(), base: null, trend: null, filters: null, threads: [],
                  threadsKey: null, threadsLoading: null };

  // el("tag", {attr: v, onclick: f}, child...) with text children as text nodes.
  function el(tag, attrs, ...kids) {
    const e = tag === "svg" || tag === "rect" || tag === "polyline" || tag === "line" || tag === "text" || tag === "g" || tag === "title"
      ? document.createElementNS("http://www.w3.org/2000/svg", tag) : document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === undefined || v === null) continue;
      if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
      else if (k === "text") e.textContent = v;
      else e.setAttribute(k, v);
    }
    for (const k of kids) if (k !== null && k !== undefined) e.append(k instanceof Node ? k : String(k));
    return e;
  }

  // A selection: {where: [TERM...], since, until} from the pickers, or {ids: [...]}.
  function params(sel, prefix = "") {
    const p = new URLSearchParams();
    for (const w of sel.where || []) p.append(prefix + "where", w);
    if (sel.since) p.set(prefix + "since", sel.since);
    if (sel.until) p.set(prefix + "until", sel.until);
    if (sel.ids && sel.ids.length) p.set(prefix + "ids", sel.ids.join(","));
    return p;
  }
  function describe(sel) {
    if (sel.ids && sel.ids.length) return sel.ids.length === 1 ? "profile " + sel.ids[0] : sel.ids.length + " profiles";
    const parts = [...(sel.where || [])];
    if (sel.since) parts.push("since " + sel.since);
    if (sel.until) parts.push("until " + sel.until);
    return parts.length ? parts.join(" ") : "all profiles";
  }

  // A GET, or a POST of a form when the address would be long (many ids checked).
  async function api(name, p) {
    const url = "api/" + name + (p && [...p].length ? "?" + p : "");
    const r = url.length <= window.profkitStore.maxGet ? await fetch(url, { credentials: "same-origin" })
      : await fetch("api/" + name, { method: "POST", body: p || new URLSearchParams(), credentials: "same-origin" });
    let body;
    try { body = await r.json(); } catch (e) { throw new Error(name + ": the server answered " + r.status + " without JSON"); }
    if (!r.ok) throw new Error(body && body.error ? body.error : name + ": " + r.status);
    return body;
  }

  function status(text, err) {
    const s = document.getElementById("pk-status");
    s.textContent = text;
    s.className = err ? "pk-err" : "";
  }

  // ------------------------------------------------------------ numbers
  function fmtValue(v, unit) {
    const n = Number(v);
    if (unit === "nanoseconds") {
      if (Math.abs(n) >= 1e9) return (n / 1e9).toFixed(2) + " s";
      if (Math.abs(n) >= 1e6) return (n / 1e6).toFixed(2) + " ms";
      if (Math.abs(n) >= 1e3) return (n / 1e3).toFixed(2) + " µs";
      return n + " ns";
    }
    if (unit === "bytes") {
      const u = ["B", "KiB", "MiB", "GiB", "TiB"];
      let x = n, i = 0;
      while (Math.abs(x) >= 1024 && i < u.length - 1) { x /= 1024; i++; }
      return (i ? x.toFixed(1) : x) + " " + u[i];
    }
    return n.toLocaleString("en-US") + (unit && unit !== "count" ? " " + unit : "");
  }

  // ------------------------------------------------------------ filters
  // A value as a POSIX extended regex that matches it alone.
  function reEscape(v) { return v.replace(/[\\.\[\](){}*+?|^$]/g, "\\$&"); }
  // The --where terms of the pickers and of the terms box.
  function pickerTerms() {
    const where = [];
    for (const box of document.querySelectorAll(".pk-pick")) {
      const key = box.dataset.key, op = box.querySelector(".pk-op").value;
      if (op === "~") {
        const re = box.querySelector(".pk-re").value;
        if (re) where.push(key + "~" + re);
        continue;
      }
      const vals = [...box.querySelector("select.pk-label").selectedOptions].map((o) => o.value);
      if (!vals.length) continue;
      if (op === "!=") for (const v of vals) where.push(key + "!=" + v);
      else where.push(vals.length === 1 ? key + "=" + vals[0] : key + "~^(" + vals.map(reEscape).join("|") + ")$");
    }
    for (const line of document.getElementById("pk-terms").value.split("\n")) if (line.trim()) where.push(line.trim());
    return where;
  }
  function filterSelection() {
    const where = pickerTerms();
    const since = document.getElementById("pk-since").value.trim();
    const until = document.getElementById("pk-until").value.trim();
    return { where, since, until };
  }
  // The checked rows, else the filters' selection.
  function currentSelection() {
    // every row checked is the listed selection itself (and a short address)
    if (state.checked.size && state.checked.size < state.profiles.length) return { ids: state.profiles.filter((p) => state.checked.has(p.id)).map((p) => p.id) };
    return state.filters || filterSelection();
  }

  function renderPickers() {
    const box = document.getElementById("pk-pickers");
    box.replaceChildren();
    const natural = (a, b) => a.value.localeCompare(b.value, "en", { numeric: true });
    for (const k of state.labels) k.values.sort(natural);
    for (const k of state.labels) {
      const s = el("select", { class: "pk-label", multiple: "", size: Math.min(4, Math.max(2, k.values.length)), "data-key": k.key,
                               "aria-label": "label " + k.key, title: "none picked: any; Ctrl/Shift-click picks several" },
        ...k.values.map((v) => el("option", { value: v.value, text: v.value + " (" + v.profiles + ")" })));
      const op = el("select", { class: "pk-op", "aria-label": "operator of " + k.key },
        el("option", { value: "=", text: "=" }), el("option", { value: "!=", text: "≠" }), el("option", { value: "~", text: "~" }));
      const re = el("input", { class: "pk-re", size: 10, placeholder: "regex", "aria-label": "regex of " + k.key, hidden: "" });
      // how many values are picked (a list of four rows hides the others)
      const n = el("span", { class: "pk-npicked" });
      const count = () => { const c = s.selectedOptions.length; n.textContent = op.value === "~" || !c ? "" : c + " of " + k.values.length; };
      s.addEventListener("change", count);
      op.addEventListener("change", () => { s.hidden = op.value === "~"; re.hidden = op.value !== "~"; count(); });
      re.addEventListener("keydown", (e) => { if (e.key === "Enter") applyFilters(); });
      box.append(el("div", { class: "pk-pick", "data-key": k.key }, el("span", { class: "pk-key" }, k.key, el("br"), n), op, s, re));
    }
    // what is opened: a value type (the labels profkit adds; the threads:
    // loadThreads, those of the selection)
    for (const [id, key, none] of [["pk-value", "value", "default"]]) {
      const s = document.getElementById(id), keep = s.value, k = state.labels.find((x) => x.key === key);
      s.replaceChildren(el("option", { value: "", text: none }), ...(k ? k.values : []).map((v) => el("option", { value: v.value, text: v.value })));
      if ([...s.options].some((o) => o.value === keep)) s.value = keep;
    }
    const by = document.getElementById("pk-trend-by");
    const keep = by.value;
    by.replaceChildren(...state.labels.map((k) => el("option", { value: k.key, text: k.key })), el("option", { value: "day", text: "day" }));
    // the first key of the user's own (not one profkit adds) with two values or more
    const own = state.labels.find((k) => !AUTO.has(k.key) && k.values.length > 1);
    if ([...by.options].some((o) => o.value === keep)) by.value = keep;
    else by.value = own ? own.key : "day";
  }

  // ------------------------------------------------------------ table
  // labels profkit adds itself; file and format have their own columns
  const AUTO = new Set(["file", "format", "thread", "value"]);
  function updateActions() {
    const sel = currentSelection();
    document.getElementById("pk-sel-text").textContent = "Selection: " + describe(sel) +
      (state.checked.size ? "" : " (" + state.profiles.length + " profile" + (state.profiles.length === 1 ? "" : "s") + ")");
    document.getElementById("pk-diff").disabled = !state.base;
    document.getElementById("pk-open").disabled = !state.profiles.length;
    document.getElementById("pk-base-text").textContent = state.base ? "Base: " + describe(state.base) : "No base yet";
    document.getElementById("pk-cmd").textContent = commandLine(openArgs(sel));
    document.getElementById("pk-trend-sel").textContent = "of " + describe(sel);
    loadThreads(); // (nothing when the selection is the one listed already)
    const all = document.getElementById("pk-all");
    all.checked = state.profiles.length > 0 && state.checked.size === state.profiles.length;
    all.indeterminate = state.checked.size > 0 && !all.checked;
  }

  function renderTable() {
    const body = document.getElementById("pk-rows");
    body.replaceChildren();
    for (const p of state.profiles) {
      const box = el("input", { type: "checkbox", "aria-label": "select " + p.id });
      box.checked = state.checked.has(p.id);
      const tr = el("tr", { "data-id": p.id, class: box.checked ? "pk-checked" : null },
        el("td", {}, box),
        el("td", { class: "pk-id" }, el("a", { href: "api/view?ids=" + p.id, target: "_blank", title: "open this profile in the viewer",
          onclick: (e) => { e.preventDefault(); openPage("view", viewParams({ ids: [p.id] })); } }, p.id)),
        el("td", {}, p.utc),
        el("td", {}, p.format),
        el("td", { class: "pk-labels" }, ...Object.entries(p.labels).filter(([k]) => k !== "file" && k !== "format").flatMap(([k, vs]) => vs.map((v) => el("span", {}, k + "=" + v)))),
        el("td", {}, p.totals.map((t) => t.type + " " + fmtValue(t.value, t.unit)).join(", ")),
        el("td", { class: "pk-file", title: p.file }, p.file.length > 40 ? "…" + p.file.slice(-39) : p.file));
      box.addEventListener("change", () => {
        if (box.checked) state.checked.add(p.id); else state.checked.delete(p.id);
        tr.classList.toggle("pk-checked", box.checked);
        updateActions();
      });
      body.append(tr);
    }
    updateActions();
  }

  async function applyFilters() {
    const sel = filterSelection();
    status("Loading…");
    try {
      const r = await api("profiles", params(sel));
      state.filters = sel;
      state.profiles = r.profiles;
      state.checked.clear();
      renderTable();
      await loadThreads();
      status(r.count + " profile" + (r.count === 1 ? "" : "s"));
    } catch (e) {
      status(e.message, true);
    }
  }

  // ------------------------------------------------------------ pages
  // The value type and thread picked for what is opened, added to p.
  function picked(p, trend) {
    const v = document.getElementById("pk-value").value, t = document.getElementById("pk-thread").value;
    if (v) p.set("value", v);
    if (t && !trend) p.set("thread", t);
    return p;
  }
  function viewParams(sel) { return picked(params(sel)); }
  function viewUrl(sel) { return "api/view?" + viewParams(sel); }
  function diffParams(base, sel) {
    const p = params(base, "base_");
    for (const [k, v] of params(sel, "new_")) p.append(k, v);
    return picked(p);
  }
  // ------------------------------------------------------------ command lines
  // The arguments that select sel on the command line (as the server names
  // a page's input; a checked row is its id).
  function selArgs(sel) {
    const a = ["--db", cfg.db];
    for (const w of sel.where || []) a.push("--where", w);
    if (sel.since) a.push("--since", sel.since);
    if (sel.until) a.push("--until", sel.until);
    if (sel.ids && sel.ids.length) a.push("--ids", sel.ids.join(","));
    return a;
  }
  function pickedArgs(trend) {
    const a = [], v = document.getElementById("pk-value").value, t = document.getElementById("pk-thread").value;
    if (v) a.push("--value", v);
    if (t && !trend) a.push("--thread", t);
    return a;
  }
  function openArgs(sel) { return ["flame", ...selArgs(sel), ...pickedArgs(false), "-o", "view.html"]; }
  function trendArgs(sel) {
    const a = ["trend", ...selArgs(sel), "--by", document.getElementById("pk-trend-by").value];
    const fn = document.getElementById("pk-trend-fn").value.trim();
    if (fn) a.push("--function", fn);
    const th = document.getElementById("pk-trend-thread").value;
    if (th) a.push("--thread", th);
    return [...a, ...pickedArgs(true)];
  }
  function quote(a) { return /^[A-Za-z0-9_.,\/:=+%@-]+$/.test(a) ? a : "'" + a.replace(/'/g, "'\\''") + "'"; }
  function commandLine(args) { return ["profkit", ...args].map(quote).join(" "); }
  function diffUrl(base, sel) { return "api/diff?" + diffParams(base, sel); }
  // Opens api/NAME with these arguments in a new tab: a GET, or (a long
  // list of ids) a POST of a form, which has no length limit but the server's.
  function openPage(name, p) {
    const url = "api/" + name + "?" + p;
    if (url.length <= window.profkitStore.maxGet) { window.open(url, "_blank"); return; }
    // one form, kept in the page: a form removed right after submit() is not sent
    let form = document.getElementById("pk-post");
    if (!form) document.body.append(form = el("form", { id: "pk-post", method: "post", target: "_blank", style: "display:none" }));
    form.setAttribute("action", "api/" + name);
    form.replaceChildren(...[...p].map(([k, v]) => el("input", { type: "hidden", name: k, value: v })));
    form.submit();
  }

  // ------------------------------------------------------------ trend
  // The trend is of the selection the buttons above open (the checked
  // rows, else the filters'). Its thread picker: the threads of that
  // selection merged, each by the selector --thread takes for it (its
  // name, or t-INDEX where two threads share it); the pick is kept where
  // the new selection has that thread (by its label: an index may change).
  // Returns a promise (the same one while the selection is the same).
  function loadThreads() {
    const sel = currentSelection(), p = params(sel), key = String(p);
    if (key === state.threadsKey && state.threadsLoading) return state.threadsLoading;
    state.threadsKey = key;
    return state.threadsLoading = (async () => {
      let threads = [];
      try {
        threads = (await api("threads", p)).threads;
      } catch (e) {
        // (nothing selected: the table says so)
      }
      if (state.threadsKey !== key) return; // a later selection's answer is the one shown
      state.threads = threads;
      // the trend's picker, and the one of what is opened (its thread: a
      // thread of the selection, so that the page opened has it)
      for (const [id, none] of [["pk-trend-thread", "all threads"], ["pk-thread", "all"]]) {
        const s = document.getElementById(id);
        const keep = s.value ? s.selectedOptions[0].textContent : null;
        s.replaceChildren(el("option", { value: "", text: none }),
          ...threads.map((t) => el("option", { value: t.select, text: t.label, "data-index": t.index })));
        const again = threads.find((t) => t.label === keep);
        s.value = again ? again.select : "";
      }
      document.getElementById("pk-cmd").textContent = commandLine(openArgs(currentSelection()));
    })();
  }
  async function drawTrend() {
    const sel = currentSelection();
    await loadThreads(); // the picker is of this selection
    const p = picked(params(sel), true);
    p.set("by", document.getElementById("pk-trend-by").value);
    const fn = document.getElementById("pk-trend-fn").value.trim();
    if (fn) p.set("function", fn);
    const th = document.getElementById("pk-trend-thread").value;
    if (th) p.set("thread", th);
    document.getElementById("pk-trend-cmd").textContent = commandLine(trendArgs(sel));
    const chart = document.getElementById("pk-chart");
    status("Computing the trend…");
    try {
      state.trend = await api("trend", p);
      renderTrend(state.trend);
      status("Trend of " + (state.trend.function ? "/" + state.trend.function + "/" : "the total") + " per " + state.trend.by +
             (state.trend.thread ? " in thread " + state.trend.thread : "") +
             ": " + state.trend.count + " point" + (state.trend.count === 1 ? "" : "s"));
    } catch (e) {
      state.trend = null;
      chart.replaceChildren();
      status(e.message, true);
    }
  }

  function renderTrend(t) {
    const chart = document.getElementById("pk-chart");
    const pts = t.points;
    const W = Math.max(360, Math.min(1200, 80 + pts.length * 70)), H = 240, L = 90, B = 40, T = 16;
    const max = Math.max(1, ...pts.map((q) => Math.max(q.value, t.function ? q.total : 0)));
    const x = (i) => L + (i + 0.5) * (W - L - 10) / Math.max(1, pts.length);
    const y = (v) => T + (H - T - B) * (1 - v / max);
    const bw = Math.max(6, Math.min(48, (W - L - 10) / Math.max(1, pts.length) * 0.6));
    const svg = el("svg", { width: W, height: H, viewBox: "0 0 " + W + " " + H, role: "img",
                           "aria-label": "trend per " + t.by });
    svg.append(el("line", { class: "pk-axis", x1: L, y1: H - B, x2: W - 5, y2: H - B }));
    svg.append(el("line", { class: "pk-axis", x1: L, y1: T, x2: L, y2: H - B }));
    for (const f of [0, 0.5, 1]) {
      svg.append(el("text", { x: L - 6, y: y(max * f) + 4, "text-anchor": "end" }, fmtValue(Math.round(max * f), t.value_type.unit)));
    }
    pts.forEach((q, i) => {
      const bar = el("rect", { class: "pk-bar", x: x(i) - bw / 2, y: y(q.value), width: bw, height: Math.max(0, H - B - y(q.value)),
                               "data-group": q.group, "data-value": q.value });
      bar.append(el("title", {}, q.group + ": " + fmtValue(q.value, t.value_type.unit) + " (" + q.profiles + " profile" + (q.profiles === 1 ? "" : "s") + ")"));
      svg.append(bar);
      svg.append(el("text", { x: x(i), y: H - B + 14, "text-anchor": "middle" }, q.group.length > 12 ? q.group.slice(0, 11) + "…" : q.group));
    });
    if (t.function && pts.length) svg.append(el("polyline", { class: "pk-total", points: pts.map((q, i) => x(i) + "," + y(q.total)).join(" ") }));
    const table = el("table", { id: "pk-trend-table" },
      el("thead", {}, el("tr", {}, el("th", {}, t.by), el("th", { class: "pk-num" }, "profiles"),
        el("th", { class: "pk-num" }, t.function ? "value of /" + t.function + "/" : "total"), t.function ? el("th", { class: "pk-num" }, "total") : null)),
      el("tbody", {}, ...pts.map((q) => el("tr", { "data-group": q.group }, el("td", {}, q.group), el("td", { class: "pk-num" }, q.profiles),
        el("td", { class: "pk-num" }, fmtValue(q.value, t.value_type.unit)), t.function ? el("td", { class: "pk-num" }, fmtValue(q.total, t.value_type.unit)) : null))));
    chart.replaceChildren(el("div", { id: "pk-trend-caption" }, (t.function ? "value of the stacks through /" + t.function + "/" : "total") + " (" + t.value_type.type + ")" +
      (t.thread ? ", thread " + t.thread : ", every thread") + (t.function ? "; the line: the total" : "")), svg, table);
  }

  // ------------------------------------------------------------ layout
  function build() {
    document.title = "profkit store: " + cfg.title;
    app.append(
      el("header", {}, el("h1", {}, "profkit store: " + cfg.title), el("span", { id: "pk-status" }, "Loading…")),
      el("section", { id: "pk-filters" }, el("h2", {}, "Select"),
        el("div", { class: "pk-row" },
          el("span", { id: "pk-pickers", class: "pk-row" }),
          el("label", {}, "more --where terms", el("textarea", { id: "pk-terms", rows: 2, cols: 22, placeholder: "K=V, K!=V or K~RE, one a line",
                                                          "aria-label": "more --where terms, one a line" })),
          el("label", {}, "since", el("input", { id: "pk-since", size: 19, placeholder: "YYYY-MM-DD[THH:MM]" })),
          el("label", {}, "until", el("input", { id: "pk-until", size: 19, placeholder: "YYYY-MM-DD[THH:MM]" })),
          el("button", { id: "pk-apply", onclick: applyFilters }, "Apply"))),
      el("section", { id: "pk-actions" },
        el("div", { class: "pk-row" },
          el("span", { id: "pk-sel-text" }),
          el("button", { id: "pk-open", onclick: () => openPage("view", viewParams(currentSelection())), title: "the checked profiles (or the selection) merged, in the viewer" }, "Open in viewer"),
          el("button", { id: "pk-set-base", onclick: () => { state.base = currentSelection(); updateActions(); }, title: "keep this selection as the base of a diff" }, "Use as base"),
          el("button", { id: "pk-diff", onclick: () => openPage("diff", diffParams(state.base, currentSelection())), title: "the diff page: the base against this selection" }, "Diff against base"),
          el("span", { id: "pk-base-text" })),
        el("div", { class: "pk-row" },
          el("label", { title: "the value type the pages open with (--value)" }, "value type", el("select", { id: "pk-value" })),
          el("label", { title: "only this thread in the pages (--thread)" }, "thread", el("select", { id: "pk-thread" })),
          el("span", {}, "command line: ", el("code", { id: "pk-cmd", class: "pk-cmd" })))),
      el("section", { id: "pk-list" }, el("div", { class: "pk-table-wrap" },
        el("table", { id: "pk-profiles" },
          el("thead", {}, el("tr", {}, el("th", {}, el("input", { type: "checkbox", id: "pk-all", "aria-label": "select all" })),
            el("th", {}, "id"), el("th", {}, "time (UTC)"), el("th", {}, "format"), el("th", {}, "labels"), el("th", {}, "value types"), el("th", {}, "file"))),
          el("tbody", { id: "pk-rows" })))),
      el("section", { id: "pk-trend" }, el("h2", {}, "Trend"),
        el("div", { class: "pk-row" },
          el("label", {}, "per", el("select", { id: "pk-trend-by" })),
          el("label", {}, "function", el("input", { id: "pk-trend-fn", size: 24, placeholder: "regex (empty: the total)" })),
          el("label", { title: "only this thread's samples (--thread): the threads of the selection merged, as profkit info --db lists them" }, "thread",
            el("select", { id: "pk-trend-thread" }, el("option", { value: "", text: "all threads" }))),
          el("button", { id: "pk-trend-draw", onclick: drawTrend }, "Draw"),
          el("span", { id: "pk-trend-sel" }),
          el("code", { id: "pk-trend-cmd", class: "pk-cmd" })),
        el("div", { id: "pk-chart" })));
    document.getElementById("pk-all").addEventListener("change", (e) => {
      if (e.target.checked) for (const p of state.profiles) state.checked.add(p.id); else state.checked.clear();
      renderTable();
    });
    for (const id of ["pk-value", "pk-thread"]) document.getElementById(id).addEventListener("change", updateActions);
    for (const id of ["pk-since", "pk-until", "pk-trend-fn"])
      document.getElementById(id).addEventListener("keydown", (e) => { if (e.key === "Enter") (id === "pk-trend-fn" ? drawTrend : applyFilters)(); });
  }

  async function start() {
    build();
    try {
      const [labels, list] = await Promise.all([api("labels"), api("profiles")]);
      state.labels = labels.keys;
      state.profiles = list.profiles;
      state.filters = { where: [], since: "", until: "" };
      renderPickers();
      renderTable();
      await loadThreads();
      status(list.count + " profile" + (list.count === 1 ? "" : "s"));
    } catch (e) {
      status(e.message, true);
    }
    window.profkitStore.ready = true;
  }

  // For scripts and tests: the state, the selection, the pages' addresses.
  // maxGet: the longest address opened with a GET (longer: a POST)
  window.profkitStore = { ready: false, maxGet: 4000, state, currentSelection, viewUrl, diffUrl, params, api, pickerTerms,
                          openArgs, trendArgs, commandLine, loadThreads };
  start();
})();
