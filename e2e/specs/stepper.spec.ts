// The stepper: a warp stepped through a kernel, statement by statement, by keyboard and by
// mouse; the statement marked in the editor, the active mask, each lane's values, a shuffle's
// arrows, a barrier's warps; and a share link that brings the same step back.
import { test, expect } from '../fixtures/pages';

// Even lanes take the `if`, odd lanes the `else`: masks 0x55555555 and 0xaaaaaaaa.
const SPLIT = `@launch(32)
kernel split(X: tensor<i32>[32], Y: tensor<i32>[32]) {
  let x = X[ctx.lane]
  if x % 2 == 0 {
    Y[ctx.lane] = x * 10
  } else {
    Y[ctx.lane] = 0 - x
  }
}
`;

test('stepping forward and back through a divergent if by keyboard', async ({ play, page, consoleErrors }) => {
  await play.open('?example=vector_add');
  await play.paste(SPLIT);
  // One CTA: every CTA of vector_add's four would write the same Y (a race, E0516).
  await play.setField('grid-x', '1');
  await expect(page.getByTestId('input-X')).toBeVisible();
  await page.getByTestId('input-X').selectOption('iota');
  await play.run();
  await expect(play.simStatus).toContainText('Simulator:');
  await page.getByTestId('step-through').click();
  const stepper = page.getByTestId('stepper');
  const position = page.getByTestId('step-position');
  const mask = page.getByTestId('step-mask');
  const marked = page.locator('.editor .step-current');
  await expect(position).toHaveText('Step 1 of 4 · line 3');
  await expect(marked).toHaveText('let x = X[ctx.lane]');
  await expect(mask).toHaveText('0xffffffff');
  // Lane 5's x is 5, written by this step.
  const lane5 = page.locator('[data-testid="lane-values"] tr[data-lane="5"] td');
  await expect(lane5.nth(2)).toHaveText('5');
  await expect(lane5.nth(2)).toHaveClass(/changed/);

  await page.getByTestId('step-forward').focus();
  await page.keyboard.press('ArrowRight');
  await expect(position).toHaveText('Step 2 of 4 · line 4');
  await expect(marked).toHaveText('if x % 2 == 0');
  // The table is written in place: the cell keeps its value and is no longer marked.
  await expect(lane5.nth(2)).toHaveText('5');
  await expect(lane5.nth(2)).not.toHaveClass(/changed/);
  await page.keyboard.press('ArrowRight');
  await expect(position).toHaveText('Step 3 of 4 · line 5');
  await expect(marked).toHaveText('Y[ctx.lane] = x * 10');
  await expect(mask).toHaveText('0x55555555');
  await expect(page.locator('.lane-strip .lane.active')).toHaveCount(16);
  await expect(page.locator('.lane-strip .lane.inactive')).toHaveCount(16);
  await expect(page.locator('[data-testid="lane-values"] tr[data-lane="5"] td.state')).toHaveText('waiting');
  await expect(page.locator('[data-testid="lane-values"] tr[data-lane="5"]')).toHaveClass('inactive');
  await expect(page.getByTestId('step-announce')).toHaveText(
    'step 3 of 4, line 5, 16 of 32 lanes active, mask 0x55555555',
  );
  await page.keyboard.press('End');
  await expect(position).toHaveText('Step 4 of 4 · line 7');
  await expect(mask).toHaveText('0xaaaaaaaa');
  await expect(page.locator('[data-testid="lane-values"] tr[data-lane="5"] td.state')).toHaveText('active');
  await page.keyboard.press('ArrowLeft');
  await expect(position).toHaveText('Step 3 of 4 · line 5');
  await page.keyboard.press('Home');
  await expect(position).toHaveText('Step 1 of 4 · line 3');
  await expect(lane5.nth(2)).toHaveClass(/changed/);
  await expect(page.locator('[data-testid="lane-values"] tr[data-lane="5"]')).toHaveClass('active');
  // The timeline has a bar per step: divergence shows as two half-height bars.
  await expect(page.locator('[data-testid="timeline"] path')).toHaveAttribute(
    'd',
    'M0.5 32v-32M1.5 32v-32M2.5 32v-16M3.5 32v-16',
  );
  // Closing takes the mark out of the editor.
  await page.getByTestId('stepper-close').click();
  await expect(stepper).toHaveCount(0);
  await expect(marked).toHaveCount(0);
  expect(consoleErrors).toEqual([]);
});

