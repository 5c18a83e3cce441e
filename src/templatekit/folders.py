"""Folders made for output, with the reason in words when one cannot be."""

from __future__ import annotations

from pathlib import Path


def folder_problem(path: Path) -> str | None:
    """Make ``path`` and its parents; why it cannot be made (a file in the way, no right
    to write), naming the folder at fault, or None."""
    try:
        path.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        blocker = next(folder for folder in (path, *path.parents) if folder.exists())
        return f"{blocker} is a file, not a folder"
    except OSError as exc:
        return f"{path} cannot be made ({exc.strerror or exc})"
    return None
