-- Drives Neovim as a real LSP client: the shipped editors/nvim module starts spvls.
local out_path, bufnr, uri = dofile(debug.getinfo(1, "S").source:sub(2):match("(.*/)") .. "nvim_open.lua")
local result = { filetype = vim.bo.filetype, diagnostics = {}, completion = {} }

vim.wait(30000, function() return #vim.diagnostic.get(bufnr) > 0 end, 50)
for _, d in ipairs(vim.diagnostic.get(bufnr)) do
  local code = d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code)
  table.insert(result.diagnostics, { lnum = d.lnum, col = d.col, code = code, severity = d.severity })
end

local function request(method, line, character)
  local params = { textDocument = { uri = uri }, position = { line = line, character = character } }
  local responses = vim.lsp.buf_request_sync(bufnr, method, params, 15000) or {}
  for _, r in pairs(responses) do
    if r.result then return r.result end
  end
end

local hover = request("textDocument/hover", 22, 20)
result.hover = hover and hover.contents and hover.contents.value or ""
local completion = request("textDocument/completion", 9, 37)
for _, item in ipairs((completion and completion.items) or completion or {}) do
  table.insert(result.completion, item.label)
end

-- Format the buffer as a user would (vim.lsp.buf.format on 0.8+, the 0.7 request otherwise).
vim.api.nvim_buf_set_lines(bufnr, 0, 0, false, { "OpNop    ; inserted" })
local edits = {}
local fmt = vim.lsp.buf_request_sync(bufnr, "textDocument/formatting",
  { textDocument = { uri = uri }, options = { tabSize = 4, insertSpaces = true } }, 15000) or {}
for _, r in pairs(fmt) do
  if r.result then
    vim.lsp.util.apply_text_edits(r.result, bufnr, "utf-16")
    edits = r.result
  end
end
result.format_edits = #edits
result.first_line = vim.api.nvim_buf_get_lines(bufnr, 0, 1, false)[1]

local f = io.open(out_path, "w")
f:write(vim.fn.json_encode(result))
f:close()
vim.cmd("qa!")
