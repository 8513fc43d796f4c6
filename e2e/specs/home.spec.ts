import { test, expect } from '../fixtures/pages';

test('the home page renders with no console errors', async ({ home, page, consoleErrors }) => {
  await home.open();
  await expect(page).toHaveTitle(/Tessera/);
  await expect(page.getByRole('navigation', { name: 'Site' })).toBeVisible();
  await expect(page.getByRole('heading', { name: 'What it is' })).toBeVisible();
  // The compiler core ran in wasm: the diagram's readout is computed by compiler_core::hierarchy.
  await expect(page.getByTestId('readout-table').first()).toContainText('256 / 32');
  expect(consoleErrors).toEqual([]);
});

test('a launch the diagram cannot draw is explained, and fixing it recovers', async ({ home, page }) => {
  await home.open();
  await home.setNumber('threads', '0');
  await expect(home.finderError).toHaveText('a CTA has 1 to 1024 threads, not 0');
  await expect(home.field('threads')).toHaveAttribute('aria-invalid', 'true');
  await expect(home.field('threads')).toHaveAttribute('aria-describedby', 'finder-error');
  await home.setNumber('threads', '');
  await expect(home.finderError).toContainText('@launch threads must be a whole number');
  await home.setNumber('threads', '256');
  await expect(home.finderError).toHaveCount(0);
  await expect(home.field('threads')).toHaveAttribute('aria-invalid', 'false');
  await expect(page.getByTestId('readout-table').first()).toContainText('256 / 32');
});

test('the playground is one link away', async ({ home, page }) => {
  await home.open();
  await page.getByRole('navigation', { name: 'Site' }).getByRole('link', { name: 'Playground' }).click();
  // The address names the example the playground opens with.
  await expect(page).toHaveURL(/\/play\?example=matvec$/);
  await expect(page.getByRole('textbox', { name: 'Kernel source' })).toBeVisible();
});

// Issue 52: the site says it is open source, and the footer links the license texts it ships.
test('the footer links the license texts, which the site serves', async ({ home, page, request }) => {
  await home.open();
  for (const [id, text] of [['license-mit', 'Permission is hereby granted'], ['license-apache', 'Apache License']]) {
    const href = await page.getByTestId(id).getAttribute('href');
    expect(href).toMatch(/^\/LICENSE-/);
    const response = await request.get(new URL(href!, page.url()).toString());
    expect(response.ok()).toBe(true);
    expect(await response.text()).toContain(text);
  }
});
