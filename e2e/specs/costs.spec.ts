// What a kernel costs: the roofline after Count memory accesses, the occupancy charts, the
// kernel's time on Chromium's WebGPU (SwiftShader offers timestamp-query) and the message where
// an adapter has none, and the docs page with its charts drawn when the docs were built.
import { test, expect, injectIntoWorker } from '../fixtures/pages';

test('the roofline of a counted run: three roofs, a focusable mark each with its figures', async ({ play, page, consoleErrors }) => {
  await play.open('?example=matvec');
  await play.run();
  await expect(play.simStatus).toContainText('Simulator:');
  await page.getByTestId('measure-memory').click();
  const roofline = page.getByTestId('roofline');
  await expect(roofline).toBeVisible();
  await expect(roofline.locator('polyline.roof')).toHaveCount(3);
  // matvec's launch: 40 x 100, 14,400 FLOPs (counted by hand in compiler-core/tests/memory.rs).
  await expect(roofline.locator('figcaption')).toContainText('This run: 14400 floating-point operations over');
  // A mark for each target (the GPU's measured point, if any, is apart: its own test).
  const marks = roofline.locator('.point:not(.measured)');
  await expect(marks).toHaveCount(3);
  await expect(marks.nth(1)).toHaveAttribute('aria-label', /^A100 \(sm_80\) at 0\.\d{3} FLOP\/byte: memory-bound, at most .*FLOP\/s; the run takes at least /);
  // The marks are reached by Tab, in order.
  await marks.nth(0).focus();
  await page.keyboard.press('Tab');
  await expect(marks.nth(1)).toBeFocused();
  expect(consoleErrors).toEqual([]);
});

test('occupancy charts mark the kernel and name the limit that binds', async ({ play, page }) => {
  await play.open('?example=tiled_matmul');
  await page.getByTestId('occupancy-summary').click();
  const charts = page.getByTestId('occupancy-charts');
  await expect(charts.locator('figure')).toHaveCount(3);
  // sm_70, 256 threads, 12 KiB of tiles (reused by liveness), 32 registers: the warp slots,
  // shared memory and the registers each allow 8 CTAs, 100%.
  await expect(charts.locator('figcaption').nth(0)).toHaveText("Against registers per thread: at this kernel's 32, 100% (64 of 64 warps per SM); warps and shared memory and registers bind.");
  await expect(charts.locator('.point').nth(2)).toHaveAttribute('aria-label', /^12288 shared memory per CTA \(this kernel\): occupancy 100%/);
  await page.getByTestId('occupancy-registers').fill('128');
  await page.getByTestId('occupancy-registers').press('Enter');
  await expect(charts.locator('figcaption').nth(1)).toContainText("at this kernel's 256, 25% (16 of 64 warps per SM); registers bind.");
});

