// Tessera's WGSL against hand-written WGSL (bench/wgsl/) and emulated warps against the device's
// own subgroups, in Debian's Chromium on its WebGPU (SwiftShader, subgroups of 4): BENCHMARKS.md,
// issue 55. Each variant's GPU time from timestamp queries (developer features on, so they are
// not rounded to 100 µs), the median of RUNS dispatches (default 15), the variants interleaved.
// The same kernels on lavapipe, with every output checked against the simulator:
// `cargo run --release -p runtime --example peers`.
//   node scripts/bench-peers.mjs   (after `cargo build -p tessera`; TESSERA=path to the CLI)
import { chromium } from '@playwright/test';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';

const RUNS = Number(process.env.RUNS ?? 15);
const root = new URL('../../', import.meta.url).pathname;
const cli = process.env.TESSERA ?? `${root}target/debug/tessera`;
const tessera = (example, ...flags) =>
  execFileSync(cli, ['wgsl', `${root}examples/${example}.tsr`, ...flags], { encoding: 'utf8' });
const n = 1 << 20;
// Each kernel: its tensors' bytes (in parameter order), its uniforms (i32 or f32 words, in the
// order the WGSL's Params struct has them) and its grid.
const kernels = [
  { name: 'saxpy', tensors: [4 * n, 4 * n], uniforms: [['i32', n], ['f32', 2.5]], grid: [n / 128, 1] },
  { name: 'warp_reduce', tensors: [4 * n, n, n, n], uniforms: [['i32', n], ['i32', n / 4]], grid: [n / 128, 1] },
  { name: 'block_sum', tensors: [4 * n, n / 64], uniforms: [['i32', n], ['i32', n / 256]], grid: [n / 256, 1] },
  { name: 'tiled_transpose', tensors: [4 * n, 4 * n], uniforms: [['i32', 1024], ['i32', 1024]], grid: [32, 32] },
  { name: 'tiled_matmul', tensors: [4 * 65536, 4 * 65536, 4 * 65536], uniforms: [['i32', 256], ['i32', 256], ['i32', 256]], grid: [8, 8] },
];

const server = createServer((_, response) => response.end('<!doctype html><title>peers</title>'));
await new Promise((resolve) => server.listen(4190, '127.0.0.1', resolve));
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  args: ['--enable-unsafe-webgpu', '--enable-webgpu-developer-features', '--no-sandbox', '--no-first-run'],
});
try {
  const page = await browser.newPage();
  await page.goto('http://127.0.0.1:4190/');
  console.log('| kernel | 32-lane warps emulated | subgroups of 4 | emulated / subgroups | hand-written WGSL | Tessera / hand-written |');
  console.log('|---|---|---|---|---|---|');
  for (const kernel of kernels) {
    const variants = [
      tessera(kernel.name, '--emulate-warps'),
      tessera(kernel.name, '--lanes', '4'),
      readFileSync(`${root}bench/wgsl/${kernel.name}.wgsl`, 'utf8'),
    ];
    const times = await page.evaluate(measure, { kernel, variants, runs: RUNS });
    const ms = times.map((t) => t.toFixed(3));
    console.log(`| ${kernel.name} | ${ms[0]} ms | ${ms[1]} ms | ${(times[0] / times[1]).toFixed(2)}× | ${ms[2]} ms | ${(times[1] / times[2]).toFixed(2)}× |`);
  }
} finally {
  await browser.close();
  server.close();
}

/** In the page: each variant's median GPU time in ms over `runs` dispatches, interleaved. */
async function measure({ kernel, variants, runs }) {
  const adapter = await navigator.gpu.requestAdapter();
  const features = ['timestamp-query', 'subgroups'].filter((f) => adapter.features.has(f));
  const device = await adapter.requestDevice({ requiredFeatures: features });
  const { STORAGE, UNIFORM, COPY_DST, QUERY_RESOLVE, COPY_SRC, MAP_READ } = GPUBufferUsage;
  const words = new ArrayBuffer(16);
  kernel.uniforms.forEach(([type, value], i) => {
    if (type === 'f32') new Float32Array(words)[i] = value;
    else new Int32Array(words)[i] = value;
  });
  const uniforms = device.createBuffer({ size: 16, usage: UNIFORM | COPY_DST });
  device.queue.writeBuffer(uniforms, 0, words);
  const tensors = kernel.tensors.map((size) => device.createBuffer({ size, usage: STORAGE | COPY_DST }));
  const guard = device.createBuffer({ size: 4, usage: STORAGE });
  const querySet = device.createQuerySet({ type: 'timestamp', count: 2 });
  const resolved = device.createBuffer({ size: 16, usage: QUERY_RESOLVE | COPY_SRC });
  const read = device.createBuffer({ size: 16, usage: COPY_DST | MAP_READ });
  const pipelines = [];
  for (const code of variants) {
    const module = device.createShaderModule({ code });
    const info = await module.getCompilationInfo();
    const errors = info.messages.filter((m) => m.type === 'error');
    if (errors.length) throw new Error(errors.map((m) => m.message).join('\n'));
    const entryPoint = /@compute[^]*?fn (\w+)/.exec(code)[1];
    const pipeline = await device.createComputePipelineAsync({ layout: 'auto', compute: { module, entryPoint } });
    const entries = [];
    for (const [, binding, space] of code.matchAll(/@binding\((\d+)\)\s*var<(\w+)/g)) {
      const b = Number(binding);
      const resource = space === 'uniform' ? uniforms : (tensors[b] ?? guard);
      entries.push({ binding: b, resource: { buffer: resource } });
    }
    pipelines.push({ pipeline, group: device.createBindGroup({ layout: pipeline.getBindGroupLayout(0), entries }) });
  }
  const samples = variants.map(() => []);
  for (let run = 0; run < runs + 1; run++) {
    for (const [k, { pipeline, group }] of pipelines.entries()) {
      const encoder = device.createCommandEncoder();
      const pass = encoder.beginComputePass({ timestampWrites: { querySet, beginningOfPassWriteIndex: 0, endOfPassWriteIndex: 1 } });
      pass.setPipeline(pipeline);
      pass.setBindGroup(0, group);
      pass.dispatchWorkgroups(kernel.grid[0], kernel.grid[1]);
      pass.end();
      encoder.resolveQuerySet(querySet, 0, 2, resolved, 0);
      encoder.copyBufferToBuffer(resolved, 0, read, 0, 16);
      device.queue.submit([encoder.finish()]);
      await read.mapAsync(GPUMapMode.READ);
      const [start, end] = new BigUint64Array(read.getMappedRange());
      read.unmap();
      // The first round warms each pipeline up.
      if (run > 0) samples[k].push(Number(end - start) / 1e6);
    }
  }
  device.destroy();
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  return samples.map(median);
}
