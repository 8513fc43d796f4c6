import { test, expect } from '../fixtures/pages';

test('the home page renders with no console errors', async ({ home, page, consoleErrors }) => {
  await home.open();
  await expect(page).toHaveTitle(/Tessera/);
  await expect(page.getByRole('navigation', { name: 'Site' })).toBeVisible();
  await expect(page.getByRole('heading', { name: 'What it is' })).toBeVisible();
  // The compiler core ran in wasm: the worked example of the hierarchy page is computed.
  await expect(home.sentence).toHaveText('block (2, 1), warp 3, lane 17, thread 113');
  expect(consoleErrors).toEqual([]);
});

test('the thread finder explains the worked example field by field', async ({ home }) => {
  await home.open();
  await expect(home.ctxRow('ctx.warps')).toContainText('8');
  await expect(home.ctxRow('ctx.warps')).toContainText('256 / 32');
  await expect(home.ctxRow('ctx.lane')).toContainText('113 - 3 * 32');
  await expect(home.relation).toHaveText('113 = 3 * 32 + 17');
  await expect(home.activeMask).toHaveText('0xffffffff');
});

test('a 48-thread CTA has a partial second warp', async ({ home }) => {
  await home.open();
  await home.setNumber('threads', '48');
  await home.setNumber('thread', '47');
  await expect(home.sentence).toHaveText('block (2, 1), warp 1, lane 15, thread 47');
  await expect(home.activeMask).toHaveText('0x0000ffff');
  await home.setNumber('thread', '32');
  await expect(home.sentence).toHaveText('block (2, 1), warp 1, lane 0, thread 32');
});

test('a thread outside the CTA is explained, and fixing it recovers', async ({ home }) => {
  await home.open();
  await home.setNumber('thread', '300');
  await expect(home.finderError).toHaveText(
    'thread 300 is outside the CTA: ctx.thread runs from 0 to 255',
  );
  await home.setNumber('thread', '');
  await expect(home.finderError).toContainText('ctx.thread must be a whole number');
  await home.setNumber('thread', '255');
  await expect(home.sentence).toHaveText('block (2, 1), warp 7, lane 31, thread 255');
});

test('the finder is usable by keyboard alone', async ({ home, page }) => {
  await home.open();
  await home.field('thread').focus();
  await page.keyboard.press('ArrowUp');
  await expect(home.sentence).toHaveText('block (2, 1), warp 3, lane 18, thread 114');
});
