"""The dashboard over real HTTP on a live server: signing in and out, CSRF, the throttle,
roles, projects and API keys (a key made in the page renders over /v1, and is refused
once revoked there)."""

from __future__ import annotations

import email
import email.message
import email.policy
import html
import io
import os
import re
import time
from collections.abc import Iterator

import httpx
import pytest
from PIL import Image
from sqlalchemy import select
from standardwebhooks.webhooks import Webhook

from templatekit.service import AllowList
from templatekit_server import accounts, audit, people, webhooks
from templatekit_server.db import sign_in_failures, workspaces
from tests.conftest import decode
from tests.server.conftest import Account, LiveServer, free_port, text_template
from tests.server.test_webhooks import Receiver

pytestmark = pytest.mark.slow

PASSWORD = "a passphrase of the test"


def member(live: LiveServer, account: Account, role: str, email: str | None = None) -> str:
    """A user of ``role`` in the account's workspace: the email to sign in with."""
    email = email or f"{role}-{account.workspace}@example.com"
    people.add_member(live.db, account.workspace, people.create_user(live.db, email, PASSWORD), role)
    return email


def csrf(page: httpx.Response) -> str:
    found = re.search(r'name="csrf" value="([^"]+)"', page.text)
    assert found, page.text
    return found.group(1)


def signed_in(live: LiveServer, email: str, password: str = PASSWORD) -> httpx.Client:
    browser = httpx.Client(base_url=live.root, follow_redirects=False, timeout=30)
    form = browser.get("/dashboard/sign-in")
    answer = browser.post("/dashboard/sign-in", data={"email": email, "password": password, "csrf": csrf(form)})
    assert answer.status_code == 303, answer.text
    return browser


def test_signed_out_pages_lead_to_sign_in_and_the_pages_carry_their_headers(live):
    account = live.account()
    browser = httpx.Client(base_url=live.root, follow_redirects=False)
    for path in ("/dashboard/", f"/dashboard/w/{account.workspace}/"):
        answer = browser.get(path)
        assert answer.status_code == 303 and answer.headers["location"].endswith("/dashboard/sign-in")
    form = browser.get("/dashboard/sign-in")
    assert form.status_code == 200 and 'name="password"' in form.text
    assert "script-src 'self'" in form.headers["content-security-policy"]
    assert form.headers["x-frame-options"] == "DENY"
    cookie = form.headers["set-cookie"].lower()
    assert "httponly" in cookie and "samesite=strict" in cookie


@pytest.fixture
def own(tmp_path):
    """A server of its own: the throttle counts failures by address, and every test
    signs in from 127.0.0.1."""
    server = LiveServer(tmp_path / "data", {"TEMPLATEKIT_WORKERS": "1"})
    server.data_dir.mkdir(parents=True)
    yield server.start()
    server.stop()


def test_sign_in_answers_alike_for_an_unknown_email_and_a_wrong_password_and_throttles(own):
    live = own
    account = live.account()
    email = member(live, account, "owner")
    browser = httpx.Client(base_url=live.root, follow_redirects=False)
    token = csrf(browser.get("/dashboard/sign-in"))
    refused = browser.post("/dashboard/sign-in", data={"email": email, "password": PASSWORD})
    assert refused.status_code == 403  # no CSRF token: refused before anything is checked
    answers = [
        browser.post("/dashboard/sign-in", data={"email": who, "password": "not the one", "csrf": token})
        for who in (email, f"nobody-{account.workspace}@example.com")
    ]
    assert [a.status_code for a in answers] == [401, 401]
    assert all("the email or the password is not right" in a.text for a in answers)
    assert answers[0].text.replace(email, "") == answers[1].text.replace(f"nobody-{account.workspace}@example.com", "")
    for _ in range(people.THROTTLE_FAILURES - 1):  # 10 failures for this email in all
        browser.post("/dashboard/sign-in", data={"email": email, "password": "not the one", "csrf": token})
    throttled = browser.post("/dashboard/sign-in", data={"email": email, "password": PASSWORD, "csrf": token})
    assert throttled.status_code == 429 and "too many attempts" in throttled.text  # even the right password


