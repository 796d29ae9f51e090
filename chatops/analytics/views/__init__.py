"""The ten analytics views (V1-V10): pure functions over the frames of :mod:`.schema`.

No I/O and no client: each view takes frames and options and returns a small result object
(a dataclass) with a tidy ``frame``, extra frames or numbers where the view has several, the
``coverage`` note passed through, ``to_csv(path_or_dir)`` and ``plot(ax=None)``::

    >>> r = channel_scorecard(messages, channels=channels, subscriptions=subs, period="30D")
    >>> r.frame[["channel", "messages", "change_pct"]].head()
    >>> r.hhi
    0.18
    >>> r.plot().savefig("scorecard.png")

Options common to every view:

* ``since``, ``until``: keep messages in ``[since, until)`` (UTC when naive).
* ``exclude_bots``: drop messages (and reactions) of bots; needs ``users``.
* ``anonymize``: replace user ids in every output frame by a salted, stable hash
  (:func:`hash_user_id`, ``u-`` and 10 hex digits) and drop names and emails; ``salt`` chooses
  the salt (the same salt gives the same pseudonyms across views and runs).
* ``coverage``: a note on which channels and direct messages the data covers; default the one
  the dataset stores in ``messages.attrs["coverage"]``.

Definitions used throughout: a user is *active* in a window when they sent a message in it
(``definition="any"`` in V2 also counts presence); a *topic* is a channel id and a topic name
with the resolved prefix ``"✔ "`` removed, so a topic keeps its identity when resolved.

One module per view (``views/<view>.py``); this package re-exports each view function and
its result class, so ``chatops.analytics.views.<view>`` is the function.
"""

from __future__ import annotations

from .._common import hash_user_id
from ._shared import CLIENT_LABELS
from .active_users import ActiveUsers, active_users
from .activity_heatmap import ActivityHeatmap, activity_heatmap
from .channel_scorecard import ChannelScorecard, channel_scorecard
from .client_and_dm_mix import ClientAndDmMix, client_and_dm_mix, client_label
from .interaction_graph import InteractionGraph, interaction_graph
from .messages_over_time import MessagesOverTime, messages_over_time
from .newcomer_cohorts import NewcomerCohorts, newcomer_cohorts
from .participation_distribution import ParticipationDistribution, participation_distribution
from .reactions_and_engagement import ReactionsAndEngagement, reactions_and_engagement
from .topic_lifecycle import TopicLifecycle, topic_lifecycle

__all__ = [
    "ActiveUsers",
    "ActivityHeatmap",
    "CLIENT_LABELS",
    "ChannelScorecard",
    "ClientAndDmMix",
    "InteractionGraph",
    "MessagesOverTime",
    "NewcomerCohorts",
    "ParticipationDistribution",
    "ReactionsAndEngagement",
    "TopicLifecycle",
    "active_users",
    "activity_heatmap",
    "channel_scorecard",
    "client_and_dm_mix",
    "client_label",
    "hash_user_id",
    "interaction_graph",
    "messages_over_time",
    "newcomer_cohorts",
    "participation_distribution",
    "reactions_and_engagement",
    "topic_lifecycle",
]
