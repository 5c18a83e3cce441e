"""Batches: render_many on any executor (a process pool, a Dask cluster), CSV rows as
modifications, and ``templatekit batch`` over 1,000 rows, resumed."""

from __future__ import annotations

import contextlib
import csv
import io
import json
import os
import shlex
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from pathlib import Path

import pytest

import templatekit as tk
from templatekit import batch as batch_module
from templatekit.batch import MAX_CELL, csv_rows, render_many
from templatekit.batch_command import WARNINGS_FILE, run_batch
from tests.conftest import decode, layer, template

pytestmark = pytest.mark.slow

CARD = template(
    layer("shape", "box", x=0, y=0, width=40, height=40, fill="#ff0000"),
    layer("text", "title", x=40, y=0, width=160, height=40, text="Hello"),
    layer("star", "rating", x=0, y=40, width=100, height=20, star=3),
    layer("table", "grid", x=0, y=60, width=200, height=40, rows=[{"a": 1}]),
    width=200,
    height=100,
)


def test_render_many_keeps_the_order_of_the_rows_and_reports_failures():
    rows = [{"box": {"fill": color}} for color in ("#00ff00", "not-a-colour", "#0000ff")]
    seen = []
    with ThreadPoolExecutor(2) as pool:
        items = list(render_many(CARD, rows, executor=pool, on_progress=lambda done, total: seen.append((done, total))))
    assert [item.index for item in items] == [0, 1, 2]
    assert decode(items[0].result.data).convert("RGB").getpixel((5, 5)) == (0, 255, 0)
    assert not items[1].ok and "fill" in items[1].error and "not-a-colour" in items[1].error
    assert decode(items[2].result.data).convert("RGB").getpixel((5, 5)) == (0, 0, 255)
    assert seen == [(1, 3), (2, 3), (3, 3)]


def test_render_many_in_processes_and_to_pdf():
    rows = ({"title": f"Page {n}"} for n in range(5))  # a generator: no length
    with ProcessPoolExecutor(2) as pool:
        items = list(render_many(CARD, rows, format="pdf", executor=pool))
    reader = pytest.importorskip("pypdf").PdfReader
    texts = [reader(io.BytesIO(item.result.data)).pages[0].extract_text() for item in items]
    assert [f"Page {n}" in text for n, text in enumerate(texts)] == [True] * 5


def test_render_many_own_pool_draws_what_one_process_draws():
    """The default pool's workers get the template once, at start, and deflate on one
    thread each: the pixels are the ones a render in this process gives."""
    rows = [{"title": f"Card {n}", "box": {"fill": f"#{n:02x}8040"}} for n in range(8)]
    items = list(render_many(CARD, rows, workers=2))
    assert [item.index for item in items] == list(range(8))
    for item, row in zip(items, rows, strict=True):
        expected = decode(tk.render_image(CARD, row).data)
        assert decode(item.result.data).tobytes() == expected.tobytes()


@pytest.mark.parametrize(
    ("arguments", "error", "message"),
    [
        ({"format": "gif"}, ValueError, r"format: must be one of png, jpeg, webp, pdf \(got 'gif'\)"),
        ({"workers": 0}, ValueError, r"workers: must be a whole number of 1 or more \(got 0\)"),
        ({"scale": 0}, ValueError, r"scale: must be a positive number \(got 0\)"),
        ({"scael": 2}, TypeError, r"render_many: got an unexpected keyword argument 'scael' \(.* render_image\)"),
        ({"format": "pdf", "scale": 2}, TypeError, r"unexpected keyword argument 'scale' \(.* render_pdf\)"),
        ({"memory_limit": "x"}, ValueError, r"memory_limit: must be a whole number of bytes, 1 or more \(got 'x'\)"),
        ({"format": "pdf", "memory_limit": -5}, ValueError, r"memory_limit: .* \(got -5\)"),
        ({"assets": 5}, ValueError, r"assets: must be an AssetLoader \(got int\)"),
        ({"on_progress": 5}, TypeError, r"on_progress: must be a function of \(done, total\) \(got int\)"),
    ],
)
def test_render_many_checks_its_arguments_when_called_before_any_process_starts(arguments, error, message):
    with ProcessPoolExecutor(1) as pool:
        with pytest.raises(error, match=message):
            render_many(CARD, [{}], executor=pool, **arguments)
        assert not pool._processes  # nothing was sent to it
    with pytest.raises(tk.TemplateError):
        render_many({"name": "broken", "width": 0, "height": 10, "layers": []}, [{}])


