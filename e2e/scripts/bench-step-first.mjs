// One step of the stepper, in Debian's Chromium (BENCHMARKS.md): a 256-thread CTA with ten live
// variables, opened on warp 7 from a link; ArrowRight and ArrowLeft pressed in turn, timed from
// the key event to the step's DOM updated (every effect run), the work of the move (that, and
// the next frame's work up to layout: the editor's mark and laying the page out; and, second, up
// to that frame painted), and the time to that frame laid out, the wait for the frame included.
// Each key is dispatched from a task of its own, as the browser delivers a key press.
// The key-to-DOM time includes the wait for the simulator's worker, which makes each step off the
// page's thread; so with BUSY=1, a trace of the browser (Chromium's own tracing, which slows the
// page by a few milliseconds a move) gives the main thread's busy time in each move (its tasks
// between the key and the frame painted) and the worker's. TRACE=FILE keeps the trace.
//   node scripts/bench-step.mjs   (after `make site`; STYLE='css' adds a style sheet to try,
//   SETTLE=MS waits after the page opens, START=N opens on step N (from 0) instead of the first)
import { readFileSync } from 'node:fs';
import { open, median, worst } from './site.mjs';

// The trace benchmark's kernel (compiler-core/benches/simulator.rs).
const KERNEL = readFileSync('../compiler-core/benches/ten_variables.tsr', 'utf8');
// The step the link opens on, from 0 (START=N: another part of the kernel).
const START = Number(process.env.START ?? 0);
const session = {
  source: KERNEL,
  launch: { grid: { x: 1, y: 1, z: 1 }, dims: { N: 256 }, inputs: { X: { rand: 1 } } },
  stepping: { block: { x: 0, y: 0, z: 0 }, warp: 7, step: START },
};
const link = `/play#v2j.${Buffer.from(JSON.stringify(session)).toString('base64url')}`;

const site = await open(4178);
const { browser, base } = site;
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 }, serviceWorkers: process.env.SW ? 'allow' : 'block' });
  await page.goto(`${base}${link}`);
  await page.getByTestId('lane-values').waitFor();
  if (process.env.SETTLE) await page.waitForTimeout(Number(process.env.SETTLE));
  if (process.env.STYLE) await page.addStyleTag({ content: process.env.STYLE });
  const columns = await page.locator('[data-testid=lane-values] thead th').count();
  const steps = await page.getByTestId('step-position').textContent();
  const tracing = process.env.BUSY || process.env.TRACE;
  if (tracing) await browser.startTracing(page, { categories: (process.env.CATEGORIES ?? 'devtools.timeline,disabled-by-default-devtools.timeline,blink.user_timing').split(',') });
  const times = await page.evaluate(async ([inFrame, start]) => {
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
    const task = () => new Promise((r) => setTimeout(r, 0));
    const move = async (key, to) => {
      await frame();
      await frame();
      // A key press reaches the page as a task of its own, between frames (Chromium aligns only
      // continuous input, such as mouse moves, to the frame). Dispatched inside the frame's
      // callbacks instead (IN_FRAME=1, how this script measured before 2026-12-04), the step's
      // changes were drawn in that frame and the editor's mark in the next: two frames'
      // layout and paint in one move, which a reader's key never costs.
      if (!inFrame) await task();
      let frameStart = Infinity;
      requestAnimationFrame(() => { frameStart = performance.now(); });
      performance.mark('move-start');
      const t0 = performance.now();
      button.dispatchEvent(new KeyboardEvent('keydown', { key, bubbles: true }));
      await until(() => position.textContent.startsWith(`Step ${to} of`));
      await drained();
      const updated = performance.now();
      const laidOut = await new Promise((r) => requestAnimationFrame(() => { void document.body.offsetHeight; r(performance.now()); }));
      // A task queued in the frame runs once the frame is painted and committed.
      await drained();
      const painted = performance.now();
      performance.mark('move-end');
      const frameWork = (end) => updated - t0 + end - Math.max(frameStart, updated);
      return { dom: updated - t0, work: frameWork(laidOut), painted: frameWork(painted), frame: laidOut - t0 };
    };
    const moves = [];
    // Forward two, back one: the walk moves on through the kernel.
    for (let i = 0; i < 30; i++) {
      moves.push(await move('ArrowRight', start + 2 + i));
      moves.push(await move('ArrowRight', start + 3 + i));
      moves.push(await move('ArrowLeft', start + 2 + i));
    }
    return { dom: moves.map((m) => m.dom), work: moves.map((m) => m.work), painted: moves.map((m) => m.painted), frame: moves.map((m) => m.frame) };
  }, [Boolean(process.env.IN_FRAME), START]);
  const trace = tracing && JSON.parse((await browser.stopTracing()).toString());
  if (process.env.TRACE) (await import('node:fs')).writeFileSync(process.env.TRACE, JSON.stringify(trace));
  console.log(`stepper, 256-thread CTA, warp 7, ${columns - 3} variables, ${steps}: ${times.dom.length} moves`);
  const line = (what, xs) => console.log(`  ${what}: median ${median(xs).toFixed(1)} ms, worst ${worst(xs).toFixed(1)} ms, over 16 ms: ${xs.filter((x) => x > 16).length}`);
  line('key to DOM updated (handler and effects)', times.dom);
  line('work for the step (that, and the next frame up to layout)', times.work);
  line('work for the step, the frame painted (that, to the task after the frame)', times.painted);
  line('key to the next frame laid out (with the wait for it)', times.frame);
  const over = (xs) => xs.map((w, i) => [i, w]).filter(([, w]) => w > 16).map(([i, w]) => `#${i} ${w.toFixed(1)} ms`).join(', ');
  console.log("  first moves work: " + times.work.slice(0,4).map(x=>x.toFixed(1)).join(" ") + " painted: " + times.painted.slice(0,4).map(x=>x.toFixed(1)).join(" "));
  console.log(`  moves whose work for the step passed 16 ms (from 0): ${over(times.work)}`);
  console.log(`  moves whose work to the frame painted passed 16 ms: ${over(times.painted)}`);
  if (trace) {
    const { main, worker } = busyPerMove(trace);
    line("traced: the page's main thread busy (its tasks in the move)", main);
    line("traced: the simulator's worker busy (its tasks in the move)", worker);
  }
} finally {
  await site.close();
}

// Per move (between the marks 'move-start' and 'move-end'), the time each of the page's main
// thread and its dedicated worker spent in tasks, from a trace's top-level task events.
function busyPerMove(trace) {
  const events = trace.traceEvents ?? trace;
  const threadNamed = (name) => events.find((e) => e.ph === 'M' && e.name === 'thread_name' && e.args.name === name);
  const main = threadNamed('CrRendererMain');
  const worker = threadNamed('DedicatedWorker thread');
  const marks = (name) => events.filter((e) => e.name === name && e.tid === main.tid).map((e) => e.ts).sort((a, b) => a - b);
  const starts = marks('move-start');
  const ends = marks('move-end');
  const tasks = (thread) => events.filter((e) => thread && e.tid === thread.tid && e.pid === thread.pid && e.ph === 'X' && e.name === 'RunTask');
  const busy = (thread) => starts.map((start, i) => tasks(thread)
    .map((t) => Math.min(t.ts + t.dur, ends[i]) - Math.max(t.ts, start))
    .filter((overlap) => overlap > 0)
    .reduce((a, b) => a + b, 0) / 1000);
  return { main: busy(main), worker: busy(worker) };
}
