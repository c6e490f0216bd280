/*
 * export_flamegraph.c - `export flamegraph`: an interactive, self-contained SVG flame
 * graph of the call tree in the selected view, filters applied.
 *
 * Each call-tree node is a frame whose width is its inclusive value of the export metric
 * (export.h) over the total: the widths of a function's frames add up to its share
 * (recursion aside). The root, <Total>, is at the bottom; children sit above their parent,
 * left to right by name, as flamegraph.pl draws them. Frames narrower than 0.1 px are left
 * out with everything above them.
 *
 * Interaction (a small script inside the file; without scripts the picture is still
 * complete): hovering a frame shows its name, value and share at the bottom (and as a
 * tooltip); clicking zooms to it (its ancestors span the width, dimmed); "Reset Zoom" or
 * Escape returns; "Search" highlights the functions matching a regular expression and
 * shows their share. The URL fragment "#zoom=f12" opens zoomed to frame f12.
 *
 * Each frame is <g class="f" id="fN" data-x data-w data-d> (position and width in metric
 * units, depth) holding <title>, <rect> and <text>; the <svg> carries data-total (the
 * root's value) and data-width (the drawing width in px). Tests rely on these names.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "export.h"
#include "hash.h"
#include "view.h"

#define FG_WIDTH    1200.0 /* image width, px */
#define FG_PAD      10.0
#define FG_FRAME    16.0 /* frame height, px */
#define FG_TOP      48.0
#define FG_BOTTOM   34.0
#define FG_MIN_PX   0.1
#define FG_MAXDEPTH 4096 /* bounds the recursion on damaged data */

typedef struct fg {
    hpa_ctx *ctx;
    FILE *out;
    const hpa_calltree *t;
    const hpa_profile *p;
    unsigned metric;
    uint64_t total;
    double scale; /* px per metric unit */
    unsigned maxdepth;
    double height;
    uint32_t *kids; /* scratch for sorting children */
} fg;

static uint64_t incl(const fg *F, uint32_t n)
{
    return F->t->incl[(size_t)n * F->t->nm + F->metric];
}

static const char *name_of(const fg *F, uint32_t n)
{
    return n == 0 ? "<Total>" : hpa_symtab_func(F->p->syms, F->t->nodes[n].func)->name;
}

/* Depth of the deepest frame wide enough to draw. */
static unsigned depth_of(const fg *F, uint32_t n, unsigned d)
{
    unsigned max = d;
    if (d + 1 >= FG_MAXDEPTH)
        return max;
    for (uint32_t c = F->t->nodes[n].first_child; c; c = F->t->nodes[c].next_sibling)
        if ((double)incl(F, c) * F->scale >= FG_MIN_PX) {
            unsigned x = depth_of(F, c, d + 1);
            if (x > max)
                max = x;
        }
    return max;
}

/* flamegraph.pl's warm palette, with colors of their own for MPI, OpenMP and pseudo
 * frames and for the C library. */
static void color(const fg *F, uint32_t n, char *buf, size_t cap)
{
    const char *name = name_of(F, n);
    const char *mod = n ? hpa_symtab_func(F->p->syms, F->t->nodes[n].func)->module : "";
    uint64_t h = hpa_hash_bytes(name, strlen(name), 0); /* a function keeps its color */
    double a = (h & 0xff) / 255.0, b = (h >> 8 & 0xff) / 255.0;
    int r, g, bl;
    if (strncmp(name, "<OMP-", 5) == 0) {
        r = 150 + (int)(40 * a), g = 110 + (int)(40 * b), bl = 210;
    } else if (strncmp(name, "MPI_", 4) == 0 || strncmp(name, "PMPI_", 5) == 0) {
        r = 80 + (int)(40 * a), g = 140 + (int)(50 * b), bl = 220;
    } else if (name[0] == '<') {
        r = g = bl = 190 + (int)(30 * a);
    } else if (strncmp(mod, "libc.so", 7) == 0 || strncmp(mod, "ld-linux", 8) == 0 ||
               strncmp(mod, "libm.so", 7) == 0) {
        r = 200 + (int)(40 * a), g = 190 + (int)(40 * b), bl = 60;
    } else {
        r = 205 + (int)(50 * a), g = (int)(230 * b), bl = (int)(55 * (1 - a));
    }
    snprintf(buf, cap, "rgb(%d,%d,%d)", r, g, bl);
}

