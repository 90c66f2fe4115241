// Drives a VS Code (code-server) page in Debian's Chromium through puppeteer-core, for
// tests/e2e/vscode_web.py: one JSON request a line on stdin, one JSON answer a line on stdout.
// argv: the puppeteer-core module's path, the Chromium executable, a fresh profile directory.
"use strict";
const readline = require("readline");
const [puppeteerPath, chromium, profile] = process.argv.slice(2);
const puppeteer = require(puppeteerPath);

let browser;
let page;

// The brief's flags: no sandbox (root in CI), no GPU, and nothing that reaches the network.
const FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
  "--disable-component-update", "--disable-sync", "--window-size=1400,900"];

// Text of the visible elements matching `selector`, in document order.
function texts(selector) {
  return page.$$eval(selector, (els) => els.filter((e) => e.offsetParent !== null || e.getClientRects().length)
    .map((e) => e.innerText ?? e.textContent));
}

const ops = {
  async launch() {
    browser = await puppeteer.launch({ executablePath: chromium, headless: true, args: FLAGS, userDataDir: profile,
      defaultViewport: { width: 1400, height: 900 }, protocolTimeout: 120000 });
    page = await browser.newPage();
    return true;
  },
  async goto({ url }) {
    await page.goto(url, { waitUntil: "domcontentloaded", timeout: 120000 });
    await page.waitForSelector(".monaco-workbench .part.statusbar", { timeout: 120000 });
    return true;
  },
  async press({ keys }) {
    // "Control+Shift+P": modifiers held down while the last key is pressed.
    const parts = keys.split("+");
    const key = parts.pop();
    for (const m of parts) await page.keyboard.down(m);
    await page.keyboard.press(key);
    for (const m of parts.reverse()) await page.keyboard.up(m);
    return true;
  },
  async type({ text, delay }) {
    await page.keyboard.type(text, { delay: delay ?? 20 });
    return true;
  },
  async texts({ selector }) {
    return texts(selector);
  },
  // Waits until some visible element matching `selector` has text matching `pattern`; answers all their texts.
  async waitText({ selector, pattern, timeout }) {
    const re = new RegExp(pattern ?? "[^]", "m");
    const end = Date.now() + (timeout ?? 30000);
    let last = [];
    while (Date.now() < end) {
      last = await texts(selector);
      if (last.some((t) => re.test(t))) return last;
      await new Promise((r) => setTimeout(r, 200));
    }
    throw new Error(`no ${selector} matching /${pattern}/ within ${timeout ?? 30000} ms; saw ${JSON.stringify(last)}`);
  },
  async waitVisible({ selector, timeout }) {
    await page.waitForSelector(selector, { visible: true, timeout: timeout ?? 30000 });
    return true;
  },
  async waitHidden({ selector, timeout }) {
    await page.waitForSelector(selector, { hidden: true, timeout: timeout ?? 30000 });
    return true;
  },
  // Waits until an element matching `selector` has attribute `name` matching `pattern`; answers all their values.
  async waitAttribute({ selector, name, pattern, timeout }) {
    const re = new RegExp(pattern ?? "[^]", "m");
    const end = Date.now() + (timeout ?? 30000);
    let last = [];
    while (Date.now() < end) {
      last = await page.$$eval(selector, (els, n) => els.map((e) => e.getAttribute(n) ?? ""), name);
      if (last.some((t) => re.test(t))) return last;
      await new Promise((r) => setTimeout(r, 200));
    }
    throw new Error(`no ${selector}[${name}] matching /${pattern}/ within ${timeout ?? 30000} ms; saw ${JSON.stringify(last)}`);
  },
  // Clicks the first element matching `selector` whose text matches `pattern`; `button`: "right"
  // opens its context menu.
  async click({ selector, pattern, button }) {
    const re = new RegExp(pattern ?? "[^]", "m");
    const handles = await page.$$(selector);
    for (const h of handles) {
      const t = await h.evaluate((e) => e.innerText ?? e.textContent);
      if (re.test(t)) {
        await h.click({ button: button ?? "left" });
        return t;
      }
    }
    throw new Error(`no ${selector} matching /${pattern}/ to click`);
  },
  // The value of the first input matching `selector` (a quick input's text, say).
  async value({ selector }) {
    return page.$eval(selector, (e) => e.value);
  },
  async attribute({ selector, name }) {
    return page.$$eval(selector, (els, n) => els.map((e) => e.getAttribute(n)), name);
  },
  // The texts of elements matching `selector` inside the page's iframes (webviews nest two deep).
  async frameTexts({ selector }) {
    const out = [];
    for (const f of page.frames()) {
      try {
        out.push(...(await f.$$eval(selector, (els) => els.map((e) => e.textContent))));
      } catch {
        // a frame navigating away: nothing to read there
      }
    }
    return out;
  },
  // The editor's rendered lines in order (Monaco reuses line elements: the DOM order is not the text's);
  // `within`: which editor (a side of a diff editor, say).
  async editorLines({ within }) {
    return page.$$eval(`${within ?? ".monaco-editor"} .view-lines .view-line`, (els) => els
      .map((e) => [parseFloat(e.style.top), e.textContent.replace(/\u00a0/g, " ")])
      .sort((a, b) => a[0] - b[0]).map((x) => x[1]));
  },
  async screenshot({ path }) {
    await page.screenshot({ path });
    return path;
  },
  async close() {
    await browser?.close();
    return true;
  },
};

const rl = readline.createInterface({ input: process.stdin });
rl.on("line", async (line) => {
  const { op, args } = JSON.parse(line);
  let answer;
  try {
    answer = { ok: true, value: await ops[op](args ?? {}) };
  } catch (err) {
    answer = { ok: false, error: String(err && err.stack ? err.stack : err) };
  }
  process.stdout.write(JSON.stringify(answer) + "\n");
  if (op === "close") process.exit(0);
});
rl.on("close", async () => {
  await browser?.close();
  process.exit(0);
});