def test_render_many_refuses_what_is_no_executor_and_more_workers_than_the_cores_can_use():
    with pytest.raises(TypeError, match=r"executor: must be a concurrent.futures.Executor \(got str\)"):
        render_many(CARD, [{}], executor="x")  # type: ignore[arg-type]
    most = 4 * (os.cpu_count() or 1)
    with pytest.raises(ValueError, match=rf"workers: at most {most}, 4 per core of this machine \(got {most + 1}\)"):
        render_many(CARD, [{}], workers=most + 1)


def test_render_many_starts_no_more_processes_than_it_has_tasks(monkeypatch):
    """Rows go four to a task: nine rows are three tasks, so three processes of the eight asked for."""
    started = []
    real = batch_module._own_pool

    def counted(template, workers):
        started.append(workers)
        return real(template, workers)

    monkeypatch.setattr(batch_module, "_own_pool", counted)
    most = 4 * (os.cpu_count() or 1)
    items = list(render_many(CARD, [{"title": f"Row {n}"} for n in range(9)], workers=min(8, most)))
    assert all(item.ok for item in items) and started == [min(3, most)]


def test_render_many_on_a_dask_cluster():
    distributed = pytest.importorskip("distributed")
    with (
        distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster,
        distributed.Client(cluster) as client,
    ):
        items = list(render_many(CARD, [{"title": f"Row {n}"} for n in range(6)], executor=client.get_executor()))
    assert all(item.ok for item in items)
    assert [decode(item.result.data).size for item in items] == [(200, 100)] * 6


def test_csv_columns_become_modifications(tmp_path):
    path = tmp_path / "rows.csv"
    path.write_text('sku,title,box.fill,rating,grid\nA1,First,#00ff00,4.5,"[{""a"": 2}]"\nA2,,,,\n', encoding="utf-8")
    rows, unmatched = csv_rows(tk.load_template(CARD), path)
    assert unmatched == ["sku"]
    assert rows[0].modifications == [
        {"name": "title", "text": "First"},
        {"name": "box", "fill": "#00ff00"},
        {"name": "rating", "star": "4.5"},
        {"name": "grid", "rows": [{"a": 2}]},
    ]
    assert rows[1].modifications == [] and rows[1].cells["sku"] == "A2"
    applied = tk.apply(tk.load_template(CARD), rows[0].modifications).template
    assert applied.layer("rating").star == 4.5


def test_a_cell_that_is_not_json_fails_its_row_and_text_fields_never_read_json(tmp_path):
    """A title may start with a bracket; a table's rows that are not JSON fail their row only."""
    path = tmp_path / "rows.csv"
    path.write_text('title,grid\n[Draft] Notes,"[{""a"": 2}]"\n"{""id"": 1}",[{oops\n', encoding="utf-8")
    first, second = csv_rows(tk.load_template(CARD), path)[0]
    assert first.error is None
    assert first.modifications == [{"name": "title", "text": "[Draft] Notes"}, {"name": "grid", "rows": [{"a": 2}]}]
    assert second.error is not None and second.error.startswith("column 'grid': not valid JSON")


def batch(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "templatekit.cli", "batch", *args], capture_output=True, text=True)


