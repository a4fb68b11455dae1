"""The layout library and its retrieval: procedural layouts and their thumbnails, the checks every layout
passes, the layout-CLIP (model, training, the shipped weights in ``layout_clip/``), and the retrieval that
picks each page's layout for a document (``assign``)."""
