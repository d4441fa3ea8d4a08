-- *.vox files are VoxScript.
vim.filetype.add({ extension = { vox = 'voxscript' } })