def test_a_thousand_rows_are_rendered_failures_listed_and_a_second_run_resumes(tmp_path):
    template_path = tmp_path / "card.json"
    template_path.write_text(json.dumps(CARD))
    data = tmp_path / "data.csv"
    with data.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["sku", "title", "box.fill"])
        for n in range(1000):
            writer.writerow([f"SKU-{n:04d}", f"Item {n}", "not-a-colour" if n in (17, 512) else f"#{n % 256:02x}0000"])
    out = tmp_path / "out"
    first = batch(str(template_path), "--csv", str(data), "-o", str(out), "--name", "{sku}", "--format", "webp")
    assert first.returncode == 1, first.stderr
    assert "998 written, 0 there already, 2 failed" in first.stdout
    assert "row 18: " in first.stderr and "row 513: " in first.stderr and "not-a-colour" in first.stderr
    files = sorted(path.name for path in out.iterdir() if path.name != "batch-warnings.csv")
    assert len(files) == 998 and files[0] == "SKU-0000.webp" and not [name for name in files if "partial" in name]
    image = decode((out / "SKU-0200.webp").read_bytes()).convert("RGB")
    assert image.size == (200, 100) and abs(image.getpixel((5, 5))[0] - 200) <= 3
    for name in ("SKU-0003.webp", "SKU-0999.webp"):
        (out / name).unlink()
    second = batch(str(template_path), "--csv", str(data), "-o", str(out), "--name", "{sku}", "--format", "webp")
    assert "996 of 1000 files exist already; rendering the other 4" in second.stderr
    assert "2 written, 996 there already, 2 failed" in second.stdout


def card_and_rows(tmp_path: Path, rows: str) -> tuple[Path, Path]:
    """The card's template file and a CSV file of ``rows``."""
    template_path = tmp_path / "card.json"
    template_path.write_text(json.dumps(CARD))
    data = tmp_path / "data.csv"
    data.write_text(rows)
    return template_path, data


def test_bad_name_patterns_are_named(tmp_path):
    template_path, data = card_and_rows(tmp_path, "sku,title\nA,x\nA,y\n")
    unknown = batch(str(template_path), "--csv", str(data), "-o", str(tmp_path / "o"), "--name", "{colour}")
    assert unknown.returncode == 1 and "'colour' is not a column" in unknown.stderr
    clash = batch(str(template_path), "--csv", str(data), "-o", str(tmp_path / "o"), "--name", "{sku}")
    assert clash.returncode == 1 and "rows 1 and 2 both make A.png" in clash.stderr
    for pattern in ("{row.__class__}", "{sku!r}", "{sku:>99}"):  # a column's name, never a format expression
        expression = batch(str(template_path), "--csv", str(data), "-o", str(tmp_path / "o"), "--name", pattern)
        assert expression.returncode == 1 and f"{pattern[1:-1]!r} is not a column" in expression.stderr
    stray = batch(str(template_path), "--csv", str(data), "-o", str(tmp_path / "o"), "--name", "{sku")
    assert stray.returncode == 1 and "a { with no placeholder; write {{ for the brace itself" in stray.stderr


def test_a_name_takes_columns_by_their_names_as_they_are(tmp_path):
    template_path, data = card_and_rows(tmp_path, "title.text,sku\nx,A\ny,B\n")
    out = tmp_path / "o"
    done = batch(str(template_path), "--csv", str(data), "-o", str(out), "--name", "{{{sku}}}-{title.text}-{row}")
    assert done.returncode == 0, done.stderr
    assert sorted(path.name for path in out.glob("*.png")) == [
        "A_-x-1.png",
        "B_-y-2.png",
    ]  # braces are no file name characters


def test_file_names_stay_in_the_folder(tmp_path):
    template_path, data = card_and_rows(tmp_path, "sku\n../../escape\n/etc/passwd\n")
    done = batch(str(template_path), "--csv", str(data), "-o", str(tmp_path / "o"), "--name", "{sku}")
    assert done.returncode == 0, done.stderr
    assert sorted(path.name for path in (tmp_path / "o").glob("*.png")) == ["escape.png", "etc_passwd.png"]
    assert not Path(tmp_path.parent / "escape.png").exists()


