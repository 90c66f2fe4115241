" SPIR-V assembly: .spvasm, .spv.asm, .spirv, SPIRV-Cross's NAME.asm[.TAGS].STAGE, and any file whose
" first line is spirv-dis's `; SPIR-V`. `set filetype` overrides Vim's own asm/glsl detection, which
" runs first; other .asm files keep it. (The lists are spvls/spec/filetypes.py's.)
autocmd BufRead,BufNewFile *.spvasm,*.spv.asm,*.spirv set filetype=spvasm
autocmd BufRead,BufNewFile *.asm.{comp,frag,vert,geom,tesc,tese,rgen,rchit,rmiss,rahit,rint,rcall,mesh,task} set filetype=spvasm
autocmd BufRead,BufNewFile *.asm.*.{comp,frag,vert,geom,tesc,tese,rgen,rchit,rmiss,rahit,rint,rcall,mesh,task} set filetype=spvasm
autocmd BufRead * if &filetype !=# 'spvasm' && getline(1) =~# '^; SPIR-V' | set filetype=spvasm | endif
