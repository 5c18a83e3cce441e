"""What a layer layout needs besides its layer: fonts, assets, and a place for warnings."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from attrs import define, field

from templatekit.layout.fonts import FontBook

if TYPE_CHECKING:
    from templatekit.assets import AssetLoader


@define
class LayoutContext:
    fonts: FontBook
    assets: AssetLoader
    base_dir: Path | None = None
    time: float | None = None  # seconds into a video; None for still renders
    paginate: bool = False  # rows that do not fit a table continue on further pages
    density: float = 2.0  # pixels per px of content drawn by other programs (charts)
    vector: bool = False  # also keep vector versions (SVG) of charts, for vector output
    warnings: list[str] = field(factory=list)

    def warn(self, layer: str, message: str) -> None:
        self.warnings.append(f"layer {layer!r}: {message}")

    def face_warning(self, layer: str, family: str) -> None:
        """Warn once per layer when a requested family is not available."""
        if not self.fonts.has_family(family):
            self.warn(layer, f"font {family!r} is not available; using Inter")