def test_an_owner_makes_a_project_and_a_key_that_renders_until_revoked_in_the_page(live):
    account = live.account()
    live.add_template(account, text_template("card"))
    browser = signed_in(live, member(live, account, "owner"))
    home = browser.get("/dashboard/")
    assert home.status_code == 303 and home.headers["location"].endswith(f"/dashboard/w/{account.workspace}/")
    projects = browser.get(home.headers["location"])
    token = csrf(projects)
    assert browser.post(f"/dashboard/w/{account.workspace}/projects", data={"name": "Launch"}).status_code == 403
    made = browser.post(f"/dashboard/w/{account.workspace}/projects", data={"name": "Launch", "csrf": token})
    assert made.status_code == 303
    listed = browser.get(f"/dashboard/w/{account.workspace}/").text
    project = re.search(r"<td>Launch</td>\s*<td><code>(prj_\w+)</code>", listed).group(1)

    keys = f"/dashboard/w/{account.workspace}/p/{project}/keys"
    created = browser.post(keys, data={"csrf": token, "scopes": "render"})
    assert created.status_code == 303  # to the page, so that reloading it makes no second key
    shown = browser.get(created.headers["location"]).text
    key = re.search(r'<code id="new-key">(tk_live_[\w-]+)</code>', shown).group(1)
    again = browser.get(keys).text
    assert key not in again and f"{key[:12]}…" in again  # shown once, then only its start
    render = {"templateId": "card"}
    bearer = {"Authorization": f"Bearer {key}"}
    assert httpx.post(f"{live.api}/templates/createImage", json=render, headers=bearer, timeout=60).status_code == 200
    used = re.search(
        rf"{re.escape(key[:12])}….*?</td>\s*<td>[^<]*</td>\s*<td>[^<]*</td>\s*<td>([^<]*)</td>",
        browser.get(keys).text,
        re.S,
    )
    assert used and used.group(1).startswith("20")  # the key's last use, just now

    key_id = re.search(r'data-key="(key_\w+)"', again).group(1)
    revoked = browser.post(f"{keys}/{key_id}/revoke", data={"csrf": token})
    assert revoked.status_code == 303 and "is revoked" in browser.get(revoked.headers["location"]).text
    assert "is revoked" not in browser.get(f"{keys}?revoked=key_made_up").text  # names only a revoked key
    assert httpx.post(f"{live.api}/templates/createImage", json=render, headers=bearer).status_code == 401


def test_no_page_of_the_dashboard_is_kept_by_a_cache_least_of_all_one_showing_a_new_key(live):
    account = live.account()
    browser = signed_in(live, member(live, account, "owner"))
    keys = f"/dashboard/w/{account.workspace}/p/{account.project}/keys"
    page = browser.get(keys)
    created = browser.post(keys, data={"csrf": csrf(page), "scopes": "render"})
    shown = browser.get(created.headers["location"])
    assert re.search(r'<code id="new-key">tk_live_[\w-]+</code>', shown.text)
    assert shown.headers["cache-control"] == "no-store"
    link = invitation_link(browser, account.workspace, "viewer")
    for answer in (
        page,
        browser.get(f"/dashboard/w/{account.workspace}/"),
        browser.get(f"/dashboard/w/{account.workspace}/members"),
        browser.get(f"/dashboard/w/{account.workspace}/nothing-here"),
        httpx.get(f"{live.root}/dashboard/sign-in"),
        httpx.get(link),
    ):
        assert answer.headers["cache-control"] == "no-store", (answer.url, answer.status_code)


def test_roles_a_designer_sees_no_keys_and_a_viewer_changes_nothing(live):
    account = live.account()
    keys = f"/dashboard/w/{account.workspace}/p/{account.project}/keys"
    designer = signed_in(live, member(live, account, "designer"))
    assert designer.get(keys).status_code == 403
    viewer = signed_in(live, member(live, account, "viewer"))
    page = viewer.get(f"/dashboard/w/{account.workspace}/")
    assert page.status_code == 200 and "Create project" not in page.text
    token = csrf(page)  # the sign-out form's
    tried = [
        viewer.post(f"/dashboard/w/{account.workspace}/projects", data={"name": "x", "csrf": token}),
        viewer.post(keys, data={"csrf": token, "scopes": "render"}),
        viewer.post(f"{keys}/{account.key_id}/revoke", data={"csrf": token}),
    ]
    assert httpx.get(f"{live.api}/templates", headers=account.bearer).status_code == 200  # the key was not revoked
    assert [answer.status_code for answer in tried] == [403, 403, 403]
    assert "your role (viewer) cannot" in tried[0].text
    other = live.account()  # another workspace: not found, whatever the role
    assert viewer.get(f"/dashboard/w/{other.workspace}/").status_code == 404


def test_sign_out_ends_the_session_and_removal_the_workspace_at_once(live):
    account = live.account()
    email = member(live, account, "admin")
    browser = signed_in(live, email)
    page = browser.get(f"/dashboard/w/{account.workspace}/")
    assert page.status_code == 200
    assert browser.post("/dashboard/sign-out", data={"csrf": csrf(page)}).status_code == 303
    assert browser.get(f"/dashboard/w/{account.workspace}/").status_code == 303

    browser = signed_in(live, email)
    people.remove_member(live.db, account.workspace, people.user_id_of(live.db, email))
    assert browser.get(f"/dashboard/w/{account.workspace}/").status_code == 404  # as any other's


