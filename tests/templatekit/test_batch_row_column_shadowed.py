"""A CSV column named ``row`` is hidden by the ``{row}`` placeholder: its cells are used by
nothing, silently. The batch should say so (or use the column), not name the files 1, 2, …
while the user's ids are dropped without a word."""

from __future__ import annotations

import json

from templatekit.batch_command import run_batch
from tests.conftest import layer, template

CARD = template(layer("text", "title", text="Hello"), width=100, height=50)


def test_a_column_named_row_is_not_silently_dropped(tmp_path, capsys):
    template_path = tmp_path / "card.json"
    template_path.write_text(json.dumps(CARD))
    data = tmp_path / "data.csv"
    data.write_text("row,title\nA-17,x\nB-42,y\n")
    out = tmp_path / "o"
    status = run_batch(template_path, data, out, "{row}", "png", 1, lambda done, total: None)
    names = sorted(path.name for path in out.glob("*.png"))
    said = capsys.readouterr().err
    assert names == ["A-17.png", "B-42.png"] or ("'row'" in said and (status != 0 or "note" in said)), (names, said)
