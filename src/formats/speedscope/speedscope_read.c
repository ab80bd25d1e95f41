/*
 * speedscope_read.c: reads speedscope's file format
 * (https://www.speedscope.app/file-format-schema.json, schema 0.x), and holds
 * the format's entry (the writer is speedscope_write.c).
 *
 * A file is `{"$schema", "shared": {"frames": [{name, file, line, col}]},
 * "profiles": [...], "name", "activeProfileIndex", "exporter"}`. A profile
 * is "sampled" (`samples`: arrays of frame indexes, root first, with one
 * `weights` entry each) or "evented" (`events`: {"type": "O"|"C", "at",
 * "frame"} opening and closing frames at times between `startValue` and
 * `endValue`); `unit` says what weights and times count. Keys come in any
 * order, so the reader keeps frames, samples and events as they stream by
 * and builds the model at the end. Each profile is a thread. The rules and
 * our rulings (units, fractional weights, unbalanced events):
 * docs/formats/speedscope.md.
 */
#include "formats/speedscope/speedscope.h"
#include "io/json.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { S_DOC, S_TOP, S_SHARED, S_FRAMES, S_FRAME, S_PROFILES, S_PROFILE, S_SAMPLES, S_SAMPLE,
       S_WEIGHTS, S_EVENTS, S_EVENT, S_END };
enum { U_NONE, U_NS, U_US, U_MS, U_S, U_BYTES };
static const char *const unit_names[] = { "none", "nanoseconds", "microseconds", "milliseconds",
                                          "seconds", "bytes" };
static const double unit_ns[] = { 1, 1, 1e3, 1e6, 1e9, 1 };

typedef struct sframe {
    uint32_t name, file;
    int64_t line, col;
    uint32_t model; /* model frame id, PROFKIT_NONE until made */
} sframe;

typedef struct sevent {
    double at;
    int64_t frame;
    int open;
    uint32_t line, column;
} sevent;

typedef struct sprofile {
    int evented; /* -1 = no type yet */
    uint32_t name;
    int unit;
    double start, end;
    int have_end;
    size_t *offs; /* sample i is idx[offs[i]..offs[i+1]) */
    size_t n_offs, cap_offs;
    double *weights;
    size_t n_weights, cap_weights;
    sevent *events;
    size_t n_events, cap_events;
    uint32_t line, column;                 /* where the profile starts */
    uint32_t samples_line, samples_column; /* where its samples start */
} sprofile;

typedef struct reader {
    profkit_profile *p;
    pk_read_ctx *ctx;
    int state, key;
    sframe *frames;
    size_t n_frames, cap_frames;
    sprofile *profs;
    size_t n_profs, cap_profs;
    int64_t *idx; /* every sample's frame indexes */
    size_t n_idx, cap_idx;
    int have_shared, have_profiles;
} reader;

static int str_is(const pk_json_event *ev, const char *k) { return pk_json_key_is(ev, k); }

static int skip(pk_json *j, const pk_json_event *ev)
{
    if (ev->type == PK_JSON_MAP_START || ev->type == PK_JSON_ARRAY_START)
        pk_json_skip_value(j);
    return 0;
}

#define OOM() pk_json_fail(j, PROFKIT_ENOMEM, "out of memory")
#define WANT(cond, ...)                                                                            \
    do {                                                                                           \
        if (!(cond))                                                                               \
            return pk_json_fail(j, PROFKIT_ECORRUPT, __VA_ARGS__);                                 \
    } while (0)

static int finite_number(const pk_json_event *ev, double *out)
{
    if (ev->type != PK_JSON_NUMBER)
        return 0;
    *out = pk_json_num(ev);
    return isfinite(*out);
}

/* The current profile (the states inside "profiles" have one) and its index. */
static sprofile *cur(reader *r) { return &r->profs[r->n_profs - 1]; }

/* The document: an object. */
static int in_doc(pk_json *j, reader *r, const pk_json_event *ev)
{
    if (ev->type != PK_JSON_MAP_START)
        return pk_json_fail(j, PROFKIT_EFORMAT, "the document: expected an object, found %s",
                            pk_json_type_name(ev->type));
    r->state = S_TOP;
    return 0;
}

