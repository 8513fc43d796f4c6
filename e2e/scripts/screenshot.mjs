// Takes the README's screenshots of the built site (dist/), served by sirv on 127.0.0.1:
//   npm run screenshot   (after `make site`)
// Writes docs/home.png (desktop, light), docs/home-dark.png and docs/home-phone.png.
import { chromium } from '@playwright/test';
import { spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';

const port = 4174;
const server = spawn('node_modules/.bin/sirv', ['../dist', '--single', '--host', '127.0.0.1', '--port', String(port)], {
  stdio: 'ignore',
});
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
});
try {
  const shots = [
    { file: '../docs/home.png', viewport: { width: 1200, height: 900 }, colorScheme: 'light' },
    { file: '../docs/home-dark.png', viewport: { width: 1200, height: 900 }, colorScheme: 'dark' },
    { file: '../docs/home-phone.png', viewport: { width: 390, height: 800 }, colorScheme: 'light' },
  ];
  for (const shot of shots) {
    const page = await browser.newPage({ viewport: shot.viewport, colorScheme: shot.colorScheme });
    for (let attempt = 0; ; attempt++) {
      try {
        await page.goto(`http://127.0.0.1:${port}/`);
        break;
      } catch (error) {
        if (attempt > 50) throw error;
        await sleep(100);
      }
    }
    await page.getByTestId('sentence').waitFor();
    await page.screenshot({ path: shot.file, fullPage: true });
    await page.close();
  }
} finally {
  await browser.close();
  server.kill();
}
