import { test, expect } from '../fixtures/pages';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const examples = join(__dirname, '../../examples');
const vectorAdd = readFileSync(join(examples, 'vector_add.tsr'), 'utf8');

test('a mistake is underlined and listed at its line and column, and fixing it clears it', async ({ play, page, consoleErrors }) => {
  await play.open('?example=vector_add');
  await expect(page.getByTestId('diagnostics-ok')).toBeVisible();
  await play.editor.fill(vectorAdd.replace('ctx.threads + ctx.thread', 'ctx.threads + ctx.thred'));
  await expect(play.diagnostics).toHaveCount(1);
  const diagnostic = play.diagnostics.first();
  await expect(diagnostic.getByRole('link', { name: 'E0112' })).toHaveAttribute('href', '/docs/errors#E0112');
  await expect(diagnostic.getByTestId('where')).toHaveText('4:43');
  await expect(diagnostic).toContainText('ctx has no field `thred`');
  await expect(diagnostic).toContainText('help: the fields are ctx.blocks');
  // The highlight layer underlines exactly the span, and the caret on it shows the message.
  await expect(page.locator('.editor .cm-lintRange-error')).toHaveText('thred');
  const at = vectorAdd.indexOf('ctx.thread\n') + 5;
  await play.caret(at);
  await play.editor.press('ArrowRight');
  await expect(page.getByTestId('hover-info')).toHaveText('E0112: ctx has no field `thred`');
  await play.editor.fill(vectorAdd);
  await expect(play.diagnostics).toHaveCount(0);
  await expect(page.getByTestId('diagnostics-ok')).toBeVisible();
  expect(consoleErrors).toEqual([]);
});

test('hovering a name shows its type and uniformity', async ({ play, page }) => {
  await play.open('?example=vector_add');
  // Put the caret on `i` in `let i = …` (line 4, after "  let ").
  const offset = vectorAdd.indexOf('let i') + 4;
  await play.caret(offset);
  await play.editor.press('ArrowRight');
  await play.editor.press('ArrowLeft');
  await expect(page.getByTestId('hover-info')).toHaveText(/^i: i32 · varying/);
});

test('Tab indents and Ctrl+Enter runs', async ({ play, page }) => {
  await play.open('?example=vector_add');
  await play.caret(0);
  await page.keyboard.press('Tab');
  await play.expectSource('  ' + vectorAdd);
  await page.keyboard.press('Control+z');
  await play.expectSource(vectorAdd);
  await page.keyboard.press('Control+Enter');
  await expect(play.simStatus).toContainText('Simulator:');
});

test('a run on the simulator shows the values the kernel wrote', async ({ play, page }) => {
  await play.open('?example=vector_add');
  await page.getByTestId('input-A').selectOption('ones');
  await page.getByTestId('input-B').selectOption('iota');
  await play.setField('dim-N', '20');
  await play.run();
  await expect(play.simStatus).toContainText('Simulator:');
  const c = page.getByTestId('result-C');
  await expect(c).toContainText('C');
  await expect(c).toContainText('20');
  // C[i] = 1 + i for the first row of sixteen.
  const cells = c.locator('td');
  await expect(cells.nth(0)).toHaveText('1');
  await expect(cells.nth(5)).toHaveText('6');
  await expect(cells.nth(15)).toHaveText('16');
});

test('a runaway kernel stops at the step limit with an explanation', async ({ play, page }) => {
  await play.open('?example=vector_add');
  await play.editor.fill(vectorAdd.replace('C[i] = A[i] + B[i]', 'while true {\n      C[i] = A[i] + B[i]\n    }'));
  await expect(page.getByTestId('diagnostics-ok')).toBeVisible();
  await play.run();
  await expect(page.getByTestId('run-status')).toContainText('The simulator stopped the run', { timeout: 20_000 });
  await expect(page.getByTestId('run-fault')).toContainText('E0514');
  // The run's fault is listed with the problems too, at its line, as the last run's: the
  // source itself has none.
  await expect(page.getByTestId('problem-run-fault')).toContainText('the last run stopped here');
  await expect(page.getByTestId('problem-run-fault')).toContainText('E0514');
  await expect(page.getByTestId('diagnostic')).toHaveCount(0);
});

