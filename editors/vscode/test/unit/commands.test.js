// Command wiring: each command calls the server's execute command with the documented arguments,
// runs are refused in Restricted Mode, and run output reaches the output channel and the status bar.
'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const { vscode, out } = require('../mock/register');
const pkg = require('../../package.json');
const commands = out('commands.js');
const { RunManager, describeExit } = out('runs.js');

function setup() {
  vscode.__mock.reset();
  const calls = [];
  let answer = async (command) => (command === 'vox.showCaps' ? { tokens: ['env:ro', 'fs:ro=data'], notes: ['env:ro: env.get at line 3'] } : { runId: 7 });
  const link = { executeCommand: (command, args) => (calls.push({ command, args }), answer(command, args)) };
  const outCh = vscode.window.createOutputChannel('Vox Run');
  const status = vscode.window.createStatusBarItem('vox.run');
  const runs = new RunManager(outCh, status, (runId) => link.executeCommand('vox.stop', [{ runId }]));
  let trusted = true;
  let restarted = 0;
  const deps = { link: () => link, runs, restart: async () => restarted++, isTrusted: () => trusted };
  const ctx = { subscriptions: [] };
  commands.registerCommands(ctx, deps);
  const doc = vscode.__mock.document('/ws/greet.vox', 'fn main() {\n}\n\n@test\nfn one() {\n}\n\n@test\nfn two() {\n}\n');
  vscode.__mock.state.workspaceFolders = [{ uri: vscode.Uri.file('/ws'), name: 'ws' }];
  vscode.workspace.textDocuments.push(doc);
  vscode.window.activeTextEditor = { document: doc, selection: { active: { line: 9 } } };
  return {
    calls, runs, outCh, status, doc, ctx, deps,
    setTrusted: (t) => (trusted = t),
    setLink: (l) => (deps.link = () => l),
    setAnswer: (f) => (answer = f),
    restarted: () => restarted,
  };
}

const run = (id, ...args) => vscode.commands.executeCommand(id, ...args);

test('the registered commands are exactly the contributed ones', () => {
  const t = setup();
  const contributed = pkg.contributes.commands.map((c) => c.command).sort();
  assert.deepEqual([...vscode.__mock.state.commands.keys()].sort(), contributed);
  assert.deepEqual([...commands.COMMAND_IDS].sort(), contributed);
  // None collides with the server's own command ids (vscode-languageclient registers those).
  for (const id of ['vox.run', 'vox.runTest', 'vox.stop', 'vox.showCaps']) assert.ok(!contributed.includes(id), id);
  assert.equal(t.ctx.subscriptions.length, contributed.length);
});

test('Run Script: vox.run with the document uri, saves first, shows output and the status bar', async () => {
  const t = setup();
  t.doc.isDirty = true;
  const runId = await run('vox.runScript');
  assert.equal(runId, 7);
  assert.equal(t.doc.saved, 1);
  assert.deepEqual(t.calls, [{ command: 'vox.run', args: [{ uri: 'file:///ws/greet.vox' }] }]);
  assert.equal(t.status.visible, true);
  assert.match(t.status.text, /vox run greet\.vox/);
  assert.equal(t.status.command, 'vox.stopRun');
  assert.equal(vscode.__mock.state.contexts['vox.runActive'], true);
  t.runs.onOutput({ runId: 7, stream: 'stdout', text: 'hello\n' });
  t.runs.onOutput({ runId: 7, stream: 'stderr', text: 'warn\n' });
  t.runs.onExit({ runId: 7, code: 0 });
  assert.match(t.outCh.text, /▶ vox run greet\.vox {2}\[run 7\]\nhello\nwarn\n■ vox run greet\.vox: exited with code 0\n/);
  assert.ok(t.outCh.shown >= 1);
  assert.equal(t.status.visible, false);
  assert.equal(vscode.__mock.state.contexts['vox.runActive'], false);
});

test('Run Script with an explicit uri (editor title button)', async () => {
  const t = setup();
  await run('vox.runScript', vscode.Uri.file('/ws/other.vox'));
  assert.deepEqual(t.calls, [{ command: 'vox.run', args: [{ uri: 'file:///ws/other.vox' }] }]);
});

