" spvls for ALE: let g:ale_spvasm_spvls_executable = '~/.venvs/spvls/bin/spvls' (a venv with spvls).
call ale#Set('spvasm_spvls_executable', 'spvls')

call ale#linter#Define('spvasm', {
\   'name': 'spvls',
\   'lsp': 'stdio',
\   'executable': {b -> expand(ale#Var(b, 'spvasm_spvls_executable'))},
\   'command': '%e',
\   'project_root': {b -> fnamemodify(bufname(b), ':p:h')},
\})