test('a share link restores the source and the launch in a new page', async ({ play, page, context }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  await play.open('?example=saxpy');
  await play.editor.fill(readFileSync(join(examples, 'saxpy.tsr'), 'utf8') + '\n// shared\n');
  await play.setField('grid-x', '7');
  await play.setField('scalar-alpha', '1.5');
  await page.getByTestId('copy-link').click();
  await expect(page.getByTestId('share-status')).toContainText('Link copied');
  const url = page.url();
  expect(url).toMatch(/\/play#v2\.[A-Za-z0-9_-]+$/);
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  expect(copied).toBe(url);
  const other = await context.newPage();
  await other.goto(url);
  await expect.poll(() => other.locator('.cm-editor').evaluate((el: any) => el.tesseraDoc())).toMatch(/\/\/ shared\n$/);
  await expect(other.getByTestId('grid-x')).toHaveValue('7');
  await expect(other.getByTestId('scalar-alpha')).toHaveValue('1.5');
});

// A number field's browser check once refused any fraction (step 1), and with it the form's
// Run, without a word: a float scalar takes any number.
test('a fractional scalar, typed in, runs', async ({ play, page }) => {
  await play.open('?example=saxpy');
  await play.setField('scalar-alpha', '0.125');
  await expect(page.getByTestId('scalar-alpha')).toHaveAttribute('step', 'any');
  await expect(page.getByTestId('scalar-alpha')).toHaveAttribute('inputmode', 'decimal');
  await expect(page.getByTestId('grid-x')).toHaveAttribute('inputmode', 'numeric');
  await play.run();
  await expect(play.simStatus).toContainText('Simulator:');
});

test('a damaged link says so and opens the default example', async ({ play, page }) => {
  await page.goto('/play#v1.AAAAthis-is-not-a-session');
  await expect(page.getByTestId('notice')).toContainText('the link is damaged');
  await expect(page.getByTestId('notice')).toContainText('The default example is open instead');
  await play.expectSource(/kernel mv/);
  // A link pasted into the same tab is opened too.
  await page.evaluate(() => { location.hash = 'v7.abc'; });
  await expect(page.getByTestId('notice')).toContainText('made by a newer Tessera');
});

test('the last state survives a reload', async ({ play, page }) => {
  await play.open('?example=dot');
  await play.editor.fill('// kept\n' + readFileSync(join(examples, 'dot.tsr'), 'utf8'));
  await page.waitForTimeout(200);
  await page.goto('/play');
  await play.expectSource(/^\/\/ kept\n/);
});

test('the PTX downloads as KERNEL.ptx, and its lines link to the source', async ({ play, page }) => {
  await play.open('?example=matvec');
  await play.tab('PTX').click();
  await page.getByTestId('arch').selectOption('sm_90');
  const listing = page.getByTestId('listing');
  await expect(listing).toContainText('.target sm_90');
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('download').click()]);
  expect(download.suggestedFilename()).toBe('mv.ptx');
  const text = readFileSync(await download.path(), 'utf8');
  expect(text).toContain('.visible .entry mv(');
  expect(text).toContain('.version 7.8');
  expect(text).toContain('// 9: acc += W[col, k] * A[0, k]');
  // An output line marks its source span in the editor.
  await listing.locator('.listing-line', { hasText: 'ld.global.f32' }).first().hover();
  await expect.poll(async () => (await page.locator('.editor .linked').allTextContents()).join('')).toBe('W[col, k]');
  // And the pointer on a source line marks the output lines it produced.
  const w = page.locator('.cm-content .tok-name', { hasText: /^W$/ }).nth(1);
  const box = await w.boundingBox();
  await page.mouse.move((box?.x ?? 0) + 3, (box?.y ?? 0) + (box?.height ?? 0) / 2);
  await expect(listing.locator('.listing-line.linked', { hasText: 'ld.global.f32 %f2' })).toHaveCount(1);
  await expect(listing.locator('.listing-line.linked', { hasText: 'shfl.sync' })).toHaveCount(0);
});