def test_the_readme_batch_line_renders_the_example_csv(tmp_path):
    """The README's batch command, as written but for its output folder, on the example CSV: one
    PNG per row, named by its SKU, each with its own EAN-13 barcode."""
    zxingcpp = pytest.importorskip("zxingcpp")
    root = Path(__file__).resolve().parents[2]
    line = next(line for line in (root / "README.md").read_text().splitlines() if line.startswith("templatekit batch"))
    arguments = shlex.split(line.split("#")[0])[2:]
    arguments[arguments.index("-o") + 1] = str(tmp_path / "out")  # run from the repository, written here
    done = subprocess.run(
        [sys.executable, "-m", "templatekit.cli", "batch", *arguments], capture_output=True, text=True, cwd=root
    )
    assert done.returncode == 0, done.stderr
    with (root / "examples/data/products.csv").open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    for row in rows:
        image = decode((tmp_path / "out" / f"{row['sku']}.png").read_bytes())
        found = zxingcpp.read_barcodes(image, formats=zxingcpp.BarcodeFormat.EAN13)
        assert [code.text for code in found] == [row["ean"]], row


def test_a_missing_csv_file_is_a_clean_error(tmp_path):
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "templatekit.cli",
            "batch",
            str(Path(__file__).resolve().parents[2] / "examples/templates/product-card.json"),
        ]
        + ["--csv", "products.csv", "-o", "out"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    assert done.stderr.strip() == "error: the CSV file products.csv cannot be read: No such file or directory"


def test_warnings_are_counted_listed_kept_beside_the_files_and_fail_a_strict_batch(tmp_path):
    """A misspelt column (price.colr) and a description cut to fit: the summary counts the
    rows with warnings, stderr lists them, batch-warnings.csv keeps them across a resumed
    run, and --strict exits 1 on them."""
    card = Path(__file__).resolve().parents[2] / "examples/templates/product-card.json"
    rows = tmp_path / "rows.csv"
    long = "Very long words that go on and on " * 30
    rows.write_text(f"sku,description,price.colr\nA,Fine,#ff0000\nB,{long},\n", encoding="utf-8")
    out = tmp_path / "out"

    def batch(*extra: str) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-m", "templatekit.cli", "batch", str(card), "--csv", str(rows), "-o", str(out)]
        return subprocess.run([*command, "--name", "{sku}", *extra], capture_output=True, text=True)

    def kept() -> dict[str, list[str]]:
        with (out / "batch-warnings.csv").open(encoding="utf-8") as handle:
            entries = list(csv.DictReader(handle))
        return {name: [e["warning"] for e in entries if e["file"] == name] for name in ("A.png", "B.png")}

    done = batch()
    assert done.returncode == 0, done.stderr
    assert "2 written, 0 there already, 0 failed, 2 with warnings" in done.stdout
    assert "row 1 (A.png): modifications[1].colr: layer 'price' (text) has no such field" in done.stderr
    assert "row 2 (B.png): layer 'description': text cut to" in done.stderr
    warnings = kept()
    assert ["colr" in w for w in warnings["A.png"]] == [True] and ["cut" in w for w in warnings["B.png"]] == [True]

    (out / "B.png").unlink()
    strict = batch("--strict")
    assert strict.returncode == 1, strict.stderr
    assert "1 written, 1 there already, 0 failed, 1 with warnings" in strict.stdout
    assert kept() == warnings  # row A was not rendered again: its warning is kept


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        ("sku,sku\nA,B\n", "names the column 'sku' twice (columns 1 and 2)"),
        ("sku,title\nA,x,extra\n", "row 1 has 1 cell(s) more than the header's 2 columns ('extra' first)"),
        ('sku,title\n"A,x\n', "is not valid CSV: unexpected end of data (a quote left open?)"),
    ],
)
def test_a_csv_whose_cells_would_be_lost_is_refused_before_anything_is_rendered(tmp_path, rows, message):
    template_path, data = card_and_rows(tmp_path, rows)
    done = batch(str(template_path), "--csv", str(data), "-o", str(tmp_path / "o"))
    assert done.returncode == 1 and message in done.stderr, done.stderr
    assert not list((tmp_path / "o").glob("*.png"))


