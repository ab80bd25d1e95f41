/*
 * flame_svg.c: a static flame graph SVG in the style of flamegraph.pl: the
 * root at the bottom, callees above their callers, siblings in name order,
 * widths by one value type; a <title> on every frame (name, value in its
 * unit, share of the total), names cut to fit with "..", inlined frames
 * marked " (inline)" (or " (partial-inline)"), colours from a
 * hash of the name (in a diff: red where NEW grew, blue where it shrank).
 * A small script searches (highlighting matches and giving the share they
 * cover) and zooms on click. The tree is the page's (flame_tree.c), so it
 * is bounded the same way.
 */
#include "report/flame/flame.h"

#include <math.h>
#include <stdlib.h>

#include "analysis/analysis.h"

#define SVG_WIDTH 1200.0
#define SVG_PAD 10.0
#define FRAME_H 16
#define FONT_SIZE 12.0
#define FONT_WIDTH 0.59 /* average character width in font sizes (Verdana) */
#define MIN_WIDTH 0.1   /* frames narrower than this many pixels are not drawn */

struct name_ctx {
    const flame_data *d;
    const flame_scope *s;
};

static const char *node_name(const flame_data *d, const flame_scope *s, size_t i, size_t *len)
{
    int32_t f = s->func[i];
    const char *n = f == FLAME_ROOT ? "all" : f == FLAME_OTHER ? "(other)" : NULL;
    if (n) {
        *len = strlen(n);
        return n;
    }
    return pk_flame_func_name(d, (size_t)f, len);
}

static int by_name(const void *ctx, uint32_t a, uint32_t b)
{
    const struct name_ctx *c = ctx;
    size_t la, lb;
    const char *na = node_name(c->d, c->s, a, &la), *nb = node_name(c->d, c->s, b, &lb);
    int r = memcmp(na, nb, la < lb ? la : lb);
    return r ? r : la < lb ? -1 : la > lb;
}

/* A stable colour from the name (the same in every run: not the tables'
 * hash, whose secret is drawn per process): flamegraph.pl's "hot" palette. */
static void hot_colour(char *buf, size_t n, const char *name, size_t len)
{
    uint64_t h = pk_fnv1a(PK_FNV_START, name, len);
    h ^= h >> 29; /* the high bits' mixing down into the three fields */
    h *= 0xbf58476d1ce4e5b9ull;
    h ^= h >> 32;
    double v1 = (double)(h & 0xffff) / 65535.0, v2 = (double)((h >> 16) & 0xffff) / 65535.0,
           v3 = (double)((h >> 32) & 0xffff) / 65535.0;
    snprintf(buf, n, "rgb(%d,%d,%d)", 205 + (int)(50 * v3), (int)(230 * v1), (int)(55 * v2));
}

/* Red for growth, blue for shrinkage, white for none; by the change's size
 * against the largest change. */
static void diff_colour(char *buf, size_t n, double delta, double max_delta)
{
    int k = max_delta > 0 ? (int)(210 * fabs(delta) / max_delta) : 0;
    if (delta > 0)
        snprintf(buf, n, "rgb(255,%d,%d)", 255 - k, 255 - k);
    else
        snprintf(buf, n, "rgb(%d,%d,255)", 255 - k, 255 - k);
}

