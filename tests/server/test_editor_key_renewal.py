"""The editor opened from the dashboard in a real browser (Debian's Chromium, driven by
Playwright) on a live server: when the two-hour key the dashboard gave it ends during a
long session, saving still stores the work (the page asks the dashboard for another
key) rather than leaving a reload, which drops it, as the only way on."""

from __future__ import annotations

import httpx
import pytest
from sqlalchemy import update

from templatekit_server.db import api_keys, now
from tests.server.conftest import text_template
from tests.server.test_dashboard import member
from tests.server.test_dashboard_browser import sign_in
from tests.server.test_editor import save, select, settled

pytestmark = pytest.mark.slow

pytest.importorskip("playwright.sync_api")


def test_the_editor_saves_after_the_key_the_dashboard_gave_it_ends(page, live):
    account = live.account()
    live.add_template(account, text_template("card"))
    sign_in(page, live, member(live, account, "designer"))
    page.goto(f"{live.root}/editor/#dashboard={account.workspace}&project={account.project}&template=card")
    page.wait_for_selector("#workspace:not([hidden])")
    settled(page)
    select(page, "title")
    page.fill("#pane-layer [aria-label='text']", "two hours of work")
    settled(page)
    with live.db.write() as connection:  # two hours pass: the editor's key ends
        connection.execute(
            update(api_keys)
            .where(api_keys.c.project_id == account.project, api_keys.c.expires_at.is_not(None))
            .values(expires_at=now() - 1)
        )
    save(page, 2)
    source = httpx.get(f"{live.api}/templates/card/source", headers=account.bearer).json()
    assert [layer.get("text") for layer in source["layers"]] == [None, "two hours of work"]
