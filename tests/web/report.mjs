// tests/web/report.mjs - open pages of `hpanalyze EXP export html` in headless Chromium
// from disk (file://, as a user would), do what a user does (hover, zoom, pick, search,
// sort) and print what each page showed as a JSON array on stdout, one object per page:
//   {page, console: [{type, text}], requests: [urls other than file: and data:], drawn_ms,
//    rows: the timeline's rows as drawn, hovers: [{name, row, found, tip}],
//    counts: [{name, row, n}], items: [{layer, row, items: timeline.items(layer, row)}],
//    summary: [{rank, part, tip}], matrix: [{from, to, tip}],
//    flame: [{scope, metric, total}], texts: {selector: [innerText...]},
//    tables: {name: {head: [], rows: [[cell text...]]}},
//    functions: {rows, after_search, sorted, sorted_again: the column's cells, names}}
// and save screenshots into each page's "out" folder (top.png: the first screen;
// timeline.png: the tooltip over the first hovered call; matrix.png).
//
//   node report.mjs PLAN.json
// PLAN: [{"page": "a.html", "out": "dir", "hover": [{"name": "MPI_Recv", "row": 0, "site": "f.c:1"}],
//         "counts": [{"name": "omp parallel", "row": 0}], "items": [{"layer": "io", "row": 0}],
//         "summary": true, "matrix": true,
//         "flame": [["all", "cpu"], ["r0", "mpi_time"]], "texts": ["#omp-bars"],
//         "tables": ["mpi-calls"], "search": "MPI_", "sort": "Excl. Total CPU (s)",
//         "messages": true}, ...]
import fs from "node:fs";
import path from "node:path";
import puppeteer from "puppeteer-core";

const plans = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
const browser = await puppeteer.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--allow-file-access-from-files"],
  headless: true,
});
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const results = [];

// Hover over the longest call `name` of `row` (at a site containing `site`, when the plan
// gives one) on the timeline, zoomed so that it spans a
// third of the view (or, when deeper calls cover most of it, so that its widest part of
// its own does), and read the tooltip.
async function hover(page, h, out, first) {
  const at = await page.evaluate((n, r, site) => {
    document.getElementById("tl-canvas").scrollIntoView({ block: "center" });
    const zoom = (a, z) => {
      const w = Math.max(3 * (z - a), 3000), mid = (a + z) / 2;
      hpaReport.timeline.setView(mid - w / 2, mid + w / 2);
      return hpaReport.timeline.find(n, r, site);
    };
    let f = hpaReport.timeline.find(n, r, site);
    if (f) f = zoom(f.begin, f.end);
    if (f && f.free_px < 30) f = zoom(f.free[0], f.free[1]);
    return f;
  }, h.name, h.row, h.site || "");
  const got = { name: h.name, row: h.row, found: !!at, tip: "" };
  if (at) {
    await page.mouse.move(at.x, at.y);
    await sleep(50);
    got.tip = await page.evaluate(() => hpaReport.tip());
    if (first) await page.screenshot({ path: path.join(out, "timeline.png") });
  }
  await page.evaluate(() => hpaReport.timeline.setView(0, 1e18));
  return got;
}