/* The top object's keys: "shared" and "profiles"; the rest is skipped. */
static int in_top(pk_json *j, reader *r, const pk_json_event *ev)
{
    if (ev->type == PK_JSON_MAP_END) {
        r->state = S_END;
        return 0;
    }
    if (ev->type == PK_JSON_KEY) {
        r->key = pk_json_key_is(ev, "shared") ? 1 : pk_json_key_is(ev, "profiles") ? 2 : 0;
        return 0;
    }
    if (r->key == 1) {
        WANT(ev->type == PK_JSON_MAP_START, "shared: expected an object, found %s", pk_json_type_name(ev->type));
        r->state = S_SHARED;
        return 0;
    }
    if (r->key == 2) {
        WANT(ev->type == PK_JSON_ARRAY_START, "profiles: expected an array, found %s", pk_json_type_name(ev->type));
        r->have_profiles = 1;
        r->state = S_PROFILES;
        return 0;
    }
    return skip(j, ev);
}

/* "shared": its "frames". */
static int in_shared(pk_json *j, reader *r, const pk_json_event *ev)
{
    if (ev->type == PK_JSON_MAP_END) {
        r->state = S_TOP;
        return 0;
    }
    if (ev->type == PK_JSON_KEY) {
        r->key = pk_json_key_is(ev, "frames");
        return 0;
    }
    if (r->key) {
        WANT(ev->type == PK_JSON_ARRAY_START, "shared.frames: expected an array, found %s", pk_json_type_name(ev->type));
        WANT(!r->have_shared, "shared.frames: a second frame list");
        r->have_shared = 1;
        r->state = S_FRAMES;
        return 0;
    }
    return skip(j, ev);
}

/* "shared.frames": one object per frame. */
static int in_frames(pk_json *j, reader *r, const pk_json_event *ev)
{
    if (ev->type == PK_JSON_ARRAY_END) {
        r->state = S_SHARED;
        return 0;
    }
    WANT(ev->type == PK_JSON_MAP_START, "shared.frames[%zu]: expected an object, found %s",
         r->n_frames, pk_json_type_name(ev->type));
    if (r->n_frames >= UINT32_MAX - 1 ||
        pk_grow((void **)&r->frames, &r->cap_frames, r->n_frames + 1, sizeof(sframe)))
        return OOM();
    r->frames[r->n_frames] = (sframe){ PROFKIT_NONE, 0, 0, 0, PROFKIT_NONE };
    r->n_frames++;
    r->state = S_FRAME;
    return 0;
}

/* A frame: "name", "file", "line", "col". */
static int in_frame(pk_json *j, reader *r, const pk_json_event *ev)
{
    sframe *f = &r->frames[r->n_frames - 1];
    size_t fi = r->n_frames - 1;
    int64_t v;
    if (ev->type == PK_JSON_MAP_END) {
        WANT(f->name != PROFKIT_NONE, "shared.frames[%zu]: expected a \"name\"", fi);
        r->state = S_FRAMES;
        return 0;
    }
    if (ev->type == PK_JSON_KEY) {
        r->key = pk_json_key_is(ev, "name") ? 1 : pk_json_key_is(ev, "file") ? 2 : pk_json_key_is(ev, "line") ? 3
                 : pk_json_key_is(ev, "col") ? 4 : 0;
        return 0;
    }
    if (r->key == 1 || r->key == 2) {
        WANT(ev->type == PK_JSON_STRING, "shared.frames[%zu].%s: expected a string, found %s", fi,
             r->key == 1 ? "name" : "file", pk_json_type_name(ev->type));
        uint32_t s = profkit_string_intern(r->p, ev->str, ev->len);
        if (s == PROFKIT_NONE)
            return OOM();
        if (r->key == 1)
            f->name = s;
        else
            f->file = s;
        return 0;
    }
    if (r->key == 3 || r->key == 4) {
        if (ev->type == PK_JSON_NULL)
            return 0;
        WANT(pk_json_as_int(ev, &v), "shared.frames[%zu].%s: expected an integer, found %s", fi,
             r->key == 3 ? "line" : "col", ev->type == PK_JSON_NUMBER ? "a fraction or huge number" : pk_json_type_name(ev->type));
        if (v < 0 || v >= UINT32_MAX)
            v = 0;
        if (r->key == 3)
            f->line = v;
        else
            f->col = v;
        return 0;
    }
    return skip(j, ev);
}

