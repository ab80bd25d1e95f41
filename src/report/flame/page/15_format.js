"use strict";
// Numbers with units, percentages, and the view state in the URL fragment.
// No DOM: tested in Node (tests/js/).
(function (PK) {
  function trim(x, digits) {
    var s = x.toFixed(digits);
    if (s.indexOf(".") >= 0) s = s.replace(/0+$/, "").replace(/\.$/, "");
    return s;
  }
  function sig(x) {  // three significant digits, at most two decimals
    var a = Math.abs(x);
    return trim(x, a >= 100 ? 0 : a >= 10 ? 1 : 2);
  }
  // A value in its unit, readable: "12.3 ms", "1.5 MB", "1,234 calls".
  PK.formatValue = function (x, unit) {
    var a = Math.abs(x);
    switch (unit) {
      case "nanoseconds": case "microseconds": case "milliseconds": case "seconds": {
        var ns = x * ({ nanoseconds: 1, microseconds: 1e3, milliseconds: 1e6, seconds: 1e9 })[unit];
        var an = Math.abs(ns);
        if (an === 0) return "0 ms";
        if (an >= 1e9) return sig(ns / 1e9) + " s";
        if (an >= 1e6) return sig(ns / 1e6) + " ms";
        if (an >= 1e3) return sig(ns / 1e3) + " µs";
        return sig(ns) + " ns";
      }
      case "bytes":
        if (a >= 1073741824) return sig(x / 1073741824) + " GB";
        if (a >= 1048576) return sig(x / 1048576) + " MB";
        if (a >= 1024) return sig(x / 1024) + " KB";
        return x + " B";
      default: {
        var s = PK.formatCount(x);
        var word = unit === "count" || !unit ? "" : " " + unit;
        return s + word;
      }
    }
  };
  PK.formatCount = function (x) {
    var r = Math.round(x * 100) / 100, neg = r < 0, s = String(Math.abs(r)), dot = s.indexOf(".");
    var int = dot >= 0 ? s.slice(0, dot) : s, frac = dot >= 0 ? s.slice(dot) : "";
    int = int.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
    return (neg ? "-" : "") + int + frac;
  };
  // A share as a percentage, "12.34%"; "–" when the whole is 0.
  PK.formatPercent = function (part, whole) {
    if (!whole) return "–";
    var p = 100 * part / whole, a = Math.abs(p);
    return (a >= 10 ? p.toFixed(1) : a >= 0.01 || a === 0 ? p.toFixed(2) : p.toExponential(1)) + "%";
  };
  PK.signed = function (s, x) { return x > 0 ? "+" + s : s; };

  // The view state: what the URL fragment holds. Defaults are left out.
  var DEFAULTS = { view: "flame", thread: 0, value: "", zoom: [], search: "", inverted: false,
                   icicle: false, color: "name", sort: "width", func: "", diff: "diff", range: "", span: "" };
  PK.defaultState = function () {
    var s = {};
    for (var k in DEFAULTS) s[k] = Array.isArray(DEFAULTS[k]) ? [] : DEFAULTS[k];
    return s;
  };
  function enc(s) { return encodeURIComponent(s).replace(/%2F/g, "/").replace(/%3A/g, ":"); }
  // Zoom paths are function labels joined by ";" (each label's own ";" and
  // "\" escaped with "\").
  function joinPath(p) { return p.map(function (x) { return x.replace(/[\\;]/g, "\\$&"); }).join(";"); }
  function splitPath(s) {
    var out = [], cur = "";
    for (var i = 0; i < s.length; i++) {
      var c = s[i];
      if (c === "\\" && i + 1 < s.length) cur += s[++i];
      else if (c === ";") { out.push(cur); cur = ""; }
      else cur += c;
    }
    if (s.length) out.push(cur);
    return out;
  }
  PK.encodeState = function (st) {
    var parts = [];
    for (var k in DEFAULTS) {
      var v = st[k], d = DEFAULTS[k];
      if (k === "zoom") { if (v && v.length) parts.push("zoom=" + enc(joinPath(v))); continue; }
      if (v === undefined || v === d) continue;
      if (typeof d === "boolean") parts.push(k + "=" + (v ? "1" : "0"));
      else parts.push(k + "=" + enc(String(v)));
    }
    return parts.join("&");
  };
  PK.decodeState = function (hash) {
    var st = PK.defaultState();
    hash = (hash || "").replace(/^#/, "");
    if (!hash) return st;
    hash.split("&").forEach(function (kv) {
      var eq = kv.indexOf("="), k = eq < 0 ? kv : kv.slice(0, eq), raw = eq < 0 ? "" : kv.slice(eq + 1), v;
      try { v = decodeURIComponent(raw); } catch (e) { return; }
      if (!(k in DEFAULTS)) return;
      var d = DEFAULTS[k];
      if (k === "zoom") st.zoom = splitPath(v);
      else if (typeof d === "boolean") st[k] = v === "1";
      else if (typeof d === "number") { var n = parseInt(v, 10); if (n >= 0) st[k] = n; }
      else st[k] = v;
    });
    return st;
  };
  PK.splitPath = splitPath;
  PK.joinPath = joinPath;

  // A regular expression from the search box: invalid ones are reported,
  // never thrown. Case-insensitive unless the text has an upper-case letter.
  PK.searchRegex = function (text) {
    if (!text) return null;
    try { return new RegExp(text, /[A-Z]/.test(text) ? "" : "i"); } catch (e) { return { error: e.message }; }
  };

  // Stable 32-bit FNV-1a hash of a string (colours by name, file, module).
  PK.hash = function (s) {
    var h = 0x811c9dc5;
    for (var i = 0; i < s.length; i++) { h ^= s.charCodeAt(i); h = Math.imul(h, 0x01000193) >>> 0; }
    return h >>> 0;
  };
})(typeof globalThis !== "undefined" ? (globalThis.profkit = globalThis.profkit || {}) : (this.profkit = this.profkit || {}));
