// A client for `tessera lsp` over its stdin and stdout (vscode-jsonrpc, the library VS Code's
// own client is built on), shared by the tests.
import { spawn } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import path from 'node:path';
import rpc from 'vscode-jsonrpc/node.js';

export const root = path.resolve(fileURLToPath(import.meta.url), '../../../..');
const binary = process.env.TESSERA_BIN ?? path.join(root, 'target/debug/tessera');

export async function startServer() {
  const child = spawn(binary, ['lsp', '--stdio'], { stdio: ['pipe', 'pipe', 'inherit'] });
  const connection = rpc.createMessageConnection(
    new rpc.StreamMessageReader(child.stdout),
    new rpc.StreamMessageWriter(child.stdin),
  );
  connection.listen();
  const init = await connection.sendRequest('initialize', { processId: null, rootUri: null, capabilities: {} });
  await connection.sendNotification('initialized', {});
  let opened = 0;
  return {
    legend: init.capabilities.semanticTokensProvider.legend,
    /** Opens `text` as a new document; its URI. */
    async open(text, name = `doc${++opened}.tsr`) {
      const uri = pathToFileURL(path.join('/tmp', name)).href;
      await connection.sendNotification('textDocument/didOpen', {
        textDocument: { uri, languageId: 'tessera', version: 1, text },
      });
      return uri;
    },
    request: (method, params) => connection.sendRequest(method, params),
    async stop() {
      await connection.sendRequest('shutdown');
      await connection.sendNotification('exit');
      const code = await new Promise((resolve) => child.on('exit', resolve));
      connection.dispose();
      return code;
    },
  };
}
