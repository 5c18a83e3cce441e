"""The dashboard in a real browser (Debian's Chromium, driven by Playwright) on a live
server: an owner signs in, makes a project and a key (the secret shown once), renders with
it over /v1, revokes it in the page and the same key is refused; a viewer's pages hold no
form that changes anything, at a phone's width too; signing out ends the session."""

from __future__ import annotations

import time

import httpx
import pytest

from templatekit_server import accounts, people
from templatekit_server.plans import DEFAULT_PLANS
from tests.server.conftest import text_template
from tests.server.test_dashboard import PASSWORD, invitation_link, member, signed_in

pytestmark = pytest.mark.slow

pytest.importorskip("playwright.sync_api")


def sign_in(page, live, email: str) -> None:
    page.goto(f"{live.root}/dashboard/")
    page.fill("input[name=email]", email)
    page.fill("input[name=password]", PASSWORD)
    page.press("input[name=password]", "Enter")
    page.wait_for_selector("h2:has-text('Projects of')")


def test_an_owner_makes_a_key_renders_with_it_and_revokes_it(page, live):
    account = live.account()
    live.add_template(account, text_template("card"))
    sign_in(page, live, member(live, account, "owner"))

    page.fill("input[name=name]", "Launch")
    page.click("button:has-text('Create project')")
    page.click("tr:has(td:text-is('Launch')) a:has-text('API keys')")
    page.check("input[value='templates:write']")
    page.click("button:has-text('Create key')")
    key = page.text_content("#new-key")
    assert key.startswith("tk_live_")
    bearer = {"Authorization": f"Bearer {key}"}
    rendered = httpx.post(f"{live.api}/templates/createImage", json={"templateId": "card"}, headers=bearer, timeout=60)
    assert rendered.status_code == 200 and rendered.content.startswith(b"\x89PNG")

    page.reload()  # the secret is not shown again: only its first characters
    assert key not in page.content()
    row = page.locator("tbody tr").first
    assert row.locator("code").text_content() == f"{key[:12]}…"
    assert row.locator("td").nth(1).text_content() == "render, templates:write"
    row.locator("button:has-text('Revoke')").click()
    page.wait_for_selector("p.note:has-text('is revoked')")
    refused = httpx.post(f"{live.api}/templates/createImage", json={"templateId": "card"}, headers=bearer)
    assert refused.status_code == 401

    page.click("button:has-text('Sign out')")
    page.wait_for_selector("h2:has-text('Sign in')")
    page.goto(f"{live.root}/dashboard/w/{account.workspace}/")
    assert page.locator("h2").text_content() == "Sign in"  # the session is gone


def test_a_viewer_reads_at_a_phone_width_and_is_refused_the_keys(page, live):
    account = live.account()
    page.set_viewport_size({"width": 390, "height": 800})
    sign_in(page, live, member(live, account, "viewer"))
    assert page.locator("form:has(button:has-text('Create'))").count() == 0
    assert page.locator("a:has-text('API keys')").count() == 0
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390  # nothing wider than the screen
    page.goto(f"{live.root}/dashboard/w/{account.workspace}/usage")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    # the days' table keeps its headings (a count is read with its date), scrolling by itself
    assert page.locator("table th:has-text('Project')").is_visible()
    table = page.locator("table:has(th:has-text('Project'))")
    assert table.evaluate("t => t.scrollWidth > t.clientWidth && getComputedStyle(t).overflowX == 'auto'")
    answer = page.goto(f"{live.root}/dashboard/w/{account.workspace}/p/{account.project}/keys")
    assert answer.status == 403 and "your role (viewer) cannot see API keys" in page.text_content("main")


