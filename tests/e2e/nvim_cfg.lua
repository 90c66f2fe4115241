-- Neovim as a real client: :SpvlsCfg asks spvls for the CFG at the cursor, writes it and opens it
-- with the configured viewer (here `cp -t DIR`, standing in for xdg-open).
vim.opt.runtimepath:prepend(os.getenv("SPVLS_NVIM_RTP"))
vim.cmd("filetype on")
require("spvls").setup({ cmd = { os.getenv("SPVLS_PYTHON"), "-m", "spvls" },
                         viewer = { "cp", "-t", os.getenv("SPVLS_NVIM_VIEWED") } })
vim.cmd("edit " .. os.getenv("SPVLS_EXAMPLE"))
local bufnr = vim.api.nvim_get_current_buf()
-- Ready once the server answers a request for this buffer.
vim.wait(30000, function()
  local r = vim.lsp.buf_request_sync(bufnr, "textDocument/documentSymbol",
    { textDocument = { uri = vim.uri_from_bufnr(bufnr) } }, 2000) or {}
  for _, x in pairs(r) do
    if x.result then return true end
  end
  return false
end, 200)
vim.fn.search("OpSwitch")
local done = nil
require("spvls").show_cfg({ on_done = function(path, answer) done = { path = path, fn = answer["function"] } end })
vim.wait(60000, function() return done ~= nil end, 50)
vim.wait(10000, function() return vim.fn.filereadable(os.getenv("SPVLS_NVIM_VIEWED") .. "/" ..
  vim.fn.fnamemodify(done and done.path or "", ":t")) == 1 end, 50)
local f = io.open(os.getenv("SPVLS_NVIM_OUT"), "w")
f:write(vim.fn.json_encode(done or {}))
f:close()
vim.cmd("qa!")
