import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import { test, expect } from '../fixtures/pages';

// axe-core, the engine behind Lighthouse's accessibility audit, over every kind of page: no
// critical or serious violation. Each is listed with the elements it found, so a failure says
// what to fix.

async function seriousViolations(page: Page): Promise<string[]> {
  // label-content-name-mismatch is off by default (axe calls it experimental); on here, since a
  // speech-input user says what they see.
  const results = await new AxeBuilder({ page })
    .options({ rules: { 'label-content-name-mismatch': { enabled: true } } })
    .analyze();
  return results.violations
    .filter((v) => v.impact === 'critical' || v.impact === 'serious')
    .map((v) => {
      const where = v.nodes.slice(0, 4).map((n) => n.target.join(' ')).join(' | ');
      return `${v.id} (${v.impact}, ${v.nodes.length}): ${v.help}: ${where}`;
    });
}

const pages: [string, string, string][] = [
  ['the home page', '/', 'Tessera'],
  ['a docs page with the diagram', '/docs/hierarchy', 'hierarchy'],
  ['the glossary', '/docs/glossary', 'Glossary'],
  ['a puzzle', '/docs/puzzle-map', 'One thread'],
  ['the error index', '/docs/errors', 'rror'],
  ['the costs page with its charts', '/docs/costs', 'What a kernel costs'],
  ['the page on the command line and editors', '/docs/outside', 'Outside the browser'],
  ['the From CUDA page and its table', '/docs/cuda', 'From CUDA'],
  ['the tensor-cores page and its lane map', '/docs/tensor-cores', 'Tensor cores'],
];

for (const [what, path, heading] of pages) {
  test(`${what} has no serious accessibility violation`, async ({ page }) => {
    await page.goto(path);
    await expect(page.getByRole('heading', { level: 1 }).first()).toContainText(heading, { ignoreCase: true });
    // The wasm modules mount the diagram, the editors and the workbenches.
    await page.waitForLoadState('networkidle');
    expect(await seriousViolations(page)).toEqual([]);
  });
}

test('the playground after a run, with the stepper and the memory counts open, has no serious accessibility violation', async ({ play, page }) => {
  await play.open('?example=matvec');
  await play.run();
  await expect(play.simStatus).toContainText('Simulator:');
  await page.getByTestId('measure-memory').click();
  await expect(page.getByTestId('memory-table')).toBeVisible();
  await page.getByTestId('step-through').click();
  await expect(page.getByTestId('step-position')).toContainText('Step 1 of');
  await play.gpuOutcome();
  expect(await seriousViolations(page)).toEqual([]);
});

test('the lane map of a kernel that uses mma, with a lane followed in the stepper, has no serious accessibility violation', async ({ play, page }) => {
  await play.open('?example=mma_gemm');
  await play.run();
  await expect(play.simStatus).toContainText('Simulator:');
  await page.getByTestId('step-through').click();
  await expect(page.getByTestId('step-position')).toContainText('Step 1 of');
  await page.getByTestId('fragment-lane').selectOption('17');
  await page.getByRole('gridcell', { name: 'A[4, 3]: lane 17, a[1]' }).click();
  await play.gpuOutcome();
  expect(await seriousViolations(page)).toEqual([]);
});

test('a program\'s timeline, the roofline\'s measured point and a quick fix have no serious accessibility violation', async ({ play, page }) => {
  await play.open('?example=grid_sum');
  await play.run();
  await expect(play.simStatus).toContainText('Simulator:');
  await page.getByTestId('measure-memory').click();
  await expect(page.getByTestId('roofline')).toBeVisible();
  const outcome = await play.gpuOutcome();
  if (!outcome.includes('not run')) {
    const timeline = page.getByTestId('launch-timeline');
    await expect(timeline).toBeVisible();
    await timeline.getByText("Each launch's start and time").click();
  }
  // A problem whose help is an edit, with its button.
  const source = await play.source();
  await play.paste(source.replace('ctx.block.x * ctx.threads + ctx.thread', 'ctx.blocks.x * ctx.threads + ctx.thread'));
  await expect(page.getByTestId('quick-fix').first()).toBeVisible();
  expect(await seriousViolations(page)).toEqual([]);
});

test('the dark theme\'s playground and docs have no serious accessibility violation', async ({ play, page }) => {
  await page.emulateMedia({ colorScheme: 'dark' });
  await play.open('?example=tiled_matmul');
  await play.run();
  await expect(play.simStatus).toContainText('Simulator:');
  await page.getByTestId('step-through').click();
  await expect(page.getByTestId('step-position')).toContainText('Step 1 of');
  await play.gpuOutcome();
  expect(await seriousViolations(page)).toEqual([]);
  await page.goto('/docs/puzzle-map');
  await page.waitForLoadState('networkidle');
  expect(await seriousViolations(page)).toEqual([]);
});

test('the stepper\'s faded rows (waiting lanes) keep their contrast, light and dark', async ({ play, page }) => {
  await play.open('?example=collatz');
  await play.run();
  await expect(play.simStatus).toContainText('Simulator:');
  await page.getByTestId('step-through').click();
  await expect(page.getByTestId('step-position')).toContainText('Step 1 of');
  // On to a step inside the loop's `if`, where some lanes wait for the others.
  const waiting = page.locator('[data-testid="lane-values"] tr.inactive');
  await page.getByTestId('step-forward').focus();
  for (let i = 0; i < 12 && (await waiting.count()) === 0; i++) {
    await page.keyboard.press('ArrowRight');
    await expect(page.getByTestId('step-position')).toContainText(`Step ${i + 2} of`);
  }
  await expect(waiting.first()).toBeVisible();
  await play.gpuOutcome();
  expect(await seriousViolations(page)).toEqual([]);
  await page.emulateMedia({ colorScheme: 'dark' });
  expect(await seriousViolations(page)).toEqual([]);
});
