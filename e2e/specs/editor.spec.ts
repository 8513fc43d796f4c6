// The playground's editor: CodeMirror 6, with the keys people expect, and the language as the
// compiler knows it (colours, lint marks, hover, completion).
import { test, expect } from '../fixtures/pages';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const vectorAdd = readFileSync(join(__dirname, '../../examples/vector_add.tsr'), 'utf8');
const lines = (text: string) => text.split('\n');

test('Tab and Shift+Tab indent and outdent the selected lines', async ({ play, page }) => {
  await play.open('?example=vector_add');
  // Select lines 4 to 6 (`let i = …` to `C[i] = …`).
  await play.caret(vectorAdd.indexOf('  let i'));
  await page.keyboard.press('Shift+ArrowDown');
  await page.keyboard.press('Shift+ArrowDown');
  await page.keyboard.press('Shift+End');
  await page.keyboard.press('Tab');
  await expect.poll(async () => lines(await play.source()).slice(3, 6)).toEqual([
    '    let i = ctx.block.x * ctx.threads + ctx.thread',
    '    if i < N {',
    '      C[i] = A[i] + B[i]',
  ]);
  expect(lines(await play.source())[2]).toBe(lines(vectorAdd)[2]);
  // A reader's pause: edits closer than half a second are one undo step.
  await page.waitForTimeout(600);
  await page.keyboard.press('Shift+Tab');
  await page.keyboard.press('Shift+Tab');
  await expect.poll(async () => lines(await play.source())[3]).toBe('let i = ctx.block.x * ctx.threads + ctx.thread');
  // Undo takes back the outdents (one step: they came together), then the indent.
  await page.keyboard.press('Control+z');
  await play.expectSource(lines(vectorAdd).map((l, i) => (i >= 3 && i <= 5 ? '  ' + l : l)).join('\n'));
  await page.keyboard.press('Control+z');
  await play.expectSource(vectorAdd);
});

test('brackets close, Enter indents after {, and } outdents', async ({ play, page }) => {
  await play.open('?example=vector_add');
  await play.paste('@launch(32)\nkernel k(Y: tensor<i32>[32]) ');
  await play.caret((await play.source()).length);
  await page.keyboard.type('{');
  await play.expectSource('@launch(32)\nkernel k(Y: tensor<i32>[32]) {}');
  await page.keyboard.press('Enter');
  await play.expectSource('@launch(32)\nkernel k(Y: tensor<i32>[32]) {\n  \n}');
  await page.keyboard.type('if ctx.lane < 4 {');
  await page.keyboard.press('Enter');
  await page.keyboard.type('Y[ctx.lane] = 1');
  await play.expectSource('@launch(32)\nkernel k(Y: tensor<i32>[32]) {\n  if ctx.lane < 4 {\n    Y[ctx.lane] = 1\n  }\n}');
  await expect(page.getByTestId('diagnostics-ok')).toBeVisible();
});

// Issue 68: a whole kernel typed key by key, braces and all, leaves no stray `}`; a `{` above
// lines indented deeper opens without closing.
test('typing a whole kernel key by key leaves no stray brace', async ({ play, page }) => {
  await play.open('?example=vector_add');
  await play.paste('');
  await play.caret(0);
  const kernel = [
    '@launch(32)',
    'kernel k(Y: tensor<i32>[N]) {',
    'for i in range(0, 4) {',
    'if ctx.lane < 4 {',
    'Y[ctx.lane] = i',
    '}',
    '}',
    '}',
  ];
  // Typed as a reader types it: each line's words, Enter, and the editor's own indentation.
  for (const line of kernel) {
    await page.keyboard.type(line);
    await page.keyboard.press('Enter');
  }
  await play.expectSource('@launch(32)\nkernel k(Y: tensor<i32>[N]) {\n  for i in range(0, 4) {\n    if ctx.lane < 4 {\n      Y[ctx.lane] = i\n    }\n  }\n}\n');
  await expect(page.getByTestId('diagnostics-ok')).toBeVisible();

  // A loop put around lines already indented under it: its `{` does not close at once.
  await play.paste('@launch(32)\nkernel k(Y: tensor<i32>[N]) {\n  for i in range(0, 4)\n    Y[ctx.lane] = i\n}\n');
  await play.caret('@launch(32)\nkernel k(Y: tensor<i32>[N]) {\n  for i in range(0, 4)'.length);
  await page.keyboard.type(' {');
  await play.expectSource('@launch(32)\nkernel k(Y: tensor<i32>[N]) {\n  for i in range(0, 4) {\n    Y[ctx.lane] = i\n}\n');
});

test('Ctrl+/ comments a line out and back in, and Ctrl+F searches', async ({ play, page }) => {
  await play.open('?example=vector_add');
  await play.caret(vectorAdd.indexOf('  let i') + 4);
  await page.keyboard.press('Control+/');
  await expect.poll(async () => lines(await play.source())[3]).toBe('  // let i = ctx.block.x * ctx.threads + ctx.thread');
  await page.keyboard.press('Control+/');
  await play.expectSource(vectorAdd);
  await page.keyboard.press('Control+f');
  const find = page.getByRole('textbox', { name: 'Find' });
  await expect(find).toBeFocused();
  await page.keyboard.type('ctx');
  await expect(page.locator('.cm-searchMatch')).toHaveCount(3);
  await page.keyboard.press('Escape');
  await expect(find).toHaveCount(0);
});

