"""Language tags as ICU reads them: the check of a template's and a format's ``locale``."""

from __future__ import annotations

import icu


def locale_problem(tag: str) -> str | None:
    """What is wrong with a BCP 47 tag, or None when ICU reads it."""
    try:
        language = icu.Locale.forLanguageTag(tag).getLanguage()
    except icu.ICUError:
        language = ""
    return None if language else f"must be a BCP 47 language tag such as en-US or de-DE (got {tag!r})"
