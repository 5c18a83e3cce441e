"""Layout: a resolved template becomes a Scene (see ``compose``)."""
