-- Minimal init for the end-to-end test: only this plugin on the runtimepath (plus Neovim's own runtime).
local plugin = assert(os.getenv('VOX_E2E_PLUGIN'), 'VOX_E2E_PLUGIN')
vim.opt.runtimepath:prepend(plugin)
vim.opt.swapfile = false
vim.opt.shadafile = 'NONE'
vim.cmd('filetype plugin on')
