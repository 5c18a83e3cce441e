"""The code that attrs and cattrs generate, compiled once and kept between processes.

attrs writes the ``__init__``, ``__eq__`` and ``__repr__`` of every class as Python source
and compiles it when the class is defined; cattrs does the same for the function that
reads each class from JSON. For the template model that is some 150 scripts, and
compiling them took 50 ms of the 300 ms a new process spends importing templatekit and
rendering one card from the command line; attrs' and cattrs' own classes, made as they
import, took 7 ms more. Python keeps compiled modules in
``__pycache__``; this keeps these compiled scripts beside them, in one file per Python
version, with the same rules: it is written only where Python may write bytecode (not
under ``-B`` or ``PYTHONDONTWRITEBYTECODE``), it follows ``PYTHONPYCACHEPREFIX``, and a
file that is missing, stale or unreadable is ignored and written again.

A script is found by a digest of its file name, its source and its compiler flags: the
code object ``compile`` would return for them is the one kept, so nothing the libraries
generate can differ from what they would have compiled themselves. One part of a script
differs from process to process: the number that attrs puts alone on a line of each
``__hash__`` (the hash of a string, salted per process). Such numbers are written as
placeholders in the digested source and in the kept code, and each process puts its own
back into the constants of the code it takes.
"""

from __future__ import annotations
import __future__

import atexit
import builtins
import contextlib
import functools
import hashlib
import importlib
import importlib.util
import marshal
import mmap
import operator
import os
import re
import sys
import threading
from pathlib import Path
from types import CodeType

#: Compiled scripts kept at most; past this, a process writes only those it used.
MAX_ENTRIES = 2000
#: The generated scripts kept: those of this package's classes (and its server's), and of
#: attrs' and cattrs' own, named by module in their file names; other libraries' attrs
#: classes compile as before.
_KEPT = re.compile(r" (templatekit(_server)?|attr|cattrs)\.")
#: The flags of the ``__future__`` features, which ``compile`` takes from the code that
#: calls it unless told not to (all but ``nested_scopes``, whose flag marks the code of
#: any nested function and is not taken).
_FUTURE_FLAGS = (
    functools.reduce(operator.or_, (getattr(__future__, name).compiler_flag for name in __future__.all_feature_names))
    & ~__future__.nested_scopes.compiler_flag
)
_builtin_compile = builtins.compile
#: A number of ten digits or more alone on the line that opens the tuple ``__hash__``
#: hashes: the per-process hash attrs writes there. (Found by its line's start, a regular
#: expression that begins with text scans a script twenty times faster than one that
#: begins at every line.)
_SALTED_NUMBER = re.compile(r"(hash\(\(\n[ \t]*)(-?\d{10,}),$", re.MULTILINE)
#: The placeholders written instead, one per distinct number of a script, in order.
_PLACEHOLDER = 0x5EED_0000_0000_0000


class CodeCache:
    """Compiled scripts by digest, loaded from and saved to one file."""

    def __init__(self, path: Path) -> None:
        self.path = path
        # each script stays marshalled until it is used: the file holds the scripts of
        # every class this package and its server made, and a process uses some of them
        self.kept: dict[bytes, bytes] = _read(path)
        self.used: dict[bytes, CodeType] = {}
        self.compiled = 0  # scripts this process compiled itself (the cache missed)
        self._lock = threading.Lock()

    def compile(
        self,
        source: object,
        filename: object,
        mode: str,
        flags: int = 0,
        dont_inherit: bool = False,
        *args: object,
        **kwargs: object,
    ) -> CodeType:
        """The builtin ``compile``, with the generated scripts kept by digest. Its
        caller's ``__future__`` features are taken as the builtin takes them, so that
        the flags of a kept script are those the builtin would have compiled it with."""
        if not dont_inherit:
            with contextlib.suppress(ValueError):  # no calling Python code: nothing to take
                flags |= sys._getframe(1).f_code.co_flags & _FUTURE_FLAGS
        if (
            isinstance(source, str)
            and isinstance(filename, str)
            and _KEPT.search(filename)
            and not (args or kwargs or flags & ~_FUTURE_FLAGS)
        ):
            return self.code(source, filename, mode, flags)
        return _builtin_compile(source, filename, mode, flags, True, *args, **kwargs)  # type: ignore[call-overload]

    def code(self, source: str, filename: str, mode: str, flags: int) -> CodeType:
        generic, numbers = _without_salted_numbers(source)
        digest = hashlib.blake2b(f"{flags}\0{mode}\0{filename}\0{generic}".encode(), digest_size=16).digest()
        code = self.used.get(digest) or _unmarshalled(self.kept.get(digest))
        if code is None:
            code = _builtin_compile(generic, filename, mode, flags, dont_inherit=True)
            with self._lock:
                self.compiled += 1
        self.used[digest] = code
        return _with_constants(code, numbers) if numbers else code

    def save(self) -> None:
        """Write what this process compiled, with what the file already holds, as a new
        file put in place at once (processes saving together never mix their writes)."""
        if not self.compiled or sys.dont_write_bytecode:
            return
        used = {digest: marshal.dumps(code) for digest, code in self.used.items()}
        entries = {**_read(self.path), **used}
        if len(entries) > MAX_ENTRIES:
            entries = used
        partial = self.path.with_name(f"{self.path.name}.{os.getpid()}.tmp")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            partial.write_bytes(importlib.util.MAGIC_NUMBER + marshal.dumps(entries))
            os.replace(partial, self.path)
        except OSError:
            with contextlib.suppress(OSError):  # at exit, nothing to raise to
                partial.unlink(missing_ok=True)


