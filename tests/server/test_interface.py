"""The interface as clients use it: null is "not set", and wrong input gets the right
code and a message that names the field, over real HTTP."""

from __future__ import annotations

import httpx
import pytest

from tests.conftest import decode
from tests.server.conftest import LiveServer, text_template

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def account(live):
    account = live.account()
    body = text_template("fields")
    body["layers"] += [
        {"type": "image", "name": "photo", "x": 0, "y": 0, "width": 40, "height": 40, "src": "data:,"},
        {"type": "table", "name": "grid", "x": 0, "y": 0, "width": 200, "height": 60, "rows": [{"a": 1}]},
        {"type": "keyvalue", "name": "facts", "x": 0, "y": 60, "width": 200, "height": 60, "rows": []},
    ]
    body["layers"][2]["visible"] = False  # the empty data URI is not drawn
    live.add_template(account, body)
    return account


def create(client, live, account, modifications):
    return client.post(
        f"{live.api}/templates/createImage",
        json={"templateId": "fields", "modifications": modifications},
        headers=account.bearer,
    )


def test_null_in_an_optional_field_means_not_set(client, live, account):
    answer = create(client, live, account, [{"name": "title", "text": "Hi", "color": None, "size": None}])
    assert answer.status_code == 200, answer.text
    assert decode(answer.content).size == (240, 120)
    assert create(client, live, account, {"title": None, "box": {"fill": None}}).status_code == 200


@pytest.mark.parametrize(
    ("modifications", "message"),
    [
        (
            [{"name": "photo", "src": 5}],
            "src (layer 'photo'): must be a URL, a data URI or a file path, as text (got 5)",
        ),
        ([{"name": "grid", "rows": "x"}], "rows (layer 'grid'): must be a list (got 'x')"),
        (
            [{"name": "grid", "rows": ["x"]}],
            "rows (layer 'grid'): [0]: a row must be an object of column keys and cells",
        ),
        ([{"name": "grid", "columns": [{"header": "A"}]}], "columns (layer 'grid'): [0].key: is required"),
        ([{"name": "facts", "rows": [{"key": "Issued"}]}], "rows (layer 'facts'): [0].value: is required"),
    ],
)
def test_wrong_values_are_bad_requests_naming_the_field(client, live, account, modifications, message):
    answer = create(client, live, account, modifications)
    assert (answer.status_code, answer.json()["error"]["code"]) == (400, "BAD_REQUEST"), answer.text
    assert message in answer.json()["error"]["message"]
    assert "Error" not in answer.json()["error"]["message"]  # no Python exception names


@pytest.mark.parametrize("operation", ["createImage", "createPdf", "createStoredImage", "renderVideo"])
def test_a_get_of_a_post_operation_is_a_405(client, live, account, operation):
    answer = client.get(f"{live.api}/templates/{operation}", headers=account.bearer)
    assert (answer.status_code, answer.json()["error"]["code"]) == (405, "METHOD_NOT_ALLOWED")
    assert answer.headers["allow"] == "POST"


def test_the_playground_can_be_left_out(tmp_path, live):
    assert httpx.get(f"{live.root}/playground/").status_code == 200  # served by default
    server = LiveServer(tmp_path / "data", {"TEMPLATEKIT_PLAYGROUND": "0"})
    server.data_dir.mkdir(parents=True)
    server.start()
    try:
        assert httpx.get(f"{server.root}/playground/").status_code == 404
        assert httpx.get(f"{server.api}/liveness").status_code == 200
    finally:
        server.stop()
