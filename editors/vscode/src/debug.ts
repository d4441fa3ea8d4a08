// The `vox` launch type (decision 42): an inline debug adapter that starts `vox run` with the
// configuration's fields and streams its output to the Debug Console. No breakpoints.
import * as path from 'path';
import { ChildProcess, spawn as nodeSpawn, SpawnOptions } from 'child_process';
import * as vscode from 'vscode';
import { readSettings, RunCeilings, RunConfiguration, runArgs, validateRunConfiguration } from './config';

type Spawn = (command: string, args: string[], options: SpawnOptions) => ChildProcess;

interface DapMessage {
  seq: number;
  type: 'request' | 'response' | 'event';
  command?: string;
  event?: string;
  arguments?: any;
  body?: any;
  request_seq?: number;
  success?: boolean;
  message?: string;
}

export interface LaunchArguments extends Partial<RunConfiguration> {
  /** The workspace folder the configuration belongs to (set by the provider). */
  __folder?: string;
}

/** A minimal Debug Adapter Protocol implementation around one `vox run` child. */
export class VoxDebugAdapter implements vscode.DebugAdapter {
  private readonly emitter = new vscode.EventEmitter<vscode.DebugProtocolMessage>();
  readonly onDidSendMessage = this.emitter.event;
  private seq = 1;
  private child: ChildProcess | undefined;
  private ended = false;

  constructor(
    private readonly vox: string,
    private readonly ceilings: RunCeilings,
    private readonly spawn: Spawn = nodeSpawn,
  ) {}

  private send(msg: Omit<DapMessage, 'seq'>): void {
    this.emitter.fire({ seq: this.seq++, ...msg } as vscode.DebugProtocolMessage);
  }

  private respond(req: DapMessage, body?: unknown, error?: string): void {
    this.send({
      type: 'response',
      request_seq: req.seq,
      command: req.command,
      success: !error,
      ...(error ? { message: error } : {}),
      ...(body !== undefined ? { body } : {}),
    });
  }

  private event(event: string, body?: unknown): void {
    this.send({ type: 'event', event, ...(body !== undefined ? { body } : {}) });
  }

  private outputLine(category: 'console' | 'stdout' | 'stderr', output: string): void {
    this.event('output', { category, output });
  }

  handleMessage(message: vscode.DebugProtocolMessage): void {
    const req = message as unknown as DapMessage;
    if (req.type !== 'request') return;
    switch (req.command) {
      case 'initialize':
        this.respond(req, { supportsConfigurationDoneRequest: true, supportsTerminateRequest: true });
        this.event('initialized');
        return;
      case 'launch':
        this.launch(req);
        return;
      case 'configurationDone':
        this.respond(req);
        return;
      case 'threads':
        this.respond(req, { threads: [{ id: 1, name: 'vox run' }] });
        return;
      case 'terminate':
      case 'disconnect':
        this.kill();
        this.respond(req);
        return;
      default:
        // Breakpoints, stepping and inspection are not supported (decision 42): answer with empty results.
        if (req.command === 'setBreakpoints') {
          this.respond(req, { breakpoints: (req.arguments?.breakpoints ?? []).map(() => ({ verified: false, message: 'vox launch configurations have no breakpoints' })) });
        } else if (req.command === 'setExceptionBreakpoints') {
          this.respond(req, {});
        } else {
          this.respond(req, undefined, `${req.command} is not supported by vox launch configurations`);
        }
    }
  }

