"""The compiled code of attrs and cattrs, kept between processes: reused whole by the
next process, with its own per-process hashes, and never trusted when it is damaged."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from templatekit.codecache import CodeCache, _read

TEMPLATE = Path(__file__).resolve().parents[2] / "examples" / "templates" / "social-card.json"

#: A process that imports templatekit, reads and renders a template, and reports what
#: the cache gave it: where it is, how many scripts it compiled itself, whether a frozen
#: class hashes with this process's salt, and the PNG's digest.
PROCESS = f"""
import hashlib, json, sys
import templatekit as tk
from templatekit.codecache import CODE_CACHE
from templatekit.model.layers import TextLayer
template = tk.load_template({str(TEMPLATE)!r})
png = tk.render_image(template, {{"title": "Kept"}}).data
import attrs
Other = attrs.frozen(type("Other", (), {{"__annotations__": {{"x": "int"}}}}))  # a class of another module
assert Other(1) == Other(1)
a, b = (TextLayer(name="t", x=0, y=0, width=1, height=1) for _ in range(2))
salt = hash("<attrs generated hash templatekit.model.layers.TextLayer>")
print(json.dumps({{
    "path": str(CODE_CACHE.path),
    "compiled": CODE_CACHE.compiled,
    "used": len(CODE_CACHE.used),
    "salted": salt in TextLayer.__hash__.__code__.co_consts,
    "hashes_agree": hash(a) == hash(b) and a == b,
    "png": hashlib.sha256(png).hexdigest(),
    "libraries": sorted({{c.co_filename.split()[-1].split(".")[0] for c in CODE_CACHE.used.values()}}),
}}))
"""


def run_process(prefix: Path, hash_seed: int, *flags: str) -> dict[str, object]:
    env = {**os.environ, "PYTHONPYCACHEPREFIX": str(prefix), "PYTHONHASHSEED": str(hash_seed)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    run = subprocess.run([sys.executable, *flags, "-c", PROCESS], env=env, capture_output=True, text=True, check=True)
    result: dict[str, object] = json.loads(run.stdout.splitlines()[-1])
    return result


def test_a_second_process_compiles_nothing_and_hashes_with_its_own_salt(tmp_path: Path) -> None:
    first = run_process(tmp_path, hash_seed=1)
    kept = Path(str(first["path"]))
    assert kept.is_relative_to(tmp_path) and kept.stat().st_size > 0
    assert isinstance(first["compiled"], int) and first["compiled"] > 100  # the model's classes

    second = run_process(tmp_path, hash_seed=2)
    assert second["compiled"] == 0
    assert second["used"] == first["used"]
    assert second["salted"] and second["hashes_agree"]
    assert second["png"] == first["png"]
    # attrs' and cattrs' own classes are kept too; other modules' classes (``Other``)
    # compile as they would
    assert first["libraries"] == second["libraries"] == ["attr", "cattrs", "templatekit"]


def test_a_damaged_file_is_ignored_and_written_again(tmp_path: Path) -> None:
    kept = Path(str(run_process(tmp_path, hash_seed=1)["path"]))
    whole = kept.read_bytes()
    for damage in (b"", whole[:2], whole[: len(whole) // 2], b"not marshal data", whole[:4] + b"\x00" * 64):
        kept.write_bytes(damage)
        again = run_process(tmp_path, hash_seed=3)
        assert isinstance(again["compiled"], int) and again["compiled"] > 100
        assert again["salted"] and again["hashes_agree"]
        assert len(_read(kept)) == again["used"]


def test_nothing_is_written_where_python_writes_no_bytecode(tmp_path: Path) -> None:
    result = run_process(tmp_path, 1, "-B")
    assert isinstance(result["compiled"], int) and result["compiled"] > 0
    assert not Path(str(result["path"])).exists()


SCRIPT = """
def salted(self):
    return hash((
        {number},
        self,
    ))
"""


#: The ``__hash__`` attrs writes for a class without fields: the compiler folds the
#: tuple of the number alone into one constant.
ALONE = """
def salted(self):
    return hash((
        {number},
    ))
"""


@pytest.mark.parametrize("numbers", [(1234567890123, -9876543210987), (-5550000000000000001, 4440000000000000004)])
@pytest.mark.parametrize("script", [SCRIPT, ALONE], ids=["with fields", "without fields"])
def test_each_process_number_is_put_back_into_the_kept_code(
    tmp_path: Path, numbers: tuple[int, int], script: str
) -> None:
    cache = CodeCache(tmp_path / "kept.marshal")
    functions = []
    for number in numbers:
        namespace: dict[str, object] = {}
        exec(cache.code(script.format(number=number), "<generated>", "exec", 0), namespace)
        functions.append(namespace["salted"])
    assert cache.compiled == 1  # the second script differed only by its number
    for number, function in zip(numbers, functions, strict=True):
        expected = hash((number, 7)) if script is SCRIPT else hash((number,))
        assert function(7) == expected  # type: ignore[operator]


def test_a_script_holding_a_placeholders_digits_is_kept_by_its_own_source(tmp_path: Path) -> None:
    cache = CodeCache(tmp_path / "kept.marshal")
    placeholder = 0x5EED_0000_0000_0000
    for number in (placeholder, 1234567890123):
        namespace: dict[str, object] = {}
        source = SCRIPT.format(number=number) + f"\nOTHER = {placeholder}\n"
        exec(cache.code(source, "<generated>", "exec", 0), namespace)
        assert namespace["salted"](1) == hash((number, 1))  # type: ignore[operator]
        assert namespace["OTHER"] == placeholder
    assert cache.compiled == 2
