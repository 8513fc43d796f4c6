// The extension's client: starts `tessera lsp` (the CLI's language server) for `.tsr` files and
// restarts it when its settings change. Everything the editor shows comes from the server; the
// grammar (syntaxes/) colours a file before the server answers, and where no server runs.
'use strict';

const vscode = require('vscode');
const { LanguageClient, TransportKind } = require('vscode-languageclient/node');

let client;

/** The server's command and options, from the settings `tessera.server.path` and `tessera.docsUrl`. */
function serverOptions(settings) {
  return {
    command: settings.get('server.path', 'tessera'),
    args: ['lsp'],
    transport: TransportKind.stdio,
  };
}

function clientOptions(settings) {
  return {
    documentSelector: [{ language: 'tessera' }],
    initializationOptions: { docsUrl: settings.get('docsUrl', '') },
  };
}

async function start() {
  const settings = vscode.workspace.getConfiguration('tessera');
  client = new LanguageClient('tessera', 'Tessera', serverOptions(settings), clientOptions(settings));
  try {
    await client.start();
  } catch (error) {
    const path = settings.get('server.path', 'tessera');
    vscode.window.showErrorMessage(
      `Tessera: could not start \`${path} lsp\` (${error.message}). Install the CLI with ` +
        '`cargo install --path cli`, or set `tessera.server.path` to the `tessera` binary.',
    );
  }
}

async function restart() {
  if (client) {
    await client.stop().catch(() => {});
  }
  await start();
}

async function activate(context) {
  context.subscriptions.push(
    vscode.commands.registerCommand('tessera.restartServer', restart),
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (event.affectsConfiguration('tessera')) {
        restart();
      }
    }),
  );
  await start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate, serverOptions, clientOptions };