test('the next step is read ahead, so an arrow key shows it without asking the worker', async ({ play, page }) => {
  // The step of every step job the page posts to a worker. A job crosses as postcard's bytes
  // (playground/src/run/jobs.rs): a step job's begin with its variant, 2, then its index as a
  // varint (7 bits a byte, low first, the high bit set on all but the last).
  await page.addInitScript(() => {
    const asked: number[] = [];
    (window as unknown as { asked: number[] }).asked = asked;
    const post = Worker.prototype.postMessage;
    Worker.prototype.postMessage = function (message: unknown, ...rest: unknown[]) {
      if (message instanceof Uint8Array && message[0] === 2) {
        let index = 0;
        for (let at = 1, shift = 0; at < message.length; at++, shift += 7) {
          index += (message[at] & 0x7f) * 2 ** shift;
          if (message[at] < 0x80) break;
        }
        asked.push(index);
      }
      return (post as (...a: unknown[]) => void).call(this, message, ...rest);
    };
  });
  const stepsAsked = (index: number) =>
    page.evaluate((i) => (window as unknown as { asked: number[] }).asked.filter((m) => m === i).length, index);
  await play.open('?example=vector_add');
  await play.paste(SPLIT);
  await play.setField('grid-x', '1');
  await page.getByTestId('input-X').selectOption('iota');
  await play.run();
  await expect(play.simStatus).toContainText('Simulator:');
  await page.getByTestId('step-through').click();
  const position = page.getByTestId('step-position');
  await expect(position).toHaveText('Step 1 of 4 · line 3');
  // Step 2 (index 1) is asked for once, ahead of the reader.
  await expect.poll(() => stepsAsked(1)).toBe(1);
  await page.getByTestId('step-forward').focus();
  await page.keyboard.press('ArrowRight');
  await expect(position).toHaveText('Step 2 of 4 · line 4');
  await expect(page.locator('.editor .step-current')).toHaveText('if x % 2 == 0');
  await expect.poll(() => stepsAsked(2)).toBe(1);
  expect(await stepsAsked(1)).toBe(1);
  // Back to step 1, kept from before: not asked again either.
  const firstAsked = await stepsAsked(0);
  await page.keyboard.press('ArrowLeft');
  await expect(position).toHaveText('Step 1 of 4 · line 3');
  await expect(page.locator('[data-testid="lane-values"] tr[data-lane="5"] td').nth(2)).toHaveText('5');
  expect(await stepsAsked(0)).toBe(firstAsked);
});

test("a shuffle's step draws an arrow from each source lane to its destination", async ({ play, page }) => {
  await play.open('?example=shuffles');
  await play.run();
  await page.getByTestId('step-through').click();
  await page.getByTestId('step-forward').click();
  await page.getByTestId('step-forward').click();
  await expect(page.getByTestId('step-statement')).toHaveText('Out[1, ctx.thread] = shuffle_xor(x, 1)');
  const arrows = page.getByTestId('shuffle-arrow');
  await expect(arrows).toHaveCount(32);
  await expect(page.locator('[data-testid="shuffle-arrow"][data-to="0"]')).toHaveAttribute('data-from', '1');
  await expect(page.locator('[data-testid="shuffle-arrow"][data-to="6"]')).toHaveAttribute('data-from', '7');
  await expect(page.getByTestId('step-effects')).toContainText('shuffle_xor takes from lanes: 1 0 3 2');
  // shuffle_up(x, 2): lanes 0 and 1 keep their own value, so 30 arrows.
  await page.getByTestId('step-forward').click();
  await expect(arrows).toHaveCount(30);
});

test('the lane strip and the values table keep their place from step to step', async ({ play, page }) => {
  // The first steps compute indices (no memory), then `x = X[i]` reads (places under the
  // lanes, a sentence, an effect), then a reduction (an effect, no memory).
  await play.open('?example=warp_reduce');
  await play.run();
  await page.getByTestId('step-through').click();
  const strip = page.getByTestId('lane-strip');
  const table = page.getByTestId('lane-values');
  const stepper = page.getByTestId('stepper');
  // The table's top within the stepper (the page itself may scroll to the button clicked).
  const where = async () => ({
    strip: (await strip.boundingBox())?.height,
    table: (await table.boundingBox())!.y - (await stepper.boundingBox())!.y,
  });
  // A step without memory hides the places' row as a whole (each lane keeps its last place).
  const places = page.locator('[data-testid=lane-place]:visible');
  const seen = [];
  for (let step = 0; step < 6; step++) {
    seen.push({ places: await places.count(), effects: await page.getByTestId('step-effects').count(), ...(await where()) });
    await page.getByTestId('step-forward').click();
    await expect(page.getByTestId('step-position')).toContainText(`Step ${step + 2} of`);
  }
  // Steps with and without memory accesses and effects were both seen…
  expect(new Set(seen.map((s) => s.places > 0)).size).toBe(2);
  expect(new Set(seen.map((s) => s.effects)).size).toBe(2);
  // …and nothing moved.
  expect(new Set(seen.map((s) => s.strip)).size).toBe(1);
  expect(new Set(seen.map((s) => s.table)).size).toBe(1);
});

