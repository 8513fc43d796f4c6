// Memory you can see: the playground counts a run's memory accesses per access in the source
// (the table, the marked rows, the source underlined), occupancy beside the launch, and the docs'
// kernels with their counts.
import { test, expect, PlayPage } from '../fixtures/pages';

// A padded 32 x 32 tile read along a row, down a column and along its diagonal (2-way).
const BANKS = `@launch(32)
kernel banks(In: tensor<f32>[R, C], Y: tensor<f32>[4, 32]) {
  let l = ctx.lane
  var t = In[0 :+ 32, 0 :+ 32]
  Y[ctx.block.x, l] = t[0, l] + t[l, 0] + t[l, l]
}
`;

/** The banks kernel pasted over an example and run on a 32 x 32 input. */
async function runBanks(play: PlayPage) {
  await play.open('?example=vector_add');
  await play.paste(BANKS);
  await play.setField('dim-R', '32');
  await play.setField('dim-C', '32');
  await play.run();
  await expect(play.simStatus).toContainText('Simulator:');
}

test('counts per access: the tile copy, the column of a padded tile and its 2-way diagonal', async ({ play, page, consoleErrors }) => {
  await runBanks(play);
  await page.getByTestId('measure-memory').click();
  const table = page.getByTestId('memory-table');
  await expect(table).toBeVisible();
  const rows = table.locator('tbody tr');
  await expect(rows).toHaveCount(6);
  // The compiler's copy into the tile moves full sectors and writes rows of words.
  await expect(rows.nth(0)).toContainText('global read');
  await expect(rows.nth(0)).toContainText('4.00 sectors per request, 0 excess of');
  await expect(rows.nth(1)).toContainText('shared write');
  await expect(rows.nth(1)).toContainText('1-way bank conflict at worst');
  // Rows in source order: the store to Y starts its line, before the reads in it.
  await expect(rows.nth(2)).toContainText('global write');
  await expect(rows.nth(4)).toContainText('t[l, 0]');
  await expect(rows.nth(4)).toContainText('1-way bank conflict at worst');
  await expect(rows.nth(5)).toContainText('t[l, l]');
  await expect(rows.nth(5)).toContainText('2-way bank conflict at worst, 2.0 on average, 4 excess wavefronts of 8 (marked)');
  await expect(rows.nth(5)).toHaveAttribute('data-poor', 'true');
  await expect(page.getByTestId('memory-summary')).toContainText('6 accesses; 1 marked');
  // The marked access is underlined in the source.
  await expect(page.locator('.editor .memory-poor')).toHaveText('t[l, l]');
  // An edit makes the counts stale and takes the underline away.
  await play.editor.fill((await play.source()).replace('t[l, l]', 't[l, 1]'));
  await expect(page.getByTestId('memory-stale')).toBeVisible();
  await expect(page.locator('.editor .memory-poor')).toHaveCount(0);
  expect(consoleErrors).toEqual([]);
});

test('the stepper shows the bank of each lane under the lane row', async ({ play, page }) => {
  await runBanks(play);
  await page.getByTestId('step-through').click();
  const position = page.getByTestId('step-position');
  await expect(position).toContainText('Step 1 of');
  // Step to the statement that reads the tile three times.
  await page.getByTestId('step-forward').focus();
  for (let i = 0; i < 10; i++) {
    if ((await page.getByTestId('step-statement').textContent())?.startsWith('Y[ctx.block.x, l] =')) break;
    await page.keyboard.press('ArrowRight');
    // The worker sends the step a moment after the key.
    await expect(position).toContainText(`Step ${i + 2} of`);
  }
  await expect(page.getByTestId('step-statement')).toHaveText('Y[ctx.block.x, l] = t[0, l] + t[l, 0] + t[l, l]');
  const places = page.getByTestId('lane-places');
  await expect(places).toContainText('t, shared read (first): 1-way bank conflict');
  await expect(page.getByTestId('lane-place')).toHaveCount(32);
  await page.getByTestId('lane-places-pick').selectOption({ label: 't, shared read (third)' });
  await expect(places).toContainText('t, shared read (third): 2-way bank conflict');
  // The diagonal: lane 17 reads word 34 x 17 = 578, in bank 2.
  const lane17 = page.locator('[data-testid=lane-place][data-lane="17"]');
  await expect(lane17).toHaveAttribute('data-place', '2');
  await expect(lane17).toHaveText('2');
});