test('WGSL and IR tabs show their listings', async ({ play, page }) => {
  await play.open('?example=warp_reduce');
  await play.tab('WGSL').click();
  await expect(page.getByTestId('listing')).toContainText('@compute @workgroup_size(');
  await expect(page.getByTestId('listing')).toContainText('emulated-warp mode');
  await page.getByTestId('wgsl-mode').selectOption('subgroups');
  await expect(page.getByTestId('listing')).toContainText('enable subgroups;');
  await expect(page.getByTestId('listing')).toContainText('subgroupAdd');
  await play.tab('IR').click();
  await expect(page.getByTestId('listing')).toContainText('kernel warp_reduce');
});

for (const [name, viewport] of [
  ['desktop', { width: 1280, height: 800 }],
  ['phone', { width: 390, height: 800 }],
] as const) {
  test(`the playground at ${name} width`, async ({ play, page }, info) => {
    await page.setViewportSize(viewport);
    await play.open('?example=matvec');
    await play.run();
    await play.gpuOutcome();
    await page.screenshot({ path: info.outputPath(`play-${name}.png`), fullPage: true });
    // Nothing spills sideways.
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
  });
}

test('the launch in the diagram: a lane shows what its thread wrote', async ({ play, page }) => {
  await play.open('?example=vector_add');
  await page.getByTestId('input-A').selectOption('ones');
  await page.getByTestId('input-B').selectOption('iota');
  await play.run();
  await expect(play.simStatus).toContainText('Simulator:');
  const diagram = await play.diagram();
  await expect(diagram.getByRole('option')).toHaveCount(4);
  await diagram.getByRole('option', { name: 'CTA (1, 0)' }).click();
  await diagram.getByRole('option', { name: 'Warp 0, threads 0–31' }).click();
  await diagram.getByRole('option', { name: 'Lane 5, thread 5' }).click();
  await expect(diagram.getByTestId('readout-sentence')).toHaveText('block 1, warp 0, lane 5, thread 5');
  await expect(page.getByTestId('thread-writes')).toContainText('thread 5 of block (1, 0) wrote 1 element');
  await expect(page.getByTestId('thread-writes')).toContainText('C[261] = 262');
});

test('a long one-dimensional grid is drawn in rows of 16, and its last CTA can be picked', async ({ play, page }) => {
  await play.open('?example=vector_add');
  await play.setField('grid-x', '40');
  const diagram = await play.diagram();
  await expect(diagram.getByRole('option')).toHaveCount(40);
  await expect(page.getByTestId('launch-diagram-error')).toHaveCount(0);
  const first = await diagram.getByRole('option', { name: 'CTA (0, 0)' }).boundingBox();
  const wrapped = await diagram.getByRole('option', { name: 'CTA (16, 0)' }).boundingBox();
  // CTA 16 starts the second row, under CTA 0.
  expect(Math.abs((wrapped?.x ?? 0) - (first?.x ?? 1))).toBeLessThan(2);
  expect(wrapped?.y ?? 0).toBeGreaterThan((first?.y ?? 0) + (first?.height ?? 0) - 1);
  await diagram.getByRole('option', { name: 'CTA (39, 0)' }).click();
  await expect(diagram.getByTestId('breadcrumb')).toContainText('CTA (39, 0)');
});

test('what a number field cannot take is said under it, and the launch keeps its value', async ({ play, page }) => {
  await play.open('?example=vector_add');
  const grid = page.getByTestId('grid-x');
  const before = await grid.inputValue();
  await play.setField('grid-x', '2.5');
  await expect(page.getByTestId('problem-grid-x')).toHaveText('2.5 is not a whole number');
  await expect(grid).toHaveAttribute('aria-invalid', 'true');
  await expect(grid).toHaveAttribute('aria-describedby', /problem-grid-x/);
  // Run does not run the old value the field no longer shows.
  await play.run();
  await expect(page.getByTestId('run-blocked')).toHaveText(
    'The launch form holds what it cannot take: grid.x: 2.5 is not a whole number (marked at its field).',
  );
  // A whole number clears it and is taken.
  await play.setField('grid-x', '3');
  await expect(page.getByTestId('problem-grid-x')).toHaveCount(0);
  await expect(grid).toHaveAttribute('aria-invalid', 'false');
  expect(before).not.toBe('3');
  // The step limit, a field with a note, says it too.
  await play.setField('step-limit', '1e3');
  await expect(page.getByTestId('problem-step-limit')).toHaveText('1e3 is not a whole number');
  await play.setField('step-limit', '');
  await expect(page.getByTestId('problem-step-limit')).toHaveCount(0);
  // A negative count, and an empty field with no default, are refused the same way.
  await play.setField('grid-x', '-2');
  await expect(page.getByTestId('problem-grid-x')).toHaveText('-2 is negative: this field takes 0 to 4294967295');
  await play.setField('grid-x', '');
  await expect(page.getByTestId('problem-grid-x')).toHaveText('a number is needed here');
  await play.run();
  await expect(page.getByTestId('run-blocked')).toContainText('grid.x: a number is needed here');
});