/* "profiles": one object per profile. */
static int in_profiles(pk_json *j, reader *r, const pk_json_event *ev)
{
    if (ev->type == PK_JSON_ARRAY_END) {
        r->state = S_TOP;
        return 0;
    }
    WANT(ev->type == PK_JSON_MAP_START, "profiles[%zu]: expected an object, found %s", r->n_profs,
         pk_json_type_name(ev->type));
    if (r->n_profs >= UINT32_MAX - 1 ||
        pk_grow((void **)&r->profs, &r->cap_profs, r->n_profs + 1, sizeof(sprofile)))
        return OOM();
    sprofile *pr = &r->profs[r->n_profs++];
    memset(pr, 0, sizeof *pr);
    pr->evented = -1;
    pk_json_where(j, &pr->line, &pr->column);
    r->state = S_PROFILE;
    return 0;
}

/* A profile's keys; its samples, weights and events are lists of their own. */
static int in_profile(pk_json *j, reader *r, const pk_json_event *ev)
{
    sprofile *pr = cur(r);
    size_t pi = r->n_profs - 1;
    double d;
    if (ev->type == PK_JSON_MAP_END) {
        WANT(pr->evented >= 0, "profiles[%zu]: expected a \"type\" (\"sampled\" or \"evented\")", pi);
        r->state = S_PROFILES;
        return 0;
    }
    if (ev->type == PK_JSON_KEY) {
        r->key = pk_json_key_is(ev, "type") ? 1 : pk_json_key_is(ev, "name") ? 2 : pk_json_key_is(ev, "unit") ? 3
                 : pk_json_key_is(ev, "startValue") ? 4 : pk_json_key_is(ev, "endValue") ? 5
                 : pk_json_key_is(ev, "samples") ? 6 : pk_json_key_is(ev, "weights") ? 7
                 : pk_json_key_is(ev, "events") ? 8 : 0;
        return 0;
    }
    switch (r->key) {
    case 1:
        WANT(ev->type == PK_JSON_STRING && (str_is(ev, "sampled") || str_is(ev, "evented")),
             "profiles[%zu].type: expected \"sampled\" or \"evented\"", pi);
        pr->evented = str_is(ev, "evented");
        return 0;
    case 2:
        WANT(ev->type == PK_JSON_STRING, "profiles[%zu].name: expected a string, found %s", pi, pk_json_type_name(ev->type));
        pr->name = profkit_string_intern(r->p, ev->str, ev->len);
        return pr->name == PROFKIT_NONE ? OOM() : 0;
    case 3:
        WANT(ev->type == PK_JSON_STRING, "profiles[%zu].unit: expected a string, found %s", pi, pk_json_type_name(ev->type));
        for (int u = 0; u < 6; u++)
            if (str_is(ev, unit_names[u])) {
                pr->unit = u;
                return 0;
            }
        return pk_json_fail(j, PROFKIT_ECORRUPT,
                            "profiles[%zu].unit: expected none, nanoseconds, microseconds, milliseconds, seconds or bytes", pi);
    case 4:
    case 5:
        WANT(finite_number(ev, &d), "profiles[%zu].%s: expected a number, found %s", pi,
             r->key == 4 ? "startValue" : "endValue", pk_json_type_name(ev->type));
        if (r->key == 4)
            pr->start = d;
        else {
            pr->end = d;
            pr->have_end = 1;
        }
        return 0;
    case 6:
        WANT(ev->type == PK_JSON_ARRAY_START, "profiles[%zu].samples: expected an array, found %s", pi, pk_json_type_name(ev->type));
        WANT(pr->n_offs == 0, "profiles[%zu].samples: a second sample list", pi);
        pk_json_where(j, &pr->samples_line, &pr->samples_column);
        r->state = S_SAMPLES;
        return 0;
    case 7:
        WANT(ev->type == PK_JSON_ARRAY_START, "profiles[%zu].weights: expected an array, found %s", pi, pk_json_type_name(ev->type));
        WANT(pr->n_weights == 0, "profiles[%zu].weights: a second weight list", pi);
        r->state = S_WEIGHTS;
        return 0;
    case 8:
        WANT(ev->type == PK_JSON_ARRAY_START, "profiles[%zu].events: expected an array, found %s", pi, pk_json_type_name(ev->type));
        WANT(pr->n_events == 0, "profiles[%zu].events: a second event list", pi);
        r->state = S_EVENTS;
        return 0;
    default: return skip(j, ev);
    }
}

