// tests/web/report.mjs - open a page of `hpanalyze EXP export html` in headless Chromium
// from disk (file://, as a user would), do what a user does, and print what the page showed
// as JSON on stdout:
//   {"console": [{type, text}], "drawn_ms", "rows": timeline rows drawn,
//    "hovers": [{name, row, found, tip}], "matrix": [{from, to, tip}],
//    "flame": [{scope, metric, total}], "functions": {rows, after_search, sorted}}
// and save screenshots into OUTDIR (page.png, the whole page; timeline.png, a tooltip over
// the first hovered call; matrix.png).
//
//   node report.mjs PAGE.html OUTDIR PLAN.json
// PLAN: {"hover": [{"name": "MPI_Allreduce", "row": 0}], "matrix": true,
//        "flame": [["all", "cpu"], ["r0", "mpi_time"]], "search": "MPI_"}
import fs from "node:fs";
import path from "node:path";
import puppeteer from "puppeteer-core";

const [page_file, outdir, plan_file] = process.argv.slice(2);
const plan = JSON.parse(fs.readFileSync(plan_file, "utf8"));
const browser = await puppeteer.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  args: ["--no-sandbox", "--enable-unsafe-swiftshader", "--use-angle=swiftshader", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--allow-file-access-from-files"],
  headless: true,
});
const out = { console: [], requests: [], hovers: [], matrix: [], flame: [] };
try {
  const page = await browser.newPage();
  await page.setViewport({ width: 1400, height: 1000 });
  page.on("console", (m) => out.console.push({ type: m.type(), text: m.text() }));
  page.on("pageerror", (e) => out.console.push({ type: "pageerror", text: String(e) }));
  page.on("request", (r) => { if (!r.url().startsWith("file:") && !r.url().startsWith("data:")) out.requests.push(r.url()); });
  const t0 = Date.now();
  await page.goto("file://" + path.resolve(page_file), { waitUntil: "load", timeout: 60000 });
  await page.waitForSelector("body[data-ready='1']", { timeout: 60000 });
  out.load_ms = Date.now() - t0;
  out.drawn_ms = await page.evaluate(() => +document.body.dataset.drawnMs);
  out.rows = await page.evaluate(() => hpaReport.timeline.rows());
  await page.screenshot({ path: path.join(outdir, "page.png"), fullPage: true });

  // tooltips over calls on the timeline
  for (const h of plan.hover || []) {
    const at = await page.evaluate((n, r) => {
      const box = document.getElementById("tl-canvas");
      box.scrollIntoView({ block: "center" });
      const f = hpaReport.timeline.find(n, r);
      if (!f) return null;
      // zoom so that the call is at least 40 px wide, then find it again
      const [v0, v1] = hpaReport.timeline.view(), span = f.end - f.begin;
      if (span > 0 && span * 1000 < v1 - v0) {
        const mid = (f.begin + f.end) / 2, w = Math.max(span * 30, 2000);
        hpaReport.timeline.setView(mid - w / 2, mid + w / 2);
      }
      return hpaReport.timeline.find(n, r);
    }, h.name, h.row);
    const got = { name: h.name, row: h.row, found: !!at, tip: "" };
    if (at) {
      await page.mouse.move(at.x, at.y);
      await new Promise((r) => setTimeout(r, 100));
      got.tip = await page.evaluate(() => hpaReport.tip());
      if (out.hovers.length === 0)
        await page.screenshot({ path: path.join(outdir, "timeline.png") });
    }
    out.hovers.push(got);
    await page.evaluate(() => hpaReport.timeline.setView(0, 1e18));
  }
  if (plan.messages) {
    await page.evaluate(() => hpaReport.timeline.messages(true));
    await page.evaluate(() => document.getElementById("tl-canvas").scrollIntoView({ block: "start" }));
    await page.screenshot({ path: path.join(outdir, "messages.png") });
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
    await page.screenshot({ path: path.join(outdir, "matrix.png") });
  }

  // flame graph totals per scope and metric
  for (const [scope, metric] of plan.flame || [])
    out.flame.push({ scope, metric, ...(await page.evaluate((s, m) => hpaReport.flame.select(s, m), scope, metric)) });

  // the functions table: sort by a column, search
  if (plan.search) {
    out.functions = await page.evaluate((q) => {
      const t = document.querySelector("table[data-table=functions]");
      const box = t.closest(".tablebox"), input = box.querySelector("input[type=search]");
      const names = () => [...t.querySelectorAll("tbody tr")].map((tr) => tr.cells[0].textContent);
      const before = names().length;
      input.value = q;
      input.dispatchEvent(new Event("input"));
      const hits = names();
      input.value = "";
      input.dispatchEvent(new Event("input"));
      t.querySelectorAll("th")[0].click(); // by name
      const byName = names();
      return { rows: before, after_search: hits, sorted: byName.slice(0, 50) };
    }, plan.search);
  }
} finally {
  await browser.close();
}
console.log(JSON.stringify(out));
