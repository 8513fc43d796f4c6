// What a reader's browser transfers to open each page cold (an empty cache), as gzip -9 of
// every file the page fetched from the site, the figures BENCHMARKS.md ("Site size") gives:
//   node scripts/bench-transfer.mjs [PATH...]      (after make site; default: / /docs/intro /play)
// A page counts as open when the network is idle (the playground: its editor is shown).
import { open } from './site.mjs';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

const paths = process.argv.slice(2);
const dist = process.env.DIST ?? '../dist';
const site = await open(4176);
try {
  for (const path of paths.length ? paths : ['/', '/docs/intro', '/play']) {
    const context = await site.browser.newContext();
    const page = await context.newPage();
    const fetched = new Set();
    page.on('request', (request) => {
      const url = new URL(request.url());
      if (url.origin === site.base) fetched.add(url.pathname);
    });
    await page.goto(`${site.base}${path}`, { waitUntil: 'networkidle' });
    let total = 0;
    const rows = [];
    for (const file of fetched) {
      // The page itself is index.html, whatever its path (a single-page app).
      const name = /\.[a-z0-9]+$/.test(file) ? file : '/index.html';
      // gzip(1), as the other size figures in BENCHMARKS.md (zlib's level 9 gives 1 % more).
      const bytes = execFileSync('gzip', ['-9', '-c', join(dist, name)], { maxBuffer: 1 << 26 }).length;
      total += bytes;
      rows.push(`  ${(bytes / 1000).toFixed(1).padStart(7)} KB  ${name}`);
    }
    console.log(`${path}: ${(total / 1000).toFixed(1)} KB gzip in ${fetched.size} files`);
    console.log(rows.sort().reverse().join('\n'));
    await context.close();
  }
} finally {
  await site.close();
}
