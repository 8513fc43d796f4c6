import { test, expect } from '../fixtures/pages';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

// The docs rendered from content/: navigation, search, runnable kernels, the playground link.

test('the docs open, and the sidebar and next links walk through them', async ({ page, consoleErrors }) => {
  await page.goto('/docs');
  await expect(page).toHaveURL(/\/docs\/intro$/);
  await expect(page.getByRole('heading', { level: 1, name: 'Introduction' })).toBeVisible();
  const sidebar = page.getByRole('navigation', { name: 'Docs' });
  await sidebar.getByRole('link', { name: 'The hierarchy' }).click();
  await expect(page).toHaveURL(/\/docs\/hierarchy$/);
  await expect(page.getByRole('heading', { level: 1, name: 'The hierarchy' })).toBeVisible();
  await expect(sidebar.getByRole('link', { name: 'The hierarchy' })).toHaveAttribute('aria-current', 'page');
  await page.getByTestId('next').click();
  await expect(page.getByRole('heading', { level: 1, name: 'Collectives and shuffles' })).toBeVisible();
  await expect(page.getByTestId('byline')).toContainText('Written by: Tessera engineering');
  await expect(page.getByTestId('draft')).toHaveText(/^Draft: not yet read by a second person\. What the build checks holds/);
  expect(consoleErrors).toEqual([]);
});

