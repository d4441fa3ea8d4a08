// Settings: defaults, the flags they produce, and that package.json declares exactly what the code reads.
'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const { vscode, out } = require('../mock/register');
const pkg = require('../../package.json');
const config = out('config.js');

test.beforeEach(() => vscode.__mock.reset());

test('defaults', () => {
  const s = config.readSettings();
  assert.deepEqual(s, { serverPath: null, lintDeterminism: false, inlayHintsCapabilities: true, inlayHintsInferredTypes: false, run: {} });
  assert.deepEqual(config.ceilingFlags(s.run), []);
});

test('values from the settings, blank server path is unset', () => {
  Object.assign(vscode.__mock.state.settings, {
    'vox.server.path': '  ',
    'vox.lint.determinism': true,
    'vox.inlayHints.capabilities': false,
    'vox.inlayHints.inferredTypes': true,
    'vox.run.maxSteps': 1000,
    'vox.run.maxMemory': '64MiB',
    'vox.run.timeout': 30,
  });
  const s = config.readSettings();
  assert.equal(s.serverPath, null);
  assert.equal(s.lintDeterminism, true);
  assert.equal(s.inlayHintsCapabilities, false);
  assert.equal(s.inlayHintsInferredTypes, true);
  assert.deepEqual(config.ceilingFlags(s.run), ['--max-steps', '1000', '--max-memory', '64MiB', '--timeout', '30']);
  assert.deepEqual(config.serverSettings(s), {
    lint: { determinism: true },
    inlayHints: { capabilities: false, inferredTypes: true },
    run: { maxSteps: 1000, maxMemory: '64MiB', timeout: 30 },
  });
});

test('every vox.* setting in package.json is read by the code, with the same default', () => {
  const props = pkg.contributes.configuration.properties;
  const keys = Object.keys(props).filter((k) => k !== 'vox.trace.server'); // read by vscode-languageclient
  const s = config.readSettings();
  const read = {
    'vox.server.path': s.serverPath,
    'vox.lint.determinism': s.lintDeterminism,
    'vox.inlayHints.capabilities': s.inlayHintsCapabilities,
    'vox.inlayHints.inferredTypes': s.inlayHintsInferredTypes,
  };
  for (const k of keys) {
    if (k.startsWith('vox.run.')) {
      assert.ok(['maxSteps', 'maxDepth', 'maxMemory', 'maxDisk', 'maxFiles', 'maxOutput', 'timeout'].includes(k.slice(8)), k);
      assert.equal(props[k].default, null, `${k} default`);
      continue;
    }
    assert.ok(k in read, `package.json declares ${k}, which the code does not read`);
    assert.deepEqual(props[k].default, read[k], `${k} default`);
  }
  // Each ceiling turns into its flag.
  const all = Object.fromEntries(keys.filter((k) => k.startsWith('vox.run.')).map((k) => [k.slice(8), props[k].type.includes('integer') ? 1 : '1MiB']));
  assert.equal(config.ceilingFlags(all).length, 2 * Object.keys(all).length);
});

test('Restricted Mode: the settings that build command lines are restricted', () => {
  const u = pkg.capabilities.untrustedWorkspaces;
  assert.equal(u.supported, 'limited');
  const props = Object.keys(pkg.contributes.configuration.properties);
  const expected = props.filter((k) => k === 'vox.server.path' || k.startsWith('vox.run.')).sort();
  assert.deepEqual([...u.restrictedConfigurations].sort(), expected);
});

test('run command lines: caps, none, config, ceilings and args', () => {
  const ceil = { maxSteps: 5 };
  assert.deepEqual(config.runArgs({ script: 'a.vox', caps: ['fs:ro=data', 'env:ro'] }, ceil), [
    'run', '--caps', 'fs:ro=data', '--caps', 'env:ro', '--max-steps', '5', 'a.vox',
  ]);
  // No caps means none, never "allow all".
  assert.deepEqual(config.runArgs({ script: 'a.vox' }, {}), ['run', '--caps', 'none', 'a.vox']);
  assert.deepEqual(config.runArgs({ script: 'a.vox', config: 'build', args: ['--x', 'y'] }, ceil), [
    'run', '--config', 'build', 'a.vox', '--', '--x', 'y',
  ]);
});

test('run configuration validation', () => {
  assert.equal(config.validateRunConfiguration({ script: 'a.vox', caps: ['env:ro'] }), null);
  assert.match(config.validateRunConfiguration({}), /needs "script"/);
  assert.match(config.validateRunConfiguration({ script: 'a.vox', caps: 'env:ro' }), /"caps" must be a list/);
  assert.match(config.validateRunConfiguration({ script: 'a.vox', args: [1] }), /"args"/);
  assert.match(config.validateRunConfiguration({ script: 'a.vox', config: 'b', caps: ['env:ro'] }), /cannot be combined/);
});

test('task and launch schemas have the run configuration fields', () => {
  const task = pkg.contributes.taskDefinitions.find((t) => t.type === 'vox');
  const launch = pkg.contributes.debuggers.find((d) => d.type === 'vox').configurationAttributes.launch;
  for (const schema of [task, launch]) {
    assert.deepEqual(schema.required, ['script']);
    for (const f of ['script', 'caps', 'cwd', 'args']) assert.ok(schema.properties[f], f);
    assert.equal(schema.properties.caps.type, 'array');
    const re = new RegExp(schema.properties.caps.items.pattern);
    for (const ok of ['fs:ro=data', 'env:ro', 'time:frozen=0', 'none', 'net:allow']) assert.match(ok, re);
    assert.doesNotMatch('--caps env:ro', re);
  }
});

test('activation events and language contribution', () => {
  assert.ok(pkg.activationEvents.includes('onLanguage:voxscript'));
  assert.ok(pkg.activationEvents.includes('onDebugResolve:vox'));
  assert.ok(pkg.activationEvents.includes('onTaskType:vox'));
  const lang = pkg.contributes.languages.find((l) => l.id === 'voxscript');
  assert.deepEqual(lang.extensions, ['.vox']);
  assert.equal(pkg.contributes.grammars[0].scopeName, 'source.vox');
  const lc = require('../../language-configuration.json');
  assert.equal(lc.comments.lineComment, '//');
  assert.ok(lc.indentationRules && lc.autoClosingPairs.length >= 3);
});
