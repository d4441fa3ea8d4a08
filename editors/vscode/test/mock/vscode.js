// A mocked `vscode` module: the subset of the API the extension uses, with hooks for tests
// (`__mock`: settings, trust, answers to messages, recorded calls).
'use strict';

const path = require('path');

class EventEmitter {
  constructor() {
    this.listeners = [];
    this.event = (fn) => {
      this.listeners.push(fn);
      return { dispose: () => (this.listeners = this.listeners.filter((l) => l !== fn)) };
    };
  }
  fire(v) {
    for (const l of [...this.listeners]) l(v);
  }
  dispose() {
    this.listeners = [];
  }
}

class Uri {
  constructor(scheme, p) {
    this.scheme = scheme;
    this.path = p;
    this.fsPath = p;
  }
  static file(p) {
    return new Uri('file', p);
  }
  static parse(s) {
    if (s.startsWith('file://')) return new Uri('file', decodeURIComponent(s.slice(7)));
    const i = s.indexOf(':');
    return new Uri(s.slice(0, i), s.slice(i + 1));
  }
  toString() {
    return this.scheme === 'file' ? 'file://' + encodeURI(this.path) : `${this.scheme}:${this.path}`;
  }
}

const state = {
  settings: {}, // 'vox.server.path' → value (workspace level)
  globalSettings: {},
  trusted: true,
  calls: [], // {fn, args}
  answers: {}, // message text prefix → button to answer with
  quickPick: undefined,
  commands: new Map(),
  contexts: {},
  clipboard: '',
  workspaceFolders: [],
};

function record(fn, ...args) {
  state.calls.push({ fn, args });
}

function answerFor(msg) {
  for (const [prefix, ans] of Object.entries(state.answers)) if (msg.startsWith(prefix)) return ans;
  return undefined;
}

const workspace = {
  _trustEmitter: new EventEmitter(),
  _configEmitter: new EventEmitter(),
  get isTrusted() {
    return state.trusted;
  },
  get workspaceFolders() {
    return state.workspaceFolders;
  },
  textDocuments: [],
  getConfiguration(section) {
    const full = (k) => (section ? `${section}.${k}` : k);
    return {
      get(key, def) {
        const k = full(key);
        if (k in state.settings) return state.settings[k];
        if (k in state.globalSettings) return state.globalSettings[k];
        return def;
      },
      inspect(key) {
        const k = full(key);
        return { key: k, globalValue: state.globalSettings[k], workspaceValue: state.settings[k] };
      },
    };
  },
  asRelativePath(uri) {
    const p = typeof uri === 'string' ? uri : uri.fsPath;
    const root = state.workspaceFolders[0]?.uri.fsPath;
    return root && p.startsWith(root + path.sep) ? p.slice(root.length + 1) : p;
  },
  contentProviders: {},
  registerTextDocumentContentProvider(scheme, provider) {
    workspace.contentProviders[scheme] = provider;
    return { dispose: () => delete workspace.contentProviders[scheme] };
  },
  onDidGrantWorkspaceTrust: (fn) => workspace._trustEmitter.event(fn),
  onDidChangeConfiguration: (fn) => workspace._configEmitter.event(fn),
};

function outputChannel(name) {
  return {
    name,
    text: '',
    shown: 0,
    append(t) {
      this.text += t;
    },
    appendLine(t) {
      this.text += t + '\n';
    },
    show() {
      this.shown++;
    },
    dispose() {},
  };
}

