-- .spvasm and .spv.asm are SPIR-V assembly; a .asm file only when its header says so.
vim.cmd([[
  autocmd BufRead,BufNewFile *.spvasm,*.spv.asm setfiletype spvasm
  autocmd BufRead,BufNewFile *.asm if getline(1) =~# '^; SPIR-V' | setfiletype spvasm | endif
]])
