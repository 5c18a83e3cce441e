"""The optional parts of templatekit, the pip extras that bring them, and the messages
that say exactly what is missing.

Each extra lists the modules its features import and the distribution that provides
each one (the module ``cv2`` comes from ``opencv-python-headless``, ``av`` from ``av``).
A feature that finds a module missing names that distribution and the extra to
install, never a neighbouring package.
"""

from __future__ import annotations

from importlib.util import find_spec

from attrs import frozen


@frozen
class Extra:
    name: str
    what: str  # what the extra is for, as a message's subject
    modules: dict[str, str]  # importable module -> distribution that provides it

    def missing(self) -> list[str]:
        """The distributions of this extra that are not installed (none: all present)."""
        return [dist for module, dist in self.modules.items() if not _installed(module)]

    def install(self) -> str:
        return f'pip install "templatekit[{self.name}]"'


#: What ``templatekit edit`` imports: the server's app, which it answers with.
EDITOR_MODULES = {
    "starlette": "starlette",
    "uvicorn": "uvicorn",
    "sqlalchemy": "sqlalchemy",
    "cryptography": "cryptography",
    "limits": "limits",
    "aiohttp": "aiohttp",
}

EXTRAS = {
    extra.name: extra
    for extra in (
        Extra("video", "video rendering", {"av": "av", "numpy": "numpy", "cv2": "opencv-python-headless"}),
        Extra("charts", "drawing charts with Plotly", {"plotly": "plotly", "kaleido": "kaleido"}),
        Extra("s3", "S3 storage", {"s3fs": "s3fs", "aiohttp": "aiohttp"}),
        Extra("editor", "the editor on a file", EDITOR_MODULES),
        Extra("server", "the server", {**EDITOR_MODULES, "s3fs": "s3fs"}),  # s3fs: s3Config uploads
    )
}


def _installed(module: str) -> bool:
    try:
        return find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def unavailable(extra: str) -> str | None:
    """Why the features of ``extra`` cannot run here (naming each missing distribution
    and the command that installs it), or None when they can."""
    spec = EXTRAS[extra]
    missing = spec.missing()
    if not missing:
        return None
    return f"{spec.what} needs {', '.join(missing)}, which {_is_are(missing)} not installed: {spec.install()}"


def explain(extra: str, exc: ImportError) -> str:
    """The message for an ImportError met while loading the features of ``extra``: every
    distribution of the extra that is missing (or the one of the module that failed,
    when that is not one of the extra's own), and the command that installs them."""
    spec = EXTRAS[extra]
    module = (exc.name or "").partition(".")[0]
    if module and _installed(module):  # present but broken: its own message says why
        distribution = spec.modules.get(module, module)
        return f"{spec.what} needs {distribution}, which is installed but cannot be imported ({exc}): {spec.install()}"
    known = unavailable(extra)
    if known is not None:
        return known
    if not module:  # raised by a library on another's behalf, without the module's name
        return f"{spec.what} cannot start ({exc}): {spec.install()}"
    return f"{spec.what} needs {module}, which is not installed: {spec.install()}"


def _is_are(names: list[str]) -> str:
    return "is" if len(names) == 1 else "are"
