// Finding the `vox` binary: `vox.server.path`, else the binary bundled with the extension, else `vox`
// on PATH (editors.md §3). Pure: the file system and the environment are parameters, for tests.
import * as path from 'path';
import * as fs from 'fs';

export type ServerSource = 'setting' | 'bundled' | 'PATH';

export interface Found {
  path: string;
  source: ServerSource;
}

export interface NotFound {
  /** One line per place that was looked at, for the error message. */
  tried: string[];
  message: string;
}

export interface DiscoveryEnv {
  settingPath: string | null;
  extensionPath: string;
  envPath: string | undefined;
  platform: NodeJS.Platform;
  arch: string;
  /** True when `p` is an executable regular file. */
  isExecutable(p: string): boolean;
  /** The workspace folder, to resolve a relative `vox.server.path`. */
  workspaceFolder?: string;
  homeDir?: string;
}

export function isExecutableFile(p: string): boolean {
  try {
    const st = fs.statSync(p);
    if (!st.isFile()) return false;
    if (process.platform === 'win32') return true;
    fs.accessSync(p, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function exeName(platform: NodeJS.Platform): string {
  return platform === 'win32' ? 'vox.exe' : 'vox';
}

/** Where a bundled binary would be: `bin/<platform>-<arch>/vox`, then `bin/vox`. */
export function bundledCandidates(extensionPath: string, platform: NodeJS.Platform, arch: string): string[] {
  const exe = exeName(platform);
  return [path.join(extensionPath, 'bin', `${platform}-${arch}`, exe), path.join(extensionPath, 'bin', exe)];
}

export function findServer(env: DiscoveryEnv): Found | NotFound {
  const tried: string[] = [];
  if (env.settingPath) {
    let p = env.settingPath;
    if (p.startsWith('~/') && env.homeDir) p = path.join(env.homeDir, p.slice(2));
    if (!path.isAbsolute(p) && env.workspaceFolder) p = path.join(env.workspaceFolder, p);
    if (env.isExecutable(p)) return { path: p, source: 'setting' };
    // An explicit setting that does not work is an error: never fall back silently.
    return {
      tried: [`vox.server.path: ${p} (not an executable file)`],
      message: `VoxScript: the vox binary set in "vox.server.path" was not found or is not executable: ${p}. Fix the setting, or clear it to use the bundled binary or vox on PATH.`,
    };
  }
  for (const c of bundledCandidates(env.extensionPath, env.platform, env.arch)) {
    if (env.isExecutable(c)) return { path: c, source: 'bundled' };
  }
  tried.push(`bundled: none in ${path.join(env.extensionPath, 'bin')}`);
  const sep = env.platform === 'win32' ? ';' : ':';
  const dirs = (env.envPath ?? '').split(sep).filter((d) => d !== '');
  for (const d of dirs) {
    const c = path.join(d, exeName(env.platform));
    if (env.isExecutable(c)) return { path: c, source: 'PATH' };
  }
  tried.push(dirs.length ? `PATH: no ${exeName(env.platform)} in ${dirs.join(sep)}` : 'PATH: empty');
  return {
    tried,
    message:
      'VoxScript: the vox binary was not found. Looked at the setting "vox.server.path" (not set), the binary bundled with the extension (none), and PATH (no vox). Install vox (cargo install --path cli in the vox repository) or set "vox.server.path".',
  };
}

export function isFound(r: Found | NotFound): r is Found {
  return (r as Found).path !== undefined;
}
