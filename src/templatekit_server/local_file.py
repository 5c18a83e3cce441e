"""The catalog of ``templatekit edit``: one template file, and the versions saved to it
while the editor runs (the first is the file as opened).

Each save is written whole (a temporary file moved over the old one), and only when the
file on disk is what was last read or written: a change another program made meanwhile
is never overwritten, it becomes a version of its own when the page reloads.
"""

from __future__ import annotations

import json
import os
import stat
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from attrs import define, field

from templatekit import TemplateError, load_template
from templatekit_server.errors import ApiError, from_library

#: The id the page uses for a file whose template has none.
FILE_ID = "file"


@define
class Version:
    number: int
    text: str
    created: float
    note: str

    @property
    def created_at(self) -> str:
        return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(self.created))


def blank_template(path: Path) -> dict[str, Any]:
    return {"name": path.stem or "Untitled", "width": 1200, "height": 630, "background": "#ffffff", "layers": []}


def _as_text(template: Any) -> str:
    return json.dumps(template, indent=2, ensure_ascii=False) + "\n"


@define
class EditedFile:
    path: Path
    versions: list[Version] = field(factory=list)
    disk_text: str | None = None  # None: the file does not exist yet
    lock: threading.Lock = field(factory=threading.Lock)
    #: the id the page calls the template by: the file's ``id`` (FILE_ID without one)
    template_id: str = FILE_ID

    @classmethod
    def open(cls, path: Path) -> EditedFile:
        edited = cls(path)
        if path.exists():
            text = path.read_text(encoding="utf-8")
            try:
                json.loads(text)
            except ValueError as exc:
                raise TemplateError([f"not JSON ({exc}); fix or move it first"], source=str(path)) from None
            edited.disk_text = text
            edited.versions.append(Version(1, text, time.time(), "as opened"))
        else:
            # not a version until saved: the first save is version 1
            edited.versions.append(Version(0, _as_text(blank_template(path)), time.time(), "new file"))
        found = json.loads(edited.current.text)
        given = found.get("id") if isinstance(found, dict) else None
        edited.template_id = given if isinstance(given, str) and given else FILE_ID
        return edited

    @property
    def current(self) -> Version:
        return self.versions[-1]

    def _on_disk(self) -> str | None:
        return self.path.read_text(encoding="utf-8") if self.path.exists() else None

    def read(self) -> Version:
        """The current version; a change made on disk by another program becomes one."""
        with self.lock:
            disk = self._on_disk()
            if disk is not None and disk != self.disk_text:
                self.disk_text = disk
                self._add(disk, "changed on disk")
            return self.current

    def save(self, template: dict[str, Any], expected: int | None, note: str = "") -> Version:
        """A new version written to the file; CONFLICT when the file changed on disk or
        ``expected`` is not the current version, BAD_REQUEST when the template is invalid."""
        try:
            load_template(template)
        except TemplateError as exc:
            raise from_library(exc) from None
        with self.lock:
            if self._on_disk() != self.disk_text:
                message = f"{self.path.name} changed on disk; reload to edit its new contents"
                raise ApiError("CONFLICT", message)
            if expected is not None and expected != self.current.number:
                message = f"template {self.template_id} is at version {self.current.number}, not {expected} (If-Match)"
                raise ApiError("CONFLICT", message)
            text = _as_text(template)
            write_atomically(self.path, text)
            self.disk_text = text
            return self._add(text, note)

    def _add(self, text: str, note: str) -> Version:
        version = Version(self.current.number + 1, text, time.time(), note)
        self.versions.append(version)
        return version

    @property
    def saved(self) -> list[Version]:
        """The versions the file has had (a new file's blank design is none of them)."""
        return [version for version in self.versions if version.number > 0]

    def version(self, number: int) -> Version:
        found = next((v for v in self.saved if v.number == number), None)
        if found is None:
            raise ApiError("NOT_FOUND", f"template {self.template_id} version {number} does not exist")
        return found

    def template(self) -> dict[str, Any]:
        """The current version's JSON (an empty object when it holds no object)."""
        found = json.loads(self.read().text)
        return found if isinstance(found, dict) else {}


def write_atomically(path: Path, text: str) -> None:
    """The whole new text or the old file, never half of one (a crash, a full disk). A
    symbolic link stays one (its target is written) and the file keeps its permissions."""
    target = path.resolve()
    handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        mode = stat.S_IMODE(target.stat().st_mode) if target.exists() else 0o666 & ~_umask()
        os.chmod(temporary, mode)
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def _umask() -> int:
    current = os.umask(0)
    os.umask(current)
    return current
