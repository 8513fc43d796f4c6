import { test, expect } from '../fixtures/pages';
import { gunzipSync } from 'node:zlib';

test('the home page renders with no console errors', async ({ home, page, consoleErrors }) => {
  await home.open();
  await expect(page).toHaveTitle(/Tessera/);
  await expect(page.getByRole('navigation', { name: 'Site' })).toBeVisible();
  await expect(page.getByRole('heading', { name: 'What it is' })).toBeVisible();
  // The compiler core ran in wasm: the diagram's readout is computed by compiler_core::hierarchy.
  await expect(page.getByTestId('readout-table').first()).toContainText('256 / 32');
  expect(consoleErrors).toEqual([]);
});

// What a visitor came to try is above the fold, on a desktop and on a phone (issue 68).
for (const viewport of [{ width: 1280, height: 720 }, { width: 390, height: 844 }]) {
  test(`the playground is one click away above the fold at ${viewport.width} px`, async ({ browser }) => {
    const page = await (await browser.newContext({ viewport })).newPage();
    await page.goto('/');
    const play = page.getByTestId('hero-play');
    await expect(play).toBeInViewport();
    await play.click();
    await expect(page.getByRole('textbox', { name: 'Kernel source' })).toBeVisible();
    await page.context().close();
  });
}

test('a launch the diagram cannot draw is explained, and fixing it recovers', async ({ home, page }) => {
  await home.open();
  await home.setNumber('threads', '0');
  await expect(home.finderError).toHaveText('a CTA has 1 to 1024 threads, not 0');
  await expect(home.field('threads')).toHaveAttribute('aria-invalid', 'true');
  await expect(home.field('threads')).toHaveAttribute('aria-describedby', 'finder-error');
  await home.setNumber('threads', '');
  await expect(home.finderError).toContainText('@launch threads must be a whole number');
  await home.setNumber('threads', '256');
  await expect(home.finderError).toHaveCount(0);
  await expect(home.field('threads')).toHaveAttribute('aria-invalid', 'false');
  await expect(page.getByTestId('readout-table').first()).toContainText('256 / 32');
});

// The drawing once fell back to its default launch (256 threads, 32 lanes) while a field was
// invalid, and a thread picked earlier came back once the fields were valid again.
test('while a field is invalid the drawing keeps the last launch the fields described, and says so', async ({ home, page }) => {
  await home.open();
  const diagram = page.getByTestId('hierarchy').first();
  const rows = diagram.getByTestId('readout-table').locator('tbody tr');
  // A thread picked, then the launch changed under it.
  await home.setNumber('block-x', '2');
  await home.setNumber('block-y', '1');
  await home.setNumber('thread', '113');
  await expect(diagram.getByTestId('readout-sentence')).toHaveText('block (2, 1), warp 3, lane 17, thread 113');
  for (const id of ['block-x', 'block-y', 'thread']) await home.setNumber(id, '');
  await home.setNumber('threads', '100');
  await expect(home.finderError).toHaveCount(0);
  await expect(page.getByTestId('finder-stale')).toHaveCount(0);
  await home.setNumber('lanes', '');
  await expect(home.finderError).toContainText('ctx.lanes must be a whole number');
  await expect(page.getByTestId('finder-stale')).toHaveText(
    'The drawing shows the last launch the fields described: 4 × 3 CTAs of 100 threads, 32 lanes to a warp.',
  );
  await home.setNumber('lanes', '8');
  await expect(page.getByTestId('finder-stale')).toHaveCount(0);
  // The new launch is drawn from the grid: thread 113 of the earlier launch does not come back.
  await expect(diagram.getByTestId('crumb-current')).toHaveText('Grid');
  await diagram.getByTestId('hierarchy-drawing').focus();
  await page.keyboard.press('Enter');
  await expect(rows.filter({ hasText: 'ctx.threads' })).toContainText('100');
  await expect(rows.filter({ hasText: 'ctx.lanes' })).toContainText('8');
});

test('by keyboard the drawing is one key past a skip button, and the warp view says what its numbers are', async ({ home, page }) => {
  await home.open();
  const skip = page.getByTestId('finder-skip');
  // Out of sight until it has the focus, then shown where it is: the Tab after the intro's.
  await skip.focus();
  await expect(skip).toBeInViewport();
  await page.keyboard.press('Enter');
  const drawing = page.getByTestId('hierarchy').first().getByTestId('hierarchy-drawing');
  await expect(drawing).toBeFocused();
  // Down to a warp: its boxes' two numbers are named above them.
  await page.keyboard.press('Enter');
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('hierarchy').first().getByTestId('crumb-current')).toHaveText(/Warp 0/);
  await expect(drawing).toContainText('Each box: its lane (ctx.lane), and below it its thread (ctx.thread)');
});

test('the playground is one link away', async ({ home, page }) => {
  await home.open();
  await page.getByRole('navigation', { name: 'Site' }).getByRole('link', { name: 'Playground' }).click();
  // The address names the example the playground opens with.
  await expect(page).toHaveURL(/\/play\?example=matvec$/);
  await expect(page.getByRole('textbox', { name: 'Kernel source' })).toBeVisible();
});

// Issue 52: the site says it is open source, and the footer links the license texts it ships.
test('the footer links the license texts and the source, which the site serves', async ({ home, page, request }) => {
  await home.open();
  for (const [id, text] of [['license-mit', 'Permission is hereby granted'], ['license-apache', 'Apache License']]) {
    const href = await page.getByTestId(id).getAttribute('href');
    expect(href).toMatch(/^\/LICENSE-/);
    const response = await request.get(new URL(href!, page.url()).toString());
    expect(response.ok()).toBe(true);
    expect(await response.text()).toContain(text);
  }
  // And its source: a gzip of the tree, with the compiler's Cargo.toml inside.
  const source = await page.getByTestId('source-archive').getAttribute('href');
  const archive = await request.get(new URL(source!, page.url()).toString());
  expect(archive.ok()).toBe(true);
  // A server may send it with `Content-Encoding: gzip`, which the client undoes.
  const body = await archive.body();
  const tar = (body[0] === 0x1f && body[1] === 0x8b ? gunzipSync(body) : body).toString('latin1');
  expect(tar).toContain('tessera/compiler-core/Cargo.toml');
  expect(tar).toContain('tessera/LICENSE-MIT');
});