def test_templates_with_thumbnails_versions_and_revert(live):
    account = live.account()
    live.add_template(account, text_template("card"))
    live.add_template(account, {**text_template("card"), "name": "Card two"}, overwrite=True)
    designer = signed_in(live, member(live, account, "designer"))
    listed = designer.get(f"/dashboard/w/{account.workspace}/templates")
    assert listed.status_code == 200 and "Card two" in listed.text and "Open in the editor" in listed.text
    thumbnail = designer.get(f"/dashboard/w/{account.workspace}/templates/card/thumbnail.png?v=1")
    assert thumbnail.headers["content-type"] == "image/png" and "immutable" in thumbnail.headers["cache-control"]
    assert max(decode(thumbnail.content).size) <= 320
    assert live.used(account) == 0  # not billed

    page = designer.get(f"/dashboard/w/{account.workspace}/templates/card")
    assert "revert to version 1" in page.text
    reverted = designer.post(
        f"/dashboard/w/{account.workspace}/templates/card/revert", data={"version": "1", "csrf": csrf(page)}
    )
    assert reverted.status_code == 303
    assert "now version 3" in designer.get(reverted.headers["location"]).text
    source = httpx.get(f"{live.api}/templates/card/source", headers=account.bearer).json()
    assert source["name"] == text_template("card")["name"]

    viewer = signed_in(live, member(live, account, "viewer"))
    page = viewer.get(f"/dashboard/w/{account.workspace}/templates/card")
    assert "revert to version" not in page.text
    tried = viewer.post(
        f"/dashboard/w/{account.workspace}/templates/card/revert", data={"version": "1", "csrf": csrf(page)}
    )
    assert tried.status_code == 403
    assert "Open in the editor" not in viewer.get(f"/dashboard/w/{account.workspace}/templates").text


def test_a_version_out_of_range_or_not_a_number_is_refused_by_its_fields_name(live):
    account = live.account()
    live.add_template(account, text_template("card"))
    designer = signed_in(live, member(live, account, "designer"))
    at = f"/dashboard/w/{account.workspace}/templates/card"
    huge = "9" * 5000
    for asked in ("9223372036854775808", "2147483648", huge, "abc", "0", "-1", "1.5", "\u0661"):
        shown = repr(asked[:40])
        thumbnail = designer.get(f"{at}/thumbnail.png", params={"v": asked})
        assert thumbnail.status_code == 400, (asked[:40], thumbnail.text)
        assert thumbnail.text == f"no thumbnail: v: must be a version number, 1 or more (got {shown})"
        page = designer.get(at)
        reverted = designer.post(f"{at}/revert", data={"version": asked, "csrf": csrf(page)})
        assert reverted.status_code == 400, (asked[:40], reverted.text[:300])
        message = re.search(r'<p class="message" role="alert">(.*?)</p>', reverted.text).group(1)
        assert html.unescape(message) == f"version: must be a version number, 1 or more (got {shown})"
    page = designer.get(at, params={"reverted": huge})
    assert page.status_code == 200 and huge[:100] not in page.text
    assert designer.get(f"{at}/thumbnail.png", params={"v": "1"}).status_code == 200


def test_the_editor_is_handed_a_short_lived_key_that_ends_with_the_session(live):
    account = live.account()
    designer = signed_in(live, member(live, account, "designer"))
    asked = f"/dashboard/w/{account.workspace}/p/{account.project}/editor-key"
    assert designer.post(asked).status_code == 403  # without the page's header: another site's form
    page = {"X-Templatekit-Page": "editor"}
    handed = designer.post(asked, headers=page).json()
    assert handed["key"].startswith("tk_live_") and 3000 < handed["expiresAt"] - time.time() <= 7200
    assert designer.post(asked, headers=page).json()["key"] == handed["key"]  # the same, while it lasts
    preview = {"template": text_template()}
    bearer = {"Authorization": f"Bearer {handed['key']}"}
    assert httpx.post(f"{live.api}/templates/preview", json=preview, headers=bearer, timeout=60).status_code == 200

    # an owner may revoke it, not rotate it into a key that never ends
    owner = signed_in(live, member(live, account, "owner"))
    keys_at = f"/dashboard/w/{account.workspace}/p/{account.project}/keys"
    listing = owner.get(keys_at)
    key_id = next(row["id"] for row in accounts.keys_of(live.db, live.sealer, account.project) if row["expires_at"])
    assert f"/keys/{key_id}/revoke" in listing.text and f"/keys/{key_id}/rotate" not in listing.text
    rotated = owner.post(f"{keys_at}/{key_id}/rotate", data={"csrf": csrf(listing)})
    assert rotated.status_code == 400 and "ends by itself" in rotated.text
    left = [row for row in accounts.keys_of(live.db, live.sealer, account.project) if not row["revoked_at"]]
    assert all(row["expires_at"] for row in left if row["id"] != account.key_id)  # no key made that never ends
    assert httpx.post(f"{live.api}/templates/preview", json=preview, headers=bearer, timeout=60).status_code == 200

    viewer = signed_in(live, member(live, account, "viewer"))
    assert viewer.post(asked, headers=page).status_code == 403
    stranger = httpx.Client(base_url=live.root)
    refused = stranger.post(asked, headers=page)
    assert refused.status_code == 401 and refused.json()["error"] == "sign in to the dashboard first"

    sign_out = designer.get(f"/dashboard/w/{account.workspace}/")
    designer.post("/dashboard/sign-out", data={"csrf": csrf(sign_out)})
    assert httpx.post(f"{live.api}/templates/preview", json=preview, headers=bearer).status_code == 401
    ended = [
        entry
        for entry in audit.entries(live.db, account.workspace)
        if entry["action"] == "key revoked" and entry["subject"].startswith(key_id)
    ]
    assert [(entry["actor"], entry["detail"]) for entry in ended] == [
        ("the dashboard", f"project {account.project}: its session ended")
    ]


