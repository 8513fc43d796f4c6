// The lane map of a kernel that uses mma: A, B and C as grids of the lanes that hold each
// element, linked both ways with the stepper's lane strip and the diagram, by mouse and by
// keyboard, with words for every pick (issue 54).
import { test, expect } from '../fixtures/pages';

test('pick lane 17: its 16 elements light up; pick an element: its lane and index are named', async ({ play, page, consoleErrors }) => {
  await play.open('?example=mma_gemm');
  const map = page.getByTestId('fragment-map');
  await expect(map).toBeVisible();
  await expect(map.getByTestId('fragment-a').locator('td')).toHaveCount(256);
  await expect(map.getByTestId('fragment-b').locator('td')).toHaveCount(128);
  await expect(map.getByTestId('fragment-c').locator('td')).toHaveCount(128);
  // The PTX ISA's table: C[12, 3] is lane 4 · 4 + 1 = 17's c3; every lane holds 16 cells.
  await expect(map.getByRole('gridcell', { name: 'C[12, 3]: lane 17, c[3]' })).toHaveText('17:3');
  await expect(map.getByRole('gridcell', { name: 'A[4, 10]: lane 17, a[4]' })).toHaveText('17:4');

  await map.getByTestId('fragment-lane').selectOption('17');
  await expect(map.locator('td.picked')).toHaveCount(16);
  await expect(map.getByTestId('fragment-a').locator('td.picked')).toHaveCount(8);
  await expect(map.locator('td.picked').first()).toHaveAttribute('data-lane', '17');
  await expect(map.getByTestId('fragment-readout')).toHaveText(/^Lane 17 holds A\[4, 2\], A\[4, 3\], A\[12, 2\]/);

  // A click on an element names it, and follows its lane.
  await map.getByRole('gridcell', { name: 'B[9, 6]: lane 24, b[3]' }).click();
  await expect(map.getByTestId('fragment-readout')).toHaveText(/^B\[9, 6\] is held by lane 24, at index 3 of its B fragment \(b\[3\], of 4\)\./);
  await expect(map.getByTestId('fragment-lane')).toHaveValue('24');
  await expect(map.locator('td.picked')).toHaveCount(16);

  // The keyboard: the arrows move the pick within a grid, Escape clears it, and the grid
  // keeps one tab stop.
  await map.getByRole('gridcell', { name: 'A[0, 0]: lane 0, a[0]' }).focus();
  await page.keyboard.press('ArrowRight');
  await expect(page.locator(':focus')).toHaveAccessibleName('A[0, 1]: lane 0, a[1] (0:1)');
  await page.keyboard.press('ArrowDown');
  await expect(page.locator(':focus')).toHaveAccessibleName('A[1, 1]: lane 4, a[1] (4:1)');
  await expect(map.getByTestId('fragment-readout')).toHaveText(/^A\[1, 1\] is held by lane 4, at index 1/);
  await expect(map.getByTestId('fragment-a').locator('td[tabindex="0"]')).toHaveCount(1);
  await page.keyboard.press('End');
  await expect(page.locator(':focus')).toHaveAccessibleName('A[1, 15]: lane 7, a[5] (7:5)');
  await page.keyboard.press('Escape');
  await expect(map.getByTestId('fragment-lane')).toHaveValue('');
  await expect(map.locator('td.picked')).toHaveCount(0);
  // Tab passes into the next grid, at the cell last picked there, without picking; Enter
  // picks the cell in focus.
  await page.keyboard.press('Tab');
  await expect(page.locator(':focus')).toHaveAccessibleName('B[9, 6]: lane 24, b[3] (24:3)');
  await expect(map.getByTestId('fragment-lane')).toHaveValue('');
  await page.keyboard.press('Enter');
  await expect(map.getByTestId('fragment-lane')).toHaveValue('24');
  expect(consoleErrors).toEqual([]);
});

