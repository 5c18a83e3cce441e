"""``templatekit admin`` and ``templatekit serve --demo``, run as a user runs them."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from templatekit_server import accounts
from templatekit_server.db import Database
from templatekit_server.plans import DEFAULT_PLANS
from templatekit_server.usage import reserve
from tests.conftest import decode
from tests.server.conftest import free_port

pytestmark = pytest.mark.slow

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "templates"


def admin(data_dir: Path, *args: str, input: str = "", secret: str | None = None) -> subprocess.CompletedProcess[str]:
    """The command run as a script runs it: with no terminal to prompt on."""
    command = [sys.executable, "-m", "templatekit.cli", "admin", "--data-dir", str(data_dir), *args]
    env = {name: value for name, value in os.environ.items() if name != "TEMPLATEKIT_SECRET"}
    if secret is not None:
        env["TEMPLATEKIT_SECRET"] = secret
    return subprocess.run(
        command, input=input, capture_output=True, text=True, check=False, start_new_session=True, env=env
    )


def answer(data_dir: Path, *args: str) -> dict:
    done = admin(data_dir, *args)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_admin_makes_accounts_keys_and_templates_and_reports_usage(tmp_path):
    workspace = answer(tmp_path, "workspace", "create", "--name", "Acme", "--plan", "automate")["id"]
    project = answer(tmp_path, "project", "create", "--workspace", workspace, "--name", "Web")["id"]
    key = answer(tmp_path, "key", "create", "--project", project)
    assert key["id"].startswith("key_") and key["key"].startswith("tk_live_") and len(key["key"]) >= 48
    added = answer(tmp_path, "template", "add", "--workspace", workspace, str(EXAMPLES / "product-card.json"))
    assert (added["id"], added["version"]) == ("tpl_product_card", 1)
    again = admin(tmp_path, "template", "add", "--workspace", workspace, str(EXAMPLES / "product-card.json"))
    assert again.returncode == 1 and "overwrite" in again.stderr
    replaced = answer(
        tmp_path, "template", "add", "--workspace", workspace, "--id", "mine", str(EXAMPLES / "product-card.json")
    )
    assert replaced["id"] == "mine"
    report = answer(tmp_path, "usage", "--workspace", workspace)
    assert (report["day"], report["month"], report["limits"]["daily"]) == (0, 0, 500)
    assert answer(tmp_path, "workspace", "set-plan", workspace, "pro")["plan"] == "pro"
    assert answer(tmp_path, "usage", "--workspace", workspace)["limits"]["daily"] == 5000
    limited = answer(tmp_path, "key", "create", "--project", project, "--rate-limit", "30")
    assert limited["rateLimit"] == 30
    assert answer(tmp_path, "key", "set-rate-limit", limited["id"], "plan")["rateLimit"] is None
    assert admin(tmp_path, "key", "set-rate-limit", limited["id"], "lots").returncode == 1
    assert answer(tmp_path, "key", "revoke", key["id"])["revoked"] is True


def admin_with_input(data_dir: Path, text: str, *args: str) -> dict:
    done = admin(data_dir, *args, input=text)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_admin_lists_what_a_person_looks_for_first_and_manages_users(tmp_path):
    workspace = answer(tmp_path, "workspace", "create", "--name", "Acme")["id"]
    project = answer(tmp_path, "project", "create", "--workspace", workspace, "--name", "Web")["id"]
    key = answer(tmp_path, "key", "create", "--project", project)
    assert [(w["id"], w["name"], w["plan"]) for w in answer(tmp_path, "workspace", "list")] == [
        (workspace, "Acme", "free")
    ]
    assert [p["id"] for p in answer(tmp_path, "project", "list", "--workspace", workspace)] == [project]
    (listed,) = answer(tmp_path, "key", "list", "--project", project)
    assert listed["prefix"] == key["key"][:12] and key["key"] not in json.dumps(listed)
    assert listed["scopes"] == ["render"] and listed["revoked"] is None

    made = admin_with_input(
        tmp_path,
        "a long passphrase\n",
        "user",
        "create",
        "--workspace",
        workspace,
        "--email",
        "Ana@Example.com",
        "--role",
        "owner",
        "--password-stdin",
    )
    assert (made["email"], made["role"], made["existing"]) == ("ana@example.com", "owner", False)
    users = answer(tmp_path, "user", "list", "--workspace", workspace)
    assert [(u["email"], u["role"]) for u in users] == [("ana@example.com", "owner")]
    # an account made before (by an invitation link, say) is not joined by its email alone
    other = answer(tmp_path, "workspace", "create", "--name", "Beta")["id"]
    joined = ("user", "create", "--workspace", other, "--email", "ana@example.com", "--password-stdin")
    refused = admin(tmp_path, *joined, input="her own passphrase\n")
    assert refused.returncode == 1 and "ana@example.com has an account already" in refused.stderr
    assert "--existing" in refused.stderr and answer(tmp_path, "user", "list", "--workspace", other) == []
    made = answer(tmp_path, *joined, "--existing")
    assert (made["email"], made["role"], made["existing"]) == ("ana@example.com", "viewer", True)
    reset = admin_with_input(
        tmp_path, "another passphrase\n", "user", "reset-password", "--email", "ana@example.com", "--password-stdin"
    )
    assert reset == {"email": "ana@example.com", "signedOut": True}
    untyped = admin(tmp_path, "user", "create", "--workspace", workspace, "--email", "cy@example.com")
    assert untyped.returncode == 1 and "Traceback" not in untyped.stderr
    assert "no password was typed: give it on standard input with --password-stdin" in untyped.stderr
    short = subprocess.run(
        [
            sys.executable,
            "-m",
            "templatekit.cli",
            "admin",
            "--data-dir",
            str(tmp_path),
            "user",
            "create",
            "--workspace",
            workspace,
            "--email",
            "bo@example.com",
            "--password-stdin",
        ],
        input="short\n",
        capture_output=True,
        text=True,
        check=False,
    )
    assert short.returncode == 1 and "password: must be at least 10 characters" in short.stderr


def test_admin_usage_counts_by_operation(tmp_path):
    workspace = answer(tmp_path, "workspace", "create", "--name", "Acme")["id"]
    db = Database(f"sqlite:///{tmp_path / 'templatekit.db'}")
    try:
        reserve(db, workspace, DEFAULT_PLANS["free"], 3, "createImage")
        reserve(db, workspace, DEFAULT_PLANS["free"], 5, "renderVideo")
    finally:
        db.close()
    report = answer(tmp_path, "usage", "--workspace", workspace)
    assert (report["day"], report["month"], report["plan"]) == (8, 8, "free")
    assert report["byOperation"]["day"] == {"createImage": 3, "renderVideo": 5}
    assert report["limits"] == {"daily": 100, "monthly": 100, "ratePerMinute": 60}


def test_admin_names_what_does_not_exist(tmp_path):
    for args, named in [
        (("project", "create", "--workspace", "ws_nothing", "--name", "x"), "ws_nothing"),
        (("key", "create", "--project", "prj_nothing"), "prj_nothing"),
        (("key", "revoke", "key_nothing"), "key_nothing"),
        (("workspace", "create", "--name", "x", "--plan", "gold"), "gold"),
        (("usage", "--workspace", "ws_nothing"), "ws_nothing"),
    ]:
        done = admin(tmp_path, *args)
        assert done.returncode == 1 and named in done.stderr, args


@pytest.mark.parametrize("lost", [False, True], ids=["another TEMPLATEKIT_SECRET", "secret.key deleted"])
def test_an_admin_command_with_another_secret_than_the_database_is_refused(tmp_path, lost):
    """Keys made with another secret than the servers' would open on none of them."""
    workspace = answer(tmp_path, "workspace", "create", "--name", "Acme")["id"]
    project = answer(tmp_path, "project", "create", "--workspace", workspace, "--name", "Web")["id"]
    if lost:
        (tmp_path / "secret.key").unlink()
        done = admin(tmp_path, "key", "create", "--project", project)
        assert not (tmp_path / "secret.key").exists()  # the next start is refused the same way
    else:
        done = admin(tmp_path, "key", "create", "--project", project, secret="another-secret-of-the-same-length")
    assert done.returncode == 1, done.stdout
    assert "Traceback" not in done.stderr
    assert "TEMPLATEKIT_SECRET" in done.stderr and "secret.key" in done.stderr


