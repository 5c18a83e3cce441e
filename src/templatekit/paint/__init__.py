"""Painters: a Scene becomes pixels (``raster``) or a PDF page (``pdf``)."""
