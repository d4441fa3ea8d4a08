// Protocol smoke test of the surface both editor clients rely on (editors.md §2, decisions 40-41):
// diagnostics (push and pull), the run-configuration code actions, code lenses, the execute commands and
// the run notifications. Runs against the fake server, or against `$VOX_SERVER lsp` when VOX_SERVER is set.
'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { pathToFileURL } = require('url');
const { LspClient, serverCommand } = require('./lsp-client');

const FIXTURE = path.join(__dirname, 'fixtures', 'workspace');

function copyWorkspace() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vox-proto-'));
  fs.cpSync(FIXTURE, dir, { recursive: true });
  return fs.realpathSync(dir);
}

// Capability sets shaped like the two real clients' (only the parts the server looks at).
const VSCODE_CAPS = {
  general: { positionEncodings: ['utf-16'] },
  window: { workDoneProgress: true },
  workspace: {
    workspaceEdit: { documentChanges: true, resourceOperations: ['create', 'rename', 'delete'], changeAnnotationSupport: { groupsOnLabel: true } },
    executeCommand: {},
    codeLens: { refreshSupport: true },
    diagnostics: { refreshSupport: true },
    didChangeWatchedFiles: { dynamicRegistration: true },
  },
  textDocument: {
    publishDiagnostics: { relatedInformation: true, codeDescriptionSupport: true },
    diagnostic: { dynamicRegistration: true, relatedDocumentSupport: false },
    codeAction: { codeActionLiteralSupport: { codeActionKind: { valueSet: ['quickfix', 'refactor', 'source'] } } },
    codeLens: {},
  },
};
const NVIM_CAPS = {
  general: { positionEncodings: ['utf-8', 'utf-16', 'utf-32'] },
  window: { workDoneProgress: true },
  workspace: {
    workspaceEdit: { documentChanges: true, resourceOperations: ['rename', 'create', 'delete'] },
    codeLens: { refreshSupport: true },
  },
  textDocument: {
    publishDiagnostics: { relatedInformation: true },
    codeAction: { codeActionLiteralSupport: { codeActionKind: { valueSet: ['quickfix', 'refactor', 'source'] } } },
    codeLens: {},
  },
};

async function start(caps) {
  const dir = copyWorkspace();
  const { command, args } = serverCommand();
  const client = new LspClient(command, args, { cwd: dir });
  client.requestHandlers['workspace/configuration'] = (p) => p.items.map(() => null);
  const init = await client.request('initialize', {
    processId: process.pid,
    rootUri: pathToFileURL(dir).href,
    workspaceFolders: [{ uri: pathToFileURL(dir).href, name: 'ws' }],
    capabilities: caps,
  });
  client.notify('initialized', {});
  const file = path.join(dir, 'greet.vox');
  const uri = pathToFileURL(file).href;
  client.notify('textDocument/didOpen', {
    textDocument: { uri, languageId: 'voxscript', version: 1, text: fs.readFileSync(file, 'utf8') },
  });
  return { client, init, dir, uri };
}

test('pull diagnostics when the client declares textDocument.diagnostic (VS Code)', async () => {
  const { client, init, uri } = await start(VSCODE_CAPS);
  try {
    assert.equal(init.capabilities.positionEncoding ?? 'utf-16', 'utf-16');
    assert.ok(init.capabilities.diagnosticProvider, 'diagnosticProvider');
    const report = await client.request('textDocument/diagnostic', { textDocument: { uri } });
    const d003 = report.items.find((d) => d.code === 'D003');
    assert.ok(d003, 'a D003 finding');
    assert.ok(d003.relatedInformation && d003.relatedInformation.length >= 1, 'with its call chain');
    assert.equal(d003.range.start.line, 2);
    // Pull only: no pushed diagnostics.
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(client.notifications.filter((n) => n.method === 'textDocument/publishDiagnostics' && n.params.diagnostics.length).length, 0);
  } finally {
    await client.close();
  }
});

test('push diagnostics, code actions with documentChanges, code lens and run (Neovim)', async () => {
  const { client, init, uri, dir } = await start(NVIM_CAPS);
  try {
    assert.equal(init.capabilities.positionEncoding, 'utf-8');
    const pub = await client.waitFor((n) => n.method === 'textDocument/publishDiagnostics' && n.params.uri === uri);
    assert.ok(pub.params.diagnostics.some((d) => d.code === 'D003'));

    const actions = await client.request('textDocument/codeAction', {
      textDocument: { uri },
      range: { start: { line: 5, character: 0 }, end: { line: 5, character: 0 } },
      context: { diagnostics: [] },
    });
    const titles = actions.map((a) => a.title);
    for (const where of ['Vox.toml', '.vscode/tasks.json', '.vscode/launch.json']) {
      assert.ok(titles.includes(`Run with inferred capabilities: add to ${where}`), `${where} action in ${titles}`);
    }
    const toml = actions.find((a) => a.title.endsWith('Vox.toml'));
    assert.ok(toml.edit.documentChanges, 'documentChanges');
    assert.ok(toml.edit.documentChanges.some((c) => c.kind === 'create'), 'CreateFile for a missing Vox.toml');

    const lenses = await client.request('textDocument/codeLens', { textDocument: { uri } });
    const titlesL = lenses.map((l) => l.command && l.command.title);
    assert.ok(titlesL.includes('▶ Run'));
    assert.ok(titlesL.includes('▶ Run test'));
    assert.ok(titlesL.some((t) => /^caps: .*fs:ro=data/.test(t)), `caps lens in ${titlesL}`);

    const caps = await client.request('workspace/executeCommand', { command: 'vox.showCaps', arguments: [{ uri }] });
    assert.deepEqual(caps.tokens, ['env:ro', 'fs:ro=data', 'time:real']);

    const { runId } = await client.request('workspace/executeCommand', { command: 'vox.run', arguments: [{ uri }] });
    assert.equal(typeof runId, 'number');
    const exit = await client.waitFor((n) => n.method === 'vox/runExit' && n.params.runId === runId, 20000, 'vox/runExit');
    assert.equal(exit.params.code, 0);
    const out = client.notifications
      .filter((n) => n.method === 'vox/runOutput' && n.params.runId === runId && n.params.stream === 'stdout')
      .map((n) => n.params.text)
      .join('');
    assert.match(out, /vox demo: starting/);

    const t = await client.request('workspace/executeCommand', { command: 'vox.runTest', arguments: [{ uri, test: 'greeting_is_nonempty' }] });
    const texit = await client.waitFor((n) => n.method === 'vox/runExit' && n.params.runId === t.runId, 20000, 'test exit');
    assert.equal(texit.params.code, 0);
    void dir;
  } finally {
    await client.close();
  }
});
