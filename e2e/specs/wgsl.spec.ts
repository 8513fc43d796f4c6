import { test, expect } from '../fixtures/pages';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

// The WGSL the compiler writes for the browser (the golden files of every example) must be
// accepted by Chromium's own WGSL compiler (Tint), which is stricter than naga: it checks
// uniformity, and requires `enable subgroups;`.
const dir = join(__dirname, '../../compiler-core/tests/wgsl');
const shaders = readdirSync(dir)
  .filter((f) => f.endsWith('.wgsl'))
  .sort()
  .map((f) => ({ name: f, code: readFileSync(join(dir, f), 'utf8') }));

test('Chromium compiles the WGSL of every example', async ({ home, page }) => {
  expect(shaders.length).toBeGreaterThanOrEqual(14);
  await home.open();
  const results = await page.evaluate(async (shaders) => {
    const gpu = (navigator as any).gpu;
    const adapter = await gpu.requestAdapter();
    const device = await adapter.requestDevice({ requiredFeatures: ['subgroups'] });
    const out: { name: string; errors: string[] }[] = [];
    for (const shader of shaders) {
      const module = device.createShaderModule({ code: shader.code });
      const info = await module.getCompilationInfo();
      const errors = info.messages
        .filter((m: any) => m.type === 'error')
        .map((m: any) => `${m.lineNum}:${m.linePos} ${m.message}`);
      out.push({ name: shader.name, errors });
    }
    return out;
  }, shaders);
  const failures = results.filter((r) => r.errors.length > 0);
  expect(failures, JSON.stringify(failures, null, 2)).toEqual([]);
});

type Buffer = { binding: number; words: number[]; readOnly: boolean };

/** Runs one kernel's WGSL on the page's WebGPU device and returns every read-write buffer. */
async function runInBrowser(page: any, code: string, entry: string, buffers: Buffer[], uniform: number[], groups: number | number[]) {
  return page.evaluate(
    async ({ code, entry, buffers, uniform, groups }: any) => {
      const gpu = (navigator as any).gpu;
      const adapter = await gpu.requestAdapter();
      // The adapter's own workgroup storage: WebGPU's default (16 KiB) is below a 32 x 32 matmul's.
      const device = await adapter.requestDevice({
        requiredFeatures: ['subgroups'],
        requiredLimits: { maxComputeWorkgroupStorageSize: adapter.limits.maxComputeWorkgroupStorageSize },
      });
      const S = (globalThis as any).GPUShaderStage;
      const U = (globalThis as any).GPUBufferUsage;
      const M = (globalThis as any).GPUMapMode;
      const entries = buffers.map((b: any) => ({ binding: b.binding, visibility: S.COMPUTE, buffer: { type: b.readOnly ? 'read-only-storage' : 'storage' } }));
      entries.push({ binding: buffers.length, visibility: S.COMPUTE, buffer: { type: 'uniform' } });
      const layout = device.createBindGroupLayout({ entries });
      const pipeline = device.createComputePipeline({
        layout: device.createPipelineLayout({ bindGroupLayouts: [layout] }),
        compute: { module: device.createShaderModule({ code }), entryPoint: entry },
      });
      const make = (words: number[], usage: number) => {
        const buffer = device.createBuffer({ size: Math.max(16, words.length * 4), usage, mappedAtCreation: true });
        new Uint32Array(buffer.getMappedRange()).set(words);
        buffer.unmap();
        return buffer;
      };
      const storage = buffers.map((b: any) => make(b.words, U.STORAGE | U.COPY_SRC));
      const params = make(uniform, U.UNIFORM);
      const group = device.createBindGroup({
        layout,
        entries: [...storage.map((buffer: any, i: number) => ({ binding: i, resource: { buffer } })), { binding: buffers.length, resource: { buffer: params } }],
      });
      const encoder = device.createCommandEncoder();
      const pass = encoder.beginComputePass();
      pass.setPipeline(pipeline);
      pass.setBindGroup(0, group);
      pass.dispatchWorkgroups(...[groups].flat());
      pass.end();
      const reads = storage.map((buffer: any) => {
        const read = device.createBuffer({ size: buffer.size, usage: U.MAP_READ | U.COPY_DST });
        encoder.copyBufferToBuffer(buffer, 0, read, 0, buffer.size);
        return read;
      });
      device.queue.submit([encoder.finish()]);
      const out: number[][] = [];
      for (const read of reads) {
        await read.mapAsync(M.READ);
        out.push(Array.from(new Int32Array(read.getMappedRange())));
      }
      return { subgroupMinSize: adapter.info.subgroupMinSize, out };
    },
    { code, entry, buffers, uniform, groups },
  );
}

