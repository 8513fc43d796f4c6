// A long run in the playground: the longest main-thread task (PerformanceObserver "longtask")
// and the longest gap between animation frames while the simulator works, and the simulator's
// own time. Before the simulator moved to a Web Worker the whole run was one task on the
// page's thread, as long as the simulator's time.
//   node scripts/bench-long-run.mjs [RUNS]
import { open, median } from './site.mjs';
import { setTimeout as sleep } from 'node:timers/promises';

const SPIN = `@launch(256)
kernel spin(X: tensor<i32>[N], Y: tensor<i32>[N]) {
  let i = ctx.block.x * ctx.threads + ctx.thread
  var v = 0
  for k in range(0, 6000) {
    v = (v * 31 + k) % 1000003
  }
  if i < N {
    Y[i] = v + X[i]
  }
}
`;
const runs = Number(process.argv[2] ?? 3);
// No WebGPU: the measure is the simulator's, not SwiftShader's.
const site = await open(4177, { webgpu: false });
try {
  const page = await site.browser.newPage({ viewport: { width: 1280, height: 800 } });
  await page.goto(`${site.base}/play?example=vector_add`);
  await sleep(1500);
  await page.locator('.cm-editor').evaluate((el, t) => el.tesseraPaste(t), SPIN);
  await sleep(500);
  for (const [id, v] of [['grid-x', '64'], ['dim-N', String(64 * 256)]]) {
    await page.getByTestId(id).fill(v);
    await page.getByTestId(id).press('Tab');
  }
  await page.evaluate(() => {
    const w = window;
    w.longest = 0;
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) w.longest = Math.max(w.longest, e.duration);
    }).observe({ type: 'longtask' });
  });
  // The observer sees a task that is long: a 200 ms busy loop on the page's thread (in a task of
  // the page's own: what the tool evaluates is not counted as one).
  await page.evaluate(() => setTimeout(() => { const end = performance.now() + 200; while (performance.now() < end); }, 0));
  await sleep(500);
  console.log(`probe: a 200 ms busy loop is seen as a ${(await page.evaluate(() => window.longest)).toFixed(0)} ms task`);
  const tasks = [], gaps = [], sims = [];
  for (let r = 0; r < runs; r++) {
    await page.evaluate(() => {
      const w = window;
      w.longest = 0; w.gap = 0; w.measuring = true;
      let last = performance.now();
      const frame = (now) => { w.gap = Math.max(w.gap, now - last); last = now; if (w.measuring) requestAnimationFrame(frame); };
      requestAnimationFrame(frame);
    });
    await page.getByTestId('run').click();
    await page.getByTestId('sim-status').waitFor({ timeout: 60_000 });
    const [task, gap] = await page.evaluate(() => { window.measuring = false; return [window.longest, window.gap]; });
    const text = await page.getByTestId('sim-status').textContent();
    const ms = Number(/([\d.]+) ms/.exec(text ?? '')?.[1]);
    tasks.push(task); gaps.push(gap); sims.push(ms);
    console.log(`run ${r + 1}: simulator ${ms} ms; longest task ${task.toFixed(0)} ms; longest frame gap ${gap.toFixed(0)} ms`);
    await page.reload();
    await sleep(1500);
    await page.evaluate(() => {
      const w = window;
      w.longest = 0;
      new PerformanceObserver((list) => { for (const e of list.getEntries()) w.longest = Math.max(w.longest, e.duration); }).observe({ type: 'longtask' });
    });
  }
  console.log(`median: simulator ${median(sims)} ms, longest task ${median(tasks).toFixed(0)} ms, longest frame gap ${median(gaps).toFixed(0)} ms`);
} finally {
  await site.close();
}