/* "samples": one array of frame indexes per sample. */
static int in_samples(pk_json *j, reader *r, const pk_json_event *ev)
{
    sprofile *pr = cur(r);
    size_t pi = r->n_profs - 1;
    if (ev->type == PK_JSON_ARRAY_END) {
        r->state = S_PROFILE;
        return 0;
    }
    WANT(ev->type == PK_JSON_ARRAY_START, "profiles[%zu].samples[%zu]: expected an array of frame indexes, found %s",
         pi, pr->n_offs ? pr->n_offs - 1 : 0, pk_json_type_name(ev->type));
    if (pk_grow((void **)&pr->offs, &pr->cap_offs, (pr->n_offs + 1) + 1, sizeof(size_t)))
        return OOM();
    if (pr->n_offs == 0)
        pr->offs[pr->n_offs++] = r->n_idx;
    pr->offs[pr->n_offs++] = r->n_idx; /* the sample's end, moved as indexes come */
    r->state = S_SAMPLE;
    return 0;
}

/* A sample: frame indexes, root first. */
static int in_sample(pk_json *j, reader *r, const pk_json_event *ev)
{
    sprofile *pr = cur(r);
    size_t pi = r->n_profs - 1;
    int64_t v;
    if (ev->type == PK_JSON_ARRAY_END) {
        r->state = S_SAMPLES;
        return 0;
    }
    WANT(pk_json_as_int(ev, &v) && v >= 0, "profiles[%zu].samples[%zu]: expected a frame index, found %s",
         pi, pr->n_offs - 2,
         ev->type == PK_JSON_NUMBER ? "a fraction, negative or huge number" : pk_json_type_name(ev->type));
    if (pk_grow((void **)&r->idx, &r->cap_idx, r->n_idx + 1, sizeof(int64_t)))
        return OOM();
    r->idx[r->n_idx++] = v;
    pr->offs[pr->n_offs - 1] = r->n_idx;
    return 0;
}

/* "weights": one number per sample. */
static int in_weights(pk_json *j, reader *r, const pk_json_event *ev)
{
    sprofile *pr = cur(r);
    size_t pi = r->n_profs - 1;
    double d;
    if (ev->type == PK_JSON_ARRAY_END) {
        r->state = S_PROFILE;
        return 0;
    }
    WANT(finite_number(ev, &d) && d >= 0, "profiles[%zu].weights[%zu]: expected a number 0 or more, found %s",
         pi, pr->n_weights, ev->type == PK_JSON_NUMBER ? "a negative or huge number" : pk_json_type_name(ev->type));
    if (pk_grow((void **)&pr->weights, &pr->cap_weights, (pr->n_weights) + 1, sizeof(double)))
        return OOM();
    pr->weights[pr->n_weights++] = d;
    return 0;
}

/* "events": one object per event. */
static int in_events(pk_json *j, reader *r, const pk_json_event *ev)
{
    sprofile *pr = cur(r);
    size_t pi = r->n_profs - 1;
    if (ev->type == PK_JSON_ARRAY_END) {
        r->state = S_PROFILE;
        return 0;
    }
    WANT(ev->type == PK_JSON_MAP_START, "profiles[%zu].events[%zu]: expected an object, found %s", pi,
         pr->n_events, pk_json_type_name(ev->type));
    if (pk_grow((void **)&pr->events, &pr->cap_events, (pr->n_events) + 1, sizeof(sevent)))
        return OOM();
    pr->events[pr->n_events] = (sevent){ NAN, -1, -1, 0, 0 };
    pk_json_where(j, &pr->events[pr->n_events].line, &pr->events[pr->n_events].column);
    pr->n_events++;
    r->state = S_EVENT;
    return 0;
}

