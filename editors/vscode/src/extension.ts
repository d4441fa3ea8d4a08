// VoxScript for VS Code: starts `vox lsp` through vscode-languageclient and adds what a language
// server cannot: run output and a status bar item, the `vox` task and launch types, Workspace Trust.
import * as os from 'os';
import * as vscode from 'vscode';
import { ExecuteCommandRequest, LanguageClient, LanguageClientOptions, ServerOptions, TransportKind } from 'vscode-languageclient/node';
import { registerCommands, CommandDeps, presentCaps, RESTRICTED_MESSAGE, CapsResult } from './commands';
import { readSettings, serverSettings } from './config';
import { VoxDebugAdapterFactory, VoxDebugConfigurationProvider } from './debug';
import { findServer, Found, isExecutableFile, isFound } from './discovery';
import { isProveResult, PROVE_SCHEME, ProveDocuments, showProve } from './prove';
import { RunExitParams, RunManager, RunOutputParams } from './runs';
import { VoxTaskProvider } from './tasks';

export interface VoxApi {
  readonly client: LanguageClient | undefined;
  readonly server: Found | undefined;
  readonly runs: RunManager;
  restart(): Promise<void>;
}

let state: { client?: LanguageClient; server?: Found } = {};

function isTrusted(): boolean {
  return vscode.workspace.isTrusted !== false;
}

/** `vox.server.path`; in Restricted Mode only the user's own (global) value counts. */
function settingServerPath(): string | null {
  const c = vscode.workspace.getConfiguration('vox');
  if (isTrusted()) return readSettings().serverPath;
  const v = c.inspect<string | null>('server.path')?.globalValue;
  return v && v.trim() !== '' ? v.trim() : null;
}

function discover(extensionPath: string) {
  return findServer({
    settingPath: settingServerPath(),
    extensionPath,
    envPath: process.env.PATH,
    platform: process.platform,
    arch: process.arch,
    isExecutable: isExecutableFile,
    workspaceFolder: vscode.workspace.workspaceFolders?.[0]?.uri.fsPath,
    homeDir: os.homedir(),
  });
}

