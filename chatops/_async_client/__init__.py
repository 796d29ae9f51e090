"""The source of the client: ``AsyncClient`` and its resources.

``chatops/_sync_client/`` is written from this package by ``python scripts/unasync.py``;
edit here.
"""
