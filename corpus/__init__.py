"""synthdocqa corpus: document assembly and everything on disk.

Assembly (plan -> retrieve -> render -> raster -> degrade -> QA for one document), the store (paths,
records, the one reader, manifest, hashes, verify, reproduce), tables, exports and the HTML report.
Imports ``ir``, ``renderers``, ``degradations`` and ``judges``; never prefect (flows drive this).
"""
