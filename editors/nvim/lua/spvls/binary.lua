-- Binary SPIR-V modules as text: a buffer holding a module (`*.spv`, or any file starting with
-- the magic number) shows what `spvls dis` prints, with every spvls feature; `:w` writes the
-- binary back with `spvls as --ids-from`, so the names keep the binary's own ids.
-- Nothing is lost: text that does not assemble is not written (the error is shown at its line
-- and the buffer stays modified); a module that cannot be read opens as its error, not as an
-- empty buffer, and cannot be written over; writes are atomic (spvls writes a temporary file
-- and renames it).
local M = {}

local ns = vim.api.nvim_create_namespace("spvls.binary")
local MAGIC = { string.char(0x03, 0x02, 0x23, 0x07), string.char(0x07, 0x23, 0x02, 0x03) }

-- The spvls command the language server runs (cmd or venv), with CLI arguments.
local function cli(args)
  local cmd = M.command()
  return cmd and vim.list_extend(vim.deepcopy(cmd), args)
end

-- (exit code, stdout, stderr); Neovim before 0.10 has no vim.system: stderr comes with stdout.
local function run(cmd, input)
  if not cmd then
    return 1, "", "spvls is not installed (see require('spvls').install)"
  end
  if vim.system then
    local r = vim.system(cmd, { stdin = input, text = true }):wait()
    return r.code, r.stdout or "", r.stderr or ""
  end
  local out = vim.fn.system(cmd, input)
  return vim.v.shell_error, out, out
end

function M.is_binary(path)
  local f = io.open(path, "rb")
  if not f then
    return false
  end
  local head = f:read(4)
  f:close()
  return head == MAGIC[1] or head == MAGIC[2]
end

local function error_at(bufnr, line, col, message)
  vim.diagnostic.set(ns, bufnr, { {
    lnum = line, col = col, message = message, severity = vim.diagnostic.severity.ERROR, source = "spvls",
  } })
end

local function set_text(bufnr, lines)
  local undolevels = vim.bo[bufnr].undolevels
  vim.bo[bufnr].undolevels = -1 -- loading is not an edit to undo
  vim.api.nvim_buf_set_lines(bufnr, 0, -1, false, lines)
  vim.bo[bufnr].undolevels = undolevels
  vim.bo[bufnr].modified = false
end

-- Fill the buffer with the module's text; the write handler goes with it.
function M.read(bufnr, path)
  vim.b[bufnr].spvls_binary = path
  vim.b[bufnr].spvls_unreadable = nil
  vim.bo[bufnr].modifiable = true
  vim.diagnostic.reset(ns, bufnr)
  vim.api.nvim_clear_autocmds({ group = M.group, event = "BufWriteCmd", buffer = bufnr })
  vim.api.nvim_create_autocmd("BufWriteCmd", {
    group = M.group,
    buffer = bufnr,
    callback = function(args) M.write(args.buf, vim.fn.fnamemodify(args.match, ":p")) end,
  })
  if vim.fn.filereadable(path) == 0 then -- a new file: empty, written as a new module
    set_text(bufnr, {})
    vim.bo[bufnr].filetype = "spvasm"
    return true
  end
  local code, out, err = run(cli({ "dis", path }))
  if code ~= 0 then
    local message = vim.trim(err ~= "" and err or out)
    vim.b[bufnr].spvls_unreadable = message
    set_text(bufnr, { "; spvls could not read this binary module; the file is left as it is:", "; " .. message })
    vim.bo[bufnr].modifiable = false
    error_at(bufnr, 1, 2, message)
    vim.notify("spvls: " .. message, vim.log.levels.ERROR)
    return false
  end
  local lines = vim.split(out, "\n", { plain = true })
  if lines[#lines] == "" then
    table.remove(lines)
  end
  set_text(bufnr, lines)
  vim.bo[bufnr].filetype = "spvasm" -- attaches spvls: diagnostics, hover, completion, …
  return true
end

-- Assemble the buffer over `path`; refused with the assembler's error at its line.
function M.write(bufnr, path)
  local unreadable = vim.b[bufnr].spvls_unreadable
  if unreadable then
    vim.notify("spvls: not written: the binary could not be read (" .. unreadable .. ")", vim.log.levels.ERROR)
    return false
  end
  local args = { "as", "-", "-o", path }
  local origin = vim.b[bufnr].spvls_binary
  if origin and M.is_binary(origin) then
    vim.list_extend(args, { "--ids-from", origin })
  end
  local text = table.concat(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false), "\n") .. "\n"
  local code, out, err = run(cli(args), text)
  if code ~= 0 then
    local message = vim.trim(err ~= "" and err or out)
    local line, col, what = message:match("^%-:(%d+):(%d+): error: (.*)$")
    if line then
      error_at(bufnr, tonumber(line) - 1, tonumber(col) - 1, what)
    end
    vim.notify("spvls: not written: " .. message, vim.log.levels.ERROR)
    return false
  end
  vim.diagnostic.reset(ns, bufnr)
  -- Written, but spirv-val rejects it (users craft invalid modules on purpose): said, at its line.
  local warning = vim.trim(err)
  if warning ~= "" then
    local line, what = warning:match("^%-:(%d+):%d+: warning: (.*)$")
    if line then
      vim.diagnostic.set(ns, bufnr, { { lnum = tonumber(line) - 1, col = 0, message = what,
        severity = vim.diagnostic.severity.WARN, source = "spvls" } })
    end
    vim.notify("spvls: " .. warning, vim.log.levels.WARN)
  end
  if path == vim.fn.fnamemodify(vim.api.nvim_buf_get_name(bufnr), ":p") then
    vim.bo[bufnr].modified = false
  end
  return true
end

-- patterns: the file names read as binary modules (default *.spv); command(): the spvls command.
function M.setup(patterns, group, command)
  M.group, M.command = group, command
  vim.api.nvim_create_autocmd("BufReadCmd", {
    group = group,
    pattern = patterns or { "*.spv" },
    callback = function(args) M.read(args.buf, vim.fn.fnamemodify(args.match, ":p")) end,
  })
  -- Any other file that starts with the magic number, whatever its name.
  vim.api.nvim_create_autocmd("BufReadPost", {
    group = group,
    callback = function(args)
      local path = vim.fn.fnamemodify(args.match, ":p")
      if vim.b[args.buf].spvls_binary == nil and M.is_binary(path) then
        M.read(args.buf, path)
      end
    end,
  })
end

return M
