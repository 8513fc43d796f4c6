// A newcomer's first ten minutes in the playground: their own kernel runs at once, state never
// goes stale, and every problem shows where it belongs (the source's under the editor, the
// launch's beside its field, a run's in the Run panel).
import { test, expect } from '../fixtures/pages';
import { deflateRawSync } from 'node:zlib';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const examples = join(__dirname, '../../examples');
const example = (name: string) => readFileSync(join(examples, `${name}.tsr`), 'utf8');

const SCALE = `@launch(256)
kernel scale(X: tensor<f32>[M], Y: tensor<f32>[M]) {
  let i = ctx.block.x * ctx.threads + ctx.thread
  Y[i] = 2.0 * X[i]
}
`;

/** A share link's fragment for a session, written as the playground writes it. */
function link(session: object): string {
  return 'v1.' + deflateRawSync(Buffer.from(JSON.stringify(session))).toString('base64url');
}

test('a pasted kernel with a new signature runs with no other action', async ({ play, page, consoleErrors }) => {
  await play.open('?example=matvec');
  await play.editor.fill(SCALE);
  // The launch follows the new signature: M gets a value that covers the grid, the old
  // parameters are gone.
  await expect(page.getByTestId('dim-M')).not.toHaveValue('');
  await expect(page.getByTestId('dim-N')).toHaveCount(0);
  await expect(page.getByTestId('input-X')).toHaveValue('rand');
  await expect(page.locator('#note-input-X')).toContainText('pseudo-random from seed 1');
  await play.run();
  await expect(play.simStatus).toContainText('Simulator:');
  await expect(page.getByTestId('result-Y')).toBeVisible();
  await expect(page.getByTestId('diagnostics-ok')).toBeVisible();
  const gpu = await play.gpuOutcome();
  if (gpu.startsWith('WebGPU (')) await expect(play.verdicts.first()).toHaveText(/^GPU = simulator/);
  expect(consoleErrors).toEqual([]);
});

test('renaming a parameter keeps what applies and gives the new name a value', async ({ play, page }) => {
  await play.open('?example=saxpy');
  await play.setField('dim-N', '64');
  await play.editor.fill(example('saxpy').replaceAll('alpha', 'gain'));
  await expect(page.getByTestId('scalar-gain')).toHaveValue('1');
  await expect(page.getByTestId('scalar-alpha')).toHaveCount(0);
  await expect(page.getByTestId('dim-N')).toHaveValue('64');
  await play.run();
  await expect(page.getByTestId('result-Y')).toBeVisible();
  // A run of the old launch would be stale now; this one is current.
  await expect(page.getByTestId('stale')).toHaveCount(0);
  await play.setField('dim-N', '65');
  await expect(page.getByTestId('stale')).toContainText('changed since this run');
});

test('a share link whose launch names parameters the source lacks opens ready to run', async ({ play, page }) => {
  const fragment = link({
    source: SCALE,
    launch: { version: 1, grid: { x: 2, y: 1, z: 1 }, inputs: { A: 'ones' }, scalars: { alpha: 2 }, lanes: 32 },
  });
  await page.goto(`/play#${fragment}`);
  await play.expectSource(SCALE);
  await expect(page.getByTestId('dim-M')).toHaveValue('512');
  await play.run();
  await expect(page.getByTestId('result-Y')).toBeVisible();
  await expect(page.getByTestId('diagnostics-ok')).toBeVisible();
});

test('Run with a compile error says so in the Run panel, once, and keeps the parameters', async ({ play, page }) => {
  await play.open('?example=vector_add');
  await play.editor.fill(example('vector_add').replace('ctx.thread\n', 'ctx.thred\n'));
  await expect(play.diagnostics).toHaveCount(1);
  await play.run();
  await expect(page.getByTestId('run-blocked')).toHaveText('Fix the source first: it has 1 error (listed under the editor).');
  await expect(play.diagnostics).toHaveCount(1);
  await expect(page.getByTestId('dim-N')).toBeVisible();
});

test('a launch problem shows beside its field, and Run says the launch does not fit', async ({ play, page }) => {
  await play.open('?example=vector_add');
  await play.setField('grid-x', '0');
  const problem = page.getByTestId('problem-grid-x');
  await expect(problem).toContainText('the grid 0 x 1 x 1 has no CTAs');
  await expect(page.getByTestId('grid-x')).toHaveAttribute('aria-invalid', 'true');
  await expect(page.getByTestId('grid-x')).toHaveAttribute('aria-describedby', 'problem-grid-x');
  await play.run();
  await expect(page.getByTestId('run-blocked')).toContainText('The launch does not fit the kernel: the grid 0 x 1 x 1 has no CTAs');
  await expect(page.getByTestId('diagnostics-ok')).toBeVisible();
  await play.setField('grid-x', '2');
  await expect(problem).toHaveCount(0);
  await expect(page.getByTestId('grid-x')).toHaveAttribute('aria-invalid', 'false');
});

