// Keystroke to screen in the playground, in Debian's Chromium (BENCHMARKS.md): with the PTX tab
// open, type a character that breaks the kernel and time until the diagnostic is listed and the
// PTX panel says it is blocked; then the character that fixes it, until the PTX is back (DOM
// updated, before paint).
// The playground waits 10 ms after the last keystroke before compiling (so a burst of typing
// compiles once); the figures include that wait and report it separately.
//   node scripts/bench-keystroke.mjs   (after `make site`)
import { open, median } from './site.mjs';

const site = await open(4177);
const { browser, base } = site;
try {
  const page = await browser.newPage();
  await page.goto(`${base}/play?example=tiled_matmul`);
  await page.getByTestId('tab-PTX').click();
  await page.getByTestId('listing').waitFor();
  const times = await page.evaluate(async () => {
    const editor = document.querySelector('.cm-editor');
    const original = editor.tesseraDoc();
    // Resolves as soon as the DOM satisfies `test`: a MutationObserver sees each change as it
    // is made, before the browser paints it.
    const until = (test) => new Promise((resolve) => {
      const observer = new MutationObserver(() => {
        if (test()) { observer.disconnect(); resolve(); }
      });
      observer.observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true });
    });
    // One keystroke's edit through CodeMirror: ` +` typed after `ctx.block.y * 32` breaks the
    // kernel, and taking it back fixes it.
    const at = original.indexOf('ctx.block.y * 32') + 'ctx.block.y * 32'.length;
    const type = (text) =>
      text === original ? editor.tesseraEdit(at, at + 2, '') : editor.tesseraEdit(at, at, ' +');
    // Keystrokes come frames apart: let the page paint what the last one changed, as a reader's
    // typing does, so its layout is not counted against the next.
    const painted = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    const broken = [], fixed = [];
    for (let i = 0; i < 15; i++) {
      await painted();
      const t0 = performance.now();
      type(original.replace('ctx.block.y * 32', 'ctx.block.y * 32 +'));
      await until(() => document.querySelector('[data-testid=diagnostic]') && document.querySelector('.listing-blocked'));
      broken.push(performance.now() - t0);
      await painted();
      const t1 = performance.now();
      type(original);
      await until(() => !document.querySelector('[data-testid=diagnostic]') && document.querySelector('[data-testid=listing]'));
      fixed.push(performance.now() - t1);
    }
    return { broken, fixed };
  });
  console.log(`tiled_matmul, PTX tab: keystroke to diagnostic on screen: median ${median(times.broken).toFixed(1)} ms (of which 10 ms is the typing pause)`);
  console.log(`tiled_matmul, PTX tab: keystroke to PTX back on screen: median ${median(times.fixed).toFixed(1)} ms (of which 10 ms is the typing pause)`);
} finally {
  await site.close();
}
