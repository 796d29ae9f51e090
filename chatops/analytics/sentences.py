"""The sentences an analyst reads under each view, computed from the data's own end and period.

Every function takes frames and returns a number or a sentence; none reads the wall clock. "The
end of the data" is the time of the newest message in the frame given (bots' included), or
``end`` when passed: a question such as "who posted for the first time in the last 90 days"
is asked of the 90 days before that moment, not of today and not of the newest first post::

    >>> from chatops.analytics import sentences
    >>> sentences.first_time_posters(messages, days=90)
    12
    >>> sentences.busiest_week(messages)
    'The busiest week began Monday 2026-04-13 with 153 messages, against a median week of 114.'
    >>> sentences.percent(0.0009)
    '0.09%'

Weeks run Monday to Sunday (as in the views' ``freq="W"``) and are named by their first day.

Each view's sentence lives with the view (its ``sentence`` in
:data:`~chatops.analytics.views.REGISTRY`); this module gathers them, with the helpers they
share, under the names analysts call.
"""

from __future__ import annotations

from ._percent import percent
from .views._shared import data_end
from .views.active_users import active_posters
from .views.activity_heatmap import busiest_hour
from .views.channel_scorecard import channel_share
from .views.client_and_dm_mix import direct_message_share
from .views.interaction_graph import reply_pairs
from .views.messages_over_time import busiest_week, weekly_counts
from .views.newcomer_cohorts import first_time_posters, newcomers
from .views.participation_distribution import participation
from .views.reactions_and_engagement import reactions
from .views.topic_lifecycle import topics_resolved
from .views.zulip_stats import stats_summary

__all__ = [
    "active_posters",
    "busiest_hour",
    "busiest_week",
    "channel_share",
    "data_end",
    "direct_message_share",
    "first_time_posters",
    "newcomers",
    "participation",
    "percent",
    "reactions",
    "reply_pairs",
    "stats_summary",
    "topics_resolved",
    "weekly_counts",
]
