"""A module imported when first used, for the heavy libraries that only some renders
need (ICU: text in ASCII alone never calls it, and importing it costs a tenth of a cold
``templatekit render``)."""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any


class LazyModule:
    """Stands in for the module ``name`` in the namespace that names it, and on first
    use imports it and puts it in its own place there, so that later uses cost nothing."""

    def __init__(self, name: str, namespace: dict[str, Any]) -> None:
        self._name = name
        self._namespace = namespace

    def __getattr__(self, attribute: str) -> Any:
        module = self.load()
        return getattr(module, attribute)

    def load(self) -> ModuleType:
        module = importlib.import_module(self._name)  # the import lock makes it once
        for key, value in list(self._namespace.items()):
            if value is self:
                self._namespace[key] = module
        return module
