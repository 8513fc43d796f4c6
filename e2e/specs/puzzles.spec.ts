// The puzzles: a docs page per puzzle whose workbench (the playground module's editor and
// Check, graded by the simulator in the worker) says whether the reader's kernel is right.
// Solving one marks it in the sidebar, also after a reload; a wrong answer names the first
// wrong element and the thread that wrote it; hints come one at a time; an attempt travels in
// a link; a kernel that never ends stops at the step limit, and a check can be cancelled.
import { test, expect } from '../fixtures/pages';
import type { Page } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** A puzzle file's `[puzzle]` field, read from the file the docs build reads. */
function field(file: string, name: string): string {
  const text = readFileSync(join(__dirname, '../../content/puzzles', file), 'utf8');
  const match = new RegExp(`^${name} = '''\\n([\\s\\S]*?)'''`, 'm').exec(text);
  if (!match) throw new Error(`${file} has no ${name}`);
  return match[1];
}

function hints(file: string): string[] {
  const text = readFileSync(join(__dirname, '../../content/puzzles', file), 'utf8');
  const block = /^hints = \[([\s\S]*?)\n\]/m.exec(text)?.[1] ?? '';
  return [...block.matchAll(/^\s*"(.*)",?$/gm)].map((m) => m[1].replace(/`/g, ''));
}

async function openPuzzle(page: Page, slug: string) {
  await page.goto(`/docs/${slug}`);
  await expect(page.getByRole('textbox', { name: 'Kernel source' })).toBeVisible();
}

/** Types `text` into the editor in place of what it holds, as keystrokes would insert it. */
async function typeKernel(page: Page, text: string) {
  await page.getByRole('textbox', { name: 'Kernel source' }).click();
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.insertText(text);
  await expect.poll(() => page.locator('.cm-editor').evaluate((el: any) => el.tesseraDoc())).toBe(text);
}

const sidebarEntry = (page: Page, title: string) =>
  page.getByRole('navigation', { name: 'Docs' }).getByRole('link', { name: new RegExp(`^${title}`) });

test('solving a puzzle shows the pass and marks it in the sidebar, also after a reload', async ({ page, consoleErrors }) => {
  await openPuzzle(page, 'puzzle-map');
  await expect(page.getByTestId('puzzle-progress')).toHaveText(/0 of 18 solved/);
  const entry = sidebarEntry(page, 'One thread, one element');
  await expect(entry).not.toHaveAttribute('data-solved');

  // The starter does not pass: its CTAs write the same elements, a race (E0516).
  await page.getByTestId('puzzle-check').click();
  await expect(page.getByTestId('puzzle-verdict')).toHaveAttribute('data-verdict', 'broken');
  await expect(page.getByTestId('puzzle-verdict')).toContainText('E0516');

  const solution = field('01-map.md', 'solution');
  await typeKernel(page, solution);
  await expect(page.getByTestId('puzzle-stale')).toBeVisible();
  await page.getByTestId('puzzle-check').click();
  const verdict = page.getByTestId('puzzle-verdict');
  await expect(verdict).toHaveAttribute('data-verdict', 'pass');
  await expect(verdict).toContainText('Solved.');
  await expect(page.getByTestId('puzzle-stale')).toHaveCount(0);
  await expect(entry).toHaveAttribute('data-solved');
  await expect(entry).toHaveAccessibleName('One thread, one element (solved)');
  await expect(page.getByTestId('puzzle-progress')).toHaveText(/1 of 18 solved/);

  // Kept across a reload: the mark and the attempt.
  await page.reload();
  await expect(page.getByRole('textbox', { name: 'Kernel source' })).toBeVisible();
  await expect(sidebarEntry(page, 'One thread, one element')).toHaveAttribute('data-solved');
  await expect.poll(() => page.locator('.cm-editor').evaluate((el: any) => el.tesseraDoc())).toBe(solution);
  // Another puzzle is not solved.
  await expect(sidebarEntry(page, 'A CTA that sticks out')).not.toHaveAttribute('data-solved');
  expect(consoleErrors).toEqual([]);
});

test('a wrong answer names the first wrong element and the thread that wrote it', async ({ page }) => {
  await openPuzzle(page, 'puzzle-guard');
  // Right everywhere but element 700, which CTA 2's thread 188 writes: warp 5, lane 28.
  const wrong = field('02-guard.md', 'solution').replace('Y[i] = 2.0 * X[i]', 'Y[i] = select(i == 700, 0.0, 2.0 * X[i])');
  await typeKernel(page, wrong);
  await page.keyboard.press('ControlOrMeta+Enter');
  const verdict = page.getByTestId('puzzle-verdict');
  await expect(verdict).toHaveAttribute('data-verdict', 'wrong');
  await expect(page.getByTestId('puzzle-wrong-element')).toHaveText('Y[700]');
  await expect(verdict).toContainText("the reference's is");
  await expect(page.getByTestId('puzzle-writer')).toHaveText('It was written last by thread 188 of CTA (2, 0, 0): warp 5, lane 28.');
  // The stepper, on that warp, with the attempt.
  await page.getByTestId('puzzle-step-through').click();
  await expect(page.getByTestId('stepper')).toBeVisible({ timeout: 20_000 });
  await expect(page.getByTestId('step-warp')).toHaveValue('5');
  await expect.poll(() => page.locator('.cm-editor').evaluate((el: any) => el.tesseraDoc())).toBe(wrong);
});

test('a check that stops at a fault offers the faulting warp in the stepper, at the fault', async ({ page }) => {
  await openPuzzle(page, 'puzzle-guard');
  // The starter: CTA 3's thread 232 reads X[1000], past N = 1000: warp 7, lane 8.
  await typeKernel(page, field('02-guard.md', 'starter'));
  await page.keyboard.press('ControlOrMeta+Enter');
  await expect(page.getByTestId('puzzle-verdict')).toHaveAttribute('data-verdict', 'broken');
  const link = page.getByTestId('puzzle-step-through');
  await expect(link).toHaveText('Step through warp 7 of block (3, 0, 0) in the playground, to where the run stopped');
  await link.click();
  await expect(page.getByTestId('stepper')).toBeVisible({ timeout: 20_000 });
  await expect(page.getByTestId('step-warp')).toHaveValue('7');
  await expect(page.getByTestId('step-block-x')).toHaveValue('3');
  await expect(page.getByTestId('step-position')).toHaveText(/^Step (\d+) of \1 · line 4$/);
});

test('hints come one at a time, and the solution on request', async ({ page }) => {
  await openPuzzle(page, 'puzzle-warp-shuffles');
  const expected = hints('05-warp-shuffles.md');
  expect(expected.length).toBe(3);
  const list = page.getByTestId('puzzle-hints').getByRole('listitem');
  await expect(list).toHaveCount(0);
  const button = page.getByTestId('puzzle-hint');
  await expect(button).toHaveText('Show hint 1 of 3');
  await button.press('Enter');
  await expect(list).toHaveCount(1);
  await expect(list.first()).toHaveText(expected[0]);
  await expect(button).toBeFocused();
  await button.click();
  await button.click();
  await expect(list).toHaveCount(3);
  await expect(button).toHaveText('All 3 hints shown');
  await expect(button).toHaveAttribute('aria-disabled', 'true');
  await button.press('Enter');
  await expect(list).toHaveCount(3);

  const solution = page.getByTestId('puzzle-solution');
  await expect(solution).toBeHidden();
  await page.getByTestId('puzzle-reveal').click();
  await expect(solution).toBeVisible();
  await expect(solution).toContainText('shuffle_xor(x, d)');
  await expect(page.getByTestId('puzzle-rules')).toContainText('uses a shuffle');
});

test('an attempt travels in a link', async ({ page, browser }) => {
  await openPuzzle(page, 'puzzle-lane');
  const attempt = field('04-lane.md', 'starter').replace('kernel', '// my attempt\nkernel');
  await typeKernel(page, attempt);
  await page.getByTestId('puzzle-copy-link').click();
  await expect(page.getByTestId('puzzle-share-status')).toContainText('copied');
  const link = page.url();
  expect(link).toMatch(/\/docs\/puzzle-lane#v2\./);

  // Another browser, with nothing kept: the link's attempt.
  const other = await browser.newContext();
  const fresh = await other.newPage();
  await fresh.goto(link);
  await expect(fresh.getByRole('textbox', { name: 'Kernel source' })).toBeVisible();
  await expect(fresh.getByTestId('puzzle-notice')).toHaveText('This is the attempt the link holds.');
  await expect.poll(() => fresh.locator('.cm-editor').evaluate((el: any) => el.tesseraDoc())).toBe(attempt);
  await other.close();

  // In this browser, someone else's link does not replace the reader's own attempt until
  // they edit it.
  const theirs = attempt.replace('// my attempt', '// their attempt');
  await typeKernel(page, theirs);
  await page.getByTestId('puzzle-copy-link').click();
  const theirLink = page.url();
  await typeKernel(page, attempt);
  await page.goto('/docs/puzzle-map');
  await page.goto(theirLink);
  await expect(page.getByTestId('puzzle-notice')).toHaveText('This is the attempt the link holds.');
  await expect.poll(() => page.locator('.cm-editor').evaluate((el: any) => el.tesseraDoc())).toBe(theirs);
  await page.waitForTimeout(300);
  await page.goto('/docs/puzzle-lane');
  await expect.poll(() => page.locator('.cm-editor').evaluate((el: any) => el.tesseraDoc())).toBe(attempt);
});

test('a check can be cancelled, and a kernel that never ends stops at the step limit', async ({ page }) => {
  test.setTimeout(60_000);
  await openPuzzle(page, 'puzzle-map');
  const endless = field('01-map.md', 'starter').replace(/\n\}\n$/, '\n  var k = 0\n  while k >= 0 {\n    k = (k + 1) % 7\n  }\n}\n');
  await typeKernel(page, endless);
  await page.getByTestId('puzzle-check').click();
  await expect(page.getByTestId('puzzle-checking')).toBeVisible();
  await page.getByTestId('puzzle-cancel').click();
  await expect(page.getByTestId('puzzle-checking')).toHaveCount(0);
  await expect(page.getByTestId('puzzle-verdict')).toHaveCount(0);

  await page.getByTestId('puzzle-check').click();
  const verdict = page.getByTestId('puzzle-verdict');
  await expect(verdict).toHaveAttribute('data-verdict', 'broken', { timeout: 40_000 });
  await expect(verdict).toContainText('E0514');
});
