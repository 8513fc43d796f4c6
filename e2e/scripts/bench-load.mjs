// Time to interactive on localhost, in Debian's Chromium (BENCHMARKS.md): from navigation start
// until the page answers its reader, in a fresh browser context each time (an empty cache, as
// on a first visit), 9 loads per page, median.
//   /             the thread finder's readout is on screen (the site's module has run)
//   /docs/intro   the page's first kernel is on screen with its Run button
//   /play         the editor is on screen and the playground module has mounted
//   /docs/intro + Run   from the click to the first kernel's simulated results
//   node scripts/bench-load.mjs   (after `make site`; DIST=PATH another build; SW=block without
//                                  the service worker, which installs beside a first visit)
import { open, median } from './site.mjs';

const site = await open(4178);
const { browser, base } = site;
const pages = [
  ['/', (p) => p.getByTestId('readout-table').first().waitFor()],
  ['/docs/intro', (p) => p.getByTestId('kernel-run').first().waitFor()],
  ['/play', async (p) => { await p.getByRole('textbox', { name: 'Kernel source' }).waitFor(); }],
];
try {
  for (const [path, ready] of pages) {
    const times = [];
    for (let i = 0; i < 9; i++) {
      const context = await browser.newContext(process.env.SW === 'block' ? { serviceWorkers: 'block' } : {});
      const page = await context.newPage();
      const start = Date.now();
      await page.goto(base + path, { waitUntil: 'commit' });
      await ready(page);
      times.push(Date.now() - start);
      await context.close();
    }
    console.log(`${path}: median ${median(times)} ms (of ${times.join(', ')})`);
  }
  const runs = [];
  for (let i = 0; i < 9; i++) {
    const context = await browser.newContext(process.env.SW === 'block' ? { serviceWorkers: 'block' } : {});
    const page = await context.newPage();
    await page.goto(base + '/docs/intro');
    const run = page.getByTestId('kernel-run').first();
    await run.waitFor();
    const start = Date.now();
    await run.click();
    await page.getByTestId('sim-status').first().waitFor();
    runs.push(Date.now() - start);
    await context.close();
  }
  console.log(`/docs/intro, first Run (loads the playground module): median ${median(runs)} ms (of ${runs.join(', ')})`);
} finally {
  await site.close();
}
