"""Signed image URLs, signed here by an implementation of the rule written apart from the
server's (urllib's quote_plus, corrected where it differs from the WHATWG serialiser)."""

from __future__ import annotations

import hashlib
import hmac
import json
import time
from urllib.parse import quote, quote_plus

import pytest

from templatekit_server import accounts
from tests.conftest import decode
from tests.server.conftest import text_template

pytestmark = pytest.mark.slow


def whatwg(text: str) -> str:
    """URLSearchParams' encoding: quote_plus keeps ``~`` (WHATWG encodes it) and encodes
    ``*`` (WHATWG keeps it)."""
    return quote_plus(text, safe="*").replace("~", "%7E")


def sign(key: str, params: dict[str, str]) -> str:
    text = "&".join(f"{whatwg(name)}={whatwg(value)}" for name, value in sorted(params.items()))
    return hmac.new(key.encode(), text.encode(), hashlib.sha256).hexdigest()


def signed_query(key: str, **params: str) -> dict[str, str]:
    params = {"apiKeyHashed": hashlib.sha256(key.encode()).hexdigest(), **params}
    return {**params, "sign": sign(key, params)}


@pytest.fixture
def account(live):
    account = live.account()
    live.add_template(account, text_template())
    return account


def get(client, live, query, headers=None):
    return client.get(f"{live.api}/templates/signedurl", params=query, headers=headers)


def test_a_signed_url_renders_and_a_repeat_comes_from_the_cache(client, live, account):
    mods = json.dumps([{"name": "title", "text": "Signed ~ * é"}, {"name": "box", "fill": "#0000ff"}])
    query = signed_query(account.key, templateId="card", modifications=mods, format="png")
    first = get(client, live, query)
    assert first.status_code == 200, first.text
    assert first.headers["Cache-Control"] == "public, max-age=86400"
    assert decode(first.content).convert("RGB").getpixel((120, 105)) == (0, 0, 255)
    again = get(client, live, query)
    assert again.content == first.content and again.headers["ETag"] == first.headers["ETag"]
    assert live.used(account) == 1
    not_modified = get(client, live, query, {"If-None-Match": first.headers["ETag"]})
    assert not_modified.status_code == 304 and not_modified.content == b""


def test_any_encoding_and_order_of_the_same_values_verifies(client, live, account):
    query = signed_query(account.key, templateId="card", modifications='{"title": "a+b c~d"}')
    names = sorted(query, reverse=True)
    # %20 for spaces, lower-case escapes, '~' left bare: other spellings of the same values
    spelled = "&".join(f"{name}={quote(query[name], safe='~').lower()}" for name in names)
    answer = client.get(f"{live.api}/templates/signedurl?{spelled}")
    assert answer.status_code == 200, answer.text


def test_any_change_or_a_missing_signature_is_refused(client, live, account):
    query = signed_query(account.key, templateId="card", modifications='{"title": "Paid"}')
    for changed in [
        {**query, "modifications": '{"title": "Free"}'},
        {**query, "format": "jpeg"},
        {**query, "sign": query["sign"][:-1] + ("0" if query["sign"][-1] != "0" else "1")},
        {key: value for key, value in query.items() if key != "sign"},
        {**query, "apiKeyHashed": hashlib.sha256(b"tk_live_someone-else").hexdigest()},
    ]:
        answer = get(client, live, changed)
        assert (answer.status_code, answer.json()["error"]["code"]) == (400, "BAD_REQUEST")
    assert live.used(account) == 0