test('a share link brings back the warp and the step', async ({ play, page, context }) => {
  await play.open('?example=lane_ids');
  await play.run();
  await page.getByTestId('step-through').click();
  await page.getByTestId('step-warp').selectOption('1');
  await page.getByTestId('step-last').click();
  await expect(page.getByTestId('step-position')).toHaveText('Step 4 of 4 · line 8');
  await expect(page.getByTestId('step-mask')).toHaveText('0x0000ffff');
  await page.getByTestId('copy-link').click();
  await expect(page).toHaveURL(/#v2\./);
  const url = page.url();
  const other = await context.newPage();
  await other.goto(url);
  await expect(other.getByTestId('step-position')).toHaveText('Step 4 of 4 · line 8');
  await expect(other.getByTestId('step-warp')).toHaveValue('1');
  await expect(other.getByTestId('step-mask')).toHaveText('0x0000ffff');
  await expect(other.locator('.lane-strip .lane.no-thread')).toHaveCount(16);
  await expect(other.locator('.editor .step-current')).toHaveText('Mask[t] = ballot<over ctx.lane>(true)');
  // A reload keeps it too (the history entry holds the session).
  await page.reload();
  await expect(page.getByTestId('step-position')).toHaveText('Step 4 of 4 · line 8');
});

test('a barrier step shows every warp of the CTA arriving', async ({ play, page }) => {
  await play.open('?example=tiled_transpose');
  await play.run();
  await page.getByTestId('step-through').click();
  await page.getByTestId('step-forward').click();
  await page.getByTestId('step-forward').click();
  await expect(page.getByTestId('step-statement')).toHaveText('var t = In[r :+ 32, c :+ 32]');
  const barrier = page.getByTestId('step-barrier');
  await expect(barrier).toContainText('barrier: warps 0, 1, 2, 3, 4, 5, 6, 7 arrived');
  await expect(barrier.locator('li.arrived')).toHaveCount(8);
});

test('a warp picked in the diagram is the one stepped through', async ({ play, page }) => {
  await play.open('?example=matvec');
  await play.run();
  await expect(play.simStatus).toContainText('Simulator:');
  const drawing = (await play.diagram()).getByTestId('hierarchy-drawing');
  await drawing.focus();
  // Grid → CTA (0, 0) → warp 3.
  await page.keyboard.press('Enter');
  for (let i = 0; i < 3; i++) await page.keyboard.press('ArrowRight');
  await page.keyboard.press('Enter');
  await page.getByTestId('diagram-step-through').click();
  await expect(page.getByTestId('step-warp')).toHaveValue('3');
  await expect(page.getByTestId('step-position')).toHaveText(/^Step 1 of \d+ · line 5$/);
  await expect(page.locator('[data-testid="lane-values"] tr[data-lane="0"] td').first()).toHaveText('96');
});

test("a docs kernel's Step through opens the stepper on its warp", async ({ page }) => {
  await page.goto('/docs/hierarchy');
  const kernel = page.getByTestId('kernel').filter({ hasText: 'kernel mv' });
  await kernel.getByTestId('step-through-link').click();
  await expect(page).toHaveURL(/\/play#v2j\./);
  await expect(page.getByTestId('step-warp')).toHaveValue('3');
  await expect(page.getByTestId('step-position')).toHaveText(/^Step 1 of \d+ · line 3$/);
  await expect(page.locator('.editor .step-current')).toHaveText('let col = ctx.block.x * ctx.warps + ctx.warp');
});

// The stepper sits below the launch form: a link that opens a step once left it below the fold.
test('a docs link that opens a step brings the stepper into view, with the focus on it', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto('/docs/hierarchy');
  await page.getByTestId('step-through-link').first().click();
  await expect(page.getByTestId('step-position')).toContainText('Step 1 of');
  await expect(page.getByTestId('stepper')).toBeFocused();
  await expect(page.getByTestId('step-forward')).toBeInViewport();
});

// A fault in block (3, 0, 0), warp 7 once offered "Step through warp 0 of block (0, 0, 0)".
const OVERRUN = `@launch(256)
kernel overrun(X: tensor<f32>[N], Y: tensor<f32>[N]) {
  let i = ctx.block.x * ctx.threads + ctx.thread
  Y[i] = X[i] * 2.0
}
`;

test('a run that faults offers the failing warp, stopped at the failing step, and lists the fault at its line', async ({ play, page }) => {
  await play.open('?example=vector_add');
  await play.paste(OVERRUN);
  await expect(page.getByTestId('dim-N')).toBeVisible();
  await play.setField('dim-N', '1000');
  await play.setField('grid-x', '4');
  await play.run();
  // Thread 232 of block 3 is element 1000: warp 7, lane 8.
  await expect(page.getByTestId('run-status')).toContainText('E0510');
  const fault = page.getByTestId('problem-run-fault');
  await expect(fault).toContainText('E0510');
  await expect(fault.getByTestId('where')).toHaveText(/^4:/);
  const step = page.getByTestId('step-through');
  await expect(step).toHaveText('Step through warp 7 of block (3, 0, 0), to where the run stopped');
  await step.click();
  await expect(page.getByTestId('step-position')).toHaveText(/^Step (\d+) of \1 · line 4$/);
  await expect(page.getByTestId('step-notes')).toContainText('The run stopped at the last step: E0510');
  await expect(page.getByTestId('step-warp')).toHaveValue('7');
  await expect(page.getByTestId('step-block-x')).toHaveValue('3');
  // Fixed, run again: the fault leaves the list.
  await play.setField('grid-x', '3');
  await play.setField('dim-N', '768');
  await play.run();
  await expect(play.simStatus).toContainText('Simulator:');
  await expect(fault).toHaveCount(0);
});

test('the divergence page steps through each of its kernels', async ({ page }) => {
  await page.goto('/docs/divergence');
  const links = page.getByTestId('step-through-link');
  await expect(links).toHaveCount(5);
  await page.getByTestId('kernel').filter({ hasText: 'kernel early' }).getByTestId('step-through-link').click();
  await page.getByTestId('step-last').click();
  await expect(page.locator('.lane-strip .lane.exited')).toHaveCount(12);
  await expect(page.locator('.lane-strip .lane.active')).toHaveCount(20);
});

for (const [name, viewport] of [
  ['desktop', { width: 1280, height: 900 }],
  ['phone', { width: 390, height: 844 }],
] as const) {
  test(`the stepper at ${name} width`, async ({ play, page }, info) => {
    await page.setViewportSize(viewport);
    await play.open('?example=collatz');
    await play.run();
    await page.getByTestId('step-through').click();
    for (let i = 0; i < 6; i++) await page.getByTestId('step-forward').click();
    await expect(page.getByTestId('step-position')).toHaveText(/^Step 7 of/);
    await page.getByTestId('stepper').scrollIntoViewIfNeeded();
    await page.screenshot({ path: info.outputPath(`stepper-${name}.png`), fullPage: true });
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
  });
}

test('a 64-bit variable is one column holding its value, not two words', async ({ play, page }, info) => {
  await play.open('?example=splitmix');
  await play.run();
  await expect(play.simStatus).toContainText('Simulator:');
  await page.getByTestId('step-through').click();
  await page.getByTestId('step-forward').click();
  await page.getByTestId('step-forward').click();
  await expect(page.getByTestId('step-position')).toHaveText(/^Step 3 of \d+ · line 10$/);
  const headings = await page.locator('[data-testid="lane-values"] thead th').allTextContents();
  expect(headings).toContain('z');
  expect(headings.join(' ')).not.toContain('.lo');
  const z = headings.indexOf('z');
  // seed + 1 × 0x9E3779B97F4A7C15 for thread 0: past 2^63, shown in full.
  await expect(page.locator('[data-testid="lane-values"] tr[data-lane="0"] > *').nth(z)).toHaveText('11400714823618178126');
  await page.getByTestId('stepper').scrollIntoViewIfNeeded();
  await page.screenshot({ path: info.outputPath('stepper-wide.png'), fullPage: true });
  // The u64 seed's field takes what a launch's number carries exactly, and says so past it.
  await play.setField('scalar-seed', '9007199254740993');
  await expect(page.getByTestId('problem-scalar-seed')).toHaveText(/^9007199254740993 is too large: a launch carries up to 2\^53 - 1 exactly/);
});
