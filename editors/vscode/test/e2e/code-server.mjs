// End-to-end test of the packaged extension in code-server 4.100.3 (VS Code 1.100), driven by Debian's
// chromium through playwright-core (editors.md §5, decision 45):
//   open a workspace with a script → the Problems panel shows the D-rule finding; the code lenses show
//   ▶ Run and the inferred caps → the code action adds a `vox` task with the caps to .vscode/tasks.json
//   (accepting the refactor preview) → the task runs → "Vox: Run Script" shows the run's output → with the
//   real server, the "Prove" code lens on votes.vox's D002 finding opens the diff editor of the two runs.
// Screenshots go to editors/test-artifacts/. Exit status 0 when every step passes.
//
// Environment: CODE_SERVER (the code-server binary; default: $VOX_EDITORS_CACHE/code-server/node_modules/.bin,
// then PATH), VSIX (default: editors/vscode/voxscript.vsix), VOX_SERVER (default: editors/test/fake-vox),
// CHROMIUM (default /usr/bin/chromium), VOX_E2E_KEEP=1 keeps the temp dir.
// VOX_E2E_BUNDLED=1: the platform .vsix of scripts/dist, with no `vox.server.path` setting and no `vox` on PATH:
// the extension must start the binary inside it (a step checks its log says so). VOX_SERVER then only serves the
// test's own command-line runs.
import { spawn, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const here = path.dirname(fileURLToPath(import.meta.url));
const vscodeDir = path.resolve(here, '..', '..');
const editors = path.resolve(vscodeDir, '..');
const artifacts = path.join(editors, 'test-artifacts');
const STEP_TIMEOUT = Number(process.env.VOX_E2E_STEP_TIMEOUT_MS || 60000);

function findCodeServer() {
  if (process.env.CODE_SERVER) return process.env.CODE_SERVER;
  const cache = process.env.VOX_EDITORS_CACHE || path.join(os.homedir(), '.cache', 'vox-editors');
  const c = path.join(cache, 'code-server', 'node_modules', '.bin', 'code-server');
  if (fs.existsSync(c)) return c;
  try {
    return execFileSync('sh', ['-c', 'command -v code-server'], { encoding: 'utf8' }).trim();
  } catch {
    throw new Error('code-server not found: set CODE_SERVER or run editors/ci.sh');
  }
}

const codeServer = findCodeServer();
const vsix = process.env.VSIX || path.join(vscodeDir, 'voxscript.vsix');
const voxServer = process.env.VOX_SERVER || path.join(editors, 'test', 'fake-vox');
const chromiumPath = process.env.CHROMIUM || '/usr/bin/chromium';
if (!fs.existsSync(vsix)) throw new Error(`no ${vsix}: run npm run package first`);

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'vox-vscode-e2e-'));
const ws = path.join(tmp, 'ws');
fs.cpSync(path.join(editors, 'test', 'fixtures', 'workspace'), ws, { recursive: true });
const userData = path.join(tmp, 'user-data');
const extDir = path.join(tmp, 'extensions');
fs.mkdirSync(path.join(userData, 'User'), { recursive: true });
fs.mkdirSync(artifacts, { recursive: true });
// vox.server.path is machine-overridable: code-server (a remote window) reads it from the Machine settings,
// and ignores a user-level value once the remote configuration is loaded.
const bundled = Boolean(process.env.VOX_E2E_BUNDLED);
fs.mkdirSync(path.join(userData, 'Machine'), { recursive: true });
fs.writeFileSync(path.join(userData, 'Machine', 'settings.json'), JSON.stringify(bundled ? {} : { 'vox.server.path': voxServer }, null, 2));
// In bundled mode no directory on PATH may hold a `vox`.
const searchPath = (process.env.PATH || '')
  .split(path.delimiter)
  .filter((d) => !bundled || !fs.existsSync(path.join(d, 'vox')))
  .join(path.delimiter);
