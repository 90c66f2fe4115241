-- Drives Neovim on binary modules through the shipped editors/nvim module: open a .spv (its
-- text), edit, write (the binary), an invalid edit (refused), and a broken binary (its error).
local out_path = os.getenv("SPVLS_NVIM_OUT")
vim.opt.runtimepath:prepend(os.getenv("SPVLS_NVIM_RTP"))
vim.cmd("filetype on")
require("spvls").setup({ cmd = { os.getenv("SPVLS_PYTHON"), "-m", "spvls" } })
local result = {}

local function main()
vim.cmd("edit " .. os.getenv("SPVLS_SPV"))
local bufnr = vim.api.nvim_get_current_buf()
result.filetype = vim.bo.filetype
result.opened = vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)
result.modified_on_open = vim.bo.modified

-- The language server attaches to the text: its hover answers on an opcode.
vim.wait(30000, function() return #vim.lsp.get_clients({ bufnr = bufnr }) > 0 end, 50)
local hover_line = nil
for i, line in ipairs(result.opened) do
  if line:find("OpGroupNonUniformRotateKHR", 1, true) then
    hover_line = i - 1
    break
  end
end
vim.wait(30000, function()
  local client = vim.lsp.get_clients({ bufnr = bufnr })[1]
  return client and client.initialized
end, 50)
local col = result.opened[hover_line + 1]:find("OpGroupNonUniformRotateKHR", 1, true)
local responses = vim.lsp.buf_request_sync(bufnr, "textDocument/hover", {
  textDocument = { uri = vim.uri_from_bufnr(bufnr) }, position = { line = hover_line, character = col },
}, 15000) or {}
for _, r in pairs(responses) do
  if r.result then
    result.hover = r.result.contents.value
  end
end

-- A one-operand edit, written.
for i, line in ipairs(result.opened) do
  if line:find("LocalSize 64 1 1", 1, true) then
    vim.api.nvim_buf_set_lines(bufnr, i - 1, i, false, { (line:gsub("LocalSize 64 1 1", "LocalSize 32 1 1")) })
  end
end
result.edited = vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)
vim.cmd("write")
result.modified_after_write = vim.bo.modified

-- An edit that does not assemble: refused, the buffer kept (still modified), the error at its line.
for i, line in ipairs(result.edited) do
  if line:find("OpLoad", 1, true) then
    vim.api.nvim_buf_set_lines(bufnr, i - 1, i, false, { (line:gsub("OpLoad", "OpLoda")) })
    result.invalid_line = i - 1
    break
  end
end
pcall(vim.cmd, "write")
result.modified_after_refusal = vim.bo.modified
result.refusal = {}
for _, d in ipairs(vim.diagnostic.get(bufnr, { namespace = vim.api.nvim_create_namespace("spvls.binary") })) do
  table.insert(result.refusal, { lnum = d.lnum, col = d.col, message = d.message })
end

-- An edit that assembles but does not validate (an undefined type: a fresh id), written to another
-- file: written, and said, with spirv-val's first error as a warning at its line.
for i, line in ipairs(result.edited) do
  if line:find("OpLoad", 1, true) then
    local bad = line:gsub("OpLoad %%(%S+)", "OpLoad %%uintx")
    vim.api.nvim_buf_set_lines(bufnr, i - 1, i, false, { bad })
    result.unvalidated_line = i - 1
    break
  end
end
pcall(vim.cmd, "write " .. os.getenv("SPVLS_INVALID"))
result.unvalidated = {}
for _, d in ipairs(vim.diagnostic.get(bufnr, { namespace = vim.api.nvim_create_namespace("spvls.binary") })) do
  table.insert(result.unvalidated, { lnum = d.lnum, severity = d.severity, message = d.message })
end

-- A binary that cannot be read opens as its error, and cannot be written over.
vim.cmd("enew!")
pcall(vim.cmd, "edit " .. os.getenv("SPVLS_BROKEN")) -- its error is an error message
local broken = vim.api.nvim_get_current_buf()
result.broken = vim.api.nvim_buf_get_lines(broken, 0, -1, false)
result.broken_diagnostics = #vim.diagnostic.get(broken)
vim.bo[broken].modifiable = true
vim.api.nvim_buf_set_lines(broken, 0, 0, false, { "OpCapability Shader" })
pcall(vim.cmd, "write")
end

-- Whatever happens, the result (with the error, if any) is written and Neovim quits.
local ok, err = xpcall(main, debug.traceback)
result.error = not ok and err or nil
local f = io.open(out_path, "w")
f:write(vim.fn.json_encode(result))
f:close()
vim.cmd("qa!")
