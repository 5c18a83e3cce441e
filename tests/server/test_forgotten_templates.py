"""Templates deleted more than 30 days ago are forgotten (their versions, name and
size), and their id keeps counting: a version number never names two designs, so
nothing kept by template and version shows a forgotten design for a new one."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from templatekit_server import accounts, catalog
from templatekit_server.db import Database, templates
from templatekit_server.errors import ApiError
from templatekit_server.plans import DEFAULT_PLANS
from tests.server import services
from tests.server.conftest import text_template

LATER = catalog.KEEP_DELETED_SECONDS + 60


@pytest.fixture
def db(tmp_path: Path) -> Iterator[Database]:
    database = Database(f"sqlite:///{tmp_path / 'catalog.db'}")
    yield database
    database.close()


def test_a_forgotten_template_leaves_its_version_number_and_nothing_else(db, monkeypatch):
    workspace = accounts.create_workspace(db, "studio", "pro", DEFAULT_PLANS)
    catalog.save(db, workspace, text_template("promo", name="Old launch"))
    catalog.save(db, workspace, text_template("promo", name="Old launch, v2"), existing=True)
    catalog.save(db, workspace, text_template("kept"))
    catalog.delete(db, workspace, "promo")
    catalog.save(db, workspace, text_template("promo", name="Old launch, v3"))  # back within 30 days
    assert [info.id for info in catalog.listed(db, workspace)] == ["promo", "kept"]  # as made first
    catalog.delete(db, workspace, "promo")
    assert catalog.forget_deleted(db) == 0  # kept for 30 days: it can still come back

    clock = catalog.now()
    monkeypatch.setattr(catalog, "now", lambda: clock + LATER)
    assert catalog.forget_deleted(db) == 1
    with pytest.raises(ApiError, match="does not exist"):
        catalog.body(db, workspace, "promo", 1)
    with pytest.raises(ApiError, match="does not exist"):
        catalog.info(db, workspace, "promo")
    assert [info.id for info in catalog.listed(db, workspace)] == ["kept"]
    with db.read() as connection:
        left = connection.execute(select(templates).where(templates.c.id == "promo")).one()
    assert (left.name, left.width, left.height, left.version) == ("", 0, 0, 3)
    assert catalog.forget_deleted(db) == 0  # what is left is not forgotten again

    _, version, _ = catalog.save(db, workspace, text_template("promo", name="New launch"))
    assert version == 4
    assert [info.id for info in catalog.listed(db, workspace)] == ["kept", "promo"]  # made after "kept"
    assert json.loads(catalog.body(db, workspace, "promo", 4))["name"] == "New launch"
    assert [entry["version"] for entry in catalog.versions(db, workspace, "promo")] == [4]
    assert catalog.info(db, workspace, "promo").name == "New launch"


@pytest.mark.slow
def test_a_template_stored_again_while_it_is_being_forgotten_keeps_its_versions(monkeypatch):
    """Two hosts on one PostgreSQL: one forgets the templates deleted long ago while the
    other stores one of them again, between the first's choice and its change."""
    with services.postgres() as pg:
        db, other = Database(pg.url), Database(pg.url)
        try:
            workspace = accounts.create_workspace(db, "studio", "pro", DEFAULT_PLANS)
            catalog.save(db, workspace, text_template("promo", name="Launch"))
            catalog.delete(db, workspace, "promo")
            clock = catalog.now()
            monkeypatch.setattr(catalog, "now", lambda: clock + LATER)
            chosen = catalog.update

            def stored_again_first(table: Any) -> Any:  # the other host, before the first changes the row
                monkeypatch.setattr(catalog, "update", chosen)
                catalog.save(other, workspace, text_template("promo", name="Launch again"))
                return chosen(table)

            monkeypatch.setattr(catalog, "update", stored_again_first)
            assert catalog.forget_deleted(db) == 0
            assert [entry["version"] for entry in catalog.versions(db, workspace, "promo")] == [2, 1]
            assert catalog.info(db, workspace, "promo").name == "Launch again"
        finally:
            db.close()
            other.close()
