// Takes the README's screenshots of the built site (dist/), served by sirv on 127.0.0.1:
//   npm run screenshot   (after `make site`)
// Writes docs/home.png (desktop, light), docs/home-dark.png, docs/home-phone.png, docs/play.png
// (the playground after a run), docs/docs.png (a docs page) and the playground as a workbench,
// stepping a warp beside the code: docs/play-stepper.png (1280 x 800), play-stepper-1440.png
// and play-stepper-phone.png (390 wide).
import { open } from './site.mjs';

const site = await open(4174, { webgpu: true });
const { browser, base } = site;
try {
  const shots = [
    { file: '../docs/home.png', path: '/', viewport: { width: 1200, height: 900 }, colorScheme: 'light', ready: 'readout-table' },
    { file: '../docs/home-dark.png', path: '/', viewport: { width: 1200, height: 900 }, colorScheme: 'dark', ready: 'readout-table' },
    { file: '../docs/home-phone.png', path: '/', viewport: { width: 390, height: 800 }, colorScheme: 'light', ready: 'readout-table' },
    { file: '../docs/play.png', path: '/play?example=matvec', viewport: { width: 1280, height: 800 }, colorScheme: 'light', ready: 'run', click: 'run', full: false },
    { file: '../docs/docs.png', path: '/docs/hierarchy', viewport: { width: 1280, height: 800 }, colorScheme: 'light', ready: 'docs-page', full: false },
    ...[
      ['play-stepper', { width: 1280, height: 800 }],
      ['play-stepper-1440', { width: 1440, height: 900 }],
      ['play-stepper-phone', { width: 390, height: 844 }],
    ].map(([name, viewport]) => ({
      file: `../docs/${name}.png`, path: '/play?example=tiled_matmul', viewport, colorScheme: 'light', ready: 'run', click: 'run', full: false,
      then: ['step-through', 'step-forward', 'step-forward', 'step-forward'], scroll: 'step-forward',
    })),
  ];
  for (const shot of shots) {
    const page = await browser.newPage({ viewport: shot.viewport, colorScheme: shot.colorScheme });
    await page.goto(`${base}${shot.path}`);
    await page.getByTestId(shot.ready).first().waitFor();
    if (shot.click) {
      await page.getByTestId(shot.click).click();
      await page.getByTestId('gpu-status').filter({ hasNotText: 'running' }).waitFor({ timeout: 20000 });
    }
    for (const id of shot.then ?? []) {
      await page.getByTestId(id).click();
      await page.waitForTimeout(300);
    }
    if (shot.scroll) {
      await page.getByTestId(shot.scroll).scrollIntoViewIfNeeded();
      await page.waitForTimeout(300);
    }
    await page.screenshot({ path: shot.file, fullPage: shot.full ?? true });
    await page.close();
  }
} finally {
  await site.close();
}