test('a launch too large for the page is refused before anything is allocated', async ({ play, page }) => {
  await play.open('?example=vector_add');
  await play.setField('dim-N', '20000000');
  const size = page.getByTestId('problem-size');
  await expect(size).toContainText('the tensors would hold 60000000 elements together; a run in the page holds at most 16777216');
  await expect(size).toContainText('tessera run');
  await play.run();
  await expect(page.getByTestId('run-blocked')).toContainText('The launch does not fit the kernel: the tensors would hold 60000000 elements together');
  await expect(page.getByTestId('diagnostics-ok')).toBeVisible();
});

test('a kernel under @cluster shows which node ran which super-tile, and the GPU agrees', async ({ play, page }) => {
  await play.open('?example=cluster_scale');
  await expect(page.getByTestId('nodes')).toHaveValue('3');
  await play.run();
  const status = page.getByTestId('cluster-status');
  await expect(status).toContainText('@cluster: 4 super-tiles of N on 3 nodes');
  await expect(status).toContainText('Node 0: 0 (N 0..256), 3 (N 768..1000).');
  await expect(status).toContainText('Node 2: 2 (N 512..768).');
  // The GPU runs one launch per super-tile too (where this browser has WebGPU).
  const outcome = await play.gpuOutcome();
  if (!outcome.includes('not run')) {
    await expect(play.verdicts.first()).toHaveText(/^GPU = simulator/);
  }
  await play.setField('nodes', '5');
  await play.run();
  await expect(status).toContainText('on 5 nodes');
  await expect(status).toContainText('Node 4: none.');
});

// Issue 51: an f32 atomic sum whose terms have both signs depends on the order of its additions;
// the Run panel says so beside the results, and says nothing for terms of one sign.
test('a float atomic sum whose order shows says so in the Run panel', async ({ play, page }) => {
  await play.open('?example=saxpy');
  await play.paste('@launch(64)\nkernel total(X: tensor<f32>[N], Out: tensor<f32>[1]) {\n  let i = ctx.block.x * ctx.threads + ctx.thread\n  if i < N {\n    atomic_add(Out[0], X[i])\n  }\n}\n');
  await play.run();
  await expect(play.simStatus).toContainText('Simulator:');
  await expect(page.getByTestId('order-note')).toContainText('its sum depends on the order of the additions');
  await play.paste('@launch(64)\nkernel total(X: tensor<f32>[N], Out: tensor<f32>[1]) {\n  let i = ctx.block.x * ctx.threads + ctx.thread\n  if i < N {\n    atomic_add(Out[0], abs(X[i]) * 0.0 + 1.0)\n  }\n}\n');
  await play.run();
  await expect(play.simStatus).toContainText('Simulator:');
  await expect(page.getByTestId('order-note')).toHaveCount(0);
});

