"""The exceptions templatekit raises.

::

    TemplatekitError
    ├── TemplateError        the template JSON is invalid (lists every problem)
    ├── ModificationError    a modification value does not fit its field
    ├── AssetError           an image, font or clip could not be fetched or decoded
    ├── LimitError           the render would take more memory than its budget
    ├── RenderError          a valid input could not be rendered (e.g. no Chrome for charts)
    └── StorageError         a store could not write or read a file

Every message names the place of the problem (a JSON path, a layer name, a URL) and
the offending value, so that a user can fix the input without reading a stack trace.
"""

from __future__ import annotations

from collections.abc import Sequence


class TemplatekitError(Exception):
    """Base class of all templatekit errors."""


#: Problems or warnings listed at most: a template with a million bad rows gets a
#: readable message.
MAX_LISTED = 50


def listed(lines: Sequence[str], what: str = "problems", limit: int = MAX_LISTED) -> list[str]:
    """At most ``limit`` of ``lines``, and then one saying how many more there are."""
    kept = list(lines[:limit])
    if len(lines) > limit:
        kept.append(f"… and {len(lines) - limit:,} more {what} like these")
    return kept


class TemplateError(TemplatekitError):
    """The template is invalid. ``problems`` holds one message per problem found;
    ``warnings`` what was found besides them that alone would not stop a render
    (unknown fields or layer kinds), so that one message tells all there is to fix."""

    def __init__(self, problems: Sequence[str], source: str = "template", warnings: Sequence[str] = ()) -> None:
        self.problems = listed(problems)
        self.source = source
        self.warnings = listed(warnings, "warnings")
        message = f"{source} is invalid ({len(self.problems)} problem(s)):" + "".join(f"\n  {p}" for p in self.problems)
        if self.warnings:
            message += f"\nand {len(self.warnings)} warning(s):" + "".join(f"\n  {w}" for w in self.warnings)
        super().__init__(message)

    def __reduce__(self) -> tuple[type, tuple[tuple[str, ...], str], dict[str, object]]:
        """Pickled whole, its listing as it is, so that errors of renders in other
        processes read the same."""
        return self.__class__, ((), self.source), {**self.__dict__, "args": self.args}


class ModificationError(TemplatekitError):
    """A modification could not be applied: its value does not fit the layer's field."""


class AssetError(TemplatekitError):
    """An asset (image, font, clip) could not be fetched or decoded."""

    def __init__(self, message: str, *, layer: str | None = None, url: str | None = None) -> None:
        self.layer = layer
        self.url = url
        super().__init__(message)

    def __reduce__(self) -> tuple[type, tuple[str], dict[str, str | None]]:
        return self.__class__, (str(self),), {"layer": self.layer, "url": self.url}


class LimitError(TemplatekitError):
    """The render would take more memory than its budget (``templatekit.budget``); the
    message names the layer, what needed the memory and how much."""

    def __init__(self, message: str, *, layer: str | None = None) -> None:
        self.layer = layer
        super().__init__(message)

    def __reduce__(self) -> tuple[type, tuple[str], dict[str, str | None]]:
        return self.__class__, (str(self),), {"layer": self.layer}


class RenderError(TemplatekitError):
    """A valid template could not be rendered."""


class StorageError(TemplatekitError):
    """A file could not be stored or read back. The message names the store and the
    file; ``public`` says what failed without them (for answers to other people)."""

    def __init__(self, message: str, *, public: str | None = None) -> None:
        self.public = public or "the file storage failed"
        super().__init__(message)

    def __reduce__(self) -> tuple[type, tuple[str], dict[str, str]]:
        return self.__class__, (str(self),), {"public": self.public}
