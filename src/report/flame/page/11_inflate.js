"use strict";
// The markers' packed stream (docs/viewer.md, "markers"): base85 text of a
// gzip stream (flame_pack.c), and an inflater for it (RFC 1951 in RFC
// 1952's frame, the trailer's CRC-32 and size checked). The page's own, so
// it reads its markers synchronously (window.profkit.query answers at
// once) and in any browser; Debian's pako and DecompressionStream were
// measured against it (docs/viewer.md, "markers"). No DOM.
(function (PK) {
  // The digits: '!' to 'x' less '"', '<' and '\'.
  var DIGITS = "!#$%&'()*+,-./0123456789:;=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[]^_`abcdefghijklmnopqrstuvwx";
  var VAL = new Int16Array(128).fill(-1);
  for (var d = 0; d < DIGITS.length; d++) VAL[DIGITS.charCodeAt(d)] = d;

  // n bytes from the text's groups of 5 digits (4 bytes each, big-endian),
  // a slice of groups per step(groups) (true when done): out.
  PK.Base85 = function (text, n) {
    var groups = Math.floor(text.length / 5), g = 0, o = 0;
    n = Math.max(0, Math.min(n, groups * 4));
    var out = new Uint8Array(n), whole = n >> 2;
    this.out = out;
    this.step = function (limit) {
      for (var end = Math.min(whole, g + limit); g < end; g++) {
        var v = 0;
        for (var j = 5 * g, e = j + 5; j < e; j++) {
          var c = text.charCodeAt(j), x = c < 128 ? VAL[c] : -1;
          if (x < 0) throw new Error("markers: a character that is no base85 digit at " + j);
          v = v * 85 + x;
        }
        if (v > 0xffffffff) throw new Error("markers: a base85 group over 32 bits at " + 5 * g);
        out[o] = v >>> 24; out[o + 1] = (v >>> 16) & 255; out[o + 2] = (v >>> 8) & 255; out[o + 3] = v & 255;
        o += 4;
      }
      if (g < whole) return false;
      if (o < n) {   // the last group's first bytes
        var w = new PK.Base85(text.slice(5 * g, 5 * g + 5), 4);
        w.step(1);
        out.set(w.out.subarray(0, n - o), o);
        o = n;
      }
      return true;
    };
  };
  PK.base85 = function (text, n) { var d = new PK.Base85(text, n); d.step(Infinity); return d.out; };

  // count LEB128 varints from the bytes (fewer where they end first).
  PK.varints = function (b, count) {
    var out = new Float64Array(count), i = 0, k = 0, len = b.length;
    while (k < count && i < len) {
      var c = b[i++], v = c & 127, m = 128;
      while (c & 128 && i < len) { c = b[i++]; v += (c & 127) * m; m *= 128; }
      out[k++] = v;
    }
    return k < count ? out.subarray(0, k) : out;
  };

  var LBASE = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258];
  var LEXTRA = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0];
  var DBASE = [1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073,
               4097, 6145, 8193, 12289, 16385, 24577];
  var DEXTRA = [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13];
  var ORDER = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15];

  // A canonical Huffman code's lookup table: entry [the next `bits` bits
  // of the stream] = symbol * 16 + its code's length (0: no code).
  function huffman(lens) {
    var bits = 0, count = new Int32Array(16), next = new Int32Array(16), i;
    for (i = 0; i < lens.length; i++) { count[lens[i]]++; if (lens[i] > bits) bits = lens[i]; }
    count[0] = 0;
    for (var code = 0, b = 1; b < 16; b++) { code = (code + count[b - 1]) << 1; next[b] = code; }
    var size = 1 << Math.max(bits, 1), t = new Int32Array(size);
    for (i = 0; i < lens.length; i++) {
      var L = lens[i];
      if (!L) continue;
      var c = next[L]++;
      if (c >= 1 << L) throw new Error("markers: an over-full Huffman code");
      for (var r = 0, j = 0; j < L; j++) r |= ((c >> j) & 1) << (L - 1 - j);
      for (; r < size; r += 1 << L) t[r] = i << 4 | L;
    }
    return { t: t, bits: Math.max(bits, 1) };
  }
  var FIXED = null;
  function fixed() {
    if (FIXED) return FIXED;
    var l = new Uint8Array(288), d = new Uint8Array(30).fill(5);
    l.fill(8, 0, 144); l.fill(9, 144, 256); l.fill(7, 256, 280); l.fill(8, 280, 288);
    return (FIXED = [huffman(l), huffman(d)]);
  }

  // CRC-32 (RFC 1952's, zlib's crc32) of b[from, to) after crc: four
  // bytes a step, from four tables (table s: a byte followed by s zeros).
  var CRC = null;
  function crc32(crc, b, from, to) {
    var t = CRC, i = from, k, s;
    if (!t) {
      t = CRC = new Int32Array(1024);
      for (k = 0; k < 256; k++) {
        var c = k;
        for (var j = 0; j < 8; j++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
        t[k] = c;
      }
      for (s = 256; s < 1024; s++) t[s] = t[t[s - 256] & 255] ^ (t[s - 256] >>> 8);
    }
    crc = ~crc;
    for (var e = to - 3; i < e; i += 4) {
      crc ^= b[i] | b[i + 1] << 8 | b[i + 2] << 16 | b[i + 3] << 24;
      crc = t[768 + (crc & 255)] ^ t[512 + ((crc >>> 8) & 255)] ^ t[256 + ((crc >>> 16) & 255)] ^ t[crc >>> 24];
    }
    for (; i < to; i++) crc = t[(crc ^ b[i]) & 255] ^ (crc >>> 8);
    return ~crc;
  }

  // The bytes a gzip stream holds: size of them (the writer says how many;
  // a stream that holds other than that is an error, and so is one whose
  // trailer's CRC-32 or size is not its bytes'), a block or more per
  // step(bytes) until it has given that many more (true when done): out.
  PK.Gunzip = function (src, size) {
    var n = src.length, pos = 10;
    if (n < 18 || src[0] !== 31 || src[1] !== 139 || src[2] !== 8) throw new Error("markers: not a gzip stream");
    var flg = src[3];
    if (flg & 4) pos += 2 + (src[10] | src[11] << 8);
    if (flg & 8) while (pos < n && src[pos++]) { /* the name */ }
    if (flg & 16) while (pos < n && src[pos++]) { /* the comment */ }
    if (flg & 2) pos += 2;
    if (!(size >= 0) || size > n * 1032 + 1024) throw new Error("markers: " + size + " bytes cannot come from a gzip stream of " + n);
    var out = this.out = new Uint8Array(size), st = { pos: pos, op: 0, bb: 0, bc: 0, last: 0, crc: 0 };
    this.step = function (limit) { return inflate(src, out, st, limit); };
  };
  PK.gunzip = function (src, size) { var z = new PK.Gunzip(src, size); z.step(Infinity); return z.out; };

  function inflate(src, out, st, limit) {
    var n = src.length, size = out.length, pos = st.pos, op = st.op, bb = st.bb, bc = st.bc, last = st.last;
    var bad = function (what) { return new Error("markers: the gzip stream " + what + " (at byte " + pos + ")"); };
    var stop = op + limit, op0 = op;
    while (!last && op < stop) {
      while (bc < 3) { bb |= (src[pos++] | 0) << bc; bc += 8; }
      last = bb & 1;
      var type = (bb >>> 1) & 3;
      bb >>>= 3; bc -= 3;
      if (type === 0) {
        // a byte boundary: give back the whole bytes the bit buffer holds
        pos -= bc >> 3; bb = 0; bc = 0;
        if (pos + 4 > n) throw bad("is cut short");
        var len = src[pos] | src[pos + 1] << 8, nlen = src[pos + 2] | src[pos + 3] << 8;
        pos += 4;
        if ((len ^ 0xffff) !== nlen) throw bad("has a stored block with a bad length");
        if (pos + len > n || op + len > size) throw bad("has a stored block past its end");
        out.set(src.subarray(pos, pos + len), op);
        pos += len; op += len;
        continue;
      }
      var lt, dt;
      if (type === 1) { lt = fixed()[0]; dt = fixed()[1]; }
      else if (type === 2) {
        while (bc < 14) { bb |= (src[pos++] | 0) << bc; bc += 8; }
        var hlit = (bb & 31) + 257, hdist = ((bb >>> 5) & 31) + 1, hclen = ((bb >>> 10) & 15) + 4;
        bb >>>= 14; bc -= 14;
        if (hlit > 286 || hdist > 30) throw bad("has too many codes");
        var cl = new Uint8Array(19);
        for (var i = 0; i < hclen; i++) {
          while (bc < 3) { bb |= (src[pos++] | 0) << bc; bc += 8; }
          cl[ORDER[i]] = bb & 7; bb >>>= 3; bc -= 3;
        }
        var ct = huffman(cl), lens = new Uint8Array(hlit + hdist);
        for (i = 0; i < hlit + hdist;) {
          while (bc < ct.bits) { bb |= (src[pos++] | 0) << bc; bc += 8; }
          var e = ct.t[bb & ((1 << ct.bits) - 1)], el = e & 15, sym = e >> 4;
          if (!el) throw bad("has a bad code length code");
          bb >>>= el; bc -= el;
          if (sym < 16) { lens[i++] = sym; continue; }
          var rep, val = 0;
          while (bc < 7) { bb |= (src[pos++] | 0) << bc; bc += 8; }
          if (sym === 16) {
            if (!i) throw bad("repeats a length before the first");
            val = lens[i - 1]; rep = 3 + (bb & 3); bb >>>= 2; bc -= 2;
          } else if (sym === 17) { rep = 3 + (bb & 7); bb >>>= 3; bc -= 3; }
          else { rep = 11 + (bb & 127); bb >>>= 7; bc -= 7; }
          if (i + rep > hlit + hdist) throw bad("repeats lengths past the codes");
          lens.fill(val, i, i + rep); i += rep;
        }
        if (!lens[256]) throw bad("has no end-of-block code");
        lt = huffman(lens.subarray(0, hlit)); dt = huffman(lens.subarray(hlit));
      } else throw bad("has a block of type 3");
      var lTab = lt.t, lBits = lt.bits, lMask = (1 << lBits) - 1, dTab = dt.t, dBits = dt.bits, dMask = (1 << dBits) - 1;
      for (;;) {
        while (bc < lBits) {
          if (pos >= n) throw bad("is cut short");   // (its 8-byte trailer follows the last code)
          bb |= src[pos++] << bc; bc += 8;
        }
        var le = lTab[bb & lMask], ll = le & 15, s = le >> 4;
        if (!ll) throw bad("has a bad literal/length code");
        bb >>>= ll; bc -= ll;
        if (s < 256) {
          if (op >= size) throw bad("holds more than the " + size + " bytes expected");
          out[op++] = s;
          continue;
        }
        if (s === 256) break;
        s -= 257;
        if (s >= 29) throw bad("has a bad length symbol");
        var x = LEXTRA[s];
        while (bc < x) { bb |= (src[pos++] | 0) << bc; bc += 8; }
        var length = LBASE[s] + (bb & ((1 << x) - 1));
        bb >>>= x; bc -= x;
        while (bc < dBits) { bb |= (src[pos++] | 0) << bc; bc += 8; }
        var de = dTab[bb & dMask], dl = de & 15, ds = de >> 4;
        if (!dl || ds >= 30) throw bad("has a bad distance code");
        bb >>>= dl; bc -= dl;
        x = DEXTRA[ds];
        while (bc < x) { bb |= (src[pos++] | 0) << bc; bc += 8; }
        var dist = DBASE[ds] + (bb & ((1 << x) - 1));
        bb >>>= x; bc -= x;
        if (dist > op) throw bad("reaches back before its start");
        if (op + length > size) throw bad("holds more than the " + size + " bytes expected");
        for (var to = op + length; op < to; op++) out[op] = out[op - dist];
      }
      if (pos - (bc >> 3) > n) throw bad("is cut short");
    }
    st.pos = pos; st.op = op; st.bb = bb; st.bc = bc; st.last = last;
    st.crc = crc32(st.crc, out, op0, op);
    if (!last) return false;
    if (op !== size) throw bad("holds " + op + " bytes, not the " + size + " expected");
    // the trailer: the bytes' CRC-32 and their count, after the last block's last whole byte
    var t = pos - (bc >> 3);
    if (t + 8 > n) throw bad("is cut short");
    pos = t;
    if ((src[t] | src[t + 1] << 8 | src[t + 2] << 16 | src[t + 3] << 24) !== st.crc) throw bad("is damaged: its CRC-32 is not its bytes'");
    if ((src[t + 4] | src[t + 5] << 8 | src[t + 6] << 16 | src[t + 7] << 24) >>> 0 !== size % 4294967296) throw bad("is damaged: its size is not its bytes'");
    return true;
  }
})(typeof globalThis !== "undefined" ? (globalThis.profkit = globalThis.profkit || {}) : (this.profkit = this.profkit || {}));
