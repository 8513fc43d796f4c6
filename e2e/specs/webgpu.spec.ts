import { test, expect } from '../fixtures/pages';

// Later specs run kernels on WebGPU: this one proves the browser really offers it, with
// subgroups, so those specs test the GPU path instead of skipping it.
test('navigator.gpu gives an adapter with subgroups', async ({ home, page }) => {
  await home.open();
  const adapter = await page.evaluate(async () => {
    const gpu = (navigator as any).gpu;
    if (!gpu) return null;
    const found = await gpu.requestAdapter();
    if (!found) return null;
    return {
      subgroups: found.features.has('subgroups'),
      subgroupMinSize: found.info?.subgroupMinSize ?? null,
      subgroupMaxSize: found.info?.subgroupMaxSize ?? null,
      maxInvocations: found.limits.maxComputeInvocationsPerWorkgroup,
    };
  });
  expect(adapter, 'requestAdapter() returned no adapter').not.toBeNull();
  expect(adapter!.subgroups).toBe(true);
  expect(adapter!.subgroupMinSize).toBeGreaterThanOrEqual(4);
  expect(adapter!.subgroupMaxSize).toBeGreaterThanOrEqual(adapter!.subgroupMinSize);
  expect(adapter!.maxInvocations).toBeGreaterThanOrEqual(256);
});
