"""The source of the client: ``AsyncClient`` and its resources.

``chatops/_sync/`` is written from this package by ``python scripts/unasync.py``; edit here.
"""
