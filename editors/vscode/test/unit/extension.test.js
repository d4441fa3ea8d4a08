// activate(): the language client is started on the discovered server and wired to the commands, the run
// notifications, the code-lens middleware, the task provider and the debugger.
'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('path');
const { vscode, lc, out } = require('../mock/register');

const FAKE = path.resolve(__dirname, '..', '..', '..', 'test', 'fake-vox');

async function activate(settings = { 'vox.server.path': FAKE }) {
  vscode.__mock.reset();
  lc.__mock.reset();
  Object.assign(vscode.__mock.state.settings, settings);
  vscode.__mock.state.workspaceFolders = [{ uri: vscode.Uri.file('/ws'), name: 'ws' }];
  const doc = vscode.__mock.document('/ws/greet.vox', 'fn main() {\n}\n');
  vscode.workspace.textDocuments.push(doc);
  vscode.window.activeTextEditor = { document: doc, selection: { active: { line: 0 } } };
  lc.__mock.setAnswer(async (method, params) => {
    if (params.command === 'vox.showCaps') return { tokens: ['env:ro'], notes: [] };
    if (params.command === 'vox.run' || params.command === 'vox.runTest') return { runId: 1 };
    return null;
  });
  // Fresh module state per activation.
  for (const k of Object.keys(require.cache)) if (k.includes(`${path.sep}out${path.sep}`)) delete require.cache[k];
  const ext = out('extension.js');
  const ctx = { subscriptions: [], extensionPath: '/nonexistent-ext' };
  const api = await ext.activate(ctx);
  return { ext, api, ctx, doc, channel: (name) => vscode.window.outputChannels.find((c) => c.name === name) };
}

test('starts `<vox.server.path> lsp` for voxscript documents', async () => {
  const { api, channel } = await activate();
  assert.equal(lc.__mock.instances.length, 1);
  const c = lc.__mock.instances[0];
  assert.equal(c.serverOptions.command, FAKE);
  assert.deepEqual(c.serverOptions.args, ['lsp']);
  assert.ok(c.clientOptions.documentSelector.some((s) => s.language === 'voxscript' && s.scheme === 'file'));
  assert.deepEqual(c.clientOptions.initializationOptions, { lint: { determinism: false }, inlayHints: { capabilities: true, inferredTypes: false }, run: {} });
  assert.equal(c.clientOptions.synchronize.configurationSection, 'vox');
  assert.ok(c.running);
  assert.deepEqual(api.server, { path: FAKE, source: 'setting' });
  assert.match(channel('VoxScript Language Server').text, /Using vox from vox\.server\.path: .*fake-vox/);
  assert.ok(c.notificationHandlers['vox/runOutput'] && c.notificationHandlers['vox/runExit']);
  // The extension presents vox.showCaps itself: the server sends no window/showMessage for it.
  assert.deepEqual(c.filledCapabilities().experimental, { vox: { showCaps: 'client' } });
});

test('Run Script goes through workspace/executeCommand vox.run; notifications reach the Vox Run output', async () => {
  const { channel } = await activate();
  const c = lc.__mock.instances[0];
  await vscode.commands.executeCommand('vox.runScript');
  assert.deepEqual(c.requests, [{ method: 'workspace/executeCommand', params: { command: 'vox.run', arguments: [{ uri: 'file:///ws/greet.vox' }] } }]);
  const status = vscode.window.statusBarItems[0];
  assert.equal(status.visible, true);
  c.notify('vox/runOutput', { runId: 1, stream: 'stdout', text: 'vox demo: starting\n' });
  c.notify('vox/runExit', { runId: 1, code: 0 });
  assert.match(channel('Vox Run').text, /vox demo: starting\n■ vox run greet\.vox: exited with code 0/);
  assert.equal(status.visible, false);
});

