-- SPIR-V assembly: .spvasm, .spv.asm, .spirv, SPIRV-Cross's NAME.asm[.TAGS].STAGE, and any file whose
-- first line is `; SPIR-V` (spirv-dis's header). Other .asm files keep Neovim's own detection.
-- The lists are spvls/spec/filetypes.py's (tests/test_filetypes.py compares them).
local suffixes = { "spvasm", "spv.asm", "spirv" }
local stages = { "comp", "frag", "vert", "geom", "tesc", "tese", "rgen", "rchit", "rmiss", "rahit", "rint",
  "rcall", "mesh", "task" }

local function first_line_says(path, bufnr)
  local line
  if bufnr and vim.api.nvim_buf_is_loaded(bufnr) and vim.api.nvim_buf_line_count(bufnr) > 0 then
    line = vim.api.nvim_buf_get_lines(bufnr, 0, 1, false)[1]
  end
  if not line or line == "" then
    local f = io.open(path, "r")
    if f then
      line = f:read("*l")
      f:close()
    end
  end
  return line ~= nil and line:sub(1, 8) == "; SPIR-V"
end

if vim.fn.has("nvim-0.8") == 1 then
  -- Patterns (anchored by Neovim: no `$`) with a priority are matched before extensions, so these win over `*.asm` -> asm and
  -- `*.comp` -> glsl.
  local pattern = {}
  for _, s in ipairs(suffixes) do
    pattern[".*%." .. s:gsub("%.", "%%.")] = { "spvasm", { priority = 10 } }
  end
  for _, s in ipairs(stages) do
    pattern[".*%.asm%." .. s] = { "spvasm", { priority = 10 } }
    pattern[".*%.asm%..+%." .. s] = { "spvasm", { priority = 10 } }
  end
  pattern[".*%.asm"] = {
    function(path, bufnr) if first_line_says(path, bufnr) then return "spvasm" end end,
    { priority = 10 },
  }
  pattern[".*"] = {
    function(path, bufnr) if first_line_says(path, bufnr) then return "spvasm" end end,
    { priority = -math.huge },
  }
  vim.filetype.add({ pattern = pattern })
else
  -- Neovim 0.7 detects with filetype.vim first; `set filetype` (not setfiletype) overrides it.
  local globs = {}
  for _, s in ipairs(suffixes) do table.insert(globs, "*." .. s) end
  for _, s in ipairs(stages) do
    table.insert(globs, "*.asm." .. s)
    table.insert(globs, "*.asm.*." .. s)
  end
  local group = vim.api.nvim_create_augroup("spvasm_ftdetect", { clear = true })
  vim.api.nvim_create_autocmd({ "BufRead", "BufNewFile" }, {
    group = group, pattern = globs, command = "set filetype=spvasm",
  })
  vim.api.nvim_create_autocmd({ "BufRead" }, {
    group = group, pattern = "*",
    callback = function(args)
      if vim.bo[args.buf].filetype ~= "spvasm" and first_line_says(args.file, args.buf) then
        vim.bo[args.buf].filetype = "spvasm"
      end
    end,
  })
end
