"""The template format as attrs classes, and the converter to and from JSON."""
