"""One list of SPIR-V assembly file names (spvls/spec/filetypes.py), spelt alike in every editor set-up."""
import re
from pathlib import Path

import yaml

from spvls.spec import filetypes

ROOT = Path(__file__).resolve().parent.parent


def _lua_list(text: str, name: str) -> tuple[str, ...]:
    body = re.search(rf"local {name} = \{{(.*?)\}}", text, re.S).group(1)
    return tuple(re.findall(r'"([^"]+)"', body))


def test_by_name():
    yes = ["a.spvasm", "a.spv.asm", "a.spirv", "x.asm.comp", "x.asm.vk.nocompat.frag", "x.asm.rcall", "x.asm.task"]
    no = ["x.asm", "boot.asm", "x.comp", "x.asm.txt", "x.spv", "asm.comp"]
    assert [n for n in yes if not filetypes.by_name(n)] == []
    assert [n for n in no if filetypes.by_name(n)] == []


def test_neovim_lists():
    text = (ROOT / "editors" / "nvim" / "ftdetect" / "spvasm.lua").read_text()
    assert _lua_list(text, "suffixes") == tuple(s[1:] for s in filetypes.SUFFIXES)
    assert _lua_list(text, "stages") == filetypes.STAGES


def test_editors_readme_recipes_name_every_stage():
    text = (ROOT / "editors" / "README.md").read_text()
    for stage in filetypes.STAGES:
        assert f"*.asm.{stage}" in text or f"|{stage}" in text or f"{stage}|" in text, stage


def test_the_pre_commit_hooks_take_the_same_names():
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    assert [h["id"] for h in hooks] == ["spvls-check", "spvls-format"]
    assert {h["files"] for h in hooks} == {filetypes.NAME_PATTERN}
