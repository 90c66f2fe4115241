-- Shared by the Neovim tests: the shipped editors/nvim module starts spvls on SPVLS_EXAMPLE.
-- Returns the output path, the buffer and its URI.
vim.opt.runtimepath:prepend(os.getenv("SPVLS_NVIM_RTP"))
vim.cmd("filetype on")
require("spvls").setup({ cmd = { os.getenv("SPVLS_PYTHON"), "-m", "spvls" } })
vim.cmd("edit " .. os.getenv("SPVLS_EXAMPLE"))
local bufnr = vim.api.nvim_get_current_buf()
return os.getenv("SPVLS_NVIM_OUT"), bufnr, vim.uri_from_bufnr(bufnr)
