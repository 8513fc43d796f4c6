import { chromium } from '@playwright/test';
import { spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
const [link, out, size = '1280x900', scheme = 'light', ...keys] = process.argv.slice(2);
const [width, height] = size.split('x').map(Number);
const port = 4176;
const server = spawn('node_modules/.bin/sirv', ['../dist', '--single', '--host', '127.0.0.1', '--port', String(port)], { stdio: 'ignore' });
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--enable-unsafe-webgpu', '--no-sandbox'] });
try {
  const page = await browser.newPage({ viewport: { width, height }, colorScheme: scheme });
  page.on('pageerror', (e) => console.log('pageerror:', String(e)));
  page.on('console', (m) => { if (m.type() === 'error') console.log('console:', m.text()); });
  for (let a = 0; ; a++) { try { await page.goto(`http://127.0.0.1:${port}${link}`); break; } catch (e) { if (a > 50) throw e; await sleep(100); } }
  await sleep(1500);
  for (const k of keys) { if (k.startsWith('click:')) await page.getByTestId(k.slice(6)).first().click(); else await page.keyboard.press(k); await sleep(150); }
  await sleep(400);
  const el = page.getByTestId('stepper');
  await el.screenshot({ path: out });
} finally { await browser.close(); server.kill(); }
