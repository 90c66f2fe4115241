" Drives Vim 9 + ALE as a real LSP client, with editors/vim's file types and linter.
set nocompatible
let &runtimepath = $SPVLS_VIM_RTP . ',' . $SPVLS_ALE . ',' . &runtimepath
let g:ale_spvasm_spvls_executable = $SPVLS_EXE
let g:ale_linters = {'spvasm': ['spvls']}
filetype plugin on
runtime plugin/ale.vim
let s:result = {'filetypes': {}}

function! s:Wait(Done, seconds) abort
  let l:n = 0
  while !a:Done() && l:n < a:seconds * 20
    sleep 50m
    let l:n += 1
  endwhile
endfunction


execute 'edit ' . fnameescape($SPVLS_EXAMPLE)
let s:buf = bufnr('')
let s:result.filetype = &filetype
ALELint
call s:Wait({-> !empty(ale#engine#GetLoclist(s:buf))}, 30)
let s:result.diagnostics = map(copy(ale#engine#GetLoclist(s:buf)), {_, d -> [d.lnum, get(d, 'code', ''), d.text]})

" Hover and completion through ALE's own connection (its API for requests).
let s:replies = {}
function! s:Keep(name, response) abort
  let s:replies[a:name] = get(a:response, 'result', v:null)
endfunction
let s:uri = ale#path#ToFileURI(expand('%:p'))
call ale#lsp_linter#SendRequest(s:buf, 'spvls', [0, 'textDocument/hover',
\   {'textDocument': {'uri': s:uri}, 'position': {'line': 22, 'character': 20}}], function('s:Keep', ['hover']))
call s:Wait({-> has_key(s:replies, 'hover')}, 30)
let s:result.hover = s:replies.hover.contents.value
call ale#lsp_linter#SendRequest(s:buf, 'spvls', [0, 'textDocument/completion',
\   {'textDocument': {'uri': s:uri}, 'position': {'line': 9, 'character': 37}}], function('s:Keep', ['completion']))
call s:Wait({-> has_key(s:replies, 'completion')}, 30)
let s:items = s:replies.completion
let s:result.completion = map(copy(type(s:items) == v:t_dict ? s:items.items : s:items), 'v:val.label')

" :ALEGoToDefinition on %subgroup where line 23 uses it.
call cursor(23, stridx(getline(23), '%subgroup') + 3)
call ale#definition#GoTo({})
call s:Wait({-> line('.') != 23}, 30)
let s:result.definition_line = line('.')

" :ALECodeAction on the misspelt capability of line 5; the first action chosen, as from ALE's menu.
call cursor(5, 30)
let s:actions = v:null
function! s:Menu(data, items) abort
  let s:actions = [a:data, a:items]
endfunction
call ale#codefix#Execute(0, function('s:Menu'))
call s:Wait({-> s:actions isnot v:null}, 30)
let s:item = s:actions[1][0][1]
let s:result.action_title = s:item.title
call ale#codefix#ApplyLSPCodeAction(s:actions[0], s:item)
let s:result.fixed_line = getline(5)

" File types: the type each file gets.
let g:ale_enabled = 0
for s:name in split($SPVLS_FT_FILES, ',')
  execute 'edit! ' . fnameescape($SPVLS_FT_DIR . '/' . s:name)
  let s:result.filetypes[s:name] = &filetype
  
endfor

call writefile([json_encode(s:result)], $SPVLS_EDITOR_OUT)
qa!