/* An event: "type" (O or C), "at", "frame". */
static int in_event(pk_json *j, reader *r, const pk_json_event *ev)
{
    sprofile *pr = cur(r);
    size_t pi = r->n_profs - 1;
    sevent *e = &pr->events[pr->n_events - 1];
    size_t ei = pr->n_events - 1;
    int64_t v;
    double d;
    if (ev->type == PK_JSON_MAP_END) {
        WANT(e->open >= 0 && e->frame >= 0 && !isnan(e->at),
             "profiles[%zu].events[%zu]: expected \"type\", \"at\" and \"frame\"", pi, ei);
        r->state = S_EVENTS;
        return 0;
    }
    if (ev->type == PK_JSON_KEY) {
        r->key = pk_json_key_is(ev, "type") ? 1 : pk_json_key_is(ev, "at") ? 2 : pk_json_key_is(ev, "frame") ? 3 : 0;
        return 0;
    }
    switch (r->key) {
    case 1:
        WANT(ev->type == PK_JSON_STRING && (str_is(ev, "O") || str_is(ev, "C")),
             "profiles[%zu].events[%zu].type: expected \"O\" or \"C\"", pi, ei);
        e->open = str_is(ev, "O");
        return 0;
    case 2:
        WANT(finite_number(ev, &d), "profiles[%zu].events[%zu].at: expected a number, found %s", pi, ei,
             pk_json_type_name(ev->type));
        e->at = d;
        return 0;
    case 3:
        WANT(pk_json_as_int(ev, &v) && v >= 0, "profiles[%zu].events[%zu].frame: expected a frame index, found %s",
             pi, ei, ev->type == PK_JSON_NUMBER ? "a fraction, negative or huge number" : pk_json_type_name(ev->type));
        e->frame = v;
        return 0;
    default: return skip(j, ev);
    }
}

/* Each JSON event goes to the part of the document the reader is in. */
static int on_event(pk_json *j, void *payload, const pk_json_event *ev)
{
    reader *r = payload;
    switch (r->state) {
    case S_DOC: return in_doc(j, r, ev);
    case S_TOP: return in_top(j, r, ev);
    case S_SHARED: return in_shared(j, r, ev);
    case S_FRAMES: return in_frames(j, r, ev);
    case S_FRAME: return in_frame(j, r, ev);
    case S_PROFILES: return in_profiles(j, r, ev);
    case S_PROFILE: return in_profile(j, r, ev);
    case S_SAMPLES: return in_samples(j, r, ev);
    case S_SAMPLE: return in_sample(j, r, ev);
    case S_WEIGHTS: return in_weights(j, r, ev);
    case S_EVENTS: return in_events(j, r, ev);
    case S_EVENT: return in_event(j, r, ev);
    default: return 0;
    }
}

/* ---- building the model ---- */

static uint32_t model_frame(reader *r, int64_t i)
{
    sframe *f = &r->frames[i];
    if (f->model != PROFKIT_NONE)
        return f->model;
    profkit_function fn = { f->name, 0, f->file, 0, (uint32_t)f->line };
    uint32_t id = pk_function_add(r->p, &fn);
    if (id == PROFKIT_NONE)
        return PROFKIT_NONE;
    profkit_frame fr = { 0, id, (uint32_t)f->line, (uint32_t)f->col, PROFKIT_NONE, 0, 0, 0, 0 };
    f->model = pk_frame_add(r->p, &fr);
    return f->model;
}

/* Value classes: time (any of the four time units), bytes, none. */
static int unit_class(int u) { return u == U_BYTES ? 1 : u == U_NONE ? 2 : 0; }

static int64_t to_int(double x)
{
    double y = floor(x + 0.5);
    return y >= 9.2e18 ? INT64_MAX : (int64_t)y;
}

static int add_row(reader *r, uint32_t stack, uint32_t thread, int64_t w, uint32_t vcol, uint32_t scol)
{
    int64_t vals[3] = { 0, 0, 0 };
    vals[vcol] = w;
    if (scol != PROFKIT_NONE)
        vals[scol] = 1;
    return pk_sample_add(r->p, stack, thread, vals);
}