def test_serve_demo_prints_a_key_and_a_curl_line_that_works(tmp_path):
    port = free_port()
    command = [sys.executable, "-m", "templatekit.cli", "serve", "--demo", "--port", str(port), "--workers", "1"]
    env = {**os.environ, "TEMPLATEKIT_DATA_DIR": str(tmp_path / "data")}
    server = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env, cwd=tmp_path
    )
    try:
        printed = [server.stdout.readline() for _ in range(5)]
        key = re.search(r"demo API key: (tk_live_\S+)", printed[0]).group(1)
        curl = printed[2].strip()
        assert curl.startswith("curl ") and key in curl
        playground = re.search(r"(http://127\.0\.0\.1:\d+/playground/)$", printed[3].strip()).group(1)
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(f"http://127.0.0.1:{port}/v1/liveness").status_code == 200:
                    break
            except httpx.TransportError:
                assert time.monotonic() < deadline and server.poll() is None
                time.sleep(0.1)
        done = subprocess.run(shlex.split(curl), cwd=tmp_path, capture_output=True, check=False)
        assert done.returncode == 0, done.stderr
        assert decode((tmp_path / "card.png").read_bytes()).size == (1200, 630)
        listed = httpx.get(f"http://127.0.0.1:{port}/v1/templates", headers={"Authorization": f"Bearer {key}"}).json()
        assert {"tpl_social_card", "tpl_invoice", "tpl_promo_video"} <= {item["id"] for item in listed}
        page = httpx.get(playground)
        assert page.status_code == 200 and "<title>" in page.text
        editor = re.search(r"(http://127\.0\.0\.1:\d+/editor/)$", printed[4].strip()).group(1)
        assert "<title>templatekit editor</title>" in httpx.get(editor).text
        signing_in = re.search(
            r"dashboard: (http://\S+/dashboard/)  sign in with (\S+) / (\S+)$", server.stdout.readline()
        )
        dashboard, email, password = signing_in.groups()
        assert email == "demo@example.com"
        with httpx.Client(follow_redirects=True) as browser:
            form = browser.get(dashboard)  # signed out: the sign-in form
            token = re.search(r'name="csrf" value="([^"]+)"', form.text).group(1)
            page = browser.post(form.url, data={"email": email, "password": password, "csrf": token})
            assert page.status_code == 200 and "Demo project" in page.text
    finally:
        server.terminate()
        server.wait(timeout=30)
    # a second start finds the demo again and prints the same key
    again = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env, cwd=tmp_path
    )
    try:
        assert again.stdout.readline().strip() == f"demo API key: {key}"
        lines = [again.stdout.readline() for _ in range(5)]
        assert lines[-1].strip().endswith(f"sign in with {email} / {password}")  # printed each time
    finally:
        again.terminate()
        again.wait(timeout=30)


