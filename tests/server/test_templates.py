"""Template details, the list, and uploads over HTTP."""

from __future__ import annotations

import json

import pytest

from tests.conftest import decode
from tests.server.conftest import text_template, video_template

pytestmark = pytest.mark.slow


@pytest.fixture
def account(live):
    return live.account()


def test_upload_then_details_and_render(client, live, account):
    created = client.post(f"{live.api}/templates", json=text_template("uploaded"), headers=account.bearer)
    assert (created.status_code, created.json()) == (201, {"id": "uploaded"})
    details = client.get(f"{live.api}/templates/uploaded", headers=account.bearer).json()
    assert details["name"] == "Card" and details["id"] == "uploaded"
    assert [(layer["name"], layer["type"]) for layer in details["layers"]] == [("box", "shape"), ("title", "text")]
    assert details["layers"][1]["suggestInput"] == "Hello"
    assert all(layer["id"].startswith("lyr_") for layer in details["layers"])
    image = client.post(f"{live.api}/templates/createImage", json={"templateId": "uploaded"}, headers=account.bearer)
    assert decode(image.content).size == (240, 120)


def test_source_gives_the_stored_json_of_each_version(client, live, account):
    client.post(f"{live.api}/templates", json=text_template("kept"), headers=account.bearer)
    client.post(
        f"{live.api}/templates",
        params={"overwrite": "true"},
        json=text_template("kept", name="Second"),
        headers=account.bearer,
    )
    current = client.get(f"{live.api}/templates/kept/source", headers=account.bearer)
    assert current.status_code == 200 and current.headers["content-type"] == "application/json"
    assert current.json() == text_template("kept", name="Second")
    first = client.get(f"{live.api}/templates/kept/source", params={"version": 1}, headers=account.bearer)
    assert first.json() == text_template("kept")
    for version, code in (("3", "NOT_FOUND"), ("0", "BAD_REQUEST"), ("one", "BAD_REQUEST")):
        answer = client.get(f"{live.api}/templates/kept/source", params={"version": version}, headers=account.bearer)
        assert answer.json()["error"]["code"] == code, version
    twice = client.get(
        f"{live.api}/templates/kept/source", params=[("version", 1), ("version", 2)], headers=account.bearer
    )
    assert (
        twice.status_code == 400
        and twice.json()["error"]["message"] == "version: given 2 times in the query; give it once"
    )
    other = live.account()  # another workspace does not see it
    hidden = client.get(f"{live.api}/templates/kept/source", headers=other.bearer)
    assert hidden.json()["error"]["code"] == "NOT_FOUND"


def test_an_existing_id_is_a_conflict_unless_overwritten(client, live, account):
    client.post(f"{live.api}/templates", json=text_template("twice"), headers=account.bearer)
    again = client.post(f"{live.api}/templates", json=text_template("twice", name="Second"), headers=account.bearer)
    assert (again.status_code, again.json()["error"]["code"]) == (409, "CONFLICT")
    replaced = client.post(
        f"{live.api}/templates",
        params={"overwrite": "true"},
        json=text_template("twice", name="Second"),
        headers=account.bearer,
    )
    assert replaced.status_code == 201
    assert client.get(f"{live.api}/templates/twice", headers=account.bearer).json()["name"] == "Second"


def test_an_upload_without_id_gets_one(client, live, account):
    body = text_template()
    del body["id"]
    created = client.post(f"{live.api}/templates", json=body, headers=account.bearer)
    assert created.status_code == 201 and created.json()["id"].startswith("tpl_")


def test_an_invalid_template_lists_its_problems(client, live, account):
    body = text_template("bad", width=-5)
    body["layers"][1]["size"] = "huge"
    body["layers"].append({"type": "image", "name": "local", "x": 0, "y": 0, "width": 5, "height": 5, "src": "a.png"})
    answer = client.post(f"{live.api}/templates", json=body, headers=account.bearer)
    assert answer.status_code == 400
    message = answer.json()["error"]["message"]
    assert "width" in message and "size" in message and "layers[2].src" in message and "local path" in message


def test_half_a_character_is_refused_by_name_in_a_template_and_in_a_pdf_render(client, live, account):
    """JSON may hold a lone surrogate ("\\ud800", half of a character cut in two), which
    neither UTF-8, nor a PDF, nor a QR code can hold."""
    body = text_template("halves")
    body["layers"][1]["text"] = "cut \ud800 here"
    sent = json.dumps(body)  # ASCII, with the escape as JSON writes it
    headers = {**account.bearer, "Content-Type": "application/json"}
    answer = client.post(f"{live.api}/templates", content=sent, headers=headers)
    assert answer.status_code == 400, answer.text
    assert "layers[1].text: must be Unicode text: character 5 is U+D800" in answer.json()["error"]["message"]
    live.add_template(account, text_template("halves"))
    mods = json.dumps({"templateId": "halves", "modifications": [{"name": "title", "text": "\ud800"}]})
    rendered = client.post(f"{live.api}/templates/createPdf", content=mods, headers=headers)
    assert rendered.status_code == 400 and "U+D800" in rendered.json()["error"]["message"], rendered.text


def test_unknown_fields_are_kept_and_reported(client, live, account):
    body = text_template("future", shine=True)
    answer = client.post(f"{live.api}/templates", json=body, headers=account.bearer)
    assert answer.status_code == 201
    assert "shine" in answer.headers["X-Templatekit-Warnings"]


def test_the_list_shows_the_workspace_templates_only(client, live, account):
    live.add_template(account, text_template("one"))
    live.add_template(account, video_template("two"))
    elsewhere = live.account()
    live.add_template(elsewhere, text_template("three"))
    listed = client.get(f"{live.api}/templates", headers=account.bearer).json()
    assert listed == [
        {"id": "one", "name": "Card", "width": 240, "height": 120, "kind": "image"},
        {"id": "two", "name": "Clip", "width": 96, "height": 96, "kind": "video"},
    ]
    with_layers = client.get(f"{live.api}/templates", params={"includeLayers": "true"}, headers=account.bearer).json()
    assert [layer["name"] for layer in with_layers[0]["layers"]] == ["box", "title"]
    hidden = client.get(f"{live.api}/templates/three", headers=account.bearer)
    assert (hidden.status_code, hidden.json()["error"]["code"]) == (404, "NOT_FOUND")


def test_a_project_sees_its_info(client, live, account):
    info = client.get(f"{live.api}/info", headers=account.bearer).json()
    assert info["id"] == account.project and info["name"] == "test project"
    assert info["avatar"] is None and info["createdAt"].endswith("Z")


def test_a_value_read_as_another_kind_is_kept_as_it_was_read(live, client):
    """The source is given back as the template format describes it: a number that was
    read as text is stored as that text, a 1 read as true as true; fields this version
    does not know as they came."""
    account = live.account()
    body = text_template("numbers", later={"kept": True})
    body["layers"][1] |= {"text": 2026, "font": 0, "visible": 1, "shine": 3}
    assert client.post(f"{live.api}/templates", json=body, headers=account.bearer).status_code == 201
    source = client.get(f"{live.api}/templates/numbers/source", headers=account.bearer).json()
    title = source["layers"][1]
    assert (title["text"], title["font"], title["visible"]) == ("2026", "0", True)
    assert (title["shine"], source["later"]) == (3, {"kept": True})
