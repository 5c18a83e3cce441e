"""The dashboard's forms refused by what is wrong with them, over real HTTP on a live
server: a role that is none is a bad request (400), not a conflict; a file sent where a
form asks for text is refused by the field's name, not kept as the file's description."""

from __future__ import annotations

import pytest

from templatekit_server import accounts, people
from tests.server.test_dashboard import csrf, member, signed_in

pytestmark = pytest.mark.slow


def test_a_role_that_is_none_is_a_bad_request(live):
    account = live.account()
    owner = signed_in(live, member(live, account, "owner"))
    viewer = people.user_id_of(live.db, member(live, account, "viewer"))
    page = owner.get(f"/dashboard/w/{account.workspace}/members")
    answer = owner.post(
        f"/dashboard/w/{account.workspace}/members/{viewer}/role", data={"csrf": csrf(page), "role": "emperor"}
    )
    assert answer.status_code == 400 and "role &#39;emperor&#39;: must be one of" in answer.text


def test_a_file_where_a_form_asks_for_text_is_refused_by_name(live):
    account = live.account()
    owner = signed_in(live, member(live, account, "owner"))
    page = owner.get(f"/dashboard/w/{account.workspace}/")
    answer = owner.post(
        f"/dashboard/w/{account.workspace}/projects", data={"csrf": csrf(page)}, files={"name": ("a.txt", b"Launch")}
    )
    assert answer.status_code == 400 and "name: must be text, not a file" in answer.text
    assert [project["name"] for project in accounts.projects_of(live.db, account.workspace)] == ["test project"]


def test_a_key_with_no_scope_chosen_is_refused_saying_so(live):
    account = live.account()
    owner = signed_in(live, member(live, account, "owner"))
    keys = f"/dashboard/w/{account.workspace}/p/{account.project}/keys"
    answer = owner.post(keys, data={"csrf": csrf(owner.get(keys))})
    assert answer.status_code == 400 and "scopes: choose at least one of render, templates:write" in answer.text
