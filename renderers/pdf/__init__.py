"""PDF drawing with reportlab: ``render.render_document`` lays a document's blocks out on its pages and
records a box for every fact it draws; the modules beside it draw one kind of block each (text, tables,
charts, widgets), the page chrome, the house style (``theme``) and the fonts."""