test('the map, the stepper and the diagram follow one lane, whichever picks it', async ({ play, page }) => {
  await play.open('?example=mma_gemm');
  await play.run();
  await expect(play.simStatus).toContainText('Simulator:');
  await page.getByTestId('step-through').click();
  await expect(page.getByTestId('step-position')).toContainText('Step 1 of');
  const map = page.getByTestId('fragment-map');
  const strip = page.getByTestId('lane-strip');
  const diagram = await play.diagram();

  // The map picks: the stepper's field, its strip and its table row, and the diagram follow.
  await map.getByTestId('fragment-lane').selectOption('17');
  await expect(page.getByTestId('step-lane')).toHaveValue('17');
  await expect(strip.locator('g.lane.followed')).toHaveAttribute('data-lane', '17');
  await expect(page.locator('[data-testid="lane-values"] tr.followed')).toHaveAttribute('data-lane', '17');
  await expect(diagram.getByTestId('readout-sentence')).toContainText('lane 17');

  // The strip picks (a click on lane 5).
  await strip.locator('g.lane[data-lane="5"]').click();
  await expect(map.getByTestId('fragment-lane')).toHaveValue('5');
  await expect(map.getByRole('gridcell', { name: 'C[1, 2]: lane 5, c[0]' })).toHaveClass(/picked/);
  await expect(diagram.getByTestId('readout-sentence')).toContainText('lane 5');

  // The stepper's field picks, by keyboard.
  await page.getByTestId('step-lane').selectOption('30');
  await expect(map.getByTestId('fragment-lane')).toHaveValue('30');

  // The diagram picks: up to the warp on show (which follows no other lane), then its lane 9.
  await diagram.getByRole('button', { name: 'Warp 0' }).click();
  await expect(map.getByTestId('fragment-lane')).toHaveValue('30');
  await diagram.getByRole('option', { name: 'Lane 9, thread 9' }).click();
  await expect(map.getByTestId('fragment-lane')).toHaveValue('9');
  await expect(page.getByTestId('step-lane')).toHaveValue('9');
});

test('a kernel without mma has no lane map', async ({ play, page }) => {
  await play.open('?example=vector_add');
  await expect(await play.diagram()).toBeVisible();
  await expect(page.getByTestId('fragment-map')).toHaveCount(0);
  await expect(page.getByTestId('go-fragments')).toHaveCount(0);
});

test.describe('on a phone', () => {
  test.use({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true });

  test('the map fits the width, its grids scroll within it, and a tap picks', async ({ play, page }) => {
    await play.open('?example=mma_gemm');
    const map = page.getByTestId('fragment-map');
    await map.scrollIntoViewIfNeeded();
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    expect(width).toBeLessThanOrEqual(390);
    await map.getByRole('gridcell', { name: 'C[0, 0]: lane 0, c[0]' }).tap();
    await expect(map.getByTestId('fragment-readout')).toHaveText(/^C\[0, 0\] is held by lane 0, at index 0/);
  });

  test('the tensor-cores page has the map: a tap on an element names its lane and index', async ({ page }) => {
    await page.goto('/docs/tensor-cores');
    const map = page.getByTestId('fragment-map');
    await map.scrollIntoViewIfNeeded();
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    expect(width).toBeLessThanOrEqual(390);
    await map.getByRole('gridcell', { name: 'B[9, 6]: lane 24, b[3]' }).tap();
    await expect(map.getByTestId('fragment-readout')).toHaveText(/^B\[9, 6\] is held by lane 24, at index 3/);
    await expect(map.locator('td.picked')).toHaveCount(16);
  });
});

// The same map on the tensor-cores page, on its own: no stepper or diagram to follow (issue 68).
test('the tensor-cores page draws the lane map, lane:index in each cell, by mouse and keyboard', async ({ page, consoleErrors }) => {
  await page.goto('/docs/tensor-cores');
  const map = page.getByTestId('fragment-map');
  await expect(map).toBeVisible();
  await expect(map.locator('td')).toHaveCount(512);
  await expect(map.getByRole('gridcell', { name: 'C[12, 3]: lane 17, c[3]' })).toHaveText('17:3');
  await expect(map.getByTestId('fragment-readout')).toHaveText('No lane picked: pick one in the field, or pick an element in a grid.');
  await map.getByTestId('fragment-lane').selectOption('17');
  await expect(map.locator('td.picked')).toHaveCount(16);
  await expect(map.getByTestId('fragment-readout')).toHaveText(/^Lane 17 holds A\[4, 2\], A\[4, 3\]/);
  await map.getByRole('gridcell', { name: 'A[0, 0]: lane 0, a[0]' }).focus();
  await page.keyboard.press('ArrowRight');
  await expect(map.getByTestId('fragment-readout')).toHaveText(/^A\[0, 1\] is held by lane 0, at index 1/);
  expect(consoleErrors).toEqual([]);
});
