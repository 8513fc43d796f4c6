import { test, expect } from '../fixtures/pages';

// The compiler comes in a second module (dist/lazy/playground-HASH/playground.js), loaded on
// first use, so the first page a reader opens carries no compiler (BENCHMARKS.md has the sizes).
// The playground's views that a first visit does not show are parts split from that module,
// each fetched the first time it is shown (playground/src/run/later.rs).

const MODULE = /\/lazy\/playground-[0-9a-f]{16}\/playground(\.js|_bg\.wasm)$/;
const PART = /\/lazy\/playground-[0-9a-f]{16}\/split_([a-z_]+)\.wasm$/;

test('the home page loads no compiler; the playground loads it once', async ({ home, page, consoleErrors }) => {
  const fetched: string[] = [];
  page.on('request', (request) => {
    if (MODULE.test(new URL(request.url()).pathname)) fetched.push(new URL(request.url()).pathname);
  });
  await home.open();
  await page.waitForLoadState('networkidle');
  expect(fetched).toEqual([]);

  const nav = page.getByRole('navigation', { name: 'Site' });
  await nav.getByRole('link', { name: 'Playground' }).click();
  await expect(page.getByRole('textbox', { name: 'Kernel source' })).toBeVisible();
  await expect(page.getByTestId('play-loading')).toHaveCount(0);
  expect(fetched).toHaveLength(2);
  expect(fetched.filter((p) => p.endsWith('.js'))).toHaveLength(1);

  // Leaving unmounts the playground; coming back mounts a new one from the same module.
  await nav.getByRole('link', { name: 'Docs' }).click();
  await expect(page.getByRole('textbox', { name: 'Kernel source' })).toHaveCount(0);
  await nav.getByRole('link', { name: 'Playground' }).click();
  await expect(page.getByRole('textbox', { name: 'Kernel source' })).toHaveCount(1);
  expect(fetched).toHaveLength(2);
  expect(consoleErrors).toEqual([]);
});

const SITE_MODULE = /^\/site-[0-9a-f]+(\.js|_bg\.wasm)$/; // trunk does not pad its hash

test('/play opened directly loads only the playground module, in the site frame', async ({ page, consoleErrors }) => {
  const fetched: string[] = [];
  page.on('request', (request) => fetched.push(new URL(request.url()).pathname));
  await page.goto('/play');
  await expect(page.getByRole('textbox', { name: 'Kernel source' })).toBeVisible();
  await page.waitForLoadState('networkidle');
  expect(fetched.filter((p) => SITE_MODULE.test(p))).toEqual([]);
  expect(fetched.filter((p) => MODULE.test(p))).toHaveLength(2);

  // The frame is the site's: the current part marked, the theme button, the skip link.
  const nav = page.getByRole('navigation', { name: 'Site' });
  await expect(nav.getByRole('link', { name: 'Playground' })).toHaveAttribute('aria-current', 'page');
  await expect(nav.getByRole('link', { name: 'Docs' })).not.toHaveAttribute('aria-current', 'page');
  await expect(page.getByRole('heading', { name: 'Tessera playground' })).toHaveCount(1);
  await nav.getByTestId('theme-toggle').click();
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
  await nav.getByTestId('theme-toggle').click();
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'light');

  // Its links load the site's pages.
  await nav.getByRole('link', { name: 'Docs' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Introduction' })).toBeVisible();
  await expect(nav.getByRole('link', { name: 'Docs' })).toHaveAttribute('aria-current', 'page');
  expect(fetched.filter((p) => SITE_MODULE.test(p))).toHaveLength(2);
  expect(consoleErrors).toEqual([]);
});

test('the views a first visit does not show load when first shown, once', async ({ play, page, consoleErrors }) => {
  const parts: string[] = [];
  page.on('request', (request) => {
    const part = PART.exec(new URL(request.url()).pathname);
    if (part) parts.push(part[1]);
  });
  await play.open();
  await page.waitForLoadState('networkidle');
  expect(parts).toEqual([]);

  // A run's reply and its written tensors, then the stepper and the memory table, each on
  // first show (the diagram's part comes when its place nears the screen, which the results
  // may bring about).
  await play.run();
  await expect(page.locator('.tensor-result').first()).toBeVisible();
  expect(parts).toEqual(expect.arrayContaining(['reply', 'written']));
  expect(parts).not.toContain('stepper');
  await page.getByTestId('step-through').click();
  await expect(page.getByTestId('stepper')).toBeVisible();
  await page.getByTestId('measure-memory').click();
  await expect(page.getByTestId('memory')).toBeVisible();
  expect(parts).toEqual(expect.arrayContaining(['memory', 'reply', 'stepper', 'written']));

  // A second run shows its results from the parts already there: each came once.
  const before = parts.length;
  await play.run();
  await expect(page.locator('.tensor-result').first()).toBeVisible();
  await page.locator('[data-part=diagram]').scrollIntoViewIfNeeded();
  await expect(page.getByTestId('hierarchy')).toBeVisible();
  expect(new Set(parts).size).toBe(parts.length);
  expect(parts.length).toBeLessThanOrEqual(before + 1);
  expect(consoleErrors).toEqual([]);
});

test('a part that cannot be loaded says so, and the rest of the page goes on', async ({ play, page }) => {
  await page.route(/\/split_stepper\.wasm$/, (route) => route.abort());
  await play.open();
  await play.run();
  await page.getByTestId('step-through').click();
  await expect(page.getByTestId('part-failed')).toContainText('could not be loaded');
  await expect(page.getByTestId('part-failed')).toContainText('Reload the page to try again');
  // The run's results came from their own part, and Run runs again.
  await expect(page.locator('.tensor-result').first()).toBeVisible();
  await play.run();
  await expect(play.simStatus).toContainText('Simulator:');
});

test('a docs kernel runs after Run loads the compiler, and runs again in place', async ({ page }) => {
  await page.goto('/docs/intro');
  const kernel = page.getByTestId('kernel').filter({ has: page.getByTestId('kernel-run') }).first();
  await kernel.getByTestId('kernel-run').click();
  await expect(kernel.getByTestId('sim-status')).toContainText('Simulator:');
  await kernel.getByTestId('kernel-run').click();
  await expect(kernel.getByTestId('sim-status')).toHaveCount(1);
  await expect(kernel.getByTestId('sim-status')).toContainText('Simulator:');
});

test('when the module cannot be loaded the playground says so', async ({ page }) => {
  await page.route(MODULE, (route) => route.abort());
  await page.goto('/play');
  await expect(page.getByTestId('play-loading')).toContainText('The playground could not be loaded');
  await expect(page.getByTestId('play-loading')).toContainText('Reload the page to try again');
});