test('code lens commands: runs are tracked, and refused in Restricted Mode', async () => {
  const { channel } = await activate();
  const c = lc.__mock.instances[0];
  const res = await c.runLensCommand('vox.run', [{ uri: 'file:///ws/greet.vox' }]);
  assert.deepEqual(res, { runId: 1 });
  assert.match(channel('Vox Run').text, /▶ vox run greet\.vox/);
  c.notify('vox/runExit', { runId: 1, code: 0 });

  await c.runLensCommand('vox.showCaps', [{ uri: 'file:///ws/greet.vox' }]);
  await new Promise((r) => setImmediate(r));
  assert.ok(vscode.__mock.state.calls.some((x) => x.fn === 'showInformationMessage' && x.args[0] === 'Inferred capabilities: env:ro'));

  vscode.__mock.state.trusted = false;
  const before = c.requests.length;
  assert.equal(await c.runLensCommand('vox.runTest', [{ uri: 'file:///ws/greet.vox', test: 't' }]), undefined);
  assert.equal(c.requests.length, before);
  assert.ok(vscode.__mock.state.calls.some((x) => x.fn === 'showWarningMessage' && /Restricted Mode/.test(x.args[0])));
});

test('vox.prove (code lens or code action): the two outputs open in a diff editor at the first difference', async () => {
  await activate();
  const c = lc.__mock.instances[0];
  const result = {
    differs: true,
    line: 2,
    first: 'winner: nim',
    second: 'winner: gleam',
    run1: { seed: 1, exit: 0, output: 'languages: 8\nwinner: nim\n' },
    run2: { seed: 2, exit: 0, output: 'languages: 8\nwinner: gleam\n' },
    script: '/ws/votes.vox',
  };
  lc.__mock.setAnswer(async (method, params) => (params.command === 'vox.prove' ? result : null));
  const args = [{ uri: 'file:///ws/votes.vox', rule: 'D002', line: 5 }];
  assert.deepEqual(await c.runLensCommand('vox.prove', args), result);
  assert.deepEqual(c.requests.at(-1).params, { command: 'vox.prove', arguments: args });
  assert.ok(vscode.__mock.state.calls.some((x) => x.fn === 'withProgress' && /vox prove .*votes\.vox/.test(x.args[0].title)));
  const diff = vscode.__mock.state.calls.find((x) => x.fn === 'executeCommand' && x.args[0] === 'vscode.diff');
  assert.ok(diff, 'no vscode.diff');
  const [, left, right, title, opts] = diff.args;
  assert.equal(title, 'vox prove: run 1 ↔ run 2 (votes.vox)');
  assert.equal(left.scheme, 'vox-prove');
  const provider = vscode.workspace.contentProviders['vox-prove'];
  assert.equal(provider.provideTextDocumentContent(left), 'languages: 8\nwinner: nim\n[exit 0]\n');
  assert.equal(provider.provideTextDocumentContent(right), 'languages: 8\nwinner: gleam\n[exit 0]\n');
  assert.deepEqual(opts.selection.start, { line: 1, character: 0 });

  // Restricted Mode: nothing runs.
  vscode.__mock.state.trusted = false;
  const before = c.requests.length;
  assert.equal(await c.runLensCommand('vox.prove', args), undefined);
  assert.equal(c.requests.length, before);
});

test('no vox anywhere: a clear error naming the three places, and no client', async () => {
  const saved = process.env.PATH;
  process.env.PATH = '/nonexistent-bin';
  try {
    const { api, channel } = await activate({});
    assert.equal(lc.__mock.instances.length, 0);
    assert.equal(api.client, undefined);
    const err = vscode.__mock.state.calls.find((x) => x.fn === 'showErrorMessage');
    assert.match(err.args[0], /vox binary was not found/);
    assert.match(err.args[0], /vox\.server\.path/);
    assert.equal(err.args[1], 'Open Settings');
    assert.match(channel('VoxScript Language Server').text, /looked at PATH: no vox in \/nonexistent-bin/);
    // The commands still exist and explain.
    await vscode.commands.executeCommand('vox.runScript');
    assert.ok(vscode.__mock.state.calls.some((x) => x.fn === 'showErrorMessage' && /not running/.test(x.args[0])));
  } finally {
    process.env.PATH = saved;
  }
});

test('Restricted Mode: a workspace value of vox.server.path is ignored, the user value is used', async () => {
  vscode.__mock.reset();
  const saved = process.env.PATH;
  process.env.PATH = '/nonexistent-bin';
  try {
    lc.__mock.reset();
    vscode.__mock.state.trusted = false;
    vscode.__mock.state.settings['vox.server.path'] = '/ws/evil/vox';
    vscode.__mock.state.globalSettings['vox.server.path'] = FAKE;
    for (const k of Object.keys(require.cache)) if (k.includes(`${path.sep}out${path.sep}`)) delete require.cache[k];
    const api = await out('extension.js').activate({ subscriptions: [], extensionPath: '/nonexistent-ext' });
    assert.equal(lc.__mock.instances[0].serverOptions.command, FAKE);
    assert.equal(api.server.source, 'setting');
  } finally {
    process.env.PATH = saved;
  }
});

