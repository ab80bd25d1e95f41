/*
 * gecko_gen.c: writes a large raw Gecko profile (version 36) for the
 * gecko benchmark (bench/gecko.sh).
 *
 * Usage: gecko_gen OUT SIZE_MB [THREADS] [SEED]
 *
 * The shape follows what Firefox writes: meta first, libs, then per thread
 * `samples`, `markers`, `stackTable`, `frameTable` and the `stringTable`
 * last (so a reader has to hold a thread's samples until its tables come).
 * Per thread: 40 k strings (native "Ns::Class::method (in libxul.so)", JS
 * "name (https://host/path/file.js:LINE:COL)" and addresses), 100 k frames,
 * a 400 k-node stack tree grown by random descent, then samples and markers
 * until the thread's share of SIZE_MB is written: about a quarter of the
 * bytes are samples ([stack, time, eventDelay, threadCPUDelta], stacks drawn
 * with a power law, 1 ms apart with jitter), the rest mostly markers (30
 * names, 6 categories, interval and instant phases, payloads from ~3000
 * distinct DOMEvent/GC/IPC/Text shapes). Deterministic for a seed.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng = 88172645463325252ull;
static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}
static uint32_t below(uint32_t n) { return (uint32_t)(next() % n); }
static double unit(void) { return (double)(next() >> 11) / 9007199254740992.0; }
/* power law over [0, n): small indexes are hot */
static uint32_t zipf(uint32_t n)
{
    double u = unit();
    uint32_t v = (uint32_t)((double)n * u * u * u);
    return v < n ? v : n - 1;
}

static FILE *out;
static uint64_t written;
static void put(const char *s)
{
    size_t n = strlen(s);
    fwrite(s, 1, n, out);
    written += n;
}
static void putf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
#include <stdarg.h>
static void putf(const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n > 0) {
        fwrite(buf, 1, (size_t)n, out);
        written += (uint64_t)n;
    }
}

static const char *const ns[] = { "mozilla", "js", "nsThread", "mozilla::dom", "mozilla::layers",
                                   "mozilla::net", "mozilla::gfx", "JS", "nsGlobalWindowInner", "std" };
static const char *const verbs[] = { "Run", "Process", "Dispatch", "Paint", "Flush", "Compute",
                                     "Invoke", "Call", "Resolve", "Schedule", "Collect", "Trace" };
static const char *const nouns[] = { "Event", "Frame", "Layer", "Task", "Script", "Style", "Layout",
                                     "Request", "Buffer", "Promise", "Node", "Atom", "Shape" };
static const char *const libs[] = { "libxul.so", "libc.so.6", "libmozglue.so", "libnss3.so",
                                    "libglib-2.0.so.0", "libpthread.so.0", "libgtk-3.so.0" };
static const char *const hosts[] = { "www.example.com", "cdn.example.net", "static.shop.example",
                                     "apps.example.org" };
static const char *const marker_names[] = {
    "DOMEvent", "GCMinor", "GCSlice", "GCMajor", "CC", "Paint", "Styles", "Reflow",
    "IPC", "Network", "Text", "Log", "RefreshDriverTick", "Composite", "Awake",
    "Runnable", "setTimeout", "requestAnimationFrame", "JSActorMessage", "Jank",
    "FileIO", "PreferenceRead", "MainThreadLongTask", "Rasterize", "Image Paint",
    "DOMContentLoaded", "Load", "Navigation", "TTFI", "BHR-detected hang"
};
static const char *const event_types[] = { "mousemove", "click", "keydown", "scroll", "wheel",
                                           "pointerdown", "focus", "input", "message", "load" };