def test_a_trailing_comma_is_no_cell(tmp_path):
    template_path, data = card_and_rows(tmp_path, "sku,title\nA,x,\n")
    done = batch(str(template_path), "--csv", str(data), "-o", str(tmp_path / "o"), "--name", "{sku}")
    assert done.returncode == 0, done.stderr
    assert [path.name for path in (tmp_path / "o").glob("*.png")] == ["A.png"]


def test_a_row_whose_cell_is_not_json_fails_alone(tmp_path):
    template_path, data = card_and_rows(tmp_path, 'sku,title,grid\nA,[Draft] A,\nB,x,[{oops\nC,y,"[{""a"": 1}]"\n')
    out = tmp_path / "o"
    done = batch(str(template_path), "--csv", str(data), "-o", str(out), "--name", "{sku}")
    assert done.returncode == 1 and "2 written, 0 there already, 1 failed" in done.stdout, done.stderr
    assert "row 2: column 'grid': not valid JSON" in done.stderr
    assert sorted(path.name for path in out.glob("*.png")) == ["A.png", "C.png"]


def test_a_column_nothing_uses_is_named_with_a_guess_and_fails_a_strict_batch(tmp_path):
    template_path, data = card_and_rows(tmp_path, "sku,titel,gird.rows\nA,x,[]\n")
    out = tmp_path / "o"
    done = batch(str(template_path), "--csv", str(data), "-o", str(out), "--name", "{sku}")
    assert done.returncode == 0, done.stderr
    note = "column 'titel' names no layer and is not in --name: it is not used (did you mean 'title'?)"
    assert f"note: {note}" in done.stderr and "'sku'" not in done.stderr  # sku names the files
    assert (
        "column 'gird.rows' names no layer and is not in --name: it is not used (did you mean 'grid.rows'?)"
        in done.stderr
    )
    (out / "A.png").unlink()
    strict = batch(str(template_path), "--csv", str(data), "-o", str(out), "--name", "{sku}", "--strict")
    assert strict.returncode == 1 and f"error: {note}; column 'gird.rows'" in strict.stderr, strict.stderr
    assert not list(out.glob("*.png"))  # refused before anything was rendered


def test_a_long_name_is_cut_to_what_a_file_system_takes(tmp_path):
    template_path, data = card_and_rows(tmp_path, f"sku\n{'é' * 300}\n")
    done = batch(str(template_path), "--csv", str(data), "-o", str(tmp_path / "o"), "--name", "{sku}")
    assert done.returncode == 0, done.stderr
    (written,) = (tmp_path / "o").glob("*.png")
    assert written.name == "é" * 100 + ".png" and len(written.name.encode()) <= 255
    data.write_text(f"sku\n{'a' * 199}.{'b' * 50}\n")  # cut after its dot, which is not kept
    done = batch(str(template_path), "--csv", str(data), "-o", str(tmp_path / "p"), "--name", "{sku}")
    assert done.returncode == 0 and [p.name for p in (tmp_path / "p").glob("*.png")] == ["a" * 199 + ".png"]


def test_a_folder_or_file_that_cannot_be_written_is_named_not_a_traceback(tmp_path):
    template_path, data = card_and_rows(tmp_path, "sku\nA\nB\n")
    (tmp_path / "file").write_text("")
    folder = batch(str(template_path), "--csv", str(data), "-o", str(tmp_path / "file" / "out"))
    assert folder.returncode == 2 and "Traceback" not in folder.stderr, folder.stderr
    assert f"error: -o {tmp_path / 'file' / 'out'}: {tmp_path / 'file'} is a file, not a folder" in folder.stderr
    out = tmp_path / "o"
    (out / ".B.png.partial").mkdir(parents=True)  # where B's file is written first: it cannot be
    stopped = batch(str(template_path), "--csv", str(data), "-o", str(out), "--name", "{sku}")
    assert stopped.returncode == 1 and "Traceback" not in stopped.stderr, stopped.stderr
    assert f"error: {out / 'B.png'}: cannot write (Is a directory)" in stopped.stderr
    assert (out / "A.png").exists() and not (out / "B.png").exists()