test('the 48-thread lane_ids kernel runs on WebGPU with 4-lane subgroups', async ({ home, page }) => {
  await home.open();
  const code = readFileSync(join(dir, 'lane_ids.lanes4.wgsl'), 'utf8');
  const zeros = new Array(48).fill(0);
  const { subgroupMinSize, out } = await runInBrowser(page, code, 'tessera_lane_ids', [0, 1, 2].map((binding) => ({ binding, words: zeros, readOnly: false })), [0, 0, 0, 0], 1);
  test.skip(subgroupMinSize !== 4, `this WebGPU adapter's subgroups are ${subgroupMinSize} wide, the WGSL is for 4`);
  const threads = [...Array(48).keys()];
  expect(out[0].slice(0, 48)).toEqual(threads.map((t) => t % 4));
  expect(out[1].slice(0, 48)).toEqual(threads.map((t) => Math.floor(t / 4)));
  expect(out[2].slice(0, 48)).toEqual(threads.map(() => 0xf));
});

test('warp reductions run on WebGPU and match a reference', async ({ home, page }) => {
  await home.open();
  const code = readFileSync(join(dir, 'warp_reduce.lanes4.wgsl'), 'utf8');
  const n = 100;
  const x = [...Array(n).keys()].map((i) => ((i * 37) % 23) - 11);
  const w = 32;
  const empty = new Array(w).fill(0);
  const buffers = [
    { binding: 0, words: x, readOnly: true },
    { binding: 1, words: empty, readOnly: false },
    { binding: 2, words: empty, readOnly: false },
    { binding: 3, words: empty, readOnly: false },
  ];
  const { subgroupMinSize, out } = await runInBrowser(page, code, 'tessera_warp_reduce', buffers, [n, w, 0, 0], 1);
  test.skip(subgroupMinSize !== 4, `this WebGPU adapter's subgroups are ${subgroupMinSize} wide, the WGSL is for 4`);
  const slice = (k: number) => [0, 1, 2, 3].map((l) => (k * 4 + l < n ? x[k * 4 + l] : 0));
  const warps = [...Array(w).keys()];
  expect(out[1].slice(0, w)).toEqual(warps.map((k) => slice(k).reduce((a, b) => a + b, 0)));
  expect(out[2].slice(0, w)).toEqual(warps.map((k) => Math.max(...slice(k))));
  expect(out[3].slice(0, w)).toEqual(warps.map((k) => Math.min(...slice(k))));
});

test('warp reductions with 32-lane warps emulated run on WebGPU', async ({ home, page }) => {
  await home.open();
  const code = readFileSync(join(dir, 'warp_reduce.emulated32.wgsl'), 'utf8');
  const n = 200;
  const x = [...Array(n).keys()].map((i) => ((i * 37) % 23) - 11);
  const w = 7;
  const empty = new Array(w).fill(0);
  const buffers = [
    { binding: 0, words: x, readOnly: true },
    { binding: 1, words: empty, readOnly: false },
    { binding: 2, words: empty, readOnly: false },
    { binding: 3, words: empty, readOnly: false },
  ];
  const { out } = await runInBrowser(page, code, 'tessera_warp_reduce', buffers, [n, w, 0, 0], 2);
  const slice = (k: number) => [...Array(32).keys()].map((l) => (k * 32 + l < n ? x[k * 32 + l] : 0));
  const warps = [...Array(w).keys()];
  expect(out[1].slice(0, w)).toEqual(warps.map((k) => slice(k).reduce((a, b) => a + b, 0)));
  expect(out[2].slice(0, w)).toEqual(warps.map((k) => Math.max(...slice(k))));
  expect(out[3].slice(0, w)).toEqual(warps.map((k) => Math.min(...slice(k))));
});

// Two 32 x 32 products per CTA and hundreds of workgroup barriers in nested loops: Mesa's
// lavapipe runs this WGSL wrong (runtime/tests/differential.rs keeps it as a known failure),
// Chromium's WebGPU runs it right, which says the WGSL is sound.
test('the tiled matmul with 32-lane warps emulated runs on WebGPU', async ({ home, page }) => {
  await home.open();
  const code = readFileSync(join(dir, 'tiled_matmul.emulated32.wgsl'), 'utf8');
  const [m, k, n] = [40, 70, 50];
  // Small integers, so every sum is exact in f32 whatever the order.
  const a = [...Array(m * k).keys()].map((i) => ((i * 7) % 5) - 2);
  const b = [...Array(k * n).keys()].map((i) => ((i * 3) % 7) - 3);
  const bits = (xs: number[]) => Array.from(new Int32Array(new Float32Array(xs).buffer));
  const buffers = [
    { binding: 0, words: bits(a), readOnly: true },
    { binding: 1, words: bits(b), readOnly: true },
    { binding: 2, words: new Array(m * n).fill(0), readOnly: false },
  ];
  const { out } = await runInBrowser(page, code, 'tessera_tiled_matmul', buffers, [m, k, n, 0], [2, 2]);
  const c = Array.from(new Float32Array(new Int32Array(out[2].slice(0, m * n)).buffer));
  const expected = [...Array(m * n).keys()].map((e) => {
    const [row, col] = [Math.floor(e / n), e % n];
    return [...Array(k).keys()].reduce((s, i) => s + a[row * k + i] * b[i * n + col], 0);
  });
  expect(c).toEqual(expected);
});

