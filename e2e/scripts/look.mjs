// Screenshots of any page of the built site, to look at while building it:
//   node scripts/look.mjs PATH OUT.png [WIDTHxHEIGHT] [light|dark] [ACTION...]
// ACTION: click:TESTID, focus:TESTID, scroll:TESTID, key:KEY, type:TESTID=TEXT, wait:MS, full
import { chromium } from '@playwright/test';
import { spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';

const [path = '/', out = '/tmp/look.png', size = '1280x800', scheme = 'light', ...clicks] = process.argv.slice(2);
const [width, height] = size.split('x').map(Number);
const port = 4175;
const server = spawn('node_modules/.bin/sirv', ['../dist', '--single', '--host', '127.0.0.1', '--port', String(port)], { stdio: 'ignore' });
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  args: ['--enable-unsafe-webgpu', '--no-sandbox', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
});
try {
  const page = await browser.newPage({ viewport: { width, height }, colorScheme: scheme });
  page.on('console', (m) => { if (m.type() === 'error' || m.type() === 'warning') console.log('console:', m.text()); });
  page.on('pageerror', (e) => console.log('pageerror:', String(e)));
  for (let attempt = 0; ; attempt++) {
    try { await page.goto(`http://127.0.0.1:${port}${path}`); break; } catch (error) { if (attempt > 50) throw error; await sleep(100); }
  }
  await sleep(1500);
  let fullPage = false;
  for (const action of clicks) {
    const [kind, arg = ''] = action.split(/:(.*)/s);
    if (kind === 'click') await page.getByTestId(arg).first().click();
    else if (kind === 'focus') await page.getByTestId(arg).first().focus();
    else if (kind === 'scroll') await page.getByTestId(arg).first().scrollIntoViewIfNeeded();
    else if (kind === 'key') await page.keyboard.press(arg);
    else if (kind === 'type') { const [id, text] = arg.split(/=(.*)/s); await page.getByTestId(id).fill(text); }
    else if (kind === 'wait') await sleep(Number(arg));
    else if (kind === 'full') fullPage = true;
    await sleep(300);
  }
  await sleep(500);
  await page.screenshot({ path: out, fullPage });
} finally {
  await browser.close();
  server.kill();
}