def invitation_link(browser: httpx.Client, workspace: str, role: str, email: str = "") -> str:
    page = browser.get(f"/dashboard/w/{workspace}/members")
    made = browser.post(
        f"/dashboard/w/{workspace}/members/invite", data={"csrf": csrf(page), "role": role, "email": email}
    )
    assert made.status_code == 303, made.text
    shown = browser.get(made.headers["location"]).text
    return re.search(r'<code id="invitation-link">(http://\S+)</code>', shown).group(1)


def test_an_invited_person_makes_an_account_and_joins_once(live):
    account = live.account()
    owner = signed_in(live, member(live, account, "owner"))
    link = invitation_link(owner, account.workspace, "designer")
    assert link not in owner.get(f"/dashboard/w/{account.workspace}/members").text  # shown once

    newcomer = httpx.Client(follow_redirects=False)
    page = newcomer.get(link)
    assert page.status_code == 200 and "invites you to join as <strong>designer</strong>" in page.text
    email = f"new-{account.workspace}@example.com"
    fields = {"email": email, "password": PASSWORD, "again": PASSWORD}
    assert newcomer.post(link, data=fields).status_code == 403  # no CSRF token
    differ = newcomer.post(link, data={**fields, "again": "something else", "csrf": csrf(page)})
    assert differ.status_code == 400 and "the two passwords differ" in differ.text
    joined = newcomer.post(link, data={**fields, "csrf": csrf(page)})
    assert joined.status_code == 303 and joined.headers["location"].endswith(f"/dashboard/w/{account.workspace}/")
    projects = newcomer.get(joined.headers["location"])
    assert f"<bdi>{email}</bdi> · designer" in projects.text
    assert httpx.get(link).status_code == 410  # used: it works once
    members = owner.get(f"/dashboard/w/{account.workspace}/members").text
    assert email in members and "Invitations not used yet" not in members


def test_a_member_who_opens_an_invitation_keeps_their_role_and_the_link_stays(live):
    account = live.account()
    owner = signed_in(live, member(live, account, "owner"))
    admin = signed_in(live, member(live, account, "admin"))
    link = invitation_link(owner, account.workspace, "viewer")
    told = (
        "you are already a member of \u2068test\u2069 as admin: the invitation is left for the person it was made for"
    )
    page = admin.get(link)  # told on the link's page, with no button to join
    assert page.status_code == 200 and ">Join</button>" not in page.text
    assert re.findall(r'<p class="message" role="alert">([^<]*)</p>', page.text) == [told]
    refused = admin.post(link, data={"csrf": csrf(page)})  # posted anyway: refused in the same words
    assert refused.status_code == 400
    assert re.findall(r'<p class="message" role="alert">([^<]*)</p>', refused.text) == [told]
    roles = {row["email"]: row["role"] for row in people.members(live.db, account.workspace)}
    assert roles[f"admin-{account.workspace}@example.com"] == "admin"
    newcomer = httpx.Client(follow_redirects=False)
    form = newcomer.get(link)
    assert form.status_code == 200  # the link still works, for the one it was made for
    email = f"late-{account.workspace}@example.com"
    fields = {"email": email, "password": PASSWORD, "again": PASSWORD, "csrf": csrf(form)}
    assert newcomer.post(link, data=fields).status_code == 303
    assert {row["email"]: row["role"] for row in people.members(live.db, account.workspace)}[email] == "viewer"


_RECORD_PASSWORD_WORK = """
import asyncio
import os

import argon2


def _recorded(method):
    def run(self, *args, **kwargs):
        try:
            asyncio.get_running_loop()
            where = "event loop"
        except RuntimeError:
            where = "thread"
        with open(os.environ["TEMPLATEKIT_TEST_PASSWORD_LOG"], "a") as log:
            log.write(f"{method.__name__} {where}\\n")
        return method(self, *args, **kwargs)

    return run


argon2.PasswordHasher.hash = _recorded(argon2.PasswordHasher.hash)
argon2.PasswordHasher.verify = _recorded(argon2.PasswordHasher.verify)
"""


