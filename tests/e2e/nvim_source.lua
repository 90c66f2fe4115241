-- Neovim as a real client of the source map: go to definition on an opcode (the user's gd) jumps to
-- the shader source; hover shows the location. SPVLS_NVIM_LINE/COL: the opcode's position (0-based).
local out_path, bufnr, uri = dofile(debug.getinfo(1, "S").source:sub(2):match("(.*/)") .. "nvim_open.lua")
local line, col = tonumber(os.getenv("SPVLS_NVIM_LINE")), tonumber(os.getenv("SPVLS_NVIM_COL"))
local result = {}

local function attached()
  local get = vim.lsp.get_clients or vim.lsp.buf_get_clients
  return next(vim.lsp.get_clients and get({ bufnr = bufnr }) or get(bufnr)) ~= nil
end
vim.wait(30000, attached, 50)

local params = { textDocument = { uri = uri }, position = { line = line, character = col } }
for _, r in pairs(vim.lsp.buf_request_sync(bufnr, "textDocument/hover", params, 15000) or {}) do
  if r.result then result.hover = r.result.contents.value end
end

-- As a user does: the cursor on the opcode, then vim.lsp.buf.definition(); wait for the jump.
vim.api.nvim_win_set_cursor(0, { line + 1, col })
vim.lsp.buf.definition()
vim.wait(15000, function() return vim.api.nvim_get_current_buf() ~= bufnr end, 50)
result.buffer = vim.api.nvim_buf_get_name(0)
result.cursor = vim.api.nvim_win_get_cursor(0)
result.text = vim.api.nvim_get_current_line()

local f = io.open(out_path, "w")
f:write(vim.fn.json_encode(result))
f:close()
vim.cmd("qa!")
