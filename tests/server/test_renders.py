"""createImage, createPdf and createStoredImage over real HTTP: the bytes decode, the
modifications apply, errors have their codes, and only successful full renders are billed."""

from __future__ import annotations

import io
import json
import re
import socket
import time

import httpx
import pytest

from templatekit_server.plans import DEFAULT_PLANS
from templatekit_server.usage import reserve
from tests.conftest import decode
from tests.server.conftest import image_template, text_template

pytestmark = pytest.mark.slow


@pytest.fixture
def account(live):
    account = live.account()
    live.add_template(account, text_template())
    return account


def post(client, live, account, operation, body, **kwargs):
    return client.post(f"{live.api}/templates/{operation}", json=body, headers=account.bearer, **kwargs)


def error_of(answer):
    return answer.status_code, answer.json()["error"]["code"]


@pytest.mark.parametrize(
    "modifications",
    [
        [{"name": "box", "fill": "#00ff00"}],
        {"box": {"fill": "#00ff00"}},
        json.dumps([{"name": "box", "fill": "#00ff00"}]),
        json.dumps({"box": {"fill": "#00ff00"}}),
    ],
    ids=["list", "object", "json-list", "json-object"],
)
def test_the_four_modification_forms_render_the_same(client, live, account, modifications):
    answer = post(client, live, account, "createImage", {"templateId": "card", "modifications": modifications})
    assert answer.status_code == 200, answer.text
    assert answer.headers["content-type"] == "image/png"
    assert decode(answer.content).convert("RGB").getpixel((120, 105)) == (0, 255, 0)


def test_null_modifications_render_the_template_as_it_is(client, live, account):
    answer = post(client, live, account, "createImage", {"templateId": "card", "modifications": None})
    assert decode(answer.content).convert("RGB").getpixel((120, 105)) == (255, 0, 0)


@pytest.mark.parametrize(("name", "media", "pil"), [("jpeg", "image/jpeg", "JPEG"), ("webp", "image/webp", "WEBP")])
def test_formats(client, live, account, name, media, pil):
    answer = post(client, live, account, "createImage", {"templateId": "card", "format": name})
    assert answer.headers["content-type"] == media
    image = decode(answer.content)
    assert (image.format, image.size) == (pil, (240, 120))


def test_thumbnail_and_debug(client, live, account):
    thumbnail = post(client, live, account, "createImage", {"templateId": "card", "thumbnail": True})
    assert max(decode(thumbnail.content).size) <= 320
    plain = decode(post(client, live, account, "createImage", {"templateId": "card"}).content).convert("RGB")
    debug = decode(post(client, live, account, "createImage", {"templateId": "card", "_debug": True}).content)
    assert debug.convert("RGB").tobytes() != plain.tobytes()


def test_ignored_modifications_are_listed_in_the_warnings_header(client, live, account):
    mods = [{"name": "nope", "text": "x"}, {"name": "title", "text": "Hi", "sparkle": True}]
    answer = post(client, live, account, "createImage", {"templateId": "card", "modifications": mods})
    assert answer.status_code == 200
    warnings = json.loads(answer.headers["X-Templatekit-Warnings"])
    assert any("nope" in warning for warning in warnings)
    assert any("sparkle" in warning for warning in warnings)


@pytest.mark.parametrize("operation", ["createImage", "createPdf", "createStoredImage"])
def test_a_misspelt_request_field_is_named_in_the_warnings_header(client, live, account, operation):
    asked = {"templateId": "card", "modificatons": {"title": "Hi"}, "metadata": {"order": 7}}
    answer = post(client, live, account, operation, asked)
    assert answer.status_code == 200
    assert json.loads(answer.headers["X-Templatekit-Warnings"]) == [
        "request body: 'modificatons': unknown field ignored (did you mean 'modifications'?)",
        "request body: 'metadata': unknown field ignored",
    ]
    spelt = post(client, live, account, operation, {"templateId": "card", "modifications": {"title": "Hi"}})
    assert "X-Templatekit-Warnings" not in spelt.headers


def test_a_pdf_has_the_text_of_the_modifications(client, live, account):
    mods = {"title": "Quarterly report"}
    answer = post(client, live, account, "createPdf", {"templateId": "card", "modifications": mods})
    assert answer.headers["content-type"] == "application/pdf"
    reader = pytest.importorskip("pypdf").PdfReader(io.BytesIO(answer.content))
    assert len(reader.pages) == 1
    assert "Quarterly report" in reader.pages[0].extract_text()
    assert reader.metadata.title == "Card"


