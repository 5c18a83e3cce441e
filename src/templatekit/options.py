"""How to render: one immutable value that the public functions make from their keyword
arguments and pass down, so that no stage takes a long list of them."""

from __future__ import annotations

import math
from datetime import datetime

from attrs import evolve, frozen

from templatekit.assets import AssetLoader

#: The pixels per px at which charts are drawn into a PDF.
PDF_DENSITY = 3.0


@frozen(kw_only=True)
class PdfInfo:
    """A PDF's metadata besides its title (the template's name). Without ``created`` no
    date is recorded, so that the same input gives the same bytes."""

    author: str = ""
    creator: str = "templatekit"
    subject: str = ""
    created: datetime | None = None


@frozen(kw_only=True)
class RenderOptions:
    """Everything about a render but the template and its modifications.

    ``time`` is the moment of a video template that a still shows (default: its
    ``poster``, else its finished design); ``paginate`` continues table rows that do
    not fit on further pages; ``density`` is the pixels per px at which charts are
    drawn; ``vector`` also keeps SVG versions of charts (for the PDF writer);
    ``memory_limit`` is the render's memory budget in bytes (see ``templatekit.budget``).
    """

    format: str = "png"
    scale: float = 1.0
    thumbnail: bool = False
    debug: bool = False
    time: float | None = None
    paginate: bool = False
    density: float = 2.0
    vector: bool = False
    assets: AssetLoader | None = None
    memory_limit: int | None = None
    pdf: PdfInfo = PdfInfo()

    def __attrs_post_init__(self) -> None:
        """Arguments a caller got wrong, named as the public functions name them."""
        if not (isinstance(self.scale, (int, float)) and 0 < self.scale < math.inf):  # the memory budget bounds it
            raise ValueError(f"scale: must be a positive number (got {self.scale!r})")
        if self.time is not None and not (isinstance(self.time, (int, float)) and 0 <= self.time < math.inf):
            raise ValueError(f"moment: must be a number of seconds, 0 or more (got {self.time!r})")
        if self.pdf.created is not None and not isinstance(self.pdf.created, datetime):
            raise ValueError(f"created: must be a datetime (got {self.pdf.created!r})")
        limit = self.memory_limit
        if limit is not None and (not isinstance(limit, int) or isinstance(limit, bool) or limit < 1):
            raise ValueError(f"memory_limit: must be a whole number of bytes, 1 or more (got {limit!r})")
        if self.assets is not None and not isinstance(self.assets, AssetLoader):
            raise ValueError(f"assets: must be an AssetLoader (got {type(self.assets).__name__})")

    def for_pdf(self) -> RenderOptions:
        """These options as a PDF needs them: pages, vector charts, denser raster ones."""
        return evolve(self, format="pdf", paginate=True, density=PDF_DENSITY, vector=True)
