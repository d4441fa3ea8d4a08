// Settings of the extension (contributes.configuration in package.json) and the command-line flags
// they turn into.
import * as vscode from 'vscode';

export interface RunCeilings {
  maxSteps?: number | null;
  maxDepth?: number | null;
  maxMemory?: string | null;
  maxDisk?: string | null;
  maxFiles?: number | null;
  maxOutput?: string | null;
  timeout?: number | null;
}

export interface VoxSettings {
  serverPath: string | null;
  lintDeterminism: boolean;
  inlayHintsCapabilities: boolean;
  inlayHintsInferredTypes: boolean;
  run: RunCeilings;
}

const CEILING_FLAGS: [keyof RunCeilings, string][] = [
  ['maxSteps', '--max-steps'],
  ['maxDepth', '--max-depth'],
  ['maxMemory', '--max-memory'],
  ['maxDisk', '--max-disk'],
  ['maxFiles', '--max-files'],
  ['maxOutput', '--max-output'],
  ['timeout', '--timeout'],
];

/** Reads the `vox.*` settings for a resource (or the window). */
export function readSettings(scope?: vscode.ConfigurationScope): VoxSettings {
  const c = vscode.workspace.getConfiguration('vox', scope);
  const run: RunCeilings = {};
  for (const [key] of CEILING_FLAGS) {
    const v = c.get<number | string | null>(`run.${key}`, null);
    if (v !== null && v !== undefined && v !== '') (run as Record<string, unknown>)[key] = v;
  }
  const serverPath = c.get<string | null>('server.path', null);
  return {
    serverPath: serverPath && serverPath.trim() !== '' ? serverPath.trim() : null,
    lintDeterminism: c.get<boolean>('lint.determinism', false),
    inlayHintsCapabilities: c.get<boolean>('inlayHints.capabilities', true),
    inlayHintsInferredTypes: c.get<boolean>('inlayHints.inferredTypes', false),
    run,
  };
}

/** `--max-steps N` … for the ceilings that are set, in a fixed order. */
export function ceilingFlags(run: RunCeilings): string[] {
  const out: string[] = [];
  for (const [key, flag] of CEILING_FLAGS) {
    const v = run[key];
    if (v === null || v === undefined || v === '') continue;
    out.push(flag, String(v));
  }
  return out;
}

/** What the server receives as `initializationOptions` and in `workspace/didChangeConfiguration`. */
export function serverSettings(s: VoxSettings): Record<string, unknown> {
  return {
    lint: { determinism: s.lintDeterminism },
    inlayHints: { capabilities: s.inlayHintsCapabilities, inferredTypes: s.inlayHintsInferredTypes },
    run: s.run,
  };
}

/** A run configuration as written in tasks.json / launch.json (editors.md §1). */
export interface RunConfiguration {
  script: string;
  caps?: string[];
  cwd?: string;
  args?: string[];
  config?: string;
}

/**
 * The `vox run` command line for a run configuration: caps (or `--config`), ceilings from the settings
 * that the configuration does not override, the script, then `-- args`.
 */
export function runArgs(rc: RunConfiguration, ceilings: RunCeilings): string[] {
  const args = ['run'];
  if (rc.config) args.push('--config', rc.config);
  else {
    const caps = rc.caps ?? [];
    if (caps.length === 0) args.push('--caps', 'none');
    for (const c of caps) args.push('--caps', c);
  }
  if (!rc.config) args.push(...ceilingFlags(ceilings));
  args.push(rc.script);
  if (rc.args && rc.args.length) args.push('--', ...rc.args);
  return args;
}

/** Checks a run configuration's shape; returns a message for the user, or null when it is fine. */
export function validateRunConfiguration(rc: Partial<RunConfiguration> | undefined): string | null {
  if (!rc || typeof rc.script !== 'string' || rc.script.trim() === '') return 'a vox run configuration needs "script"';
  if (rc.caps !== undefined && (!Array.isArray(rc.caps) || rc.caps.some((c) => typeof c !== 'string'))) {
    return '"caps" must be a list of capability tokens, e.g. ["fs:ro=data", "env:ro"]';
  }
  if (rc.args !== undefined && (!Array.isArray(rc.args) || rc.args.some((c) => typeof c !== 'string'))) {
    return '"args" must be a list of strings';
  }
  if (rc.cwd !== undefined && typeof rc.cwd !== 'string') return '"cwd" must be a string';
  if (rc.config !== undefined && rc.caps !== undefined && rc.caps.length) {
    return '"config" and "caps" cannot be combined (vox run --config takes the caps from Vox.toml)';
  }
  return null;
}
