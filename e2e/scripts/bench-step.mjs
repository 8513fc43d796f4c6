// One step of the stepper, in Debian's Chromium (BENCHMARKS.md): a 256-thread CTA with ten live
// variables, opened on warp 7 from a link; ArrowRight and ArrowLeft pressed in turn, timed from
// the key event to the step's DOM updated (every effect run), the work of the move (that, and
// the next frame's work up to layout: the editor's mark and laying the page out), and the time to
// that frame laid out, the wait for the frame included.
//   node scripts/bench-step.mjs   (after `make site`; STYLE='css' adds a style sheet to try)
import { readFileSync } from 'node:fs';
import { open, median, worst } from './site.mjs';

// The trace benchmark's kernel (compiler-core/benches/simulator.rs).
const KERNEL = readFileSync('../compiler-core/benches/ten_variables.tsr', 'utf8');
const session = {
  source: KERNEL,
  launch: { grid: { x: 1, y: 1, z: 1 }, dims: { N: 256 }, inputs: { X: { rand: 1 } } },
  stepping: { block: { x: 0, y: 0, z: 0 }, warp: 7, step: 0 },
};
const link = `/play#v2j.${Buffer.from(JSON.stringify(session)).toString('base64url')}`;

const site = await open(4178);
const { browser, base } = site;
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await page.goto(`${base}${link}`);
  await page.getByTestId('lane-values').waitFor();
  if (process.env.STYLE) await page.addStyleTag({ content: process.env.STYLE });
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
    // Leptos runs effects as microtasks: a message's task runs after all of them.
    const drained = () => new Promise((r) => { const c = new MessageChannel(); c.port1.onmessage = () => r(); c.port2.postMessage(0); });
    const frame = () => new Promise((r) => requestAnimationFrame(() => r(performance.now())));
    // One move: the key's own work (handler and effects), then the next frame's work before
    // paint (the editor's mark and the layout), without the wait for the frame between them.
    const move = async (key, to) => {
      await frame();
      await frame();
      let frameStart = Infinity;
      requestAnimationFrame(() => { frameStart = performance.now(); });
      const t0 = performance.now();
      button.dispatchEvent(new KeyboardEvent('keydown', { key, bubbles: true }));
      await until(() => position.textContent.startsWith(`Step ${to} of`));
      await drained();
      const updated = performance.now();
      const laidOut = await new Promise((r) => requestAnimationFrame(() => { void document.body.offsetHeight; r(performance.now()); }));
      return { dom: updated - t0, work: updated - t0 + laidOut - Math.max(frameStart, updated), frame: laidOut - t0 };
    };
    const moves = [];
    // Forward two, back one: the walk moves on through the kernel.
    for (let i = 0; i < 30; i++) {
      moves.push(await move('ArrowRight', 2 + i));
      moves.push(await move('ArrowRight', 3 + i));
      moves.push(await move('ArrowLeft', 2 + i));
    }
    return { dom: moves.map((m) => m.dom), work: moves.map((m) => m.work), frame: moves.map((m) => m.frame) };
  });
  console.log(`stepper, 256-thread CTA, warp 7, ${columns - 3} variables, ${steps}: ${times.dom.length} moves`);
  const line = (what, xs) => console.log(`  ${what}: median ${median(xs).toFixed(1)} ms, worst ${worst(xs).toFixed(1)} ms, over 16 ms: ${xs.filter((x) => x > 16).length}`);
  line('key to DOM updated (handler and effects)', times.dom);
  line('work for the step (that, and the next frame up to layout)', times.work);
  line('key to the next frame laid out (with the wait for it)', times.frame);
} finally {
  await site.close();
}