def _without_salted_numbers(source: str) -> tuple[str, dict[int, int]]:
    """The source with each salted number replaced by a placeholder, and the numbers by
    placeholder. A script that already holds a placeholder's digits is left whole."""
    numbers: dict[int, int] = {}
    by_text: dict[str, int] = {}

    def placeholder(match: re.Match[str]) -> str:
        text = match.group(2)
        if text not in by_text:
            by_text[text] = _PLACEHOLDER + len(by_text)
            numbers[by_text[text]] = int(text)
        return f"{match.group(1)}{by_text[text]},"

    generic = _SALTED_NUMBER.sub(placeholder, source)
    if any(str(written) in source for written in numbers):
        return source, {}
    return generic, numbers


def _with_constants(code: CodeType, numbers: dict[int, int]) -> CodeType:
    """``code`` with the placeholders among its constants (and its functions')
    replaced by their numbers."""
    return code.replace(co_consts=tuple(_with_numbers(value, numbers) for value in code.co_consts))


def _with_numbers(constant: object, numbers: dict[int, int]) -> object:
    """A constant with its placeholders replaced: a number alone, or inside the tuple
    (or frozenset) the compiler folds constants into: the ``hash((number,))`` of a class
    without fields is one constant tuple."""
    if type(constant) is int:
        return numbers.get(constant, constant)
    if isinstance(constant, CodeType):
        return _with_constants(constant, numbers)
    if isinstance(constant, tuple):
        return tuple(_with_numbers(value, numbers) for value in constant)
    if isinstance(constant, frozenset):
        return frozenset(_with_numbers(value, numbers) for value in constant)
    return constant


def _unmarshalled(data: bytes | None) -> CodeType | None:
    """A kept script's code; None for none, or for bytes that are not code."""
    if data is None:
        return None
    try:
        code = marshal.loads(data)
    except (EOFError, ValueError, TypeError):
        return None
    return code if isinstance(code, CodeType) else None


def _read(path: Path) -> dict[bytes, bytes]:
    """The kept scripts, read through a memory map rather than into a buffer of the
    file's size: freeing a buffer of one to three megabytes as the process starts makes
    glibc's allocator put every later block of about that size (a card's canvas) in
    fresh pages, a page fault each 4 KiB: card renders took 12% longer after it."""
    magic = importlib.util.MAGIC_NUMBER
    try:
        with (
            path.open("rb") as file,
            mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ) as mapped,
            memoryview(mapped) as data,
            data[len(magic) :] as body,
        ):
            if data[: len(magic)] != magic:
                return {}
            entries = marshal.loads(body)
    except (OSError, EOFError, ValueError, TypeError):  # ValueError: also an empty file
        return {}
    if not isinstance(entries, dict):
        return {}
    return {key: script for key, script in entries.items() if isinstance(key, bytes) and isinstance(script, bytes)}


def cache_path() -> Path:
    """Where the compiled scripts live: this package's ``__pycache__`` (or its place
    under ``PYTHONPYCACHEPREFIX``), named for the Python that compiled them."""
    module_cache = Path(importlib.util.cache_from_source(__file__))
    return module_cache.with_name(f"generated-code.{sys.implementation.cache_tag}.marshal")


def install(names: list[str]) -> CodeCache:
    """Import the modules ``names`` with the cache as the builtin ``compile`` (their
    libraries define classes as they import), give each of them a ``compile`` that
    uses the cache from then on, and save the cache when the process ends."""
    cache = CodeCache(cache_path())
    builtins.compile = cache.compile  # type: ignore[assignment]
    try:
        modules = [importlib.import_module(name) for name in names]
    finally:
        builtins.compile = _builtin_compile
    for module in modules:
        module.compile = cache.compile  # type: ignore[attr-defined]
    atexit.register(cache.save)
    return cache


#: Installed on import, before the package defines its first class.
CODE_CACHE = install(["attr._make", "cattrs.gen"])
