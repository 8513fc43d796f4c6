// Screenshots of any page of the built site, to look at while building it:
//   node scripts/look.mjs PATH OUT.png [WIDTHxHEIGHT] [light|dark] [ACTION...]
// ACTION: click:TESTID, focus:TESTID, scroll:TESTID, key:KEY, type:TESTID=TEXT, wait:MS, full
import { open } from './site.mjs';
import { setTimeout as sleep } from 'node:timers/promises';

const [path = '/', out = '/tmp/look.png', size = '1280x800', scheme = 'light', ...clicks] = process.argv.slice(2);
const [width, height] = size.split('x').map(Number);
const site = await open(4175, { webgpu: true });
const { browser, base } = site;
try {
  const page = await browser.newPage({ viewport: { width, height }, colorScheme: scheme });
  page.on('console', (m) => { if (m.type() === 'error' || m.type() === 'warning') console.log('console:', m.text()); });
  page.on('pageerror', (e) => console.log('pageerror:', String(e)));
  await page.goto(`${base}${path}`);
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
  await site.close();
}
