// One step of the stepper, in Debian's Chromium (BENCHMARKS.md): a 256-thread CTA with ten live
// variables, opened on warp 7 from a link; ArrowRight and ArrowLeft pressed in turn, timed from
// the key event to the step's DOM updated (before paint), and to its layout done as well.
//   node scripts/bench-step.mjs   (after `make site`)
import { chromium } from '@playwright/test';
import { spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';

const KERNEL = `@launch(256)
kernel ten(X: tensor<f32>[N], Y: tensor<f32>[N]) {
  let i = ctx.block.x * ctx.threads + ctx.thread
  var a = X[i]
  var b = a * 2.0
  var c = b - a
  var d = c * c
  var e = d + 1.0
  var f = e * 0.5
  var g = f - d
  var h = g + a
  for k in range(0, 40) {
    if (ctx.lane + k) % 3 == 0 {
      a = a + b
      b = b * 0.5
    } else {
      c = c + d
      d = d * 0.25
    }
    e = e + f
    f = f - g
    g = g * h
    h = h + 1.0
  }
  Y[i] = a + b + c + d + e + f + g + h
}
`;
const session = {
  source: KERNEL,
  launch: { grid: { x: 1, y: 1, z: 1 }, dims: { N: 256 }, inputs: { X: { rand: 1 } } },
  stepping: { block: { x: 0, y: 0, z: 0 }, warp: 7, step: 0 },
};
const link = `/play#v2j.${Buffer.from(JSON.stringify(session)).toString('base64url')}`;

const port = 4178;
const server = spawn('node_modules/.bin/sirv', ['../dist', '--single', '--host', '127.0.0.1', '--port', String(port)], { stdio: 'ignore' });
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
});
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const worst = (xs) => Math.max(...xs);
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  for (let attempt = 0; ; attempt++) {
    try { await page.goto(`http://127.0.0.1:${port}${link}`); break; } catch (e) { if (attempt > 50) throw e; await sleep(100); }
  }
  await page.getByTestId('lane-values').waitFor();
  const columns = await page.locator('[data-testid=lane-values] thead th').count();
  const steps = await page.getByTestId('step-position').textContent();
  const times = await page.evaluate(async () => {
    const position = document.querySelector('[data-testid=step-position]');
    const button = document.querySelector('[data-testid=step-forward]');
    button.focus();
    const until = (test) => new Promise((resolve) => {
      if (test()) return resolve();
      const observer = new MutationObserver(() => { if (test()) { observer.disconnect(); resolve(); } });
      observer.observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true });
    });
    const painted = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    const dom = [], layout = [];
    for (let i = 0; i < 60; i++) {
      await painted();
      const key = i % 2 === 0 ? 'ArrowRight' : 'ArrowLeft';
      const want = `Step ${i % 2 === 0 ? 2 + (i >> 1) : 1 + (i >> 1)} of`;
      // Forward two, back one: the walk moves on through the kernel.
      const t0 = performance.now();
      button.dispatchEvent(new KeyboardEvent('keydown', { key, bubbles: true }));
      if (i % 2 === 1) {
        await until(() => position.textContent.startsWith(want));
        dom.push(performance.now() - t0);
        void document.body.offsetHeight;
        layout.push(performance.now() - t0);
        await painted();
        const t1 = performance.now();
        button.dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowRight', bubbles: true }));
        await until(() => position.textContent.startsWith(`Step ${2 + (i >> 1)} of`));
        dom.push(performance.now() - t1);
        void document.body.offsetHeight;
        layout.push(performance.now() - t1);
      } else {
        await until(() => position.textContent.startsWith(want));
        dom.push(performance.now() - t0);
        void document.body.offsetHeight;
        layout.push(performance.now() - t0);
      }
    }
    return { dom, layout };
  });
  console.log(`stepper, 256-thread CTA, warp 7, ${columns - 3} variables, ${steps}: ${times.dom.length} moves`);
  console.log(`  key to DOM updated: median ${median(times.dom).toFixed(1)} ms, worst ${worst(times.dom).toFixed(1)} ms`);
  console.log(`  key to layout done: median ${median(times.layout).toFixed(1)} ms, worst ${worst(times.layout).toFixed(1)} ms`);
} finally {
  await browser.close();
  server.kill();
}
