// The TextMate grammar against the compiler's lexer: every example, every UI test and a file of
// every keyword, type, built-in and ctx field, tokenized by vscode-textmate (VS Code's own
// tokenizer, with vscode-oniguruma) and compared character by character with the semantic
// tokens `tessera lsp` sends, which are the lexer's classes (the playground's colours).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, readdir } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import vsctm from 'vscode-textmate';
import oniguruma from 'vscode-oniguruma';
import { root, startServer } from './server.mjs';

const require = createRequire(import.meta.url);
const here = path.resolve(root, 'editors/vscode');

async function loadGrammar() {
  const wasm = await readFile(require.resolve('vscode-oniguruma/release/onig.wasm'));
  await oniguruma.loadWASM(wasm.buffer);
  const grammarPath = path.join(here, 'syntaxes/tessera.tmLanguage.json');
  const registry = new vsctm.Registry({
    onigLib: Promise.resolve({
      createOnigScanner: (patterns) => new oniguruma.OnigScanner(patterns),
      createOnigString: (text) => new oniguruma.OnigString(text),
    }),
    loadGrammar: async (scope) =>
      scope === 'source.tessera' ? vsctm.parseRawGrammar(await readFile(grammarPath, 'utf8'), grammarPath) : null,
  });
  return registry.loadGrammar('source.tessera');
}

/** What the grammar must give a character of each semantic token type (`+lib`: the language's own names). */
const EXPECTED = {
  keyword: /^(keyword\.control|constant\.language)\./,
  type: /^storage\.type\./,
  'variable+lib': /^variable\.language\./,
  'function+lib': /^support\.function\./,
  number: /^constant\.numeric\./,
  comment: /^comment\./,
  decorator: /^entity\.other\.attribute-name\./,
  operator: /^keyword\.operator\./,
  variable: null, // names are plain
};

/** The lines of `text` as the protocol and VS Code count them: `\r\n`, `\n` or a lone `\r` ends one. */
const linesOf = (text) => text.split(/\r\n|\r|\n/);

/** Each UTF-16 unit's semantic class, line by line, from the server's relative encoding. */
function classesByLine(data, legend, lines) {
  const classes = lines.map((line) => new Array(line.length).fill(undefined));
  let line = 0;
  let start = 0;
  for (let i = 0; i < data.length; i += 5) {
    const [deltaLine, deltaStart, length, type, modifiers] = data.slice(i, i + 5);
    line += deltaLine;
    start = deltaLine === 0 ? start + deltaStart : deltaStart;
    const name = legend.tokenTypes[type] + (modifiers & 1 ? '+lib' : '');
    for (let c = start; c < start + length; c++) classes[line][c] = name;
  }
  return classes;
}

function compare(name, text, grammar, classes) {
  const mismatches = [];
  let stack = vsctm.INITIAL;
  linesOf(text).forEach((line, l) => {
    const result = grammar.tokenizeLine(line, stack);
    stack = result.ruleStack;
    for (const token of result.tokens) {
      const scope = token.scopes.length > 1 ? token.scopes[token.scopes.length - 1] : null;
      for (let c = token.startIndex; c < Math.min(token.endIndex, line.length); c++) {
        const wanted = classes[l][c];
        let ok;
        if (wanted === undefined) {
          // Punctuation, spaces and unknown characters: the lexer gives no colour.
          ok = scope === null || scope.startsWith('punctuation.') || (/\s/.test(line[c]) && !scope.startsWith('comment.'));
        } else if (EXPECTED[wanted] === null) {
          ok = scope === null;
        } else {
          ok = scope !== null && EXPECTED[wanted].test(scope);
        }
        if (!ok) {
          mismatches.push(`${name}:${l + 1}:${c + 1} ${JSON.stringify(line[c])} in ${JSON.stringify(line.trim())}: lexer ${wanted ?? 'plain'}, grammar ${scope ?? 'plain'}`);
        }
      }
    }
  });
  return mismatches;
}

async function corpus() {
  const files = [];
  for (const dir of ['examples', 'examples/programs', 'compiler-core/tests/ui']) {
    for (const entry of (await readdir(path.join(root, dir))).sort()) {
      if (entry.endsWith('.tsr')) files.push(path.join(dir, entry));
    }
  }
  return files;
}

test('the grammar colours every example and UI test as the lexer does', async () => {
  const grammar = await loadGrammar();
  const files = await corpus();
  assert.ok(files.length > 50, `only ${files.length} files found`);
  const server = await startServer();
  const mismatches = [];
  try {
    for (const file of files) {
      const text = await readFile(path.join(root, file), 'utf8');
      const uri = await server.open(text, path.basename(file));
      const { data } = await server.request('textDocument/semanticTokens/full', { textDocument: { uri } });
      mismatches.push(...compare(file, text, grammar, classesByLine(data, server.legend, linesOf(text))));
    }
  } finally {
    assert.equal(await server.stop(), 0);
  }
  assert.deepEqual(mismatches.slice(0, 20), [], `${mismatches.length} characters differ`);
});

test("the grammar knows every keyword, type, built-in and ctx field the compiler offers", async () => {
  const grammar = await loadGrammar();
  const server = await startServer();
  try {
    await vocabulary(grammar, server);
  } finally {
    assert.equal(await server.stop(), 0);
  }
});

async function vocabulary(grammar, server) {
  const probe = '@launch(32)\nkernel k() {\n  let a = ctx.\n  \n}\n';
  const uri = await server.open(probe);
  const offered = await server.request('textDocument/completion', {
    textDocument: { uri }, position: { line: 3, character: 2 }, context: { triggerKind: 1 },
  });
  const fields = await server.request('textDocument/completion', {
    textDocument: { uri }, position: { line: 2, character: 14 }, context: { triggerKind: 2, triggerCharacter: '.' },
  });
  const words = offered.filter((i) => i.kind !== 6).map((i) => i.label); // all but the names in scope
  assert.ok(words.includes('atomic_compare_exchange') && words.includes('tensor') && words.includes('while'));
  assert.equal(fields.length, 8);
  const text = [
    ...words.map((w) => `${w} x${w} ${w}2 2${w}`),
    ...fields.map((f) => `ctx.${f.label} ctx . ${f.label}`),
    'ctx.block.x ctx.if 0x1F 1.5e-3 2e8 7 a:+b <<= @launch @ cluster @/*c*/launch',
    'ctx /* c */ . thread ctx\t.\tlane ctx./**/warp ctx.\v.lane @\u00a0launch',
    '/* é */ sum /* 𝑥 */ max(é, 𝑥𝑥) // ç then sum',
    'ctx.thread /* unclosed',
  ].join('\n');
  const uri2 = await server.open(text);
  const { data } = await server.request('textDocument/semanticTokens/full', { textDocument: { uri: uri2 } });
  const mismatches = compare('vocabulary', text, grammar, classesByLine(data, server.legend, linesOf(text)));
  assert.deepEqual(mismatches.slice(0, 20), [], `${mismatches.length} characters differ`);
}