// A field was once rebuilt as the focus left another one (every edit refitted the kernel): a
// click from a dimension straight into a seed lost the focus and the typing with it.
test('real clicks at typing speed: every keystroke is kept, and the link carries it', async ({ play, page, context }) => {
  await play.open('?example=matvec');
  const typeInto = async (id: string, text: string) => {
    // A real click, a triple one to select what the field holds, then typing.
    await page.getByTestId(id).click({ clickCount: 3 });
    await page.keyboard.type(text, { delay: 40 });
  };
  await typeInto('dim-N', '40');
  await typeInto('seed-A', '42');
  await expect(page.getByTestId('seed-A')).toBeFocused();
  await typeInto('dim-K', '96');
  await typeInto('seed-W', '7');
  await typeInto('grid-x', '3');
  await typeInto('grid-y', '1');
  await page.keyboard.press('Tab');
  for (const [id, value] of [['dim-N', '40'], ['seed-A', '42'], ['dim-K', '96'], ['seed-W', '7'], ['grid-x', '3'], ['grid-y', '1']]) {
    await expect(page.getByTestId(id)).toHaveValue(value);
  }
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  await page.getByTestId('copy-link').click();
  await expect(page.getByTestId('share-status')).toContainText('Link copied');
  const other = await context.newPage();
  await other.goto(page.url());
  await expect(other.getByTestId('seed-A')).toHaveValue('42');
  await expect(other.getByTestId('seed-W')).toHaveValue('7');
  await expect(other.getByTestId('dim-N')).toHaveValue('40');
  await expect(other.getByTestId('dim-K')).toHaveValue('96');
});

// A result a reader can check: its numbers, its .npy (and every result in one .zip, which
// np.load opens as an .npz), and a verdict against an expected .npy dropped in.
test('each result downloads as .npy, all as one .zip, and checks against an expected .npy', async ({ play, page }) => {
  await play.open('?example=vector_add');
  await play.run();
  await expect(play.simStatus).toContainText('Simulator:');
  const result = page.getByTestId('result-C');
  // vector_add of iota-free random inputs: finite values, no NaN.
  await expect(result.getByTestId('summary')).toHaveText(/^min -?[\d.e-]+ · max -?[\d.e-]+ · sum -?[\d.e-]+ · mean -?[\d.e-]+$/);

  const [download] = await Promise.all([page.waitForEvent('download'), result.getByTestId('download-npy').click()]);
  expect(download.suggestedFilename()).toBe('C.npy');
  const npy = readFileSync((await download.path())!);
  expect(npy.subarray(0, 6).toString('latin1')).toBe('\x93NUMPY');
  const headerLength = npy.readUInt16LE(8);
  const header = npy.subarray(10, 10 + headerLength).toString('latin1');
  expect(header).toContain("'descr': '<f4'");
  const shape = /'shape': \((\d+), ?\)/.exec(header);
  expect(shape).not.toBeNull();
  const n = Number(shape![1]);
  const data = npy.subarray(10 + headerLength);
  expect(data.length).toBe(4 * n);
  // The first value is the table's first cell (shown to four places).
  const first = Number((await result.locator('td').first().textContent()) ?? 'NaN');
  expect(Math.abs(data.readFloatLE(0) - first)).toBeLessThan(1e-4);

  // Go to an element: its page, the element marked.
  if (n > 256) {
    await result.getByTestId('goto').fill('900');
    await result.getByTestId('goto').press('Enter');
    await expect(result.getByTestId('page-info')).toContainText(`Values 768 to ${Math.min(n, 1024) - 1}`);
    await expect(result.locator('td.target')).toHaveAttribute('title', /^\[900\] /);
    // By keyboard too, the element gone to in full (its cell shows four places).
    await expect(result.getByTestId('goto-value')).toHaveText(/^\[900\] = -?\d/);
    await result.getByTestId('goto').fill(String(n));
    await result.getByTestId('goto').press('Enter');
    await expect(result.getByTestId('goto-problem')).toHaveText(`element ${n} is past the end (${n} elements)`);
  }

  const [all] = await Promise.all([page.waitForEvent('download'), page.getByTestId('download-zip').click()]);
  expect(all.suggestedFilename()).toBe('vector_add-results.zip');
  const zip = readFileSync((await all.path())!);
  expect(zip.subarray(0, 4).toString('latin1')).toBe('PK\x03\x04');
  expect(zip.includes(Buffer.from('C.npy'))).toBe(true);
  // Stored, not compressed: C.npy's bytes are in the zip as they are.
  expect(zip.includes(npy)).toBe(true);

  // The same file is the expected result: every element equal.
  const expected = result.getByTestId('expected-npy');
  await expected.setInputFiles({ name: 'C.npy', mimeType: 'application/octet-stream', buffer: npy });
  await expect(result.getByTestId('expected-verdict')).toHaveText('simulator = C.npy · every element equal');
  // One element changed by far more than the tolerance.
  const changed = Buffer.from(npy);
  changed.writeFloatLE(data.readFloatLE(4) + 1, 10 + headerLength + 4);
  await expected.setInputFiles({ name: 'wrong.npy', mimeType: 'application/octet-stream', buffer: changed });
  await expect(result.getByTestId('expected-verdict')).toHaveText(/^simulator ≠ wrong\.npy · largest difference (1\.000e0|9\.99\de-1)$/);
  // Another shape, or not an .npy at all, is said.
  await expected.setInputFiles({ name: 'notes.npy', mimeType: 'text/plain', buffer: Buffer.from('hello') });
  await expect(result.getByTestId('expected-verdict')).toContainText('notes.npy is not an .npy file');
});