test('changing vox.server.path or granting trust restarts the client', async () => {
  await activate();
  assert.equal(lc.__mock.instances.length, 1);
  // A configuration event that does not change the value (e.g. .vscode/settings.json appeared): no restart.
  vscode.workspace._configEmitter.fire({ affectsConfiguration: (s) => s === 'vox.server.path' });
  await new Promise((r) => setTimeout(r, 10));
  assert.equal(lc.__mock.instances.length, 1);
  vscode.__mock.state.settings['vox.server.path'] = process.execPath; // any executable: the client is mocked
  vscode.workspace._configEmitter.fire({ affectsConfiguration: (s) => s === 'vox.server.path' });
  await new Promise((r) => setTimeout(r, 10));
  assert.equal(lc.__mock.instances.length, 2);
  assert.equal(lc.__mock.instances[0].running, false);
  vscode.workspace._configEmitter.fire({ affectsConfiguration: () => false });
  vscode.workspace._trustEmitter.fire();
  await new Promise((r) => setTimeout(r, 10));
  assert.equal(lc.__mock.instances.length, 3);
  await vscode.commands.executeCommand('vox.restartServer');
  assert.equal(lc.__mock.instances.length, 4);
  assert.equal(lc.__mock.instances.filter((c) => c.running).length, 1);
});

test('the vox task type: vox run with exactly the task caps, in cwd', async () => {
  vscode.__mock.state.settings['vox.run.maxSteps'] = 100;
  await activate({ 'vox.server.path': FAKE, 'vox.run.maxSteps': 100 });
  const provider = vscode.tasks.providers.vox;
  assert.deepEqual(provider.provideTasks(), []);
  const folder = vscode.__mock.state.workspaceFolders[0];
  const task = new vscode.Task({ type: 'vox', script: 'scripts/greet.vox', caps: ['env:ro', 'fs:ro=data'], cwd: 'scripts', args: ['x'] }, folder, 'vox: greet', 'vox');
  const r = provider.resolveTask(task);
  assert.equal(r.execution.process, FAKE);
  assert.deepEqual(r.execution.args, ['run', '--caps', 'env:ro', '--caps', 'fs:ro=data', '--max-steps', '100', '/ws/scripts/greet.vox', '--', 'x']);
  assert.equal(r.execution.options.cwd, '/ws/scripts');
  // Invalid definitions and Restricted Mode: not resolved, with a message.
  assert.equal(provider.resolveTask(new vscode.Task({ type: 'vox' }, folder, 'bad', 'vox')), undefined);
  vscode.__mock.state.trusted = false;
  assert.equal(provider.resolveTask(task), undefined);
});

test('the vox launch type: F5 without launch.json uses the inferred caps; Restricted Mode refuses', async () => {
  await activate();
  const p = vscode.debug.configProviders.vox;
  const folder = vscode.__mock.state.workspaceFolders[0];
  const cfg = await p.resolveDebugConfiguration(folder, {});
  assert.deepEqual(cfg, { type: 'vox', request: 'launch', name: 'vox: greet.vox', script: 'greet.vox', caps: ['env:ro'] });
  const resolved = p.resolveDebugConfigurationWithSubstitutedVariables(folder, { ...cfg });
  assert.equal(resolved.__folder, '/ws');
  assert.equal(p.resolveDebugConfigurationWithSubstitutedVariables(folder, { type: 'vox', name: 'x' }), undefined);
  vscode.__mock.state.trusted = false;
  assert.equal(p.resolveDebugConfigurationWithSubstitutedVariables(folder, { ...cfg }), undefined);
  const d = vscode.debug.factories.vox.createDebugAdapterDescriptor({ workspaceFolder: folder });
  assert.ok(d instanceof vscode.DebugAdapterInlineImplementation);
});

test('deactivate stops the client', async () => {
  const { ext } = await activate();
  await ext.deactivate();
  assert.equal(lc.__mock.instances[0].running, false);
});