static void value_text(const fg *F, uint64_t raw, char *buf, size_t cap)
{
    const hpa_metric *m = &F->p->metrics.m[F->metric];
    double v = (double)raw * m->scale;
    double pct = F->total ? 100.0 * (double)raw / (double)F->total : 0;
    if (m->time)
        snprintf(buf, cap, "%.3f s, %.2f%%", v, pct);
    else
        snprintf(buf, cap, "%.0f %s, %.2f%%", v, m->unit[0] ? m->unit : m->key, pct);
}

static void label(FILE *f, const char *name, double px)
{
    int fit = (int)((px - 6) / 7);
    if (fit < 3)
        return;
    if ((int)strlen(name) <= fit) {
        hpa_xml_text(f, name);
        return;
    }
    char buf[1024];
    snprintf(buf, sizeof(buf), "%.*s..", fit - 2 < 1000 ? fit - 2 : 1000, name);
    hpa_xml_text(f, buf);
}

static int by_name(const void *a, const void *b, void *arg)
{
    const fg *F = arg;
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    int c = strcmp(name_of(F, x), name_of(F, y));
    return c ? c : (x > y) - (x < y);
}

static void frame(fg *F, uint32_t n, unsigned depth, uint64_t x0)
{
    uint64_t w = incl(F, n);
    double px = (double)w * F->scale, x = FG_PAD + (double)x0 * F->scale;
    double y = F->height - FG_BOTTOM - (depth + 1) * FG_FRAME;
    char col[64], val[128];
    color(F, n, col, sizeof(col));
    value_text(F, w, val, sizeof(val));
    fprintf(F->out,
            "<g class=\"f\" id=\"f%u\" data-x=\"%" PRIu64 "\" data-w=\"%" PRIu64
            "\" data-d=\"%u\"><title>",
            n, x0, w, depth);
    hpa_xml_text(F->out, name_of(F, n));
    fprintf(F->out,
            " (%s)</title><rect x=\"%.3f\" y=\"%.1f\" width=\"%.3f\" height=\"%.1f\" "
            "fill=\"%s\" rx=\"2\"/><text x=\"%.2f\" y=\"%.1f\">",
            val, x, y, px, FG_FRAME - 1, col, x + 3, y + 11.5);
    label(F->out, name_of(F, n), px);
    fputs("</text></g>\n", F->out);
    if (depth + 1 >= FG_MAXDEPTH)
        return;
    size_t cnt = 0;
    for (uint32_t c = F->t->nodes[n].first_child; c; c = F->t->nodes[c].next_sibling)
        cnt++;
    uint32_t *kids = malloc(sizeof(*kids) * (cnt + 1));
    if (!kids)
        return;
    cnt = 0;
    for (uint32_t c = F->t->nodes[n].first_child; c; c = F->t->nodes[c].next_sibling)
        kids[cnt++] = c;
    qsort_r(kids, cnt, sizeof(*kids), by_name, F);
    uint64_t cx = x0;
    for (size_t i = 0; i < cnt; i++) {
        if ((double)incl(F, kids[i]) * F->scale >= FG_MIN_PX)
            frame(F, kids[i], depth + 1, cx);
        cx += incl(F, kids[i]);
    }
    free(kids);
}

