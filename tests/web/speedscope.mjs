// tests/web/speedscope.mjs - load a profile into speedscope's built page in headless
// Chromium, as a user would (index.html#profileURL=... from an http server on 127.0.0.1),
// and print what speedscope made of it as JSON on stdout:
//   {"console": [{type, text}...], "totals": {function: {"total": us, "self": us}}}
// totals come from speedscope's own export (Ctrl+S, its .speedscope.json), summed over
// every profile (thread) it imported: a function's total counts each sample once.
//
//   node speedscope.mjs BASE_URL PROFILE_NAME     (BASE_URL serves index.html and the profile)
import puppeteer from "puppeteer-core";

const [base, name] = process.argv.slice(2);
const browser = await puppeteer.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  args: ["--no-sandbox", "--enable-unsafe-swiftshader", "--use-angle=swiftshader", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync"],
  headless: true,
});
const out = { console: [], totals: {} };
try {
  const page = await browser.newPage();
  page.on("console", (m) => out.console.push({ type: m.type(), text: m.text() }));
  page.on("pageerror", (e) => out.console.push({ type: "pageerror", text: String(e) }));
  await page.evaluateOnNewDocument(() => {
    const orig = URL.createObjectURL;
    URL.createObjectURL = function (b) { window.__saved = b; return orig.call(this, b); };
  });
  await page.goto(`${base}/index.html#profileURL=${encodeURIComponent(`${base}/${name}`)}`,
                  { waitUntil: "networkidle0" });
  // imported when the flame chart's canvas is there
  await page.waitForFunction(() => document.querySelectorAll("canvas").length > 0, { timeout: 30000 });
  await new Promise((r) => setTimeout(r, 500));
  await page.keyboard.down("Control");
  await page.keyboard.press("s");
  await page.keyboard.up("Control");
  await page.waitForFunction(() => window.__saved !== undefined, { timeout: 10000 });
  const file = JSON.parse(await page.evaluate(() => window.__saved.text()));
  const frames = file.shared.frames;
  // a stack held for w: its functions' totals (each once) and its leaf's self time grow
  const add = (stack, w) => {
    const seen = new Set();
    stack.forEach((f, k) => {
      const n = frames[f].name;
      const t = (out.totals[n] ??= { total: 0, self: 0 });
      if (!seen.has(n)) { t.total += w; seen.add(n); }
      if (k === stack.length - 1) t.self += w;
    });
  };
  for (const p of file.profiles) {
    if (p.type === "sampled") {
      p.samples.forEach((stack, i) => add(stack, p.weights[i]));
    } else if (p.type === "evented") {
      const stack = [];
      let last = p.startValue;
      for (const e of p.events) {
        if (stack.length) add(stack, e.at - last);
        last = e.at;
        if (e.type === "O") stack.push(e.frame);
        else stack.pop();
      }
    } else {
      out.console.push({ type: "note", text: `profile ${p.name}: unknown type ${p.type}` });
    }
  }
} finally {
  await browser.close();
}
console.log(JSON.stringify(out));