fs.writeFileSync(
  path.join(userData, 'User', 'settings.json'),
  JSON.stringify(
    {
      'security.workspace.trust.enabled': false,
      'workbench.startupEditor': 'none',
      'workbench.tips.enabled': false,
      'workbench.enableExperiments': false,
      'workbench.colorTheme': 'Default Light Modern',
      'telemetry.telemetryLevel': 'off',
      'extensions.autoCheckUpdates': false,
      'extensions.autoUpdate': false,
      'extensions.ignoreRecommendations': true,
      'update.mode': 'none',
      'files.refactoring.autoSave': true,
      'editor.codeLens': true,
      'editor.minimap.enabled': false,
      'editor.fontSize': 15,
      'terminal.integrated.gpuAcceleration': 'off',
      'chat.commandCenter.enabled': false,
      'workbench.secondarySideBar.defaultVisibility': 'hidden',
    },
    null,
    2,
  ),
);
const env = {
  ...process.env,
  PATH: searchPath,
  HOME: tmp,
  XDG_CONFIG_HOME: path.join(tmp, 'config'),
  XDG_DATA_HOME: path.join(tmp, 'data'),
  XDG_CACHE_HOME: path.join(tmp, 'cache'),
  USER: 'ann',
};

let passed = 0;
// The label of the vox task the code action writes (read back from tasks.json).
let taskLabel = 'vox: greet.vox';
let failed = 0;
const log = (s) => process.stdout.write(s + '\n');

async function step(name, fn) {
  const t0 = Date.now();
  try {
    await fn();
    passed++;
    log(`ok   ${name} (${((Date.now() - t0) / 1000).toFixed(1)}s)`);
    return true;
  } catch (e) {
    failed++;
    log(`FAIL ${name}\n     ${String(e && e.stack ? e.stack : e).split('\n').slice(0, 6).join('\n     ')}`);
    return false;
  }
}

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

