"""What a rule family is: its rules, its check, and how it cites the spec (the families themselves
are in checks/families/, one module each, each ending with its `FAMILY`)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace

from ..model.module import Function, Module
from ..spec.registry import CORE_SPEC
from .diagnostic import ERROR, Diagnostic, Fix, Related, Spanned, at
from .scope import Scope

EXTENSION_PAGE = "https://github.khronos.org/SPIRV-Registry/extensions/KHR/{}.html"


def spec_link(extension: str | None) -> str:
    """The page a rule's sentence comes from: its extension's, else the unified specification."""
    return EXTENSION_PAGE.format(extension) if extension else CORE_SPEC


@dataclass(frozen=True, slots=True)
class Rule:
    """One diagnostic code. `sentence`: the spec sentence the rule comes from (None: the code says
    the text breaks the grammar itself, or it reports a tool's verdict); `where`: the document that
    sentence is in, as the message names it (an extension family's rules: the extension). An empty
    link is its family's."""

    code: str
    summary: str = ""
    sentence: str | None = None
    link: str = ""
    where: str = "SPIR-V"


Check = Callable[[Module, Scope], list[Diagnostic]]


@dataclass(frozen=True)
class Family:
    """A rule family. `name`: its module's (the key of `Analysis.by_family`); `prefix`: its codes'
    (a family may also emit a rule of another prefix it judges in the same walk, as `ids` does two
    `types.*`); `check(m, scope)`: its diagnostics.

    `scope` None: the whole module. `scope` a function: only the diagnostics whose line lies inside
    that function (its OpFunction to its OpFunctionEnd) — the module was just updated in place there
    (see model.facts), and the diagnostics this family gave elsewhere are kept as they were. A rule
    about lines inside the function may read anything outside it; a rule whose diagnostic lies
    outside functions runs only whole, since an in-place edit cannot change what it reads. `scope` a
    `scope.Lines` (only for a line-wise family): only the diagnostics on those lines.

    `linewise` (True, or a function of the module): its diagnostics on a line read only that line,
    the definitions of the ids it names and module facts, so after an in-place edit it may re-check
    some lines only (checks/scope.py says which).

    `widen(m, fn)` (optional): after an in-place edit of `fn`, None when what the family reported
    elsewhere follows what it read of `fn`, so it re-checks the whole module; else `fn`.

    How it cites: an extension family's message names the extension first and quotes its sentence
    as "Spec"; `quote=False` gives the sentence after the lead as plain text (the lead names the
    extension itself)."""

    name: str
    prefix: str
    summary: str
    rules: tuple[Rule, ...]
    check: Check
    extension: str | None = None
    linewise: bool | Callable[[Module], bool] = False
    quote: bool = True
    widen: Callable[[Module, Function], Scope] | None = None
    by_code: dict[str, Rule] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        own = tuple(
            replace(
                r,
                link=r.link or spec_link(self.extension),
                where=self.extension or r.where,
            )
            for r in self.rules
        )
        object.__setattr__(self, "rules", own)
        object.__setattr__(self, "by_code", {r.code: r for r in own})

    def is_linewise(self, m: Module) -> bool:
        return self.linewise(m) if callable(self.linewise) else self.linewise

    def sentence(self, code: str) -> str:
        sentence = self.by_code[code].sentence
        assert sentence is not None, code
        return sentence

    def message(self, code: str, lead: str, sentence: str | None = None) -> str:
        """The text of a rule's diagnostic: what is wrong here, then the spec sentence the rule
        comes from (`sentence` when given, else the rule's), quoted with its source."""
        rule = self.by_code[code]
        sentence = sentence or self.sentence(code)
        if not self.quote:
            return f"{lead}. {sentence}"
        if self.extension is not None:
            return f'{self.extension}: {lead}. Spec: "{sentence}"'
        return f'{lead}. {rule.where}: "{sentence}"'

    def cite(
        self,
        line: int,
        tok: Spanned,
        code: str,
        lead: str,
        *,
        severity: str = ERROR,
        related: Iterable[Related] = (),
        fixes: tuple[Fix, ...] = (),
        sentence: str | None = None,
    ) -> Diagnostic:
        """A diagnostic of one of this family's rules on one token (anything with .start and .end)."""
        return at(line, tok, severity, code, self.message(code, lead, sentence), tuple(related), fixes)
