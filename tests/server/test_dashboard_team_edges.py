"""The team dashboard from outside, on a live server and in Chromium: a rotated key
keeps its own rate limit, a refused form comes back as it was filled, long names do not
widen the pages, the log holds no invitation link or hook URL, and a removed member
cannot come back with a link made for them before."""

from __future__ import annotations

import re
import time

import httpx
import pytest

from templatekit_server import accounts, people
from tests.server.conftest import text_template
from tests.server.test_dashboard import (
    PASSWORD,
    csrf,
    invitation_link,
    member,
    signed_in,
)
from tests.server.test_dashboard_browser import sign_in

pytestmark = pytest.mark.slow


# ------------------------------------------------------------------ rotating a key


def test_rotating_a_key_in_the_page_keeps_its_own_rate_limit(live):
    """A key given its own rate limit (`admin key set-rate-limit`) and rotated in the
    dashboard: the new key stands in for the old one, so it must be held to the same
    limit. It was given the plan's limit instead (10 a minute became the plan's)."""
    account = live.account()
    live.add_template(account, text_template("card"))
    accounts.set_rate_limit(live.db, account.key_id, 10)
    kept = httpx.get(f"{live.api}/templates/card", headers=account.bearer, timeout=30)
    assert kept.headers["X-RateLimit-Limit"] == "10"  # the key's own limit, before

    owner = signed_in(live, member(live, account, "owner"))
    keys = f"/dashboard/w/{account.workspace}/p/{account.project}/keys"
    rotated = owner.post(f"{keys}/{account.key_id}/rotate", data={"csrf": csrf(owner.get(keys))})
    assert rotated.status_code == 303
    new_key = re.search(
        r'<code id="new-key">(tk_live_[\w-]+)</code>',
        owner.get(rotated.headers["location"]).text,
    )
    assert new_key, "the rotated key is shown once"
    bearer = {"Authorization": f"Bearer {new_key.group(1)}"}
    answer = httpx.get(f"{live.api}/templates/card", headers=bearer, timeout=30)
    assert answer.status_code == 200
    assert answer.headers["X-RateLimit-Limit"] == "10", answer.headers["X-RateLimit-Limit"]


# ------------------------------------------------------------------ refused forms


def test_a_refused_form_comes_back_as_it_was_filled(page, live):
    """A form the server refuses (an email the browser accepts but the server does not, a
    webhook URL on a private network, two passwords that differ, an output the template
    cannot give) comes back with the message and what the person typed and chose, as the
    sign-in form does with its email. The invitation, webhook, link and hook forms came
    back empty: the email, the role, the URL, the events and the template were lost."""
    account = live.account()
    live.add_template(account, text_template("card"))
    live.add_template(account, {**text_template("menu"), "name": "Menu"})
    email = member(live, account, "owner")
    sign_in(page, live, email)
    base = f"{live.root}/dashboard/w/{account.workspace}"

    page.goto(f"{base}/members")
    page.fill("input[name=email]", "ana@localhost")  # an email to the browser, not to the server
    page.select_option("form:has(button:has-text('Make an invitation')) select[name=role]", "admin")
    page.click("button:has-text('Make an invitation')")
    page.wait_for_selector("p.message")
    assert "must be an address such as ana@example.com" in page.text_content("p.message")
    assert page.input_value("input[name=email]") == "ana@localhost"
    assert page.input_value("form:has(button:has-text('Make an invitation')) select[name=role]") == "admin"

    page.goto(f"{base}/p/{account.project}/webhooks")
    page.fill("input[name=url]", "http://10.0.0.1/templatekit-events")
    page.check("input[name=events][value='render.done']")
    page.click("button:has-text('Add endpoint')")
    page.wait_for_selector("p.message")
    assert "url: 10.0.0.1 is a private address" in page.text_content("p.message")
    assert page.input_value("input[name=url]") == "http://10.0.0.1/templatekit-events"
    assert page.is_checked("input[name=events][value='render.done']")

    page.goto(f"{base}/p/{account.project}/hooks")
    page.select_option("select[name=template]", "menu")
    page.select_option("select[name=output]", "mp4")
    page.click("form:has(select[name=template]) button[type=submit]")
    page.wait_for_selector("p.message")
    assert "output 'mp4'" in page.text_content("p.message")
    assert page.input_value("select[name=template]") == "menu"  # the template chosen, not the first

    link = invitation_link(signed_in(live, email), account.workspace, "viewer")
    page.click("button:has-text('Sign out')")
    page.wait_for_selector("h2:has-text('Sign in')")
    page.goto(link)
    page.fill("input[name=email]", "newcomer@example.com")
    page.fill("input[name=password]", PASSWORD)
    page.fill("input[name=again]", PASSWORD + " but not quite")
    page.click("button[type=submit]")
    page.wait_for_selector("p.message")
    assert "the two passwords differ" in page.text_content("p.message")
    assert page.input_value("input[name=email]") == "newcomer@example.com"


