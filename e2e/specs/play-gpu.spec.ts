import { test, expect, injectIntoWorker, type PlayPage } from '../fixtures/pages';

// The runtime crate's browser runner (WebGPU through web-sys) runs the examples in Chromium
// from the playground, and the results equal the simulator's. Headless Chromium here offers
// SwiftShader with subgroups of 4: subgroup mode runs with ctx.lanes = 4, and NVIDIA's 32-lane
// warps run emulated in workgroup memory.

async function runOnGpu(play: PlayPage, example: string, lanes: string, mode: string) {
  await play.open(`?example=${example}`);
  await play.setField('lanes', lanes);
  await play.page.getByTestId('warp-mode').selectOption(mode);
  await play.run();
  await expect(play.simStatus).toContainText('Simulator:');
  return play.gpuOutcome();
}

for (const example of ['matvec', 'warp_reduce', 'prefix_sum', 'cta_scan', 'votes', 'shuffles', 'softmax', 'histogram', 'gelu', 'channel_scale', 'dot_f16', 'quantize', 'radix_sort_f32', 'bitonic_sort', 'attention_rows', 'gemm_f16_f32', 'fnv_hash', 'splitmix']) {
  test(`${example} on WebGPU subgroups of 4 equals the simulator`, async ({ play }) => {
    const outcome = await runOnGpu(play, example, '4', 'subgroups');
    test.skip(outcome.includes('not run'), `no WebGPU here: ${outcome}`);
    test.skip(outcome.includes('subgroups of exactly'), `this adapter's subgroups are not 4 wide: ${outcome}`);
    expect(outcome).toContain('4-lane subgroups as warps');
    await expect(play.verdicts.first()).toBeVisible();
    for (const verdict of await play.verdicts.all()) {
      await expect(verdict).toHaveText(/^GPU = simulator/);
    }
  });
}

for (const example of ['matvec', 'block_sum', 'scratch_sum', 'cta_scan', 'votes', 'tiled_matmul', 'softmax', 'histogram', 'radix_sort_f32', 'bitonic_sort', 'attention_rows', 'gemm_f16_f32', 'fnv_hash', 'mma_gemm']) {
  test(`${example} with 32-lane warps emulated on WebGPU equals the simulator`, async ({ play }) => {
    const outcome = await runOnGpu(play, example, '32', 'emulated');
    test.skip(outcome.includes('not run'), `no WebGPU here: ${outcome}`);
    expect(outcome).toContain('32-lane warps emulated');
    await expect(play.verdicts.first()).toBeVisible();
    for (const verdict of await play.verdicts.all()) {
      await expect(verdict).toHaveText(/^GPU = simulator/);
    }
  });
}

// A LeetGPU-size loop (10,000 trips, 256 threads) with 32-lane warps emulated: the loop holds no
// collective, so each invocation runs it by itself, with no workgroup vote a trip (issue 55).
const LONG = `@launch(256)
kernel long(X: tensor<f32>[N], Y: tensor<f32>[N]) {
  let i = ctx.block.x * ctx.threads + ctx.thread
  var acc = 0.0
  for k in range(10000) {
    acc = acc * 0.5 + X[(i + k) % N]
  }
  let total = sum<over ctx.lane>(acc)
  if i < N {
    Y[i] = acc + total
  }
}
`;

test('a 10,000-trip loop at 256 threads with 32-lane warps emulated on WebGPU equals the simulator', async ({ play, page }) => {
  test.setTimeout(90_000);
  await play.open('?example=vector_add');
  await play.paste(LONG);
  await expect(page.getByTestId('diagnostics-ok')).toBeVisible();
  await play.setField('grid-x', '2');
  await play.setField('dim-N', '512');
  await play.setField('lanes', '32');
  await page.getByTestId('warp-mode').selectOption('emulated');
  await play.run();
  await expect(play.simStatus).toContainText('Simulator:', { timeout: 60_000 });
  const outcome = await play.gpuOutcome();
  test.skip(outcome.includes('not run: no GPU'), `no WebGPU here: ${outcome}`);
  expect(outcome).toContain('32-lane warps emulated');
  await expect(play.verdicts.first()).toBeVisible();
  for (const verdict of await play.verdicts.all()) {
    await expect(verdict).toHaveText(/^GPU = simulator/);
  }
});