test('searching for "ballot" lands on it', async ({ page }) => {
  await page.goto('/docs/intro');
  await page.getByTestId('docs-search').fill('ballot');
  const results = page.getByTestId('search-results');
  await expect(results.getByRole('link').first()).toBeVisible();
  await results.getByRole('link', { name: 'Ballot', exact: true }).click();
  await expect(page).toHaveURL(/\/docs\/glossary#ballot$/);
  await expect(page.getByRole('heading', { name: /^Ballot/ })).toBeInViewport();
});

test('search finds a word that only a kernel\'s source holds, once the pages\' words have come', async ({ page }) => {
  await page.goto('/docs/intro');
  // The pages' words are fetched on the first keystroke, not with the site.
  const words = page.waitForRequest(/\/lazy\/docs-[0-9a-f]{16}\/search\.json$/);
  await page.getByTestId('docs-search').fill('collatz');
  await words;
  const results = page.getByTestId('search-results');
  await results.getByRole('link', { name: /Divergence/ }).click();
  await expect(page).toHaveURL(/\/docs\/divergence$/);
  await expect(page.getByTestId('kernel').filter({ hasText: 'kernel collatz' })).toBeVisible();
});

test('the page the site opens on is fetched once, beside the site\'s module', async ({ page }) => {
  const asked: string[] = [];
  page.on('request', (r) => { if (/\/lazy\/docs-|_bg\.wasm$/.test(r.url())) asked.push(new URL(r.url()).pathname.replace(/-[0-9a-f]{1,16}(?=[_./])/, '')); });
  await page.goto('/docs/glossary');
  await expect(page.getByRole('heading', { level: 1, name: 'Glossary' })).toBeVisible();
  // Asked for before the site's module has loaded, and not again once it runs.
  expect(asked).toEqual(['/lazy/docs/pages/glossary.json', '/site_bg.wasm']);
});

test('a page that cannot be fetched says so where the page goes; the search falls back to titles', async ({ page }) => {
  await page.goto('/docs/intro');
  await expect(page.getByRole('heading', { level: 1, name: 'Introduction' })).toBeVisible();
  const hierarchyAndWords = /\/lazy\/docs-[0-9a-f]{16}\/(pages\/hierarchy|search)\.json$/;
  await page.route(hierarchyAndWords, (route) => route.abort());
  const sidebar = page.getByRole('navigation', { name: 'Docs' });
  await sidebar.getByRole('link', { name: 'The hierarchy' }).click();
  const error = page.getByTestId('docs-page-error');
  await expect(error).toContainText('This page could not be loaded');
  await expect(page.getByTestId('docs-page')).toContainText('This page could not be loaded');
  await expect(sidebar).toBeVisible();
  await expect(page.getByTestId('next')).toBeVisible();

  await page.getByTestId('docs-search').fill('ballot');
  const results = page.getByTestId('search-results');
  await expect(results).toContainText('Titles and headings only');
  await expect(results.getByRole('link', { name: 'Ballot', exact: true })).toBeVisible();

  // A page fetched before opens again, and one not fetched yet once the network answers.
  await sidebar.getByRole('link', { name: 'Introduction' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Introduction' })).toBeVisible();
  await page.unroute(hierarchyAndWords);
  await sidebar.getByRole('link', { name: 'The hierarchy' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'The hierarchy' })).toBeVisible();
  await expect(error).toHaveCount(0);
});

test('an inline kernel runs and shows its results', async ({ page }) => {
  await page.goto('/docs/collectives');
  const kernel = page.getByTestId('kernel').filter({ hasText: 'kernel warp_scan' });
  await kernel.getByTestId('kernel-run').click();
  await expect(kernel.getByTestId('sim-status')).toContainText('Simulator:');
  await expect(kernel.getByTestId('result-Y')).toBeVisible();
  // WebGPU runs it too (or says why not), and agrees.
  await expect(kernel.getByTestId('gpu-status')).not.toContainText('running', { timeout: 20_000 });
  const gpu = (await kernel.getByTestId('gpu-status').textContent()) ?? '';
  if (gpu.startsWith('WebGPU (')) await expect(kernel.getByTestId('verdict')).toHaveText(/^GPU = simulator/);
});

test('a failing kernel shows its diagnostic, linked to the error index', async ({ page }) => {
  await page.goto('/docs/intro');
  const kernel = page.getByTestId('kernel').filter({ hasText: 'thread_idx' });
  await expect(kernel).toContainText('This kernel fails with E0112');
  await kernel.getByRole('link', { name: 'E0112' }).click();
  await expect(page).toHaveURL(/\/docs\/errors#E0112$/);
  await expect(page.getByRole('heading', { name: /^E0112/ })).toBeInViewport();
});

test('Open in playground carries the kernel and its launch', async ({ page }) => {
  await page.goto('/docs/tiles');
  const kernel = page.getByTestId('kernel').filter({ hasText: 'kernel tiled_matmul' });
  await kernel.getByTestId('open-in-playground').click();
  await expect(page).toHaveURL(/\/play#v2j\./);
  const source = readFileSync(join(__dirname, '../../examples/tiled_matmul.tsr'), 'utf8');
  await expect.poll(() => page.locator('.cm-editor').evaluate((el: any) => el.tesseraDoc())).toBe(source.trimEnd() + '\n');
  await expect(page.getByTestId('dim-K')).toHaveValue('70');
});

// Open in playground once overwrote the reader's own kernel without a word, and a new /play
// tab then showed the example: the reader's kernel is one step back, and stays theirs.
test('Open in playground keeps the reader\'s own kernel: Ctrl+Z, Back to it, and in a new tab', async ({ page, context }) => {
  await page.goto('/play?example=dot');
  await expect(page.getByRole('textbox', { name: 'Kernel source' })).toBeVisible();
  const doc = () => page.locator('.cm-editor').evaluate((el: any) => el.tesseraDoc());
  const mine = '// mine\n' + readFileSync(join(__dirname, '../../examples/dot.tsr'), 'utf8');
  await page.locator('.cm-editor').evaluate((el: any, t: string) => el.tesseraPaste(t), mine);
  await page.waitForTimeout(400);
  await page.goto('/docs/tiles');
  await page.getByTestId('kernel').filter({ hasText: 'kernel tiled_matmul' }).getByTestId('open-in-playground').click();
  await expect.poll(doc).toMatch(/^\/\/ C = A @ B/);
  await expect(page.getByTestId('notice')).toContainText('Opened tiled_matmul. Your own kernel is one step back');
  // Ctrl+Z in the editor brings the reader's text back, and redo the example's.
  await page.getByRole('textbox', { name: 'Kernel source' }).focus();
  await page.keyboard.press('Control+z');
  await expect.poll(doc).toBe(mine);
  await page.keyboard.press('Control+Shift+z');
  await expect.poll(doc).toMatch(/^\/\/ C = A @ B/);
  // A new tab opens the reader's kernel, not the example.
  const other = await context.newPage();
  await other.goto('/play');
  await expect.poll(() => other.locator('.cm-editor').evaluate((el: any) => el.tesseraDoc())).toBe(mine);
  await other.close();
  await page.getByTestId('notice-back').click();
  await expect.poll(doc).toBe(mine);
  // Forward goes to the example again.
  await page.goForward();
  await expect.poll(doc).toMatch(/^\/\/ C = A @ B/);
});

for (const [slug, viewport] of [
  ['hierarchy', { width: 1280, height: 800 }],
  ['errors', { width: 390, height: 800 }],
  ['glossary', { width: 1280, height: 800 }],
  ['divergence', { width: 390, height: 800 }],
] as const) {
  test(`screenshot of /docs/${slug}`, async ({ page }, info) => {
    await page.setViewportSize(viewport);
    await page.goto(`/docs/${slug}`);
    await expect(page.getByTestId('docs-page')).toBeVisible();
    await page.screenshot({ path: info.outputPath(`docs-${slug}.png`) });
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
  });
}

test('the theme button switches to dark and back, and the choice is kept', async ({ page }) => {
  await page.emulateMedia({ colorScheme: 'light' });
  await page.goto('/docs/hierarchy');
  const background = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  const light = await background();
  const toggle = page.getByTestId('theme-toggle');
  await expect(toggle).toHaveAttribute('aria-pressed', 'false');
  await toggle.click();
  await expect(toggle).toHaveAttribute('aria-pressed', 'true');
  expect(await background()).not.toBe(light);
  await page.reload();
  await expect(page.getByTestId('theme-toggle')).toHaveAttribute('aria-pressed', 'true');
  expect(await background()).not.toBe(light);
  await page.getByTestId('theme-toggle').click();
  expect(await background()).toBe(light);
});

test('the page title is the first heading, and search results are reached with the keyboard', async ({ page }) => {
  await page.goto('/docs/intro');
  const first = page.getByRole('heading').first();
  await expect(first).toHaveText(/^Introduction/);
  await expect(first).toHaveJSProperty('tagName', 'H1');
  const search = page.getByTestId('docs-search');
  await search.fill('ballot');
  await expect(search).toHaveAttribute('aria-expanded', 'true');
  await search.press('ArrowDown');
  const chosen = page.getByRole('option', { selected: true });
  await expect(chosen).toHaveCount(1);
  await expect(search).toHaveAttribute('aria-activedescendant', 'docs-search-result-0');
  await search.press('ArrowDown');
  await expect(search).toHaveAttribute('aria-activedescendant', 'docs-search-result-1');
  const href = (await chosen.getByRole('link').getAttribute('href')) ?? '';
  await search.press('Enter');
  await expect(page).toHaveURL(new RegExp(href.replace(/[.?#]/g, '\\$&') + '$'));
});

test('search results stay one under another on a phone', async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto('/docs/intro');
  await page.getByTestId('docs-search').fill('warp');
  const results = page.getByTestId('search-result');
  await expect(results.nth(1)).toBeVisible();
  const [a, b] = [await results.nth(0).boundingBox(), await results.nth(1).boundingBox()];
  expect(a && b && b.y >= a.y + a.height - 1).toBeTruthy();
});

test('Back from the playground returns to where the reader was', async ({ page }) => {
  await page.goto('/docs/tiles');
  const kernel = page.getByTestId('kernel').filter({ hasText: 'kernel tiled_matmul' });
  await kernel.scrollIntoViewIfNeeded();
  await page.waitForTimeout(200);
  const before = await page.evaluate(() => window.scrollY);
  expect(before).toBeGreaterThan(200);
  await kernel.getByTestId('open-in-playground').click();
  await expect(page).toHaveURL(/\/play#v2j\./);
  await page.goBack();
  await expect(page.getByRole('heading', { level: 1, name: 'The tile level' })).toBeAttached();
  await expect.poll(() => page.evaluate(() => window.scrollY)).toBeGreaterThan(before - 40);
  await expect(kernel).toBeInViewport();
});

test('code comments are readable: at least 4.5:1 against the code background', async ({ page }) => {
  await page.goto('/docs/intro');
  const ratio = await page.locator('.tok-comment').first().evaluate((el) => {
    const rgb = (c: string) => (c.match(/\d+/g) ?? []).slice(0, 3).map(Number);
    const lum = ([r, g, b]: number[]) => {
      const f = (v: number) => ((v /= 255) <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
      return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
    };
    let bg = el as Element | null;
    while (bg && getComputedStyle(bg).backgroundColor.endsWith(', 0)')) bg = bg.parentElement;
    const [a, b] = [lum(rgb(getComputedStyle(el).color)), lum(rgb(getComputedStyle(bg ?? document.body).backgroundColor))];
    return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
  });
  expect(ratio).toBeGreaterThanOrEqual(4.5);
});

// Issue 52: "From CUDA": every CUDA name and Tessera's spelling, as the checker's help says.
test('the From CUDA page lists the CUDA names a learner knows, and the search finds them', async ({ page }) => {
  await page.goto('/docs/cuda');
  await expect(page.getByRole('row', { name: /^__syncthreads\(\) barrier\(\)/ })).toBeVisible();
  await expect(page.getByRole('row', { name: /^__shfl_down_sync\(mask, v, d\) shuffle_down\(v, d\)/ })).toBeVisible();
  // The table keeps its header in view down to its last row, and never breaks a name.
  const table = page.locator('.prose table').filter({ hasText: '__syncthreads()' });
  await table.evaluate((t) => t.scrollIntoView({ block: 'start' }));
  await table.evaluate((t) => { t.scrollTop = t.scrollHeight; });
  await expect(table.locator('tbody tr').last()).toBeInViewport();
  await expect(table.locator('thead th').first()).toBeInViewport();
  // A code span may wrap between tokens, never inside a name: on a desktop and on a phone.
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: 800 });
    const broken = await table.locator('td code').evaluateAll((codes) =>
      codes
        .filter((code) => {
          const text = code.firstChild;
          if (!text || code.getClientRects().length < 2) return false;
          const range = document.createRange();
          const word = /[A-Za-z0-9_]/;
          const all = text.textContent ?? '';
          let top = -Infinity;
          for (let i = 0; i < all.length; i++) {
            range.setStart(text, i);
            range.setEnd(text, i + 1);
            const now = range.getBoundingClientRect().top;
            if (now > top + 2 && i > 0 && word.test(all[i - 1]) && word.test(all[i])) return true;
            top = Math.max(top, now);
          }
          return false;
        })
        .map((code) => code.textContent));
    expect(broken, `at ${width} px`).toEqual([]);
  }
  await page.getByTestId('docs-search').fill('syncthreads');
  await expect(page.getByTestId('search-results').getByRole('link', { name: /From CUDA/ }).first()).toBeVisible();
});

// On a phone each page once started with the 29-link menu, its heading a screen down.
test.describe('the docs on a phone, by touch', () => {
  test.use({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true });

  test('the pages\' list starts folded: the heading is on screen, and a tap on a page shows it', async ({ page }) => {
    await page.goto('/docs/intro');
    await expect(page.getByRole('heading', { level: 1 })).toBeInViewport();
    const menu = page.getByTestId('docs-menu');
    await expect(menu.getByRole('link', { name: 'Collectives and shuffles' })).toBeHidden();
    await menu.getByText('All pages').tap();
    await menu.getByRole('link', { name: 'Collectives and shuffles' }).tap();
    await expect(page).toHaveURL(/\/docs\/collectives$/);
    await expect(page.getByRole('heading', { level: 1 })).toBeInViewport();
    await expect(page.getByTestId('docs-menu').getByRole('link', { name: 'Collectives and shuffles' })).toBeHidden();
  });
});

test('the tensor-core page runs its GEMM on mma in the page, and WebGPU agrees bit for bit', async ({ page }) => {
  await page.goto('/docs/tensor-cores');
  await expect(page.getByRole('heading', { level: 1, name: 'Tensor cores' })).toBeVisible();
  // Its roofline has the tensor-core roof of each target whose PTX has mma (sm_80, sm_90)
  // beside the FP32 ones, says the split, and gives V100 (sm_70, no mma: E0522) no mark.
  const roofline = page.getByTestId('roofline');
  await expect(roofline.locator('polyline.roof')).toHaveCount(5);
  await expect(roofline.locator('polyline.roof.tensor')).toHaveCount(2);
  await expect(roofline.locator('figcaption')).toContainText('of them on the tensor cores');
  await expect(roofline.locator('figcaption')).toContainText('V100 (sm_70) has no PTX for its mma: no mark.');
  await expect(roofline.locator('.point[aria-label*="H100 (sm_90)"]')).toHaveCount(1);
  await expect(roofline.locator('.point[aria-label*="V100 (sm_70)"]')).toHaveCount(0);
  const kernel = page.getByTestId('kernel').filter({ hasText: 'kernel mma_gemm' });
  await kernel.getByTestId('kernel-run').click();
  await expect(kernel.getByTestId('sim-status')).toContainText('Simulator:');
  await expect(kernel.getByTestId('result-C')).toBeVisible();
  await expect(kernel.getByTestId('gpu-status')).not.toContainText('running', { timeout: 30_000 });
  const gpu = (await kernel.getByTestId('gpu-status').textContent()) ?? '';
  if (gpu.startsWith('WebGPU (')) await expect(kernel.getByTestId('verdict')).toHaveText(/^GPU = simulator · every element equal/);
});

// Issue 68: CUDA's tensor-core names lead to Tessera's, and "fragment" to the tensor-cores page.
test('a search for wmma finds the From CUDA table and the tensor-cores page; fragment finds the latter first', async ({ page }) => {
  await page.goto('/docs/intro');
  const search = page.getByTestId('docs-search');
  await search.fill('wmma');
  const results = page.getByTestId('search-results');
  await expect(results.getByRole('link', { name: /From CUDA/ })).toBeVisible();
  await expect(results.getByRole('link', { name: /Tensor cores/ })).toBeVisible();
  await search.fill('fragment');
  await expect(results.getByRole('link').first()).toHaveText(/Fragments: which lane holds which element/);
  await results.getByRole('link').first().click();
  await expect(page).toHaveURL(/\/docs\/tensor-cores#which-lane-holds-which-element$/);
  await page.goto('/docs/cuda');
  const table = page.locator('table').filter({ hasText: 'wmma::load_matrix_sync' });
  await expect(table.getByRole('row').filter({ hasText: 'wmma::mma_sync' })).toContainText('acc = mma<over ctx.lane>(a, b, acc)');
  await expect(table.getByRole('row').filter({ hasText: 'ldmatrix' })).toContainText('mma_load_a');
});
