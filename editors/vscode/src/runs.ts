// Runs started through the server (`vox.run` / `vox.runTest`): their output goes to the "Vox Run" output
// channel, and a status bar item shows while any run is active (click: stop it).
import * as vscode from 'vscode';

export interface RunOutputParams {
  runId: number;
  stream: 'stdout' | 'stderr';
  text: string;
}

export interface RunExitParams {
  runId: number;
  code: number;
}

interface ActiveRun {
  runId: number;
  label: string;
  announced: boolean;
}

/** What ended runs mean (runtime.md exit codes), for the closing line. */
export function describeExit(code: number): string {
  switch (code) {
    case 0:
      return 'exited with code 0';
    case 77:
      return 'exited with code 77 (capability denied: see the Problems panel for the call and the grant)';
    case 78:
      return 'exited with code 78 (a ceiling was reached: steps, depth, time or output)';
    case 79:
      return 'exited with code 79 (memory limit exceeded)';
    case 101:
      return 'exited with code 101 (internal error in vox)';
    case 130:
      return 'stopped (code 130)';
    default:
      return `exited with code ${code}`;
  }
}

export class RunManager implements vscode.Disposable {
  private readonly active = new Map<number, ActiveRun>();
  private readonly exited = new Set<number>();

  constructor(
    readonly output: vscode.OutputChannel,
    private readonly status: vscode.StatusBarItem,
    private readonly stopRun: (runId: number) => Promise<unknown>,
  ) {
    status.command = 'vox.stopRun';
    status.name = 'Vox run';
  }

  /** A run the client started: `{runId}` came back from `vox.run` / `vox.runTest`. */
  started(runId: number, label: string): void {
    if (this.exited.has(runId)) return; // it was so quick that vox/runExit came first
    const run = this.active.get(runId);
    if (run) {
      run.label = label;
    } else {
      this.active.set(runId, { runId, label, announced: false });
    }
    this.announce(runId);
    this.update();
  }

  private announce(runId: number): void {
    const run = this.active.get(runId);
    if (!run || run.announced) return;
    run.announced = true;
    this.output.appendLine(`▶ ${run.label}  [run ${runId}]`);
    this.output.show(true);
  }

  onOutput(p: RunOutputParams): void {
    if (!this.active.has(p.runId) && !this.exited.has(p.runId)) {
      // Output of a run started elsewhere (a code lens) or before the executeCommand result arrived.
      this.active.set(p.runId, { runId: p.runId, label: `vox run ${p.runId}`, announced: false });
      this.announce(p.runId);
      this.update();
    }
    this.output.append(p.text);
  }

  onExit(p: RunExitParams): void {
    const run = this.active.get(p.runId);
    this.active.delete(p.runId);
    this.exited.add(p.runId);
    this.output.appendLine(`■ ${run ? run.label : `run ${p.runId}`}: ${describeExit(p.code)}`);
    this.update();
  }

  get activeRuns(): { runId: number; label: string }[] {
    return [...this.active.values()].map(({ runId, label }) => ({ runId, label }));
  }

  async stop(runId?: number): Promise<void> {
    let id = runId;
    const runs = this.activeRuns;
    if (id === undefined) {
      if (runs.length === 0) {
        void vscode.window.showInformationMessage('No vox run is active.');
        return;
      }
      if (runs.length === 1) id = runs[0].runId;
      else {
        const pick = await vscode.window.showQuickPick(
          runs.map((r) => ({ label: r.label, description: `run ${r.runId}`, runId: r.runId })),
          { placeHolder: 'Stop which run?' },
        );
        if (!pick) return;
        id = pick.runId;
      }
    }
    await this.stopRun(id);
  }

  private update(): void {
    const runs = this.activeRuns;
    void vscode.commands.executeCommand('setContext', 'vox.runActive', runs.length > 0);
    if (runs.length === 0) {
      this.status.hide();
      return;
    }
    this.status.text = runs.length === 1 ? `$(loading~spin) ${runs[0].label}` : `$(loading~spin) vox: ${runs.length} runs`;
    this.status.tooltip = 'A vox run is active. Click to stop it.';
    this.status.show();
  }

  dispose(): void {
    this.status.dispose();
  }
}
