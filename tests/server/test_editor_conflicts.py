"""Two editors of one template in a real browser (Debian's Chromium, driven by Playwright)
on a live server: a save refused because another saved first never turns into a save
that replaces that other's version without the person having seen the refusal, nor one
that replaces a version saved after it."""

from __future__ import annotations

import httpx
import pytest

from tests.server.conftest import text_template
from tests.server.test_editor import open_editor, select, settled

pytestmark = pytest.mark.slow

pytest.importorskip("playwright.sync_api")


def saved_elsewhere(live, account, fill: str, version: int) -> None:
    """Another tab saves the box in ``fill`` over ``version``."""
    source = httpx.get(f"{live.api}/templates/card/source", headers=account.bearer).json()
    source["layers"][0]["fill"] = fill
    answer = httpx.put(
        f"{live.api}/templates/card", json=source, headers={**account.bearer, "If-Match": f'"{version}"'}
    )
    assert answer.status_code == 200, answer.text


def current(live, account) -> tuple[str, dict]:
    answer = httpx.get(f"{live.api}/templates/card/source", headers=account.bearer)
    return answer.headers["etag"], answer.json()


def open_card(page, live, account) -> None:
    open_editor(page, live, account)
    page.select_option("#templates", "card")
    settled(page)


def status(page) -> str:
    return page.text_content("#status")


def test_saving_twice_quickly_after_another_tab_saved_does_not_replace_its_version(page, live):
    account = live.account()
    live.add_template(account, text_template("card"))
    open_card(page, live, account)
    saved_elsewhere(live, account, "#00ff00", 1)  # version 2, which this page never saw
    select(page, "title")
    page.fill("#pane-layer [aria-label='text']", "this tab's words")
    settled(page)
    page.dblclick("#save")  # the second click comes while the first save is on its way
    page.wait_for_function("() => document.getElementById('status').textContent.startsWith('Not saved')")
    page.wait_for_timeout(1500)  # what the second click queued has had its turn
    etag, stored = current(live, account)
    assert etag == '"2"' and stored["layers"][0]["fill"] == "#00ff00", status(page)


def test_save_again_after_a_conflict_replaces_only_the_version_it_named(page, live):
    account = live.account()
    live.add_template(account, text_template("card"))
    open_card(page, live, account)
    saved_elsewhere(live, account, "#00ff00", 1)
    select(page, "title")
    page.fill("#pane-layer [aria-label='text']", "this tab's words")
    settled(page)
    page.click("#save")
    page.wait_for_function("() => document.getElementById('status').textContent.includes('version 2, not 1')")
    saved_elsewhere(live, account, "#0000ff", 2)  # version 3: saved after the refusal was shown
    page.click("#save")  # "save again to replace it": version 2, which the refusal named
    page.wait_for_timeout(1500)
    etag, stored = current(live, account)
    assert etag == '"3"' and stored["layers"][0]["fill"] == "#0000ff", status(page)
    assert status(page).startswith("Not saved"), status(page)
