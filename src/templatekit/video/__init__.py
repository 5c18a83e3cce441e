"""Video templates: the timeline (what each layer looks like at a moment), the frames
(static layers painted once, animated ones composited per frame), clips, sound, and
the MP4 encoder. Needs the ``video`` extra (PyAV)."""