test('completion after ctx. offers the eight fields, from the compiler', async ({ play, page }) => {
  await play.open('?example=vector_add');
  const at = vectorAdd.indexOf('ctx.thread\n');
  await play.caret(at + 'ctx.thread'.length);
  // Erase `thread` and retype the dot: the fields come up.
  for (let i = 0; i < 'thread'.length + 1; i++) await page.keyboard.press('Backspace');
  await page.keyboard.type('.');
  const options = page.locator('.cm-tooltip-autocomplete li');
  await expect(options).toHaveCount(8);
  const labels = await page.locator('.cm-tooltip-autocomplete .cm-completionLabel').allTextContents();
  expect(labels.sort()).toEqual(['block', 'blocks', 'lane', 'lanes', 'thread', 'threads', 'warp', 'warps']);
  await page.keyboard.type('thr');
  await expect(options).toHaveCount(2);
  await expect(page.locator('.cm-tooltip-autocomplete li[aria-selected] .cm-completionLabel')).toHaveText('thread');
  await page.keyboard.press('Enter');
  await play.expectSource(vectorAdd);
});

test('hovering a name shows its type and uniformity; a built-in says what it does', async ({ play, page }) => {
  await play.open('?example=warp_reduce');
  const name = page.locator('.cm-content .tok-name', { hasText: /^w$/ }).first();
  await name.hover();
  await expect(page.locator('.hover-tooltip')).toHaveText('w: i32 · warp-uniform');
  await page.mouse.move(0, 0);
  await page.locator('.cm-content .tok-builtin', { hasText: /^sum$/ }).first().hover();
  await expect(page.locator('.hover-tooltip')).toContainText('sum<over ctx.lane>(x): the sum over the warp');
});

test('a mistake is marked at its line and column, with its code linked', async ({ play, page }) => {
  await play.open('?example=vector_add');
  await play.paste(vectorAdd.replace('ctx.threads + ctx.thread', 'ctx.threads + ctx.thred'));
  const mark = page.locator('.cm-lintRange-error');
  await expect(mark).toHaveText('thred');
  // Line 4 of the source, in the editor's fourth line.
  await expect(page.locator('.cm-line').nth(3).locator('.cm-lintRange-error')).toHaveText('thred');
  await mark.hover();
  const tooltip = page.locator('.cm-tooltip-lint');
  await expect(tooltip).toContainText('ctx has no field `thred`');
  await expect(tooltip.getByRole('link', { name: 'E0112' })).toHaveAttribute('href', '/docs/errors#E0112');
});

test('a help that is an edit is a quick fix, in the tooltip and in the problems list; undo takes it back', async ({ play, page }) => {
  await play.open('?example=vector_add');
  const broken = vectorAdd.replace('ctx.threads + ctx.thread', 'ctx.threads + ctx.thred');
  await play.paste(broken);
  await page.waitForTimeout(600); // a pause: the fix is an undo step of its own
  // The tooltip's action writes the field the help names.
  await page.locator('.cm-lintRange-error').hover();
  await page.locator('.cm-tooltip-lint').getByRole('button', { name: 'Write thread' }).click();
  await expect.poll(() => play.source()).toBe(vectorAdd);
  await expect(page.getByTestId('diagnostics-ok')).toBeVisible();
  await play.editor.focus();
  await page.keyboard.press('Control+z');
  await expect.poll(() => play.source()).toBe(broken);
  // The problems list's button does the same; an index and a count swapped (a warning) too.
  await play.paste(vectorAdd.replace('ctx.block.x * ctx.threads', 'ctx.blocks.x * ctx.threads'));
  const fix = page.getByTestId('quick-fix');
  await expect(fix).toHaveText('Write ctx.block.x for ctx.blocks.x');
  await fix.click();
  await expect.poll(() => play.source()).toBe(vectorAdd);
  await expect(page.getByTestId('quick-fix')).toHaveCount(0);
});

test('Escape then Tab leaves the editor for the next control, as the editor tells', async ({ play, page }) => {
  await play.open('?example=vector_add');
  await expect(play.editor).toHaveAttribute('aria-describedby', 'editor-help');
  await expect(page.locator('#editor-help')).toContainText('press Escape, then Tab, to leave the editor');
  await play.caret(0);
  await page.keyboard.press('Tab');
  await expect(play.editor).toBeFocused();
  await page.keyboard.press('Control+z');
  await page.keyboard.press('Escape');
  await page.keyboard.press('Tab');
  await expect(play.editor).not.toBeFocused();
  await expect(play.tab('Run')).toBeFocused();
  await play.expectSource(vectorAdd);
});

test('at phone width long lines scroll inside the editor, not the page', async ({ play, page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await play.open('?example=vector_add');
  await play.paste(vectorAdd + '// ' + 'a long comment '.repeat(20) + '\n');
  await expect(page.getByTestId('diagnostics-ok')).toBeVisible();
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(overflow).toBeLessThanOrEqual(0);
  const scroller = page.locator('.cm-scroller');
  expect(await scroller.evaluate((el) => el.scrollWidth > el.clientWidth)).toBe(true);
});