static void payload(void)
{
    switch (below(6)) {
    case 0:
        putf("{\"type\":\"DOMEvent\",\"eventType\":\"%s\",\"latency\":%u,\"innerWindowID\":%llu}",
             event_types[below(10)], below(20), 8589934592ull + below(8));
        break;
    case 1:
        putf("{\"type\":\"GCMinor\",\"nursery\":{\"status\":\"complete\",\"reason\":\"%s\",\"bytes_tenured\":%u}}",
             below(2) ? "OUT_OF_NURSERY" : "FULL_CELL_PTR_BUFFER", 4096 * below(40));
        break;
    case 2:
        putf("{\"type\":\"IPC\",\"otherPid\":\"%u\",\"messageType\":\"PContent::Msg_%s%s\",\"direction\":\"%s\",\"phase\":\"endpoint\",\"sync\":false}",
             1000 + below(4), verbs[below(12)], nouns[below(13)], below(2) ? "sending" : "receiving");
        break;
    case 3: put("{\"type\":\"tracing\",\"category\":\"Paint\"}"); break;
    case 4: putf("{\"type\":\"Text\",\"name\":%u}", below(64)); break;
    default: put("null"); break;
    }
}

static void thread(unsigned t, uint64_t budget, double t0)
{
    const uint32_t n_strings = 40000, n_frames = 100000, n_stacks = 400000;
    uint64_t start = written;
    putf("{\"name\":\"%s\",\"processType\":\"%s\",\"processName\":\"%s\",\"pid\":\"%u\",\"tid\":%u,"
         "\"registerTime\":%.3f,\"unregisterTime\":null,",
         t == 0 ? "GeckoMain" : t == 1 ? "Renderer" : t == 2 ? "Compositor" : "DOM Worker",
         t < 4 ? "default" : "tab", t < 4 ? "Parent Process" : "WebContent", 4000 + t / 4, 4000 + t,
         t0);
    /* samples first, like Gecko; ~25% of the thread's bytes */
    put("\"samples\":{\"schema\":{\"stack\":0,\"time\":1,\"eventDelay\":2,\"threadCPUDelta\":3},\"data\":[");
    double time = t0;
    uint64_t sample_budget = budget / 4;
    int first = 1;
    while (written - start < sample_budget) {
        time += 1.0 + (double)below(200) / 1000.0 + unit() / 1000.0;
        uint32_t stack = zipf(n_stacks);
        if (below(8) == 0)
            putf("%s[%u,%.6f,%.3f,%u]", first ? "" : ",", stack, time, unit() * 4, below(3000));
        else
            putf("%s[%u,%.6f,0,%u]", first ? "" : ",", stack, time, below(3000));
        first = 0;
    }
    put("]},");
    /* markers, up to the thread's budget less its tables (~15%) */
    put("\"markers\":{\"schema\":{\"name\":0,\"startTime\":1,\"endTime\":2,\"phase\":3,\"category\":4,\"data\":5},\"data\":[");
    double mt = t0;
    first = 1;
    uint64_t marker_budget = budget - budget / 7;
    while (written - start < marker_budget) {
        mt += unit() * 2;
        uint32_t name = n_strings + below(30);
        put(first ? "[" : ",[");
        first = 0;
        if (below(3) == 0)
            putf("%u,%.6f,null,0,%u,", name, mt, below(6));
        else
            putf("%u,%.6f,%.6f,1,%u,", name, mt, mt + unit() * 5, below(6));
        payload();
        put("]");
    }
    put("]},");
    /* the stack tree: each node a child of an earlier one */
    put("\"stackTable\":{\"schema\":{\"prefix\":0,\"frame\":1},\"data\":[");
    for (uint32_t i = 0; i < n_stacks; i++) {
        if (i < 16)
            putf("%s[null,%u]", i ? "," : "", below(n_frames));
        else
            putf(",[%u,%u]", i - 1 - zipf(i - 1 < 50000 ? i - 1 : 50000), below(n_frames));
    }
    put("]},");
    put("\"frameTable\":{\"schema\":{\"location\":0,\"relevantForJS\":1,\"innerWindowID\":2,"
        "\"implementation\":3,\"line\":4,\"column\":5,\"category\":6,\"subcategory\":7},\"data\":[");
    for (uint32_t i = 0; i < n_frames; i++) {
        uint32_t loc = below(n_strings);
        if (loc % 3 == 1)
            putf("%s[%u,false,%u,null,%u,%u,%u,0]", i ? "," : "", loc, below(3), 1 + below(5000),
                 1 + below(120), below(8));
        else
            putf("%s[%u,false,0,null,null,null,%u,%u]", i ? "," : "", loc, below(8), below(4));
    }
    put("]},");
    put("\"stringTable\":[");
    for (uint32_t i = 0; i < n_strings; i++) {
        put(i ? ",\"" : "\"");
        switch (i % 3) {
        case 0:
            putf("%s::%s%s::%s%s (in %s)", ns[below(10)], nouns[below(13)], nouns[below(13)],
                 verbs[below(12)], nouns[below(13)], libs[below(7)]);
            break;
        case 1:
            putf("%s%s%u (https://%s/static/js/%s.%08x.js:%u:%u)", verbs[below(12)], nouns[below(13)],
                 i, hosts[below(4)], nouns[below(13)], (unsigned)next(), 1 + below(9000),
                 1 + below(200));
            break;
        default: putf("0x%llx", 0x7f0000000000ull + (unsigned long long)(next() % 0x10000000)); break;
        }
        put("\"");
    }
    for (unsigned k = 0; k < 30; k++)
        putf(",\"%s\"", marker_names[k]);
    put("]}");
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: gecko_gen OUT SIZE_MB [THREADS] [SEED]\n");
        return 2;
    }
    uint64_t size = strtoull(argv[2], NULL, 10) * 1000000ull;
    unsigned threads = argc > 3 ? (unsigned)atoi(argv[3]) : 8;
    if (argc > 4)
        rng ^= strtoull(argv[4], NULL, 10) * 0x9e3779b97f4a7c15ull;
    out = fopen(argv[1], "wb");
    if (!out || threads == 0) {
        perror(argv[1]);
        return 1;
    }
    static char buf[1 << 20];
    setvbuf(out, buf, _IOFBF, sizeof buf);
    put("{\"meta\":{\"version\":36,\"startTime\":1700000000000.123,\"interval\":1,\"stackwalk\":1,"
        "\"product\":\"Firefox\",\"platform\":\"X11\",\"oscpu\":\"Linux x86_64\",\"abi\":\"x86_64-gcc3\","
        "\"categories\":[{\"name\":\"Idle\",\"color\":\"transparent\",\"subcategories\":[\"Other\"]},"
        "{\"name\":\"Other\",\"color\":\"grey\",\"subcategories\":[\"Other\"]},"
        "{\"name\":\"Layout\",\"color\":\"purple\",\"subcategories\":[\"Other\"]},"
        "{\"name\":\"JavaScript\",\"color\":\"yellow\",\"subcategories\":[\"Other\"]},"
        "{\"name\":\"GC / CC\",\"color\":\"orange\",\"subcategories\":[\"Other\"]},"
        "{\"name\":\"Network\",\"color\":\"lightblue\",\"subcategories\":[\"Other\"]}]},\"libs\":[");
    for (unsigned i = 0; i < 7; i++)
        putf("%s{\"start\":%llu,\"end\":%llu,\"offset\":0,\"name\":\"%s\",\"path\":\"/usr/lib/firefox/%s\","
             "\"debugName\":\"%s\",\"debugPath\":\"/usr/lib/firefox/%s\",\"breakpadId\":\"%016llX0\",\"arch\":\"x86_64\"}",
             i ? "," : "", 0x7f0000000000ull + i * 0x1000000ull, 0x7f0000000000ull + i * 0x1000000ull + 0xffffff,
             libs[i], libs[i], libs[i], libs[i], (unsigned long long)next());
    put("],\"threads\":[");
    uint64_t per = size / threads;
    for (unsigned t = 0; t < threads; t++) {
        if (t)
            put(",");
        thread(t, per > 20000000 ? per - 10000000 : per / 2, 100.0 + t);
    }
    put("],\"processes\":[],\"pausedRanges\":[]}\n");
    if (fclose(out) != 0) {
        perror(argv[1]);
        return 1;
    }
    return 0;
}
