"""Video templates: the timeline (what each layer looks like at a moment), the frames
(static layers painted once, animated ones composited per frame), sound, and the MP4
encoder (clips are decoded by ``templatekit.assets.clips``). Needs the ``video`` extra (PyAV)."""