def test_a_designer_invited_by_link_opens_a_template_in_the_editor_and_saves_it(page, live):
    account = live.account()
    live.add_template(account, text_template("card"))
    owner = signed_in(live, member(live, account, "owner"))
    link = invitation_link(owner, account.workspace, "designer")
    page.goto(link)  # signed out: the link makes the account
    email = f"designer-{account.workspace}@example.com"
    page.fill("input[name=email]", email)
    page.fill("input[name=password]", PASSWORD)
    page.fill("input[name=again]", PASSWORD)
    page.click("button:has-text('Make my account and join')")
    page.wait_for_selector(f"header .email:has-text('{email} · designer')")
    page.click("header nav a:has-text('Templates')")
    card = page.locator("li[data-template='card']")
    page.wait_for_function(  # the engine's thumbnail, rendered on the way
        "() => { const img = document.querySelector(\"li[data-template='card'] img\");"
        " return img && img.complete && img.naturalWidth > 0; }"
    )
    card.locator("a:has-text('Open in the editor')").click()
    page.wait_for_selector("#workspace:not([hidden])")  # connected: no key was pasted
    page.wait_for_selector("#canvas[data-current=true]")
    assert page.is_hidden("#connect") and page.input_value("#key") == ""
    page.click(".layer-row[data-name='title'] .layer-name")
    page.fill("#pane-layer [aria-label='text']", "Saved from the dashboard's editor")
    page.wait_for_selector("#canvas[data-current=true]")
    page.click("#save")
    page.wait_for_function("() => document.getElementById('status').textContent.startsWith('saved: version 2')")
    source = httpx.get(f"{live.api}/templates/card/source", headers=account.bearer).json()
    assert any(layer.get("text") == "Saved from the dashboard's editor" for layer in source["layers"])
    answer = page.goto(f"{live.root}/dashboard/w/{account.workspace}/p/{account.project}/keys")
    assert answer.status == 403  # a designer has no keys page


#: Each page of a workspace, and the roles that may see it (the others are refused).
PAGES = {
    "": ("owner", "admin", "designer", "viewer"),
    "templates": ("owner", "admin", "designer", "viewer"),
    "templates/card": ("owner", "admin", "designer", "viewer"),
    "assets": ("owner", "admin", "designer", "viewer"),
    "usage": ("owner", "admin", "designer", "viewer"),
    "members": ("owner", "admin", "designer", "viewer"),
    "audit": ("owner", "admin"),
    "p/{project}/keys": ("owner", "admin"),
    "p/{project}/webhooks": ("owner", "admin"),
    "p/{project}/hooks": ("owner", "admin"),
}


@pytest.mark.parametrize("role", ["owner", "admin", "designer", "viewer"])
def test_every_page_for_every_role_loads_under_its_policy_or_is_refused(page, live, role):
    account = live.account()
    live.add_template(account, text_template("card"))
    sign_in(page, live, member(live, account, role))
    for path, roles in PAGES.items():
        answer = page.goto(f"{live.root}/dashboard/w/{account.workspace}/{path.format(project=account.project)}")
        expected = 200 if role in roles else 403
        assert answer.status == expected, (role, path, answer.status)
        shown = page.locator("header .email").text_content()
        if expected == 200:
            assert shown.endswith(f"· {role}"), shown
        else:  # refused, saying why, to the person it knows
            assert "@example.com" in shown and f"your role ({role}) cannot" in page.text_content("main")
        page.wait_for_load_state("load")
        # thumbnails load lazily, rendered at a preview's priority (a new server's first
        # starts its render process): the load event does not wait for them.
        # wait_for_function would poll with eval, which the page's policy refuses.
        wait_for_images(page)
        broken = page.evaluate("[...document.images].filter(img => !img.naturalWidth).length")
        assert broken == 0, (role, path)
        if role == "viewer":  # the read-only pages fit a phone's screen
            page.set_viewport_size({"width": 390, "height": 800})
            assert page.evaluate("document.documentElement.scrollWidth") <= 390, path
            page.set_viewport_size({"width": 1300, "height": 900})
    # the page fixture fails the test on any script error or Content-Security-Policy refusal


def wait_for_images(page, seconds: float = 30.0) -> None:
    """Until every picture of the page has loaded or failed."""
    deadline = time.monotonic() + seconds
    while not page.evaluate("[...document.images].every(img => img.complete)"):
        assert time.monotonic() < deadline, f"pictures still loading after {seconds:g} s: {page.url}"
        page.wait_for_timeout(100)


def test_a_long_workspace_name_is_cut_with_an_ellipsis_in_the_header_not_widening_the_page(page, live):
    account = live.account()
    email = member(live, account, "owner")
    long_name = "Northwind " * 20  # 200 characters once trimmed, the longest a name may be
    other = accounts.create_workspace(live.db, long_name, "free", DEFAULT_PLANS)
    people.add_member(live.db, other, people.user_id_of(live.db, email), "owner")
    sign_in(page, live, email)
    for width in (1280, 375):
        page.set_viewport_size({"width": width, "height": 800})
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        link = page.locator(f"nav.switch a[href$='/w/{other}/']")
        assert link.evaluate("a => getComputedStyle(a).textOverflow") == "ellipsis"
        assert link.evaluate("a => a.scrollWidth > a.clientWidth")  # cut, its whole name in the text
        assert link.text_content() == long_name.strip()
