-- Headless end-to-end test of the vox plugin in a real Neovim (run by test/run.sh, which sets up isolated
-- XDG dirs, a copy of the fixture workspace and `timeout`). Exits 0 when every step passes, 1 otherwise.
--
-- Environment: VOX_E2E_WS (the workspace copy), VOX_E2E_SERVER (the vox binary: real or fake),
-- VOX_E2E_PLUGIN (editors/nvim).
local ws = assert(os.getenv('VOX_E2E_WS'), 'VOX_E2E_WS')
local server = assert(os.getenv('VOX_E2E_SERVER'), 'VOX_E2E_SERVER')
local TIMEOUT = tonumber(os.getenv('VOX_E2E_TIMEOUT_MS') or '20000')

local passed, failed = 0, 0
local function out(s)
  io.stdout:write(s .. '\n')
  io.stdout:flush()
end

local function step(name, fn)
  local ok, err = xpcall(fn, debug.traceback)
  if ok then
    passed = passed + 1
    out('ok   ' .. name)
  else
    failed = failed + 1
    out('FAIL ' .. name .. '\n     ' .. tostring(err):gsub('\n', '\n     '))
  end
  return ok
end

local function wait(what, pred, ms)
  local ok = vim.wait(ms or TIMEOUT, pred, 50)
  assert(ok, 'timed out waiting for ' .. what)
end

local function read(path)
  local f = io.open(path, 'r')
  if not f then
    return nil
  end
  local s = f:read('*a')
  f:close()
  return s
end

local vox = require('vox')
-- VOX_E2E_MODE: setup (require('vox').setup on 0.11: vim.lsp.config/enable), legacy (setup's Neovim 0.10
-- path: vim.lsp.start), enable (no setup(): lsp/vox.lua with vim.lsp.enable('vox') and vim.g.vox_server_path).
local mode = os.getenv('VOX_E2E_MODE') or 'setup'
if mode == 'enable' then
  vim.g.vox_server_path = server
  vim.lsp.enable('vox')
else
  vox.setup({ server_path = server, _legacy_start = mode == 'legacy' })
end
out('mode ' .. mode .. ': ' .. (mode == 'legacy' and 'vim.lsp.start (the Neovim 0.10 path of setup())' or mode == 'enable' and "lsp/vox.lua + vim.lsp.enable('vox'), no setup()" or 'setup() with vim.lsp.config/vim.lsp.enable'))

local script = ws .. '/greet.vox'
local bufnr

local function finish()
  out(('nvim e2e [%s]: %d passed, %d failed'):format(mode, passed, failed))
  vim.cmd((failed == 0 and passed > 0) and 'qa!' or 'cquit 1')
end

local ok = step('open a script: filetype voxscript, the vox client attaches', function()
  vim.cmd.edit(vim.fn.fnameescape(script))
  bufnr = vim.api.nvim_get_current_buf()
  assert(vim.bo[bufnr].filetype == 'voxscript', 'filetype is ' .. vim.bo[bufnr].filetype)
  wait('the vox client', function()
    local c = vox.get_client(bufnr)
    return c ~= nil and c.initialized
  end)
  local c = vox.get_client(bufnr)
  assert(c.root_dir == ws or vim.fs.normalize(c.root_dir) == vim.fs.normalize(ws), 'root_dir ' .. tostring(c.root_dir))
end)
if not ok then
  return finish()
end

