// A minimal JSON-RPC/LSP client over stdio, for the protocol smoke test. No dependencies.
'use strict';

const { spawn } = require('child_process');
const path = require('path');

/** The server to test: `$VOX_SERVER lsp` when VOX_SERVER is set, else the fake server. */
function serverCommand() {
  const bin = process.env.VOX_SERVER || path.join(__dirname, 'fake-vox');
  return { bin, command: bin, args: ['lsp'] };
}

class LspClient {
  constructor(command, args, opts = {}) {
    this.proc = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'], ...opts });
    this.nextId = 1;
    this.pending = new Map();
    this.notifications = [];
    this.waiters = [];
    this.requestHandlers = {};
    this.stderr = '';
    this.proc.stderr.on('data', (d) => (this.stderr += d));
    this.proc.on('error', (e) => this.failAll(`cannot start ${command}: ${e.message}`));
    this.proc.on('exit', (code, signal) =>
      setImmediate(() => this.failAll(`${command} ${args.join(' ')} exited (code ${code}, signal ${signal}); stderr: ${this.stderr.trim()}`)),
    );
    let buf = Buffer.alloc(0);
    this.proc.stdout.on('data', (chunk) => {
      buf = Buffer.concat([buf, chunk]);
      for (;;) {
        const sep = buf.indexOf('\r\n\r\n');
        if (sep < 0) return;
        const m = /Content-Length:\s*(\d+)/i.exec(buf.slice(0, sep).toString('ascii'));
        const len = Number(m[1]);
        if (buf.length < sep + 4 + len) return;
        const msg = JSON.parse(buf.slice(sep + 4, sep + 4 + len).toString('utf8'));
        buf = buf.slice(sep + 4 + len);
        this.onMessage(msg);
      }
    });
  }

  failAll(message) {
    for (const p of this.pending.values()) p.reject(new Error(message));
    this.pending.clear();
    this.exitMessage = message;
  }

  write(msg) {
    if (this.exitMessage) return;
    const body = Buffer.from(JSON.stringify({ jsonrpc: '2.0', ...msg }), 'utf8');
    this.proc.stdin.write(`Content-Length: ${body.length}\r\n\r\n`);
    this.proc.stdin.write(body);
  }

  onMessage(msg) {
    if (msg.method && msg.id !== undefined) {
      const h = this.requestHandlers[msg.method];
      this.write({ id: msg.id, result: h ? h(msg.params) : null });
      return;
    }
    if (msg.method) {
      this.notifications.push(msg);
      this.waiters = this.waiters.filter((w) => !w(msg));
      return;
    }
    const p = this.pending.get(msg.id);
    if (!p) return;
    this.pending.delete(msg.id);
    if (msg.error) p.reject(Object.assign(new Error(msg.error.message), { code: msg.error.code }));
    else p.resolve(msg.result);
  }

  request(method, params, timeoutMs = 10000) {
    if (this.exitMessage) return Promise.reject(new Error(this.exitMessage));
    const id = this.nextId++;
    this.write({ id, method, params });
    return new Promise((resolve, reject) => {
      const t = setTimeout(() => reject(new Error(`timeout waiting for ${method}`)), timeoutMs);
      this.pending.set(id, {
        resolve: (v) => (clearTimeout(t), resolve(v)),
        reject: (e) => (clearTimeout(t), reject(e)),
      });
    });
  }

  notify(method, params) {
    this.write({ method, params });
  }

  /** Resolves with the first notification (already received or future) for which pred is true. */
  waitFor(pred, timeoutMs = 10000, what = 'notification') {
    const seen = this.notifications.find(pred);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const t = setTimeout(() => reject(new Error(`timeout waiting for ${what}; stderr: ${this.stderr}`)), timeoutMs);
      this.waiters.push((msg) => {
        if (!pred(msg)) return false;
        clearTimeout(t);
        resolve(msg);
        return true;
      });
    });
  }

  async close() {
    try {
      await this.request('shutdown', null, 3000);
      this.notify('exit', null);
    } catch {
      /* already gone */
    }
    await new Promise((resolve) => {
      const t = setTimeout(() => (this.proc.kill('SIGKILL'), resolve()), 3000);
      this.proc.on('exit', () => (clearTimeout(t), resolve()));
      if (this.proc.exitCode !== null) (clearTimeout(t), resolve());
    });
  }
}

module.exports = { LspClient, serverCommand };