test('the tiled transpose: every access coalesced or conflict-free', async ({ play, page }) => {
  await play.open('?example=tiled_transpose');
  // 64 x 64: the 2 x 2 CTAs' tiles cover it exactly (partial tiles would read short rows).
  await play.setField('dim-R', '64');
  await play.setField('dim-C', '64');
  await play.run();
  await expect(play.simStatus).toContainText('Simulator:');
  await page.getByTestId('measure-memory').click();
  const rows = page.getByTestId('memory-table').locator('tbody tr');
  await expect(rows).toHaveCount(4);
  await expect(rows.nth(0)).toContainText('4.00 sectors per request, 0 excess of');
  await expect(rows.nth(2)).toContainText('4.00 sectors per request, 0 excess of');
  // Down the padded tile's column.
  await expect(rows.nth(3)).toContainText('t[j, i]');
  await expect(rows.nth(3)).toContainText('1-way bank conflict at worst, 1.0 on average');
  await expect(page.getByTestId('memory-summary')).toHaveText('4 accesses, none marked.');
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
  // 32 sectors where 4 would do: 28 excess in each request.
  await expect(rows.nth(0)).toContainText(/32\.00 sectors per request, (\d+) excess of (\d+) \(marked\)/);
  await expect(rows.nth(1)).toContainText('4.00 sectors per request, 0 excess of');
  await page.getByTestId('memory-close').click();
  await expect(page.getByTestId('memory')).toHaveCount(0);
});

test('occupancy beside the launch follows the target and the registers', async ({ play, page }) => {
  await play.open('?example=tiled_matmul');
  const summary = page.getByTestId('occupancy-summary');
  await expect(summary).toHaveText('Occupancy on sm_70: 100% (64 of 64 warps per SM)');
  await summary.click();
  await expect(page.getByTestId('occupancy-table')).toContainText('12288 bytes of shared memory');
  await expect(page.getByTestId('occupancy-table')).toContainText('shared memory8 (binds)');
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
  await expect(tables).toHaveCount(5);
  await expect(tables.nth(0).locator('tr.poor')).toContainText('32.00 sectors per request');
  // The tiled transpose's column read: the padded tile makes it conflict-free.
  await expect(tables.nth(1).locator('tr.poor')).toHaveCount(0);
  await expect(tables.nth(1).locator('tr').last()).toContainText('1-way bank conflict at worst');
  await expect(tables.nth(2).locator('tr.poor')).toContainText('2-way bank conflict at worst');
  // The copies to time on the reader's GPU: along rows, and down columns.
  await expect(tables.nth(3).locator('tr.poor')).toHaveCount(0);
  await expect(tables.nth(4).locator('tr.poor').first()).toContainText('32.00 sectors per request');
  await page.goto('/docs/glossary#coalescing');
  await expect(page.getByTestId('kernel-memory').first()).toContainText('32.00 sectors per request');
});

test('the occupancy calculator in the glossary follows the CTA a reader sets', async ({ page }) => {
  await page.goto('/docs/glossary#occupancy');
  const result = page.getByTestId('calc-result');
  // 256 threads, 16 KiB, 32 registers on sm_80: 17408 bytes with the reserve fit 9 times,
  // registers 8 CTAs, warp slots 8: 8 CTAs, 64 warps.
  await expect(result).toHaveText('sm_80: 8 CTAs of 8 warps per SM, 64 of 64 warps: occupancy 100%');
  await page.getByTestId('calc-registers').fill('128');
  await expect(result).toHaveText('sm_80: 2 CTAs of 8 warps per SM, 16 of 64 warps: occupancy 25%');
  await expect(page.getByTestId('calc-table')).toContainText('registers2 (binds)');
  await page.getByTestId('calc-registers').fill('32');
  await page.getByTestId('calc-shared').fill('40960');
  await page.getByTestId('calc-arch').selectOption('sm_70');
  await expect(result).toHaveText('sm_70: 2 CTAs of 8 warps per SM, 16 of 64 warps: occupancy 25%');
  await expect(page.getByTestId('calc-table')).toContainText('shared memory2 (binds)');
  await page.getByTestId('calc-threads').fill('0');
  await expect(result).toHaveText('Cannot run: a CTA of 0 threads: sm_70 allows 1 to 1024.');
  // NVIDIA's register rule: 25 warps count as 28 at 2,560 registers each, over 65,536.
  await page.getByTestId('calc-threads').fill('800');
  await page.getByTestId('calc-registers').fill('80');
  await expect(result).toContainText('Cannot run: a CTA of 800 threads at 80 registers per thread cannot launch on sm_70');
  await expect(page.getByTestId('calc-table')).toHaveCount(0);
});
