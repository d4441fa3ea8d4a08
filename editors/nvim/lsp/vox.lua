-- Neovim 0.11+: the `vox` language server for vim.lsp.config / vim.lsp.enable('vox').
-- The table is built by require('vox').lsp_config(), so :VoxRun & co, run output and code lens refresh
-- work whether or not require('vox').setup() was called.
return require('vox').lsp_config()
