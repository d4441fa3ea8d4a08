// The inline debug adapter (decision 42): DAP requests in, `vox run` started with the configuration's
// fields, its output streamed as output events, then exited + terminated. Uses the fake vox for real.
'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('path');
const { EventEmitter } = require('events');
const { out } = require('../mock/register');
const { VoxDebugAdapter } = out('debug.js');

const FAKE = path.resolve(__dirname, '..', '..', '..', 'test', 'fake-vox');
const WS = path.resolve(__dirname, '..', '..', '..', 'test', 'fixtures', 'workspace');

function session(adapter) {
  const msgs = [];
  let seq = 1;
  adapter.onDidSendMessage((m) => msgs.push(m));
  const send = (command, args) => adapter.handleMessage({ seq: seq++, type: 'request', command, arguments: args });
  const until = (pred, ms = 10000) =>
    new Promise((resolve, reject) => {
      const t0 = Date.now();
      const tick = () => {
        const m = msgs.find(pred);
        if (m) return resolve(m);
        if (Date.now() - t0 > ms) return reject(new Error('timeout; got ' + JSON.stringify(msgs)));
        setTimeout(tick, 20);
      };
      tick();
    });
  return { msgs, send, until };
}

test('runs `vox run` with the configuration and streams its output', async () => {
  const s = session(new VoxDebugAdapter(FAKE, { maxSteps: 1000 }));
  s.send('initialize', { adapterID: 'vox' });
  assert.equal(s.msgs[0].type, 'response');
  assert.equal(s.msgs[0].body.supportsConfigurationDoneRequest, true);
  assert.equal(s.msgs[1].event, 'initialized');
  s.send('setBreakpoints', { breakpoints: [{ line: 3 }] });
  assert.equal(s.msgs[2].body.breakpoints[0].verified, false);
  s.send('launch', { script: 'greet.vox', caps: ['env:ro', 'fs:ro=data', 'time:real'], args: ['a'], __folder: WS });
  s.send('configurationDone');
  const term = await s.until((m) => m.event === 'terminated');
  assert.ok(term);
  const outputs = s.msgs.filter((m) => m.event === 'output');
  const console = outputs.filter((m) => m.body.category === 'console').map((m) => m.body.output).join('');
  assert.match(console, /fake-vox run --caps env:ro --caps fs:ro=data --caps time:real --max-steps 1000 .*greet\.vox -- a/);
  const stdout = outputs.filter((m) => m.body.category === 'stdout').map((m) => m.body.output).join('');
  assert.match(stdout, /vox demo: starting/);
  const stderr = outputs.filter((m) => m.body.category === 'stderr').map((m) => m.body.output).join('');
  assert.match(stderr, /simulated run of greet\.vox with --caps env:ro/);
  assert.deepEqual(s.msgs.find((m) => m.event === 'exited').body, { exitCode: 0 });
  // Every request got a response, in order.
  const responses = s.msgs.filter((m) => m.type === 'response');
  assert.deepEqual(responses.map((r) => r.command), ['initialize', 'setBreakpoints', 'launch', 'configurationDone']);
  assert.ok(responses.every((r) => r.success));
});

test('an invalid configuration fails the launch request with the reason', () => {
  const s = session(new VoxDebugAdapter(FAKE, {}));
  s.send('launch', { caps: 'env:ro' });
  assert.equal(s.msgs[0].success, false);
  assert.match(s.msgs[0].message, /needs "script"/);
});

test('disconnect stops the child', async () => {
  const child = new EventEmitter();
  child.stdout = new EventEmitter();
  child.stderr = new EventEmitter();
  child.stdout.setEncoding = child.stderr.setEncoding = () => {};
  child.exitCode = null;
  let killed = null;
  child.kill = (sig) => {
    killed = sig;
    setImmediate(() => child.emit('close', null, sig));
  };
  let spawned;
  const s = session(new VoxDebugAdapter('/bin/vox', {}, (cmd, args, opts) => ((spawned = { cmd, args, opts }), child)));
  s.send('launch', { script: 'a.vox', cwd: 'sub', __folder: '/ws' });
  assert.deepEqual(spawned.args, ['run', '--caps', 'none', '/ws/a.vox']);
  assert.equal(spawned.opts.cwd, '/ws/sub');
  child.stdout.emit('data', 'x');
  s.send('disconnect', {});
  assert.equal(killed, 'SIGTERM');
  await s.until((m) => m.event === 'terminated');
  assert.deepEqual(s.msgs.find((m) => m.event === 'exited').body, { exitCode: 130 });
});
