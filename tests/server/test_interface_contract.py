"""The /v1 interface as its contract states it, over real HTTP on a live server: keys that
disagree, rate-limit headers on refusals, an invalid template's problems, and repeats of
template writes under one Idempotency-Key."""

from __future__ import annotations

import pytest

from templatekit_server import accounts
from tests.server.conftest import Account, text_template

pytestmark = pytest.mark.slow

NOT_A_KEY = "tk_live_" + "x" * 43


@pytest.fixture
def account(live):
    account = live.account()
    live.add_template(account, text_template())
    return account


@pytest.fixture
def render_only(live, account):
    key_id, key = accounts.create_key(live.db, live.sealer, account.project)  # scopes: render
    return Account(account.workspace, account.project, key_id, key)


@pytest.mark.parametrize("where", ["bearer", "query"])
def test_an_unknown_key_beside_a_different_body_key_is_a_bad_request(client, live, account, where):
    headers = {"Authorization": f"Bearer {NOT_A_KEY}"} if where == "bearer" else None
    params = {"apiKey": NOT_A_KEY} if where == "query" else None
    answer = client.post(
        f"{live.api}/templates/createImage",
        headers=headers,
        params=params,
        json={"templateId": "card", "apiKey": account.key, "thumbnail": True},
    )
    assert answer.status_code == 400, answer.text
    assert answer.json()["error"]["code"] == "BAD_REQUEST"
    assert "differ" in answer.json()["error"]["message"]


def test_an_unknown_key_alone_is_still_unauthorized(client, live, account):
    answer = client.post(
        f"{live.api}/templates/createImage",
        headers={"Authorization": f"Bearer {NOT_A_KEY}"},
        json={"templateId": "card", "thumbnail": True},
    )
    assert answer.status_code == 401 and answer.json()["error"]["code"] == "UNAUTHORIZED"


def test_a_key_without_the_scope_is_answered_with_its_rate_limit_headers(client, live, render_only):
    answer = client.post(f"{live.api}/templates", headers=render_only.bearer, json=text_template("other"))
    assert answer.status_code == 403, answer.text
    assert answer.json()["error"]["code"] == "FORBIDDEN"
    assert "X-RateLimit-Limit" in answer.headers and "X-RateLimit-Remaining" in answer.headers


def test_a_body_over_the_limit_with_a_known_key_is_answered_with_its_rate_limit_headers(client, live, account):
    body = b'{"templateId": "card", "pad": "' + b"a" * 5_000_100 + b'"}'
    answer = client.post(
        f"{live.api}/templates/createImage",
        headers={**account.bearer, "Content-Type": "application/json"},
        content=body,
    )
    assert answer.status_code == 400 and answer.json()["error"]["code"] == "BAD_REQUEST"
    assert "X-RateLimit-Limit" in answer.headers and "X-RateLimit-Remaining" in answer.headers


# the editor shows an error's problems after a refused save
@pytest.mark.parametrize("method", ["POST", "PUT"])
def test_an_invalid_template_upload_lists_its_problems(client, live, account, method):
    bad = text_template("card", width=0, height=0)
    url = f"{live.api}/templates" + ("/card" if method == "PUT" else "?overwrite=true")
    answer = client.request(method, url, headers=account.bearer, json=bad)
    assert answer.status_code == 400, answer.text
    problems = answer.json()["error"].get("problems")
    assert problems is not None, answer.text
    assert any(p.startswith("width: ") for p in problems) and any(p.startswith("height: ") for p in problems)


def test_a_repeated_template_upload_with_an_idempotency_key_answers_the_first_result(client, live, account):
    headers = {**account.bearer, "Idempotency-Key": "upload-once"}
    first = client.post(f"{live.api}/templates", headers=headers, json=text_template("once"))
    again = client.post(f"{live.api}/templates", headers=headers, json=text_template("once"))
    assert first.status_code == 201, first.text
    assert again.status_code == 201, again.text
    assert again.json() == first.json()


def test_a_repeated_template_update_with_an_idempotency_key_stores_one_version(client, live, account):
    headers = {**account.bearer, "Idempotency-Key": "update-once"}
    body = text_template("card", name="Renamed")
    first = client.put(f"{live.api}/templates/card", headers=headers, json=body)
    again = client.put(f"{live.api}/templates/card", headers=headers, json=body)
    assert first.status_code == again.status_code == 200, again.text
    assert again.json() == first.json()
    versions = client.get(f"{live.api}/templates/card/versions", headers=account.bearer).json()
    assert [v["version"] for v in versions] == [2, 1]
