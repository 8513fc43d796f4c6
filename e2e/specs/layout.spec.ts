import { test, expect } from '../fixtures/pages';

// The playground as a workbench at 1280 × 800: the source stays in view beside the output
// pane, so the statement the stepper marks and the buttons that move it are on screen
// together, by mouse and by keyboard alone.

test.use({ viewport: { width: 1280, height: 800 } });

/** Runs `example`, counts its memory accesses and opens the stepper; the trace's steps. */
async function stepThrough(play: import('../fixtures/pages').PlayPage, example: string): Promise<number> {
  await play.open(`?example=${example}`);
  await play.run();
  await expect(play.simStatus).toContainText('Simulator:');
  // The GPU's line too: as it lands the page's scroll anchoring moves the controls by a fraction
  // of a pixel, and a tap that sees its target "not stable" then retries by scrolling the
  // target to the window's bottom, as no finger does (seen in CI: the Forward button 404 px off).
  await play.gpuOutcome();
  await play.page.getByTestId('measure-memory').click();
  await expect(play.page.getByTestId('memory-table')).toBeVisible();
  await play.page.getByTestId('step-through').click();
  await expect(play.page.getByTestId('step-position')).toContainText('Step 1 of');
  const text = (await play.page.getByTestId('step-position').textContent()) ?? '';
  return Number(/of (\d+)/.exec(text)?.[1] ?? 1);
}

test('the marked statement and the stepper\'s controls are in the viewport together', async ({ play, page }) => {
  const steps = await stepThrough(play, 'tiled_matmul');
  expect(steps).toBeGreaterThan(5);
  const forward = page.getByTestId('step-forward');
  const marked = page.locator('.editor .step-current');
  await forward.scrollIntoViewIfNeeded();
  for (let i = 1; i < Math.min(steps, 30); i++) {
    await forward.click();
    await expect(marked).toBeInViewport();
    await expect(forward).toBeInViewport();
  }
  // The launch form's two boxes, where they sit side by side, start on one line.
  const grid = await page.locator('.launch-panel fieldset').nth(0).boundingBox();
  const params = await page.locator('.launch-panel fieldset').nth(1).boundingBox();
  if (grid && params && grid.x + grid.width <= params.x) expect(Math.abs(grid.y - params.y)).toBeLessThan(2);
});

test('by keyboard alone: Tab to the stepper, step with the arrow keys, the mark stays in view', async ({ play, page }) => {
  const steps = await stepThrough(play, 'block_sum');
  await page.getByTestId('step-first').focus();
  const marked = page.locator('.editor .step-current');
  const position = page.getByTestId('step-position');
  for (let i = 1; i < steps; i++) {
    await page.keyboard.press('ArrowRight');
    await expect(position).toContainText(`Step ${i + 1} of`);
    await expect(marked).toBeInViewport();
    await expect(page.getByTestId('step-forward')).toBeInViewport();
  }
  await page.keyboard.press('Home');
  await expect(position).toContainText('Step 1 of');
});

test('on a phone the panes stack and the stepper repeats its statement', async ({ play, page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await stepThrough(play, 'block_sum');
  const source = await page.locator('.source-pane').boundingBox();
  const output = await page.locator('.output-pane').boundingBox();
  expect(source && output && output.y > source.y + source.height - 1).toBeTruthy();
  await expect(page.getByTestId('stepper')).toContainText('line');
});

test('the Run panel\'s parts stay one press away: results, memory and back to the stepper', async ({ play, page }) => {
  await stepThrough(play, 'tiled_matmul');
  const sections = page.getByTestId('run-sections');
  await page.getByTestId('step-forward').scrollIntoViewIfNeeded();
  await expect(sections).toBeInViewport();
  await sections.getByTestId('go-results').click();
  await expect(page.getByTestId('run-status')).toBeInViewport();
  await expect(sections).toBeInViewport();
  await sections.getByTestId('go-memory').click();
  await expect(page.getByTestId('memory-table')).toBeInViewport();
  // By keyboard: the focus is in the part it moved to; Enter on Stepper brings the stepper.
  await sections.getByTestId('go-stepper').focus();
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('stepper')).toBeFocused();
  await expect(page.getByTestId('step-position')).toBeInViewport();
  await expect(page.locator('.editor .step-current')).toBeInViewport();
});

test('the launch form is compact: a tensor\'s input, seed and note share one row', async ({ play, page }) => {
  await play.open('?example=matvec');
  for (const name of ['A', 'W']) {
    const input = await page.getByTestId(`input-${name}`).boundingBox();
    const seed = await page.getByTestId(`seed-${name}`).boundingBox();
    const note = await page.locator(`#note-input-${name}`).boundingBox();
    expect(input && seed && note).toBeTruthy();
    if (!input || !seed || !note) return;
    // Side by side, left to right, each overlapping the input's height.
    expect(seed.x).toBeGreaterThan(input.x + input.width - 1);
    expect(note.x).toBeGreaterThan(seed.x + seed.width - 1);
    expect(Math.abs(seed.y + seed.height / 2 - (input.y + input.height / 2))).toBeLessThan(input.height);
    expect(Math.abs(note.y + note.height / 2 - (input.y + input.height / 2))).toBeLessThan(input.height);
  }
  // The whole form, three tensors, two dimensions and the step limit, fits in the window.
  const form = await page.locator('.launch-panel').boundingBox();
  expect(form && form.height).toBeLessThan(800 - 150);
});

test.describe('on a phone, by touch', () => {
  test.use({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true });

  test('tapping Forward keeps the controls under the finger: the page does not move', async ({ play, page }) => {
    const steps = await stepThrough(play, 'tiled_matmul');
    const forward = page.getByTestId('step-forward');
    const position = page.getByTestId('step-position');
    await forward.scrollIntoViewIfNeeded();
    const at = (await forward.boundingBox())?.y ?? -1;
    for (let i = 1; i < Math.min(steps, 12); i++) {
      await forward.tap();
      await expect(position).toContainText(`Step ${i + 1} of`);
      // The marked statement's text is in the stepper, under the controls.
      const line = (await page.locator('.editor .step-current').first().textContent()) ?? '';
      await expect(page.getByTestId('step-statement')).toContainText(line.trim());
      // Two frames: the editor's reveal runs in the next one. The button is where the finger
      // is (the page's scroll anchoring may move scrollY as the content above it changes).
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
      expect(Math.abs(((await forward.boundingBox())?.y ?? 1e9) - at)).toBeLessThan(2);
    }
  });
});