def test_a_batch_stopped_halfway_keeps_the_warnings_of_the_files_it_wrote(tmp_path):
    """Ctrl-C after the first file: its warning (text cut to fit) is in the warnings file."""
    long = "words that do not fit " * 40
    template_path, data = card_and_rows(tmp_path, f"sku,title\nA,{long}\nB,{long}\nC,{long}\n")
    out = tmp_path / "o"

    def stop(done: int, total: int) -> None:
        raise KeyboardInterrupt

    assert run_batch(template_path, data, out, "{sku}", "png", 1, stop) == 130
    with (out / WARNINGS_FILE).open(encoding="utf-8") as handle:
        kept = list(csv.DictReader(handle))
    assert {entry["file"] for entry in kept} == {"A.png"} and any("cut" in entry["warning"] for entry in kept)
    assert sorted(path.name for path in out.glob("*.png")) == ["A.png"]


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        ("title.name,box.fill\nbox,#00ff00\n", "column 'title.name' would set the 'name' of layer 'title'"),
        ("title,title.text\nA,B\n", "columns 'title' and 'title.text' both set 'text' of layer 'title'"),
        ("\ntitle\nA\n", "has no header: its first line names no column"),
    ],
)
def test_columns_that_would_send_a_value_elsewhere_or_lose_one_are_refused(tmp_path, rows, message):
    """A ``name`` column would make the row's values another layer's: refused, as two
    columns for one field, and a header with no column."""
    template_path, data = card_and_rows(tmp_path, rows)
    done = batch(str(template_path), "--csv", str(data), "-o", str(tmp_path / "o"))
    assert done.returncode == 1 and message in done.stderr and "Traceback" not in done.stderr, done.stderr
    assert not list((tmp_path / "o").glob("*.png"))


def test_a_cell_past_the_csv_modules_limit_is_read_and_one_past_ours_is_named(tmp_path):
    rows = json.dumps([{"a": "a value of forty characters, or nearly"}] * 4000)  # past the csv module's 131,072
    template_path, data = card_and_rows(tmp_path, "")
    with data.open("w", newline="") as handle:
        csv.writer(handle).writerows([["sku", "grid"], ["A", rows]])
    assert len(rows) > 131_072
    done = batch(str(template_path), "--csv", str(data), "-o", str(tmp_path / "o"), "--name", "{sku}")
    assert done.returncode == 0 and "1 written" in done.stdout, done.stderr
    data.write_text(f"sku,title\nA,x\nB,{'y' * (MAX_CELL + 1)}\n")
    over = batch(str(template_path), "--csv", str(data), "-o", str(tmp_path / "p"), "--name", "{sku}")
    assert over.returncode == 1 and f"has a cell of more than {MAX_CELL:,} characters (row 2)" in over.stderr


def test_a_column_for_a_frame_is_told_to_name_a_field(tmp_path):
    framed = {**CARD, "layers": [*CARD["layers"], layer("frame", "strip", layers=[layer("text", "inner", text="x")])]}
    template_path = tmp_path / "framed.json"
    template_path.write_text(json.dumps(framed))
    data = tmp_path / "data.csv"
    data.write_text("strip\nx\n")
    done = batch(str(template_path), "--csv", str(data), "-o", str(tmp_path / "o"))
    assert "note: column 'strip' names a frame layer, which has no main field: name one (strip.FIELD)" in done.stderr


def test_failures_are_listed_in_the_order_of_the_rows(tmp_path):
    template_path, data = card_and_rows(tmp_path, "box.fill,grid\nnot-a-colour,\n,[{oops\nblue-ish,\n")
    done = batch(str(template_path), "--csv", str(data), "-o", str(tmp_path / "o"))
    assert done.returncode == 1, done.stderr
    listed = [line.split(":")[0].strip() for line in done.stderr.splitlines() if line.startswith("  row ")]
    assert listed == ["row 1", "row 2", "row 3"]


