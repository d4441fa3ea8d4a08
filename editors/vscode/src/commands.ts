// The extension's commands. Runs go through the server's execute commands (`vox.run`, `vox.runTest`,
// `vox.showCaps`, `vox.stop`), so a run behaves the same in every editor. The extension's own command ids
// differ from the server's: vscode-languageclient registers the server's ids as commands itself (they are
// what the code lenses call).
import * as vscode from 'vscode';
import { RunManager } from './runs';

export interface ServerLink {
  executeCommand(command: string, args: unknown[]): Promise<unknown>;
}

export interface CommandDeps {
  /** The running server, or undefined when it is not running (not found, or stopped). */
  link(): ServerLink | undefined;
  runs: RunManager;
  restart(): Promise<void>;
  isTrusted(): boolean;
}

export const RESTRICTED_MESSAGE =
  'VoxScript: running scripts is disabled in Restricted Mode. Trust this workspace (Manage Workspace Trust) to run it.';

export const COMMAND_IDS = ['vox.runScript', 'vox.runTestAtCursor', 'vox.showInferredCaps', 'vox.restartServer', 'vox.stopRun'];

export interface TestFn {
  name: string;
  /** 0-based line of the decorator. */
  line: number;
  /** 0-based line of `fn`. */
  fnLine: number;
}

/** `@test` / `@example` functions of a script, in source order. */
export function testsInText(text: string): TestFn[] {
  const lines = text.split(/\r?\n/);
  const out: TestFn[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (!/^\s*@(test|example)\b/.test(lines[i])) continue;
    for (let j = i; j < lines.length && j <= i + 5; j++) {
      const line = j === i ? lines[j].replace(/^\s*@(test|example)\b(\([^)]*\))?/, '') : lines[j];
      const m = /^\s*(?:pub\s+)?(?:async\s+)?fn\s+([a-z_][A-Za-z0-9_]*)/.exec(line);
      if (m) {
        out.push({ name: m[1], line: i, fnLine: j });
        i = j;
        break;
      }
    }
  }
  return out;
}

/** The test whose declaration is at or closest above `line`. */
export function testAtLine(tests: TestFn[], line: number): TestFn | undefined {
  let best: TestFn | undefined;
  for (const t of tests) if (t.line <= line) best = t;
  return best;
}

function targetDocument(uri?: vscode.Uri): vscode.TextDocument | undefined {
  if (uri) return vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
  const ed = vscode.window.activeTextEditor;
  return ed && ed.document.languageId === 'voxscript' ? ed.document : undefined;
}

function requireLink(deps: CommandDeps): ServerLink | undefined {
  const link = deps.link();
  if (!link) {
    void vscode.window.showErrorMessage('VoxScript: the vox language server is not running. See the "VoxScript Language Server" output, or run "Vox: Restart Server".');
  }
  return link;
}

function shortName(uri: vscode.Uri): string {
  return vscode.workspace.asRelativePath(uri, false);
}

export async function runScript(deps: CommandDeps, uri?: vscode.Uri): Promise<number | undefined> {
  if (!deps.isTrusted()) {
    void vscode.window.showWarningMessage(RESTRICTED_MESSAGE);
    return undefined;
  }
  const doc = targetDocument(uri);
  const target = doc?.uri ?? uri;
  if (!target) {
    void vscode.window.showWarningMessage('VoxScript: open a .vox script to run it.');
    return undefined;
  }
  const link = requireLink(deps);
  if (!link) return undefined;
  if (doc && doc.isDirty) await doc.save();
  const res = (await link.executeCommand('vox.run', [{ uri: target.toString() }])) as { runId?: number } | null;
  if (!res || typeof res.runId !== 'number') return undefined;
  deps.runs.started(res.runId, `vox run ${shortName(target)}`);
  return res.runId;
}

