"""What the server's start leaves to the garbage collector."""

from __future__ import annotations

import asyncio
import gc
from pathlib import Path

from templatekit_server.app import create_app
from templatekit_server.settings import Settings


def test_what_starting_made_is_frozen_while_the_app_runs_and_thawed_after(tmp_path: Path) -> None:
    """A full collection under load visits only what came after the start (the modules,
    tables and routes made by starting would be most of what it visits); an app that
    stops leaves nothing frozen in a process that goes on."""
    app = create_app(Settings(data_dir=tmp_path, workers=1))

    async def frozen_while_running() -> int:
        async with app.router.lifespan_context(app):
            return gc.get_freeze_count()

    frozen = asyncio.run(frozen_while_running())
    assert frozen > 50_000, frozen  # the start's objects, modules and all
    assert gc.get_freeze_count() == 0
