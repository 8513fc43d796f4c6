import { test, expect } from '../fixtures/pages';
import type { Locator, Page } from '@playwright/test';

// The hierarchy diagram on the home page: the schematic (a 4 x 3 grid launched with
// @launch(256) on NVIDIA) and the glossary's 48-thread partial-warp preset.

const workedExample: [string, string, string][] = [
  ['ctx.blocks.x, ctx.blocks.y', '4, 3', 'the grid the host launched'],
  ['ctx.block.x, ctx.block.y', '2, 1', 'the CTA picked'],
  ['ctx.threads', '256', '@launch(256)'],
  ['ctx.lanes', '32', 'the target'],
  ['ctx.warps', '8', '256 / 32'],
  ['ctx.thread', '113', 'the thread picked'],
  ['ctx.warp', '3', '113 / 32, rounded down'],
  ['ctx.lane', '17', '113 - 3 * 32'],
];

function diagrams(page: Page) {
  return page.getByTestId('hierarchy');
}

async function expectWorkedExample(diagram: Locator) {
  await expect(diagram.getByTestId('breadcrumb')).toHaveText('Grid › CTA (2, 1) › Warp 3 › Lane 17');
  await expect(diagram.getByTestId('readout-sentence')).toHaveText('block (2, 1), warp 3, lane 17, thread 113');
  await expect(diagram.getByTestId('readout-relation')).toHaveText('113 = 3 * 32 + 17');
  // A screen reader hears the sentence, not the whole table.
  await expect(diagram.getByTestId('readout-announce')).toHaveText('block (2, 1), warp 3, lane 17, thread 113');
  await expect(diagram.getByTestId('readout-announce')).toHaveAttribute('aria-live', 'polite');
  await expect(diagram.getByTestId('readout')).not.toHaveAttribute('aria-live');
  const rows = diagram.getByTestId('readout-table').locator('tbody tr');
  await expect(rows).toHaveCount(8);
  for (const [i, [field, value, why]] of workedExample.entries()) {
    await expect(rows.nth(i)).toHaveText(`${field}${value}${why}`);
  }
}

test('keyboard only: from the grid to lane 17 of warp 3 of CTA (2, 1), and back', async ({ home, page }) => {
  await home.open();
  const diagram = diagrams(page).first();
  const drawing = diagram.getByTestId('hierarchy-drawing');
  // Tab from the last field of the form reaches the drawing.
  await home.field('thread').focus();
  await page.keyboard.press('Tab');
  await expect(drawing).toBeFocused();
  await expect(diagram.getByTestId('crumb-current')).toHaveText('Grid');
  for (const key of ['ArrowRight', 'ArrowRight', 'ArrowDown']) await page.keyboard.press(key);
  await expect(drawing).toHaveAttribute('aria-activedescendant', /-cell-6$/);
  await page.keyboard.press('Enter');
  await expect(diagram.getByTestId('crumb-current')).toHaveText('CTA (2, 1)');
  for (const key of ['ArrowRight', 'ArrowRight', 'ArrowRight', 'Enter']) await page.keyboard.press(key);
  await expect(diagram.getByTestId('crumb-current')).toHaveText('Warp 3');
  for (const key of ['ArrowDown', 'ArrowDown', 'ArrowRight', 'Enter']) await page.keyboard.press(key);
  await expectWorkedExample(diagram);
  await expect(drawing).toBeFocused();
  for (const key of ['Escape', 'Escape', 'Escape']) await page.keyboard.press(key);
  await expect(diagram.getByTestId('crumb-current')).toHaveText('Grid');
  // The focus is back on the CTA that was entered.
  await expect(drawing).toHaveAttribute('aria-activedescendant', /-cell-6$/);
});

test('the mouse path, and the buttons back out', async ({ home, page }) => {
  await home.open();
  const diagram = diagrams(page).first();
  const option = (name: string) => diagram.getByRole('option', { name });
  await option('CTA (2, 1)').click();
  await option('Warp 3, threads 96–127').click();
  await option('Lane 17, thread 113').click();
  await expectWorkedExample(diagram);
  await diagram.getByTestId('zoom-out').click();
  await expect(diagram.getByTestId('crumb-current')).toHaveText('Warp 3');
  // A breadcrumb item zooms back to its level.
  await diagram.getByRole('button', { name: 'CTA (2, 1)' }).click();
  await expect(diagram.getByTestId('crumb-current')).toHaveText('CTA (2, 1)');
  await diagram.getByTestId('zoom-top').click();
  await expect(diagram.getByTestId('crumb-current')).toHaveText('Grid');
  await expect(diagram.getByTestId('zoom-top')).toBeDisabled();
});

