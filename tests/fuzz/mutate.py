"""Grammar-aware mutations of SPIR-V assembly: what a user (or a broken tool) might write.

Mutations work on lines and tokens as spvls parses them, and draw opcodes, enumerants and
operand shapes from the grammar JSON, so most mutants are nearly valid and reach deep checks;
a few are raw character damage, for the parser and the string and line-break handling.
"""
from __future__ import annotations

import random
import re

from spvls.spec.grammar import load
from spvls.syntax.parser import parse_line

# Characters that have broken something before, or that spirv-as treats specially.
NASTY = ['"', "\\", "\r", "\n", "\r\n", "\f", "\v", "\t", ";", "%", "=", "|", "!", "\x00", "é", "😀", "²", "①",
         "\u00a0", "\u2028", "\ud800", "\udc00", "0x", "-", "."]  # a lone half of a pair: "\ud800" then "\udc00" is one
LITERALS = ["0", "1", "-1", "4294967295", "4294967296", "18446744073709551616", "0x7fffffff", "0xFFFFFFFF", "1.5",
            "-0.0", "0x1.8p+1", "1e39", "²", "٣", "99999999999999999999", "!7", "!0x10", "NaN", "inf"]
STRINGS = ['""', '"x"', '"a\\"b"', '"a\\\\"', '"line\nOpNop\nline"', '"a\\"\n b"', '"\\\n"', '"😀é"',
           '"' + "s" * 300 + '"']
_ID = re.compile(r"%[^\s;=\"]*")


class Mutator:
    def __init__(self, rng: random.Random):
        self.rng = rng
        g = load()
        self.opcodes = sorted({i.name for i in g.instructions.values()})
        self.enumerants = sorted({e.name for k in g.kinds.values() for e in k.enumerants.values()})
        self.ops = [self.line_op, self.line_op, self.token_op, self.token_op, self.token_op, self.char_op,
                    self.move_op]

    # -- whole documents -----------------------------------------------------------------
    def mutate(self, text: str, count: int | None = None) -> str:
        lines = text.split("\n")
        for _ in range(count or self.rng.randint(1, 4)):
            lines = self.rng.choice(self.ops)(lines)
            if not lines:
                lines = [""]
        return "\n".join(lines)

    def _ids(self, lines: list[str]) -> list[str]:
        sample = self.rng.sample(lines, min(len(lines), 40))
        return sorted({i for t in sample for i in _ID.findall(t)}) or ["%x"]

    def line_op(self, lines: list[str]) -> list[str]:
        """Delete, duplicate, swap or replace whole lines, or write a fresh instruction."""
        r, n = self.rng, len(lines)
        k = r.randrange(n)
        what = r.randrange(5)
        if what == 0:
            del lines[k]
        elif what == 1:
            lines.insert(r.randrange(n + 1), lines[k])
        elif what == 2:
            j = r.randrange(n)
            lines[k], lines[j] = lines[j], lines[k]
        elif what == 3:
            lines.insert(k, self.instruction(lines))
        else:
            lines[k] = self.instruction(lines)
        return lines

    def instruction(self, lines: list[str]) -> str:
        """An instruction with the grammar's operand shapes, filled with ids of the file."""
        r = self.rng
        g = load()
        inst = g.instructions[r.choice(self.opcodes)]
        ids = self._ids(lines)
        out = []
        for operand in inst.operands:
            if operand.kind == "IdResult":
                continue
            if operand.quantifier == "?" and r.random() < 0.5:
                continue
            reps = r.randint(0, 3) if operand.quantifier == "*" else 1
            for _ in range(reps):
                out.append(self.operand(operand.kind, ids))
        head = f"{r.choice(ids)}_{r.randrange(100)} = " if inst.has_result else ""
        return head + " ".join([inst.name, *out])

    def operand(self, kind: str, ids: list[str]) -> str:
        r = self.rng
        g = load()
        if kind.startswith("Id") or r.random() < 0.1:
            return r.choice(ids)
        k = g.kinds.get(kind)
        if k is not None and k.enumerants and r.random() < 0.9:
            names = [e.name for e in k.enumerants.values()]
            if k.category == "BitEnum" and r.random() < 0.3:
                return "|".join(r.sample(names, min(len(names), 2)))
            return r.choice(names)
        if kind == "LiteralString":
            return r.choice(STRINGS)
        return r.choice(LITERALS)

    def token_op(self, lines: list[str]) -> list[str]:
        """Replace one token of a parsed line: an opcode, an id, an enumerant, a literal, a string."""
        r = self.rng
        k = r.randrange(len(lines))
        line = parse_line(lines[k]) if "\n" not in lines[k] else None
        toks = [t for t in (line.tokens if line else []) if t.kind != "COMMENT"]
        if not toks:
            return self.line_op(lines)
        t = r.choice(toks)
        choice = r.randrange(6)
        new = (r.choice(self.opcodes) if choice == 0 or t.kind == "OPNAME" and choice < 3 else
               r.choice(self._ids(lines)) if choice == 1 else
               r.choice(self.enumerants) if choice == 2 else
               r.choice(LITERALS) if choice == 3 else
               r.choice(STRINGS) if choice == 4 else
               self._typo(t.text))
        lines[k] = lines[k][:t.start] + new + lines[k][t.end:]
        return lines

    def _typo(self, word: str) -> str:
        r = self.rng
        if not word:
            return r.choice(NASTY)
        i = r.randrange(len(word))
        what = r.randrange(3)
        if what == 0:
            return word[:i] + word[i + 1:]
        if what == 1:
            return word[:i] + r.choice("abcxyzKHR_0123") + word[i:]
        return word[:i] + word[i].swapcase() + word[i + 1:]

    def char_op(self, lines: list[str]) -> list[str]:
        """Raw damage: a nasty character inserted, or a span deleted, anywhere."""
        r = self.rng
        text = "\n".join(lines)
        i = r.randint(0, len(text))
        text = text[:i] + r.choice(NASTY) + text[i:] if r.random() < 0.7 else text[:i] + text[i + r.randint(1, 30) :]
        return text.split("\n")

    def move_op(self, lines: list[str]) -> list[str]:
        """A block of lines moved elsewhere: module-level lines into functions and back."""
        r = self.rng
        n = len(lines)
        a = r.randrange(n)
        b = min(n, a + r.randint(1, 6))
        block = lines[a:b]
        del lines[a:b]
        at = r.randint(0, len(lines))
        lines[at:at] = block
        return lines

    # -- editor sessions -------------------------------------------------------------------
    def edit(self, text: str) -> tuple[int, int, int, str]:
        """An edit as an editor sends it: (start offset, end offset, new text), in code points;
        mostly typing and deleting near one place, sometimes pasting lines or line breaks."""
        r = self.rng
        start = r.randint(0, len(text))
        what = r.randrange(6)
        if what == 0:  # delete a span
            return start, min(len(text), start + r.randint(1, 12)), ""
        if what == 1:  # replace a span with a token
            return start, min(len(text), start + r.randint(0, 8)), r.choice(
                [r.choice(self.opcodes), r.choice(self.enumerants), r.choice(LITERALS), "%a", "%b_1"])
        if what == 2:  # paste a line
            return start, start, r.choice(["\n", "\r\n", "\r"]) + self.instruction(text.split("\n")[:200])
        if what == 3:  # replace a whole line
            ls = text.split("\n")
            k = r.randrange(len(ls))
            s = sum(len(x) + 1 for x in ls[:k])
            return s, s + len(ls[k]), self.instruction(ls[:200])
        return start, start, r.choice(NASTY + ["x", " ", "1", "OpNop", "%"])
