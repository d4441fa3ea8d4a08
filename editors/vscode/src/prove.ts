// "Prove it" (`vox.prove`): the server runs the script twice with `--perturb 1` and `--perturb 2` and answers
// both outputs; this shows them in a diff editor (two read-only `vox-prove:` documents), at the first line
// where they differ. The server also sends the verdict as window/showMessage, which VS Code shows itself.
import * as vscode from 'vscode';

export const PROVE_SCHEME = 'vox-prove';
export const PROVE_TITLE = 'vox prove: run 1 ↔ run 2';

export interface ProveRun {
  seed: number;
  exit: number;
  output: string;
  truncated?: boolean;
  command?: string;
}

export interface ProveResult {
  differs: boolean;
  /** 1-based line of the first difference in the output (null: the outputs agree). */
  line: number | null;
  first: string | null;
  second: string | null;
  run1: ProveRun;
  run2: ProveRun;
  script?: string;
  message?: string;
}

export function isProveResult(v: unknown): v is ProveResult {
  const r = v as ProveResult | null;
  return !!r && typeof r.differs === 'boolean' && !!r.run1 && !!r.run2 && typeof r.run1.output === 'string';
}

/** The text of one side: the run's output, then a line with its exit code (so that differing exits show). */
export function sideText(run: ProveRun): string {
  let out = run.output;
  if (out !== '' && !out.endsWith('\n')) out += '\n';
  if (run.truncated) out += '[output cut]\n';
  return `${out}[exit ${run.exit}]\n`;
}

/** The documents shown in prove diff editors, by URI path. */
export class ProveDocuments implements vscode.TextDocumentContentProvider {
  private readonly texts = new Map<string, string>();
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;
  private serial = 0;

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.path) ?? '';
  }

  /** Two new documents for a result: `vox-prove:/N/run-1/NAME` and `…/run-2/NAME`. */
  add(result: ProveResult, name: string): [vscode.Uri, vscode.Uri] {
    const n = ++this.serial;
    const uris: [vscode.Uri, vscode.Uri] = [
      vscode.Uri.parse(`${PROVE_SCHEME}:/${n}/run-1 (--perturb ${result.run1.seed})/${name}`),
      vscode.Uri.parse(`${PROVE_SCHEME}:/${n}/run-2 (--perturb ${result.run2.seed})/${name}`),
    ];
    this.texts.set(uris[0].path, sideText(result.run1));
    this.texts.set(uris[1].path, sideText(result.run2));
    return uris;
  }

  dispose(): void {
    this.changed.dispose();
    this.texts.clear();
  }
}

function baseName(p: string | undefined): string {
  if (!p) return 'script';
  const parts = p.split(/[\\/]/);
  return parts[parts.length - 1] || 'script';
}

/** Opens the diff editor of a `vox.prove` result, at the first differing line. */
export async function showProve(docs: ProveDocuments, result: ProveResult): Promise<void> {
  const name = baseName(result.script);
  const [left, right] = docs.add(result, name);
  const line = Math.max(0, (result.line ?? 1) - 1);
  const at = new vscode.Range(line, 0, line, 0);
  await vscode.commands.executeCommand('vscode.diff', left, right, `${PROVE_TITLE} (${name})`, { preview: false, selection: at });
}
