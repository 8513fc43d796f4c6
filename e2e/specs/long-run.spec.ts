// A long run: the simulator works in a Web Worker, so the page keeps drawing and checking what
// is typed; a progress line counts the CTAs; Cancel stops the run at once and says so; a new
// Run replaces a run in flight, visibly; a run after a cancel completes; the memory counts show
// their CTAs too; and a GPU run in flight can be abandoned.
import { test, expect } from '../fixtures/pages';

// Each thread spins through a loop: about a tenth of a second per CTA in the page.
const SPIN = `@launch(256)
kernel spin(X: tensor<i32>[N], Y: tensor<i32>[N]) {
  let i = ctx.block.x * ctx.threads + ctx.thread
  var v = 0
  for k in range(0, TRIPS) {
    v = (v * 31 + k) % 1000003
  }
  if i < N {
    Y[i] = v + X[i]
  }
}
`;

async function spin(play: any, page: any, trips: number, ctas: number) {
  await play.open('?example=vector_add');
  await play.paste(SPIN.replace('TRIPS', String(trips)));
  await expect(page.getByTestId('diagnostics-ok')).toBeVisible();
  await play.setField('grid-x', String(ctas));
  await play.setField('dim-N', String(ctas * 256));
}

/** The progress line's count of CTAs done, once it shows one. */
async function ctasDone(page: any): Promise<number> {
  const text = (await page.getByTestId('run-progress-text').textContent()) ?? '';
  const match = /Simulating: (\d+) of (\d+) CTAs/.exec(text);
  return match ? Number(match[1]) : -1;
}

test('a long run shows its progress, the page keeps working, and Cancel stops it', async ({ play, page, consoleErrors }) => {
  test.setTimeout(90_000);
  await spin(play, page, 6000, 64);
  // Frame gaps from here on: the page draws while the worker simulates.
  await page.evaluate(() => {
    const w = window as any;
    w.frameGaps = [];
    let last = performance.now();
    const frame = (now: number) => {
      w.frameGaps.push(now - last);
      last = now;
      if (w.measuring !== false) requestAnimationFrame(frame);
    };
    requestAnimationFrame(frame);
  });
  await play.run();
  const progress = page.getByTestId('run-progress');
  await expect(progress).toBeVisible();
  await expect(page.getByTestId('run-progress-text')).toContainText(/Simulating: \d+ of 64 CTAs/);
  await expect.poll(() => ctasDone(page), { timeout: 20_000 }).toBeGreaterThan(0);
  const first = await ctasDone(page);
  await expect.poll(() => ctasDone(page), { timeout: 20_000 }).toBeGreaterThan(first);

  // Typing during the run: the checker answers while the simulator is busy.
  await play.caret((await play.source()).indexOf('var v = 0') + 'var v = 0'.length);
  await page.keyboard.type(' +');
  await expect(play.diagnostics.first()).toBeVisible();
  await page.keyboard.press('Backspace');
  await page.keyboard.press('Backspace');
  await expect(page.getByTestId('diagnostics-ok')).toBeVisible();
  await expect(progress).toBeVisible();

  const gaps: number[] = await page.evaluate(() => {
    const w = window as any;
    w.measuring = false;
    return w.frameGaps.slice(1);
  });
  expect(gaps.length).toBeGreaterThan(20);
  // The page kept drawing: nine frames in ten came within 50 ms, and none waited long enough
  // to be a freeze (the simulator on the page's thread made one gap of the whole run, 4-5 s).
  // How smooth exactly is a benchmark (BENCHMARKS.md, "Long runs in the page": 17-33 ms on an
  // idle machine), not this test's: on a 2-core machine that is busy elsewhere a frame can
  // wait 50-100 ms for a core (seen in CI), which is not the page's doing.
  const shown = `frame gaps: ${gaps.map((g) => g.toFixed(0)).join(' ')}`;
  const sorted = [...gaps].sort((a, b) => a - b);
  expect(sorted[Math.floor(sorted.length * 0.9)], shown).toBeLessThanOrEqual(50);
  expect(sorted[sorted.length - 1], shown).toBeLessThan(250);

  const before = await ctasDone(page);
  await page.getByTestId('cancel-run').click();
  await expect(progress).toBeHidden();
  await expect(page.getByTestId('run-note')).toContainText(/Cancelled after \d+\.\d s, with \d+ of 64 CTAs simulated\./);
  // The focus was on Cancel, which went away: it is on the note that says what happened.
  await expect(page.getByTestId('run-note')).toBeFocused();
  const cancelledAt = Number(/with (\d+) of/.exec((await page.getByTestId('run-note').textContent()) ?? '')?.[1]);
  expect(cancelledAt).toBeGreaterThanOrEqual(before);
  expect(cancelledAt).toBeLessThan(64);
  // Nothing ran to the end: no results appeared.
  await expect(play.simStatus).toHaveCount(0);

  // Again, shorter: it runs to completion in a new worker.
  await play.setField('grid-x', '4');
  await play.setField('dim-N', '1024');
  await play.run();
  await expect(play.simStatus).toContainText('Simulator:', { timeout: 30_000 });
  await expect(page.getByTestId('run-note')).toHaveCount(0);
  expect(consoleErrors).toEqual([]);
});

test('Run during a run cancels the one before, and says so', async ({ play, page }) => {
  test.setTimeout(60_000);
  await spin(play, page, 6000, 64);
  await play.run();
  await expect(page.getByTestId('run-progress')).toBeVisible();
  await play.setField('grid-x', '2');
  await play.setField('dim-N', '512');
  await play.run();
  await expect(page.getByTestId('run-note')).toContainText('The run before this one was cancelled after');
  await expect(play.simStatus).toContainText('Simulator:', { timeout: 30_000 });
});

test('counting memory accesses shows its CTAs, and Close stops it', async ({ play, page }) => {
  test.setTimeout(60_000);
  // Long enough that a loaded machine still shows the count on its way (3000 trips was not, once).
  await spin(play, page, 6000, 32);
  await play.run();
  await expect(play.simStatus).toContainText('Simulator:', { timeout: 30_000 });
  await page.getByTestId('measure-memory').click();
  const memory = page.getByTestId('memory');
  await expect(memory.getByRole('status').filter({ hasText: /Counting: \d+ of 32 CTAs/ })).toBeVisible({ timeout: 20_000 });
  await page.getByTestId('memory-close').click();
  await expect(memory).toHaveCount(0);
  // Counting again from the start, to the end: the table of accesses.
  await page.getByTestId('measure-memory').click();
  await expect(page.getByTestId('memory-table')).toBeVisible({ timeout: 30_000 });
});

test('a GPU run in flight can be abandoned: the simulator results stay', async ({ play, page }) => {
  test.setTimeout(60_000);
  await spin(play, page, 6000, 16);
  await play.run();
  await expect(play.simStatus).toContainText('Simulator:', { timeout: 30_000 });
  // SwiftShader takes seconds over this launch: the line shows while the GPU works.
  await expect(page.getByTestId('run-progress-text')).toContainText('Running on WebGPU');
  await page.getByTestId('cancel-run').click();
  await expect(page.getByTestId('run-note')).toContainText(/Cancelled on WebGPU after \d+\.\d s; the simulator's results stay\./);
  await expect(play.gpuStatus).toContainText(/not run: cancelled after \d+\.\d s/);
  await expect(play.simStatus).toContainText('Simulator:');
  await expect(page.getByTestId('run-progress')).toHaveCount(0);
});
