// bench/html_bench.mjs - open a page of `hpanalyze EXP export html` in headless Chromium
// RUNS times (a fresh page each time, from disk) and print one line of JSON: the medians
// of the time from the navigation's start to the first complete drawing
// (body[data-ready-ms]), of the page script's own share of it (body[data-drawn-ms]), of
// the time to two animation frames later (painted_ms: the frame holding the drawing has
// been made), and of the wall times puppeteer waited for the load event and for it all
// (a new renderer, reading the file, the drawing). Chromium runs with --disable-gpu, as on
// a machine without a GPU: its canvas is drawn by the CPU (SwiftShader's emulated GPU
// takes about 6 times longer to make the first frame of a 64-rank timeline).
//
//   node html_bench.mjs PAGE.html RUNS
import path from "node:path";
import puppeteer from "puppeteer-core";

const [file, runs] = [process.argv[2], +(process.argv[3] || 3)];
const browser = await puppeteer.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  headless: true,
});
const ready = [], drawn = [], waited = [], loaded = [], paint = [], errors = [];
try {
  for (let i = 0; i < runs; i++) {
    const page = await browser.newPage();
    await page.setViewport({ width: 1400, height: 1000 });
    page.on("pageerror", (e) => errors.push(String(e)));
    const t0 = Date.now();
    await page.goto("file://" + path.resolve(file), { waitUntil: "load", timeout: 120000 });
    loaded.push(Date.now() - t0);
    await page.waitForSelector("body[data-ready='1']", { timeout: 120000 });
    // two animation frames after the drawing: the frame holding it has been produced
    const painted = await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r(performance.now())))));
    waited.push(Date.now() - t0);
    const d = await page.evaluate(() => [+document.body.dataset.readyMs, +document.body.dataset.drawnMs]);
    ready.push(d[0]);
    drawn.push(d[1]);
    paint.push(painted);
    await page.close();
  }
} finally {
  await browser.close();
}
const median = (v) => v.slice().sort((a, b) => a - b)[(v.length - 1) >> 1];
console.log(JSON.stringify({ ready_ms: median(ready), script_ms: median(drawn), painted_ms: median(paint),
                             load_event_ms: median(loaded), waited_ms: median(waited), errors }));
