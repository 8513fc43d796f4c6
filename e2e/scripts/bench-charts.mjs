// The charts of what a kernel costs, in Debian's Chromium (BENCHMARKS.md, issue 35): the work on
// the page's thread from the counts' arrival to the roofline drawn and laid out, and from a new
// number of registers to the occupancy curves redrawn and laid out.
// - Roofline: the worker's reply to Count memory accesses is timed from the start of its message
//   handler (the counts have arrived) to the roofline in the DOM with the page laid out; the
//   memory table is drawn in the same task, so the figure is the table's and the chart's.
// - Occupancy: a new registers value (the input's change event) to the three curves redrawn
//   (each a sweep of 255, 32 and 385 occupancy calculations, then SVG text) and laid out.
//   node scripts/bench-charts.mjs   (after `make site`)
import { open, median, worst } from './site.mjs';

const RUNS = Number(process.env.RUNS ?? 15);
const site = await open(4179);
const { browser, base } = site;
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 }, serviceWorkers: 'block' });
  // Each worker message's handler, timed from its start.
  await page.addInitScript(() => {
    const set = Object.getOwnPropertyDescriptor(Worker.prototype, 'onmessage').set;
    Object.defineProperty(Worker.prototype, 'onmessage', {
      set(handler) {
        set.call(this, handler && ((event) => { window.__messageAt = performance.now(); return handler(event); }));
      },
    });
  });
  await page.goto(`${base}/play?example=tiled_matmul`);
  await page.getByTestId('run').click();
  await page.getByTestId('sim-status').waitFor();
  const roofline = [];
  for (let i = 0; i < RUNS; i++) {
    roofline.push(await page.evaluate(async () => {
      const close = document.querySelector('[data-testid=memory-close]');
      if (close) close.click();
      await new Promise((r) => requestAnimationFrame(r));
      const drawn = new Promise((resolve) => {
        const observer = new MutationObserver(() => {
          if (document.querySelector('[data-testid=roofline]')) { observer.disconnect(); resolve(); }
        });
        observer.observe(document.body, { subtree: true, childList: true });
      });
      document.querySelector('[data-testid=measure-memory]').click();
      await drawn;
      void document.body.offsetHeight;
      return performance.now() - window.__messageAt;
    }));
  }
  await page.getByTestId('occupancy-summary').click();
  const occupancy = [];
  for (let i = 0; i < RUNS; i++) {
    occupancy.push(await page.evaluate(async (registers) => {
      const input = document.querySelector('[data-testid=occupancy-registers]');
      const caption = () => document.querySelector('[data-testid=occupancy-charts] figcaption').textContent;
      await new Promise((r) => requestAnimationFrame(r));
      const t0 = performance.now();
      input.value = String(registers);
      input.dispatchEvent(new Event('change', { bubbles: true }));
      // Leptos runs effects as microtasks: a message's task runs after all of them.
      await new Promise((r) => { const c = new MessageChannel(); c.port1.onmessage = () => r(); c.port2.postMessage(0); });
      if (!caption().includes(`kernel's ${registers},`)) throw new Error(`not redrawn: ${caption()}`);
      void document.body.offsetHeight;
      return performance.now() - t0;
    }, 32 + 8 * (i % 12)));
  }
  const line = (name, xs) => console.log(`${name}: median ${median(xs).toFixed(1)} ms, worst ${worst(xs).toFixed(1)} ms over ${xs.length}`);
  line('roofline and table drawn after the counts arrive', roofline);
  line('occupancy curves redrawn after a new registers value', occupancy);
} finally {
  await site.close();
}
