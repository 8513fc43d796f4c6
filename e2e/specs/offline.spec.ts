import { test, expect } from '../fixtures/pages';
import type { Page } from '@playwright/test';
import { spawn, execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

// The site's service worker (e2e/scripts/service-worker.mjs, Workbox): once a reader has opened
// the site, the docs, the playground and the puzzles open again and work without a network, and
// a new build's files replace the old ones.

test.use({ serviceWorkers: 'allow' });

/** Waits until the service worker has installed the build and controls the page. */
async function controlled(page: Page) {
  await page.evaluate(() => navigator.serviceWorker.ready.then(() => undefined));
  await expect.poll(() => page.evaluate(() => !!navigator.serviceWorker.controller), { timeout: 20_000 }).toBe(true);
}

test('once opened, the docs, the playground and a puzzle open and run offline', async ({ page, context }) => {
  await page.goto('/');
  await controlled(page);
  await context.setOffline(true);
  await page.goto('/docs/intro');
  await expect(page.getByRole('heading', { level: 1 }).first()).toBeVisible();
  // A page the reader never opened, and the search over every page's words.
  await page.getByRole('navigation', { name: 'Docs' }).getByRole('link', { name: 'Glossary' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Glossary' })).toBeVisible();
  await page.getByTestId('docs-search').fill('collatz');
  await expect(page.getByTestId('search-results').getByRole('link', { name: /Divergence/ })).toBeVisible();
  await page.goto('/play?example=vector_add');
  await expect(page.getByRole('textbox', { name: 'Kernel source' })).toBeVisible();
  await page.getByTestId('run').click();
  await expect(page.getByTestId('sim-status')).toContainText('Simulator:', { timeout: 20_000 });
  await page.goto('/docs/puzzle-map');
  await expect(page.getByTestId('puzzle-check')).toBeVisible({ timeout: 20_000 });
});

/** A copy of the built site served on `port`, to build again under the test's eyes (`--dev`: sirv reads
 * each file when asked, not once at start). */
function serveCopy(port: number) {
  const dir = mkdtempSync(join(tmpdir(), 'tessera-site-'));
  cpSync('../dist', dir, { recursive: true });
  const server = spawn('node_modules/.bin/sirv', [dir, '--dev', '--single', '--host', '127.0.0.1', '--port', String(port)], { stdio: 'ignore' });
  return {
    dir,
    base: `http://127.0.0.1:${port}`,
    close() { server.kill(); rmSync(dir, { recursive: true, force: true }); },
  };
}

test('a new build replaces the old one\'s files and caches', async ({ page }) => {
  const site = serveCopy(4191);
  try {
    for (let i = 0; ; i++) { try { await fetch(site.base); break; } catch (e) { if (i > 50) throw e; await sleep(100); } }
    await page.goto(`${site.base}/docs/intro`);
    await controlled(page);
    const caches = () => page.evaluate(() => caches.keys());
    const before = await caches();
    expect(before.length).toBe(1);

    // A new deploy: a page changed, and the service worker written again for it.
    const index = join(site.dir, 'index.html');
    writeFileSync(index, readFileSync(index, 'utf8').replace('</head>', '<meta name="tessera-build" content="new"></head>'));
    execFileSync('node', ['scripts/service-worker.mjs', site.dir]);

    await page.reload();
    await expect.poll(async () => {
      await page.evaluate(() => navigator.serviceWorker.getRegistration().then((r) => r?.update()));
      const now = await caches();
      return now.length === 1 && now[0] !== before[0];
    }, { timeout: 20_000 }).toBe(true);
    await page.reload();
    await expect(page.locator('meta[name="tessera-build"]')).toHaveAttribute('content', 'new');
  } finally {
    site.close();
  }
});