def test_passwords_are_hashed_and_checked_off_the_event_loop(tmp_path):
    (tmp_path / "sitecustomize.py").write_text(_RECORD_PASSWORD_WORK)
    log = tmp_path / "password-work.log"
    path = os.pathsep.join(filter(None, [str(tmp_path), os.environ.get("PYTHONPATH", "")]))
    server = LiveServer(
        tmp_path / "data",
        {"TEMPLATEKIT_WORKERS": "1", "PYTHONPATH": path, "TEMPLATEKIT_TEST_PASSWORD_LOG": str(log)},
    )
    server.data_dir.mkdir(parents=True)
    server.start()
    try:
        account = server.account()
        owner_email = member(server, account, "owner")
        browser = httpx.Client(base_url=server.root, follow_redirects=False, timeout=30)
        token = csrf(browser.get("/dashboard/sign-in"))
        for who, password, status in ((owner_email, "not the one", 401), ("nobody@example.com", PASSWORD, 401)):
            answer = browser.post("/dashboard/sign-in", data={"email": who, "password": password, "csrf": token})
            assert answer.status_code == status, answer.text
        link = invitation_link(signed_in(server, owner_email), account.workspace, "viewer")
        newcomer = httpx.Client(follow_redirects=False, timeout=30)
        fields = {"email": f"new-{account.workspace}@example.com", "password": PASSWORD, "again": PASSWORD}
        joined = newcomer.post(link, data={**fields, "csrf": csrf(newcomer.get(link))})
        assert joined.status_code == 303, joined.text
    finally:
        server.stop()
    work = log.read_text().splitlines()
    # two wrong sign-ins, one right, the unknown email's stand-in hash, the newcomer's hash
    assert work.count("verify thread") == 3 and work.count("hash thread") == 2, work
    assert not [line for line in work if line.endswith("event loop")], work


def test_a_link_tells_which_emails_have_an_account_only_as_often_as_sign_in_would(live):
    account = live.account()
    owner_email = member(live, account, "owner")
    link = invitation_link(signed_in(live, owner_email), account.workspace, "viewer")
    stranger = httpx.Client(follow_redirects=False)
    page = stranger.get(link)
    fields = {"password": PASSWORD, "again": PASSWORD, "csrf": csrf(page)}
    try:
        for _ in range(people.THROTTLE_FAILURES):
            known = stranger.post(link, data={**fields, "email": owner_email})
            assert known.status_code == 400 and "has an account: sign in first" in known.text
        for email in (owner_email, f"nobody-{account.workspace}@example.com"):
            refused = stranger.post(link, data={**fields, "email": email})
            assert refused.status_code == 429 and "too many attempts" in refused.text
    finally:  # the test server's address is every test's: its sign-ins go on
        with live.db.write() as connection:
            connection.execute(sign_in_failures.delete())


def test_the_last_owner_stays_and_a_removed_member_is_out_at_once(live):
    account = live.account()
    owner_email = member(live, account, "owner")
    owner = signed_in(live, owner_email)
    designer_email = member(live, account, "designer")
    designer = signed_in(live, designer_email)
    page = owner.get(f"/dashboard/w/{account.workspace}/members")
    owner_id = people.user_id_of(live.db, owner_email)
    alone = owner.post(
        f"/dashboard/w/{account.workspace}/members/{owner_id}/role", data={"csrf": csrf(page), "role": "admin"}
    )
    assert alone.status_code == 409 and "keeps at least one owner" in alone.text
    designer_id = people.user_id_of(live.db, designer_email)
    made_viewer = owner.post(
        f"/dashboard/w/{account.workspace}/members/{designer_id}/role", data={"csrf": csrf(page), "role": "viewer"}
    )
    assert made_viewer.status_code == 303
    assert "· viewer" in designer.get(f"/dashboard/w/{account.workspace}/").text  # the new role at once
    removed = owner.post(f"/dashboard/w/{account.workspace}/members/{designer_id}/remove", data={"csrf": csrf(page)})
    assert removed.status_code == 303
    assert designer.get(f"/dashboard/w/{account.workspace}/").status_code == 404  # as any other's
    assert designer_email not in owner.get(f"/dashboard/w/{account.workspace}/members").text


def test_the_audit_log_says_who_did_what(live):
    account = live.account()
    admin_email = member(live, account, "admin")
    admin = signed_in(live, admin_email)
    page = admin.get(f"/dashboard/w/{account.workspace}/")
    admin.post(f"/dashboard/w/{account.workspace}/projects", data={"name": "Audited", "csrf": csrf(page)})
    keys = f"/dashboard/w/{account.workspace}/p/{account.project}/keys"
    created = admin.post(keys, data={"csrf": csrf(page), "scopes": "render"})
    admin.get(created.headers["location"])
    httpx.post(f"{live.api}/templates", json=text_template("audited"), headers=account.bearer)
    _wrong_password(live, admin_email)  # one: the shared server throttles 127.0.0.1 after ten
    log = admin.get(f"/dashboard/w/{account.workspace}/audit")
    assert log.status_code == 200
    rows = re.findall(r"<tr><td>[^<]+</td><td>([^<]+)</td><td>([^<]+)</td><td>([^<]*)</td>", log.text)
    seen = {(who, what) for who, what, _ in rows}
    assert (admin_email, "project created") in seen
    assert (admin_email, "key created") in seen
    assert (f"key {account.key_id}", "template saved") in seen
    assert ("127.0.0.1", "sign-in failed") in seen
    designer = signed_in(live, member(live, account, "designer"))
    assert designer.get(f"/dashboard/w/{account.workspace}/audit").status_code == 403


def _wrong_password(live: LiveServer, email: str) -> None:
    browser = httpx.Client(base_url=live.root)
    token = csrf(browser.get("/dashboard/sign-in"))
    assert (
        browser.post(
            "/dashboard/sign-in", data={"email": email, "password": "not it at all", "csrf": token}
        ).status_code
        == 401
    )


