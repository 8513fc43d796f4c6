// What a keystroke costs over the protocol: `tessera lsp` (TESSERA_BIN, by default the debug
// build) with an example open, one character typed and taken back, 200 times; the time from
// sending `didChange` to receiving its diagnostics, and of a semantic tokens request after it.
//
//   TESSERA_BIN=target/release/tessera node editors/vscode/bench/lsp.mjs [example or FILE.tsr]
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import rpc from 'vscode-jsonrpc/node.js';
import { spawn } from 'node:child_process';
import { root } from '../test/server.mjs';

const example = process.argv[2] ?? 'tiled_matmul';
const binary = process.env.TESSERA_BIN ?? path.join(root, 'target/debug/tessera');
const file = example.endsWith('.tsr') ? path.resolve(example) : path.join(root, 'examples', `${example}.tsr`);
const text = await readFile(file, 'utf8');
const child = spawn(binary, ['lsp'], { stdio: ['pipe', 'pipe', 'inherit'] });
const connection = rpc.createMessageConnection(new rpc.StreamMessageReader(child.stdout), new rpc.StreamMessageWriter(child.stdin));
let waiting = null;
connection.onNotification('textDocument/publishDiagnostics', (params) => waiting?.(params));
connection.listen();
await connection.sendRequest('initialize', { processId: null, rootUri: null, capabilities: {} });
const uri = 'file:///bench.tsr';
const diagnostics = () => new Promise((resolve) => (waiting = resolve));
let published = diagnostics();
await connection.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId: 'tessera', version: 1, text } });
await published;

const line = text.split('\n').findIndex((l) => l.includes('=')) ;
const typed = [];
const tokens = [];
for (let i = 0; i < 200; i++) {
  const at = { line, character: 2 };
  const change = i % 2 === 0
    ? { range: { start: at, end: at }, text: ' ' }
    : { range: { start: at, end: { line, character: 3 } }, text: '' };
  published = diagnostics();
  const start = performance.now();
  await connection.sendNotification('textDocument/didChange', { textDocument: { uri, version: i + 2 }, contentChanges: [change] });
  await published;
  typed.push(performance.now() - start);
  const before = performance.now();
  await connection.sendRequest('textDocument/semanticTokens/full', { textDocument: { uri } });
  tokens.push(performance.now() - before);
}
await connection.sendRequest('shutdown');
await connection.sendNotification('exit');
const median = (xs) => xs.slice().sort((a, b) => a - b)[Math.floor(xs.length / 2)].toFixed(2);
const worst = (xs) => Math.max(...xs).toFixed(2);
console.log(`${example} (${text.split('\n').length} lines), ${path.relative(root, binary)}, 200 keystrokes:`);
console.log(`  didChange to its diagnostics: median ${median(typed)} ms, worst ${worst(typed)} ms`);
console.log(`  semantic tokens of the whole file: median ${median(tokens)} ms, worst ${worst(tokens)} ms`);
