import { test, expect, type PlayPage } from '../fixtures/pages';

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

for (const example of ['matvec', 'warp_reduce', 'prefix_sum', 'votes', 'shuffles', 'softmax']) {
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

for (const example of ['matvec', 'block_sum', 'votes', 'tiled_matmul']) {
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

test('without WebGPU the simulator still runs and a note says why', async ({ play, page }) => {
  await page.addInitScript(() => {
    delete (Navigator.prototype as any).gpu;
  });
  await play.open('?example=vector_add');
  await play.run();
  await expect(play.simStatus).toContainText('Simulator:');
  expect(await play.gpuOutcome()).toContain('not run: no GPU adapter was found: this browser has no WebGPU');
  await expect(page.getByTestId('result-C')).toBeVisible();
});
