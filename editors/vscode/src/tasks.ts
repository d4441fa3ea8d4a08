// The `vox` task type (tasks.json: {"type": "vox", "script", "caps", "cwd", "args"}): a task runs
// `vox run` with exactly the configuration's caps, never more.
import * as path from 'path';
import * as vscode from 'vscode';
import { readSettings, RunConfiguration, runArgs, validateRunConfiguration } from './config';

export interface TaskDeps {
  voxPath(): string | undefined;
  isTrusted(): boolean;
}

export interface VoxTaskDefinition extends vscode.TaskDefinition, Partial<RunConfiguration> {
  type: 'vox';
}

function folderOf(scope: vscode.TaskScope | vscode.WorkspaceFolder | undefined): vscode.WorkspaceFolder | undefined {
  if (scope && typeof scope === 'object' && 'uri' in scope) return scope;
  return vscode.workspace.workspaceFolders?.[0];
}

/** The process a `vox` task runs: command, arguments and working directory. */
export function taskProcess(def: RunConfiguration, folderPath: string, vox: string, ceilings = readSettings().run) {
  const cwd = def.cwd ? path.resolve(folderPath, def.cwd) : folderPath;
  // The script is relative to the workspace folder; vox is started in cwd, so make it absolute.
  const script = path.resolve(folderPath, def.script);
  return { command: vox, args: runArgs({ ...def, script }, ceilings), cwd };
}

export class VoxTaskProvider implements vscode.TaskProvider {
  constructor(private readonly deps: TaskDeps) {}

  provideTasks(): vscode.Task[] {
    // Tasks come from tasks.json (written by the server's "Run with inferred capabilities" code action).
    return [];
  }

  resolveTask(task: vscode.Task): vscode.Task | undefined {
    const def = task.definition as VoxTaskDefinition;
    if (def.type !== 'vox') return undefined;
    if (!this.deps.isTrusted()) {
      void vscode.window.showWarningMessage('VoxScript: vox tasks do not run in Restricted Mode.');
      return undefined;
    }
    const problem = validateRunConfiguration(def);
    if (problem) {
      void vscode.window.showErrorMessage(`VoxScript task "${task.name}": ${problem}`);
      return undefined;
    }
    const vox = this.deps.voxPath();
    if (!vox) {
      void vscode.window.showErrorMessage('VoxScript: cannot run the task: the vox binary was not found (see "vox.server.path").');
      return undefined;
    }
    const folder = folderOf(task.scope);
    if (!folder) return undefined;
    const p = taskProcess(def as RunConfiguration, folder.uri.fsPath, vox, readSettings(folder.uri).run);
    const resolved = new vscode.Task(
      def,
      task.scope ?? vscode.TaskScope.Workspace,
      task.name,
      'vox',
      new vscode.ProcessExecution(p.command, p.args, { cwd: p.cwd }),
      [],
    );
    resolved.group = task.group;
    resolved.presentationOptions = task.presentationOptions;
    return resolved;
  }
}
