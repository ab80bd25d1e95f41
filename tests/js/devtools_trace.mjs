// Loads a Chrome trace with Chrome DevTools' own trace engine (the
// Performance panel's parser, npm @paulirish/trace_engine, installed under
// build/tools by scripts/tools.sh) in Node and prints, as JSON, what the
// engine makes of it:
//   engine      the engine's package version
//   threads     every thread the trace names (the engine's thread_name
//               table): pid, tid, name
//   shown       the threads the panel draws (the engine's threadsInTrace):
//               pid, tid, name, type, entries (trace events + JS calls),
//               calls (the JS calls, the engine's profile calls)
//   profiles    per sampled thread, the engine's parsed CPU profile: pid,
//               tid, id, samples, first and last sample time (µs), per
//               function name {self, total} samples, and `moved`: the
//               samples the engine's profile model gave another node than
//               the trace did (its "(program)" fix-up), each {index, from,
//               to} as leaf function names
//   events      the trace events the panel shows on each thread (its
//               flame chart's non-JS entries): pid, tid, name, ph, ts, dur
//               (µs; begin/end pairs as one complete event)
//   warnings    the engine's warnings, {name: count}
//   console     what the engine printed with console.error / console.warn
//   error       the message when the engine threw (then exit status 2)
// Usage: node devtools_trace.mjs TRACE.json  (PROFKIT_TOOLS names
// build/tools; default: ../../build/tools from this file).
import fs from 'node:fs';
import path from 'node:path';
import url from 'node:url';

const here = path.dirname(url.fileURLToPath(import.meta.url));
const tools = process.env.PROFKIT_TOOLS || path.join(here, '../../build/tools');
const pkg = path.join(tools, 'node_modules/@paulirish/trace_engine');
const file = process.argv[2];
if (!file) {
  console.error('usage: devtools_trace.mjs TRACE.json');
  process.exit(64);
}

const out = {engine: null, threads: [], shown: [], profiles: [], events: [], warnings: {}, console: [], error: null};
for (const level of ['error', 'warn']) {
  console[level] = (...args) => out.console.push(args.map(String).join(' '));
}
function done(status) {
  process.stdout.write(JSON.stringify(out, null, 1) + '\n');
  process.exit(status);
}

try {
  out.engine = JSON.parse(fs.readFileSync(path.join(pkg, 'package.json'), 'utf8')).version;
  // The package's own Node entry: it installs the DOMRect the engine needs.
  await import(url.pathToFileURL(path.join(pkg, 'analyze-trace.mjs')).href);
  const Trace = await import(url.pathToFileURL(path.join(pkg, 'models/trace/trace.js')).href);
  const json = JSON.parse(fs.readFileSync(file, 'utf8'));
  const events = Array.isArray(json) ? json : json.traceEvents;
  const model = Trace.TraceModel.Model.createWithAllHandlers();
  await model.parse(events);
  const data = model.parsedTrace().data;

  for (const [pid, threads] of data.Meta.threadsInProcess)
    for (const [tid, e] of threads) out.threads.push({pid, tid, name: e.args.name});

  for (const t of Trace.Handlers.Threads.threadsInTrace(data)) {
    const calls = t.entries.filter(e => Trace.Types.Events.isProfileCall(e)).length;
    out.shown.push({pid: t.pid, tid: t.tid, name: t.name, type: t.type, entries: t.entries.length, calls});
    for (const e of t.entries) {
      if (Trace.Types.Events.isProfileCall(e)) continue;
      out.events.push({pid: t.pid, tid: t.tid, name: e.name, ph: e.ph, ts: e.ts, dur: e.dur ?? null});
    }
  }

  for (const [pid, threads] of data.Samples.profilesInProcess) {
    for (const [tid, p] of threads) {
      const m = p.parsedProfile;
      const raw = p.rawProfile;
      const samples = m.samples || [];
      const fn = node => node.callFrame.functionName || '(anonymous)';
      const functions = new Map();
      for (const id of samples) {
        const leaf = m.nodeById(id);
        const seen = new Set();
        for (let n = leaf; n && n.parent; n = n.parent) { // the root node is no function
          const name = fn(n);
          if (!functions.has(name)) functions.set(name, {self: 0, total: 0});
          const f = functions.get(name);
          if (n === leaf) f.self++;
          if (!seen.has(name)) { seen.add(name); f.total++; }
        }
      }
      // The trace's own leaf of each sample, put in time order as the
      // engine sorts them (stably, by startTime plus the deltas so far).
      const moved = [];
      const rawIds = raw.samples || [];
      const deltas = raw.timeDeltas || [];
      if (rawIds.length === samples.length && deltas.length === rawIds.length) {
        let t = 0;
        const at = deltas.map(d => (t += d));
        const order = rawIds.map((_, i) => i).sort((a, b) => at[a] - at[b]);
        for (let i = 0; i < samples.length; i++) {
          const a = m.nodeById(rawIds[order[i]]), b = m.nodeById(samples[i]);
          if (a !== b) moved.push({index: i, from: a ? fn(a) : null, to: b ? fn(b) : null});
        }
      }
      const ts = m.timestamps || [];
      out.profiles.push({
        pid, tid, id: p.profileId, samples: samples.length,
        first: samples.length ? Math.round(ts[0] * 1000) : null,
        last: samples.length ? Math.round(ts[samples.length - 1] * 1000) : null,
        functions: Object.fromEntries(functions), moved,
      });
    }
  }

  for (const [name, list] of data.Warnings.perWarning) out.warnings[name] = list.length;
} catch (e) {
  out.error = String(e && e.stack || e);
  done(2);
}
done(0);
