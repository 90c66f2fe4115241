-- Start spvls for SPIR-V assembly buffers.
--   require("spvls").setup({ cmd = { "spvls" }, settings = { targetEnv = "vulkan1.3", inlayHints = true } })
local M = {}

local defaults = {
  cmd = { "spvls" },
  filetypes = { "spvasm" },
  settings = {},
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

-- Attach spvls to a buffer: vim.lsp.start on Neovim >= 0.8, start_client + buf_attach_client on 0.7.
function M.attach(bufnr, opts)
  opts = vim.tbl_deep_extend("force", defaults, opts or M.opts or {})
  if vim.fn.executable(opts.cmd[1]) == 0 then
    vim.notify("spvls: '" .. opts.cmd[1] .. "' not found; install it with: pip install spvls", vim.log.levels.ERROR)
    return nil
  end
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

function M.setup(opts)
  M.opts = vim.tbl_deep_extend("force", defaults, opts or {})
  local group = vim.api.nvim_create_augroup("spvls", { clear = true })
  vim.api.nvim_create_autocmd("FileType", {
    group = group,
    pattern = M.opts.filetypes,
    callback = function(args) M.attach(args.buf) end,
  })
end

return M
