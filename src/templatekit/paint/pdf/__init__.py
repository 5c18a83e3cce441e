"""Vector PDF output: ``painter`` turns Scenes into pages, ``fonts`` embeds the glyphs
they use, ``objects`` writes the file."""

from templatekit.paint.pdf.painter import DocumentInfo, paint_pdf

__all__ = ["DocumentInfo", "paint_pdf"]
