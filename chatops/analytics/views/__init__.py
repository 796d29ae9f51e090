"""The analytics views (V1-V11): pure functions over the frames of :mod:`..schema`.

No I/O and no client: each view takes frames and options and returns a small result object
(a dataclass) with a tidy ``frame``, extra frames or numbers where the view has several, the
``coverage`` note passed through, ``to_csv(path_or_dir)`` and ``plot(ax=None)``::

    >>> r = channel_scorecard(messages, channels=channels, subscriptions=subs, period="30D")
    >>> r.frame[["channel", "messages", "change_pct"]].head()
    >>> r.hhi
    0.18
    >>> r.plot().savefig("scorecard.png")

Options common to every view (``since``, ``until``, ``exclude_bots``, ``anonymize``, ``key``,
``coverage``, ``engine``) are declared once, with their types, defaults and meaning, in
:class:`ViewOptions`; each view's signature and ``help()`` spell them out.

Definitions used throughout: a user is *active* in a window when they sent a message in it
(``definition="any"`` in V2 also counts presence); a *topic* is a channel id and a topic name
with the resolved prefix ``"✔ "`` removed, so a topic keeps its identity when resolved.

Each view is in one place: its module (``views/<view>.py``; ``views/interaction_graph/``, a
package) holds its function (its signature, its documentation and the checks of its
arguments), its computation (its SQL, which every engine runs, and the pandas code that
finishes the SQL's aggregates; V11 has pandas code only), its result class, its plot and its
sentence, and registers them in :data:`REGISTRY`, in order V1 to V11::

    >>> v = REGISTRY["channel_scorecard"]
    >>> v.title, v.result, v.plot, v.sentence
    ('Channel scorecard', <class '...ChannelScorecard'>, <function plot_channel_scorecard ...>,
     <function channel_share ...>)

This package re-exports each view function and its result class, so
``chatops.analytics.views.<view>`` is the function.
"""

from __future__ import annotations

from ..pseudonyms import pseudonym
from ._options import ViewOptions
from ._registry import REGISTRY, View
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
from .zulip_stats import ZulipStats, zulip_stats

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
    "REGISTRY",
    "ReactionsAndEngagement",
    "TopicLifecycle",
    "View",
    "ViewOptions",
    "ZulipStats",
    "active_users",
    "activity_heatmap",
    "channel_scorecard",
    "client_and_dm_mix",
    "client_label",
    "interaction_graph",
    "messages_over_time",
    "newcomer_cohorts",
    "participation_distribution",
    "pseudonym",
    "reactions_and_engagement",
    "topic_lifecycle",
    "zulip_stats",
]
