-- VoxScript for Neovim: the `vox lsp` client configuration, runs through the server's execute commands
-- (vox.run, vox.runTest, vox.showCaps, vox.stop, vox.prove), run output in a scratch buffer, the two outputs of
-- vox.prove side by side in diff mode, code lens refresh.
-- Works on Neovim 0.10 (setup() starts the client with vim.lsp.start) and 0.11+ (vim.lsp.config/enable).
local M = {}

local defaults = {
  -- Path to the vox binary; nil: vim.g.vox_server_path, else `vox` on PATH.
  server_path = nil,
  -- Full command, overriding server_path (e.g. { '/opt/vox/bin/vox', 'lsp', '--stdio' }).
  cmd = nil,
  -- Sent as initializationOptions and in workspace/didChangeConfiguration (same shape as VS Code's settings).
  settings = {
    lint = { determinism = false },
    inlayHints = { capabilities = true, inferredTypes = false },
    run = {},
  },
  -- Refresh code lenses (▶ Run, caps: …, ▶ Run test) on these events.
  codelens = true,
  codelens_events = { 'BufEnter', 'InsertLeave', 'BufWritePost', 'CursorHold' },
  -- Write Vox.toml / .vscode/tasks.json / launch.json after a code action edited them in a hidden buffer
  -- (as VS Code saves files changed by a refactoring).
  save_run_config_edits = true,
  -- How the run output window opens.
  output_split = 'botright 12split',
  -- Markers of the project root (the workspace folder sent to the server).
  root_markers = { 'Vox.toml', '.git' },
}

M.config = vim.deepcopy(defaults)

local has_011 = vim.fn.has('nvim-0.11') == 1

-- ---------------------------------------------------------------------------------------------
-- Server discovery

--- The vox binary: setup{server_path}, vim.g.vox_server_path, else `vox` on PATH.
--- @return string|nil path, string how (or the reason it was not found)
function M.find_server()
  local p = M.config.server_path or vim.g.vox_server_path
  if p and p ~= '' then
    p = vim.fn.expand(p)
    if vim.fn.executable(p) == 1 then
      return p, 'server_path'
    end
    return nil, ('server_path is set to %s, which is not an executable file'):format(p)
  end
  local found = vim.fn.exepath('vox')
  if found ~= '' then
    return found, 'PATH'
  end
  return nil, 'vox was not found on PATH and server_path is not set'
end

function M.server_cmd()
  if M.config.cmd then
    return M.config.cmd
  end
  local p = M.find_server()
  return { p or 'vox', 'lsp' }
end

-- ---------------------------------------------------------------------------------------------
-- Clients and requests

local function client_request(client, method, params, handler, bufnr)
  if has_011 then
    return client:request(method, params, handler, bufnr)
  end
  return client.request(method, params, handler, bufnr)
end

--- The vox client attached to `bufnr` (default: current buffer), or nil.
function M.get_client(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  return vim.lsp.get_clients({ bufnr = bufnr, name = 'vox' })[1]
end

local function notify(msg, level)
  vim.notify('vox: ' .. msg, level or vim.log.levels.INFO)
end

--- workspace/executeCommand on the vox server of `bufnr`; `on_result(result)` on success.
function M.execute(bufnr, command, arguments, on_result)
  local client = M.get_client(bufnr)
  if not client then
    local _, why = M.find_server()
    notify(
      'no vox language server is attached to this buffer' .. (why and why ~= 'PATH' and why ~= 'server_path' and (' (' .. why .. ')') or ''),
      vim.log.levels.ERROR
    )
    return false
  end
  client_request(client, 'workspace/executeCommand', { command = command, arguments = arguments }, function(err, result)
    if err then
      notify(command .. ' failed: ' .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
      return
    end
    if on_result then
      on_result(result)
    end
  end, bufnr)
  return true
end

-- ---------------------------------------------------------------------------------------------
-- Run output: one scratch buffer, appended to by vox/runOutput and vox/runExit.

M.runs = {} -- runId → { label, exit = code|nil }
M.latest_run = nil
M.last_caps = nil
local output_buf = nil
local partial = false -- the last line of the buffer is an unfinished output line

function M.output_buffer()
  if output_buf and vim.api.nvim_buf_is_valid(output_buf) then
    return output_buf
  end
  output_buf = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_name(output_buf, 'vox://run-output')
  vim.bo[output_buf].buftype = 'nofile'
  vim.bo[output_buf].bufhidden = 'hide'
  vim.bo[output_buf].swapfile = false
  vim.bo[output_buf].filetype = 'voxrun'
  partial = false
  return output_buf
end

local function show_output()
  local buf = M.output_buffer()
  if #vim.fn.win_findbuf(buf) > 0 then
    return
  end
  local cur = vim.api.nvim_get_current_win()
  vim.cmd(M.config.output_split)
  vim.api.nvim_win_set_buf(0, buf)
  vim.wo.number = false
  vim.wo.wrap = true
  vim.api.nvim_set_current_win(cur)
end

local function scroll_output()
  local buf = M.output_buffer()
  local last = vim.api.nvim_buf_line_count(buf)
  for _, win in ipairs(vim.fn.win_findbuf(buf)) do
    vim.api.nvim_win_set_cursor(win, { last, 0 })
  end
end

--- Appends raw output text (chunks may end mid-line).
local function append_text(text)
  local buf = M.output_buffer()
  local lines = vim.split(text, '\n', { plain = true })
  local count = vim.api.nvim_buf_line_count(buf)
  local empty = count == 1 and vim.api.nvim_buf_get_lines(buf, 0, 1, false)[1] == ''
  if partial and not empty then
    local last = vim.api.nvim_buf_get_lines(buf, count - 1, count, false)[1]
    vim.api.nvim_buf_set_lines(buf, count - 1, count, false, { last .. lines[1] })
    table.remove(lines, 1)
  end
  partial = lines[#lines] ~= ''
  if not partial then
    table.remove(lines)
  end
  if #lines > 0 then
    if empty then
      vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
    else
      vim.api.nvim_buf_set_lines(buf, -1, -1, false, lines)
    end
  end
  scroll_output()
end

local function append_line(line)
  if partial then
    append_text('\n')
  end
  append_text(line .. '\n')
end

local function announce(run_id, label)
  local run = M.runs[run_id]
  if run and run.announced then
    if label then
      run.label = label
    end
    return
  end
  run = run or {}
  run.label = label or run.label or ('vox run ' .. run_id)
  run.announced = true
  M.runs[run_id] = run
  M.latest_run = run_id
  append_line(('▶ %s  [run %d]'):format(run.label, run_id))
  show_output()
end

local EXIT_NOTES = {
  [77] = ' (capability denied: see the diagnostics for the call and the grant)',
  [78] = ' (a ceiling was reached)',
  [79] = ' (memory limit exceeded)',
  [101] = ' (internal error in vox)',
  [130] = ' (stopped)',
}

function M.on_run_output(_, params)
  if not (params and params.runId) then
    return
  end
  announce(params.runId)
  append_text(params.text or '')
end

function M.on_run_exit(_, params)
  if not (params and params.runId) then
    return
  end
  announce(params.runId)
  local run = M.runs[params.runId]
  run.exit = params.code
  append_line(('■ %s: exited with code %d%s'):format(run.label, params.code, EXIT_NOTES[params.code] or ''))
  vim.api.nvim_exec_autocmds('User', { pattern = 'VoxRunExit', data = { run_id = params.runId, code = params.code } })
end

-- ---------------------------------------------------------------------------------------------
-- Commands

local function buf_uri(bufnr)
  return vim.uri_from_bufnr(bufnr)
end

local function short(bufnr)
  return vim.fn.fnamemodify(vim.api.nvim_buf_get_name(bufnr), ':.')
end

local function save_if_modified(bufnr)
  if vim.bo[bufnr].modified and vim.bo[bufnr].buftype == '' then
    vim.api.nvim_buf_call(bufnr, function()
      vim.cmd('silent write')
    end)
  end
end

local function started(label)
  return function(result)
    if type(result) == 'table' and result.runId then
      announce(result.runId, label)
    end
  end
end

--- :VoxRun — `vox.run {uri, config?}`.
function M.run(opts)
  opts = opts or {}
  local bufnr = opts.bufnr or vim.api.nvim_get_current_buf()
  save_if_modified(bufnr)
  local arg = { uri = buf_uri(bufnr), config = opts.config }
  local label = 'vox run ' .. short(bufnr) .. (opts.config and (' --config ' .. opts.config) or '')
  return M.execute(bufnr, 'vox.run', { arg }, started(label))
end

--- `@test` / `@example` functions of a buffer: { {name=, line=} } (0-based line of the decorator).
function M.tests_in_buffer(bufnr)
  local lines = vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)
  local out = {}
  local i = 1
  while i <= #lines do
    if lines[i]:match('^%s*@test%f[^%w_]') or lines[i]:match('^%s*@example%f[^%w_]') then
      for j = i, math.min(i + 5, #lines) do
        local l = lines[j]
        if j == i then
          l = l:gsub('^%s*@%a+', ''):gsub('^%b()', '')
        end
        local name = l:match('^%s*pub%s+fn%s+([%a_][%w_]*)') or l:match('^%s*fn%s+([%a_][%w_]*)')
        if name then
          table.insert(out, { name = name, line = i - 1 })
          i = j
          break
        end
      end
    end
    i = i + 1
  end
  return out
end

--- :VoxRunTest [name] — `vox.runTest {uri, test}`; without a name: the test at or above the cursor.
function M.run_test(opts)
  opts = opts or {}
  local bufnr = opts.bufnr or vim.api.nvim_get_current_buf()
  local function go(name)
    save_if_modified(bufnr)
    return M.execute(
      bufnr,
      'vox.runTest',
      { { uri = buf_uri(bufnr), test = name } },
      started(('vox test %s --test %s'):format(short(bufnr), name))
    )
  end
  if opts.test then
    return go(opts.test)
  end
  local tests = M.tests_in_buffer(bufnr)
  if #tests == 0 then
    notify(short(bufnr) .. ' has no @test or @example functions', vim.log.levels.WARN)
    return false
  end
  local row = vim.api.nvim_win_get_cursor(0)[1] - 1
  local here
  for _, t in ipairs(tests) do
    if t.line <= row then
      here = t
    end
  end
  if here then
    return go(here.name)
  end
  if #tests == 1 then
    return go(tests[1].name)
  end
  vim.ui.select(
    vim.tbl_map(function(t)
      return t.name
    end, tests),
    { prompt = 'Run which test?' },
    function(choice)
      if choice then
        go(choice)
      end
    end
  )
  return true
end

local function present_caps(result)
  M.last_caps = result
  local tokens = result.tokens or {}
  local lines = { 'inferred capabilities: ' .. (#tokens > 0 and table.concat(tokens, ' ') or 'none') }
  for _, n in ipairs(result.notes or {}) do
    table.insert(lines, '  ' .. n)
  end
  notify(table.concat(lines, '\n'))
end

--- :VoxCaps — `vox.showCaps {uri}`.
function M.show_caps(opts)
  opts = opts or {}
  local bufnr = opts.bufnr or vim.api.nvim_get_current_buf()
  return M.execute(bufnr, 'vox.showCaps', { { uri = buf_uri(bufnr) } }, function(result)
    if type(result) == 'table' then
      present_caps(result)
    end
  end)
end

--- :VoxStop [runId] — `vox.stop {runId}` (default: the latest run still going).
function M.stop(opts)
  opts = opts or {}
  local id = opts.run_id
  if not id then
    local best
    for rid, r in pairs(M.runs) do
      if r.exit == nil and (best == nil or rid > best) then
        best = rid
      end
    end
    id = best
  end
  if not id then
    notify('no run is active')
    return false
  end
  return M.execute(opts.bufnr or vim.api.nvim_get_current_buf(), 'vox.stop', { { runId = id } })
end

-- ---------------------------------------------------------------------------------------------
-- "Prove it" (vox.prove): the server runs the script twice, with --perturb 1 and --perturb 2, and answers both
-- outputs; they open side by side in a new tab, in diff mode, at the first differing line. The verdict itself
-- arrives as window/showMessage (Neovim shows it with vim.notify).

M.last_prove = nil
local prove_serial = 0

--- The text of one side: the run's output, then its exit code.
local function prove_side(run)
  local lines = vim.split(run.output or '', '\n', { plain = true })
  if lines[#lines] == '' then
    table.remove(lines)
  end
  if run.truncated == true then
    table.insert(lines, '[output cut]')
  end
  table.insert(lines, ('[exit %s]'):format(tostring(run.exit)))
  return lines
end

local function prove_buffer(name, lines)
  local buf = vim.api.nvim_create_buf(false, true)
  pcall(vim.api.nvim_buf_set_name, buf, name)
  vim.bo[buf].buftype = 'nofile'
  vim.bo[buf].bufhidden = 'wipe'
  vim.bo[buf].swapfile = false
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].modifiable = false
  return buf
end

--- Shows a vox.prove result: a new tab, run 1 on the left and run 2 on the right, diff mode on both.
function M.show_prove(result)
  if type(result) ~= 'table' or type(result.run1) ~= 'table' or type(result.run2) ~= 'table' then
    return
  end
  M.last_prove = result
  prove_serial = prove_serial + 1
  local name = vim.fn.fnamemodify(type(result.script) == 'string' and result.script or 'script', ':t')
  local function title(i, run)
    return ('vox://prove/%d/run %d (--perturb %s)/%s'):format(prove_serial, i, tostring(run.seed), name)
  end
  local left = prove_buffer(title(1, result.run1), prove_side(result.run1))
  local right = prove_buffer(title(2, result.run2), prove_side(result.run2))
  vim.cmd('tabnew')
  local empty = vim.api.nvim_get_current_buf()
  local lwin = vim.api.nvim_get_current_win()
  vim.api.nvim_win_set_buf(lwin, left)
  if empty ~= left and vim.api.nvim_buf_get_name(empty) == '' and not vim.bo[empty].modified then
    pcall(vim.api.nvim_buf_delete, empty, { force = true })
  end
  vim.cmd('diffthis')
  vim.cmd('rightbelow vsplit')
  local rwin = vim.api.nvim_get_current_win()
  vim.api.nvim_win_set_buf(rwin, right)
  vim.cmd('diffthis')
  local line = type(result.line) == 'number' and result.line or 1
  for _, w in ipairs({ lwin, rwin }) do
    local buf = vim.api.nvim_win_get_buf(w)
    pcall(vim.api.nvim_win_set_cursor, w, { math.min(line, vim.api.nvim_buf_line_count(buf)), 0 })
  end
  M.prove_windows = { lwin, rwin }
  vim.api.nvim_exec_autocmds('User', { pattern = 'VoxProve', data = result })
end

--- :VoxProve — `vox.prove {uri}`: runs the current script twice with different perturbation.
function M.prove(opts)
  opts = opts or {}
  local bufnr = opts.bufnr or vim.api.nvim_get_current_buf()
  save_if_modified(bufnr)
  notify(('proving %s: running it with --perturb 1, then --perturb 2'):format(short(bufnr)))
  return M.execute(bufnr, 'vox.prove', { { uri = buf_uri(bufnr), config = opts.config } }, M.show_prove)
end

-- Client-side handlers for the commands of the server's code lenses, so a lens click shows its result.
M.lens_commands = {
  ['vox.run'] = function(command, ctx)
    local a = (command.arguments or {})[1] or {}
    local label = 'vox run ' .. vim.fn.fnamemodify(vim.uri_to_fname(a.uri or buf_uri(ctx.bufnr)), ':.')
    M.execute(ctx.bufnr, 'vox.run', command.arguments, started(label))
  end,
  ['vox.runTest'] = function(command, ctx)
    local a = (command.arguments or {})[1] or {}
    M.execute(ctx.bufnr, 'vox.runTest', command.arguments, started('vox test --test ' .. tostring(a.test)))
  end,
  ['vox.prove'] = function(command, ctx)
    save_if_modified(ctx.bufnr)
    local a = (command.arguments or {})[1] or {}
    notify(('proving %s (%s): running it with --perturb 1, then --perturb 2'):format(
      vim.fn.fnamemodify(vim.uri_to_fname(a.uri or buf_uri(ctx.bufnr)), ':.'),
      tostring(a.rule or 'determinism findings')
    ))
    M.execute(ctx.bufnr, 'vox.prove', command.arguments, M.show_prove)
  end,
  ['vox.showCaps'] = function(command, ctx)
    M.execute(ctx.bufnr, 'vox.showCaps', command.arguments, function(result)
      if type(result) == 'table' then
        present_caps(result)
      end
    end)
  end,
}

-- ---------------------------------------------------------------------------------------------
-- Attaching: code lens refresh, saving edited run configurations

local lens_group = vim.api.nvim_create_augroup('vox_codelens', { clear = true })

function M.on_attach(client, bufnr)
  if M.config.codelens and client.server_capabilities.codeLensProvider then
    vim.api.nvim_clear_autocmds({ group = lens_group, buffer = bufnr })
    vim.api.nvim_create_autocmd(M.config.codelens_events, {
      group = lens_group,
      buffer = bufnr,
      desc = 'vox: refresh code lenses',
      callback = function()
        vim.lsp.codelens.refresh({ bufnr = bufnr })
      end,
    })
    vim.lsp.codelens.refresh({ bufnr = bufnr })
  end
  if M.config.on_attach then
    M.config.on_attach(client, bufnr)
  end
end

local RUN_CONFIG_FILES = { 'Vox.toml', 'tasks.json', 'launch.json' }

local function is_run_config(name)
  local tail = vim.fn.fnamemodify(name, ':t')
  if tail == 'Vox.toml' then
    return true
  end
  return (tail == 'tasks.json' or tail == 'launch.json') and vim.fn.fnamemodify(name, ':h:t') == '.vscode'
end

local save_group = vim.api.nvim_create_augroup('vox_save_run_config', { clear = true })

local function watch_run_config_edits()
  vim.api.nvim_clear_autocmds({ group = save_group })
  if not M.config.save_run_config_edits then
    return
  end
  -- A workspace edit loads a file that is not open in the background (with `bufload`, in the hidden
  -- autocommand window), edits the buffer and leaves it unsaved. Neovim also skips `CreateFile` when
  -- `ignoreIfExists` is set. So: when a run configuration is loaded that way, write it once the edit is done.
  vim.api.nvim_create_autocmd({ 'BufNewFile', 'BufReadPost' }, {
    group = save_group,
    pattern = RUN_CONFIG_FILES,
    desc = 'vox: write run configurations that a code action edited in the background',
    callback = function(args)
      local buf = args.buf
      if vim.fn.win_gettype() ~= 'autocmd' or not is_run_config(vim.api.nvim_buf_get_name(buf)) then
        return
      end
      vim.schedule(function()
        if vim.api.nvim_buf_is_valid(buf) and vim.bo[buf].modified and #vim.fn.win_findbuf(buf) == 0 then
          vim.fn.mkdir(vim.fn.fnamemodify(vim.api.nvim_buf_get_name(buf), ':h'), 'p')
          vim.api.nvim_buf_call(buf, function()
            vim.cmd('silent noautocmd write')
          end)
        end
      end)
    end,
  })
end

-- ---------------------------------------------------------------------------------------------
-- The client configuration

--- Client capabilities beyond Neovim's defaults: Neovim applies `documentChanges` (with create, rename and
--- delete) but does not declare it, and the server then could not create Vox.toml or .vscode/tasks.json.
--- The plugin presents vox.showCaps's result itself (:VoxCaps, the caps lens): no window/showMessage repeats it.
function M.capabilities()
  return {
    workspace = {
      workspaceEdit = {
        documentChanges = true,
        resourceOperations = { 'create', 'rename', 'delete' },
      },
    },
    experimental = { vox = { showCaps = 'client' } },
  }
end

--- The table for vim.lsp.config('vox', …) (0.11) or vim.lsp.start (0.10, with root_dir added).
function M.lsp_config()
  watch_run_config_edits()
  local caps = M.capabilities()
  if not M.uses_lsp_config() then
    caps = vim.tbl_deep_extend('force', vim.lsp.protocol.make_client_capabilities(), caps)
  end
  return {
    name = 'vox',
    cmd = M.server_cmd(),
    filetypes = { 'voxscript' },
    -- The directory holding Vox.toml (or .git), else the script's own directory: a script is often alone.
    root_dir = function(bufnr, on_dir)
      on_dir(M.root_dir(bufnr))
    end,
    capabilities = caps,
    init_options = M.config.settings,
    settings = { vox = M.config.settings },
    handlers = {
      ['vox/runOutput'] = M.on_run_output,
      ['vox/runExit'] = M.on_run_exit,
    },
    commands = M.lens_commands,
    on_attach = M.on_attach,
  }
end

--- The workspace folder for a buffer: the nearest directory with a root marker, else the file's directory.
function M.root_dir(bufnr)
  local path = vim.api.nvim_buf_get_name(bufnr)
  return vim.fs.root(bufnr, M.config.root_markers) or vim.fs.dirname(path)
end

local warned_missing = false

local function start_010(bufnr)
  local cfg = M.lsp_config()
  cfg.root_dir = M.root_dir(bufnr)
  cfg.filetypes = nil
  vim.lsp.start(cfg, { bufnr = bufnr })
end

--- True when the client is configured with vim.lsp.config/enable (0.11+), false for vim.lsp.start (0.10).
--- `_legacy_start = true` forces the 0.10 path (the end-to-end test uses it to cover 0.10's code on 0.11).
function M.uses_lsp_config()
  return has_011 and not M.config._legacy_start
end

--- Configures and enables the client. Options: see `defaults` above and :help vox-setup.
function M.setup(opts)
  M.config = vim.tbl_deep_extend('force', vim.deepcopy(defaults), opts or {})
  vim.filetype.add({ extension = { vox = 'voxscript' } })
  watch_run_config_edits()
  local group = vim.api.nvim_create_augroup('vox_setup', { clear = true })
  vim.api.nvim_create_autocmd('FileType', {
    group = group,
    pattern = 'voxscript',
    callback = function(args)
      if not M.config.cmd and not M.find_server() and not warned_missing then
        warned_missing = true
        local _, why = M.find_server()
        notify(why .. ": set server_path in require('vox').setup{} (see :checkhealth vox)", vim.log.levels.ERROR)
        return
      end
      if not M.uses_lsp_config() then
        start_010(args.buf)
      end
    end,
  })
  if M.uses_lsp_config() then
    vim.lsp.config('vox', M.lsp_config())
    vim.lsp.enable('vox')
  else
    -- Buffers already open when setup() runs.
    for _, b in ipairs(vim.api.nvim_list_bufs()) do
      if vim.api.nvim_buf_is_loaded(b) and vim.bo[b].filetype == 'voxscript' then
        start_010(b)
      end
    end
  end
end

return M