async function run(plan) {
  const out = { page: plan.page, console: [], requests: [], hovers: [], counts: [], items: [], summary: [],
                matrix: [], flame: [], texts: {}, tables: {} };
  const page = await browser.newPage();
  await page.setViewport({ width: 1400, height: 1000 });
  page.on("console", (m) => out.console.push({ type: m.type(), text: m.text() }));
  page.on("pageerror", (e) => out.console.push({ type: "pageerror", text: String(e) }));
  page.on("request", (r) => { if (!/^(file|data):/.test(r.url())) out.requests.push(r.url()); });
  fs.mkdirSync(plan.out, { recursive: true });
  await page.goto("file://" + path.resolve(plan.page), { waitUntil: "load", timeout: 60000 });
  await page.waitForSelector("body[data-ready='1']", { timeout: 60000 });
  out.drawn_ms = await page.evaluate(() => +document.body.dataset.drawnMs);
  out.rows = await page.evaluate(() => hpaReport.timeline.rows());
  await page.screenshot({ path: path.join(plan.out, "top.png") });

  for (const h of plan.hover || []) out.hovers.push(await hover(page, h, plan.out, !out.hovers.length));
  for (const c of plan.counts || [])
    out.counts.push({ ...c, n: await page.evaluate((n, r) => hpaReport.timeline.count(n, r), c.name, c.row) });
  for (const c of plan.items || [])
    out.items.push({ ...c, items: await page.evaluate((l, r) => hpaReport.timeline.items(l, r), c.layer, c.row) });
  if (plan.messages) {
    await page.evaluate(() => { hpaReport.timeline.messages(true); document.getElementById("tl-canvas").scrollIntoView(); });
    await page.screenshot({ path: path.join(plan.out, "messages.png") });
  }

  // every part of every rank's bar in "where the time goes"
  if (plan.summary) {
    await page.evaluate(() => document.getElementById("where-bars").scrollIntoView({ block: "center" }));
    for (const s of await page.evaluate(() => hpaReport.summary.segments())) {
      if (s.w < 2) continue;
      await page.mouse.move(s.x, s.y);
      out.summary.push({ rank: s.rank, part: s.part, tip: await page.evaluate(() => hpaReport.tip()) });
    }
  }

  // every cell of the communication matrix
  if (plan.matrix) {
    const ranks = await page.evaluate(() => {
      document.getElementById("mpi-matrix").scrollIntoView({ block: "center" });
      return hpaReport.matrix ? hpaReport.matrix.ranks() : [];
    });
    for (const from of ranks)
      for (const to of ranks) {
        const c = await page.evaluate((a, b) => hpaReport.matrix.cell(a, b), from, to);
        await page.mouse.move(c.x, c.y);
        out.matrix.push({ from, to, tip: await page.evaluate(() => hpaReport.tip()) });
      }
    await page.screenshot({ path: path.join(plan.out, "matrix.png") });
  }
  await page.mouse.move(0, 0);

  for (const [scope, metric] of plan.flame || [])
    out.flame.push({ scope, metric, ...(await page.evaluate((s, m) => hpaReport.flame.select(s, m), scope, metric)) });
  for (const sel of plan.texts || [])
    out.texts[sel] = await page.evaluate((q) => [...document.querySelectorAll(q)].map((e) => e.innerText), sel);
  for (const name of plan.tables || [])
    out.tables[name] = await page.evaluate((n) => {
      const t = document.querySelector(`table[data-table="${n}"]`);
      if (!t) return null;
      const more = t.closest(".tablebox").querySelector("button");
      if (more && more.style.display !== "none") more.click();
      return { head: [...t.querySelectorAll("th")].map((th) => th.textContent),
               rows: [...t.querySelectorAll("tbody tr")].map((tr) => [...tr.cells].map((c) => c.textContent)) };
    }, name);

  // the functions table: search, then sort by a column (plan.sort: its title), twice
  if (plan.search)
    out.functions = await page.evaluate((q, title) => {
      const t = document.querySelector("table[data-table=functions]");
      const input = t.closest(".tablebox").querySelector("input[type=search]");
      const col = (i) => [...t.querySelectorAll("tbody tr")].map((tr) => tr.cells[i].textContent);
      const before = col(0).length;
      input.value = q;
      input.dispatchEvent(new Event("input"));
      const hits = col(0);
      input.value = "";
      input.dispatchEvent(new Event("input"));
      const ths = [...t.querySelectorAll("th")], i = ths.findIndex((th) => th.textContent === title);
      if (i < 0) return { rows: before, after_search: hits, head: ths.map((th) => th.textContent) };
      ths[i].click();
      const first = col(i);
      ths[i].click();
      return { rows: before, after_search: hits, sorted: first, sorted_again: col(i), names: col(0) };
    }, plan.search, plan.sort || "");
  await page.close();
  return out;
}

try {
  for (const plan of plans) results.push(await run(plan));
} finally {
  await browser.close();
}
console.log(JSON.stringify(results));