const window = {
  activeTextEditor: undefined,
  outputChannels: [],
  statusBarItems: [],
  createOutputChannel(name) {
    const c = outputChannel(name);
    window.outputChannels.push(c);
    return c;
  },
  createStatusBarItem(id, alignment, priority) {
    const item = {
      id,
      alignment,
      priority,
      text: '',
      visible: false,
      show() {
        this.visible = true;
      },
      hide() {
        this.visible = false;
      },
      dispose() {},
    };
    window.statusBarItems.push(item);
    return item;
  },
  showInformationMessage: (msg, ...items) => (record('showInformationMessage', msg, ...items), Promise.resolve(answerFor(msg))),
  showWarningMessage: (msg, ...items) => (record('showWarningMessage', msg, ...items), Promise.resolve(answerFor(msg))),
  showErrorMessage: (msg, ...items) => (record('showErrorMessage', msg, ...items), Promise.resolve(answerFor(msg))),
  withProgress: (opts, task) => (record('withProgress', opts), Promise.resolve(task({ report() {} }))),
  showQuickPick: (items, opts) => (record('showQuickPick', items, opts), Promise.resolve(state.quickPick ? state.quickPick(items) : undefined)),
};

const commands = {
  registerCommand(id, fn) {
    if (state.commands.has(id)) throw new Error(`command '${id}' already exists`);
    state.commands.set(id, fn);
    return { dispose: () => state.commands.delete(id) };
  },
  async executeCommand(id, ...args) {
    if (id === 'setContext') {
      state.contexts[args[0]] = args[1];
      return undefined;
    }
    record('executeCommand', id, ...args);
    const fn = state.commands.get(id);
    return fn ? fn(...args) : undefined;
  },
};

class Range {
  constructor(startLine, startCharacter, endLine, endCharacter) {
    this.start = { line: startLine, character: startCharacter };
    this.end = { line: endLine, character: endCharacter };
  }
}

class Task {
  constructor(definition, scope, name, source, execution, problemMatchers) {
    Object.assign(this, { definition, scope, name, source, execution, problemMatchers });
  }
}
class ProcessExecution {
  constructor(process, args, options) {
    Object.assign(this, { process, args, options });
  }
}
class DebugAdapterInlineImplementation {
  constructor(implementation) {
    this.implementation = implementation;
  }
}

const tasks = {
  providers: {},
  registerTaskProvider(type, p) {
    tasks.providers[type] = p;
    return { dispose() {} };
  },
};
const debug = {
  configProviders: {},
  factories: {},
  registerDebugConfigurationProvider(type, p) {
    debug.configProviders[type] = p;
    return { dispose() {} };
  },
  registerDebugAdapterDescriptorFactory(type, f) {
    debug.factories[type] = f;
    return { dispose() {} };
  },
};

function reset() {
  state.settings = {};
  state.globalSettings = {};
  state.trusted = true;
  state.calls = [];
  state.answers = {};
  state.quickPick = undefined;
  state.commands = new Map();
  state.contexts = {};
  state.clipboard = '';
  state.workspaceFolders = [];
  workspace.textDocuments = [];
  workspace.contentProviders = {};
  window.activeTextEditor = undefined;
  window.outputChannels = [];
  window.statusBarItems = [];
  tasks.providers = {};
  debug.configProviders = {};
  debug.factories = {};
  workspace._trustEmitter = new EventEmitter();
  workspace._configEmitter = new EventEmitter();
}

/** A text document for `workspace.textDocuments` / `activeTextEditor`. */
function document(fsPath, text, languageId = 'voxscript') {
  return {
    uri: Uri.file(fsPath),
    languageId,
    isDirty: false,
    saved: 0,
    getText: () => text,
    save() {
      this.saved++;
      this.isDirty = false;
      return Promise.resolve(true);
    },
  };
}

module.exports = {
  EventEmitter,
  Uri,
  workspace,
  window,
  commands,
  tasks,
  debug,
  Task,
  ProcessExecution,
  DebugAdapterInlineImplementation,
  Range,
  ProgressLocation: { SourceControl: 1, Window: 10, Notification: 15 },
  StatusBarAlignment: { Left: 1, Right: 2 },
  TaskScope: { Global: 1, Workspace: 2 },
  env: {
    clipboard: {
      writeText: (t) => ((state.clipboard = t), Promise.resolve()),
      readText: () => Promise.resolve(state.clipboard),
    },
  },
  __mock: { state, reset, document, record },
};
