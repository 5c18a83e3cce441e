"""A form's role is checked when its body has arrived, over real HTTP on a live server: a
member removed or given a lower role while a request of theirs is still being sent (its
headers in, its body not yet) is refused when the body arrives, as their very next
request would be. Otherwise a demoted owner who held a request open makes themselves
owner again, and a removed admin revokes the workspace's keys after their removal."""

from __future__ import annotations

import socket
import time
from urllib.parse import urlencode, urlsplit

import httpx
import pytest

from templatekit_server import accounts, people
from tests.server.conftest import LiveServer
from tests.server.test_dashboard import csrf, member, signed_in

pytestmark = pytest.mark.slow


def held(live: LiveServer, browser: httpx.Client, path: str, data: dict[str, str]) -> tuple[socket.socket, bytes]:
    """A form posted with the browser's session whose headers are sent and whose body is
    not: (the connection, the body still to send)."""
    body = urlencode(data).encode()
    cookie = "; ".join(f"{name}={value}" for name, value in browser.cookies.items())
    root = urlsplit(live.root)
    connection = socket.create_connection((root.hostname, root.port), timeout=30)
    connection.sendall(
        (
            f"POST {path} HTTP/1.1\r\nHost: {root.netloc}\r\nCookie: {cookie}\r\n"
            f"Content-Type: application/x-www-form-urlencoded\r\nContent-Length: {len(body)}\r\n\r\n"
        ).encode()
    )
    time.sleep(1)  # the server has the headers and waits for the body
    return connection, body


def finished(connection: socket.socket, body: bytes) -> int:
    connection.sendall(body)
    status = int(connection.recv(65536).split(b" ", 2)[1])
    connection.close()
    return status


def test_an_owner_made_a_viewer_cannot_make_themselves_owner_again_with_a_form_held_open(live):
    account = live.account()
    ws = account.workspace
    first = signed_in(live, member(live, account, "owner", f"first-{ws}@example.com"))
    second_email = member(live, account, "owner", f"second-{ws}@example.com")
    second = signed_in(live, second_email)
    second_id = people.user_id_of(live.db, second_email)
    token = csrf(second.get(f"/dashboard/w/{ws}/members"))
    path = f"/dashboard/w/{ws}/members/{second_id}/role"
    connection, body = held(live, second, path, {"csrf": token, "role": "owner"})

    page = first.get(f"/dashboard/w/{ws}/members")
    lowered = first.post(f"/dashboard/w/{ws}/members/{second_id}/role", data={"csrf": csrf(page), "role": "viewer"})
    assert lowered.status_code == 303
    assert "· viewer" in second.get(f"/dashboard/w/{ws}/").text  # their next page: a viewer's

    assert finished(connection, body) == 403  # as any form of a viewer's
    assert people.role_in(live.db, second_id, ws) == "viewer"


def test_a_removed_admin_cannot_revoke_the_workspaces_keys_with_a_form_held_open(live):
    account = live.account()
    ws = account.workspace
    admin_email = member(live, account, "admin")
    admin = signed_in(live, admin_email)
    token = csrf(admin.get(f"/dashboard/w/{ws}/"))
    path = f"/dashboard/w/{ws}/p/{account.project}/keys/{account.key_id}/revoke"
    connection, body = held(live, admin, path, {"csrf": token})

    people.remove_member(live.db, ws, people.user_id_of(live.db, admin_email))
    assert admin.get(f"/dashboard/w/{ws}/").status_code == 404  # their next page: another workspace's

    assert finished(connection, body) == 404
    assert not next(k for k in accounts.keys_of(live.db, live.sealer, account.project) if k["id"] == account.key_id)[
        "revoked_at"
    ]
    assert httpx.get(f"{live.api}/templates", headers=account.bearer).status_code == 200
