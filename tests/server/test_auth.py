"""API keys: where a client may put them, and what an absent, unknown or revoked key gets."""

from __future__ import annotations

import pytest

from templatekit_server import accounts
from tests.conftest import decode
from tests.server.conftest import text_template, video_template

pytestmark = pytest.mark.slow


def create_image(client, live, *, params=None, body=None, headers=None):
    return client.post(f"{live.api}/templates/createImage", params=params, json=body, headers=headers)


@pytest.fixture
def account(live):
    account = live.account()
    live.add_template(account, text_template())
    return account


@pytest.mark.parametrize("where", ["query", "body", "bearer"])
def test_the_key_is_taken_from_the_query_the_body_or_a_bearer_header(client, live, account, where):
    body = {"templateId": "card"}
    params = headers = None
    if where == "query":
        params = {"apiKey": account.key}
    elif where == "body":
        body["apiKey"] = account.key
    else:
        headers = account.bearer
    answer = create_image(client, live, params=params, body=body, headers=headers)
    assert answer.status_code == 200, answer.text
    assert decode(answer.content).size == (240, 120)


def test_keys_sent_in_several_places_must_agree(client, live, account):
    other = live.account()
    same = create_image(
        client, live, params={"apiKey": account.key}, body={"templateId": "card"}, headers=account.bearer
    )
    assert same.status_code == 200
    differ = create_image(client, live, body={"templateId": "card", "apiKey": other.key}, headers=account.bearer)
    assert differ.status_code == 400
    assert differ.json()["error"]["code"] == "BAD_REQUEST"
    assert "differ" in differ.json()["error"]["message"]
    twice = [("Authorization", f"Bearer {account.key}"), ("Authorization", f"Bearer {other.key}")]
    two_headers = create_image(client, live, body={"templateId": "card"}, headers=twice)
    assert two_headers.status_code == 400 and "differ" in two_headers.json()["error"]["message"]
    agreeing = [("Authorization", f"Bearer {account.key}")] * 2
    assert create_image(client, live, body={"templateId": "card"}, headers=agreeing).status_code == 200


def test_a_missing_key_is_unauthorized_everywhere(client, live, account):
    for method, path in [
        ("POST", "/templates/createImage"),
        ("POST", "/templates/createPdf"),
        ("POST", "/templates/renderVideo"),
        ("GET", "/templates"),
        ("GET", "/templates/card"),
        ("GET", "/info"),
    ]:
        answer = client.request(method, f"{live.api}{path}", json={"templateId": "card"})
        assert answer.status_code == 401, path
        error = answer.json()["error"]
        assert error["code"] == "UNAUTHORIZED"
        assert error["requestId"] == answer.headers["X-Request-Id"]
        assert error["docs"].endswith("/UNAUTHORIZED")


def test_an_unknown_key_is_unauthorized_except_on_render_video(client, live, account):
    wrong = {"Authorization": "Bearer tk_live_not-a-key"}
    image = create_image(client, live, body={"templateId": "card"}, headers=wrong)
    assert (image.status_code, image.json()["error"]["code"]) == (401, "UNAUTHORIZED")
    live.add_template(account, video_template())
    video = client.post(f"{live.api}/templates/renderVideo", json={"templateId": "clip"}, headers=wrong)
    assert (video.status_code, video.json()["error"]["code"]) == (400, "BAD_REQUEST")


def test_a_revoked_key_stops_working_and_other_keys_go_on(client, live, account):
    second = live.key_for(account.project)
    accounts.revoke_key(live.db, account.key_id)
    revoked = create_image(client, live, body={"templateId": "card"}, headers=account.bearer)
    assert revoked.status_code == 401
    assert create_image(client, live, body={"templateId": "card"}, headers=second.bearer).status_code == 200


def test_keys_are_stored_hashed_and_sealed_never_in_clear(live, account):
    files = sorted(live.data_dir.glob("templatekit.db*"))  # the database and its write-ahead log
    raw = b"".join(path.read_bytes() for path in files)
    assert accounts.sha256_hex(account.key).encode() in raw  # the look-up hash is there, so the scan sees the row
    assert account.key.encode() not in raw


def test_keys_never_reach_the_log(client, live, account):
    create_image(client, live, params={"apiKey": account.key}, body={"templateId": "card"})
    create_image(client, live, params={"apiKey": account.key + "x"}, body={"templateId": "card"})
    log = live.log()
    assert "/v1/templates/createImage 200" in log
    assert account.key not in log