class Inbox:
    """What a real SMTP server (aiosmtpd) received."""

    def __init__(self) -> None:
        self.messages: list[email.message.EmailMessage] = []

    async def handle_DATA(self, server, session, envelope) -> str:  # noqa: N802 (aiosmtpd's name)
        self.messages.append(email.message_from_bytes(envelope.content, policy=email.policy.default))  # type: ignore[arg-type]
        return "250 OK"


@pytest.fixture
def inbox() -> Iterator[tuple[Inbox, int]]:
    from aiosmtpd.controller import Controller

    received = Inbox()
    controller = Controller(received, hostname="127.0.0.1", port=free_port())
    controller.start()
    yield received, controller.port
    controller.stop()


def test_an_invitation_is_mailed_and_works_only_for_its_email(tmp_path, inbox):
    received, port = inbox
    server = LiveServer(
        tmp_path / "data",
        {
            "TEMPLATEKIT_WORKERS": "1",
            "TEMPLATEKIT_SMTP_URL": f"smtp://127.0.0.1:{port}",
            "TEMPLATEKIT_SMTP_FROM": "team@example.com",
        },
    )
    public = f"http://localhost:{server.port}"  # as people reach it: the links say so
    server.env["TEMPLATEKIT_PUBLIC_URL"] = public
    server.data_dir.mkdir(parents=True)
    server.start()
    try:
        account = server.account()
        owner = signed_in(server, member(server, account, "owner"))
        shown = invitation_link(owner, account.workspace, "viewer", "bo@example.com")
        assert shown.startswith(f"{public}/dashboard/invite/")
        (message,) = received.messages
        assert message["To"] == "bo@example.com" and message["From"] == "team@example.com"
        text = message.get_content()
        assert "invites you to join the workspace test as viewer" in text
        assert shown in text  # the same link as the page shows
        shown = server.root + shown.removeprefix(public)  # where this test's browsers are signed in

        # someone else signed in cannot take it
        page = owner.get(shown)
        refused = owner.post(shown, data={"csrf": csrf(page)})
        assert refused.status_code == 400 and "this invitation is for bo@example.com" in refused.text
        # opened signed out, it makes Bo's account, whatever email the form is sent with
        newcomer = httpx.Client(follow_redirects=False)
        page = newcomer.get(shown)
        assert 'value="bo@example.com" readonly' in page.text
        fields = {"email": "eve@example.com", "password": PASSWORD, "again": PASSWORD, "csrf": csrf(page)}
        assert newcomer.post(shown, data=fields).status_code == 303
        listed = owner.get(f"/dashboard/w/{account.workspace}/members").text
        assert "bo@example.com" in listed and "eve@example.com" not in listed
    finally:
        server.stop()


def test_usage_shows_the_renders_just_made_per_project_with_a_chart(live):
    account = live.account()
    live.add_template(account, text_template("card"))
    other = live.key_for(accounts.create_project(live.db, account.workspace, "Second"))
    for caller, times in ((account, 2), (other, 3)):
        for _ in range(times):
            answer = httpx.post(
                f"{live.api}/templates/createImage", json={"templateId": "card"}, headers=caller.bearer, timeout=60
            )
            assert answer.status_code == 200
    viewer = signed_in(live, member(live, account, "viewer"))
    page = viewer.get(f"/dashboard/w/{account.workspace}/usage")
    assert re.search(r'<strong id="used-today">5</strong> of 5,000', page.text)
    assert re.search(r'<strong id="storage-used">0\.0 MB</strong> of 5,000 MB', page.text)  # one small template
    totals = dict(
        re.findall(r'<tr data-project="(prj_\w+)"><td>[^<]+</td>(?:<td>\d*</td>)*?<td>(\d+)</td></tr>', page.text)
    )
    assert totals == {account.project: "2", other.project: "3"}
    chart = viewer.get(f"/dashboard/w/{account.workspace}/usage/chart.png")
    assert chart.headers["content-type"] == "image/png" and decode(chart.content).size == (1000, 340)
    assert live.used(account) == 5  # the chart is not billed


