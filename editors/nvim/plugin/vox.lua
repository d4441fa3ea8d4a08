-- User commands of the vox plugin. Cheap: the module loads on first use.
if vim.g.loaded_vox then
  return
end
vim.g.loaded_vox = true

vim.filetype.add({ extension = { vox = 'voxscript' } })

local function vox()
  return require('vox')
end

vim.api.nvim_create_user_command('VoxRun', function(a)
  vox().run({ config = a.args ~= '' and a.args or nil })
end, { nargs = '?', desc = 'vox: run the current script (optional: a [run.NAME] of Vox.toml)' })

vim.api.nvim_create_user_command('VoxRunTest', function(a)
  vox().run_test({ test = a.args ~= '' and a.args or nil })
end, { nargs = '?', desc = 'vox: run the @test at the cursor (or the named one)' })

vim.api.nvim_create_user_command('VoxCaps', function()
  vox().show_caps()
end, { desc = 'vox: show the inferred capabilities of the current script' })

vim.api.nvim_create_user_command('VoxStop', function(a)
  vox().stop({ run_id = tonumber(a.args) })
end, { nargs = '?', desc = 'vox: stop a run (default: the latest)' })

vim.api.nvim_create_user_command('VoxProve', function(a)
  vox().prove({ config = a.args ~= '' and a.args or nil })
end, { nargs = '?', desc = 'vox: run the current script twice (--perturb 1, --perturb 2) and diff the outputs' })
