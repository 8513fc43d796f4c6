import { test, expect } from '../fixtures/pages';

// A program (several launches over the same tensors) in the playground: the launch form has no
// grid fields (each launch's grid is computed from the dimensions), the Run panel lists the
// launches, WebGPU runs them in order and agrees with the simulator, the stepper steps the
// launch picked, the memory counts count every launch, and a link carries it all.

test('grid_sum runs its two launches on the simulator and on WebGPU, which agree, each timed as it ran', async ({ play, page, consoleErrors }) => {
  await play.open('?example=grid_sum');
  await expect(page.getByTestId('program-grids')).toBeVisible();
  await expect(page.getByTestId('grid-x')).toHaveCount(0);
  await expect(page.getByTestId('program-diagram')).toBeVisible();
  await play.run();
  await expect(play.simStatus).toContainText('Simulator:');
  await expect(page.getByTestId('program-launches')).toHaveText(
    'The program made 2 launches: 1. partial_sums (grid 391 x 1 x 1), 2. total (grid 1 x 1 x 1).',
  );
  await expect(page.getByTestId('result-Out')).toBeVisible();
  const outcome = await play.gpuOutcome();
  if (!outcome.includes('not run')) {
    // f32 sums added in another order agree within the spec's tolerance.
    await expect(play.verdicts.first()).toHaveText(/^GPU = simulator/);
    // What each figure covers, and each launch's own time as it ran, on a timeline.
    expect(outcome).toMatch(/ms, the whole run: upload, its launches and read-back$/);
    const time = page.getByTestId('gpu-time');
    const timestamps = !(await time.textContent())?.includes('does not offer timestamps');
    if (timestamps) {
      await expect(time).toHaveText(/^GPU time: the launches alone: [\d.]+ (ns|µs|ms) in all, 2 launches each timed as it ran, over [\d.]+ (ns|µs|ms) from the first one's start to the last one's end/);
      const timeline = page.getByTestId('launch-timeline');
      await expect(timeline.locator('rect.launch-bar')).toHaveCount(2);
      await timeline.getByText("Each launch's start and time").click();
      const rows = page.getByTestId('launch-times').locator('tbody tr');
      await expect(rows).toHaveCount(2);
      await expect(rows.nth(0)).toContainText('partial_sums');
      await expect(rows.nth(0)).toContainText('391 x 1 x 1');
      await expect(rows.nth(1)).toContainText('total');
      // The second launch starts after the first one's start.
      await expect(rows.nth(0).locator('td').nth(3)).toHaveText('0 ns');
    }
  }
  expect(consoleErrors).toEqual([]);
});

test('the stepper steps the launch picked, on its own grid; a link keeps the launch', async ({ play, page, context }) => {
  await play.open('?example=grid_sum');
  await play.run();
  await expect(play.simStatus).toContainText('Simulator:');
  await play.setField('step-launch', '2');
  await page.getByTestId('step-through').click();
  const marked = page.locator('.editor .step-current');
  await expect(page.getByTestId('step-position')).toContainText('Step 1 of');
  // The second launch is of `total`: its first statement.
  await expect(marked).toHaveText('var acc: f32 = 0.0');
  await expect(marked).toHaveCount(1);
  const line = await page.getByTestId('step-position').textContent();
  expect(line).toMatch(/line 19$/);
  // Its grid is one CTA: the block's x cannot go past 0.
  await expect(page.getByTestId('step-block-x')).toHaveAttribute('max', '0');

  await page.getByTestId('copy-link').click();
  const other = await context.newPage();
  await other.goto(page.url());
  await expect(other.getByTestId('step-position')).toContainText('Step 1 of', { timeout: 30_000 });
  await expect(other.locator('.editor .step-current')).toHaveText('var acc: f32 = 0.0');
});

test('a launch number past the run says how many launches it made', async ({ play, page }) => {
  await play.open('?example=grid_sum');
  await play.run();
  await expect(play.simStatus).toContainText('Simulator:');
  await play.setField('step-launch', '5');
  await page.getByTestId('step-through').click();
  await expect(page.getByTestId('notice')).toContainText('the program made 2 launches, so it has no launch 5');
});