/* The search and zoom script. Names come from the titles ("NAME (...)"). */
static const char svg_script[] =
    "<script type=\"text/ecmascript\"><![CDATA[\n"
    "'use strict';\n"
    "var W = %.1f, P = %.1f, frames = [], matched = null, details, svg;\n"
    "function name(g) { var t = g.querySelector('title').textContent; return t.slice(0, t.lastIndexOf(' (')); }\n"
    "function init() {\n"
    "  svg = document.documentElement; details = document.getElementById('details');\n"
    "  var gs = document.querySelectorAll('g.f');\n"
    "  for (var i = 0; i < gs.length; i++) {\n"
    "    var r = gs[i].querySelector('rect');\n"
    "    frames.push({ g: gs[i], r: r, t: gs[i].querySelector('text'), n: name(gs[i]),\n"
    "      x: +r.getAttribute('x'), w: +r.getAttribute('width'), y: +r.getAttribute('y'), fill: r.getAttribute('fill') });\n"
    "    gs[i].addEventListener('mouseover', function () { details.textContent = this.querySelector('title').textContent; });\n"
    "    gs[i].addEventListener('mouseout', function () { details.textContent = ' '; });\n"
    "    gs[i].addEventListener('click', function (e) { zoom(this); });\n"
    "  }\n"
    "  document.getElementById('unzoom').addEventListener('click', function () { zoom(null); });\n"
    "  document.getElementById('search').addEventListener('click', search);\n"
    "  window.addEventListener('keydown', function (e) { if (e.keyCode === 114 || ((e.ctrlKey || e.metaKey) && e.keyCode === 70)) { e.preventDefault(); search(); } });\n"
    "}\n"
    "function fit(f, x, w) {\n"
    "  f.r.setAttribute('x', x.toFixed(1)); f.r.setAttribute('width', w.toFixed(1));\n"
    "  if (!f.t) return;\n"
    "  f.t.setAttribute('x', (x + 3).toFixed(1));\n"
    "  var c = Math.floor(w / (%.1f * %.2f));\n"
    "  f.t.textContent = c < 3 ? '' : f.n.length <= c ? f.n : f.n.slice(0, c - 2) + '..';\n"
    "}\n"
    "function zoom(g) {\n"
    "  var z = null;\n"
    "  for (var i = 0; i < frames.length; i++) if (frames[i].g === g) z = frames[i];\n"
    "  document.getElementById('unzoom').style.opacity = z ? 1 : 0;\n"
    "  for (var i = 0; i < frames.length; i++) {\n"
    "    var f = frames[i];\n"
    "    if (!z) { f.g.style.display = ''; f.g.style.opacity = 1; fit(f, f.x, f.w); continue; }\n"
    "    var inside = f.x >= z.x - 1e-6 && f.x + f.w <= z.x + z.w + 1e-6;\n"
    "    if (f.y <= z.y && inside) { f.g.style.display = ''; f.g.style.opacity = 1;\n"
    "      fit(f, P + (f.x - z.x) * (W - 2 * P) / z.w, f.w * (W - 2 * P) / z.w); }\n"
    "    else if (f.y > z.y && f.x <= z.x + 1e-6 && f.x + f.w >= z.x + z.w - 1e-6) {\n"
    "      f.g.style.display = ''; f.g.style.opacity = 0.5; fit(f, P, W - 2 * P); }\n"
    "    else f.g.style.display = 'none';\n"
    "  }\n"
    "}\n"
    "function search() {\n"
    "  var term = matched === null ? prompt('Search for (a regular expression):', '') : null;\n"
    "  var m = document.getElementById('matched');\n"
    "  for (var i = 0; i < frames.length; i++) frames[i].r.setAttribute('fill', frames[i].fill);\n"
    "  if (!term) { matched = null; m.textContent = ' '; document.getElementById('search').textContent = 'Search'; return; }\n"
    "  var re; try { re = new RegExp(term); } catch (e) { m.textContent = 'bad expression'; return; }\n"
    "  var hits = [];\n"
    "  for (var i = 0; i < frames.length; i++) if (re.test(frames[i].n)) { frames[i].r.setAttribute('fill', 'rgb(230,0,230)'); hits.push(frames[i]); }\n"
    "  hits.sort(function (a, b) { return a.x - b.x || b.w - a.w; });\n"
    "  var sum = 0, end = -1;\n"
    "  for (var i = 0; i < hits.length; i++) if (hits[i].x >= end - 1e-6) { sum += hits[i].w; end = hits[i].x + hits[i].w; }\n"
    "  matched = term; document.getElementById('search').textContent = 'Reset search';\n"
    "  m.textContent = 'Matched: ' + (100 * sum / (W - 2 * P)).toFixed(1) + '%%';\n"
    "}\n"
    "window.addEventListener('load', init);\n"
    "]]></script>\n";

