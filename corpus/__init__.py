"""synthdocqa corpus: document assembly and everything on disk.

``assemble`` builds one document in memory (plan -> retrieve -> render -> raster -> degrade -> QA);
``generate`` writes documents into a corpus folder (resumable) and runs a corpus serially; ``store`` names
every corpus file, holds the records and the manifest, and is the one reader; ``tables`` writes the
corpus tables and the manifest; ``verify`` and ``reproduce`` check a corpus; ``partial`` writes the
planned or rendered documents of ``synthdocqa plan``/``render``; ``exports`` and ``report`` present it.
Imports ``ir``, ``renderers``, ``degradations`` and ``judges``; never prefect (flows drive this).
"""
