-- Neovim as a real client of the workbench: the outline, hover and code lens of a module's
-- resources, :SpvlsOptimize's and :SpvlsDiff's side-by-side diffs.
vim.opt.runtimepath:prepend(os.getenv("SPVLS_NVIM_RTP"))
vim.cmd("filetype on")
local messages = {}
vim.notify = function(msg) table.insert(messages, msg) end
require("spvls").setup({ cmd = { os.getenv("SPVLS_PYTHON"), "-m", "spvls" } })
vim.cmd("edit " .. os.getenv("SPVLS_EXAMPLE"))
local bufnr = vim.api.nvim_get_current_buf()
local uri = vim.uri_from_bufnr(bufnr)
local result = { messages = messages }

local function request(method, params)
  params.textDocument = { uri = uri }
  local responses = vim.lsp.buf_request_sync(bufnr, method, params, 15000) or {}
  for _, r in pairs(responses) do
    if r.result then return r.result end
  end
end

vim.wait(30000, function() return request("textDocument/documentSymbol", {}) ~= nil end, 200)

-- The outline: each entry point's resources under it.
result.outline = {}
for _, s in ipairs(request("textDocument/documentSymbol", {}) or {}) do
  if s.children and s.detail and s.detail:find("^Fragment") then
    for _, c in ipairs(s.children) do
      table.insert(result.outline, { name = c.name, detail = c.detail, line = c.selectionRange.start.line })
    end
  end
end

-- Hover on the uniform buffer's variable.
local line = vim.fn.search("%camera = OpVariable") - 1
local text = vim.api.nvim_buf_get_lines(bufnr, line, line + 1, false)[1]
local hover = request("textDocument/hover", { position = { line = line, character = text:find("%camera", 1, true) } })
result.hover = hover and hover.contents and hover.contents.value or ""

-- The code lens, as the plugin refreshes it and Neovim keeps it.
vim.lsp.codelens.refresh()
vim.wait(15000, function() return #vim.lsp.codelens.get(bufnr) > 0 end, 100)
result.lenses = {}
for _, lens in ipairs(vim.lsp.codelens.get(bufnr)) do
  table.insert(result.lenses, { line = lens.range.start.line, title = lens.command and lens.command.title })
end

local function shown(buffers)
  local out = {}
  for _, b in ipairs(buffers) do
    local win = vim.fn.bufwinid(b)
    table.insert(out, { lines = vim.api.nvim_buf_get_lines(b, 0, -1, false), diff = win ~= -1 and vim.wo[win].diff,
                        filetype = vim.bo[b].filetype })
  end
  return out
end

local workbench = require("spvls.workbench")
local optimized = nil
workbench.optimize({ "-O" }, { per_pass = true, on_done = function(answer, buffers, err)
  if not answer then optimized = { error = tostring(err and err.message) } return end
  optimized = { before = answer.before, after = answer.after, views = shown(buffers) }
end })
vim.wait(60000, function() return optimized ~= nil end, 100)
result.optimized = optimized

vim.cmd("tabfirst")
local compared = nil
workbench.diff(os.getenv("SPVLS_OTHER"), { on_done = function(answer, buffers, err)
  if not answer then compared = { error = tostring(err and err.message) } return end
  compared = { changed = answer.changed, views = shown(buffers) }
end })
vim.wait(60000, function() return compared ~= nil end, 100)
result.compared = compared

local f = io.open(os.getenv("SPVLS_NVIM_OUT"), "w")
f:write(vim.fn.json_encode(result))
f:close()
vim.cmd("qa!")
