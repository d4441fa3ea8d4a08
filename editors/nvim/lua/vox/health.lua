-- :checkhealth vox
local M = {}

-- Starts `path lsp`, sends `initialize` and waits for the answer (at most `timeout_ms`): the
-- server's name and version, or nil and why not. Ends the server with shutdown/exit.
local function probe_initialize(path, timeout_ms)
  local buf = ''
  local answer
  local ok, proc = pcall(vim.system, { path, 'lsp' }, {
    stdin = true,
    stdout = function(_, data)
      if data then
        buf = buf .. data
      end
    end,
  })
  if not ok then
    return nil, tostring(proc)
  end
  local function send(msg)
    local body = vim.json.encode(msg)
    proc:write(('Content-Length: %d\r\n\r\n%s'):format(#body, body))
  end
  send({ jsonrpc = '2.0', id = 1, method = 'initialize', params = { processId = vim.NIL, rootUri = vim.NIL, capabilities = vim.empty_dict() } })
  vim.wait(timeout_ms, function()
    local body = buf:match('\r\n\r\n(.*)$')
    if body then
      local decoded_ok, msg = pcall(vim.json.decode, body)
      if decoded_ok and type(msg) == 'table' and msg.id == 1 then
        answer = msg
        return true
      end
    end
    return false
  end, 20)
  if answer then
    send({ jsonrpc = '2.0', id = 2, method = 'shutdown' })
    send({ jsonrpc = '2.0', method = 'exit' })
  end
  pcall(function()
    proc:write(nil)
  end)
  if not proc:wait(2000) then
    proc:kill(9)
  end
  if not answer then
    return nil, ('no answer to initialize within %d ms'):format(timeout_ms)
  end
  if answer.error then
    return nil, 'initialize failed: ' .. tostring(answer.error.message)
  end
  local info = answer.result and answer.result.serverInfo or {}
  return (info.name or 'vox') .. ' ' .. (info.version or '')
end

-- `vox doctor`'s lines as health items: ok stays ok, warn is a warning, and fail is a warning
-- too (runs with --caps refuse children on this host; editing and linting are unaffected).
local function report_doctor(path)
  local res = vim.system({ path, 'doctor' }, { text = true }):wait(30000)
  local out = (res.stdout or '') .. (res.stderr or '')
  local any = false
  for line in out:gmatch('[^\n]+') do
    local status, rest = line:match('^(%a+)%s+(.*)$')
    if status == 'ok' then
      vim.health.ok('vox doctor: ' .. rest)
      any = true
    elseif status == 'warn' or status == 'fail' then
      vim.health.warn('vox doctor: ' .. status .. ' ' .. rest, { 'see docs/jail.md in the vox repository' })
      any = true
    end
  end
  if not any then
    vim.health.warn('`' .. path .. ' doctor` printed nothing recognisable (exit ' .. tostring(res.code) .. ')')
  end
end

function M.check()
  local health = vim.health
  local vox = require('vox')

  health.start('vox: Neovim')
  local v = vim.version()
  local vs = ('%d.%d.%d'):format(v.major, v.minor, v.patch)
  if vim.fn.has('nvim-0.11') == 1 then
    health.ok('Neovim ' .. vs .. ': lsp/vox.lua is used by vim.lsp.config / vim.lsp.enable')
  elseif vim.fn.has('nvim-0.10') == 1 then
    health.ok('Neovim ' .. vs .. ": use require('vox').setup() (vim.lsp.config needs 0.11)")
  else
    health.error('Neovim ' .. vs .. ' is too old', { 'the vox plugin needs Neovim 0.10 or newer' })
  end

  health.start('vox: filetype')
  local ft = vim.filetype.match({ filename = 'script.vox' })
  if ft == 'voxscript' then
    health.ok('*.vox files are detected as voxscript')
  else
    health.error('*.vox files are detected as ' .. tostring(ft), { 'put editors/nvim on the runtimepath (see :help vox-install)' })
  end

  health.start('vox: language server')
  if vox.config.cmd then
    local exe = vox.config.cmd[1]
    if vim.fn.executable(exe) == 1 then
      health.ok('cmd: ' .. table.concat(vox.config.cmd, ' '))
    else
      health.error('cmd: ' .. exe .. ' is not executable', { 'fix the cmd option of setup()' })
    end
  else
    local path, how = vox.find_server()
    if path then
      health.ok(('vox binary (%s): %s'):format(how == 'PATH' and 'from PATH' or 'server_path', path))
      local ok, out = pcall(vim.fn.system, { path, '--version' })
      if ok and vim.v.shell_error == 0 then
        health.ok('version: ' .. vim.trim(out))
      else
        health.warn('`' .. path .. ' --version` failed: ' .. vim.trim(tostring(out)))
      end
      local server, why = probe_initialize(path, 5000)
      if server then
        health.ok('`vox lsp` starts and answers initialize: ' .. vim.trim(server))
      else
        health.error('`' .. path .. ' lsp` does not answer initialize: ' .. why, {
          'run `' .. path .. ' lsp` in a terminal to see its error',
        })
      end
      health.start('vox: vox doctor (what this host can enforce for runs with --caps)')
      report_doctor(path)
    else
      health.error(how, {
        "install vox and put it on PATH, or set it with require('vox').setup({ server_path = '/path/to/vox' })",
        'or: vim.g.vox_server_path = "/path/to/vox"',
      })
    end
  end

  local clients = vim.lsp.get_clients({ name = 'vox' })
  if #clients == 0 then
    health.info('no vox client is running (open a .vox file to start one)')
  else
    for _, c in ipairs(clients) do
      local caps = c.server_capabilities or {}
      local cmds = caps.executeCommandProvider and caps.executeCommandProvider.commands or {}
      local missing = {}
      for _, want in ipairs({ 'vox.run', 'vox.runTest', 'vox.showCaps', 'vox.stop' }) do
        if not vim.list_contains(cmds, want) then
          table.insert(missing, want)
        end
      end
      local info = c.server_info and (c.server_info.name .. ' ' .. (c.server_info.version or '')) or 'vox'
      if #missing == 0 then
        health.ok(('client %d (%s), root %s, position encoding %s'):format(c.id, info, tostring(c.root_dir), tostring(c.offset_encoding)))
        if not vim.list_contains(cmds, 'vox.prove') then
          health.info(('client %d does not offer vox.prove: :VoxProve and the Prove code lens need a newer vox'):format(c.id))
        end
      else
        health.warn(('client %d (%s) does not offer %s'):format(c.id, info, table.concat(missing, ', ')), {
          ':VoxRun, :VoxRunTest and :VoxCaps need these execute commands; update vox',
        })
      end
    end
  end

  health.start('vox: editor integration')
  local lens = vim.api.nvim_get_autocmds({ group = 'vox_codelens' })
  if vox.config.codelens then
    health.ok(('code lens refresh on %s (%d buffer autocommands)'):format(table.concat(vox.config.codelens_events, ', '), #lens))
  else
    health.info('code lens refresh is off (codelens = false)')
  end
  if vox.config.save_run_config_edits then
    health.ok('run configurations edited by code actions in hidden buffers are written (save_run_config_edits)')
  else
    health.info('save_run_config_edits = false: write Vox.toml / tasks.json yourself after a code action')
  end
  for _, cmd in ipairs({ 'VoxRun', 'VoxRunTest', 'VoxCaps', 'VoxProve' }) do
    if vim.fn.exists(':' .. cmd) ~= 2 then
      health.error(':' .. cmd .. ' is not defined', { 'plugin/vox.lua was not loaded: check the runtimepath' })
    end
  end
end

return M