// A result in its shape: a rank-3 tensor a slice at a time, its rows 100 wide a window of 64
// columns at a time, row and column numbers as the tensor has them.
const SHAPED = `@launch(128)
kernel shaped(Out: tensor<f32>[2, 6, 100]) {
  let i = ctx.block.x * ctx.threads + ctx.thread
  if i < 1200 {
    Out[i / 600, i / 100 % 6, i % 100] = f32(i)
  }
}
`;

test('a rank-3 result is shown in its shape: slices, rows, windows of columns, and go to', async ({ play, page }) => {
  await play.open('?example=vector_add');
  await play.paste(SHAPED);
  await expect(page.getByTestId('diagnostics-ok')).toBeVisible();
  await play.setField('grid-x', '10');
  await play.run();
  await expect(play.simStatus).toContainText('Simulator:');
  const out = page.getByTestId('result-Out');
  await expect(out.getByTestId('slice-info')).toHaveText('1 of 2 slices: [0, :, :]');
  await expect(out.getByTestId('page-info')).toHaveText('Rows 0 to 3 of 6, page 1 of 2');
  await expect(out.getByTestId('columns-info')).toHaveText('Columns 0 to 63 of 100');
  await expect(out.locator('tbody tr').first().locator('td').first()).toHaveText('0');
  await out.getByTestId('columns-next').click();
  await expect(out.getByTestId('columns-info')).toHaveText('Columns 64 to 99 of 100');
  await expect(out.locator('thead th').nth(1)).toHaveText('64');
  await expect(out.locator('tbody tr').first().locator('td')).toHaveCount(36);
  await out.getByTestId('slice').fill('1');
  await out.getByTestId('slice').press('Enter');
  await expect(out.getByTestId('slice-info')).toHaveText('2 of 2 slices: [1, :, :]');
  await expect(out.locator('tbody tr').first().locator('td').first()).toHaveAttribute('title', /^\[664\] (simulator )?664/);
  await out.getByTestId('goto').fill('0, 5, 99');
  await out.getByTestId('goto').press('Enter');
  await expect(out.getByTestId('slice-info')).toHaveText('1 of 2 slices: [0, :, :]');
  await expect(out.getByTestId('page-info')).toHaveText('Rows 4 to 5 of 6, page 2 of 2');
  await expect(out.locator('td.target')).toHaveAttribute('title', /^\[599\] (simulator )?599/);
  // The cell is scrolled into the table's view, even where its window is wider than the page.
  await page.setViewportSize({ width: 390, height: 844 });
  await out.getByTestId('goto').fill('1, 0, 98');
  await out.getByTestId('goto').press('Enter');
  await expect(out.locator('td.target')).toHaveAttribute('title', /^\[698\] (simulator )?698/);
  await expect(out.locator('td.target')).toBeInViewport();
});