test('typing a thread zooms the diagram onto it', async ({ home, page }) => {
  await home.open();
  const diagram = diagrams(page).first();
  await home.setNumber('block-x', '2');
  await home.setNumber('block-y', '1');
  await home.setNumber('thread', '113');
  await expectWorkedExample(diagram);
  await home.setNumber('thread', '300');
  await expect(home.finderError).toHaveText('thread 300 is outside the CTA: ctx.thread runs from 0 to 255');
  // A place that is not a thread leaves the drawing where it was.
  await expectWorkedExample(diagram);
});

test('the fields and the drawing show the same thread, both ways', async ({ home, page }) => {
  await home.open();
  const diagram = diagrams(page).first();
  // Nothing is picked on load, and nothing is typed: the placeholders show the example.
  await expect(diagram.getByTestId('crumb-current')).toHaveText('Grid');
  await expect(home.field('thread')).toHaveValue('');
  await expect(home.field('thread')).toHaveAttribute('placeholder', 'e.g. 113');
  await expect(home.finderError).toHaveCount(0);
  const option = (name: string) => diagram.getByRole('option', { name });
  await option('CTA (1, 2)').click();
  await option('Warp 0, threads 0–31').click();
  await option('Lane 9, thread 9').click();
  await expect(home.field('block-x')).toHaveValue('1');
  await expect(home.field('block-y')).toHaveValue('2');
  await expect(home.field('thread')).toHaveValue('9');
  // Leaving the lane level leaves no thread picked: the fields empty again.
  await diagram.getByTestId('zoom-out').click();
  await expect(home.field('thread')).toHaveValue('');
  await expect(home.finderError).toHaveCount(0);
});

test('the 48-thread preset: two warp slots, 16 empty lanes, both masks', async ({ home, page }) => {
  await home.open();
  const preset = diagrams(page).nth(1);
  await expect(preset.getByTestId('crumb-current')).toHaveText('CTA (0, 0)');
  await expect(preset.getByTestId('alt')).toContainText('Two warp slots holding 48 threads');
  await expect(preset.locator('.lane-slot')).toHaveCount(64);
  await expect(preset.locator('.lane-slot.empty')).toHaveCount(16);
  await expect(preset.getByTestId('readout-mask')).toHaveText(['0xffffffff', '0x0000ffff']);
  // Thread 32 sits over lane 0 of the second slot.
  const second = preset.getByRole('option', { name: 'Warp 1, threads 32–47' });
  await expect(preset.locator('.slot-lanes[data-slot="1"] .lane-slot').first()).toHaveText('032');
  await second.click();
  await expect(preset.getByRole('option', { name: 'Lane 16, no thread' })).toHaveAttribute('aria-disabled', 'true');
  // A lane with no thread cannot be entered.
  await preset.getByRole('option', { name: 'Lane 16, no thread' }).click({ force: true });
  await expect(preset.getByTestId('crumb-current')).toHaveText('Warp 1');
});

test('a partial warp in the launch form: a 48-thread CTA', async ({ home, page }) => {
  await home.open();
  const diagram = diagrams(page).first();
  await home.setNumber('threads', '48');
  await home.setNumber('block-x', '2');
  await home.setNumber('block-y', '1');
  await home.setNumber('thread', '47');
  await expect(diagram.getByTestId('readout-sentence')).toHaveText('block (2, 1), warp 1, lane 15, thread 47');
  await expect(diagram.getByTestId('readout-mask')).toHaveText('0x0000ffff');
});

for (const [name, viewport] of [
  ['desktop', { width: 1280, height: 800 }],
  ['phone', { width: 390, height: 800 }],
] as const) {
  test(`screenshots of every level (${name})`, async ({ home, page }, info) => {
    await page.setViewportSize(viewport);
    await home.open();
    const diagram = diagrams(page).first();
    const drawing = diagram.getByTestId('hierarchy-drawing');
    const shoot = async (level: string) => {
      await drawing.scrollIntoViewIfNeeded();
      // Legible: the drawing keeps a usable size, and its labels at least 9 px of height.
      const box = await drawing.boundingBox();
      expect(box?.width ?? 0).toBeGreaterThan(Math.min(viewport.width * 0.8, 450));
      // Polled: the drawing settles its size a frame after it scrolls into view.
      const label = diagram.locator('.cell-label').first();
      await expect.poll(async () => (await label.boundingBox())?.height ?? 0).toBeGreaterThanOrEqual(9);
      await page.screenshot({ path: info.outputPath(`${name}-${level}.png`) });
    };
    await shoot('grid');
    await diagram.getByRole('option', { name: 'CTA (2, 1)' }).click();
    await shoot('cta');
    await diagram.getByRole('option', { name: 'Warp 3, threads 96–127' }).click();
    await shoot('warp');
    await diagram.getByRole('option', { name: 'Lane 17, thread 113' }).click();
    await shoot('lane');
    await expectWorkedExample(diagram);
  });
}