test('a run-time fault shows in the Run panel with its thread and line, marked in the source', async ({ play, page }) => {
  await play.open('?example=vector_add');
  await play.editor.fill(example('vector_add').replace('if i < N {', 'if i < N + 5 {'));
  await play.run();
  const fault = page.getByTestId('run-fault');
  await expect(fault).toContainText('E0510');
  await expect(page.getByTestId('fault-where')).toHaveText('At line 6, column 12, in block (3, 0, 0), warp 7, lane 8, thread 232.');
  await expect.poll(async () => (await page.locator('.editor .run-fault').allTextContents()).join('')).toBe('A[i]');
  // Listed with the problems too, at its line, as the last run's.
  await expect(page.getByTestId('problem-run-fault').getByTestId('where')).toHaveText('6:12');
  await expect(page.getByTestId('diagnostic')).toHaveCount(0);
  // The mark and the entry go with the source they belong to.
  await play.editor.fill(example('vector_add'));
  await expect(page.locator('.editor .run-fault')).toHaveCount(0);
  await expect(page.getByTestId('problem-run-fault')).toHaveCount(0);
  await expect(page.getByTestId('diagnostics-ok')).toBeVisible();
});

test('the step limit says how far the run got and offers a larger one', async ({ play, page }) => {
  await play.open('?example=vector_add');
  await play.editor.fill(example('vector_add').replace('C[i] = A[i] + B[i]', 'var n = 0\n    while n >= 0 {\n      n = n + 0\n    }'));
  await play.setField('step-limit', '1000');
  await play.run();
  await expect(page.getByTestId('run-fault')).toContainText('the CTA ran 1000 statements, its step limit, and had not finished');
  // A kernel that does not end is not sent to the GPU, where it would hang.
  await expect(play.gpuStatus).toContainText('not run: the simulator stopped the run');
  await page.getByTestId('raise-step-limit').click();
  await expect(page.getByTestId('step-limit')).toHaveValue('10000');
  await expect(page.getByTestId('run-fault')).toContainText('the CTA ran 10000 statements');
  await expect(page.getByTestId('raise-step-limit')).toHaveText('Run again with a step limit of 100000');
});

test('the address follows the example, Back and Forward work, and edits are never lost', async ({ play, page }) => {
  await play.open('?example=matvec');
  await expect(page.getByTestId('examples')).toHaveValue('matvec');
  await page.getByTestId('examples').selectOption('saxpy');
  await expect(page).toHaveURL(/\/play\?example=saxpy$/);
  await play.expectSource(example('saxpy'));
  await page.goBack();
  await expect(page).toHaveURL(/\/play\?example=matvec$/);
  await play.expectSource(example('matvec'));
  await page.goForward();
  await play.expectSource(example('saxpy'));
  // An edit is the reader's own kernel: the address no longer names an example.
  await play.editor.fill(example('saxpy') + '// mine\n');
  await expect(page).toHaveURL(/\/play$/);
  await expect(page.getByTestId('examples')).toHaveValue('');
  await page.getByTestId('examples').selectOption('dot');
  await expect(page.getByTestId('notice')).toContainText('Your own kernel is one step back');
  await page.getByTestId('notice-back').click();
  await play.expectSource(example('saxpy') + '// mine\n');
  // And a reload keeps it.
  await page.reload();
  await play.expectSource(example('saxpy') + '// mine\n');
});

test('every value is reachable, 2-D results are a heat map, and the inputs can be seen', async ({ play, page }) => {
  await play.open('?example=vector_add');
  await page.getByTestId('input-A').selectOption('iota');
  await page.getByTestId('input-B').selectOption('zeros');
  await play.run();
  const c = page.getByTestId('result-C');
  await expect(c.getByTestId('page-info')).toHaveText('Values 0 to 255 of 1000, page 1 of 4');
  for (let i = 0; i < 3; i++) await c.getByTestId('page-next').click();
  await expect(c.getByTestId('page-info')).toHaveText('Values 768 to 999 of 1000, page 4 of 4');
  await expect(c.locator('td[title^="[999]"]')).toHaveText('999');
  await expect(c.getByTestId('page-next')).toBeDisabled();
  await page.getByTestId('run-inputs').locator('summary').click();
  await expect(page.getByTestId('input-values-A').locator('td').nth(3)).toHaveText('3');

  await play.open('?example=transpose');
  await play.run();
  const out = page.getByTestId('result-Out');
  await expect(out.locator('table.heat-map')).toBeVisible();
  await expect(out.locator('thead th').nth(1)).toHaveText('0');
});

