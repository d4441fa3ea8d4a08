// A mocked `vscode-languageclient/node`: records what the extension asks of the client, and lets a test
// answer requests and deliver notifications.
'use strict';

const instances = [];
let answer = async () => null;

class LanguageClient {
  constructor(id, name, serverOptions, clientOptions) {
    Object.assign(this, { id, name, serverOptions, clientOptions });
    this.running = false;
    this.requests = [];
    this.notificationHandlers = {};
    instances.push(this);
  }
  async start() {
    this.running = true;
  }
  async stop() {
    this.running = false;
  }
  isRunning() {
    return this.running;
  }
  registerFeature(feature) {
    (this.features = this.features || []).push(feature);
  }
  /** Test hook: the client capabilities the registered features declare. */
  filledCapabilities() {
    const caps = {};
    for (const f of this.features || []) f.fillClientCapabilities(caps);
    return caps;
  }
  onNotification(method, handler) {
    this.notificationHandlers[method] = handler;
    return { dispose() {} };
  }
  async sendRequest(type, params) {
    const method = typeof type === 'string' ? type : type.method;
    this.requests.push({ method, params });
    return answer(method, params);
  }
  /** Test hook: deliver a server notification. */
  notify(method, params) {
    const h = this.notificationHandlers[method];
    if (!h) throw new Error(`no handler for ${method}`);
    h(params);
  }
  /** Test hook: what the extension's middleware does when a code lens runs a server command. */
  async runLensCommand(command, args) {
    const next = (c, a) => this.sendRequest({ method: 'workspace/executeCommand' }, { command: c, arguments: a });
    const mw = this.clientOptions.middleware && this.clientOptions.middleware.executeCommand;
    return mw ? mw(command, args, next) : next(command, args);
  }
}

module.exports = {
  LanguageClient,
  TransportKind: { stdio: 0, ipc: 1, pipe: 2, socket: 3 },
  ExecuteCommandRequest: { type: { method: 'workspace/executeCommand' } },
  __mock: {
    instances,
    setAnswer: (fn) => (answer = fn),
    reset: () => {
      instances.length = 0;
      answer = async () => null;
    },
  },
};
