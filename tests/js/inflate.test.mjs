// The page's inflater (src/report/flame/page/11_inflate.js) on its own:
// each of deflate's block kinds (stored, fixed, dynamic; checked in the
// stream, so each really occurs) against Node's zlib, in one step and a
// slice at a time; a damaged stream (every byte of a small one changed in
// turn) gives the inflated bytes exactly or an error that says
// "markers: ..." (its CRC-32 catches what decodes to wrong bytes); and
// such an error leaves the page's markers empty and says why (12_time.js).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import vm from "node:vm";
import zlib from "node:zlib";
import { pageDir } from "./make_page.mjs";

const ctx = vm.createContext({ atob, TextDecoder });
for (const f of ["10_data.js", "11_inflate.js", "12_time.js"])
  vm.runInContext(readFileSync(join(pageDir, f), "utf8"), ctx, { filename: f });
const PK = ctx.profkit;

// Seeded bytes: text-like runs (matches for the LZ77 part) and noise.
function bytes(n, seed) {
  const b = Buffer.alloc(n);
  let s = seed;
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    b[i] = (i >> 6) % 3 ? 97 + (i % 13) : s >>> 24;
  }
  return b;
}
// The deflate block types in a gzip stream with no name or extra field
// (Node's): the first block's BTYPE (bits 1-2 of byte 10).
const firstType = (gz) => (gz[10] >> 1) & 3;

const KINDS = [
  ["stored", { level: 0 }, 0],
  ["fixed", { level: 6, strategy: zlib.constants.Z_FIXED }, 1],
  ["dynamic", { level: 6 }, 2],
  ["dynamic, Huffman only", { level: 6, strategy: zlib.constants.Z_HUFFMAN_ONLY }, 2],
];

for (const [name, opts, type] of KINDS) {
  test(`gunzip: ${name} blocks, whole and a slice per step`, () => {
    for (const input of [Buffer.alloc(0), Buffer.from("abcabcabcabc"), bytes(300000, 7)]) {
      const gz = new Uint8Array(zlib.gzipSync(input, opts));
      if (input.length > 100) assert.equal(firstType(gz), type, "the stream's first block is " + name);
      assert.deepEqual(Buffer.from(PK.gunzip(gz, input.length)), input);
      const z = new PK.Gunzip(gz, input.length);
      let steps = 1;
      while (!z.step(4096)) steps++;
      assert.deepEqual(Buffer.from(z.out), input);
      // a block or more per step
      if (input.length > 100000) assert.ok(steps >= 3, name + ": inflated in " + steps + " steps");
    }
  });
}

test("gunzip: a damaged stream inflates to the bytes exactly or says 'markers: ...'", () => {
  const input = bytes(3000, 11);
  for (const [name, opts] of KINDS) {
    const gz = new Uint8Array(zlib.gzipSync(input, opts));
    let caught = 0;
    for (let i = 0; i < gz.length; i++)
      for (const flip of [1, 0x80]) {
        const bad = gz.slice();
        bad[i] ^= flip;
        let out = null;
        try { out = PK.gunzip(bad, input.length); } catch (e) {
          assert.ok(e && e.constructor.name === "Error" && /^markers: /.test(e.message), name + ", byte " + i + ": " + e);
          caught++;
          continue;
        }
        // only the header's time, flags' unused bits and OS byte may change unseen
        assert.deepEqual(Buffer.from(out), input, name + ": byte " + i + " changed gave other bytes without an error");
      }
    assert.ok(caught > gz.length, name + ": " + caught + " errors");
  }
  // its check value and its size: the trailer's 8 bytes
  const gz = new Uint8Array(zlib.gzipSync(input));
  for (const at of [gz.length - 8, gz.length - 1]) {
    const bad = gz.slice();
    bad[at] ^= 4;
    assert.throws(() => PK.gunzip(bad, input.length), /markers: the gzip stream .*damaged/);
  }
  assert.throws(() => PK.gunzip(gz.subarray(0, gz.length - 4), input.length), /markers: the gzip stream is cut short/);
});

// The packed markers (docs/viewer.md, "markers") of a page whose stream
// is damaged: none are read, and T.markersError says why.
const B85 = "!#$%&'()*+,-./0123456789:;=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[]^_`abcdefghijklmnopqrstuvwx";
const base85 = (buf) => { let out = ""; for (let i = 0; i < buf.length; i += 4) {
  let v = 0; for (let k = 0; k < 4; k++) v = v * 256 + (i + k < buf.length ? buf[i + k] : 0);
  let q = ""; for (let k = 0; k < 5; k++) { q = B85[v % 85] + q; v = Math.floor(v / 85); } out += q; } return out; };
test("markers: a page's damaged stream gives no markers and an error naming it", () => {
  // two markers of one thread, one kind: runs, kinds, starts, no durations or payloads
  const raw = Buffer.from([0, 2, 0, 0, 10, 4]), parts = [2, 2, 2, 0, 0];
  const page = (gz) => new PK.Profile({
    schema: 1, title: "t", strings: ["", "main", "T", "M", "Cat"], values: [{ type: "samples", unit: "count" }], default_value: 0,
    funcs: { name: [1], file: [0], line: [0], module: [0] },
    threads: [{ name: 2, process: 0, pid: 1, tid: 2, index: 0, merged: false, tree: { parent: [-1, 0], func: [-1, 0], self: [[0, 1]] } }],
    time: { zero: 0, end: 100, threads: [{ name: 2, process: 0, pid: 1, tid: 2 }],
            markers: { n: 2, kinds: [3, 4, 0], unit: 1, runs: 1, intervals: 0, with_data: 0,
                       packed: { bytes: raw.length, gz_bytes: gz.length, parts, planes: [0, 0] }, gz: base85(gz) } },
  });
  const gz = zlib.gzipSync(raw, { level: 0 });
  assert.deepEqual(Array.from(page(gz).time().markers.start), [5, 9]);
  const bad = Buffer.from(gz);
  bad[gz.length - 9] ^= 1;                  // the stored block's last byte
  // no markers, and the time line says why (the page's range note shows it)
  const T = page(bad).time();
  assert.equal(T.markers.n, 0);
  assert.match(T.markersError, /^markers: the gzip stream .*damaged/);
  assert.equal(page(gz).time().markersError, null);
});