async function waitFor(pred, what, ms = STEP_TIMEOUT) {
  const t0 = Date.now();
  for (;;) {
    const v = await pred();
    if (v) return v;
    if (Date.now() - t0 > ms) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

let server;
let browser;
let page;

async function shot(name) {
  if (!page) return;
  try {
    await page.screenshot({ path: path.join(artifacts, `vscode-${name}.png`) });
  } catch (e) {
    log(`     (screenshot ${name} failed: ${e.message})`);
  }
}

/** Moves the quick pick focus to the row labelled `label` (exactly, else the first label starting with it)
 * with the arrow keys, and accepts it. */
async function acceptRow(label) {
  const rows = page.locator('.quick-input-list .monaco-list-row');
  await rows.filter({ hasText: label }).first().waitFor({ state: 'visible', timeout: 15000 });
  const labels = (await rows.locator('.label-name').allInnerTexts()).map((t) => t.replace(/\u00a0/g, ' ').trim());
  const want = labels.includes(label) ? label : labels.find((l) => l.startsWith(label));
  if (!want) throw new Error(`no quick pick row labelled "${label}"; rows: ${labels.join(' | ')}`);
  for (let i = 0; i < 30; i++) {
    const text = await page
      .locator('.quick-input-list .monaco-list-row.focused .label-name')
      .first()
      .innerText({ timeout: 2000 })
      .catch(() => '');
    if (text.replace(/\u00a0/g, ' ').trim() === want) {
      await page.keyboard.press('Enter');
      return;
    }
    await page.keyboard.press('ArrowDown');
    await page.waitForTimeout(50);
  }
  throw new Error(`could not focus the quick pick row "${want}"`);
}

/** Runs a command from the command palette (keyboard only: the workbench is busy with animations). */
async function palette(command) {
  await page.keyboard.press('Escape');
  await page.keyboard.press('F1');
  await page.locator('.quick-input-widget input').waitFor({ state: 'visible', timeout: 10000 });
  await page.keyboard.type(command, { delay: 5 });
  await acceptRow(command);
}

/** Picks an item of an open quick pick by its label (keyboard). */
async function quickPick(label) {
  await page.locator('.quick-input-widget input').waitFor({ state: 'visible', timeout: 15000 });
  await page.keyboard.type(label, { delay: 5 });
  await acceptRow(label);
}

async function goToLine(n) {
  await page.keyboard.press('Escape');
  await page.keyboard.press('Control+G');
  await page.locator('.quick-input-widget input').waitFor({ state: 'visible', timeout: 10000 });
  await page.keyboard.type(String(n));
  await page.keyboard.press('Enter');
}

/** Applies the code action `title` at `fn main`, looking in the Refactor, Quick Fix and Source Action menus
 * (the server decides the kind). */
async function codeAction(title, screenshot) {
  for (const menu of ['Refactor...', 'Quick Fix...', 'Source Action...']) {
    await goToLine(6);
    await palette(menu);
    const row = page.locator('.action-widget .monaco-list-row', { hasText: title }).first();
    if (await row.waitFor({ state: 'visible', timeout: 8000 }).then(() => true, () => false)) {
      if (screenshot) await shot(screenshot);
      await pickAction(title);
      return;
    }
    await page.keyboard.press('Escape');
  }
  throw new Error(`no code action "${title}" in the Refactor, Quick Fix or Source Action menus`);
}

/** In the Refactor Preview (opened by edits that need confirmation), checks the file's edits and applies them. */
async function acceptRefactorPreview(file, done) {
  const applyButton = page.locator('.part.panel .monaco-button', { hasText: /^Apply$/ }).first();
  await waitFor(async () => done() || (await applyButton.isVisible()), 'the edit or the refactor preview');
  if (done()) return false;
  const fileRow = page.locator('.part.panel .monaco-list-row', { hasText: file }).first();
  await fileRow.waitFor({ state: 'visible' });
  await shot(`refactor-preview-${file}`);
  await fileRow.locator('.monaco-checkbox, input[type="checkbox"], .codicon-check, .edit-checkbox').first().click({ force: true });
  await page.waitForTimeout(300);
  await applyButton.click({ force: true });
  return true;
}

/** Selects an entry of the code action widget by its title (arrow keys, then Enter). */
async function pickAction(title) {
  const rows = page.locator('.action-widget .monaco-list-row.action');
  await rows.first().waitFor({ state: 'visible' });
  for (let i = 0; i < 12; i++) {
    const focused = await page.locator('.action-widget .monaco-list-row.action.focused').first().getAttribute('aria-label').catch(() => null);
    if (focused === title) {
      await page.keyboard.press('Enter');
      return;
    }
    await page.keyboard.press('ArrowDown');
    await page.waitForTimeout(100);
  }
  throw new Error(`no code action "${title}"; offered: ${(await rows.evaluateAll((els) => els.map((e) => e.getAttribute('aria-label')))).join(' | ')}`);
}

const cfgArgs = ['--user-data-dir', userData, '--extensions-dir', extDir];

try {
  await step('install the .vsix into code-server', async () => {
    const out = execFileSync(codeServer, [...cfgArgs, '--install-extension', vsix], { env, encoding: 'utf8', timeout: 120000 });
    if (!/successfully installed|was successfully/i.test(out)) throw new Error(out);
    const listed = execFileSync(codeServer, [...cfgArgs, '--list-extensions', '--show-versions'], { env, encoding: 'utf8', timeout: 60000 });
    if (!/vox\.voxscript@/.test(listed)) throw new Error(`not listed: ${listed}`);
    log(`     ${listed.trim()}`);
  });

  const port = await freePort();
  const ok = await step('start code-server', async () => {
    server = spawn(
      codeServer,
      [...cfgArgs, '--auth', 'none', '--bind-addr', `127.0.0.1:${port}`, '--disable-telemetry', '--disable-update-check',
        '--disable-workspace-trust', '--disable-getting-started-override', ws],
      { env, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let logText = '';
    server.stdout.on('data', (d) => (logText += d));
    server.stderr.on('data', (d) => (logText += d));
    server.on('exit', (code) => log(`     code-server exited with ${code}`));
    await waitFor(async () => /HTTP server listening/.test(logText), `code-server to listen; log:\n${logText}`, 60000);
  });
  if (!ok) throw new Error('code-server did not start');

  await step('open the workspace in chromium', async () => {
    browser = await chromium.launch({
      executablePath: chromiumPath,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
        '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'],
    });
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    page = await context.newPage();
    page.setDefaultTimeout(STEP_TIMEOUT);
    await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(ws)}`);
    await page.locator('.monaco-workbench').waitFor({ state: 'visible' });
    await page.locator('.explorer-folders-view .monaco-list-row', { hasText: 'greet.vox' }).first().waitFor({ state: 'visible' });
  });

  await step('open greet.vox: the extension activates and the server starts', async () => {
    await page.locator('.explorer-folders-view .monaco-list-row', { hasText: 'greet.vox' }).first().click();
    await page.locator('.monaco-editor .view-lines', { hasText: 'fn main()' }).first().waitFor({ state: 'visible' });
    // The language mode in the status bar says the grammar/language is ours.
    await page.locator('.statusbar-item', { hasText: 'VoxScript' }).first().waitFor({ state: 'visible' });
  });

  if (bundled) {
    await step('the server is the binary inside the .vsix (no setting, no vox on PATH)', async () => {
      // The extension writes "Using vox from …" to its server output channel, which VS Code logs to a file.
      const deadline = Date.now() + 30000;
      let line = null;
      const scan = (dir) => {
        for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
          const p = path.join(dir, e.name);
          if (e.isDirectory()) scan(p);
          else if (e.name.endsWith('.log')) {
            const m = fs.readFileSync(p, 'utf8').match(/Using vox from [^\n]*/);
            if (m) line = m[0];
          }
        }
      };
      while (!line && Date.now() < deadline) {
        scan(tmp);
        if (!line) await new Promise((r) => setTimeout(r, 500));
      }
      if (!line) throw new Error('no "Using vox from" line in any log under ' + tmp);
      log('     ' + line);
      const want = path.join(extDir, '');
      if (!line.includes('the extension bundle') || !line.includes(want) || !/bin\/linux-x64\/vox$/.test(line)) {
        throw new Error(`the server did not come from the bundle in ${want}: ${line}`);
      }
    });
  }

  await step('the Problems panel shows the D003 finding', async () => {
    await palette('View: Focus Problems');
    const panel = page.locator('.markers-panel');
    await panel.waitFor({ state: 'visible' });
    await panel.locator('.monaco-list-row', { hasText: 'D003' }).first().waitFor({ state: 'visible' });
  });

  await step('code lenses: ▶ Run and the inferred caps', async () => {
    await page.locator('.codelens-decoration', { hasText: '▶ Run' }).first().waitFor({ state: 'visible' });
    await page.locator('.codelens-decoration', { hasText: 'caps:' }).first().waitFor({ state: 'visible' });
    await page.locator('.codelens-decoration', { hasText: '▶ Run test' }).first().waitFor({ state: 'visible' });
    await shot('finding-and-caps-lens');
  });

  await step('code action "… add to .vscode/tasks.json" (refactor preview accepted) writes the vox task', async () => {
    await codeAction('Run with inferred capabilities: add to .vscode/tasks.json', 'code-action-menu');
    // needsConfirmation: VS Code opens the Refactor Preview with the granting edits unchecked; check them, apply.
    const tasksFile = path.join(ws, '.vscode', 'tasks.json');
    const hasTask = () => fs.existsSync(tasksFile) && /"vox"/.test(fs.readFileSync(tasksFile, 'utf8'));
    const previewed = await acceptRefactorPreview('tasks.json', hasTask);
    log(`     ${previewed ? 'confirmed in the Refactor Preview' : 'applied without a preview'}`);
    const text = await waitFor(async () => {
      if (!fs.existsSync(tasksFile)) return null;
      const t = fs.readFileSync(tasksFile, 'utf8');
      return /"type":\s*"vox"/.test(t) ? t : null;
    }, '.vscode/tasks.json with a vox task');
    const tasks = JSON.parse(text).tasks;
    const task = tasks.find((t) => t.type === 'vox');
    for (const want of ['env:ro', 'fs:ro=data', 'time:real']) {
      if (!task.caps.includes(want)) throw new Error(`${want} missing from ${JSON.stringify(task)}`);
    }
    if (task.script !== 'greet.vox') throw new Error(`script: ${task.script}`);
    taskLabel = task.label;
    log(`     ${JSON.stringify(task)}`);
  });

  await step('"Vox: Run Script" streams the run output to the Vox Run output channel', async () => {
    await page.keyboard.press('Escape');
    await palette('View: Focus Active Editor Group');
    await palette('Vox: Run Script');
    const output = page.locator('.part.panel .monaco-editor .view-lines');
    await waitFor(async () => {
      const t = ((await output.allInnerTexts()).join('\n')).replace(/\u00a0/g, ' ');
      return /vox demo: starting/.test(t) && /exited with code 0/.test(t);
    }, 'the run output in the panel');
    await page.locator('.part.panel', { hasText: 'Vox Run' }).first().waitFor({ state: 'visible' });
    await shot('run-output');
  });

  await step('the vox task from tasks.json runs vox run with its caps', async () => {
    await palette('Tasks: Run Task');
    // The task is listed under the label the code action wrote.
    await quickPick(taskLabel);
    // A "continue without scanning the task output" picker may follow.
    const cont = page.locator('.quick-input-list .monaco-list-row', { hasText: 'Continue without scanning' }).first();
    if (await cont.isVisible({ timeout: 3000 }).catch(() => false)) await quickPick('Continue without scanning');
    const term = page.locator('.terminal-wrapper .xterm-rows');
    await waitFor(async () => {
      const t = ((await term.allInnerTexts()).join('\n')).replace(/\u00a0/g, ' ');
      // A long command line (the bundled binary's path) wraps over terminal rows.
      const flat = t.replace(/\n/g, '');
      return /vox demo: starting/.test(t) && /--caps env:ro --caps fs:ro=data --caps time:real/.test(flat);
    }, 'the task output in the terminal');
    await shot('task-output');
  });
  await step('the vox launch configuration from the launch.json code action runs in the Debug Console', async () => {
    const launchFile = path.join(ws, '.vscode', 'launch.json');
    const hasLaunch = () => fs.existsSync(launchFile) && /"type":\s*"vox"/.test(fs.readFileSync(launchFile, 'utf8'));
    await palette('View: Focus Active Editor Group');
    await codeAction('Run with inferred capabilities: add to .vscode/launch.json');
    await acceptRefactorPreview('launch.json', hasLaunch);
    await waitFor(async () => hasLaunch(), '.vscode/launch.json with a vox configuration');
    const name = JSON.parse(fs.readFileSync(launchFile, 'utf8')).configurations.find((c) => c.type === 'vox').name;
    await palette('Debug: Select and Start Debugging');
    await quickPick(name);
    const console = page.locator('.repl .monaco-list-rows, .repl');
    await waitFor(async () => {
      const t = ((await console.allInnerTexts()).join('\n')).replace(/\u00a0/g, ' ');
      return /vox demo: starting/.test(t) && /exited with code 0/.test(t);
    }, 'the launch output in the Debug Console');
    await shot('debug-console');
  });

  // vox.prove needs the real server: the fake one has no perturbation to run.
  const realServer = !/fake/.test(execFileSync(voxServer, ['--version'], { encoding: 'utf8' }));
  if (!realServer) log('skip prove: the server under test has no vox.prove (the fake server)');
  else
    await step('prove: the code lens on the D002 finding opens a diff editor of the two runs', async () => {
      // What the CLI prints with each seed (votes.vox has no run configuration: its inferred caps, none).
      const cli = (seed) => execFileSync(voxServer, ['run', '--perturb', String(seed), '--caps', 'none', 'votes.vox'], { cwd: ws, encoding: 'utf8' });
      const [one, two] = [cli(1), cli(2)];
      const winner = (t) => t.split('\n').find((l) => l.startsWith('winner: '));
      if (winner(one) === winner(two)) throw new Error(`the seeds pick the same winner: ${one} / ${two}`);
      await palette('View: Show Explorer');
      await page.locator('.explorer-folders-view .monaco-list-row', { hasText: 'votes.vox' }).first().click();
      await page.locator('.monaco-editor .view-lines', { hasText: 'let votes' }).first().waitFor({ state: 'visible' });
      const lens = page.locator('.codelens-decoration a', { hasText: 'Prove: run twice with different perturbation' }).first();
      await lens.waitFor({ state: 'visible' });
      await shot('prove-lens');
      await lens.click();
      await page.locator('.tab', { hasText: 'vox prove: run 1 ↔ run 2 (votes.vox)' }).first().waitFor({ state: 'visible' });
      const diff = page.locator('.monaco-diff-editor').first();
      await diff.waitFor({ state: 'visible' });
      const text = async (side) => ((await diff.locator(`.editor.${side} .view-lines`).first().innerText()) || '').replace(/\u00a0/g, ' ');
      const [left, right] = await waitFor(async () => {
        const l = await text('original');
        const r = await text('modified');
        return /winner: /.test(l) && /winner: /.test(r) ? [l, r] : null;
      }, 'both outputs in the diff editor');
      for (const [side, shown, want] of [['run 1', left, one], ['run 2', right, two]]) {
        for (const line of [...want.trimEnd().split('\n'), '[exit 0]']) {
          if (!shown.includes(line)) throw new Error(`${side}: "${line}" missing from the diff editor:\n${shown}`);
        }
      }
      // The verdict, from the server's window/showMessage.
      const toast = page.locator('.notifications-toasts .notification-toast', { hasText: 'differ at output line 2' }).first();
      await toast.waitFor({ state: 'visible' });
      log(`     ${winner(one)} ↔ ${winner(two)}`);
      // For the screenshot: the progress notification gone, the panel closed.
      await page.locator('.notifications-toasts .notification-toast', { hasText: 'running it with --perturb 1' }).first().waitFor({ state: 'hidden' });
      if (await page.locator('.part.panel').first().isVisible()) await page.keyboard.press('Control+J');
      await page.locator('.part.panel').first().waitFor({ state: 'hidden', timeout: 5000 }).catch(() => {});
      await shot('prove-diff');
    });

  if (realServer)
    await step('prove: the source action "Prove: run twice with different perturbation" at the finding opens another diff', async () => {
      const tabs = page.locator('.tab', { hasText: 'vox prove: run 1 ↔ run 2 (votes.vox)' });
      const before = await tabs.count();
      await page.locator('.tab', { hasText: /^votes\.vox/ }).first().click();
      await page.locator('.monaco-editor .view-lines', { hasText: 'let votes' }).first().waitFor({ state: 'visible' });
      await goToLine(7);
      await palette('Source Action...');
      await page.locator('.action-widget .monaco-list-row', { hasText: 'Prove: run twice with different perturbation' }).first().waitFor({ state: 'visible' });
      await shot('prove-source-action');
      await pickAction('Prove: run twice with different perturbation');
      await waitFor(async () => (await tabs.count()) === before + 1, 'a second prove diff editor');
    });

  await step('no VoxScript error notification, the server never stopped', async () => {
    const toasts = await page.locator('.notifications-toasts .notification-toast').allInnerTexts();
    const bad = toasts.filter((t) => /VoxScript/.test(t));
    if (bad.length) throw new Error(`notifications: ${bad.join(' | ')}`);
    const logs = path.join(userData, 'logs');
    const found = [];
    const walk = (d) => {
      for (const e of fs.readdirSync(d, { withFileTypes: true })) {
        const p = path.join(d, e.name);
        if (e.isDirectory()) walk(p);
        else if (e.name.includes('VoxScript Language Server')) found.push(fs.readFileSync(p, 'utf8'));
      }
    };
    walk(logs);
    const text = found.join('\n');
    const source = bundled ? /Using vox from the extension bundle/ : /Using vox from vox\.server\.path/;
    if (!source.test(text)) throw new Error(`server log: ${text}`);
    if (/not found|restarting|exited/.test(text)) throw new Error(`server log: ${text}`);
  });
} catch (e) {
  log(`FAIL ${e.message}`);
  failed++;
} finally {
  if (failed) await shot('failure');
  if (browser) await browser.close().catch(() => {});
  if (server && server.exitCode === null) {
    server.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 500));
    if (server.exitCode === null) server.kill('SIGKILL');
  }
  if (!process.env.VOX_E2E_KEEP) fs.rmSync(tmp, { recursive: true, force: true });
  else log(`     kept ${tmp}`);
  log(`code-server e2e: ${passed} passed, ${failed} failed`);
  process.exit(failed === 0 && passed > 0 ? 0 : 1);
}