test('Restricted Mode: no run, a message instead', async () => {
  const t = setup();
  t.setTrusted(false);
  assert.equal(await run('vox.runScript'), undefined);
  assert.equal(await run('vox.runTestAtCursor'), undefined);
  assert.deepEqual(t.calls, []);
  const warnings = vscode.__mock.state.calls.filter((c) => c.fn === 'showWarningMessage');
  assert.equal(warnings.length, 2);
  assert.match(warnings[0].args[0], /Restricted Mode/);
  // Showing the inferred caps is analysis, not a run: still allowed.
  await run('vox.showInferredCaps');
  assert.deepEqual(t.calls.map((c) => c.command), ['vox.showCaps']);
});

test('Run Test: the test at the cursor, by name', async () => {
  const t = setup();
  await run('vox.runTestAtCursor');
  assert.deepEqual(t.calls, [{ command: 'vox.runTest', args: [{ uri: 'file:///ws/greet.vox', test: 'two' }] }]);
  assert.match(t.status.text, /--test two/);
});

test('Run Test: outside any test, asks which one', async () => {
  const t = setup();
  vscode.window.activeTextEditor.selection.active.line = 0;
  vscode.__mock.state.quickPick = (items) => items[0];
  await run('vox.runTestAtCursor');
  assert.deepEqual(t.calls, [{ command: 'vox.runTest', args: [{ uri: 'file:///ws/greet.vox', test: 'one' }] }]);
});

test('testsInText and testAtLine', () => {
  const tests = commands.testsInText('@test\nfn a() {}\n// x\n@example\n\npub fn b() {\n}\n@test fn c() {}\n');
  assert.deepEqual(tests.map((x) => [x.name, x.line, x.fnLine]), [['a', 0, 1], ['b', 3, 5], ['c', 7, 7]]);
  assert.equal(commands.testAtLine(tests, 4).name, 'b');
  assert.equal(commands.testAtLine(tests, -1), undefined);
});

test('Show Inferred Capabilities: vox.showCaps, tokens shown, copy as flags', async () => {
  const t = setup();
  vscode.__mock.state.answers['Inferred capabilities'] = 'Copy --caps flags';
  const res = await run('vox.showInferredCaps');
  assert.deepEqual(res.tokens, ['env:ro', 'fs:ro=data']);
  assert.deepEqual(t.calls, [{ command: 'vox.showCaps', args: [{ uri: 'file:///ws/greet.vox' }] }]);
  await new Promise((r) => setImmediate(r));
  const info = vscode.__mock.state.calls.find((c) => c.fn === 'showInformationMessage');
  assert.equal(info.args[0], 'Inferred capabilities: env:ro fs:ro=data');
  assert.equal(vscode.__mock.state.clipboard, '--caps env:ro --caps fs:ro=data');
  assert.match(t.outCh.text, /env:ro: env\.get at line 3/);
});

test('Stop Run: vox.stop with the active run id', async () => {
  const t = setup();
  await run('vox.runScript');
  await run('vox.stopRun');
  assert.deepEqual(t.calls[1], { command: 'vox.stop', args: [{ runId: 7 }] });
  // Nothing active: a message, no request.
  t.runs.onExit({ runId: 7, code: 130 });
  await run('vox.stopRun');
  assert.equal(t.calls.length, 2);
  assert.match(t.outCh.text, /stopped \(code 130\)/);
});

test('Restart Server calls restart', async () => {
  const t = setup();
  await run('vox.restartServer');
  assert.equal(t.restarted(), 1);
});

test('no server running: a clear error, no request', async () => {
  const t = setup();
  t.setLink(undefined);
  assert.equal(await run('vox.runScript'), undefined);
  const err = vscode.__mock.state.calls.find((c) => c.fn === 'showErrorMessage');
  assert.match(err.args[0], /not running/);
});

test('output that arrives before the run id (a code lens run) is still shown once', () => {
  const t = setup();
  t.runs.onOutput({ runId: 3, stream: 'stdout', text: 'early\n' });
  assert.equal(t.status.visible, true);
  t.runs.started(3, 'vox run greet.vox');
  t.runs.onExit({ runId: 3, code: 77 });
  assert.equal((t.outCh.text.match(/▶/g) || []).length, 1);
  assert.match(t.outCh.text, /capability denied/);
  // started() after exit does not resurrect the run.
  t.runs.started(3, 'late');
  assert.equal(t.status.visible, false);
});

test('describeExit', () => {
  assert.match(describeExit(78), /ceiling/);
  assert.match(describeExit(79), /memory limit exceeded/);
  assert.doesNotMatch(describeExit(79), /timeout/);
  assert.equal(describeExit(2), 'exited with code 2');
});