/* The script: works on the <svg> with id ID. */
static const char *const script =
    "(function (ID) {\n"
    "  var svg = document.getElementById(ID);\n"
    "  var W = +svg.getAttribute('data-width'), PAD = 10, total = "
    "+svg.getAttribute('data-total');\n"
    "  var frames = Array.prototype.slice.call(svg.querySelectorAll('g.f'));\n"
    "  var details = svg.querySelector('.details'), reset = svg.querySelector('.reset');\n"
    "  var matched = svg.querySelector('.matched'), zoomed = null;\n"
    "  function num(g, k) { return +g.getAttribute('data-' + k); }\n"
    "  function title(g) { return g.querySelector('title').textContent; }\n"
    "  function name(g) { var t = title(g); return t.substring(0, t.lastIndexOf(' (')); }\n"
    "  function place(g, x, w) {\n"
    "    var r = g.querySelector('rect'), t = g.querySelector('text'), n = name(g);\n"
    "    r.setAttribute('x', x.toFixed(3)); r.setAttribute('width', w.toFixed(3));\n"
    "    t.setAttribute('x', (x + 3).toFixed(2));\n"
    "    var fit = Math.floor((w - 6) / 7);\n"
    "    t.textContent = fit < 3 ? '' : n.length <= fit ? n : n.substring(0, fit - 2) + '..';\n"
    "  }\n"
    "  function zoom(z) {\n"
    "    var zx = num(z, 'x'), zw = num(z, 'w') || 1, zd = num(z, 'd');\n"
    "    frames.forEach(function (g) {\n"
    "      var x = num(g, 'x'), w = num(g, 'w'), d = num(g, 'd');\n"
    "      var inside = x >= zx && x + w <= zx + zw && d >= zd;\n"
    "      var below = d < zd && x <= zx && x + w >= zx + zw;\n"
    "      var px = w / zw * (W - 2 * PAD);\n"
    "      if (!(inside || below) || (inside && px < 0.1)) { g.style.display = 'none'; return; }\n"
    "      g.style.display = '';\n"
    "      g.style.opacity = below ? 0.6 : 1;\n"
    "      if (below) place(g, PAD, W - 2 * PAD);\n"
    "      else place(g, PAD + (x - zx) / zw * (W - 2 * PAD), px);\n"
    "    });\n"
    "    zoomed = zd > 0 ? z : null;\n"
    "    reset.style.opacity = zoomed ? 1 : 0.3;\n"
    "    svg.setAttribute('data-zoom', z.id);\n"
    "  }\n"
    "  var root = frames.filter(function (g) { return num(g, 'd') === 0; })[0];\n"
    "  svg.addEventListener('click', function (e) {\n"
    "    var g = e.target.closest && e.target.closest('g.f');\n"
    "    if (g) zoom(g);\n"
    "  });\n"
    "  svg.addEventListener('mouseover', function (e) {\n"
    "    var g = e.target.closest && e.target.closest('g.f');\n"
    "    details.textContent = g ? 'Function: ' + title(g) : ' ';\n"
    "  });\n"
    "  reset.addEventListener('click', function (e) { e.stopPropagation(); zoom(root); });\n"
    "  document.addEventListener('keydown', function (e) { if (e.key === 'Escape') zoom(root); "
    "});\n"
    "  svg.querySelector('.search').addEventListener('click', function (e) {\n"
    "    e.stopPropagation();\n"
    "    var re = window.prompt('Search functions (regular expression)', '');\n"
    "    var sum = 0, seen = [];\n"
    "    frames.forEach(function (g) {\n"
    "      var r = g.querySelector('rect'), hit = false;\n"
    "      try { hit = !!re && new RegExp(re).test(name(g)); } catch (err) { hit = false; }\n"
    "      if (!r.hasAttribute('data-fill')) r.setAttribute('data-fill', r.getAttribute('fill'));\n"
    "      r.setAttribute('fill', hit ? 'rgb(230,0,230)' : r.getAttribute('data-fill'));\n"
    "      if (hit && !seen.some(function (s) { return num(s, 'x') <= num(g, 'x') &&\n"
    "          num(s, 'x') + num(s, 'w') >= num(g, 'x') + num(g, 'w') && num(s, 'd') < num(g, "
    "'d'); })) {\n"
    "        seen.push(g); sum += num(g, 'w');\n"
    "      }\n"
    "    });\n"
    "    matched.textContent = re ? 'Matched: ' + (100 * sum / (total || 1)).toFixed(2) + '%' : "
    "'';\n"
    "  });\n"
    "  var m = /zoom=(f[0-9]+)/.exec(window.location.hash || '');\n"
    "  var start = m && document.getElementById(m[1]);\n"
    "  zoom(start && svg.contains(start) ? start : root);\n"
    "  svg.setAttribute('data-ready', '1');\n"
    "})";