/* A timed row (an evented profile's interval, at its start in ns). */
static int add_row_timed(reader *r, uint32_t stack, uint32_t thread, int64_t time, int64_t w,
                         uint32_t vcol)
{
    int64_t vals[3] = { 0, 0, 0 };
    vals[vcol] = w;
    return pk_sample_add_timed(r->p, stack, thread, time, vals);
}

/* Metadata KEY = ns as milliseconds with every digit ("12.000345"). */
static int put_ms(profkit_profile *p, const char *key, int64_t ns)
{
    char v[48];
    uint64_t a = ns < 0 ? 0 - (uint64_t)ns : (uint64_t)ns;
    snprintf(v, sizeof v, "%s%llu.%06u", ns < 0 ? "-" : "", (unsigned long long)(a / 1000000),
             (unsigned)(a % 1000000));
    return pk_meta_add(p, key, v);
}

static int build(reader *r)
{
    profkit_profile *p = r->p;
    pk_read_ctx *ctx = r->ctx;
    if (!r->have_profiles || !r->have_shared)
        return pk_read_fail(ctx, PROFKIT_EFORMAT, -1,
                                 "expected the keys \"shared\" (with \"frames\") and \"profiles\" of a speedscope file");
    /* the unit of each class: a time class of one unit with whole weights
     * keeps it, else nanoseconds; fractional bytes or counts are rounded */
    int time_unit = -1, mixed = 0, fractional[3] = { 0, 0, 0 }, used[3] = { 0, 0, 0 }, any_sampled = 0;
    for (size_t i = 0; i < r->n_profs; i++) {
        sprofile *pr = &r->profs[i];
        int c = unit_class(pr->unit);
        used[c] = 1;
        any_sampled |= !pr->evented;
        if (c == 0) {
            if (time_unit >= 0 && time_unit != pr->unit)
                mixed = 1;
            time_unit = pr->unit;
        }
        for (size_t k = 0; k < pr->n_weights && !pr->evented; k++)
            if (pr->weights[k] != floor(pr->weights[k]))
                fractional[c] = 1;
        for (size_t k = 0; k < pr->n_events && pr->evented; k++)
            if (pr->events[k].at != floor(pr->events[k].at) || pr->start != floor(pr->start) ||
                pr->end != floor(pr->end))
                fractional[c] = 1;
    }
    int time_target = time_unit < 0 ? U_NS : (mixed || fractional[0]) ? U_NS : time_unit;
    /* Timed (one row per interval, at its start in ns) when every profile
     * is evented in a time unit: speedscope's sampled profiles have no
     * times, and `at` in bytes or none is no time. The root range is the
     * profiles' startValue .. endValue (the last event without one). */
    int timed = r->n_profs > 0;
    int64_t t_start = INT64_MAX, t_end = INT64_MIN;
    for (size_t i = 0; i < r->n_profs && timed; i++) {
        const sprofile *pr = &r->profs[i];
        if (!pr->evented || unit_class(pr->unit) != 0) {
            timed = 0;
            break;
        }
        double a = pr->start, b = pr->have_end ? pr->end : pr->n_events ? pr->events[pr->n_events - 1].at : a;
        if (pr->n_events && pr->events[0].at < a)
            a = pr->events[0].at;
        int64_t an = to_int(a * unit_ns[pr->unit]), bn = to_int(b * unit_ns[pr->unit]);
        if (an < t_start)
            t_start = an;
        if (bn > t_end)
            t_end = bn;
    }
    if (timed && t_end >= t_start &&
        (put_ms(p, "profilingStartTime", t_start) || put_ms(p, "profilingEndTime", t_end)))
        return pk_read_fail(ctx, PROFKIT_ENOMEM, -1, "out of memory");
    uint32_t col[3] = { PROFKIT_NONE, PROFKIT_NONE, PROFKIT_NONE }, scol = PROFKIT_NONE;
    static const char *const class_names[] = { "time", "space", "weight" };
    for (int c = 0; c < 3; c++)
        if (used[c]) {
            const char *unit = c == 0 ? unit_names[time_target] : c == 1 ? "bytes" : "count";
            if ((col[c] = pk_value_type_add(p, class_names[c], unit)) == PROFKIT_NONE)
                return pk_read_fail(ctx, PROFKIT_ENOMEM, -1, "out of memory");
        }
    if (any_sampled && (scol = pk_value_type_add(p, "samples", "count")) == PROFKIT_NONE)
        return pk_read_fail(ctx, PROFKIT_ENOMEM, -1, "out of memory");
    if (p->n_value_types > 3)
        return pk_read_fail(ctx, PROFKIT_ENOMEM, -1, "out of memory");
    if (r->n_profs)
        p->default_value = col[unit_class(r->profs[0].unit)];
    if ((fractional[1] || fractional[2]) &&
        pk_read_warn(ctx, PROFKIT_ECORRUPT, -1,
                          "fractional weights in a profile of unit %s: rounded to whole numbers",
                          fractional[1] ? "bytes" : "none") != 0)
        return PROFKIT_ECORRUPT;

    for (size_t i = 0; i < r->n_profs; i++) {
        sprofile *pr = &r->profs[i];
        int c = unit_class(pr->unit);
        double scale = c == 0 ? unit_ns[pr->unit] / unit_ns[time_target] : 1;
        char name[32];
        snprintf(name, sizeof name, "profile %zu", i);
        uint32_t th = pk_thread_add(p, pr->name ? pk_str(p, pr->name) : name, "", -1, -1);
        if (th == PROFKIT_NONE)
            return pk_read_fail(ctx, PROFKIT_ENOMEM, -1, "out of memory");
        if (!pr->evented) {
            size_t ns = pr->n_offs ? pr->n_offs - 1 : 0;
            if (ns != pr->n_weights)
                return pk_read_fail_pos(ctx, PROFKIT_ECORRUPT, pr->line, pr->column,
                                             "profiles[%zu]: expected one weight per sample (%zu), found %zu",
                                             i, ns, pr->n_weights);
            for (size_t s = 0; s < ns; s++) {
                uint32_t stack = 0;
                for (size_t k = pr->offs[s]; k < pr->offs[s + 1]; k++) {
                    if ((uint64_t)r->idx[k] >= r->n_frames)
                        return pk_read_fail_pos(ctx, PROFKIT_ECORRUPT, pr->samples_line, pr->samples_column,
                                                     "profiles[%zu].samples[%zu]: frame index %lld out of range (shared.frames has %zu)",
                                                     i, s, (long long)r->idx[k], r->n_frames);
                    uint32_t f = model_frame(r, r->idx[k]);
                    if (f == PROFKIT_NONE || (stack = pk_stack_intern(p, stack, f)) == PROFKIT_NONE)
                        return pk_read_fail(ctx, PROFKIT_ENOMEM, -1, "out of memory");
                }
                if (add_row(r, stack, th, to_int(pr->weights[s] * scale), col[c], scol))
                    return pk_read_fail(ctx, PROFKIT_ENOMEM, -1, "out of memory");
            }
            continue;
        }
        /* evented: the open frames' stack holds from one event to the next */
        uint32_t stack = 0;
        size_t depth = 0;
        double last = pr->n_events ? pr->events[0].at : pr->start;
        for (size_t e = 0; e <= pr->n_events; e++) {
            double at = e < pr->n_events ? pr->events[e].at : pr->have_end ? pr->end : last;
            if (at < last) {
                if (e == pr->n_events)
                    at = last; /* an endValue before the last event ends nothing */
                else
                    return pk_read_fail_pos(ctx, PROFKIT_ECORRUPT, pr->events[e].line, pr->events[e].column,
                                                 "profiles[%zu].events[%zu].at: expected %g or later (events in time order), found %g",
                                                 i, e, last, at);
            }
            if (depth > 0 && at > last &&
                (timed ? add_row_timed(r, stack, th, to_int(last * unit_ns[pr->unit]),
                                       to_int((at - last) * scale), col[c])
                       : add_row(r, stack, th, to_int((at - last) * scale), col[c], PROFKIT_NONE)))
                return pk_read_fail(ctx, PROFKIT_ENOMEM, -1, "out of memory");
            last = at;
            if (e == pr->n_events)
                break;
            const sevent *ev = &pr->events[e];
            if ((uint64_t)ev->frame >= r->n_frames)
                return pk_read_fail_pos(ctx, PROFKIT_ECORRUPT, ev->line, ev->column,
                                             "profiles[%zu].events[%zu].frame: frame index %lld out of range (shared.frames has %zu)",
                                             i, e, (long long)ev->frame, r->n_frames);
            uint32_t f = model_frame(r, ev->frame);
            if (f == PROFKIT_NONE)
                return pk_read_fail(ctx, PROFKIT_ENOMEM, -1, "out of memory");
            if (ev->open) {
                if ((stack = pk_stack_intern(p, stack, f)) == PROFKIT_NONE)
                    return pk_read_fail(ctx, PROFKIT_ENOMEM, -1, "out of memory");
                depth++;
            } else {
                if (depth == 0 || p->stacks[stack].frame != f)
                    return pk_read_fail_pos(ctx, PROFKIT_ECORRUPT, ev->line, ev->column,
                                                 "profiles[%zu].events[%zu]: closes frame %lld, which is not the innermost open frame",
                                                 i, e, (long long)ev->frame);
                stack = p->stacks[stack].parent;
                depth--;
            }
        }
        if (depth > 0 &&
            pk_read_warn_pos(ctx, PROFKIT_ECORRUPT, pr->line, pr->column,
                                  "profiles[%zu]: %zu frame%s still open after the last event; closed at endValue",
                                  i, depth, depth == 1 ? "" : "s") != 0)
            return PROFKIT_ECORRUPT;
    }
    return 0;
}

