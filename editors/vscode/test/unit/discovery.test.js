// Server discovery: vox.server.path, else the bundled binary, else PATH; a clear message otherwise.
'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('path');
const { out } = require('../mock/register');
const { findServer, isFound, bundledCandidates, isExecutableFile } = out('discovery.js');

function env(files, over = {}) {
  const set = new Set(files);
  return {
    settingPath: null,
    extensionPath: '/ext',
    envPath: '/usr/local/bin:/usr/bin',
    platform: 'linux',
    arch: 'x64',
    isExecutable: (p) => set.has(p),
    workspaceFolder: '/ws',
    homeDir: '/home/ann',
    ...over,
  };
}

test('the setting wins over bundled and PATH', () => {
  const r = findServer(env(['/opt/vox/bin/vox', '/ext/bin/vox', '/usr/bin/vox'], { settingPath: '/opt/vox/bin/vox' }));
  assert.deepEqual(r, { path: '/opt/vox/bin/vox', source: 'setting' });
});

test('a relative or ~ setting is resolved against the workspace folder or home', () => {
  assert.deepEqual(findServer(env(['/ws/target/debug/vox'], { settingPath: 'target/debug/vox' })), { path: '/ws/target/debug/vox', source: 'setting' });
  assert.deepEqual(findServer(env(['/home/ann/.cargo/bin/vox'], { settingPath: '~/.cargo/bin/vox' })), { path: '/home/ann/.cargo/bin/vox', source: 'setting' });
});

test('a setting that points nowhere is an error: no silent fallback', () => {
  const r = findServer(env(['/ext/bin/vox', '/usr/bin/vox'], { settingPath: '/nope/vox' }));
  assert.ok(!isFound(r));
  assert.match(r.message, /vox\.server\.path/);
  assert.match(r.message, /\/nope\/vox/);
});

test('bundled: the platform-specific binary first, then bin/vox', () => {
  assert.deepEqual(bundledCandidates('/ext', 'linux', 'x64'), [path.join('/ext/bin/linux-x64/vox'), path.join('/ext/bin/vox')]);
  assert.deepEqual(findServer(env(['/ext/bin/linux-x64/vox', '/ext/bin/vox', '/usr/bin/vox'])), { path: '/ext/bin/linux-x64/vox', source: 'bundled' });
  assert.deepEqual(findServer(env(['/ext/bin/vox', '/usr/bin/vox'])), { path: '/ext/bin/vox', source: 'bundled' });
  assert.deepEqual(bundledCandidates('/ext', 'win32', 'x64')[1], path.join('/ext/bin/vox.exe'));
});

test('PATH, in order', () => {
  assert.deepEqual(findServer(env(['/usr/bin/vox', '/usr/local/bin/vox'])), { path: '/usr/local/bin/vox', source: 'PATH' });
});

test('not found: the message says where it looked and what to do', () => {
  const r = findServer(env([], { envPath: '' }));
  assert.ok(!isFound(r));
  assert.match(r.message, /not found/);
  assert.match(r.message, /vox\.server\.path/);
  assert.match(r.message, /bundled/);
  assert.match(r.message, /PATH/);
  assert.equal(r.tried.length, 2);
});

test('isExecutableFile on the real file system', () => {
  assert.equal(isExecutableFile(path.join(__dirname, '..', '..', '..', 'test', 'fake-vox')), true);
  assert.equal(isExecutableFile(__filename), false); // not executable
  assert.equal(isExecutableFile(__dirname), false); // a directory
  assert.equal(isExecutableFile('/nonexistent/vox'), false);
});
