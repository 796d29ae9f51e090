"""Analytics: the frames the views take, the views (V1-V11), their plots, and the audits' metrics.

Views are pure functions over frames (:mod:`.schema`); each returns a result with a tidy
``frame``, ``to_csv`` and ``plot``::

    >>> from chatops import analytics
    >>> f = analytics.AnalyticsFrames.from_records(msgs, users=users, channels=channels)
    >>> r = analytics.messages_over_time(f.messages, users=f.users, freq="W")
    >>> r.plot().savefig("messages.png"); r.to_csv("out/")

In a notebook a result (or its ``plot()``) as a cell's last expression shows its figure; the
sentences under each view come from :mod:`.sentences`. Each view's function, result, title,
plot and sentence are in :data:`REGISTRY` (``REGISTRY["channel_scorecard"]``); the options
every view takes are :class:`ViewOptions`; the dataset is :mod:`.dataset`; the engines the
views run on, :mod:`.engines`.
"""

from __future__ import annotations

from . import pseudonyms, sentences
from ._common import gini
from ._figure import ReportFigure
from .change import Change, Movers, movers
from .coverage import ChannelCoverage, Coverage
from .dataset import SCHEMA_VERSION, Dataset, SyncStats, default_cache
from .dataset._tables import topics_frame
from .dataset.records import (
    AnalyticsFrames,
    channels_frame,
    dm_recipients_frame,
    edit_kind,
    edits_frame,
    messages_frame,
    messages_table,
    reactions_frame,
    registered_accounts,
    subscriptions_frame,
    user_groups_frame,
    users_frame,
)
from .excel import to_excel
from .groups import group_members, slice_frames
from .metrics import (
    accounts_by_role,
    messages_per_channel,
    messages_per_period,
    plot_messages_per_channel,
)
from .pseudonyms import pseudonym
from .schema import COLUMNS, EDIT_KINDS, REQUIRED, RESOLVED_PREFIX, empty, validate
from .text import (
    Keywords,
    SearchResults,
    TopicThread,
    keywords,
    message_link,
    search_messages,
    topic_thread,
)
from .views import (
    CLIENT_LABELS,
    REGISTRY,
    ActiveUsers,
    ActivityHeatmap,
    ChannelScorecard,
    ClientAndDmMix,
    InteractionGraph,
    MessagesOverTime,
    NewcomerCohorts,
    ParticipationDistribution,
    ReactionsAndEngagement,
    TopicLifecycle,
    View,
    ViewOptions,
    ZulipStats,
    active_users,
    activity_heatmap,
    channel_scorecard,
    client_and_dm_mix,
    client_label,
    interaction_graph,
    messages_over_time,
    newcomer_cohorts,
    participation_distribution,
    reactions_and_engagement,
    topic_lifecycle,
    zulip_stats,
)
from .views._result import ViewResult

__all__ = [
    "Keywords",
    "SearchResults",
    "TopicThread",
    "keywords",
    "message_link",
    "search_messages",
    "to_excel",
    "topic_thread",
    "CLIENT_LABELS",
    "COLUMNS",
    "SCHEMA_VERSION",
    "ChannelCoverage",
    "Coverage",
    "Dataset",
    "SyncStats",
    "default_cache",
    "topics_frame",
    "EDIT_KINDS",
    "REQUIRED",
    "RESOLVED_PREFIX",
    "ActiveUsers",
    "Change",
    "Movers",
    "movers",
    "ReportFigure",
    "ActivityHeatmap",
    "AnalyticsFrames",
    "ChannelScorecard",
    "ClientAndDmMix",
    "InteractionGraph",
    "MessagesOverTime",
    "NewcomerCohorts",
    "ParticipationDistribution",
    "ReactionsAndEngagement",
    "TopicLifecycle",
    "REGISTRY",
    "View",
    "ViewOptions",
    "ViewResult",
    "ZulipStats",
    "accounts_by_role",
    "active_users",
    "activity_heatmap",
    "channel_scorecard",
    "channels_frame",
    "client_and_dm_mix",
    "client_label",
    "dm_recipients_frame",
    "edit_kind",
    "edits_frame",
    "empty",
    "gini",
    "group_members",
    "interaction_graph",
    "messages_frame",
    "messages_over_time",
    "messages_per_channel",
    "messages_per_period",
    "messages_table",
    "newcomer_cohorts",
    "participation_distribution",
    "plot_messages_per_channel",
    "pseudonym",
    "pseudonyms",
    "reactions_and_engagement",
    "reactions_frame",
    "registered_accounts",
    "sentences",
    "slice_frames",
    "subscriptions_frame",
    "topic_lifecycle",
    "user_groups_frame",
    "users_frame",
    "validate",
    "zulip_stats",
]