def test_forged_signatures_neither_use_up_nor_show_the_keys_rate_limit(client, live, account):
    """The key's hash is public in every URL it signs: forging with it costs the key nothing."""
    accounts.set_rate_limit(live.db, account.key_id, 3)
    forged = {"apiKeyHashed": hashlib.sha256(account.key.encode()).hexdigest(), "templateId": "card", "sign": "00"}
    for _ in range(5):
        answer = get(client, live, forged)
        assert answer.status_code == 400 and "does not match" in answer.json()["error"]["message"]
        assert not any(name.lower().startswith("x-ratelimit") for name in answer.headers)
    genuine = get(client, live, signed_query(account.key, templateId="card"))
    assert genuine.status_code == 200, genuine.text
    assert genuine.headers["X-RateLimit-Limit"] == "3" and genuine.headers["X-RateLimit-Remaining"] == "2"


def test_whoever_holds_a_signed_url_cannot_use_up_the_keys_calls(client, live, account):
    """A signed URL is public (an <img>, a link preview): its traffic counts in a window of
    its own, and a stranger who fetches it past the limit leaves the key's calls alone."""
    accounts.set_rate_limit(live.db, account.key_id, 3)
    url = signed_query(account.key, templateId="card")
    answers = [get(client, live, url) for _ in range(4)]
    assert [answer.status_code for answer in answers[:3]] == [200, 200, 200]
    assert answers[3].json()["error"]["code"] == "RATE_LIMITED"
    own = client.get(f"{live.api}/templates", headers=account.bearer)
    assert own.status_code == 200, own.text
    assert own.headers["X-RateLimit-Remaining"] == "2"


def test_plain_hash_signatures_are_refused(client, live, account):
    query = {"apiKeyHashed": hashlib.sha256(account.key.encode()).hexdigest(), "templateId": "card"}
    text = "&".join(f"{name}={value}" for name, value in sorted(query.items()))
    query["sign"] = hashlib.sha256((text + query["apiKeyHashed"]).encode()).hexdigest()
    assert get(client, live, query).status_code == 400


def test_the_legacy_md5_key_hash_still_works(client, live, account):
    params = {"apiKeyMd5": hashlib.md5(account.key.encode()).hexdigest(), "templateId": "card"}
    answer = get(client, live, {**params, "sign": sign(account.key, params)})
    assert answer.status_code == 200, answer.text


def test_an_expired_url_is_refused_and_a_future_one_works(client, live, account):
    past = get(client, live, signed_query(account.key, templateId="card", expires=str(int(time.time()) - 5)))
    assert past.status_code == 400 and "expired" in past.json()["error"]["message"]
    future = get(client, live, signed_query(account.key, templateId="card", expires=str(int(time.time()) + 600)))
    assert future.status_code == 200


def test_nocache_renders_afresh_and_says_no_store(client, live, account):
    query = signed_query(account.key, templateId="card", nocache="true")
    first, second = get(client, live, query), get(client, live, query)
    assert first.headers["Cache-Control"] == second.headers["Cache-Control"] == "no-store"
    assert live.used(account) == 2


def test_editing_the_template_never_serves_a_stale_image(client, live, account):
    query = signed_query(account.key, templateId="card")
    before = decode(get(client, live, query).content).convert("RGB")
    assert before.getpixel((120, 105)) == (255, 0, 0)
    edited = text_template()
    edited["layers"][0]["fill"] = "#00ff00"
    live.add_template(account, edited, overwrite=True)
    after = decode(get(client, live, query).content).convert("RGB")
    assert after.getpixel((120, 105)) == (0, 255, 0)
    assert live.used(account) == 2


def test_a_thumbnail_url_is_free(client, live, account):
    answer = get(client, live, signed_query(account.key, templateId="card", thumbnail="true"))
    assert answer.status_code == 200 and max(decode(answer.content).size) <= 320
    assert live.used(account) == 0


def test_a_parameter_given_twice_is_refused(client, live, account):
    query = signed_query(account.key, templateId="card")
    spelled = "&".join(f"{name}={quote(value)}" for name, value in query.items()) + "&templateId=card"
    answer = client.get(f"{live.api}/templates/signedurl?{spelled}")
    assert answer.status_code == 400 and "templateId" in answer.json()["error"]["message"]
