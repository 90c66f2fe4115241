" SPIR-V assembly (spirv-as / spirv-dis text)
if exists("b:current_syntax")
  finish
endif
syntax match spvasmComment ";.*$"
syntax region spvasmString start=+"+ skip=+\\\\\|\\"+ end=+"+
syntax match spvasmId "%[A-Za-z0-9_]\+"
syntax match spvasmOpcode "\<Op[A-Za-z0-9_]\+\>"
syntax match spvasmNumber "\<-\?\(0x\x\+\(\.\x*\)\?\(p[-+]\?\d\+\)\?\|\d\+\(\.\d*\)\?\(e[-+]\?\d\+\)\?\)\>"
syntax match spvasmRaw "!\(0x\x\+\|\d\+\)"
highlight default link spvasmComment Comment
highlight default link spvasmString String
highlight default link spvasmId Identifier
highlight default link spvasmOpcode Keyword
highlight default link spvasmNumber Number
highlight default link spvasmRaw Number
let b:current_syntax = "spvasm"