def test_a_warnings_file_that_cannot_be_read_or_written_is_named_before_or_after_rendering(tmp_path):
    template_path, data = card_and_rows(tmp_path, "sku,title\nA,x\n")
    out = tmp_path / "o"
    out.mkdir()
    (out / WARNINGS_FILE).write_text("row,file,warning\n#1,A.png,cut\n")
    unreadable = batch(str(template_path), "--csv", str(data), "-o", str(out), "--name", "{sku}")
    assert unreadable.returncode == 1 and "Traceback" not in unreadable.stderr, unreadable.stderr
    assert f"error: {out / WARNINGS_FILE}: the warnings of earlier runs cannot be read" in unreadable.stderr
    assert not (out / "A.png").exists()  # refused before anything was rendered
    (out / WARNINGS_FILE).unlink()
    (out / f".{WARNINGS_FILE}.partial").mkdir()  # where the file is written first: it cannot be
    long = "words that do not fit " * 40
    data.write_text(f"sku,title\nA,{long}\n")
    unwritable = batch(str(template_path), "--csv", str(data), "-o", str(out), "--name", "{sku}")
    assert unwritable.returncode == 1 and "Traceback" not in unwritable.stderr, unwritable.stderr
    assert "1 written" in unwritable.stdout and "row 1 (A.png): layer 'title': text cut" in unwritable.stderr
    assert f"error: {out / WARNINGS_FILE}: cannot write (Is a directory)" in unwritable.stderr


def test_a_batch_ended_by_sigterm_stops_its_workers_and_keeps_what_it_wrote(tmp_path):
    template_path, data = card_and_rows(tmp_path, "title\n" + "".join(f"Row {n}\n" for n in range(2000)))
    out = tmp_path / "o"
    command = [sys.executable, "-m", "templatekit.cli", "batch", str(template_path), "--csv", str(data), "-o", str(out)]
    process = subprocess.Popen([*command, "--workers", "2"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while len(list(out.glob("*.png"))) < 5 and time.monotonic() < deadline:
        time.sleep(0.05)
    process.send_signal(signal.SIGTERM)
    stdout, stderr = process.communicate(timeout=60)
    assert process.returncode == 143 and "Traceback" not in stderr, stderr
    written = len(list(out.glob("*.png")))
    assert 5 <= written < 2000 and f"stopped: {out}: {written} written" in stdout
    assert not list(out.glob(".*partial"))
    deadline = time.monotonic() + 10
    while _processes_naming(str(data)) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _processes_naming(str(data))  # its workers ended with it


def _processes_naming(text: str) -> list[int]:
    """The processes whose command line holds ``text`` (a batch's workers are forks of it)."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and text in (entry / "cmdline").read_bytes().decode(errors="replace"):
                found.append(int(entry.name))
        except OSError:
            continue
    return found


def test_a_stop_just_after_a_file_lands_counts_that_file_and_keeps_its_warnings(tmp_path, monkeypatch, capsys):
    """SIGTERM between a file's rename into place and its count: the file and its
    warning were left out of the summary and the warnings file."""
    from templatekit import batch_command

    long = "words that do not fit " * 40
    template_path, data = card_and_rows(tmp_path, f"sku,title\nA,{long}\nB,{long}\nC,{long}\n")
    out = tmp_path / "o"
    placed = batch_command.whole_file

    @contextlib.contextmanager
    def then_stopped(target: Path) -> Iterator[Path]:
        with placed(target) as partial:
            yield partial
        if target.suffix == ".png":
            os.kill(os.getpid(), signal.SIGTERM)  # handled before the next line of the batch

    monkeypatch.setattr(batch_command, "whole_file", then_stopped)
    status = run_batch(template_path, data, out, "{sku}", "png", 1, lambda done, total: None)
    assert status == 143
    assert [path.name for path in out.glob("*.png")] == ["A.png"]
    assert f"stopped: {out}: 1 written" in capsys.readouterr().out
    assert "1,A.png,layer 'title': text cut" in (out / WARNINGS_FILE).read_text()