def test_webhook_endpoints_deliveries_sent_again_and_hooks(live):
    account = live.account()
    live.add_template(account, text_template("card"))
    admin = signed_in(live, member(live, account, "admin"))
    base = f"/dashboard/w/{account.workspace}/p/{account.project}"
    page = admin.get(f"{base}/webhooks")
    with Receiver() as receiver:
        added = admin.post(f"{base}/webhooks", data={"csrf": csrf(page), "url": receiver.url, "events": "render.done"})
        shown = admin.get(added.headers["location"]).text
        secret = re.search(r'<code id="new-secret">(whsec_\S+)</code>', shown).group(1)
        assert secret not in admin.get(f"{base}/webhooks").text  # once
        endpoint = re.search(r'data-endpoint="(whe_\w+)"', shown).group(1)
        other = live.account()  # another workspace's endpoint is not found through this project
        theirs = webhooks.add_endpoint(
            live.db, live.sealer, AllowList.parse(["127.0.0.1"]), other.project, receiver.url, None
        )
        assert admin.post(f"{base}/webhooks/{theirs['id']}/delete", data={"csrf": csrf(page)}).status_code == 404
        assert [e["id"] for e in webhooks.endpoints(live.db, other.project)] == [theirs["id"]]
        assert admin.get(f"/dashboard/w/{other.workspace}/p/{other.project}/webhooks").status_code == 404
        assert endpoint.startswith("whe_")

        body = {"templateId": "card", "modifications": {"title": "Stored"}}
        stored = httpx.post(f"{live.api}/templates/createStoredImage", json=body, headers=account.bearer, timeout=60)
        assert stored.status_code == 200
        (first,) = receiver.wait_for(1)
        Webhook(secret).verify(first[1], first[0])  # signed with the secret shown
        deadline = time.monotonic() + 20
        while "delivered" not in (log := admin.get(f"{base}/webhooks").text):
            assert time.monotonic() < deadline
            time.sleep(0.2)
        delivery = re.search(r'data-delivery="(\w+)"', log).group(1)
        again = admin.post(f"{base}/deliveries/{delivery}/again", data={"csrf": csrf(page)})
        assert again.status_code == 303
        second = receiver.wait_for(2)[1]
        assert second[0]["webhook-id"] == first[0]["webhook-id"] and second[1] == first[1]  # the same message

    page = admin.get(f"{base}/hooks")
    made = admin.post(f"{base}/hooks", data={"csrf": csrf(page), "template": "card", "output": "png"})
    url = re.search(r'<code id="hook-url">(http://\S+)</code>', admin.get(made.headers["location"]).text).group(1)
    assert url.startswith(f"{live.api}/hooks/")
    assert httpx.post(url, json={"title": "From a hook"}, timeout=60).status_code == 200
    listed = admin.get(f"{base}/hooks").text
    hook = re.search(r'data-hook="(hook_\w+)"', listed).group(1)
    assert re.search(rf'data-hook="{hook}">\s*<td><code>{hook}</code></td><td>card</td>', listed)  # its template
    rotated = admin.post(f"{base}/hooks/{hook}/rotate", data={"csrf": csrf(page)})
    new_url = re.search(r'<code id="hook-url">(http://\S+)</code>', admin.get(rotated.headers["location"]).text)
    assert new_url and new_url.group(1) != url
    assert httpx.post(url, json={}, timeout=60).status_code == 404  # the old URL stops at once
    foreign = admin.post(f"{base}/hooks", data={"csrf": csrf(page), "template": "not-ours", "output": "png"})
    assert foreign.status_code == 400 and "not-ours" in foreign.text
    for output in ("mp4", "webm", "gif"):
        video = admin.post(f"{base}/hooks", data={"csrf": csrf(page), "template": "card", "output": output})
        assert video.status_code == 400, video.text[:300]
        message = re.search(r'<p class="message" role="alert">(.*?)</p>', video.text).group(1)
        assert html.unescape(message) == (
            f"output '{output}': template card is not a video template (it has no video field); "
            "its hooks give one of png, jpeg, webp, pdf"
        )
    assert len(re.findall(r'data-hook="hook_\w+"', admin.get(f"{base}/hooks").text)) == 1  # none made
    logged = {(entry["actor"], entry["action"]) for entry in audit.entries(live.db, account.workspace)}
    assert {"webhook endpoint added", "hook made", "hook URL changed"} <= {a for who, a in logged if "admin-" in who}


def test_assets_are_listed_with_their_templates_and_designers_upload_and_delete(live):
    account = live.account()
    designer = signed_in(live, member(live, account, "designer"))
    page = designer.get(f"/dashboard/w/{account.workspace}/assets")
    picture = io.BytesIO()
    Image.new("RGB", (40, 30), (200, 40, 40)).save(picture, "PNG")
    made = designer.post(
        f"/dashboard/w/{account.workspace}/assets",
        data={"csrf": csrf(page)},
        files={"file": ("red.png", picture.getvalue(), "image/png")},
    )
    assert made.status_code == 303, made.text
    listed = designer.get(made.headers["location"]).text
    asset = re.search(r'data-asset="(ast_\w+)"', listed).group(1)
    shown = designer.get(f"/dashboard/w/{account.workspace}/assets/{asset}")
    assert decode(shown.content).size == (40, 30)
    template = text_template("uses-it")
    template["layers"].append(
        {"type": "image", "name": "p", "x": 0, "y": 0, "width": 40, "height": 30, "src": f"asset:{asset}"}
    )
    live.add_template(account, template)
    listed = designer.get(f"/dashboard/w/{account.workspace}/assets").text
    assert ">uses-it</a>" in listed
    kept = designer.post(f"/dashboard/w/{account.workspace}/assets/{asset}/delete", data={"csrf": csrf(page)})
    assert kept.status_code == 409 and "used by templates uses-it" in kept.text
    forged = designer.post(
        f"/dashboard/w/{account.workspace}/assets", files={"file": ("x.png", picture.getvalue(), "image/png")}
    )
    assert forged.status_code == 403  # no CSRF token in the form
    viewer = signed_in(live, member(live, account, "viewer"))
    seen = viewer.get(f"/dashboard/w/{account.workspace}/assets").text
    assert asset in seen and 'type="file"' not in seen and "Delete" not in seen  # read only