test('the lane probe finds SwiftShader\'s subgroups in invocation order, so they stand in for warps', async ({ play }) => {
  // Automatic mode: subgroups are warps only after the probe kernel checked the lane order.
  const outcome = await runOnGpu(play, 'lane_ids', '4', 'auto');
  test.skip(outcome.includes('not run'), `no WebGPU here: ${outcome}`);
  expect(outcome).toContain('subgroups of 4 ·');
  expect(outcome).toContain('4-lane subgroups as warps');
  // Integers must be equal: no "largest difference" of them.
  await expect(play.verdicts.first()).toHaveText('GPU = simulator · every element equal');
});

test('without WebGPU the simulator still runs and a note says why', async ({ play, page }) => {
  await injectIntoWorker(page, 'delete WorkerNavigator.prototype.gpu;');
  await play.open('?example=vector_add');
  await play.run();
  await expect(play.simStatus).toContainText('Simulator:');
  expect(await play.gpuOutcome()).toContain('not run: no GPU adapter was found: this browser has no WebGPU');
  await expect(page.getByTestId('result-C')).toBeVisible();
});

test('a GPU device lost during a run is explained, and the next run opens a new one', async ({ play, page }) => {
  // Browsers lose the device when their watchdog ends a kernel that runs too long; here the
  // worker's own device is destroyed right after the run is submitted, which loses it the same
  // way. The page tells the worker when, and counts its devices, over a BroadcastChannel.
  await injectIntoWorker(page, `(() => {
    const channel = new BroadcastChannel('gpu-test');
    let devices = [];
    let loseOnSubmit = false;
    channel.onmessage = (event) => { if (event.data === 'lose') loseOnSubmit = true; };
    if (!('GPUAdapter' in self)) return;
    const requestDevice = GPUAdapter.prototype.requestDevice;
    GPUAdapter.prototype.requestDevice = async function (...args) {
      const device = await requestDevice.apply(this, args);
      devices.push(device);
      channel.postMessage('device');
      return device;
    };
    const submit = GPUQueue.prototype.submit;
    GPUQueue.prototype.submit = function (...args) {
      const result = submit.apply(this, args);
      if (loseOnSubmit) {
        loseOnSubmit = false;
        devices[devices.length - 1].destroy();
      }
      return result;
    };
  })();`);
  await page.addInitScript(() => {
    const w = window as any;
    w.__devices = 0;
    w.__gpuTest = new BroadcastChannel('gpu-test');
    w.__gpuTest.onmessage = (event: MessageEvent) => { if (event.data === 'device') w.__devices++; };
  });
  const first = await runOnGpu(play, 'matvec', '32', 'emulated');
  test.skip(first.includes('not run'), `no WebGPU here: ${first}`);
  expect(first).toContain('32-lane warps emulated');

  await page.evaluate(() => (window as any).__gpuTest.postMessage('lose'));
  await play.run();
  await expect(play.gpuStatus).toContainText('the GPU device was lost during the run', { timeout: 20_000 });
  await expect(play.gpuStatus).toContainText('the next run opens a new one');
  // The simulator's results stay on the page.
  await expect(play.simStatus).toContainText('Simulator:');
  await expect(page.getByTestId('result-C')).toBeVisible();

  await play.run();
  await expect(play.gpuStatus).toContainText('32-lane warps emulated', { timeout: 20_000 });
  for (const verdict of await play.verdicts.all()) {
    await expect(verdict).toHaveText(/^GPU = simulator/);
  }
  await expect.poll(() => page.evaluate(() => (window as any).__devices)).toBe(2);
});