test('the memory counts count every launch of a program, at each kernel\'s lines', async ({ play, page }) => {
  await play.open('?example=grid_sum');
  await play.run();
  await expect(play.simStatus).toContainText('Simulator:');
  await page.getByTestId('measure-memory').click();
  const rows = page.getByTestId('memory-table').locator('tbody tr');
  await expect(rows.filter({ hasText: 'X[i]' })).toHaveCount(1);
  await expect(rows.filter({ hasText: 'Partial[i]' })).toHaveCount(1);
  await expect(rows.filter({ hasText: 'Out[0]' })).toHaveCount(1);
  // 100,000 floats read once, by warps of 32 lanes: 3,125 requests of 4 sectors each.
  await expect(rows.filter({ hasText: 'X[i]' })).toContainText('3125');
  await expect(rows.filter({ hasText: 'X[i]' })).toContainText('4.00 sectors per request');
});

test('the grid-level page runs its program in place', async ({ page }) => {
  await page.goto('/docs/grid');
  const program = page.getByTestId('kernel').filter({ hasText: 'program grid_sum' });
  await program.getByTestId('kernel-run').click();
  await expect(program.getByTestId('sim-status')).toContainText('Simulator:');
  await expect(program.getByTestId('program-launches')).toContainText('The program made 2 launches: 1. partial_sums (grid 391 x 1 x 1)');
  await expect(program.getByTestId('result-Out')).toBeVisible();
  await expect(program.getByTestId('gpu-status')).not.toContainText('running', { timeout: 20_000 });
  const gpu = (await program.getByTestId('gpu-status').textContent()) ?? '';
  if (gpu.startsWith('WebGPU (')) await expect(program.getByTestId('verdict')).toHaveText(/^GPU = simulator/);
});

test('a program that loops until a flag it wrote says stop runs on WebGPU as on the simulator', async ({ play, page }) => {
  // bfs_grid: 166 launches in a `while` over buffers kept on the GPU; the flag comes back
  // before each pass, the distances at the end.
  await play.open('?example=bfs_grid');
  await play.run();
  await expect(play.simStatus).toContainText('Simulator:');
  await expect(page.getByTestId('program-launches')).toContainText('The program made 166 launches');
  const outcome = await play.gpuOutcome();
  test.skip(outcome.includes('not run'), `no WebGPU here: ${outcome}`);
  await expect(play.verdicts.first()).toBeVisible();
  for (const verdict of await play.verdicts.all()) {
    await expect(verdict).toHaveText(/^GPU = simulator/);
  }
});

test('a program that decides sizes its second launch from the count its first one left', async ({ page }) => {
  // Issue 53: `if Count[0] > 0` and `grid(ceil(Count[0] / 256))` read back between launches;
  // the count and the total are the same on every schedule, so WebGPU agrees.
  await page.goto('/docs/grid');
  const program = page.getByTestId('kernel').filter({ hasText: 'program sum_of_large' });
  await program.getByTestId('kernel-run').click();
  await expect(program.getByTestId('program-launches')).toContainText('The program made 2 launches: 1. keep (grid 40 x 1 x 1), 2. total (grid 5 x 1 x 1)');
  await expect(program.getByTestId('result-Total')).toContainText('97536');
  await expect(program.getByTestId('gpu-status')).not.toContainText('running', { timeout: 20_000 });
  const gpu = (await program.getByTestId('gpu-status').textContent()) ?? '';
  if (gpu.startsWith('WebGPU (')) {
    for (const verdict of await program.getByTestId('verdict').all()) {
      await expect(verdict).toHaveText(/^GPU = simulator/);
    }
  }
});

test('the FFT program takes the radix-2 passes for a power of two, in the page and on WebGPU', async ({ play, page }) => {
  await play.open('?example=fft');
  await play.run();
  await expect(play.simStatus).toContainText('Simulator:');
  await expect(page.getByTestId('program-launches')).toContainText('The program made 13 launches: 1. bit_reverse');
  const outcome = await play.gpuOutcome();
  test.skip(outcome.includes('not run'), `no WebGPU here: ${outcome}`);
  await expect(play.verdicts.first()).toBeVisible();
  // sin and cos differ by target within the spec's bounds; the transform agrees within the
  // comparison's tolerance.
  for (const verdict of await play.verdicts.all()) {
    await expect(verdict).toHaveText(/^GPU = simulator/);
  }
});