export async function runTestAtCursor(deps: CommandDeps, uri?: vscode.Uri, testName?: string): Promise<number | undefined> {
  if (!deps.isTrusted()) {
    void vscode.window.showWarningMessage(RESTRICTED_MESSAGE);
    return undefined;
  }
  const doc = targetDocument(uri);
  if (!doc) {
    void vscode.window.showWarningMessage('VoxScript: open a .vox file with @test functions.');
    return undefined;
  }
  let name = testName;
  if (!name) {
    const tests = testsInText(doc.getText());
    if (tests.length === 0) {
      void vscode.window.showInformationMessage(`VoxScript: ${shortName(doc.uri)} has no @test or @example functions.`);
      return undefined;
    }
    const ed = vscode.window.activeTextEditor;
    const here = ed && ed.document === doc ? testAtLine(tests, ed.selection.active.line) : undefined;
    if (here) name = here.name;
    else if (tests.length === 1) name = tests[0].name;
    else {
      const pick = await vscode.window.showQuickPick(tests.map((t) => t.name), { placeHolder: 'Run which test?' });
      if (!pick) return undefined;
      name = pick;
    }
  }
  const link = requireLink(deps);
  if (!link) return undefined;
  if (doc.isDirty) await doc.save();
  const res = (await link.executeCommand('vox.runTest', [{ uri: doc.uri.toString(), test: name }])) as { runId?: number } | null;
  if (!res || typeof res.runId !== 'number') return undefined;
  deps.runs.started(res.runId, `vox test ${shortName(doc.uri)} --test ${name}`);
  return res.runId;
}

export interface CapsResult {
  tokens: string[];
  notes?: string[];
}

/** Shows the result of `vox.showCaps` (from the command or a caps code lens). */
export async function presentCaps(deps: CommandDeps, uri: string, res: CapsResult): Promise<void> {
  const tokens = res.tokens ?? [];
  const out = deps.runs.output;
  out.appendLine(`Inferred capabilities of ${shortName(vscode.Uri.parse(uri))}: ${tokens.length ? tokens.join(' ') : '(none)'}`);
  for (const n of res.notes ?? []) out.appendLine(`  ${n}`);
  const text = tokens.length ? tokens.join(' ') : 'none';
  const choice = await vscode.window.showInformationMessage(`Inferred capabilities: ${text}`, 'Copy --caps flags', 'Show reasons');
  if (choice === 'Copy --caps flags') {
    await vscode.env.clipboard.writeText(tokens.length ? tokens.map((t) => `--caps ${t}`).join(' ') : '--caps none');
  } else if (choice === 'Show reasons') {
    out.show(true);
  }
}

export async function showInferredCaps(deps: CommandDeps, uri?: vscode.Uri): Promise<CapsResult | undefined> {
  const doc = targetDocument(uri);
  const target = doc?.uri ?? uri;
  if (!target) {
    void vscode.window.showWarningMessage('VoxScript: open a .vox script to see its inferred capabilities.');
    return undefined;
  }
  const link = requireLink(deps);
  if (!link) return undefined;
  const res = (await link.executeCommand('vox.showCaps', [{ uri: target.toString() }])) as CapsResult | null;
  if (!res) return undefined;
  void presentCaps(deps, target.toString(), res);
  return res;
}

export function registerCommands(context: { subscriptions: vscode.Disposable[] }, deps: CommandDeps): void {
  const reg = (id: string, fn: (...args: any[]) => unknown) => context.subscriptions.push(vscode.commands.registerCommand(id, fn));
  reg('vox.runScript', (uri?: vscode.Uri) => runScript(deps, uri instanceof vscode.Uri ? uri : undefined));
  reg('vox.runTestAtCursor', (uri?: vscode.Uri, name?: string) =>
    runTestAtCursor(deps, uri instanceof vscode.Uri ? uri : undefined, typeof name === 'string' ? name : undefined),
  );
  reg('vox.showInferredCaps', (uri?: vscode.Uri) => showInferredCaps(deps, uri instanceof vscode.Uri ? uri : undefined));
  reg('vox.restartServer', () => deps.restart());
  reg('vox.stopRun', (runId?: number) => deps.runs.stop(typeof runId === 'number' ? runId : undefined));
}
