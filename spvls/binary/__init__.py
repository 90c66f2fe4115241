"""Binary SPIR-V modules opened, checked, edited and saved as text (uses binding, spec, syntax).

words.read(data) -> Module | BinaryError     # pure Python: magic (either byte order), header,
                                             # word counts and id bound checked, with the word
convert.disassemble(data, Options(...)) -> Disassembly(text, module, lines)
convert.assemble(text, env=None, original=Module) -> words | AssembleError
convert.module_words(bytes or text, env=None) -> words   # a binary as it is, a text assembled
convert.listing(words, raw_id=False) -> text             # spirv-dis's text | BinaryError
files.read_bytes / write_atomic / write_output   # `-` is standard input / output
"""
