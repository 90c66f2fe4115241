-- The workbench in Neovim: what spirv-opt makes of the buffer (:SpvlsOptimize) and how the buffer's
-- module differs from another (:SpvlsDiff), each opened beside it as a diff; the code lens on each
-- OpEntryPoint that sums up its resources.
local M = {}

local function execute(bufnr, command, argument, on_result)
  local params = { command = command, arguments = { argument } }
  vim.lsp.buf_request(bufnr, "workspace/executeCommand", params, function(err, result)
    if err or not result then
      vim.notify("spvls: " .. tostring(err and err.message or "no answer"), vim.log.levels.ERROR)
      if on_result then on_result(nil, err) end
      return
    end
    on_result(result)
  end)
end

-- A scratch buffer holding `text`, named `name`, shown as SPIR-V.
local function scratch(name, text)
  local buf = vim.api.nvim_create_buf(false, true)
  local lines = vim.split(text, "\n", { plain = true })
  if lines[#lines] == "" then table.remove(lines) end
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].modifiable = false
  vim.bo[buf].filetype = "spvasm"
  pcall(vim.api.nvim_buf_set_name, buf, name)
  return buf
end

-- Two texts side by side in a new tab, in diff mode; returns the two buffers.
local function show_diff(left_name, left, right_name, right)
  vim.cmd("tabnew")
  local a = scratch(left_name, left)
  vim.api.nvim_win_set_buf(0, a)
  vim.cmd("diffthis")
  vim.cmd("vsplit")
  local b = scratch(right_name, right)
  vim.api.nvim_win_set_buf(0, b)
  vim.cmd("diffthis")
  return a, b
end

-- :SpvlsOptimize[!] [FLAGS] — spirv-opt's passes (default -O) over the buffer's module; the result
-- opens beside the module (as spirv-dis shows it) as a diff, with the instruction counts; with !
-- (opts.per_pass) also the passes that changed them (spirv-opt --print-all: several times slower).
--   opts.on_done(answer, buffers) is called after.
function M.optimize(flags, opts)
  opts = opts or {}
  local bufnr = vim.api.nvim_get_current_buf()
  local passes = (flags and #flags > 0) and flags or { "-O" }
  local label = table.concat(passes, " ")
  local arg = { uri = vim.uri_from_bufnr(bufnr), passes = passes, perPass = opts.per_pass or false }
  execute(bufnr, "spvls.optimize", arg, function(result, err)
    if not result then
      if opts.on_done then opts.on_done(nil, nil, err) end
      return
    end
    local base = vim.fn.fnamemodify(vim.api.nvim_buf_get_name(bufnr), ":t")
    local a, b = show_diff("spvls://" .. base .. " (before " .. label .. ")", result.source,
      "spvls://" .. base .. " (after " .. label .. ")", result.text)
    local changed = {}
    for _, p in ipairs(result.passes or {}) do
      if p.before ~= p.after then table.insert(changed, p.name .. " " .. p.before .. "→" .. p.after) end
    end
    vim.notify(string.format("spvls: spirv-opt %s: %d → %d instructions%s", label, result.before, result.after,
      #changed > 0 and " (" .. table.concat(changed, ", ") .. ")" or ""), vim.log.levels.INFO)
    if opts.on_done then opts.on_done(result, { a, b }) end
  end)
end

-- :SpvlsDiff {file} — the buffer's module compared with another (text or binary) by structure
-- (spirv-diff), the other in this module's ids, side by side.
function M.diff(other, opts)
  opts = opts or {}
  local bufnr = vim.api.nvim_get_current_buf()
  local path = vim.fn.fnamemodify(vim.fn.expand(other), ":p")
  local argument = { uri = vim.uri_from_bufnr(bufnr), other = vim.uri_from_fname(path) }
  execute(bufnr, "spvls.diff", argument, function(result, err)
    if not result then
      if opts.on_done then opts.on_done(nil, nil, err) end
      return
    end
    local base = vim.fn.fnamemodify(vim.api.nvim_buf_get_name(bufnr), ":t")
    local a, b = show_diff("spvls://" .. base, result.left, "spvls://" .. vim.fn.fnamemodify(path, ":t"), result.right)
    vim.notify("spvls: " .. (result.changed == 0 and "the same module" or (result.changed .. " lines differ")),
      vim.log.levels.INFO)
    if opts.on_done then opts.on_done(result, { a, b }) end
  end)
end

-- Code lenses (an entry point's resources) kept current in SPIR-V buffers spvls serves.
function M.lenses(group)
  if not (vim.lsp.codelens and vim.lsp.codelens.refresh) then return end
  local events = { "BufEnter", "InsertLeave", "BufWritePost" }
  if vim.fn.exists("##LspAttach") == 1 then table.insert(events, "LspAttach") end
  vim.api.nvim_create_autocmd(events, {
    group = group,
    callback = function(args)
      if vim.bo[args.buf].filetype ~= "spvasm" then return end
      local clients = (vim.lsp.get_clients or vim.lsp.get_active_clients)()
      for _, c in pairs(clients) do
        if c.name == "spvls" and vim.lsp.buf_is_attached(args.buf, c.id)
            and c.server_capabilities and c.server_capabilities.codeLensProvider then
          -- 0.7 refreshes the current buffer and takes no options.
          pcall(vim.lsp.codelens.refresh, { bufnr = args.buf })
          return
        end
      end
    end,
  })
end

function M.setup(group)
  vim.api.nvim_create_user_command("SpvlsOptimize", function(a) M.optimize(a.fargs, { per_pass = a.bang }) end,
    { nargs = "*", bang = true,
      desc = "spvls: spirv-opt's passes (default -O) over this module, shown as a diff (!: with each pass's counts)" })
  vim.api.nvim_create_user_command("SpvlsDiff", function(a) M.diff(a.args) end,
    { nargs = 1, complete = "file", desc = "spvls: compare this module with another by structure (spirv-diff)" })
  M.lenses(group)
end

return M
