"use strict";
// The page's PK.Gunzip interface on the browser's DecompressionStream
// ("gzip"): the asynchronous variant bench/inflate_page.mjs measures. It
// cannot give the bytes at once: step(Infinity) before the stream is done
// throws (what T.markers and window.profkit.query("markers") would meet),
// step(limit) is false until then; `waiting` tells 12_time.js's loop (as
// the benchmark patches it) to yield instead of polling for 8 ms.
(function (PK) {
  PK.Gunzip = function (src, size) {
    var self = this, done = false, err = null;
    if (src.length < 18 || src[0] !== 31 || src[1] !== 139 || src[2] !== 8) throw new Error("markers: not a gzip stream");
    this.out = null; this.waiting = true;
    new Response(new Blob([src]).stream().pipeThrough(new DecompressionStream("gzip"))).arrayBuffer().then(
      function (b) { self.out = new Uint8Array(b); done = true; }, function (e) { err = e; done = true; });
    this.step = function (limit) {
      if (err) throw new Error("markers: the gzip stream is damaged: " + err.message);
      if (!done) {
        if (limit === Infinity) throw new Error("markers: not inflated yet (DecompressionStream is asynchronous)");
        return false;
      }
      self.waiting = false;
      if (self.out.length !== size) throw new Error("markers: the gzip stream holds " + self.out.length + " bytes, not the " + size + " expected");
      return true;
    };
  };
})(globalThis.profkit = globalThis.profkit || {});