// f16 (compiler-core/tests/wgsl/half.tsr) on Chromium's WebGPU (SwiftShader, without shader-f16):
// f32 values around f16s of every magnitude (the f16, the halfway points, a step off each),
// rounded by the WGSL's integer arithmetic, must be what JavaScript's own Math.f16round gives,
// and f16 sums and products rounded once, as the spec says.
test('f16 rounds on WebGPU exactly as Math.f16round does', async ({ home, page }) => {
  await home.open();
  const code = readFileSync(join(dir, 'half.emulated32.wgsl'), 'utf8');
  // The inputs and the reference in the page: Chromium has Float16Array and Math.f16round.
  const inputs = await page.evaluate(() => {
    const half = new Float16Array(1);
    const halfBits = new Uint16Array(half.buffer);
    const fromHalf = (h: number) => ((halfBits[0] = h), half[0]);
    const single = new Float32Array(1);
    const singleBits = new Uint32Array(single.buffer);
    const step = (x: number, by: number) => ((single[0] = x), (singleBits[0] += by), single[0]);
    const floats: number[] = [];
    for (let h = 0; h < 0x10000; h += 61) {
      const value = fromHalf(h);
      if (!Number.isFinite(value)) continue;
      const halfway = Math.fround((value + fromHalf(h + 1)) / 2);
      floats.push(value, halfway, step(halfway, -1), step(halfway, 1));
    }
    floats.push(65504, 65519, 65520, 1e10, -1e10, 2.98e-8, Infinity, -Infinity);
    const n = floats.length - (floats.length % 64);
    const f = floats.slice(0, n);
    const a = [...Array(n).keys()].map((i) => fromHalf((i * 40503) % 65536)).map((x) => (Number.isNaN(x) ? 1 : x));
    const words = (array: Float32Array | Float16Array) => Array.from(new Uint32Array(array.buffer));
    return { n, f, a, fWords: words(new Float32Array(f)), aWords: words(new Float16Array(a)) };
  });
  const { n } = inputs;
  const zeros = (count: number) => new Array(count).fill(0);
  const buffers = [
    { binding: 0, words: inputs.fWords, readOnly: true },
    { binding: 1, words: inputs.aWords, readOnly: true },
    { binding: 2, words: zeros(n / 2), readOnly: true },
    { binding: 3, words: zeros(n / 2), readOnly: false },
    { binding: 4, words: zeros(n), readOnly: false },
    { binding: 5, words: zeros((3 * n) / 2), readOnly: false },
    { binding: 6, words: zeros(2 * n), readOnly: false },
  ];
  const { out } = await runInBrowser(page, code, 'tessera_half', buffers, [n, 0, 0, 0], n / 64);
  const wrong = await page.evaluate(({ inputs, out }) => {
    const { n, f, a } = inputs;
    const halves = (buffer: number[], row = 0) =>
      Array.from(new Float16Array(new Int32Array(buffer).buffer)).slice(row * n, (row + 1) * n);
    const f16 = (Math as any).f16round as (x: number) => number;
    const b = (i: number) => a[(i * 7 + 3) % n];
    const check = (got: number[], want: (i: number) => number) =>
      got.map((x, i) => [i, x, want(i)]).filter(([, x, y]) => !Object.is(x, y)).slice(0, 5);
    return {
      R: check(halves(out[3]), (i) => f16(f[i])),
      W: check(Array.from(new Float32Array(new Int32Array(out[4]).buffer)).slice(0, n), (i) => f16(f[i])),
      sum: check(halves(out[5], 0), (i) => f16(a[i] + b(i))),
      product: check(halves(out[5], 1), (i) => f16(f16(a[i] * b(i)) - a[i])),
      integer: check(halves(out[5], 2), (i) => f16(i * 37 - 30000)),
    };
  }, { inputs, out });
  expect(wrong).toEqual({ R: [], W: [], sum: [], product: [], integer: [] });
});