def _start_failure(tmp_path: Path, data_dir: Path, *command: str) -> str:
    """What ``templatekit`` says when it cannot use ``data_dir``; it must stop at once."""
    done = subprocess.run(
        [sys.executable, "-m", "templatekit.cli", *command, "--data-dir", str(data_dir), *_rest(command)],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
    )
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    return done.stderr.strip()


def _rest(command: tuple[str, ...]) -> list[str]:
    return ["--port", str(free_port())] if command[0] == "serve" else ["workspace", "create", "--name", "x"]


def test_a_data_folder_that_cannot_be_used_is_named_with_its_cause(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    for command in (("serve",), ("serve", "--demo"), ("admin",)):
        said = _start_failure(tmp_path, blocker / "data", *command)
        assert said == f"error: data folder {blocker / 'data'}: {blocker} is a file, not a folder"
    database = tmp_path / "data" / "templatekit.db"
    database.mkdir(parents=True)  # a folder where the database file should be
    said = _start_failure(tmp_path, tmp_path / "data", "serve")
    assert said == f"error: database sqlite:///{database}: cannot be opened (unable to open database file)"


def test_a_read_only_data_folder_is_named_with_its_cause(tmp_path):
    folder = tmp_path / "read-only"
    folder.mkdir()
    if os.geteuid() == 0:  # permissions do not stop root: a read-only file system does
        mounted = subprocess.run(
            ["mount", "-t", "tmpfs", "-o", "ro,size=1m", "tmpfs", str(folder)], capture_output=True
        )
        if mounted.returncode != 0:
            pytest.skip(f"cannot mount a read-only tmpfs here: {mounted.stderr.decode().strip()}")
        cause = "Read-only file system"
    else:
        folder.chmod(0o500)
        cause = "Permission denied"
    try:
        assert _start_failure(tmp_path, folder, "serve") == f"error: data folder {folder}: cannot write in it ({cause})"
        assert _start_failure(tmp_path, folder / "sub", "admin") == (
            f"error: data folder {folder / 'sub'}: {folder / 'sub'} cannot be made ({cause})"
        )
    finally:
        if os.geteuid() == 0:
            subprocess.run(["umount", "-l", str(folder)], check=False)
        else:
            folder.chmod(0o700)


def test_workspace_and_project_names_are_one_to_two_hundred_characters_without_controls(tmp_path):
    for name, said in [
        ("", "name: must be 1 to 200 characters (got 0)"),
        ("   ", "name: must be 1 to 200 characters (got 0)"),
        ("w" * 201, "name: must be 1 to 200 characters (got 201)"),
        ("a\nb", "name: must not hold control characters (got U+000A)"),
        (os.fsdecode(b"Acme \xff"), "name: must be UTF-8 text (got U+DCFF, a byte that is not)"),
    ]:
        refused = admin(tmp_path, "workspace", "create", "--name", name)
        assert refused.returncode == 1 and said in refused.stderr, refused.stderr
    made = answer(tmp_path, "workspace", "create", "--name", "  Acme  ")["id"]
    db = Database(f"sqlite:///{tmp_path / 'templatekit.db'}")
    assert accounts.workspace(db, made)["name"] == "Acme"
    with pytest.raises(accounts.AccountError, match=re.escape("(got U+0000)")):
        accounts.create_project(db, made, "a\x00b")  # a NUL, as a form may send it
    refused = admin(tmp_path, "project", "create", "--workspace", made, "--name", os.fsdecode(b"Web \xc3"))
    assert refused.returncode == 1 and "name: must be UTF-8 text (got U+DCC3" in refused.stderr, refused.stderr