def test_a_stored_image_is_served_at_its_signed_url_until_tampered_with(client, live, account):
    answer = post(client, live, account, "createStoredImage", {"templateId": "card", "format": "webp"})
    assert answer.status_code == 200, answer.text
    url = answer.json()["url"]
    assert url.startswith(f"{live.api}/files/images/{account.project}/") and "sig=" in url and "expires=" in url
    fetched = client.get(url)
    assert fetched.status_code == 200
    assert fetched.headers["content-type"] == "image/webp"
    assert decode(fetched.content).size == (240, 120)
    tampered = client.get(url.replace("sig=", "sig=0"))
    assert error_of(tampered) == (400, "BAD_REQUEST")
    other_file = client.get(url.replace("/images/", "/videos/"))
    assert other_file.status_code == 400


def test_an_expired_file_url_is_refused(client, live, account):
    url = post(client, live, account, "createStoredImage", {"templateId": "card"}).json()["url"]
    key = url.split("/files/")[1].split("?")[0]
    signature = live.sealer.file_signature(key, 1_000_000)
    expired = client.get(f"{live.api}/files/{key}", params={"expires": 1_000_000, "sig": signature})
    assert error_of(expired) == (400, "BAD_REQUEST")
    assert "expired" in expired.json()["error"]["message"]


def test_template_and_body_errors_name_the_field(client, live, account):
    missing = post(client, live, account, "createImage", {"templateId": "nothing-here"})
    assert error_of(missing) == (404, "NOT_FOUND")
    no_id = post(client, live, account, "createImage", {})
    assert error_of(no_id) == (400, "BAD_REQUEST") and "templateId" in no_id.json()["error"]["message"]
    bad_format = post(client, live, account, "createImage", {"templateId": "card", "format": "gif"})
    assert "format" in bad_format.json()["error"]["message"] and "gif" in bad_format.json()["error"]["message"]
    bad_flag = post(client, live, account, "createImage", {"templateId": "card", "thumbnail": "maybe"})
    assert error_of(bad_flag) == (400, "BAD_REQUEST") and "thumbnail" in bad_flag.json()["error"]["message"]
    wrong_type = post(client, live, account, "createImage", {"templateId": 42})
    assert "templateId" in wrong_type.json()["error"]["message"]
    bad_value = post(
        client, live, account, "createImage", {"templateId": "card", "modifications": {"box": {"fill": "purplish"}}}
    )
    assert error_of(bad_value) == (400, "BAD_REQUEST")
    assert "fill" in bad_value.json()["error"]["message"] and "purplish" in bad_value.json()["error"]["message"]


def test_a_malformed_body_is_a_bad_request_not_a_crash(client, live, account):
    for raw in [b"{not json", b"[1, 2]", b'{"templateId": "card", "templateId": "card"}', b"\xff\xfe"]:
        answer = client.post(f"{live.api}/templates/createImage", content=raw, headers=account.bearer)
        assert error_of(answer) == (400, "BAD_REQUEST"), raw
    deep = b'{"templateId": "card", "modifications": ' + b"[" * 100 + b"]" * 100 + b"}"
    answer = client.post(f"{live.api}/templates/createImage", content=deep, headers=account.bearer)
    assert error_of(answer) == (400, "BAD_REQUEST")
    assert "nested" in answer.json()["error"]["message"]


@pytest.mark.parametrize(
    "raw",
    [
        b"GARBAGE\r\n\r\n",
        b"GET /v1/liveness HTTP/1.1\r\nHost: x\r\nBad Header Line\r\n\r\n",
        b"POST /v1/templates/createImage HTTP/1.1\r\nHost: x\r\nContent-Length: nine\r\n\r\n",
    ],
)
def test_a_request_that_is_not_http_gets_the_error_envelope_in_json(live, raw):
    """uvicorn refuses these before the app sees them; the answer is still the envelope."""
    with socket.create_connection(("127.0.0.1", live.port), timeout=10) as connection:
        connection.sendall(raw)
        received = b""
        while chunk := connection.recv(65536):  # the server closes the connection
            received += chunk
    head, _, body = received.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = {name.lower(): value.strip() for name, _, value in (line.partition(":") for line in lines[1:])}
    assert lines[0] == "HTTP/1.1 400 Bad Request" and headers["content-type"] == "application/json"
    assert int(headers["content-length"]) == len(body) and headers["connection"] == "close"
    error = json.loads(body)["error"]
    assert error["code"] == "BAD_REQUEST" and error["message"].startswith("malformed HTTP request: ")
    assert error["docs"].endswith("/BAD_REQUEST") and re.fullmatch(r"req_[0-9a-f]{24}", error["requestId"])


def test_a_websocket_upgrade_is_a_plain_request_and_its_query_is_not_logged(live):
    """The interface has no WebSocket: the upgrade is answered by the app, whose log lines
    leave out query strings (where a key may be)."""
    secret = "tk_live_" + "s" * 40
    upgrade = {
        "Connection": "Upgrade",
        "Upgrade": "websocket",
        "Sec-WebSocket-Version": "13",
        "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
    }
    answer = httpx.get(f"{live.api}/templates", params={"apiKey": secret}, headers=upgrade, timeout=10)
    assert answer.headers["content-type"].startswith("application/json") and "x-request-id" in answer.headers
    assert answer.status_code == 401 and answer.json()["error"]["code"] == "UNAUTHORIZED"  # no such key
    time.sleep(0.5)  # the log line is written after the answer
    assert secret not in live.log()


