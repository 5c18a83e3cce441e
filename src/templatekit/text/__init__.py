"""Text: fonts and fallback, Unicode itemising, shaping and typesetting into glyph runs."""