  private launch(req: DapMessage): void {
    const a = (req.arguments ?? {}) as LaunchArguments;
    const problem = validateRunConfiguration(a);
    if (problem) {
      this.respond(req, undefined, problem);
      return;
    }
    const folder = a.__folder ?? process.cwd();
    const cwd = a.cwd ? path.resolve(folder, a.cwd) : folder;
    const script = path.resolve(folder, a.script as string);
    const args = runArgs({ script, caps: a.caps, args: a.args, config: a.config }, this.ceilings);
    this.outputLine('console', `${this.vox} ${args.join(' ')}\n`);
    let child: ChildProcess;
    try {
      child = this.spawn(this.vox, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    } catch (e) {
      this.respond(req, undefined, `cannot start ${this.vox}: ${(e as Error).message}`);
      return;
    }
    this.child = child;
    child.stdout?.setEncoding('utf8');
    child.stderr?.setEncoding('utf8');
    child.stdout?.on('data', (t: string) => this.outputLine('stdout', t));
    child.stderr?.on('data', (t: string) => this.outputLine('stderr', t));
    child.on('error', (e) => {
      this.outputLine('stderr', `cannot start ${this.vox}: ${e.message}\n`);
      this.finish(127);
    });
    child.on('close', (code, signal) => this.finish(code ?? (signal ? 130 : 1)));
    this.respond(req);
  }

  private finish(code: number): void {
    if (this.ended) return;
    this.ended = true;
    this.child = undefined;
    this.outputLine('console', `vox run exited with code ${code}\n`);
    this.event('exited', { exitCode: code });
    this.event('terminated');
  }

  private kill(): void {
    if (this.child && this.child.exitCode === null) this.child.kill('SIGTERM');
  }

  dispose(): void {
    this.kill();
    this.emitter.dispose();
  }
}

export interface DebugDeps {
  voxPath(): string | undefined;
  isTrusted(): boolean;
  /** The server's inferred caps for a script, used when F5 is pressed without a launch.json. */
  inferredCaps(uri: vscode.Uri): Promise<string[] | undefined>;
}

export class VoxDebugConfigurationProvider implements vscode.DebugConfigurationProvider {
  constructor(private readonly deps: DebugDeps) {}

  async resolveDebugConfiguration(folder: vscode.WorkspaceFolder | undefined, config: vscode.DebugConfiguration): Promise<vscode.DebugConfiguration | undefined> {
    if (!config.type && !config.request && !config.name) {
      // F5 without a launch.json: run the active script with its inferred caps (never "allow all").
      const ed = vscode.window.activeTextEditor;
      if (!ed || ed.document.languageId !== 'voxscript') {
        void vscode.window.showInformationMessage('VoxScript: open a .vox script, or add a "vox" configuration to launch.json.');
        return undefined;
      }
      const caps = (await this.deps.inferredCaps(ed.document.uri)) ?? [];
      const base = folder?.uri.fsPath ?? path.dirname(ed.document.uri.fsPath);
      config = {
        type: 'vox',
        request: 'launch',
        name: `vox: ${path.basename(ed.document.uri.fsPath)}`,
        script: path.relative(base, ed.document.uri.fsPath),
        caps,
      };
    }
    return config;
  }

  resolveDebugConfigurationWithSubstitutedVariables(folder: vscode.WorkspaceFolder | undefined, config: vscode.DebugConfiguration): vscode.DebugConfiguration | undefined {
    if (!this.deps.isTrusted()) {
      void vscode.window.showWarningMessage('VoxScript: vox launch configurations do not run in Restricted Mode.');
      return undefined;
    }
    const problem = validateRunConfiguration(config as Partial<RunConfiguration>);
    if (problem) {
      void vscode.window.showErrorMessage(`VoxScript launch configuration "${config.name}": ${problem}`);
      return undefined;
    }
    config.__folder = folder?.uri.fsPath ?? vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    return config;
  }
}

export class VoxDebugAdapterFactory implements vscode.DebugAdapterDescriptorFactory {
  constructor(private readonly deps: DebugDeps) {}

  createDebugAdapterDescriptor(session: vscode.DebugSession): vscode.ProviderResult<vscode.DebugAdapterDescriptor> {
    const vox = this.deps.voxPath();
    if (!vox) {
      void vscode.window.showErrorMessage('VoxScript: cannot launch: the vox binary was not found (see "vox.server.path").');
      return undefined;
    }
    const folder = session.workspaceFolder?.uri;
    return new vscode.DebugAdapterInlineImplementation(new VoxDebugAdapter(vox, readSettings(folder).run));
  }
}
