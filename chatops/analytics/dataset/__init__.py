"""An organization's history as a local, incremental Parquet dataset.

One call syncs what an account can read into a cache folder and returns the frames the views
take; a re-run fetches what is new and what changed anywhere in history (edits, moves,
reactions, deletions: from the event queue the last sync left, the channels' topic lists and a
re-read of the newest stored messages; see :mod:`._refresh`), so the frames equal those of a
sync into an empty folder::

    >>> from chatops.analytics import Dataset
    >>> ds = Dataset.sync("~/.zuliprc", cache="~/chatops-data/acme")
    >>> f = ds.frames()
    >>> f.messages.groupby("channel", observed=True).size()

The layout (``docs/dataset-layout.md``)::

    CACHE/manifest.json                      schema version, watermarks, files, coverage, queue
    CACHE/messages/narrow=channel-12/part-000007.parquet
    CACHE/messages/narrow=dm/part-000003.parquet
    CACHE/tables/{users,channels,subscriptions,user_groups}.parquet

A message lives in exactly one part file of the narrow it is in now; the manifest lists the live
files, and a file enters or leaves the dataset only by an atomic rewrite of the manifest, so an
interrupted sync (Ctrl-C or ``kill -9``) leaves the last complete state and the next sync resumes
from its watermarks. Files are private to their owner (0600, folders 0700).

The package, by what each module does:

- :mod:`._dataset`: :class:`Dataset` (sync, import, frames, info, export);
- the sync: :mod:`._refresh` (its steps, in order) over :mod:`._changes` (events, topic lists,
  lookups), :mod:`._fetch` (requests, each narrow's plan and pages) and :mod:`._narrow_files`
  (the part files and the manifest); :mod:`._org` (channels, users, subscriptions, groups),
  :mod:`._progress` (the bar) and :mod:`._slots` (requests in flight, by priority);
- pages and tables: :mod:`._pages` (the one decoder of ``GET /messages`` pages), :mod:`._tables`
  (Arrow tables to frames), :mod:`._files` (private files, atomic writes, the lock, the
  manifest);
- :mod:`.records`: API records to the analytics frames (``AnalyticsFrames``);
- :mod:`.realm_export`: a Zulip organization data export read into frames or written as a
  dataset (:mod:`._export_tables` reads its files, :mod:`._export_build` writes the layout).
"""

from __future__ import annotations

from ..coverage import Coverage
from ._dataset import Dataset, default_cache
from ._files import SCHEMA_VERSION
from ._refresh import MAX_PAGE, SyncStats

__all__ = ["MAX_PAGE", "SCHEMA_VERSION", "Coverage", "Dataset", "SyncStats", "default_cache"]
