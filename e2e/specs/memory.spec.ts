// Memory you can see: the playground counts a run's memory accesses per access in the source
// (the table, the marked rows, the source underlined), occupancy beside the launch, and the docs'
// kernels with their counts.
import { test, expect } from '../fixtures/pages';

test('the tiled transpose: global accesses coalesced, the column read a 32-way conflict', async ({ play, page, consoleErrors }) => {
  await play.open('?example=tiled_transpose');
  // 64 x 64: the 2 x 2 CTAs' tiles cover it exactly (partial tiles would read short rows).
  await play.setField('dim-R', '64');
  await play.setField('dim-C', '64');
  await play.run();
  await expect(play.simStatus).toContainText('Simulator:');
  await page.getByTestId('measure-memory').click();
  const table = page.getByTestId('memory-table');
  await expect(table).toBeVisible();
  const rows = table.locator('tbody tr');
  await expect(rows).toHaveCount(4);
  // The compiler's copy into the tile, and the store, move full sectors.
  await expect(rows.nth(0)).toContainText('global read');
  await expect(rows.nth(0)).toContainText('4.00 sectors per request, 100% efficient');
  await expect(rows.nth(1)).toContainText('shared write');
  await expect(rows.nth(1)).toContainText('1-way bank conflict at worst');
  await expect(rows.nth(3)).toContainText('t[j, i]');
  await expect(rows.nth(3)).toContainText('32-way bank conflict at worst, 32.0 on average (marked)');
  await expect(rows.nth(3)).toHaveAttribute('data-poor', 'true');
  await expect(page.getByTestId('memory-summary')).toContainText('4 accesses; 1 marked');
  // The marked access is underlined in the source.
  await expect(page.locator('.editor .memory-poor')).toHaveText('t[j, i]');
  // An edit makes the counts stale and takes the underline away.
  await play.editor.fill((await play.source()).replace('t[j, i]', 't[i, j]'));
  await expect(page.getByTestId('memory-stale')).toBeVisible();
  await expect(page.locator('.editor .memory-poor')).toHaveCount(0);
  expect(consoleErrors).toEqual([]);
});

test('the naive transpose: the strided write is marked', async ({ play, page }) => {
  await play.open('?example=transpose');
  await play.setField('dim-R', '64');
  await play.setField('dim-C', '256');
  await play.run();
  await expect(play.simStatus).toContainText('Simulator:');
  await page.getByTestId('measure-memory').click();
  const rows = page.getByTestId('memory-table').locator('tbody tr');
  await expect(rows).toHaveCount(2);
  await expect(rows.nth(0)).toContainText('Out[c, r] = In[r, c]');
  await expect(rows.nth(0)).toContainText('32.00 sectors per request, 12% efficient (marked)');
  await expect(rows.nth(1)).toContainText('4.00 sectors per request, 100% efficient');
  await page.getByTestId('memory-close').click();
  await expect(page.getByTestId('memory')).toHaveCount(0);
});

test('occupancy beside the launch follows the target and the registers', async ({ play, page }) => {
  await play.open('?example=tiled_matmul');
  const summary = page.getByTestId('occupancy-summary');
  await expect(summary).toHaveText('Occupancy on sm_70: 50% (32 of 64 warps per SM)');
  await summary.click();
  await expect(page.getByTestId('occupancy-table')).toContainText('shared memory4 (binds)');
  await page.getByTestId('occupancy-arch').selectOption('sm_90');
  await expect(summary).toHaveText('Occupancy on sm_90: 100% (64 of 64 warps per SM)');
  await page.getByTestId('occupancy-registers').fill('128');
  await page.getByTestId('occupancy-registers').press('Enter');
  await expect(summary).toHaveText('Occupancy on sm_90: 25% (16 of 64 warps per SM)');
  await expect(page.getByTestId('occupancy-table')).toContainText('registers2 (binds)');
});

test('the docs show a kernel with its counts', async ({ page }) => {
  await page.goto('/docs/memory');
  const tables = page.getByTestId('kernel-memory');
  await expect(tables).toHaveCount(3);
  await expect(tables.nth(0).locator('tr.poor')).toContainText('12% efficient');
  await expect(tables.nth(1).locator('tr.poor')).toContainText('32-way bank conflict at worst');
  // The padded tile's column read is conflict-free; the 32-wide one is 32-way.
  await expect(tables.nth(2)).toContainText('1-way bank conflict at worst');
  await page.goto('/docs/glossary#coalescing');
  await expect(page.getByTestId('kernel-memory').first()).toContainText('32.00 sectors per request');
});
