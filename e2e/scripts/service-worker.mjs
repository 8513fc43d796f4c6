// Writes the site's service worker into a built site (trunk's staging folder, or dist/), so a
// reader who opened the site once can open the docs, the playground and the puzzles again
// without a network. Workbox (npm's workbox-build) generates it; nothing here caches by hand.
//
//   node e2e/scripts/service-worker.mjs DIR
//
// - Every file of the build is precached: the pages are one index.html (the site routes in
//   the browser), so a navigation offline gets it; the modules, the wasm, the style sheet and
//   the editor are named by content hash, and the docs' pages (JSON) and the playground's
//   module split in parts each sit in a folder named by a hash of them all.
// - The cache is named by the build (a hash of every precached file's name and revision): a
//   new deploy installs a new cache, takes over open pages at once, and deletes the old
//   build's caches on activation.
import { generateSW, getManifest } from 'workbox-build';
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

const dir = process.argv[2];
if (!dir) {
  console.error('usage: node service-worker.mjs DIR');
  process.exit(2);
}

const files = {
  globDirectory: dir,
  // The license texts too (files without an extension): the footer links them.
  globPatterns: ['**/*.{html,js,wasm,css,svg,json}', 'LICENSE-*'],
  globIgnores: ['sw.js', 'sw-build.js'],
  // The modules are 1-2 MB of wasm each; the default limit (2 MiB) would leave one out.
  maximumFileSizeToCacheInBytes: 16 * 1024 * 1024,
};

const { manifestEntries } = await getManifest(files);
const build = createHash('sha256')
  .update(manifestEntries.map((e) => `${e.url} ${e.revision}`).sort().join('\n'))
  .digest('hex')
  .slice(0, 16);

// Runs in the worker before Workbox's code: on activation, the caches of other builds go.
writeFileSync(
  join(dir, 'sw-build.js'),
  `// Written by e2e/scripts/service-worker.mjs: this build's name, and the clean-up of the others.
self.tesseraBuild = ${JSON.stringify(build)};
self.addEventListener('activate', (event) => {
  event.waitUntil(caches.keys().then((names) => Promise.all(
    names
      .filter((name) => name.startsWith('tessera-') && !name.includes(self.tesseraBuild))
      .map((name) => caches.delete(name)),
  )));
});
`,
);

const { count, size, warnings } = await generateSW({
  ...files,
  swDest: join(dir, 'sw.js'),
  cacheId: `tessera-${build}`,
  importScripts: ['/sw-build.js'],
  // Files named by their content's hash never change under one name: no cache-busting query.
  dontCacheBustURLsMatching: /-[0-9a-f]{16}(_bg)?\.(js|wasm|css|svg)$|\/[a-z]+-[0-9a-f]{16}\//,
  navigateFallback: '/index.html',
  // A file the site links for the browser to show (the license texts) is not a route of the
  // site: the fallback gave its navigation the site's "Not found".
  navigateFallbackDenylist: [/^\/LICENSE-/],
  cleanupOutdatedCaches: true,
  skipWaiting: true,
  clientsClaim: true,
  inlineWorkboxRuntime: true,
  mode: 'production',
  sourcemap: false,
});
for (const warning of warnings) console.error(`service worker: ${warning}`);
console.error(`service worker: build ${build}, ${count} files, ${(size / 1024 / 1024).toFixed(1)} MiB precached`);