// The form keeps its kernel when a link opens the same source with another launch (the form
// is rebuilt only for a new kernel, and an opened session always gets one).
test('a link to the same kernel with another launch opens with its form', async ({ play, page, context }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  await play.open('?example=vector_add');
  await page.getByTestId('copy-link').click();
  await expect(page.getByTestId('share-status')).toContainText('Link copied');
  const link = new URL(page.url()).hash;
  await play.setField('grid-x', '9');
  await play.setField('dim-N', '77');
  // The address no longer names the link once the launch differs from it.
  await expect(page).not.toHaveURL(/#/);
  await page.evaluate((h) => { location.hash = h; }, link.replace(/^#/, ''));
  await expect(page.getByTestId('grid-x')).toHaveValue('4');
  await expect(page.getByTestId('dim-N')).toHaveValue('1000');
  await expect(page.getByTestId('input-A')).toBeVisible();
});

// Issue 68: a kernel with its own mma opens on a target that builds it; a reader who picks one
// that does not is told what it needs, and occupancy is not shown for it.
test('an mma kernel opens its PTX and occupancy on sm_80; sm_70 says it needs sm_80', async ({ play, page }) => {
  await play.open('?example=mma_gemm');
  await play.tab('Run').click();
  await expect(page.getByTestId('occupancy-summary')).toHaveText(/^Occupancy on sm_80: \d+%/);
  await play.tab('PTX').click();
  await expect(page.getByTestId('arch')).toHaveValue('sm_80');
  await expect(page.getByTestId('listing')).toContainText('mma.sync.aligned.m16n8k16');
  await page.getByTestId('arch').selectOption('sm_70');
  await expect(page.locator('.listing-blocked')).toHaveText(/^Needs sm_80 or later: pick it above\. kernel `\w+` uses mma<over ctx\.lane>, and sm_70 has no m16n8k16 matrix instruction \(E0522\)$/);
  // The reader's pick stands while they edit the kernel.
  await play.paste((await play.source()) + '\n// an edit\n');
  await expect(page.locator('.listing-blocked')).toContainText('Needs sm_80 or later');
  await play.tab('Run').click();
  await expect(page.getByTestId('occupancy-summary')).toHaveText('Occupancy: sm_70 cannot build this kernel (its mma needs sm_80 or later): pick another target');
  await expect(page.getByTestId('occupancy-table')).toHaveCount(0);
});

// Issue 68: small values keep their digits in the cells, and the full value is in the title.
test('a result of 1e-5 reads 1.000e-5, and its title has it in full', async ({ play, page }) => {
  await play.open('?example=saxpy');
  await play.paste('@launch(64)\nkernel tiny(Y: tensor<f32>[N]) {\n  let i = ctx.block.x * 64 + ctx.thread\n  if i < N {\n    Y[i] = 0.00001 * f32(i + 1) + 100000000.0 * f32(i / 3)\n  }\n}\n');
  await expect(play.diagnostics).toHaveCount(0);
  await play.run();
  await expect(play.simStatus).toContainText('Simulator:', { timeout: 20_000 });
  const cells = page.getByTestId('result-Y').locator('td');
  await expect(cells.nth(0)).toHaveText('1.000e-5');
  await expect(cells.nth(0)).toHaveAttribute('title', /^\[0\] (simulator 1e-5, GPU 1e-5|1e-5)$/);
  await expect(cells.nth(3)).toHaveText('1.000e8');
  await expect(cells.nth(3)).toHaveAttribute('title', /^\[3\] (simulator 100000000, GPU 100000000|100000000)$/);
});

// Issue 68: while the source has errors, the launch form says it is the last kernel's.
test('the launch form says it is the last compiled kernel while the source has errors', async ({ play, page }) => {
  await play.open('?example=saxpy');
  await play.tab('Run').click();
  await expect(page.getByTestId('launch-outdated')).toHaveCount(0);
  await play.paste((await play.source()).replace('kernel saxpy', 'kernel saxpy oops'));
  await expect(play.diagnostics.first()).toBeVisible();
  await expect(page.getByTestId('launch-outdated')).toHaveText(/^The source has errors: this is the launch of the last kernel that compiled/);
  await expect(page.locator('form.launch-panel')).toHaveClass(/outdated/);
  await play.paste((await play.source()).replace('kernel saxpy oops', 'kernel saxpy'));
  await expect(page.getByTestId('launch-outdated')).toHaveCount(0);
});
