"""Invitations and the owner who made them, over real HTTP on a live server: an owner
removed from the workspace, or made something less than an owner, cannot come back (or
bring another account in) with a link they made before."""

from __future__ import annotations

import httpx
import pytest

from templatekit_server import people
from tests.server.test_dashboard import csrf, invitation_link, member, signed_in

pytestmark = pytest.mark.slow


def removed_or_lowered(live, account, action: str) -> tuple:
    """Two owners; the first makes a link for an owner, then the second removes them or
    makes them a viewer. (the first's browser, the link)"""
    first = member(live, account, "owner", f"first-{action}-{account.workspace}@example.com")
    second = signed_in(live, member(live, account, "owner", f"second-{action}-{account.workspace}@example.com"))
    browser = signed_in(live, first)
    link = invitation_link(browser, account.workspace, "owner")
    user_id = people.user_id_of(live.db, first)
    page = second.get(f"/dashboard/w/{account.workspace}/members")
    data = {"csrf": csrf(page), **({"role": "viewer"} if action == "role" else {})}
    changed = second.post(f"/dashboard/w/{account.workspace}/members/{user_id}/{action}", data=data)
    assert changed.status_code == 303, changed.text
    return browser, link


def test_a_removed_owner_cannot_rejoin_with_a_link_they_made(live):
    account = live.account()
    browser, link = removed_or_lowered(live, account, "remove")
    assert browser.get(f"/dashboard/w/{account.workspace}/").status_code == 404
    assert browser.get(link).status_code == 410
    first = people.user_id_of(live.db, f"first-remove-{account.workspace}@example.com")
    assert people.role_in(live.db, first, account.workspace) is None


def test_an_owner_made_a_viewer_cannot_bring_in_an_owner_with_a_link_they_made(live):
    account = live.account()
    _, link = removed_or_lowered(live, account, "role")
    with httpx.Client(follow_redirects=False, timeout=30) as page:
        assert page.get(link).status_code == 410
