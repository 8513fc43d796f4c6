// Playwright runs the built site (dist/, made by `trunk build`) in Debian's Chromium.
// Never `npx playwright install`: the browser is the system's, with real WebGPU on SwiftShader.
import { defineConfig } from '@playwright/test';

const port = Number(process.env.TESSERA_E2E_PORT ?? 4173);

export default defineConfig({
  testDir: './specs',
  outputDir: './test-results',
  // One worker: the GPU specs keep SwiftShader busy on every core, and a second browser beside
  // them gets no animation frames for many seconds (its clicks then time out waiting for
  // "stable"). The machine has two cores; one worker is also the honest measure of each test.
  fullyParallel: true,
  workers: 1,
  // In CI one retry: on a loaded 2-core machine Chromium can go seconds without an animation
  // frame, and a click then times out waiting for "stable" (seen once in 4 fresh-clone runs, on
  // the share-link test). A test that fails twice still fails.
  retries: process.env.CI ? 1 : 0,
  timeout: 30_000,
  forbidOnly: !!process.env.CI,
  reporter: [['list']],
  use: {
    baseURL: `http://127.0.0.1:${port}`,
    browserName: 'chromium',
    headless: true,
    launchOptions: {
      executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
      args: [
        '--enable-unsafe-webgpu',
        '--no-sandbox',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
      ],
    },
    trace: 'retain-on-failure',
    // The site's service worker would answer requests before `page.route` sees them (the GPU
    // specs rewrite the worker's module); the offline spec allows it.
    serviceWorkers: 'block',
  },
  webServer: {
    // --single serves index.html for every route, as a static host of the site must.
    command: `npx sirv ../dist --single --host 127.0.0.1 --port ${port}`,
    url: `http://127.0.0.1:${port}/`,
    reuseExistingServer: false,
    timeout: 30_000,
  },
});
