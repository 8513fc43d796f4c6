// How long a puzzle's Check takes in the page (BENCHMARKS.md, "Puzzles in the page"): for each
// puzzle, its solution pasted into the workbench, then Check pressed RUNS times; the time from
// the press to the verdict drawn (the worker grades: the reference and the attempt on the
// simulator, the rules, the memory counts). The first press of a page also starts the worker.
//   node scripts/bench-puzzles.mjs [RUNS]          (after make site)
import { open, median, worst } from './site.mjs';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

const runs = Number(process.argv[2] ?? 5);
const dir = join(import.meta.dirname, '../../content/puzzles');
const site = await open(4177);
try {
  const page = await site.browser.newPage();
  const rows = [];
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.md')).sort()) {
    const text = readFileSync(join(dir, file), 'utf8');
    const solution = /^solution = '''\n([\s\S]*?)'''/m.exec(text)[1];
    const slug = `puzzle-${file.replace(/^\d+-/, '').replace(/\.md$/, '')}`;
    await page.goto(`${site.base}/docs/${slug}`);
    await page.getByRole('textbox', { name: 'Kernel source' }).waitFor();
    await page.locator('.cm-editor').evaluate((el, t) => el.tesseraPaste(t), solution);
    const times = [];
    for (let run = 0; run <= runs; run++) {
      // From the press until the "Checking…" line the press put up goes away (the verdict
      // is drawn in the same update).
      const ms = await page.evaluate(() => new Promise((resolve) => {
        const bench = document.querySelector('[data-testid="workbench"]');
        const gone = (node) => node.nodeType === 1 && (node.dataset.testid === 'puzzle-checking' || node.querySelector('[data-testid="puzzle-checking"]'));
        const observer = new MutationObserver((records) => {
          if (records.some((r) => [...r.removedNodes].some(gone))) {
            observer.disconnect();
            resolve(performance.now() - start);
          }
        });
        observer.observe(bench, { childList: true, subtree: true });
        const start = performance.now();
        document.querySelector('[data-testid="puzzle-check"]').click();
      }));
      const shown = await page.getByTestId('puzzle-verdict').getAttribute('data-verdict');
      if (shown !== 'pass') throw new Error(`${slug}: the solution gave ${shown}`);
      times.push(ms);
    }
    const [first, ...rest] = times;
    rows.push(`${slug.padEnd(28)} first ${first.toFixed(0).padStart(5)} ms   then median ${median(rest).toFixed(0).padStart(4)} ms, worst ${worst(rest).toFixed(0).padStart(4)} ms`);
  }
  console.log(rows.join('\n'));
} finally {
  await site.close();
}
