// The built site (dist/) served by sirv on 127.0.0.1, and Debian's Chromium, for the scripts
// that measure or photograph it (another build with DIST=PATH). `open(port, { webgpu })` waits until the server answers and
// gives { base, browser, median, close }.
import { chromium } from '@playwright/test';
import { spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';

export async function open(port, { webgpu = false } = {}) {
  const server = spawn('node_modules/.bin/sirv', [process.env.DIST ?? '../dist', '--single', '--host', '127.0.0.1', '--port', String(port)], { stdio: 'ignore' });
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    args: [
      ...(webgpu ? ['--enable-unsafe-webgpu'] : []),
      '--no-sandbox', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run',
    ],
  });
  const base = `http://127.0.0.1:${port}`;
  for (let attempt = 0; ; attempt++) {
    try { await fetch(base); break; } catch (error) { if (attempt > 50) { await browser.close(); server.kill(); throw error; } await sleep(100); }
  }
  return {
    base,
    browser,
    async close() {
      await browser.close();
      server.kill();
    },
  };
}

export const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
export const worst = (xs) => Math.max(...xs);
