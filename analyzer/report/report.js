/*
 * report.js - draws the page `hpanalyze EXP export html` writes, from the JSON object in
 * the element #hpa-data (analyzer/export_html.c says what it holds). Nothing is loaded
 * from anywhere: the page opens from disk.
 *
 * Sections: summary (facts, where each rank's time goes, metric totals), timeline
 * (canvas: a row per rank and thread, a lane per layer, messages, tooltips, zoom),
 * MPI (per rank, by call and call site with the spread across ranks, communication
 * matrix, message sizes, collectives), OpenMP (threads, regions), a section per tracer
 * (D.tracers: its metrics, functions, report tables, or how to record it), flame graph
 * (per rank, thread and metric) and functions (sortable, searchable).
 *
 * window.hpaReport exposes what was drawn, for tests and for the console: timeline.rows(),
 * timeline.find(name, row), matrix.cell(from, to), flame.select(scope, metric) ...
 * body[data-drawn-ms] is the time from the start of this script to the first complete
 * drawing, body[data-ready-ms] from the navigation's start (bench/html_bench.sh reads them).
 */
(function () {
  "use strict";
  const T0 = performance.now();
  const D = JSON.parse(document.getElementById("hpa-data").textContent);
  const main = document.getElementById("report");
  const api = (window.hpaReport = { data: D });
  const R = D.reports || {};

  /* ------------------------------------------------------------ helpers */

  function el(tag, attrs, ...kids) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === undefined || v === null) continue;
      if (k === "class") e.className = v;
      else if (k === "text") e.textContent = v;
      else if (k === "style") e.style.cssText = v;
      else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
      else e.setAttribute(k, v);
    }
    for (const c of kids) if (c !== null && c !== undefined) e.append(c);
    return e;
  }
  const fix = (v, n) => (Number.isFinite(v) ? v.toFixed(n) : "");
  function fmtS(s) {
    if (!Number.isFinite(s)) return "";
    const a = Math.abs(s);
    if (a === 0) return "0 s";
    if (a >= 100) return s.toFixed(1) + " s";
    if (a >= 1) return s.toFixed(3) + " s";
    if (a >= 1e-3) return (s * 1e3).toFixed(3) + " ms";
    return (s * 1e6).toFixed(2) + " \u00b5s";
  }
  function fmtNum(v) {
    if (!Number.isFinite(v)) return "";
    if (Number.isInteger(v)) return v.toLocaleString("en-US");
    return v.toLocaleString("en-US", { maximumFractionDigits: 3 });
  }
  function fmtBytes(b) {
    if (!Number.isFinite(b)) return "";
    const u = ["B", "KiB", "MiB", "GiB", "TiB"];
    let i = 0;
    while (Math.abs(b) >= 1024 && i < u.length - 1) { b /= 1024; i++; }
    return (i ? b.toFixed(1) : String(b)) + " " + u[i];
  }
  const pct = (a, b) => (b > 0 ? (100 * a) / b : 0);
  function fmtMetric(m, v) {
    if (m.time) return fmtS(v);
    return fmtNum(Math.round(v * 1000) / 1000) + (m.unit ? " " + m.unit : "");
  }
  function hash(s) {
    let h = 2166136261;
    for (let i = 0; i < s.length; i++) { h ^= s.charCodeAt(i); h = Math.imul(h, 16777619); }
    return h >>> 0;
  }
  function base(path) {
    const i = path.lastIndexOf("/");
    return i >= 0 ? path.slice(i + 1) : path;
  }

  /* One color per name: MPI in blues (waits darker), OpenMP waits in reds, other OpenMP in
   * greens, thread states as where the time goes colors them, sync waits in magentas, heap in teals, I/O in yellows,
   * anything else in warm colors; a name keeps its color everywhere. */
  const colorCache = new Map();
  function color(name, layer) {
    const key = layer + "\u0001" + name;
    let c = colorCache.get(key);
    if (c) return c;
    const h = hash(name), a = (h & 255) / 255, b = ((h >> 8) & 255) / 255;
    if (layer === "mpi" || name.startsWith("MPI_")) {
      const wait = /Wait|Recv|Barrier|Probe/.test(name);
      c = `hsl(${205 + 40 * a}, ${55 + 25 * b}%, ${wait ? 38 + 10 * b : 55 + 12 * b}%)`;
    } else if (layer === "omp" || name.startsWith("omp")) {
      if (/barrier|wait|taskwait|taskgroup/.test(name)) c = `hsl(${2 + 14 * a}, 72%, ${52 + 10 * b}%)`;
      else if (name === "omp parallel") c = "hsl(120, 35%, 80%)";
      else if (name === "omp implicit task") c = "hsl(125, 40%, 62%)";
      else c = `hsl(${140 + 40 * a}, 45%, ${45 + 12 * b}%)`;
    } else if (layer === "states") { /* as "where the time goes" colors them */
      const part = { "Wait CPU": "wait_cpu", "User Lock": "user_lock", "Text Page Fault": "page_faults",
                     "Data Page Fault": "page_faults", "Other Wait": "other_wait" }[name];
      const p = (D.parts || []).find((x) => x.key === part);
      c = p ? p.color : `hsl(${265 + 20 * a}, 35%, 62%)`;
    } else if (layer === "sync") {
      c = name === "mutex held" ? "hsl(335, 30%, 80%)" : `hsl(${325 + 25 * a}, 55%, ${48 + 10 * b}%)`;
    } else if (layer === "heap") {
      c = /free|munmap/.test(name) ? "hsl(175, 25%, 45%)" : `hsl(${165 + 20 * a}, 50%, ${52 + 10 * b}%)`;
    } else if (layer === "io") {
      c = `hsl(${42 + 14 * a}, 80%, ${50 + 10 * b}%)`;
    } else if (name.startsWith("<")) {
      c = `hsl(0, 0%, ${72 + 12 * a}%)`;
    } else {
      c = `hsl(${18 + 38 * a}, ${75 + 15 * b}%, ${55 + 10 * a}%)`;
    }
    colorCache.set(key, c);
    return c;
  }

  /* The tooltip: one element, lines of [label, value] or text. */
  const tip = el("div", { id: "hpa-tip" });
  document.body.append(tip);
  function showTip(ev, title, lines) {
    tip.textContent = "";
    tip.append(el("b", { text: title }));
    for (const l of lines) {
      const d = el("div");
      if (Array.isArray(l)) d.append(el("span", { class: "k", text: l[0] + ": " }), String(l[1]));
      else d.textContent = l;
      tip.append(d);
    }
    tip.style.display = "block";
    const w = tip.offsetWidth, h = tip.offsetHeight;
    let x = ev.clientX + 14, y = ev.clientY + 14;
    if (x + w > window.innerWidth - 4) x = Math.max(4, ev.clientX - w - 14);
    if (y + h > window.innerHeight - 4) y = Math.max(4, ev.clientY - h - 14);
    tip.style.left = x + "px";
    tip.style.top = y + "px";
  }
  function hideTip() { tip.style.display = "none"; }
  api.tip = () => (tip.style.display === "block" ? tip.innerText : "");

  /* A sortable, searchable table. cols: {title, get(row) -> value, num, fmt(v, row),
   * text(row) -> searched text, tip}. */
  function table(cols, rows, opts) {
    opts = opts || {};
    const page = opts.page || 200;
    let order = rows.slice(), shown = page, filter = "", sortCol = -1, desc = true;
    const box = el("div", { class: "tablebox" });
    const tools = el("div", { class: "tools" });
    const count = el("span", { class: "note" });
    if (opts.search !== false) {
      const input = el("input", { type: "search", placeholder: opts.placeholder || "Search",
                                  "aria-label": "search " + (opts.name || "rows") });
      input.addEventListener("input", () => { filter = input.value.toLowerCase(); shown = page; draw(); });
      tools.append(input);
    }
    tools.append(count);
    const t = el("table", { class: "data" + (opts.cls ? " " + opts.cls : "") });
    if (opts.name) t.dataset.table = opts.name;
    const head = el("tr");
    cols.forEach((c, i) => {
      const th = el("th", { class: "sortable" + (c.num ? " num" : ""), text: c.title, title: c.tip });
      th.addEventListener("click", () => {
        desc = sortCol === i ? !desc : !!c.num;
        sortCol = i;
        const g = c.get;
        order = rows.slice().sort((a, b) => {
          const x = g(a), y = g(b);
          const r = typeof x === "number" && typeof y === "number" ? x - y : String(x).localeCompare(String(y));
          return desc ? -r : r;
        });
        draw();
      });
      head.append(th);
    });
    const tbody = el("tbody");
    t.append(el("thead", {}, head), tbody);
    const more = el("button", { text: "Show all" });
    more.addEventListener("click", () => { shown = Infinity; draw(); });
    box.append(tools, t, more);
    const textOf = (r) => cols.map((c) => (c.text ? c.text(r) : c.num ? "" : String(c.get(r)))).join(" ").toLowerCase();
    function draw() {
      head.childNodes.forEach((th, i) => {
        th.classList.toggle("sorted-desc", i === sortCol && desc);
        th.classList.toggle("sorted-asc", i === sortCol && !desc);
      });
      const keep = filter ? order.filter((r) => textOf(r).includes(filter)) : order;
      tbody.textContent = "";
      for (const r of keep.slice(0, shown)) {
        const tr = el("tr");
        for (const c of cols) {
          const v = c.get(r);
          tr.append(el("td", { class: c.num ? "num" : "", text: c.fmt ? c.fmt(v, r) : v }));
        }
        tbody.append(tr);
      }
      count.textContent = `${keep.length} of ${rows.length} rows` + (keep.length > shown ? `, first ${shown} shown` : "");
      more.style.display = keep.length > shown ? "" : "none";
    }
    draw();
    return box;
  }

  function section(id, title) {
    const s = el("section", { id }, el("h2", { text: title }));
    main.append(s);
    return s;
  }
  function legend(items) {
    const l = el("div", { class: "legend" });
    for (const [label, c] of items) l.append(el("span", { class: "sw", style: "background:" + c }), label);
    return l;
  }
  function kvTable(pairs) {
    const t = el("table", { class: "kv" });
    for (const [k, v] of pairs) t.append(el("tr", {}, el("th", { text: k }), el("td", { text: v })));
    return t;
  }

  const M = D.metrics || [];
  const rows = D.rows || [];
  const procs = D.procs || [];
  const procName = (p) => (p.rank >= 0 ? "rank " + p.rank : p.name);

  /* ------------------------------------------------------------ navigation */

  const navItems = [["summary", "Summary"], ["timeline", "Timeline"], ["mpi", "MPI"], ["omp", "OpenMP"],
                    ...(D.tracers || []).map((t) => ["tracer-" + t.key, t.title]),
                    ["flame", "Flame graph"], ["functions", "Functions"]];
  const nav = el("nav", { class: "sections" });
  for (const [id, t] of navItems) nav.append(el("a", { href: "#" + id, text: t }));
  main.before(nav);

  /* ------------------------------------------------------------ summary */

  function drawSummary() {
    const s = section("summary", "Summary");
    s.append(kvTable(D.facts || []));
    /* what the collector could not record (the functions report's notes) */
    const lost = (R.functions && R.functions.not_recorded) || [];
    if (lost.length)
      s.append(el("div", { class: "warn", id: "not-recorded" }, el("b", { text: "Not recorded: " }),
        lost.map((l) => `${l.process}: ${fmtNum(l.count)} ${l.what}` + (l.after_s ? ` (after ${fmtS(l.after_s)})` : "")).join("; ")));
    const parts = D.parts || [];
    s.append(el("h3", { text: "Where the time goes, per rank" }));
    /* A thread of an MPI rank that is neither its main thread nor an OpenMP thread and
     * hardly ran (the MPI runtime's progress or event thread asleep in poll) would only
     * add "off CPU" time. What it ran: its CPU time and MPI calls (with thread states, the
     * rest of its life is states: asleep, or waiting for a CPU to poll again). */
    const ranK = parts.map((x, k) => (["compute", "mpi", "omp_wait", "omp_other"].includes(x.key) ? k : -1))
      .filter((k) => k >= 0);
    const counts = (r) => rows[r].rank < 0 || rows[r].role || rows[r].life_s <= 0 ||
      ranK.reduce((a, k) => a + rows[r].parts[k], 0) >= 0.05 * rows[r].life_s;
    const left = rows.filter((_, r) => !counts(r)).length;
    s.append(el("p", { class: "note", text:
      "Each bar is the sum of the lives of the rank's threads. MPI is the time inside traced " +
      "MPI calls (busy-waiting included); computing and OpenMP are sampled CPU time outside " +
      "MPI calls; the rest is time off the CPU (or not sampled)." +
      (left ? ` Left out: ${left} helper thread${left === 1 ? "" : "s"} of MPI ranks (neither main nor OpenMP) ` +
              "that spent less than 5 % of their lives on these; the per-thread table has them." : "") }));
    const bars = el("div", { class: "bars", id: "where-bars" });
    let widest = 0;
    const sums = procs.map((p) => {
      const v = parts.map(() => 0);
      let n = 0;
      for (let r = p.rows[0]; r < p.rows[0] + p.rows[1]; r++)
        if (counts(r)) { n++; rows[r].parts.forEach((x, k) => (v[k] += x)); }
      const tot = v.reduce((a, b) => a + b, 0);
      widest = Math.max(widest, tot);
      return { p, v, tot, n };
    });
    for (const { p, v, tot, n } of sums) {
      const bar = el("div", { class: "bar", style: `width:${widest ? (100 * tot) / widest : 0}%` });
      bar.dataset.rank = p.rank;
      v.forEach((x, k) => {
        if (x <= 0) return;
        const seg = el("span", { style: `width:${pct(x, tot)}%;background:${parts[k].color}` });
        seg.dataset.part = parts[k].key;
        seg.dataset.s = x;
        seg.addEventListener("mousemove", (ev) => showTip(ev, `${procName(p)}: ${parts[k].label}`,
          [["time", fmtS(x)], ["share", fix(pct(x, tot), 1) + " % of its threads' time"]]));
        seg.addEventListener("mouseleave", hideTip);
        bar.append(seg);
      });
      const mpiK = parts.findIndex((x) => x.key === "mpi"), compK = parts.findIndex((x) => x.key === "compute");
      const text = `${fmtS(tot)} in ${n} thread${n === 1 ? "" : "s"}` +
        (mpiK >= 0 && v[mpiK] > 0 ? `, MPI ${fix(pct(v[mpiK], tot), 1)} %` : "") +
        (compK >= 0 ? `, computing ${fix(pct(v[compK], tot), 1)} %` : "");
      bars.append(el("div", { class: "label", text: procName(p) }),
                  el("div", { style: "display:flex;align-items:center" }, bar, el("span", { class: "bar-text", text })));
    }
    /* the legend names the parts some bar has, and always computing and the rest */
    const shownParts = parts.filter((x, k) => ["compute", "rest"].includes(x.key) || sums.some((q) => q.v[k] > 0));
    s.append(bars, legend(shownParts.map((x) => [x.label, x.color])));
    api.summary = {
      /* each drawn part of each rank's bar: page coordinates of its middle */
      segments: () => [...bars.querySelectorAll("span[data-part]")].map((e) => {
        const r = e.getBoundingClientRect();
        return { rank: +e.parentNode.dataset.rank, part: e.dataset.part, x: r.left + r.width / 2, y: r.top + r.height / 2, w: r.width };
      }),
    };

    /* every metric with something in it, per thread and per rank */
    const used = M.map((m, i) => i).filter((i) => M[i].total !== 0);
    s.append(el("h3", { text: "Metrics per rank" }),
             el("p", { class: "note", text: "Every metric the experiment has (metrics tracers add appear here too), summed over each rank's threads." }),
             ...metricTables(used, "metrics"));
  }

  /* Tables of metrics ms (indexes into M): per rank, and per thread (folded). */
  function metricTables(ms, name) {
    const byRank = procs.map((p) => {
      const tot = ms.map(() => 0);
      for (let r = p.rows[0]; r < p.rows[0] + p.rows[1]; r++)
        ms.forEach((m, k) => (tot[k] += rows[r].totals[m]));
      return { label: procName(p), threads: p.rows[1], tot };
    });
    const col = (m, get) => ({ title: M[m].title + (M[m].time ? " (s)" : ""), num: true, get,
                               fmt: (v) => (M[m].time ? fix(v, 3) : fmtNum(v)), tip: M[m].key });
    const cols = [{ title: "Rank", get: (r) => r.label }, { title: "Threads", num: true, get: (r) => r.threads },
                  ...ms.map((m, k) => col(m, (r) => r.tot[k]))];
    const tcols = [{ title: "Thread", get: (r) => r.label, text: (r) => r.label },
                   { title: "Role", get: (r) => r.role }, { title: "Life (s)", num: true, get: (r) => r.life_s, fmt: (v) => fix(v, 3) },
                   ...ms.map((m) => col(m, (r) => r.totals[m]))];
    return [table(cols, byRank, { name: name + "-ranks", search: false }),
            el("details", {}, el("summary", { text: `Per thread (${rows.length} threads)` }),
               table(tcols, rows, { name: name + "-threads" }))];
  }

  /* ------------------------------------------------------------ timeline */

  const TL = D.timeline || { rows: [], layers: [], names: [], sites: [], kinds: [] };

  /* Each row's items decoded into typed arrays, begins made absolute. */
  function decodeRows() {
    const out = rows.map(() => null);
    const nv = (TL.kinds || []).map((k) => k.length);
    for (const r of TL.rows || []) {
      const n = r.b.length, b = new Float64Array(n), e = new Float64Array(n), vo = new Int32Array(n);
      let t = 0, o = 0, maxDur = 0;
      for (let i = 0; i < n; i++) {
        t += r.b[i];
        b[i] = t;
        e[i] = t + r.d[i];
        if (r.d[i] > maxDur) maxDur = r.d[i];
        vo[i] = o;
        o += nv[r.k[i]] || 0;
      }
      out[r.r] = { b, e, nm: r.nm, l: r.l, p: r.p, c: r.c, s: r.s, k: r.k, v: r.v, vo, maxDur, x: r.x, xk: r.xk,
                   alive: r.alive, slices: r.slices, bin: r.bin_ns };
    }
    return out;
  }

  function drawTimeline() {
    const s = section("timeline", "Timeline");
    const layers = TL.layers || [];
    const data = decodeRows();
    const nitems = data.reduce((a, r) => a + (r ? r.b.length : 0), 0);
    const nslices = data.reduce((a, r) => a + (r ? r.slices : 0), 0);
    const binned = data.filter((r) => r && r.bin);
    const tEnd = Math.max(1, TL.t_end || 0);
    /* lanes: each row shows the layers it has (at least one lane) */
    const LANE = 14, PAD = 5, LABEL = 215, AXIS = 26;
    const layout = [];
    let y = AXIS;
    rows.forEach((row, i) => {
      const r = data[i];
      const has = layers.map((_, l) => !!r && r.l.includes(l));
      const lanes = [];
      has.forEach((h, l) => { if (h) lanes.push(l); });
      if (!lanes.length) lanes.push(-1);
      const h = lanes.length * LANE + 2 * PAD;
      layout.push({ y, h, lanes, laneOf: Object.fromEntries(lanes.map((l, k) => [l, k])) });
      y += h;
    });
    const H = Math.max(y + 4, AXIS + 40);
    const tools = el("div", { class: "tools" });
    const msgBox = el("input", { type: "checkbox", id: "tl-msgs" });
    const status = el("span", { class: "note" });
    const btn = (t, f) => el("button", { text: t, onclick: f });
    tools.append(btn("\u2212 Zoom out", () => zoom(0.5)), btn("+ Zoom in", () => zoom(2)),
                 btn("Reset", () => setView(0, tEnd)),
                 el("label", {}, msgBox, " Messages" + (TL.msgs && TL.msgs.total ? ` (${fmtNum(TL.msgs.total)})` : "")),
                 status);
    const box = el("div", { class: "canvasbox" + (H > 700 ? " scroll" : "") });
    const cv = el("canvas", { id: "tl-canvas" });
    box.append(cv);
    const layerLegend = layers.filter((L, l) => data.some((r) => r && r.l.includes(l)))
      .map((L) => [L.title, color({ mpi: "MPI_Send", omp: "omp for", states: "Wait CPU", sync: "mutex wait", heap: "malloc",
                                    io: "read" }[L.key] || L.title, L.key)]);
    s.append(el("p", { class: "note", text:
      "A row per rank and thread, a lane per kind of record. Wheel or buttons zoom, drag pans, " +
      "hover for details." + (binned.length ? ` Binned for size: ${binned.length} rows keep the ` +
      `slices longer than their bin and merge the shorter ones (export a --time window to see every slice).` : "") }),
      tools, box, legend(layerLegend));
    let v0 = 0, v1 = tEnd, W = 800, dpr = window.devicePixelRatio || 1;
    const ctx = cv.getContext("2d");
    const px = (t) => LABEL + ((t - v0) / (v1 - v0)) * (W - LABEL - 8);
    const tAt = (x) => v0 + ((x - LABEL) / (W - LABEL - 8)) * (v1 - v0);
    let drawnRows = [];

    function lowerBound(arr, x) {
      let lo = 0, hi = arr.length;
      while (lo < hi) { const m = (lo + hi) >> 1; if (arr[m] < x) lo = m + 1; else hi = m; }
      return lo;
    }
    function ticks() {
      const span = v1 - v0, target = span / 8;
      const p10 = Math.pow(10, Math.floor(Math.log10(target)));
      const step = [1, 2, 5, 10].map((k) => k * p10).find((k) => k >= target) || p10 * 10;
      ctx.fillStyle = "#555";
      ctx.strokeStyle = "#eee";
      ctx.font = "11px system-ui, sans-serif";
      ctx.textBaseline = "middle";
      for (let t = Math.ceil(v0 / step) * step; t <= v1; t += step) {
        const x = px(t);
        ctx.beginPath(); ctx.moveTo(x, AXIS - 6); ctx.lineTo(x, H); ctx.stroke();
        ctx.fillText(fmtS(t * 1e-9), x + 3, 11);
      }
    }
    function draw() {
      W = box.clientWidth || 900;
      cv.width = Math.round(W * dpr);
      cv.height = Math.round(H * dpr);
      cv.style.width = W + "px";
      cv.style.height = H + "px";
      ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
      ctx.clearRect(0, 0, W, H);
      ticks();
      drawnRows = [];
      ctx.font = "11.5px system-ui, sans-serif";
      rows.forEach((row, i) => {
        const L = layout[i], r = data[i];
        ctx.fillStyle = i % 2 ? "#fbfbfc" : "#fff";
        ctx.fillRect(0, L.y, W, L.h);
        ctx.fillStyle = "#222";
        ctx.textBaseline = "middle";
        const label = row.label + (row.role ? " (" + row.role + ")" : "");
        let shown = label;
        while (shown.length > 4 && ctx.measureText(shown).width > LABEL - 10) shown = shown.slice(0, -2) + "\u2026";
        ctx.fillText(shown, 6, L.y + L.h / 2);
        drawnRows.push({ row: i, label: row.label, y: L.y, h: L.h, items: 0 });
        ctx.save();
        ctx.beginPath();
        ctx.rect(LABEL, L.y, W - LABEL, L.h);
        ctx.clip();
        if (r && r.alive) { /* the thread's life */
          ctx.fillStyle = "#eef0f3";
          const a = Math.max(LABEL, px(r.alive[0])), z = Math.min(W, px(r.alive[1]));
          if (z > a) ctx.fillRect(a, L.y + PAD + 1, z - a, L.h - 2 * PAD - 2);
        }
        if (r) drawnRows[drawnRows.length - 1].items = drawItems(r, L);
        ctx.restore();
      });
      ctx.strokeStyle = "#ccc";
      ctx.beginPath(); ctx.moveTo(LABEL - 0.5, AXIS - 6); ctx.lineTo(LABEL - 0.5, H); ctx.stroke();
      if (msgBox.checked) drawMsgs();
      status.textContent = `${rows.length} rows, ${fmtNum(nslices)} slices` +
        (nitems < nslices ? ` (${fmtNum(nitems)} items on the page)` : "") +
        `; showing ${fmtS(v0 * 1e-9)} to ${fmtS(v1 * 1e-9)}`;
    }
    /* One row's items in view; sub-pixel items of a lane and depth share their pixel (the
     * first one there draws it). Colors are looked up once per layer and name, and the
     * canvas's style is set only when it changes: on large traces these dominate. */
    const itemColors = layers.map(() => []), lastPix = new Int32Array(Math.max(1, layers.length) * 64);
    function itemColor(l, nm) {
      const c = itemColors[l] || (itemColors[l] = []);
      return c[nm] || (c[nm] = color(TL.names[nm], layers[l] ? layers[l].key : ""));
    }
    function drawItems(r, L) {
      const start = lowerBound(r.b, v0 - r.maxDur);
      lastPix.fill(-1);
      let n = 0, style = "", alpha = 1;
      for (let i = start; i < r.b.length && r.b[i] <= v1; i++) {
        if (r.e[i] < v0) continue;
        const lane = L.laneOf[r.l[i]];
        if (lane === undefined) continue;
        let x0 = px(r.b[i]), x1 = px(r.e[i]);
        if (x1 - x0 < 1) {
          const key = r.l[i] * 64 + Math.min(r.p[i], 63), pix = Math.floor(x0);
          if (lastPix[key] === pix) continue;
          lastPix[key] = pix;
          x1 = x0 + 1;
        }
        const d = Math.min(r.p[i], 4), y = L.y + PAD + lane * LANE + d * 1.5;
        const c = itemColor(r.l[i], r.nm[i]);
        if (c !== style) ctx.fillStyle = style = c;
        const a = r.c[i] > 1 ? 0.45 + 0.55 * Math.min(1, r.v[r.vo[i]] / Math.max(1, r.e[i] - r.b[i])) : 1;
        if (a !== alpha) ctx.globalAlpha = alpha = a;
        ctx.fillRect(x0, y, Math.max(1, x1 - x0), LANE - 2 - d * 3);
        if (x1 - x0 > 40) {
          const name = TL.names[r.nm[i]];
          ctx.globalAlpha = alpha = 1;
          ctx.fillStyle = style = "#111";
          const t = name.length * 6.2 > x1 - x0 - 6 ? name.slice(0, Math.max(0, Math.floor((x1 - x0 - 6) / 6.2))) : name;
          if (t) ctx.fillText(t, Math.max(x0, LABEL) + 3, y + (LANE - 2 - d * 3) / 2);
        }
        n++;
      }
      ctx.globalAlpha = 1;
      return n;
    }
    function laneY(row, layerKey) {
      const L = layout[row], l = layers.findIndex((x) => x.key === layerKey);
      const lane = L.laneOf[l] !== undefined ? L.laneOf[l] : 0;
      return L.y + PAD + lane * LANE + LANE / 2;
    }
    function drawMsgs() {
      const m = TL.msgs;
      if (!m || !m.from) return;
      const keep = [];
      for (let i = 0; i < m.from.length; i++) if (m.recv[i] >= v0 && m.send[i] <= v1) keep.push(i);
      const every = Math.max(1, Math.ceil(keep.length / 20000));
      ctx.strokeStyle = "rgba(20,20,20,0.55)";
      ctx.lineWidth = 1;
      ctx.beginPath();
      for (let k = 0; k < keep.length; k += every) {
        const i = keep[k];
        ctx.moveTo(px(m.send[i]), laneY(m.from[i], "mpi"));
        ctx.lineTo(px(m.recv[i]), laneY(m.to[i], "mpi"));
      }
      ctx.stroke();
    }
    function setView(a, b) {
      const span = Math.max(1000, b - a);
      v0 = Math.max(0, a);
      v1 = Math.min(tEnd * 1.02 + 1, v0 + span);
      draw();
    }
    function zoom(f, at) {
      const c = at === undefined ? (v0 + v1) / 2 : at, span = (v1 - v0) / f;
      const k = (c - v0) / (v1 - v0);
      setView(c - k * span, c - k * span + span);
    }
    cv.addEventListener("wheel", (ev) => {
      if (ev.offsetX < LABEL) return;
      ev.preventDefault();
      zoom(ev.deltaY < 0 ? 1.25 : 0.8, tAt(ev.offsetX));
    }, { passive: false });
    let drag = null;
    cv.addEventListener("mousedown", (ev) => { drag = { x: ev.clientX, v0, v1 }; });
    window.addEventListener("mouseup", () => { drag = null; });
    window.addEventListener("mousemove", (ev) => {
      if (!drag) return;
      const dt = ((ev.clientX - drag.x) / (W - LABEL - 8)) * (drag.v1 - drag.v0);
      setView(drag.v0 - dt, drag.v1 - dt);
    });
    cv.addEventListener("dblclick", (ev) => zoom(2, tAt(ev.offsetX)));
    msgBox.addEventListener("change", draw);

    /* What is under (x, y): the deepest item of the lane there, or a message. */
    function itemAt(x, y) {
      const i = layout.findIndex((L) => y >= L.y && y < L.y + L.h);
      if (i < 0 || x < LABEL || !data[i]) return null;
      const L = layout[i], r = data[i];
      const lane = Math.floor((y - L.y - PAD) / LANE);
      const layer = L.lanes[Math.max(0, Math.min(L.lanes.length - 1, lane))];
      const t = tAt(x), slop = (3 * (v1 - v0)) / (W - LABEL);
      let best = -1;
      for (let k = lowerBound(r.b, t - r.maxDur - slop); k < r.b.length && r.b[k] <= t + slop; k++)
        if (r.l[k] === layer && r.e[k] >= t - slop && (best < 0 || r.p[k] >= r.p[best])) best = k;
      return best < 0 ? { row: i } : { row: i, k: best };
    }
    function describe(i, k) {
      const r = data[i], kind = TL.kinds[r.k[k]] || [], lines = [];
      const name = TL.names[r.nm[k]];
      if (r.c[k] > 1) {
        lines.push(`${fmtNum(r.c[k])} slices merged into a ${fmtS(r.bin * 1e-9)} bin (the row keeps slices longer than that)`);
        lines.push(["longest", name], ["busy", fmtS(r.v[r.vo[k]] * 1e-9)]);
      } else {
        kind.forEach((key, j) => {
          const val = r.v[r.vo[k] + j];
          if (key.startsWith("bytes")) lines.push([key.replace(/_/g, " "), fmtBytes(val) + (val >= 1024 ? ` (${fmtNum(val)} B)` : "")]);
          else if (key === "peer") lines.push(["peer", "rank " + val]);
          else if (key === "address") lines.push(["address", "0x" + val.toString(16)]);
          else if (key === "offset") lines.push(["offset", val < 0 ? "unknown" : fmtNum(val)]);
          else if (key.endsWith("_ns")) lines.push([key.slice(0, -3).replace(/_/g, " "), fmtS(val * 1e-9)]);
          else lines.push([key.replace(/_/g, " "), fmtNum(val)]);
        });
      }
      if (r.x && r.x[k]) lines.push([TL.names[r.xk[k] - 1], TL.names[r.x[k] - 1]]);
      if (r.s[k]) {
        const key = TL.site_keys ? TL.site_keys[r.s[k] - 1] : r.l[k] === layers.findIndex((x) => x.key === "mpi") ? "call_site" : "location";
        lines.push([key.replace(/_/g, " "), TL.sites[r.s[k] - 1]]);
      }
      lines.push(["duration", fmtS((r.e[k] - r.b[k]) * 1e-9)], ["begins", fmtS(r.b[k] * 1e-9)],
                 ["thread", rows[i].label + (rows[i].role ? " (" + rows[i].role + ")" : "")]);
      return { title: r.c[k] > 1 ? "Binned " + (layers[r.l[k]] || {}).title : name, lines };
    }
    cv.addEventListener("mousemove", (ev) => {
      if (drag) { hideTip(); return; }
      const hit = itemAt(ev.offsetX, ev.offsetY);
      if (!hit || hit.k === undefined) { hideTip(); return; }
      const d = describe(hit.row, hit.k);
      showTip(ev, d.title, d.lines);
    });
    cv.addEventListener("mouseleave", hideTip);
    window.addEventListener("resize", draw);
    draw();
    api.timeline = {
      rows: () => drawnRows.map((r) => ({ row: r.row, label: r.label, role: rows[r.row].role, y: r.y, h: r.h, items: r.items })),
      view: () => [v0, v1],
      setView,
      messages: (on) => { msgBox.checked = !!on; draw(); },
      /* The longest item named name in row (whose site contains site, when given): its
       * times, and page coordinates of the middle
       * of its widest part in view that no deeper item of its layer covers (there the
       * tooltip is its own: free, its times; free_px, its width), or null. */
      find(name, row, site) {
        const r = data[row];
        if (!r) return null;
        let best = -1;
        for (let k = 0; k < r.b.length; k++)
          if (TL.names[r.nm[k]] === name && (!site || (r.s[k] && TL.sites[r.s[k] - 1].includes(site))) &&
              (best < 0 || r.e[k] - r.b[k] > r.e[best] - r.b[best])) best = k;
        if (best < 0) return null;
        const a = Math.max(r.b[best], v0), z = Math.min(r.e[best], v1);
        let gap = [a, a], from = a;
        const inner = [];
        for (let k = 0; k < r.b.length; k++)
          if (k !== best && r.l[k] === r.l[best] && r.p[k] > r.p[best] && r.e[k] > a && r.b[k] < z) inner.push([r.b[k], r.e[k]]);
        inner.sort((x, y) => x[0] - y[0]);
        for (const [b, e] of inner) {
          if (b > from && b - from > gap[1] - gap[0]) gap = [from, b];
          from = Math.max(from, e);
        }
        if (z > from && z - from > gap[1] - gap[0]) gap = [from, z];
        const rect = cv.getBoundingClientRect(), L = layout[row];
        const lane = L.laneOf[r.l[best]];
        return { x: rect.left + px((gap[0] + gap[1]) / 2), y: rect.top + L.y + PAD + lane * LANE + LANE / 2 - 1,
                 begin: r.b[best], end: r.e[best], free: gap, free_px: px(gap[1]) - px(gap[0]) };
      },
      /* The items of layer (its key) in row as the page holds them: name, times (ns), how
       * many slices (a bin: more than 1), numbers by key, note and site as the tooltip
       * says them. */
      items(layer, row) {
        const r = data[row], l = layers.findIndex((x) => x.key === layer), out = [];
        if (!r || l < 0) return out;
        for (let k = 0; k < r.b.length; k++) {
          if (r.l[k] !== l) continue;
          const kind = r.c[k] > 1 ? ["busy_ns"] : TL.kinds[r.k[k]] || [], v = {};
          kind.forEach((key, j) => (v[key] = r.v[r.vo[k] + j]));
          out.push({ name: TL.names[r.nm[k]], begin: r.b[k], end: r.e[k], count: r.c[k], v,
                     note: r.x && r.x[k] ? TL.names[r.x[k] - 1] : "", site: r.s[k] ? TL.sites[r.s[k] - 1] : "" });
        }
        return out;
      },
      /* How many items named name row holds (bins count as one). */
      count(name, row) {
        const r = data[row];
        let n = 0;
        if (r) for (let k = 0; k < r.b.length; k++) n += TL.names[r.nm[k]] === name;
        return n;
      },
    };
  }

  /* ------------------------------------------------------------ MPI */

  function rankSpread(row) {
    const t = (row.ranks || []).map((r) => r.time_s);
    if (!t.length) return { min: 0, mean: 0, max: 0 };
    return { min: Math.min(...t), mean: t.reduce((a, b) => a + b, 0) / t.length, max: Math.max(...t) };
  }

  function drawMpi() {
    const s = section("mpi", "MPI");
    const m = R.mpi;
    if (!m || !m.ranks || !m.ranks.length) {
      s.append(el("p", { class: "empty", text: "No MPI data in this experiment (no MPI calls were traced)." }));
      return;
    }
    s.append(el("p", { class: "note", text: `The numbers of \`hpanalyze mpi\` (${m.scope || "all ranks"}): ` +
      "AppTime runs from the end of MPI_Init to the start of MPI_Finalize; the tables leave those two out." }));
    /* per rank */
    const widest = Math.max(...m.ranks.map((r) => r.app_time_s), 1e-12);
    const bars = el("div", { class: "bars", id: "mpi-bars" });
    for (const r of m.ranks) {
      const bar = el("div", { class: "bar", style: `width:${(100 * r.app_time_s) / widest}%` });
      bar.dataset.rank = r.rank;
      bar.dataset.appS = r.app_time_s;
      bar.dataset.mpiS = r.mpi_time_s;
      bar.append(el("span", { style: `width:${Math.min(100, pct(r.mpi_time_s, r.app_time_s))}%;background:#4a78c2` }));
      bars.append(el("div", { class: "label", text: "rank " + r.rank }),
                  el("div", { style: "display:flex;align-items:center" }, bar,
                     el("span", { class: "bar-text", text: `${fmtS(r.mpi_time_s)} MPI of ${fmtS(r.app_time_s)} (${fix(r.mpi_pct, 1)} %)` +
                       (r.ended_early ? " \u2014 " + r.end : "") })));
    }
    s.append(el("h3", { text: "MPI time per rank" }), bars,
             legend([["MPI time", "#4a78c2"], ["rest of AppTime", "#f1f2f4"]]));
    const spreadCols = [
      { title: "Rank min (s)", num: true, get: (r) => rankSpread(r).min, fmt: (v) => fix(v, 6), tip: "the least time one rank spent in it (ranks that made it)" },
      { title: "Rank mean (s)", num: true, get: (r) => rankSpread(r).mean, fmt: (v) => fix(v, 6) },
      { title: "Rank max (s)", num: true, get: (r) => rankSpread(r).max, fmt: (v) => fix(v, 6) },
      { title: "COV", num: true, get: (r) => r.cov, fmt: (v) => fix(v, 2), tip: "standard deviation of the ranks' times over their mean" },
    ];
    const common = [
      { title: "Calls", num: true, get: (r) => r.calls, fmt: fmtNum },
      { title: "Time (s)", num: true, get: (r) => r.time_s, fmt: (v) => fix(v, 6) },
      { title: "App %", num: true, get: (r) => r.app_pct, fmt: (v) => fix(v, 2) },
      { title: "MPI %", num: true, get: (r) => r.mpi_pct, fmt: (v) => fix(v, 2) },
      ...spreadCols,
      { title: "Call mean (\u00b5s)", num: true, get: (r) => (r.calls ? (1e6 * r.time_s) / r.calls : 0), fmt: (v) => fix(v, 3) },
      { title: "Call max (\u00b5s)", num: true, get: (r) => 1e6 * r.max_s, fmt: (v) => fix(v, 3) },
      { title: "Bytes sent", num: true, get: (r) => r.bytes_sent + r.coll_bytes_sent, fmt: fmtNum },
      { title: "Bytes recv", num: true, get: (r) => r.bytes_received + r.coll_bytes_received, fmt: fmtNum },
    ];
    s.append(el("h3", { text: "By call" }),
             table([{ title: "Call", get: (r) => r.name }, ...common], m.calls, { name: "mpi-calls" }));
    s.append(el("h3", { text: "By call site" }),
             table([{ title: "Site", num: true, get: (r) => r.site }, { title: "Call", get: (r) => r.name },
                    { title: "Location", get: (r) => r.location, text: (r) => r.location + " " + r.file },
                    { title: "Source", get: (r) => (r.line ? base(r.file) + ":" + r.line : ""), text: (r) => r.file },
                    ...common], m.sites, { name: "mpi-sites" }));
    drawMatrix(s, m);
    drawSizes(s, m);
    if (m.collectives && m.collectives.length)
      s.append(el("h3", { text: "Collectives by operation" }),
               table([{ title: "Operation", get: (r) => r.operation }, { title: "Calls", num: true, get: (r) => r.calls, fmt: fmtNum },
                      { title: "Bytes sent", num: true, get: (r) => r.bytes_sent, fmt: fmtNum },
                      { title: "Bytes recv", num: true, get: (r) => r.bytes_received, fmt: fmtNum }], m.collectives,
                     { name: "mpi-collectives", search: false }));
  }

  function drawMatrix(s, m) {
    s.append(el("h3", { text: "Communication matrix" }));
    const cells = m.matrix || [];
    if (!cells.length) {
      s.append(el("p", { class: "empty", text: "No point-to-point messages." }));
      return;
    }
    const ranks = new Set(m.ranks.map((r) => r.rank));
    cells.forEach((c) => { ranks.add(c.from); ranks.add(c.to); });
    const ids = [...ranks].sort((a, b) => a - b), at = new Map(ids.map((r, i) => [r, i]));
    const n = ids.length, cell = Math.max(6, Math.min(34, Math.floor(560 / n))), off = 46;
    const size = off + n * cell + 2;
    const by = new Map(cells.map((c) => [c.from + ":" + c.to, c]));
    let mode = "bytes";
    const sel = el("select", { "aria-label": "matrix values" }, el("option", { value: "bytes", text: "bytes" }),
                   el("option", { value: "messages", text: "messages" }));
    sel.addEventListener("change", () => { mode = sel.value; draw(); });
    s.append(el("p", { class: "note", text: "Point-to-point sends started, from the sender's MPI_COMM_WORLD rank (rows) to the receiver's (columns)." }),
             el("div", { class: "tools" }, "Color by ", sel));
    const cv = el("canvas", { id: "mpi-matrix" }), ctx = cv.getContext("2d"), dpr = window.devicePixelRatio || 1;
    cv.width = size * dpr; cv.height = size * dpr; cv.style.width = size + "px"; cv.style.height = size + "px";
    s.append(el("div", { class: "canvasbox", style: `display:inline-block` }, cv));
    function draw() {
      ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
      ctx.clearRect(0, 0, size, size);
      const max = Math.max(...cells.map((c) => c[mode]), 1);
      ctx.font = "10px system-ui, sans-serif";
      ctx.fillStyle = "#444";
      ctx.textBaseline = "middle";
      const every = Math.ceil(12 / cell);
      ids.forEach((r, i) => {
        if (i % every) return;
        ctx.textAlign = "right"; ctx.fillText(String(r), off - 4, off + i * cell + cell / 2);
        ctx.textAlign = "center"; ctx.fillText(String(r), off + i * cell + cell / 2, off - 8);
      });
      ctx.textAlign = "left";
      ctx.fillText("to \u2192", off, 10);
      for (let i = 0; i < n; i++)
        for (let j = 0; j < n; j++) {
          const c = by.get(ids[i] + ":" + ids[j]);
          const f = c ? Math.sqrt(c[mode] / max) : 0;
          ctx.fillStyle = c ? `hsl(215, 70%, ${92 - 62 * f}%)` : "#f6f7f9";
          ctx.fillRect(off + j * cell, off + i * cell, cell - 1, cell - 1);
        }
    }
    draw();
    const cellAt = (x, y) => {
      const i = Math.floor((y - off) / cell), j = Math.floor((x - off) / cell);
      return i >= 0 && j >= 0 && i < n && j < n ? [ids[i], ids[j]] : null;
    };
    cv.addEventListener("mousemove", (ev) => {
      const hit = cellAt(ev.offsetX, ev.offsetY);
      if (!hit) { hideTip(); return; }
      const c = by.get(hit[0] + ":" + hit[1]) || { messages: 0, bytes: 0 };
      showTip(ev, `rank ${hit[0]} \u2192 rank ${hit[1]}`, [["messages", fmtNum(c.messages)], ["bytes", `${fmtNum(c.bytes)} (${fmtBytes(c.bytes)})`]]);
    });
    cv.addEventListener("mouseleave", hideTip);
    api.matrix = {
      ranks: () => ids.slice(),
      /* page coordinates of the middle of cell (from, to) */
      cell(from, to) {
        const r = cv.getBoundingClientRect();
        return { x: r.left + off + at.get(to) * cell + cell / 2, y: r.top + off + at.get(from) * cell + cell / 2 };
      },
    };
  }

  function drawSizes(s, m) {
    const h = m.message_sizes || [];
    s.append(el("h3", { text: "Point-to-point message sizes" }));
    if (!h.length) { s.append(el("p", { class: "empty", text: "No point-to-point messages." })); return; }
    const max = Math.max(...h.map((b) => b.messages));
    const bars = el("div", { class: "bars", id: "mpi-sizes" });
    for (const b of h) {
      const label = b.bytes_max ? `${fmtBytes(b.bytes_min)} \u2013 ${fmtBytes(b.bytes_max + 1)}` : "0 B";
      const bar = el("div", { class: "bar", style: `width:${(100 * b.messages) / max}%;max-width:600px` },
                     el("span", { style: "width:100%;background:#7a8fd1" }));
      bars.append(el("div", { class: "label", text: label }),
                  el("div", { style: "display:flex;align-items:center" }, bar, el("span", { class: "bar-text", text: fmtNum(b.messages) + " messages" })));
    }
    s.append(bars);
  }

  /* ------------------------------------------------------------ OpenMP */

  function drawOmp() {
    const s = section("omp", "OpenMP");
    const o = R.omp;
    if (!o || !o.ompt || !(o.threads || []).length) {
      const why = ((o && o.processes) || []).map((p) => p.runtime_text).filter((x) => x)[0];
      s.append(el("p", { class: "empty", text: "No OpenMP states were recorded" + (why ? ` (${why})` : " (no OpenMP, or a runtime without OMPT)") + "." }));
      return;
    }
    const cats = [["omp_work_s", "work", "#4caf50"], ["omp_wait_s", "wait", "#e53935"], ["omp_idle_s", "idle", "#b0bec5"],
                  ["omp_overhead_s", "overhead", "#ffb300"], ["mpi_s", "MPI", "#4a78c2"]];
    s.append(el("h3", { text: "Threads: sampled CPU time by OpenMP state" }),
             el("p", { class: "note", text: "Time inside MPI calls is MPI's (busy-waiting in MPI is not OpenMP work)." }));
    const widest = Math.max(...o.threads.map((t) => cats.reduce((a, c) => a + t[c[0]], 0)), 1e-12);
    const bars = el("div", { class: "bars", id: "omp-bars" });
    for (const t of o.threads) {
      const tot = cats.reduce((a, c) => a + t[c[0]], 0);
      const bar = el("div", { class: "bar", style: `width:${(100 * tot) / widest}%` });
      bar.dataset.rank = t.rank; bar.dataset.thread = t.thread;
      for (const [k, , c] of cats) if (t[k] > 0) bar.append(el("span", { style: `width:${pct(t[k], tot)}%;background:${c}` }));
      const text = cats.filter(([k]) => t[k] > 0 || k === "omp_work_s" || k === "omp_wait_s").map(([k, n]) => `${n} ${fix(t[k], 3)} s`).join(", ");
      bars.append(el("div", { class: "label", text: `rank ${t.rank} thread ${t.thread}` }),
                  el("div", { style: "display:flex;align-items:center" }, bar, el("span", { class: "bar-text", text })));
    }
    s.append(bars, legend(cats.map(([, n, c]) => [n, c])));
    if ((o.regions || []).length)
      s.append(el("h3", { text: "Parallel regions" }),
               table([{ title: "Rank", num: true, get: (r) => r.rank },
                      { title: "Region", get: (r) => r.function + (r.line ? ` ${base(r.file)}:${r.line}` : ""), text: (r) => r.function + " " + r.file },
                      { title: "Executions", num: true, get: (r) => r.executions, fmt: fmtNum },
                      { title: "Threads", num: true, get: (r) => r.threads },
                      { title: "Wall (s)", num: true, get: (r) => r.wall_s, fmt: (v) => fix(v, 3) },
                      { title: "Work (s)", num: true, get: (r) => r.omp_work_s, fmt: (v) => fix(v, 3) },
                      { title: "Wait (s)", num: true, get: (r) => r.omp_wait_s, fmt: (v) => fix(v, 3) },
                      { title: "Work wall (s)", num: true, get: (r) => r.omp_work_wall_s, fmt: (v) => fix(v, 3) },
                      { title: "Wait wall (s)", num: true, get: (r) => r.omp_wait_wall_s, fmt: (v) => fix(v, 3) },
                      { title: "Imbalance", num: true, get: (r) => r.imbalance, fmt: (v) => fix(v, 2) }],
                     o.regions, { name: "omp-regions" }));
  }

  /* ------------------------------------------------------------ tracers */

  /* Each function's exclusive and inclusive values of metric m over all rows, from the
   * flame graph's cells (a cell's value is its path's leaf's own). */
  function functionSums(m) {
    const F = D.flame, out = new Map();
    const v = F && (F.vals || []).find((x) => x.m === m);
    if (!v) return out;
    for (let k = 0; k < v.cell.length; k++) {
      const node = F.node[v.cell[k]], seen = new Set();
      for (let a = node, first = true; ; a = F.parent[a], first = false) {
        const f = F.fn[a];
        if (a !== 0 && !seen.has(f)) {
          seen.add(f);
          const e = out.get(f) || { name: F.names[f][0], module: F.names[f][1], excl: 0, incl: 0 };
          e.incl += v.v[k] * M[m].scale;
          if (first) e.excl += v.v[k] * M[m].scale;
          out.set(f, e);
        }
        if (a === 0) break;
      }
    }
    return out;
  }

  /* A report's tables: every member that is an array of objects, with their plain values. */
  function reportTables(rep, name) {
    const out = [];
    for (const [key, val] of Object.entries(rep || {})) {
      if (!Array.isArray(val) || !val.length || typeof val[0] !== "object" || val[0] === null) continue;
      const keys = Object.keys(val[0]).filter((k) => val[0][k] === null || typeof val[0][k] !== "object");
      const cols = keys.map((k) => {
        const num = typeof val[0][k] === "number";
        return { title: k, num, get: (r) => (r[k] === undefined || r[k] === null ? (num ? 0 : "") : r[k]),
                 fmt: num ? (v) => (Number.isInteger(v) ? fmtNum(v) : fix(v, 6)) : undefined };
      });
      out.push(el("h3", { text: key.replace(/_/g, " ") }), table(cols, val, { name: `${name}-${key}` }));
    }
    return out;
  }

  function drawTracers() {
    for (const tr of D.tracers || []) {
      const s = section("tracer-" + tr.key, tr.title);
      const ms = tr.metrics.filter((m) => M[m].total !== 0);
      if (!ms.length) {
        s.append(el("p", { class: "empty", text: `Not recorded in this experiment. To record it: ${tr.record}.` }));
        continue;
      }
      s.append(el("h3", { text: "Its metrics per rank" }), ...metricTables(ms, "tracer-" + tr.key));
      const head = ms[0], sums = [...functionSums(head).values()].filter((e) => e.incl > 0);
      sums.sort((a, b) => b.excl - a.excl || b.incl - a.incl);
      s.append(el("h3", { text: `Functions by ${M[head].title}` }),
               table([{ title: "Function", get: (r) => r.name }, { title: "Module", get: (r) => r.module },
                      { title: `Excl. ${M[head].title}`, num: true, get: (r) => r.excl, fmt: (v) => fmtMetric(M[head], v) },
                      { title: `Incl. ${M[head].title}`, num: true, get: (r) => r.incl, fmt: (v) => fmtMetric(M[head], v) }],
                     sums, { name: `tracer-${tr.key}-functions`, page: 50 }));
      const L = (TL.layers || []).findIndex((x) => x.key === tr.layer);
      if (L >= 0 && (TL.rows || []).some((r) => r.l.includes(L)))
        s.append(el("p", { class: "note", text: `Its records are the "${TL.layers[L].title}" lane of the rows of the timeline.` }));
      for (const key of tr.reports || [])
        if (R[key]) s.append(el("h3", { text: `hpanalyze ${R[key].report || key}` }), ...reportTables(R[key], "tracer-" + tr.key));
    }
  }

  /* ------------------------------------------------------------ flame graph */

  function drawFlame() {
    const s = section("flame", "Flame graph");
    const F = D.flame;
    if (!F || !F.parent || F.parent.length < 2) { s.append(el("p", { class: "empty", text: "No samples." })); return; }
    const n = F.parent.length, kids = Array.from({ length: n }, () => []);
    for (let i = 1; i < n; i++) kids[F.parent[i]].push(i);
    const nameOf = (i) => F.names[F.fn[i]][0];
    kids.forEach((k) => k.sort((a, b) => (nameOf(a) < nameOf(b) ? -1 : nameOf(a) > nameOf(b) ? 1 : 0)));
    const depth = new Int32Array(n);
    let maxDepth = 0;
    for (let i = 1; i < n; i++) { depth[i] = depth[F.parent[i]] + 1; if (depth[i] > maxDepth) maxDepth = depth[i]; }
    const byMetric = new Map((F.vals || []).map((v) => [v.m, v]));
    const metricIds = [...byMetric.keys()];
    const scopeSel = el("select", { "aria-label": "flame graph scope" }, el("option", { value: "all", text: "All ranks and threads" }));
    for (const p of procs) {
      if (procs.length > 1) scopeSel.append(el("option", { value: "p" + p.index, text: `${procName(p)} (all threads)` }));
      for (let r = p.rows[0]; r < p.rows[0] + p.rows[1]; r++)
        scopeSel.append(el("option", { value: "r" + r, text: `${rows[r].label}${rows[r].role ? " (" + rows[r].role + ")" : ""}` }));
    }
    const metricSel = el("select", { "aria-label": "flame graph metric" });
    for (const m of metricIds) metricSel.append(el("option", { value: m, text: M[m].title + (M[m].unit ? ` (${M[m].unit})` : "") }));
    metricSel.value = byMetric.has(D.sort_metric) ? D.sort_metric : metricIds[0];
    const search = el("input", { type: "search", placeholder: "Search functions (regular expression)", "aria-label": "search functions" });
    const info = el("span", { class: "note" });
    const reset = el("button", { text: "Reset zoom" });
    s.append(el("div", { class: "tools" }, "Scope ", scopeSel, " Metric ", metricSel, search, reset, info));
    const FH = 17;
    const H = (maxDepth + 1) * FH + 8;
    const box = el("div", { class: "canvasbox" + (H > 900 ? " scroll" : "") });
    const cv = el("canvas", { id: "flame-canvas" }), ctx = cv.getContext("2d");
    box.append(cv);
    s.append(box, el("p", { class: "note", text: "Click a frame to zoom to it; the widths are inclusive values of the metric in the scope." }));
    let incl = new Float64Array(n), zoomed = 0, rects = [], W = 900, re = null;
    const dpr = window.devicePixelRatio || 1;
    function inScope(row) {
      const v = scopeSel.value;
      if (v === "all") return true;
      if (v[0] === "r") return row === +v.slice(1);
      const p = procs.find((q) => q.index === +v.slice(1));
      return row >= p.rows[0] && row < p.rows[0] + p.rows[1];
    }
    function compute() {
      incl = new Float64Array(n);
      const v = byMetric.get(+metricSel.value);
      if (v) for (let k = 0; k < v.cell.length; k++) {
        const c = v.cell[k];
        if (inScope(F.row[c])) incl[F.node[c]] += v.v[k];
      }
      for (let i = n - 1; i > 0; i--) incl[F.parent[i]] += incl[i];
    }
    const m = () => M[+metricSel.value];
    const val = (raw) => raw * m().scale;
    function draw() {
      W = box.clientWidth || 900;
      cv.width = Math.round(W * dpr); cv.height = Math.round(H * dpr);
      cv.style.width = W + "px"; cv.style.height = H + "px";
      ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
      ctx.clearRect(0, 0, W, H);
      ctx.font = "11.5px system-ui, sans-serif";
      ctx.textBaseline = "middle";
      rects = [];
      const total = incl[zoomed] || 1;
      let matched = 0;
      /* the zoomed frame's ancestors span the width, dimmed */
      for (let a = zoomed; ; a = F.parent[a]) {
        if (a !== zoomed) frame(a, 0, W, 0.55);
        if (a === 0) break;
      }
      const stack = [[zoomed, 0]];
      while (stack.length) {
        const [i, x] = stack.pop();
        const w = (incl[i] / total) * W;
        if (w < 0.4) continue;
        const hit = re && re.test(nameOf(i));
        if (hit && !(F.parent[i] !== i && isMatchedAncestor(i))) matched += incl[i];
        frame(i, x, w, 1, hit);
        let cx = x;
        for (const c of kids[i]) { stack.push([c, cx]); cx += (incl[c] / total) * W; }
      }
      const mm = m();
      info.textContent = `${nameOf(zoomed) === "<Total>" ? "Total" : nameOf(zoomed)}: ${fmtMetric(mm, val(incl[zoomed]))}` +
        (re ? `; matched ${fix(pct(matched, incl[zoomed]), 2)} %` : "");
    }
    function isMatchedAncestor(i) {
      for (let a = F.parent[i]; ; a = F.parent[a]) {
        if (re.test(nameOf(a))) return true;
        if (a === zoomed || a === 0) return false;
      }
    }
    function frame(i, x, w, alpha, hit) {
      const y = H - 4 - (depth[i] + 1) * FH;
      ctx.globalAlpha = alpha;
      ctx.fillStyle = hit ? "rgb(220,0,220)" : color(nameOf(i), "");
      ctx.fillRect(x, y, Math.max(0.5, w - 0.5), FH - 1);
      ctx.globalAlpha = 1;
      if (w > 30) {
        ctx.fillStyle = "#111";
        const name = nameOf(i), fit = Math.floor((w - 6) / 6.4);
        ctx.fillText(name.length > fit ? name.slice(0, Math.max(0, fit - 1)) + "\u2026" : name, x + 3, y + FH / 2);
      }
      rects.push([x, y, w, i]);
    }
    const at = (x, y) => {
      for (let k = rects.length - 1; k >= 0; k--) {
        const [rx, ry, rw, i] = rects[k];
        if (x >= rx && x < rx + rw && y >= ry && y < ry + FH) return i;
      }
      return -1;
    };
    cv.addEventListener("mousemove", (ev) => {
      const i = at(ev.offsetX, ev.offsetY);
      if (i < 0) { hideTip(); return; }
      const mm = m(), mod = F.names[F.fn[i]][1];
      showTip(ev, nameOf(i), [[mm.title, fmtMetric(mm, val(incl[i]))], ["of the scope", fix(pct(incl[i], incl[0]), 2) + " %"],
                              ...(mod ? [["module", mod]] : [])]);
    });
    cv.addEventListener("mouseleave", hideTip);
    cv.addEventListener("click", (ev) => { const i = at(ev.offsetX, ev.offsetY); if (i >= 0) { zoomed = i; draw(); } });
    reset.addEventListener("click", () => { zoomed = 0; draw(); });
    const redo = () => { compute(); if (!incl[zoomed]) zoomed = 0; draw(); };
    scopeSel.addEventListener("change", redo);
    metricSel.addEventListener("change", redo);
    search.addEventListener("input", () => {
      try { re = search.value ? new RegExp(search.value) : null; } catch (e) { re = null; }
      draw();
    });
    window.addEventListener("resize", draw);
    compute();
    draw();
    api.flame = {
      select(scope, metricKey) {
        if (scope !== undefined) scopeSel.value = scope;
        if (metricKey !== undefined) metricSel.value = M.findIndex((x) => x.key === metricKey);
        redo();
        return { total: val(incl[0]), metric: m().key };
      },
      metrics: () => metricIds.map((i) => M[i].key),
      /* inclusive value of function name in the scope (each path counted once) */
      value(name) {
        let sum = 0;
        for (let i = 1; i < n; i++) {
          if (nameOf(i) !== name) continue;
          let a = F.parent[i], inside = false;
          for (; a; a = F.parent[a]) if (nameOf(a) === name) { inside = true; break; }
          if (!inside) sum += incl[i];
        }
        return val(sum);
      },
    };
  }

  /* ------------------------------------------------------------ functions */

  function drawFunctions() {
    const s = section("functions", "Functions");
    const f = R.functions;
    if (!f || !f.functions) { s.append(el("p", { class: "empty", text: "No samples." })); return; }
    const list = f.functions.filter((r) => r.name !== "<Total>");
    const total = f.functions.find((r) => r.name === "<Total>") || {};
    s.append(el("p", { class: "note", text: `The \`functions\` report (${f.sorted_by}, ${f.view} view)` +
      (list.length >= (D.functions_limit || Infinity) ? `: the first ${D.functions_limit} (--limit N for more)` : "") +
      ". Source: the function's line holding most of the sort metric." }));
    const cols = [
      { title: "Function", get: (r) => r.name },
      { title: "Module", get: (r) => r.module },
      { title: "Source", get: (r) => (r.line ? `${base(r.file)}:${r.line}` : ""), text: (r) => r.file },
    ];
    for (const c of D.columns || []) {
      const mm = M[c.metric], key = c.key;
      const tot = total[key] || 0;
      cols.push({ title: `${c.kind === "e" ? "Excl." : "Incl."} ${mm.title}${mm.time ? " (s)" : ""}`, num: true,
                  get: (r) => r[key] || 0, fmt: (v) => (mm.time ? fix(v, 3) : fmtNum(v)) + (tot ? ` (${fix(pct(v, tot), 1)} %)` : ""),
                  tip: key });
    }
    s.append(table(cols, list, { name: "functions", placeholder: "Search functions, modules, files" }));
  }

  /* ------------------------------------------------------------ draw */

  performance.measure("parse", { start: T0 });
  const parts = [drawSummary, drawTimeline, drawMpi, drawOmp, drawTracers, drawFlame, drawFunctions];
  for (const p of parts) {
    try {
      const t = performance.now();
      p();
      performance.measure(p.name, { start: t });
    } catch (e) {
      main.append(el("p", { class: "empty", text: `${p.name}: ${e}` }));
      throw e;
    }
  }
  requestAnimationFrame(() => {
    document.body.dataset.drawnMs = (performance.now() - T0).toFixed(1);
    document.body.dataset.readyMs = performance.now().toFixed(1); /* from the navigation's start */
    document.body.dataset.ready = "1";
  });
})();