test('the page of values and the open inputs stay as the GPU answers, the source changes, Run runs again and the tabs switch', async ({ play, page }) => {
  await play.open('?example=vector_add');
  await play.run();
  const c = page.getByTestId('result-C');
  await c.getByTestId('page-next').click();
  await c.getByTestId('page-next').click();
  await expect(c.getByTestId('page-info')).toHaveText('Values 512 to 767 of 1000, page 3 of 4');
  const inputs = page.getByTestId('run-inputs');
  await inputs.locator('summary').click();
  await expect(inputs).toHaveAttribute('open', '');
  await play.gpuOutcome();
  await play.paste((await play.source()) + '\n');
  await expect(page.getByTestId('stale')).toBeVisible();
  await expect(c.getByTestId('page-info')).toHaveText('Values 512 to 767 of 1000, page 3 of 4');
  await expect(inputs).toHaveAttribute('open', '');
  /** Runs again, and waits until the results are drawn anew and the GPU has answered. */
  const runAgain = async () => {
    await c.getByTestId('page-info').evaluate((el) => el.setAttribute('data-drawn-before', ''));
    await play.run();
    await expect(page.locator('[data-drawn-before]')).toHaveCount(0);
    await play.gpuOutcome();
  };
  await runAgain();
  await expect(page.getByTestId('stale')).toHaveCount(0);
  await expect(c.getByTestId('page-info')).toHaveText('Values 512 to 767 of 1000, page 3 of 4');
  await expect(inputs).toHaveAttribute('open', '');
  // Another tab and back: the Run panel is drawn again, in the same place.
  await page.getByTestId('tab-PTX').click();
  await page.getByTestId('tab-Run').click();
  await expect(c.getByTestId('page-info')).toHaveText('Values 512 to 767 of 1000, page 3 of 4');
  await expect(inputs).toHaveAttribute('open', '');
  await inputs.locator('summary').click();
  await runAgain();
  await expect(c.getByTestId('page-info')).toHaveText('Values 512 to 767 of 1000, page 3 of 4');
  await expect(inputs).not.toHaveAttribute('open', '');
  // A shorter result shows its last page, and Previous goes back one from there.
  await play.setField('dim-N', '300');
  await runAgain();
  await expect(c.getByTestId('page-info')).toHaveText('Values 256 to 299 of 300, page 2 of 2');
  await c.getByTestId('page-previous').click();
  await expect(c.getByTestId('page-info')).toHaveText('Values 0 to 255 of 300, page 1 of 2');
  // Another example starts on the first page, its inputs closed.
  await c.getByTestId('page-next').click();
  await inputs.locator('summary').click();
  await page.getByTestId('examples').selectOption('saxpy');
  await play.run();
  const y = page.getByTestId('result-Y');
  await expect(y.getByTestId('page-info')).toHaveText(/^Values 0 to 255 of \d+, page 1 of/);
  await expect(inputs).not.toHaveAttribute('open', '');
});

test('the output tabs follow the tabs pattern', async ({ play, page }) => {
  await play.open('?example=vector_add');
  await play.tab('Run').focus();
  await page.keyboard.press('ArrowRight');
  await expect(play.tab('PTX')).toBeFocused();
  await expect(play.tab('PTX')).toHaveAttribute('aria-selected', 'true');
  await expect(play.tab('Run')).toHaveAttribute('tabindex', '-1');
  await page.keyboard.press('End');
  await expect(play.tab('IR')).toBeFocused();
  await page.keyboard.press('ArrowRight');
  await expect(play.tab('Run')).toBeFocused();
});

test('an error code is a small badge inside its diagnostic', async ({ play, page }) => {
  await play.open('?example=vector_add');
  await play.editor.fill(example('vector_add').replace('ctx.thread\n', 'ctx.thred\n'));
  const badge = play.diagnostics.first().locator('.diag-code');
  const box = await badge.boundingBox();
  const item = await play.diagnostics.first().boundingBox();
  expect(box && item).toBeTruthy();
  if (box && item) {
    expect(box.height).toBeLessThan(22);
    expect(box.x).toBeGreaterThanOrEqual(item.x);
    expect(box.x + box.width).toBeLessThanOrEqual(item.x + item.width);
  }
});

for (const [name, viewport] of [
  ['desktop', { width: 1280, height: 900 }],
  ['phone', { width: 390, height: 844 }],
] as const) {
  test(`a newcomer's kernel and a launch problem at ${name} width`, async ({ play, page }, info) => {
    await page.setViewportSize(viewport);
    await play.open('?example=matvec');
    await play.editor.fill(SCALE.replace('Y[i] = 2.0 * X[i]', 'Y[i] = 2.0 * X[i + 1]'));
    await play.run();
    await expect(page.getByTestId('run-fault')).toBeVisible();
    await play.setField('grid-x', '0');
    await page.screenshot({ path: info.outputPath(`newcomer-${name}.png`), fullPage: true });
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
  });
}

// Issue 68: a dimension typed, then a click into a seed field and typing there: the seed field
// keeps the focus the click gave it and the typing (the form's fields were all rebuilt when
// the dimension committed).
test('a field keeps the focus a click gave it when another field commits', async ({ play, page }) => {
  await play.open('?example=matvec');
  await play.tab('Run').click();
  await page.getByTestId('dim-K').fill('120');
  const seed = page.getByTestId('seed-A');
  await seed.click();
  await page.keyboard.type('9');
  await expect(seed).toBeFocused();
  await expect(seed).toHaveValue(/9$/);
  await page.keyboard.press('Tab');
  await expect(page.getByTestId('dim-K')).toHaveValue('120');
});