def test_an_email_too_long_to_be_one_is_still_not_shown_back_in_a_refused_form(live):
    """What the form above keeps never includes an email too long to be one (the invitation
    forms' promise, tests/server/test_dashboard.py)."""
    account = live.account()
    owner = signed_in(live, member(live, account, "owner"))
    over = "a" * 309 + "@example.com"
    page = owner.get(f"/dashboard/w/{account.workspace}/members")
    invited = owner.post(
        f"/dashboard/w/{account.workspace}/members/invite",
        data={"csrf": csrf(page), "role": "admin", "email": over},
    )
    assert invited.status_code == 400 and over not in invited.text


# ------------------------------------------------------------------ long names


def test_names_without_spaces_do_not_widen_the_pages(page, live):
    """Names people give without spaces (a template named as its file, a project named as
    its bucket, a long email, a webhook URL) break inside their column: the page keeps the
    window's width, as the header keeps it for a long workspace name. In a 1,300 px window
    they widened the templates page, a project's pages and the audit log (measured with
    200-character names: up to 2,574 px, and 3,228 px for the audit log)."""
    account = live.account()
    live.add_template(
        account,
        {
            **text_template("story"),
            "name": "instagram_story_black_friday_2025_variant_b_final_v3",
        },
    )
    project = accounts.create_project(live.db, account.workspace, "acme_" + "marketing_site_production_" * 7)
    owner = member(live, account, "owner")
    member(
        live,
        account,
        "viewer",
        "first.middle.last." + "x" * 50 + "@subsidiary.example-corporation.com",
    )
    sign_in(page, live, owner)
    base = f"{live.root}/dashboard/w/{account.workspace}"
    wide = {}
    for path in (
        "/",
        "/templates",
        "/templates/story",
        "/members",
        "/audit",
        f"/p/{project}/keys",
        f"/p/{project}/webhooks",
        f"/p/{project}/hooks",
    ):
        answer = page.goto(base + path)
        assert answer.status == 200, path
        width = page.evaluate("document.documentElement.scrollWidth")
        if width > 1300:
            wide[path] = width
    assert wide == {}


# ------------------------------------------------------------------ secrets in the log


def test_the_log_holds_no_invitation_link_and_no_hook_url(live):
    """An invitation's link makes whoever holds it a member with its role (an owner's link
    too), and a hook's URL renders, billed: both are shown once, their tokens kept
    hashed. The access log wrote each in clear on every request (`GET
    /dashboard/invite/TOKEN 200`, `POST /v1/hooks/TOKEN 200`), so that whoever reads the
    log (a log shipper, the person on call) could join the workspace as owner. Security:
    "Logs and error messages hold neither keys nor secrets"."""
    account = live.account()
    live.add_template(account, text_template("card"))
    owner = signed_in(live, member(live, account, "owner"))
    link = invitation_link(owner, account.workspace, "owner")
    invitation_token = link.rsplit("/", 1)[1]
    newcomer = httpx.Client(follow_redirects=False, timeout=30)
    assert newcomer.get(link).status_code == 200  # the person it was passed to opens it

    hooks = f"/dashboard/w/{account.workspace}/p/{account.project}/hooks"
    made = owner.post(
        hooks,
        data={"csrf": csrf(owner.get(hooks)), "template": "card", "output": "png"},
    )
    assert made.status_code == 303
    url = re.search(
        r'<code id="hook-url">(http\S+)</code>',
        owner.get(made.headers["location"]).text,
    ).group(1)
    hook_token = url.rsplit("/", 1)[1]
    assert httpx.post(url, json={}, timeout=60).status_code == 200
    assert httpx.post(url + "x", json={}, timeout=60).status_code in (
        401,
        404,
    )  # a wrong one, logged as refused

    time.sleep(0.5)  # the access line is written after the answer
    log = live.log()
    assert invitation_token not in log
    assert hook_token not in log
    assert " /dashboard/invite/*** 200 " in log  # the requests are still logged, without their token


# ------------------------------------------------------------------ removal


def test_a_removed_member_cannot_come_back_with_a_link_made_before_for_them(live):
    """An owner invites a member (by their email) to a higher role; the member is told they
    are one already, and the link is left for them. The owner then removes them. The link
    must stop working, as the links a removed member made do ("a person removed ... cannot
    come back ... with a link made before"): it brought them back at once, as admin."""
    account = live.account()
    owner = signed_in(live, member(live, account, "owner"))
    email = member(live, account, "designer", f"bo-{account.workspace}@example.com")
    bo = signed_in(live, email)
    link = invitation_link(owner, account.workspace, "admin", email)
    opened = bo.get(link)
    assert opened.status_code == 200 and "you are already a member of" in opened.text

    members = f"/dashboard/w/{account.workspace}/members"
    user = people.user_id_of(live.db, email)
    removed = owner.post(f"{members}/{user}/remove", data={"csrf": csrf(owner.get(members))})
    assert removed.status_code == 303
    assert bo.get(f"/dashboard/w/{account.workspace}/").status_code == 404  # out at once

    page = bo.get(link)
    if page.status_code == 200:  # the link still opens: joining with it must be refused
        joined = bo.post(link, data={"csrf": csrf(page)})
        assert joined.status_code in (400, 410), joined.status_code
    assert people.role_in(live.db, user, account.workspace) is None
    assert bo.get(f"/dashboard/w/{account.workspace}/").status_code == 404
    log = owner.get(f"/dashboard/w/{account.workspace}/audit").text
    assert "invitation cancelled" in log  # and the log says so