step('diagnostics: a D-rule finding with its call chain', function()
  local d
  wait('a D-rule diagnostic', function()
    for _, x in ipairs(vim.diagnostic.get(bufnr)) do
      if type(x.code) == 'string' and x.code:match('^D%d%d%d$') then
        d = x
        return true
      end
    end
    return false
  end)
  local lsp = d.user_data and d.user_data.lsp or {}
  local related = lsp.relatedInformation or {}
  assert(#related >= 1, 'no relatedInformation (call chain) on ' .. d.code .. ': ' .. vim.inspect(lsp))
  out(('     %s at %d:%d: %s; chain: %s'):format(d.code, d.lnum + 1, d.col + 1, d.message:gsub('\n.*', ''), related[1].message))
end)

step('code lenses: ▶ Run and the caps lens', function()
  wait('code lenses', function()
    local titles = {}
    for _, l in ipairs(vim.lsp.codelens.get(bufnr)) do
      if l.command then
        titles[l.command.title] = true
      end
    end
    if not titles['▶ Run'] then
      return false
    end
    for t in pairs(titles) do
      if t:match('^caps: ') then
        return true
      end
    end
    return false
  end)
end)

local caps
step(':VoxCaps through vox.showCaps', function()
  vim.cmd('VoxCaps')
  wait('vox.showCaps result', function()
    return vox.last_caps ~= nil
  end)
  caps = vox.last_caps.tokens
  assert(type(caps) == 'table' and #caps > 0, 'no tokens: ' .. vim.inspect(vox.last_caps))
  out('     caps: ' .. table.concat(caps, ' '))
end)

step('code action "Run with inferred capabilities: add to Vox.toml" writes Vox.toml', function()
  assert(read(ws .. '/Vox.toml') == nil, 'Vox.toml exists before the code action')
  vim.api.nvim_win_set_cursor(0, { 6, 0 })
  local title = 'Run with inferred capabilities: add to Vox.toml'
  vim.lsp.buf.code_action({
    filter = function(a)
      return a.title == title
    end,
    apply = true,
  })
  local text
  wait('Vox.toml on disk with a run entry', function()
    text = read(ws .. '/Vox.toml')
    return text ~= nil and text:find('caps', 1, true) ~= nil
  end)
  assert(text:match('%[run%.greet%]'), 'no [run.greet] in:\n' .. text)
  assert(text:match('script%s*=%s*"greet%.vox"'), 'no script = "greet.vox" in:\n' .. text)
  for _, want in ipairs({ 'fs:ro=data', 'env:ro', 'time:real' }) do
    assert(text:find('"' .. want .. '"', 1, true), want .. ' missing from:\n' .. text)
  end
  for _, t in ipairs(caps or {}) do
    assert(text:find('"' .. t .. '"', 1, true), 'inferred ' .. t .. ' missing from:\n' .. text)
  end
  out('     Vox.toml:\n       ' .. vim.trim(text):gsub('\n', '\n       '))
end)

local function wait_run_exit(label)
  local before = vox.latest_run
  return function()
    local id
    wait(label .. ' to start', function()
      id = vox.latest_run
      return id ~= nil and id ~= before
    end)
    wait(label .. ' to exit', function()
      return vox.runs[id] and vox.runs[id].exit ~= nil
    end)
    return id, vox.runs[id].exit
  end
end

step(':VoxRun through vox.run: output in the run buffer', function()
  local waiter = wait_run_exit(':VoxRun')
  vim.cmd('VoxRun')
  local id, code = waiter()
  local lines = vim.api.nvim_buf_get_lines(vox.output_buffer(), 0, -1, false)
  local text = table.concat(lines, '\n')
  assert(code == 0, 'exit code ' .. tostring(code) .. ':\n' .. text)
  assert(text:find('vox demo: starting', 1, true), 'output missing:\n' .. text)
  assert(text:find(('[run %d]'):format(id), 1, true), 'header missing:\n' .. text)
  assert(#vim.fn.win_findbuf(vox.output_buffer()) > 0, 'run output window not shown')
  out('     run buffer:\n       ' .. text:gsub('\n', '\n       '))
end)

step(':VoxRunTest through vox.runTest', function()
  local waiter = wait_run_exit(':VoxRunTest')
  vim.api.nvim_set_current_win(vim.fn.win_findbuf(bufnr)[1])
  vim.cmd('VoxRunTest greeting_is_nonempty')
  local _, code = waiter()
  assert(code == 0, 'exit code ' .. tostring(code))
end)

-- vox.prove needs the real server (the fake one has no perturbation to run).
local function server_has(command)
  local c = vox.get_client(bufnr)
  local p = c and c.server_capabilities.executeCommandProvider
  return p ~= nil and vim.tbl_contains(p.commands or {}, command)
end

if not server_has('vox.prove') then
  out('skip prove: the server under test has no vox.prove (the fake server)')
else
  step('prove: the code action on the D003 finding shows both runs side by side in diff mode', function()
    vim.api.nvim_set_current_win(vim.fn.win_findbuf(bufnr)[1])
    local d
    for _, x in ipairs(vim.diagnostic.get(bufnr)) do
      if x.code == 'D003' then
        d = x
      end
    end
    assert(d, 'no D003 diagnostic: ' .. vim.inspect(vim.diagnostic.get(bufnr)))
    local title = 'Prove: run twice with different perturbation'
    wait('the prove code lens on the finding line', function()
      vim.lsp.codelens.refresh({ bufnr = bufnr })
      for _, l in ipairs(vim.lsp.codelens.get(bufnr)) do
        if l.command and l.command.title == title and l.range.start.line == d.lnum then
          return true
        end
      end
      return false
    end)
    vim.api.nvim_win_set_cursor(0, { d.lnum + 1, d.col })
    vox.last_prove = nil
    local tabs = #vim.api.nvim_list_tabpages()
    vim.lsp.buf.code_action({
      filter = function(a)
        return a.title == title
      end,
      apply = true,
    })
    wait('the vox.prove result and its diff tab', function()
      return vox.last_prove ~= nil and #vim.api.nvim_list_tabpages() == tabs + 1
    end, 60000)
    local r = vox.last_prove
    assert(r.differs == true, 'the runs agree: ' .. vim.inspect(r))
    assert(r.run1.exit == 0 and r.run2.exit == 0, 'exit codes: ' .. vim.inspect(r))
    -- Both runs had exactly the caps of the script's run (the set the Vox.toml step wrote), no more.
    table.sort(r.caps)
    local want = vim.deepcopy(caps or {})
    table.sort(want)
    assert(vim.deep_equal(r.caps, want), 'caps: ' .. vim.inspect(r.caps) .. ', expected ' .. vim.inspect(want))
    local wins = vox.prove_windows
    assert(#vim.api.nvim_tabpage_list_wins(0) == 2, 'the prove tab has ' .. #vim.api.nvim_tabpage_list_wins(0) .. ' windows')
    local sides = {}
    for i, w in ipairs(wins) do
      assert(vim.api.nvim_win_get_tabpage(w) == vim.api.nvim_get_current_tabpage(), 'window ' .. i .. ' is not in the prove tab')
      assert(vim.wo[w].diff, 'window ' .. i .. ' is not in diff mode')
      local b = vim.api.nvim_win_get_buf(w)
      sides[i] = vim.api.nvim_buf_get_lines(b, 0, -1, false)
      assert(vim.api.nvim_buf_get_name(b):find(('run %d (--perturb %d)'):format(i, i), 1, true), vim.api.nvim_buf_get_name(b))
      assert(sides[i][1] == 'vox demo: starting', 'run ' .. i .. ': ' .. table.concat(sides[i], ' | '))
      assert(sides[i][#sides[i]] == '[exit 0]', 'run ' .. i .. ': ' .. table.concat(sides[i], ' | '))
      assert(vim.api.nvim_win_get_cursor(w)[1] == r.line, 'cursor not at the first difference in window ' .. i)
    end
    assert(sides[1][r.line] == r.first and sides[2][r.line] == r.second, 'the differing line: ' .. vim.inspect(r))
    assert(r.first ~= r.second and r.first:match('^at %d+$') and r.second:match('^at %d+$'), vim.inspect(r))
    for i = 1, r.line - 1 do
      assert(sides[1][i] == sides[2][i], 'line ' .. i .. ' differs before the reported one')
    end
    out(('     line %d: run 1 %q | run 2 %q'):format(r.line, r.first, r.second))
    vim.cmd('tabclose')
  end)
end

step(':checkhealth vox has no ERROR', function()
  vim.cmd('silent checkhealth vox')
  local hb = vim.api.nvim_get_current_buf()
  local text = table.concat(vim.api.nvim_buf_get_lines(hb, 0, -1, false), '\n')
  assert(text:find('vox binary', 1, true), 'health report lacks the vox binary check:\n' .. text)
  assert(text:find('answers initialize', 1, true), 'health report lacks the initialize probe:\n' .. text)
  assert(text:find('vox doctor: ', 1, true), 'health report lacks vox doctor:\n' .. text)
  assert(not text:find('ERROR', 1, true), 'health report has an ERROR:\n' .. text)
  assert(text:find('client %d+'), 'health report lacks the running client:\n' .. text)
  vim.cmd('tabclose')
end)

step(':help vox', function()
  vim.cmd('help vox')
  assert(vim.api.nvim_buf_get_name(0):match('doc/vox%.txt$'), 'help opened ' .. vim.api.nvim_buf_get_name(0))
  vim.cmd('helpclose')
end)

finish()
