// The pages' first loads against their budgets (DEVELOPERS.md; BENCHMARKS.md, "Site size"): what
// a reader's browser fetches from the site to open a page cold (an empty cache, a 1280 x 720
// window), counted as scripts/bench-transfer.mjs counts it, gzip -9 of every file fetched. The
// playground's views that a first visit does not show load later (playground/src/run/later.rs),
// and this test is what notices when a change undoes that: /play went 185 KB over its budget
// in one round and nothing failed.
import { test, expect } from '@playwright/test';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

const BUDGETS: [string, number][] = [
  ['/', 350_000],
  ['/play', 700_000],
];
const DIST = join(__dirname, '..', '..', 'dist');

for (const [path, budget] of BUDGETS) {
  test(`${path} opens cold within ${budget / 1000} KB of gzip`, async ({ page, baseURL }) => {
    const origin = new URL(baseURL ?? '').origin;
    const fetched = new Set<string>();
    page.on('request', (request) => {
      const url = new URL(request.url());
      if (url.origin === origin) fetched.add(url.pathname);
    });
    await page.goto(path, { waitUntil: 'networkidle' });
    const sizes = [...fetched].map((file) => {
      // Every route is index.html (a single-page app).
      const name = /\.[a-z0-9]+$/.test(file) ? file : '/index.html';
      const bytes = execFileSync('gzip', ['-9', '-c', join(DIST, name)], { maxBuffer: 1 << 26 }).length;
      return { name, bytes };
    });
    const total = sizes.reduce((sum, s) => sum + s.bytes, 0);
    const list = sizes
      .sort((a, b) => b.bytes - a.bytes)
      .map((s) => `${(s.bytes / 1000).toFixed(1)} KB ${s.name}`)
      .join('\n');
    expect(total, `${path}: ${(total / 1000).toFixed(1)} KB of gzip:\n${list}`).toBeLessThanOrEqual(budget);
  });
}