def test_an_upload_over_the_limit_or_not_a_form_is_a_page_naming_why(live):
    account = live.account()
    designer = signed_in(live, member(live, account, "designer"))
    base = f"/dashboard/w/{account.workspace}/assets"
    token = csrf(designer.get(base))
    huge = designer.post(
        base, data={"csrf": token}, files={"file": ("big.png", b"\0" * (21 * 1024 * 1024), "image/png")}
    )
    assert huge.status_code == 413 and huge.headers["content-type"].startswith("text/html"), huge.text[:300]
    said = re.findall(r'<p class="message" role="alert">([^<]*)</p>', huge.text)
    assert said == ["file: at most 20 MB"]  # said once, on the assets page, to choose another
    assert 'type="file"' in huge.text
    plain = designer.post(base, content=b"csrf=" + token.encode(), headers={"content-type": "text/plain"})
    assert plain.status_code == 400 and plain.headers["content-type"].startswith("text/html"), plain.text[:300]
    said = re.findall(r'<p class="message" role="alert">([^<]*)</p>', plain.text)
    assert len(said) == 1 and said[0].startswith("request body: not a multipart form"), said
    assert 'type="file"' in plain.text


def test_cookies_are_secure_when_people_reach_the_server_over_https(tmp_path):
    """Behind a proxy that does not say the request came over HTTPS, the public URL does."""
    server = LiveServer(tmp_path / "data", {"TEMPLATEKIT_WORKERS": "1", "TEMPLATEKIT_PUBLIC_URL": "https://x.test"})
    server.data_dir.mkdir(parents=True)
    server.start()
    try:
        form = httpx.get(f"{server.root}/dashboard/sign-in")
        cookies = form.headers.get_list("set-cookie")
        assert form.status_code == 200 and cookies and all("; secure" in c.lower() for c in cookies), cookies
    finally:
        server.stop()


def test_names_people_give_keep_their_direction_to_themselves(live):
    """A right-to-left override in a workspace's or project's name cannot turn the text
    after it: names in sentences and headings are isolated, and escaped."""
    account = live.account()
    flipping = "\u202e<b>evil</b>"
    with live.db.write() as connection:
        connection.execute(workspaces.update().where(workspaces.c.id == account.workspace).values(name=flipping))
    owner = signed_in(live, member(live, account, "owner"))
    page = owner.get(f"/dashboard/w/{account.workspace}/").text
    assert f"<h2>Projects of <bdi>{html.escape(flipping)}</bdi> <small" in page
    assert "<b>evil</b>" not in page
    members = owner.get(f"/dashboard/w/{account.workspace}/members").text
    assert f'<td><bdi>owner-{account.workspace}@example.com</bdi> <small class="muted">(you)</small>' in members


def test_an_email_too_long_to_be_one_is_refused_at_sign_in_and_not_kept(live):
    browser = httpx.Client(base_url=live.root, follow_redirects=False, timeout=30)
    form = browser.get("/dashboard/sign-in")
    huge = "a" * 500_000 + "@example.com"
    answer = browser.post("/dashboard/sign-in", data={"email": huge, "password": PASSWORD, "csrf": csrf(form)})
    assert answer.status_code == 400 and "email: at most 320 characters (got 500,012)" in answer.text
    assert len(answer.content) < 20_000  # not shown back
    over = "a" * 309 + "@example.com"  # 321: one more than an address can hold
    answer = browser.post("/dashboard/sign-in", data={"email": over, "password": PASSWORD, "csrf": csrf(form)})
    assert answer.status_code == 400 and "email: at most 320 characters (got 321)" in answer.text
    with live.db.read() as connection:
        subjects = connection.execute(select(sign_in_failures.c.subject)).scalars().all()
    assert not any(subject.startswith("email:aaaa") for subject in subjects)  # not counted as a failure


def test_an_email_too_long_to_be_one_is_refused_by_the_invitation_forms_and_not_shown_back(live):
    account = live.account()
    owner = signed_in(live, member(live, account, "owner"))
    over = "a" * 309 + "@example.com"  # 321 characters
    page = owner.get(f"/dashboard/w/{account.workspace}/members")
    invited = owner.post(
        f"/dashboard/w/{account.workspace}/members/invite", data={"csrf": csrf(page), "role": "viewer", "email": over}
    )
    assert invited.status_code == 400 and "email: at most 320 characters (got 321)" in invited.text
    assert over not in invited.text
    link = invitation_link(owner, account.workspace, "viewer")
    newcomer = httpx.Client(follow_redirects=False, timeout=30)
    form = newcomer.get(link)
    huge = "a" * 500_000 + "@example.com"
    fields = {"email": huge, "password": PASSWORD, "again": PASSWORD, "csrf": csrf(form)}
    refused = newcomer.post(link, data=fields)
    assert refused.status_code == 400 and "email: at most 320 characters (got 500,012)" in refused.text
    assert len(refused.content) < 20_000  # not shown back
    assert newcomer.get(link).status_code == 200  # the link stays
