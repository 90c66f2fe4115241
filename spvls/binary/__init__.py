"""Binary SPIR-V modules opened, checked, edited and saved as text (uses binding, spec, syntax).

words.read(data) -> Module | BinaryError     # pure Python: magic (either byte order), header,
                                             # word counts and id bound checked, with the word
convert.disassemble(data, Options(...)) -> Disassembly(text, module, lines)
convert.assemble(text, env=None, original=Module) -> words | AssembleError
files.read_bytes / write_atomic / write_output   # `-` is standard input / output
"""