export async function activate(context: vscode.ExtensionContext): Promise<VoxApi> {
  const serverOutput = vscode.window.createOutputChannel('VoxScript Language Server');
  const runOutput = vscode.window.createOutputChannel('Vox Run');
  const status = vscode.window.createStatusBarItem('vox.run', vscode.StatusBarAlignment.Left, 50);
  context.subscriptions.push(serverOutput, runOutput);

  const link = () => {
    const c = state.client;
    if (!c || !c.isRunning()) return undefined;
    return { executeCommand: (command: string, args: unknown[]) => c.sendRequest(ExecuteCommandRequest.type, { command, arguments: args }) };
  };

  const runs = new RunManager(runOutput, status, async (runId) => link()?.executeCommand('vox.stop', [{ runId }]));
  context.subscriptions.push(runs);

  const deps: CommandDeps = { link, runs, restart: () => restart(), isTrusted };
  const proveDocs = new ProveDocuments();
  context.subscriptions.push(proveDocs, vscode.workspace.registerTextDocumentContentProvider(PROVE_SCHEME, proveDocs));

  let lastSettingPath: string | null = null;

  async function startClient(): Promise<void> {
    lastSettingPath = settingServerPath();
    const found = discover(context.extensionPath);
    if (!isFound(found)) {
      state = {};
      serverOutput.appendLine(found.message);
      for (const t of found.tried) serverOutput.appendLine(`  looked at ${t}`);
      void vscode.window.showErrorMessage(found.message, 'Open Settings').then((c) => {
        if (c) void vscode.commands.executeCommand('workbench.action.openSettings', 'vox.server.path');
      });
      return;
    }
    serverOutput.appendLine(`Using vox from ${found.source === 'setting' ? 'vox.server.path' : found.source === 'bundled' ? 'the extension bundle' : 'PATH'}: ${found.path}`);
    const serverOptions: ServerOptions = {
      command: found.path,
      args: ['lsp'],
      transport: TransportKind.stdio,
      options: { cwd: vscode.workspace.workspaceFolders?.[0]?.uri.fsPath },
    };
    const clientOptions: LanguageClientOptions = {
      documentSelector: [
        { scheme: 'file', language: 'voxscript' },
        { scheme: 'untitled', language: 'voxscript' },
      ],
      outputChannel: serverOutput,
      initializationOptions: serverSettings(readSettings()),
      synchronize: { configurationSection: 'vox' },
      middleware: {
        // Code lenses call the server's commands directly; runs still need trust, the status bar and output.
        executeCommand: async (command, args, next) => {
          if ((command === 'vox.run' || command === 'vox.runTest') && !isTrusted()) {
            void vscode.window.showWarningMessage(RESTRICTED_MESSAGE);
            return undefined;
          }
          if (command === 'vox.prove' && !isTrusted()) {
            void vscode.window.showWarningMessage(RESTRICTED_MESSAGE);
            return undefined;
          }
          if (command === 'vox.run' || command === 'vox.runTest' || command === 'vox.prove') {
            const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === args?.[0]?.uri);
            if (doc?.isDirty) await doc.save();
          }
          if (command === 'vox.prove') {
            // The server answers when both runs have ended; its verdict also arrives as window/showMessage.
            const a = args?.[0] ?? {};
            const name = a.uri ? vscode.workspace.asRelativePath(vscode.Uri.parse(a.uri), false) : 'script';
            const res = await vscode.window.withProgress(
              { location: vscode.ProgressLocation.Notification, title: `vox prove ${name}: running it with --perturb 1, then --perturb 2…` },
              () => Promise.resolve(next(command, args)),
            );
            if (isProveResult(res)) await showProve(proveDocs, res);
            return res;
          }
          const res = await next(command, args);
          if ((command === 'vox.run' || command === 'vox.runTest') && res && typeof res.runId === 'number') {
            const a = args?.[0] ?? {};
            const name = a.uri ? vscode.workspace.asRelativePath(vscode.Uri.parse(a.uri), false) : 'script';
            runs.started(res.runId, command === 'vox.run' ? `vox run ${name}` : `vox test ${name} --test ${a.test}`);
          } else if (command === 'vox.showCaps' && res && Array.isArray(res.tokens)) {
            void presentCaps(deps, args?.[0]?.uri ?? '', res as CapsResult);
          }
          return res;
        },
      },
    };
    const client = new LanguageClient('vox', 'VoxScript Language Server', serverOptions, clientOptions);
    // The extension presents vox.showCaps's result itself: the server then sends no window/showMessage
    // repeating it (decision 54).
    client.registerFeature({
      fillClientCapabilities: (caps) => {
        caps.experimental = { ...(caps.experimental ?? {}), vox: { showCaps: 'client' } };
      },
      initialize: () => undefined,
      getState: () => ({ kind: 'static' }),
      clear: () => undefined,
    });
    client.onNotification('vox/runOutput', (p: RunOutputParams) => runs.onOutput(p));
    client.onNotification('vox/runExit', (p: RunExitParams) => runs.onExit(p));
    state = { client, server: found };
    try {
      await client.start();
    } catch (e) {
      serverOutput.appendLine(`vox lsp failed to start: ${(e as Error).message}`);
      void vscode.window.showErrorMessage(`VoxScript: "${found.path} lsp" failed to start: ${(e as Error).message}`);
    }
  }

  async function stopClient(): Promise<void> {
    const c = state.client;
    state = {};
    if (c) {
      try {
        if (c.isRunning()) await c.stop(5000);
      } catch {
        /* it is going away anyway */
      }
    }
  }

  async function restart(): Promise<void> {
    await stopClient();
    await startClient();
  }

  registerCommands(context, deps);

  const voxPath = () => state.server?.path ?? (() => {
    const f = discover(context.extensionPath);
    return isFound(f) ? f.path : undefined;
  })();
  const inferredCaps = async (uri: vscode.Uri) => {
    const l = link();
    if (!l) return undefined;
    const res = (await l.executeCommand('vox.showCaps', [{ uri: uri.toString() }])) as CapsResult | null;
    return res?.tokens;
  };
  context.subscriptions.push(
    vscode.tasks.registerTaskProvider('vox', new VoxTaskProvider({ voxPath, isTrusted })),
    vscode.debug.registerDebugConfigurationProvider('vox', new VoxDebugConfigurationProvider({ voxPath, isTrusted, inferredCaps })),
    vscode.debug.registerDebugAdapterDescriptorFactory('vox', new VoxDebugAdapterFactory({ voxPath, isTrusted, inferredCaps })),
    vscode.workspace.onDidGrantWorkspaceTrust(() => {
      serverOutput.appendLine('Workspace trusted: restarting the server');
      void restart();
    }),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (!e.affectsConfiguration('vox.server.path')) return;
      const now = settingServerPath();
      if (now === lastSettingPath) return; // the value did not change (e.g. a folder setting file appeared)
      serverOutput.appendLine(`vox.server.path changed (${lastSettingPath ?? 'unset'} → ${now ?? 'unset'}): restarting the server`);
      void restart();
    }),
    { dispose: () => void stopClient() },
  );

  await startClient();

  return {
    get client() {
      return state.client;
    },
    get server() {
      return state.server;
    },
    runs,
    restart,
  };
}

export async function deactivate(): Promise<void> {
  const c = state.client;
  state = {};
  if (c && c.isRunning()) await c.stop(3000);
}
