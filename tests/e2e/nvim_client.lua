-- Drives Neovim as a real LSP client: the shipped editors/nvim module starts spvls.
-- (Not nvim_open.lua: file types are read, and notify captured, before the example opens.)
local out_path = os.getenv("SPVLS_NVIM_OUT")
vim.opt.runtimepath:prepend(os.getenv("SPVLS_NVIM_RTP"))
vim.cmd("filetype on")
local messages = {}
vim.notify = function(msg) table.insert(messages, msg) end
require("spvls").setup({ cmd = { os.getenv("SPVLS_PYTHON"), "-m", "spvls" } })

local result = { filetypes = {}, diagnostics = {}, completion = {}, messages = messages }

-- File types: edit each file the test made and read what Neovim decided.
for name in vim.gsplit(os.getenv("SPVLS_FT_FILES"), ",") do
  vim.cmd("edit " .. os.getenv("SPVLS_FT_DIR") .. "/" .. name)
  result.filetypes[name] = vim.bo.filetype
end

vim.cmd("edit " .. os.getenv("SPVLS_EXAMPLE"))
local bufnr = vim.api.nvim_get_current_buf()
local uri = vim.uri_from_bufnr(bufnr)
result.filetype = vim.bo.filetype

vim.wait(30000, function() return #vim.diagnostic.get(bufnr) > 0 end, 50)
local lsp_diags = {}
for _, d in ipairs(vim.diagnostic.get(bufnr)) do
  local code = d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code)
  table.insert(result.diagnostics, { lnum = d.lnum, col = d.col, code = code, severity = d.severity })
  -- As the protocol has it (0.7 keeps only some fields in user_data).
  lsp_diags[d.lnum] = {
    range = { start = { line = d.lnum, character = d.col }, ["end"] = { line = d.end_lnum, character = d.end_col } },
    message = d.message, code = code, severity = d.severity, source = d.source,
  }
end

local function request(method, params)
  params.textDocument = { uri = uri }
  local responses = vim.lsp.buf_request_sync(bufnr, method, params, 15000) or {}
  for _, r in pairs(responses) do
    if r.result then return r.result end
  end
end

local function at(line, character)
  return { position = { line = line, character = character } }
end

local hover = request("textDocument/hover", at(22, 20))
result.hover = hover and hover.contents and hover.contents.value or ""
local completion = request("textDocument/completion", at(9, 37))
for _, item in ipairs((completion and completion.items) or completion or {}) do
  table.insert(result.completion, item.label)
end

-- Go to definition of %subgroup where line 23 uses it.
local text = vim.api.nvim_buf_get_lines(bufnr, 22, 23, false)[1]
local def = request("textDocument/definition", at(22, text:find("%subgroup", 1, true)))
if def and def[1] then def = def[1] end
result.definition_line = def and (def.range or def.targetSelectionRange).start.line

-- The quick fix for the misspelt capability on line 5, applied as the client applies it.
local diag = lsp_diags[4]
local actions = request("textDocument/codeAction", {
  range = diag.range, context = { diagnostics = { diag } },
}) or {}
for _, a in ipairs(actions) do
  if a.edit then
    result.action_title = a.title
    vim.lsp.util.apply_workspace_edit(a.edit, "utf-16")
    break
  end
end
result.fixed_line = vim.api.nvim_buf_get_lines(bufnr, 4, 5, false)[1]

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

-- A virtual environment without spvls: the module says so and starts nothing.
vim.cmd("enew")
result.bare_client = require("spvls").attach(vim.api.nvim_get_current_buf(), { venv = os.getenv("SPVLS_BARE_VENV") })

local f = io.open(out_path, "w")
f:write(vim.fn.json_encode(result))
f:close()
vim.cmd("qa!")