static int render_svg(flame_out *out, const profkit_profile *p, const profkit_flame_options *o,
                      profkit_error *err)
{
    flame_data d;
    int rc = pk_flame_build(&d, p, o, 1, err);
    int64_t *tot = NULL, *btot = NULL;
    uint32_t *cstart = NULL, *child = NULL, *fill = NULL, *stack = NULL, *depth = NULL;
    double *x = NULL;
    char *label = NULL;
    if (rc)
        goto done;
    rc = PROFKIT_ENOMEM;
    const flame_scope *s = &d.scopes[0];
    size_t n = s->n, v = d.value;
    if (!(tot = malloc(n * sizeof(int64_t))) || !(btot = calloc(n, sizeof(int64_t))) ||
        !(cstart = calloc(n + 1, sizeof(uint32_t))) || !(child = malloc(n * sizeof(uint32_t))) ||
        !(fill = malloc(n * sizeof(uint32_t))) || !(stack = malloc(n * sizeof(uint32_t))) ||
        !(depth = calloc(n, sizeof(uint32_t))) || !(x = calloc(n, sizeof(double))))
        goto oom;
    for (size_t i = 0; i < n; i++) {
        tot[i] = s->self[v * n + i] > 0 ? s->self[v * n + i] : 0;
        if (s->base_self)
            btot[i] = s->base_self[v * n + i] > 0 ? s->base_self[v * n + i] : 0;
    }
    uint32_t max_depth = 0;
    for (size_t i = 1; i < n; i++) {
        depth[i] = depth[s->parent[i]] + 1;
        if (depth[i] > max_depth)
            max_depth = depth[i];
    }
    for (size_t i = n; i-- > 1;) {
        pk_sat_addto(&tot[s->parent[i]], tot[i]);
        pk_sat_addto(&btot[s->parent[i]], btot[i]);
        cstart[s->parent[i] + 1]++;
    }
    for (size_t i = 0; i < n; i++)
        cstart[i + 1] += cstart[i];
    for (size_t i = 0; i < n; i++)
        fill[i] = cstart[i];
    for (size_t i = 1; i < n; i++)
        child[fill[s->parent[i]]++] = (uint32_t)i;
    struct name_ctx nc = { &d, s };
    for (size_t i = 0; i < n; i++)
        if (cstart[i + 1] - cstart[i] > 1 &&
            pk_sort_u32(child + cstart[i], cstart[i + 1] - cstart[i], by_name, &nc) != 0)
            goto oom;
    /* x of each node: its first child starts where it does, each next
     * child where the previous one ends (children in name order). */
    double total = tot[0] > 0 ? (double)tot[0] : 1, scale = (SVG_WIDTH - 2 * SVG_PAD) / total;
    x[0] = SVG_PAD;
    size_t sp = 0;
    stack[sp++] = 0;
    while (sp) {
        uint32_t i = stack[--sp];
        double cx = x[i];
        for (uint32_t j = cstart[i]; j < cstart[i + 1]; j++) {
            x[child[j]] = cx;
            cx += (double)tot[child[j]] * scale;
            stack[sp++] = child[j];
        }
    }
    double max_delta = 0;
    if (s->base_self) {
        double bscale = tot[0] && btot[0] ? (double)tot[0] / (double)btot[0] : 1;
        for (size_t i = 0; i < n; i++)
            max_delta = fmax(max_delta, fabs((double)tot[i] - (double)btot[i] * bscale));
    }
    const char *unit = pk_str(p, p->value_types[v].unit);
    const char *title = o->title ? o->title : "";
    int height = (int)(max_depth + 1) * FRAME_H + 84;
    if ((rc = pk_flame_out_open(out, err)) != 0)
        goto done;
    pk_buf *b = pk_sink_buf(out->k);
    pk_buf_printf(b,
                 "<?xml version=\"1.0\" standalone=\"no\"?>\n"
                 "<svg version=\"1.1\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
                 "xmlns=\"http://www.w3.org/2000/svg\" xmlns:xlink=\"http://www.w3.org/1999/xlink\">\n",
                 (int)SVG_WIDTH, height, (int)SVG_WIDTH, height);
    pk_buf_printf(b, "<style type=\"text/css\">text { font-family: Verdana, sans-serif; font-size: %.0fpx; fill: #000; }\n"
                    "g.f:hover rect { stroke: #000; stroke-width: 0.5; cursor: pointer; }\n"
                    "#search, #unzoom { cursor: pointer; } #unzoom { opacity: 0; }</style>\n",
                 FONT_SIZE);
    pk_buf_printf(b, svg_script, SVG_WIDTH, SVG_PAD, FONT_SIZE, FONT_WIDTH);
    pk_buf_printf(b, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#f8f8f8\"/>\n", (int)SVG_WIDTH,
                 height);
    pk_buf_printf(b, "<text x=\"%.1f\" y=\"24\" text-anchor=\"middle\" style=\"font-size:17px\">",
                 SVG_WIDTH / 2);
    pk_buf_xml(b, title, strlen(title));
    pk_buf_puts(b, "</text>\n<text x=\"");
    pk_buf_printf(b, "%.1f\" y=\"24\" id=\"unzoom\">Reset Zoom</text>\n", SVG_PAD);
    pk_buf_printf(b, "<text x=\"%.1f\" y=\"24\" id=\"search\" text-anchor=\"end\">Search</text>\n",
                 SVG_WIDTH - SVG_PAD);
    pk_buf_printf(b, "<text x=\"%.1f\" y=\"%d\" id=\"details\"> </text>\n", SVG_PAD, height - 17);
    pk_buf_printf(b, "<text x=\"%.1f\" y=\"%d\" id=\"matched\" text-anchor=\"end\"> </text>\n",
                 SVG_WIDTH - SVG_PAD, height - 17);
    /* Frames in depth-first order, so a frame's <g> comes after its caller's. */
    sp = 0;
    stack[sp++] = 0;
    while (sp) {
        uint32_t i = stack[--sp];
        double w = (double)tot[i] * scale;
        if (w < MIN_WIDTH && i != 0)
            continue;
        for (uint32_t j = cstart[i + 1]; j-- > cstart[i];)
            stack[sp++] = child[j];
        size_t len;
        const char *name = node_name(&d, s, i, &len);
        /* an inlined frame says so (as the page's labels and top's rows):
         * its name and mark are the frame's label */
        const uint8_t *inl = s->inlv ? s->inlv + v * n : s->inl;
        const char *mark = !inl || i == 0 || !(inl[i] & 1) ? "" : inl[i] & 2 ? " (partial-inline)" : " (inline)";
        if (*mark) {
            size_t ml = strlen(mark);
            char *nm = realloc(label, len + ml + 1);
            if (!nm)
                goto oom;
            label = nm;
            memcpy(label, name, len);
            memcpy(label + len, mark, ml + 1);
            name = label;
            len += ml;
        }
        char val[64], pct[32], colour[48];
        pk_format_value(val, sizeof(val), tot[i], unit);
        pk_format_pct(pct, sizeof(pct), (double)tot[i], (double)tot[0]);
        if (s->base_self) {
            double bscale = tot[0] && btot[0] ? (double)tot[0] / (double)btot[0] : 1;
            diff_colour(colour, sizeof(colour), (double)tot[i] - (double)btot[i] * bscale, max_delta);
        } else {
            hot_colour(colour, sizeof(colour), name, len);
        }
        int y = height - 50 - (int)(depth[i] + 1) * FRAME_H;
        pk_buf_puts(b, "<g class=\"f\"><title>");
        pk_buf_xml(b, name, len);
        pk_buf_printf(b, " (%s, %s", val, pct);
        if (s->base_self) {
            char bval[64];
            pk_format_value(bval, sizeof(bval), btot[i], unit);
            pk_buf_printf(b, "; base %s", bval);
        }
        pk_buf_printf(b, ")</title><rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\" rx=\"2\"/>",
                     x[i], y, w, FRAME_H - 1, colour);
        /* The name cut to what fits, at a character boundary. */
        size_t fit = (size_t)(w / (FONT_SIZE * FONT_WIDTH)), cut = 0, chars = 0;
        while (cut < len && chars < fit) {
            size_t k = 1;
            while (cut + k < len && ((uint8_t)name[cut + k] & 0xc0) == 0x80)
                k++;
            cut += k;
            chars++;
        }
        pk_buf_printf(b, "<text x=\"%.1f\" y=\"%d\">", x[i] + 3, y + FRAME_H - 4);
        if (fit >= 3) {
            if (cut < len) {
                /* drop two characters for ".." */
                for (int drop = 0; drop < 2 && cut > 0; drop++) {
                    cut--;
                    while (cut > 0 && ((uint8_t)name[cut] & 0xc0) == 0x80)
                        cut--;
                }
                pk_buf_xml(b, name, cut);
                pk_buf_puts(b, "..");
            } else {
                pk_buf_xml(b, name, len);
            }
        }
        pk_buf_puts(b, "</text></g>\n");
    }
    pk_buf_puts(b, "</svg>\n");
    rc = 0;
    goto done;
oom:
    rc = pk_error_set(err, PROFKIT_ENOMEM, NULL, -1, "out of memory rendering the flame graph");
done:
    free(tot);
    free(btot);
    free(cstart);
    free(child);
    free(fill);
    free(stack);
    free(depth);
    free(x);
    free(label);
    pk_flame_data_free(&d);
    return pk_flame_out_close(out, rc, err);
}

static int render(flame_out *out, const profkit_profile *p, const profkit_flame_options *opts,
                  profkit_error *err)
{
    profkit_flame_options o;
    if (opts)
        o = *opts;
    else
        profkit_flame_options_init(&o);
    return render_svg(out, p, &o, err);
}

int profkit_flame_render_svg(char **out, size_t *len, const profkit_profile *p,
                             const profkit_flame_options *o, profkit_error *err)
{
    flame_out fo;
    pk_flame_out_init(&fo, NULL, out, len);
    return render(&fo, p, o, err);
}

int profkit_flame_write_svg(const profkit_profile *p, const char *path,
                            const profkit_flame_options *o, profkit_error *err)
{
    flame_out fo;
    pk_flame_out_init(&fo, path, NULL, NULL);
    return render(&fo, p, o, err);
}
