// The extension as VS Code reads it: the manifest's contributions point at real files that
// agree with each other, the client starts `tessera lsp` as the settings say, and the packaged
// .vsix (built by `npm run package` before the tests) holds all of it, the client bundled.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, access } from 'node:fs/promises';
import { createRequire } from 'node:module';
import Module from 'node:module';
import path from 'node:path';
import yauzl from 'yauzl';
import { root } from './server.mjs';

const require = createRequire(import.meta.url);
const here = path.join(root, 'editors/vscode');
const readJson = async (file) => JSON.parse(await readFile(path.join(here, file), 'utf8'));

test('the manifest contributes the language, its grammar and its configuration', async () => {
  const manifest = await readJson('package.json');
  const [language] = manifest.contributes.languages;
  assert.equal(language.id, 'tessera');
  assert.deepEqual(language.extensions, ['.tsr']);
  const [grammar] = manifest.contributes.grammars;
  assert.equal(grammar.language, 'tessera');
  assert.equal((await readJson(grammar.path)).scopeName, grammar.scopeName);
  const configuration = await readJson(language.configuration);
  assert.equal(configuration.comments.lineComment, '//');
  assert.deepEqual(configuration.comments.blockComment, ['/*', '*/']);
  await access(path.join(here, manifest.main));
  assert.deepEqual(Object.keys(manifest.dependencies), ['vscode-languageclient']);
});

/** The bundled client (the manifest's `main`) with `vscode`, which only VS Code provides, stood in for. */
async function loadExtension() {
  const { main } = await readJson('package.json');
  const load = Module._load;
  Module._load = function (request, ...rest) {
    if (request === 'vscode') return new Proxy({}, { get: () => class {} });
    return load.call(this, request, ...rest);
  };
  try {
    return require(path.join(here, main));
  } finally {
    Module._load = load;
  }
}

test('the client starts `tessera lsp` over stdio, with the settings', async () => {
  const extension = await loadExtension();
  assert.equal(typeof extension.activate, 'function');
  const settings = (values) => ({ get: (key, fallback) => values[key] ?? fallback });
  const server = extension.serverOptions(settings({}));
  assert.equal(server.command, 'tessera');
  assert.deepEqual(server.args, ['lsp']);
  assert.equal(server.transport, 0, 'stdio');
  assert.equal(extension.serverOptions(settings({ 'server.path': '/opt/tessera' })).command, '/opt/tessera');
  const client = extension.clientOptions(settings({ docsUrl: 'https://example.org' }));
  assert.deepEqual(client.documentSelector, [{ language: 'tessera' }]);
  assert.equal(client.initializationOptions.docsUrl, 'https://example.org');
  // Issue 52: no default address (one that may not answer): codes link nowhere unless set.
  assert.equal(extension.clientOptions(settings({})).initializationOptions.docsUrl, '');
});

function entries(zip) {
  return new Promise((resolve, reject) => {
    yauzl.open(zip, { lazyEntries: false }, (error, file) => {
      if (error) return reject(error);
      const names = [];
      file.on('entry', (entry) => names.push(entry.fileName));
      file.on('end', () => resolve(names));
      file.on('error', reject);
    });
  });
}

test('the .vsix holds the manifest, the bundled client, the grammar and nothing else', async () => {
  const names = await entries(path.join(here, 'tessera.vsix'));
  for (const wanted of [
    'extension.vsixmanifest',
    'extension/package.json',
    'extension/dist/extension.js',
    'extension/language-configuration.json',
    'extension/syntaxes/tessera.tmLanguage.json',
  ]) {
    assert.ok(names.includes(wanted), `${wanted} missing from the .vsix`);
  }
  assert.ok(!names.some((n) => n.includes('node_modules/') || n.startsWith('extension/test/')), `more packed: ${names}`);
});
