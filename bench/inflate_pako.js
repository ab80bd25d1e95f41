"use strict";
// The page's PK.Gunzip interface (src/report/flame/page/11_inflate.js) on
// pako's inflater (Debian's node-pako, dist/pako_inflate.min.js, loaded
// before this): the variant bench/inflate_page.mjs measures against the
// page's own inflater. Same contract: new PK.Gunzip(src, size), step(limit)
// true when done (limit: about that many bytes of output per step),
// out: the size bytes; a stream holding other than size bytes, cut short or
// damaged throws "markers: the gzip stream ...".
(function (PK) {
  var pako = globalThis.pako;
  PK.Gunzip = function (src, size) {
    var n = src.length;
    if (n < 18 || src[0] !== 31 || src[1] !== 139 || src[2] !== 8) throw new Error("markers: not a gzip stream");
    if (!(size >= 0) || size > n * 1032 + 1024) throw new Error("markers: " + size + " bytes cannot come from a gzip stream of " + n);
    var self = this, inf = new pako.Inflate({ chunkSize: Math.max(size, 1024) }), got = 0, ip = 0, chunks = [];
    var bad = function (what) { return new Error("markers: the gzip stream " + what + " (at byte " + ip + ")"); };
    inf.onData = function (c) {
      got += c.length;
      if (got > size) throw bad("holds more than the " + size + " bytes expected");
      chunks.push(c);
    };
    this.out = null;
    this.step = function (limit) {
      var k = limit === Infinity ? n - ip : Math.max(4096, limit >> 2);
      while (k > 0 && ip < n && !inf.ended) {
        var e = Math.min(n, ip + k);
        inf.push(src.subarray(ip, e), false);
        k -= e - ip; ip = e;
        if (inf.err) throw bad("is damaged: " + (inf.msg || "error " + inf.err));
      }
      if (!inf.ended) {
        if (ip < n) return false;
        throw bad("is cut short");
      }
      if (got !== size) throw bad("holds " + got + " bytes, not the " + size + " expected");
      if (chunks.length === 1 && chunks[0].length === size) self.out = chunks[0];
      else { self.out = new Uint8Array(size); for (var i = 0, o = 0; i < chunks.length; o += chunks[i++].length) self.out.set(chunks[i], o); }
      return true;
    };
  };
  PK.gunzip = function (src, size) { var z = new PK.Gunzip(src, size); z.step(Infinity); return z.out; };
})(globalThis.profkit = globalThis.profkit || {});