def test_a_body_over_the_limit_is_refused(client, live, account):
    huge = json.dumps({"templateId": "card", "modifications": {"title": "x" * 6_000_000}})
    answer = client.post(f"{live.api}/templates/createImage", content=huge, headers=account.bearer)
    assert error_of(answer) == (400, "BAD_REQUEST")
    assert "limit" in answer.json()["error"]["message"]


def test_an_image_that_cannot_be_fetched_is_named_in_the_error(client, live, account, web):
    web.routes["/broken.png"] = (200, b"this is not a picture", 0.0)
    live.add_template(account, image_template(web.url("/missing.png"), "missing"))
    live.add_template(account, image_template(web.url("/broken.png"), "broken"))
    before = live.used(account)
    for template_id, reason in [("missing", "404"), ("broken", "not a PNG")]:
        answer = post(client, live, account, "createImage", {"templateId": template_id})
        assert error_of(answer) == (400, "FETCH_IMAGE_ERROR")
        message = answer.json()["error"]["message"]
        assert web.url(f"/{template_id}.png") in message and reason in message
    assert live.used(account) == before


def test_usage_counts_renders_but_not_thumbnails_or_failures(client, live, account):
    post(client, live, account, "createImage", {"templateId": "card"})
    post(client, live, account, "createPdf", {"templateId": "card"})
    post(client, live, account, "createStoredImage", {"templateId": "card"})
    post(client, live, account, "createImage", {"templateId": "card", "thumbnail": True})
    post(client, live, account, "createImage", {"templateId": "card", "modifications": {"box": {"fill": "?"}}})
    assert live.used(account) == 3


def test_an_idempotent_repeat_returns_the_first_answer_and_is_not_billed(client, live, account):
    headers = {**account.bearer, "Idempotency-Key": "order-1"}
    body = {"templateId": "card", "modifications": {"title": "Once"}}
    first = client.post(f"{live.api}/templates/createStoredImage", json=body, headers=headers)
    again = client.post(f"{live.api}/templates/createStoredImage", json=body, headers=headers)
    assert first.status_code == again.status_code == 200
    assert again.json() == first.json()
    assert again.headers["Idempotent-Replayed"] == "true"
    assert live.used(account) == 1
    other = client.post(f"{live.api}/templates/createStoredImage", json={**body, "format": "jpeg"}, headers=headers)
    assert error_of(other) == (409, "CONFLICT")


def test_a_failed_idempotent_request_can_be_retried(client, live, account):
    headers = {**account.bearer, "Idempotency-Key": "retry-me"}
    body = {"templateId": "later"}
    assert error_of(client.post(f"{live.api}/templates/createImage", json=body, headers=headers)) == (404, "NOT_FOUND")
    live.add_template(account, text_template("later"))
    assert client.post(f"{live.api}/templates/createImage", json=body, headers=headers).status_code == 200


def test_every_answer_carries_a_request_id_and_a_client_id_is_kept(client, live, account):
    answer = client.get(f"{live.api}/liveness", headers={"X-Request-Id": "trace-42"})
    assert answer.json() == {"status": "ok"}
    assert answer.headers["X-Request-Id"] == "trace-42"
    unknown_route = client.get(f"{live.api}/nowhere", headers=account.bearer)
    assert error_of(unknown_route) == (404, "NOT_FOUND")
    assert unknown_route.headers["X-Request-Id"].startswith("req_")


def test_a_pdf_has_no_free_thumbnail(client, live, account):
    answer = post(client, live, account, "createPdf", {"templateId": "card", "thumbnail": True})
    assert answer.headers["content-type"] == "application/pdf"
    assert live.used(account) == 1


def test_the_daily_limit_stops_renders_with_usage_exceeded(client, live):
    account = live.account("free")  # 100 a day
    live.add_template(account, text_template())
    reserve(live.db, account.workspace, DEFAULT_PLANS["free"], 99, "createImage")
    assert post(client, live, account, "createImage", {"templateId": "card"}).status_code == 200
    over = post(client, live, account, "createImage", {"templateId": "card"})
    assert error_of(over) == (500, "USAGE_EXCEEDED")
    assert "daily limit of 100" in over.json()["error"]["message"]
    assert 0 < int(over.headers["Retry-After"]) <= 86_400
    assert post(client, live, account, "createImage", {"templateId": "card", "thumbnail": True}).status_code == 200
    assert live.used(account) == 100
