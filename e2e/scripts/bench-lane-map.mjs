// The lane map of a kernel that uses mma, in Debian's Chromium (BENCHMARKS.md, issue 54): a lane
// picked in the map's field, timed from its change event (dispatched from a task of its own, as
// the browser delivers one) to every effect run and the page laid out again: the map's 512
// cells, the stepper's strip and table row, and the diagram zoomed onto the lane, all of which
// follow the pick. A frame is 16.7 ms at 60 Hz; the pick's work should fit in one.
//   node scripts/bench-lane-map.mjs   (after `make site`; RUNS=N picks, 40 unless told;
//   NO_STEPPER=1 leaves the stepper closed)
import { open, median, worst } from './site.mjs';

const RUNS = Number(process.env.RUNS ?? 40);
const site = await open(4180);
const { browser, base } = site;
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 }, serviceWorkers: 'block' });
  await page.goto(`${base}/play?example=mma_gemm`);
  await page.getByTestId('run').click();
  await page.getByTestId('sim-status').waitFor();
  if (!process.env.NO_STEPPER) {
    await page.getByTestId('step-through').click();
    await page.getByTestId('lane-values').waitFor();
  }
  await page.getByTestId('fragment-map').scrollIntoViewIfNeeded();
  const times = await page.evaluate(async (runs) => {
    const select = document.querySelector('[data-testid=fragment-lane]');
    const drained = () => new Promise((r) => { const c = new MessageChannel(); c.port1.onmessage = () => r(); c.port2.postMessage(0); });
    const frame = () => new Promise((r) => requestAnimationFrame(r));
    const task = () => new Promise((r) => setTimeout(r, 0));
    const out = [];
    for (let i = 0; i < runs; i++) {
      await frame();
      await task();
      const lane = (i * 7 + 3) % 32;
      const start = performance.now();
      select.value = String(lane);
      select.dispatchEvent(new Event('change', { bubbles: true }));
      await drained();
      // Style and layout, as the next frame would do them.
      document.body.getBoundingClientRect();
      const end = performance.now();
      if (document.querySelectorAll('td.fragment-cell.picked').length !== 16) throw new Error(`lane ${lane}: not 16 cells picked`);
      out.push(end - start);
    }
    return out;
  }, RUNS);
  console.log(`lane picked in the map, to every view updated and laid out (${RUNS} picks): median ${median(times).toFixed(2)} ms, worst ${worst(times).toFixed(2)} ms; a frame is 16.7 ms (median ${(median(times) / 16.7).toFixed(2)} of a frame)`);
} finally {
  await site.close();
}