static int speedscope_read(profkit_profile *p, pk_read_ctx *ctx)
{
    reader r;
    memset(&r, 0, sizeof r);
    r.p = p;
    r.ctx = ctx;
    int rc = pk_json_parse_source(ctx, on_event, &r);
    size_t n_alloc = r.n_profs; /* a cut may build fewer; all are freed */
    if (rc == PROFKIT_ETRUNCATED && r.state != S_DOC) {
        /* keep the profiles that were complete before the cut */
        profkit_error cut = *ctx->err;
        size_t complete = r.n_profs;
        if (r.state != S_TOP && r.state != S_END && r.state != S_SHARED && r.state != S_PROFILES)
            complete = r.state >= S_PROFILE ? r.n_profs - 1 : r.n_profs;
        if (r.state == S_FRAMES || r.state == S_FRAME || complete == 0 || !r.have_shared) {
            rc = PROFKIT_ETRUNCATED;
        } else {
            r.n_profs = complete;
            r.have_profiles = 1;
            rc = build(&r);
            if (!rc)
                rc = pk_read_warn_pos(ctx, PROFKIT_ETRUNCATED, cut.line, cut.column,
                                           "%s; kept the %zu complete profile%s before the cut",
                                           cut.message, complete, complete == 1 ? "" : "s");
        }
        if (rc == PROFKIT_ETRUNCATED)
            *ctx->err = cut;
    } else if (!rc) {
        rc = build(&r);
    }
    for (size_t i = 0; i < n_alloc; i++) {
        free(r.profs[i].offs);
        free(r.profs[i].weights);
        free(r.profs[i].events);
    }
    free(r.profs);
    free(r.frames);
    free(r.idx);
    return rc;
}

static int head_has(const uint8_t *d, size_t n, const char *needle)
{
    size_t k = strlen(needle);
    for (size_t i = 0; i + k <= n; i++)
        if (d[i] == (uint8_t)needle[0] && memcmp(d + i, needle, k) == 0)
            return 1;
    return 0;
}

/* A JSON object naming speedscope's schema, or with its keys. */
static int speedscope_sniff(const uint8_t *d, size_t n, int complete)
{
    (void)complete;
    size_t i = 0;
    while (i < n && (d[i] == ' ' || d[i] == '\n' || d[i] == '\r' || d[i] == '\t'))
        i++;
    if (i == n || d[i] != '{')
        return 0;
    if (head_has(d, n, "speedscope.app/file-format-schema.json"))
        return 100;
    return head_has(d, n, "\"shared\"") && head_has(d, n, "\"frames\"") && head_has(d, n, "\"profiles\"")
               ? 80
               : 0;
}

const pk_format pk_format_speedscope = {
    { "speedscope", "speedscope.app JSON", ".speedscope.json", 1, 1 },
    speedscope_sniff,
    speedscope_read,
    pk_speedscope_write,
};