// A kernel whose loop never ends, sent to the GPU after the simulator stopped it: the WGSL's
// loop guard stops it there (E0514 at the loop's line), and the page and the device work after.
for (const mode of ['subgroups', 'emulated']) {
  test(`an endless loop on WebGPU (${mode}) stops with E0514 and the next run works`, async ({ play, page }) => {
    const lanes = mode === 'subgroups' ? '4' : '32';
    await play.open('?example=vector_add');
    await play.editor.fill('@launch(32)\nkernel endless(Y: tensor<i32>[32]) {\n  var i = ctx.lane\n  while i >= 0 {\n    i = (i + 1) % 7\n  }\n  Y[ctx.lane] = i\n}\n');
    await play.setField('lanes', lanes);
    await page.getByTestId('warp-mode').selectOption(mode);
    await play.setField('step-limit', '3000');
    await play.run();
    await expect(page.getByTestId('run-fault')).toContainText('E0514');
    await expect(play.gpuStatus).toContainText('not run: the simulator stopped the run');
    // Said before it starts: a run that never ends can take long (issue 52).
    await expect(page.getByTestId('gpu-anyway-note')).toContainText('a minute or more');
    await page.getByTestId('gpu-anyway').click();
    const outcome = play.gpuStatus;
    await expect(outcome).not.toContainText('running', { timeout: 30_000 });
    test.skip((await outcome.textContent())?.includes('not run') ?? false, 'no WebGPU here');
    await expect(outcome).toContainText('E0514: ');
    await expect(outcome).toContainText('(the loop at line 4)');
    // The page and the device work: a kernel that ends runs on both and agrees.
    // One CTA, and each thread its own element: with 4-lane warps, or four CTAs, Y[ctx.lane]
    // would be written by several threads (a race, E0516).
    await play.setField('grid-x', '1');
    await play.editor.fill('@launch(32)\nkernel ends(Y: tensor<i32>[32]) {\n  var i = ctx.lane\n  while i >= 0 && i < 5 {\n    i = (i + 1) % 7\n  }\n  Y[ctx.thread] = i\n}\n');
    await play.run();
    await expect(play.gpuStatus).toContainText('WebGPU (', { timeout: 30_000 });
    for (const verdict of await play.verdicts.all()) {
      await expect(verdict).toHaveText(/^GPU = simulator/);
    }
  });
}

// Every tensor is a storage buffer, and a GPU run adds the loop guard's word: the device asks
// for the adapter's storage buffers (SwiftShader's 10, where WebGPU promises 8), and a kernel
// that needs more is told so beside the launch, not by the device's refusal.
test('a kernel of nine tensors runs on WebGPU, and one of ten is told the GPU binds too few', async ({ play, page }) => {
  const names = 'ABCDEFGHIJ'.split('');
  const kernel = (n: number) => {
    const params = names.slice(0, n).map((x) => `${x}: tensor<f32>[N]`).join(', ');
    const sum = names.slice(0, n - 1).map((x) => `${x}[i]`).join(' + ');
    return `@launch(32)\nkernel many(${params}) {\n  let i = ctx.block.x * ctx.threads + ctx.thread\n  if i < N {\n    ${names[n - 1]}[i] = ${sum}\n  }\n}\n`;
  };
  await play.open('?example=vector_add');
  await page.locator('.cm-editor').evaluate((el: any, text: string) => el.tesseraPaste(text), kernel(9));
  await play.run();
  const outcome = await play.gpuOutcome();
  test.skip(outcome.includes('not run'), `no WebGPU here: ${outcome}`);
  await expect(play.verdicts.first()).toBeVisible();
  for (const verdict of await play.verdicts.all()) {
    await expect(verdict).toHaveText(/^GPU = simulator/);
  }
  await page.locator('.cm-editor').evaluate((el: any, text: string) => el.tesseraPaste(text), kernel(10));
  await play.run();
  expect(await play.gpuOutcome()).toContain('the kernel binds 11 storage buffers (one per tensor and the loop guard\'s word); this GPU binds at most 10');
});
