-- Start spvls for SPIR-V assembly buffers.
--   require("spvls").setup({ venv = "~/.venvs/spvls", settings = { targetEnv = "vulkan1.3", inlayHints = true } })
-- `venv`: a virtual environment with spvls installed (its bin/spvls, or bin/python -m spvls);
-- `cmd`: the command itself, when not in a venv. Before starting, `<cmd> --version` must say spvls.
local M = {}

-- spvls is not on PyPI: it installs from a clone of its repository.
M.install = "python3 -m venv ~/.venvs/spvls && ~/.venvs/spvls/bin/pip install /path/to/spvls "
  .. "(a clone of the spvls repository), then require('spvls').setup({ venv = '~/.venvs/spvls' })"

-- Settings (init_options and workspace/didChangeConfiguration): targetEnv, inlayHints, and
-- validate = "onType" (default) | "onSave" | "off": when SPIRV-Tools' validator runs; and spirv-val's
-- options, each false unless set (same meaning as spirv-val's flags):
M.validator_options = {
  "relaxBlockLayout", "uniformBufferStandardLayout", "scalarBlockLayout", "workgroupScalarBlockLayout",
  "skipBlockLayout", "relaxLogicalPointer", "relaxStructStore", "beforeHlslLegalization",
  "allowLocalSizeId", "allowOffsetTextureOperand", "allowVulkan32BitBitwise",
}

local defaults = {
  cmd = { "spvls" },
  filetypes = { "spvasm" },
  settings = { validate = "onType" },
}

local function root_dir(bufnr)
  local name = vim.api.nvim_buf_get_name(bufnr)
  local dir = vim.fn.fnamemodify(name, ":p:h")
  local git = vim.fn.finddir(".git", dir .. ";")
  return git ~= "" and vim.fn.fnamemodify(git, ":p:h:h") or dir
end

local function config_for(opts, bufnr)
  return {
    name = "spvls",
    cmd = opts.cmd,
    root_dir = root_dir(bufnr),
    init_options = opts.settings,
    settings = { spvls = opts.settings },
    on_attach = opts.on_attach,
  }
end

local clients = {}

-- The command for the options: cmd as given, else the venv's spvls or python -m spvls.
function M.command(opts)
  if opts.venv and opts.venv ~= "" then
    local venv = vim.fn.expand(opts.venv)
    local exe = venv .. "/bin/spvls"
    if vim.fn.executable(exe) == 1 then
      return { exe }
    end
    local python = venv .. "/bin/python"
    if vim.fn.executable(python) == 0 then
      return nil, "spvls: venv " .. venv .. " is not a virtual environment (no " .. python .. "). Create one: "
        .. M.install
    end
    return { python, "-m", "spvls" }
  end
  return opts.cmd
end

local checked = {}

-- Runs `<cmd> --version` once per command, so a missing spvls is said at once, not after a silent start.
function M.check(cmd)
  local key = table.concat(cmd, " ")
  if checked[key] == nil then
    local ok = vim.fn.executable(cmd[1]) == 1
    local out = ok and vim.fn.system(vim.list_extend(vim.deepcopy(cmd), { "--version" })) or ""
    checked[key] = ok and vim.v.shell_error == 0 and out:sub(1, 6) == "spvls "
    if not checked[key] then
      local msg
      if not ok then
        msg = "spvls: '" .. cmd[1] .. "' not found. Install it: " .. M.install
      elseif #cmd > 1 and cmd[2] == "-m" then
        msg = "spvls: spvls is not installed for " .. cmd[1] .. ". Install it there: " .. cmd[1]
          .. " -m pip install /path/to/spvls (a clone of the spvls repository)"
      else
        msg = "spvls: '" .. key .. " --version' did not run spvls. Install it: " .. M.install
      end
      vim.notify(msg, vim.log.levels.ERROR)
    end
  end
  return checked[key]
end

-- Attach spvls to a buffer: vim.lsp.start on Neovim >= 0.8, start_client + buf_attach_client on 0.7.
function M.attach(bufnr, given)
  local opts = vim.tbl_deep_extend("force", defaults, M.opts or {}, given or {})
  -- Lists are not merged item by item: the most specific cmd wins whole.
  opts.cmd = (given and given.cmd) or (M.opts and M.opts.cmd) or defaults.cmd
  local cmd, err = M.command(opts)
  if not cmd then
    vim.notify(err, vim.log.levels.ERROR)
    return nil
  end
  if not M.check(cmd) then
    return nil
  end
  opts.cmd = cmd
  local config = config_for(opts, bufnr)
  if vim.lsp.start then
    return vim.lsp.start(config, { bufnr = bufnr })
  end
  local id = clients[config.root_dir]
  if not id or not vim.lsp.get_client_by_id(id) then
    id = vim.lsp.start_client(config)
    clients[config.root_dir] = id
  end
  if id then
    vim.lsp.buf_attach_client(bufnr, id)
  end
  return id
end

-- The system's viewer for a file: xdg-open on Linux and BSD, open on macOS, start on Windows.
local function default_viewer()
  if vim.fn.has("mac") == 1 then return { "open" } end
  if vim.fn.has("win32") == 1 then return { "cmd", "/c", "start", "" } end
  return { "xdg-open" }
end

-- :SpvlsCfg — the control-flow graph of the function at the cursor (spvls.showCfg), written as
-- SVG (DOT when Graphviz is not installed where spvls runs) and opened with the system's viewer.
--   opts.output: the file to write (default: a temporary file); opts.viewer: the command words to
--   open it with (the path is appended); opts.on_done(path, answer) is called after.
function M.show_cfg(opts)
  opts = opts or {}
  local bufnr = vim.api.nvim_get_current_buf()
  local cursor = vim.api.nvim_win_get_cursor(0)
  -- The server picks the function by line: the column (bytes here) needs no conversion.
  local params = {
    command = "spvls.showCfg",
    arguments = { { uri = vim.uri_from_bufnr(bufnr), position = { line = cursor[1] - 1, character = cursor[2] } } },
  }
  vim.lsp.buf_request(bufnr, "workspace/executeCommand", params, function(err, result)
    if err or not result then
      vim.notify("spvls: no control-flow graph: " .. vim.inspect(err and err.message or err), vim.log.levels.ERROR)
      return
    end
    if not result.dot then
      vim.notify("spvls: " .. (result.message or "no function here"), vim.log.levels.WARN)
      return
    end
    local ext = result.svg ~= nil and result.svg ~= vim.NIL and "svg" or "dot"
    local path = opts.output or (vim.fn.tempname() .. "-cfg." .. ext)
    local f = assert(io.open(path, "w"))
    f:write(ext == "svg" and result.svg or result.dot)
    f:close()
    local cmd = vim.list_extend(vim.deepcopy(opts.viewer or M.viewer or default_viewer()), { path })
    if vim.fn.executable(cmd[1]) == 1 then
      vim.fn.jobstart(cmd, { detach = true })
    else
      vim.notify("spvls: wrote " .. path .. " (no '" .. cmd[1] .. "' to open it)", vim.log.levels.WARN)
    end
    if opts.on_done then opts.on_done(path, result) end
  end)
end

function M.setup(opts)
  M.opts = vim.tbl_deep_extend("force", defaults, opts or {})
  local group = vim.api.nvim_create_augroup("spvls", { clear = true })
  vim.api.nvim_create_autocmd("FileType", {
    group = group,
    pattern = M.opts.filetypes,
    callback = function(args) M.attach(args.buf) end,
  })
  M.viewer = M.opts.viewer
  -- Binary modules (*.spv, or any file with the magic number) read and written as their text.
  require("spvls.binary").setup(M.opts.binary_patterns, group, function() return M.command(M.opts) end)
  vim.api.nvim_create_user_command("SpvlsCfg", function() M.show_cfg() end,
    { desc = "spvls: open the control-flow graph of the function at the cursor" })
  -- :SpvlsOptimize, :SpvlsDiff and the entry points' code lenses.
  require("spvls.workbench").setup(group)
  -- Divergent values (the `divergent` semantic-token modifier, Neovim 0.9+): italic unless the
  -- colour scheme says otherwise.
  pcall(vim.api.nvim_set_hl, 0, "@lsp.mod.divergent.spvasm", { italic = true, default = true })
end

return M