test("the kernel's time on the GPU, turned into rates by the counts and a point on the roofline", async ({ play, page }) => {
  await play.open('?example=matvec');
  await play.run();
  const outcome = await play.gpuOutcome();
  test.skip(outcome.includes('not run'), `no WebGPU here: ${outcome}`);
  const time = page.getByTestId('gpu-time');
  // SwiftShader offers timestamp-query; nine dispatches of a kernel this small.
  await expect(time).toContainText(/^GPU time: the kernel alone: [\d.]+ (ns|µs|ms), the median of 9 dispatches after the run \(timestamps in steps of [\d.]+ (ns|µs)\)/);
  // Each figure says what it covers: the WebGPU line is the whole run.
  await expect(play.gpuStatus).toContainText(/ms, the whole run: upload, kernel and read-back/);
  await expect(time).toContainText('Count memory accesses to see the bandwidth and FLOP/s this time means.');
  await page.getByTestId('measure-memory').click();
  // The rates and the roofline's point come from a time that says something of the kernel:
  // not one under a step of the timestamps, nor one measured under load (a busy machine can
  // time the kernel longer than the whole run), which the line says instead.
  const trusted = !/shorter than a step|under load/.test((await time.textContent()) ?? '');
  if (trusted) {
    await expect(time).toContainText(/by the counts, [\d.]+ [kMGT]?B\/s of global traffic and [\d.]+ [kMGT]?FLOP\/s/);
  } else {
    await expect(time).toContainText(/shorter than a step|Run again to time it/);
  }
  const measured = page.getByTestId('roofline').locator('.point.measured');
  await expect(measured).toHaveCount(trusted ? 1 : 0);
  if (trusted) await expect(measured).toHaveAttribute('aria-label', /^Your GPU \(WebGPU's timestamps\): [\d.]+ [kMGT]?FLOP\/s reached, the run's work in /);
});

test('an adapter without timestamp-query is said to have none', async ({ play, page }) => {
  // The adapter's features without timestamp-query, as a GPU that lacks it reports them.
  await injectIntoWorker(page, `(() => {
    if (!('GPUAdapter' in self)) return;
    const features = Object.getOwnPropertyDescriptor(GPUAdapter.prototype, 'features').get;
    Object.defineProperty(GPUAdapter.prototype, 'features', { get() {
      const offered = features.call(this);
      return { has: (name) => name !== 'timestamp-query' && offered.has(name) };
    } });
  })();`);
  await play.open('?example=vector_add');
  await play.run();
  const outcome = await play.gpuOutcome();
  test.skip(outcome.includes('not run'), `no WebGPU here: ${outcome}`);
  await expect(page.getByTestId('gpu-time')).toHaveText('GPU time: this GPU does not offer timestamps (WebGPU\'s timestamp-query), so the kernel\'s own time is not measured.');
  // The run itself is unaffected.
  expect(outcome).toContain('WebGPU (');
});

test('the docs page draws the rooflines and the occupancy charts it was built with', async ({ page, consoleErrors }) => {
  await page.goto('/docs/costs');
  const rooflines = page.getByTestId('roofline');
  await expect(rooflines).toHaveCount(2);
  // saxpy: 2 FLOPs and 12 bytes an element, memory-bound on all three.
  await expect(rooflines.nth(0).locator('figcaption')).toContainText('0.167 FLOP/byte');
  await expect(rooflines.nth(0).locator('.point[aria-label*="compute-bound"]')).toHaveCount(0);
  // Horner's 16 FLOP/byte: compute-bound on the A100 only.
  const horner = rooflines.nth(1);
  await expect(horner.locator('figcaption')).toContainText('16.000 FLOP/byte');
  await expect(horner.locator('.point[aria-label*="compute-bound"]')).toHaveCount(1);
  await expect(horner.locator('.point[aria-label^="A100"]')).toHaveAttribute('aria-label', /compute-bound/);
  const charts = page.getByTestId('occupancy-charts');
  await expect(charts.locator('figure')).toHaveCount(3);
  // 39 registers and 24 KiB on sm_80: two limits bind, at 75%.
  await expect(charts.locator('figcaption').first()).toContainText('75% (48 of 64 warps per SM); shared memory and registers bind');
  await page.getByTestId('calc-registers').fill('64');
  await expect(charts.locator('figcaption').first()).toContainText("at this kernel's 64");
  // Linked from the memory page and the puzzles.
  for (const from of ['/docs/memory', '/docs/puzzles']) {
    await page.goto(from);
    await expect(page.locator('main a[href="/docs/costs"]').first()).toBeVisible();
  }
  expect(consoleErrors).toEqual([]);
});

test("a docs kernel's run gives its GPU time with the rates of the counts made at build time", async ({ page }) => {
  await page.goto('/docs/memory#on-your-gpu');
  const kernel = page.getByTestId('kernel').filter({ hasText: 'kernel copy_columns' });
  await kernel.getByTestId('kernel-run').click();
  const gpu = kernel.getByTestId('gpu-status');
  await expect(gpu).not.toContainText('running', { timeout: 60_000 });
  test.skip((await gpu.textContent() ?? '').includes('not run'), 'no WebGPU here');
  // The counts came with the page: no Count memory accesses to press.
  await expect(kernel.getByTestId('gpu-time')).toContainText(/the median of \d dispatch(es)?.*by the counts, [\d.]+ [kMGT]?B\/s of global traffic/);
});