static void write_script(FILE *f, const char *id)
{
    fputs(script, f);
    fprintf(f, "('%s');\n", id); /* id is ours: letters, digits, '-' */
}

/* The flame graph as a standalone SVG document whose <svg> has id `id`. */
static int flamegraph_write(hpa_ctx *ctx, FILE *out, const char *id)
{
    hpa_profile *p = hpa_ctx_profile(ctx);
    if (!p)
        return HPA_EXIT_DATA;
    hpa_calltree t;
    if (hpa_calltree_build(&t, p, ctx->opts.view) < 0) {
        fprintf(stderr, "hpanalyze: export flamegraph: out of memory\n");
        return HPA_EXIT_DATA;
    }
    fg F = {.ctx = ctx, .out = out, .t = &t, .p = p, .metric = hpa_export_metric(ctx)};
    F.total = incl(&F, 0);
    F.scale = F.total ? (FG_WIDTH - 2 * FG_PAD) / (double)F.total : 0;
    F.maxdepth = F.total ? depth_of(&F, 0, 0) : 0;
    F.height = FG_TOP + (F.maxdepth + 1) * FG_FRAME + FG_BOTTOM;
    const hpa_metric *m = &p->metrics.m[F.metric];
    fputs("<?xml version=\"1.0\" standalone=\"no\"?>\n", out);
    fprintf(
        out,
        "<svg version=\"1.1\" id=\"%s\" width=\"1200\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
        "data-width=\"%.0f\" data-total=\"%" PRIu64 "\" xmlns=\"http://www.w3.org/2000/svg\">\n",
        id, F.height, FG_WIDTH, F.height, FG_WIDTH, F.total);
    fputs("<style>.f text { font: 12px Verdana, sans-serif; fill: #000; pointer-events: none }\n"
          ".f:hover rect { stroke: #000; stroke-width: 0.5 } .f { cursor: pointer }\n"
          ".title { font: 17px Verdana, sans-serif; text-anchor: middle }\n"
          ".ui { font: 12px Verdana, sans-serif; fill: #333; cursor: pointer }\n"
          ".details { font: 12px Verdana, sans-serif }</style>\n",
          out);
    fprintf(out, "<rect x=\"0\" y=\"0\" width=\"%.0f\" height=\"%.0f\" fill=\"#f8f8f4\"/>\n",
            FG_WIDTH, F.height);
    fprintf(out, "<text class=\"title\" x=\"%.0f\" y=\"24\">Flame graph: ", FG_WIDTH / 2);
    hpa_xml_text(out, m->title);
    fprintf(out, "%s, %s view</text>\n", m->time ? " time" : "",
            ctx->opts.view ? ctx->opts.view->name : "machine");
    fputs("<text class=\"ui reset\" x=\"10\" y=\"24\">Reset Zoom</text>\n", out);
    fprintf(out,
            "<text class=\"ui search\" x=\"%.0f\" y=\"24\" text-anchor=\"end\">Search</text>\n",
            FG_WIDTH - 10);
    fprintf(out, "<text class=\"ui matched\" x=\"%.0f\" y=\"%.0f\" text-anchor=\"end\"></text>\n",
            FG_WIDTH - 10, F.height - 12);
    fprintf(out, "<text class=\"details\" x=\"10\" y=\"%.0f\"> </text>\n", F.height - 12);
    if (F.total)
        frame(&F, 0, 0, 0);
    else
        fprintf(out, "<text class=\"ui\" x=\"10\" y=\"%.0f\">no samples</text>\n", FG_TOP + 12);
    fputs("<script type=\"text/ecmascript\"><![CDATA[\n", out);
    write_script(out, id);
    fputs("]]></script>\n</svg>\n", out);
    hpa_calltree_free(&t);
    return HPA_EXIT_OK;
}

int hpa_export_flamegraph(hpa_ctx *ctx, FILE *out)
{
    return flamegraph_write(ctx, out, "flamegraph");
}
