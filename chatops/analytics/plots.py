"""Deprecated: each view's plot now lives with the view.

A result draws itself (``result.plot(ax=None)``), and a view's plot function is
``chatops.analytics.views.REGISTRY[<view>].plot``; :class:`ReportFigure` is
``chatops.analytics.ReportFigure``. This module still offers its old names, re-exported from
the registry, with a DeprecationWarning.
"""

from __future__ import annotations

import warnings

from ._figure import ReportFigure
from .views.active_users import plot_active_users
from .views.activity_heatmap import plot_activity_heatmap
from .views.channel_scorecard import plot_channel_scorecard
from .views.client_and_dm_mix import plot_client_and_dm_mix
from .views.interaction_graph import plot_interaction_graph
from .views.messages_over_time import plot_messages_over_time
from .views.newcomer_cohorts import plot_newcomer_cohorts
from .views.participation_distribution import plot_participation_distribution
from .views.reactions_and_engagement import plot_reactions_and_engagement
from .views.topic_lifecycle import plot_topic_lifecycle
from .views.zulip_stats import plot_zulip_stats

__all__ = [
    "ReportFigure",
    "plot_active_users",
    "plot_activity_heatmap",
    "plot_channel_scorecard",
    "plot_client_and_dm_mix",
    "plot_interaction_graph",
    "plot_messages_over_time",
    "plot_newcomer_cohorts",
    "plot_participation_distribution",
    "plot_reactions_and_engagement",
    "plot_topic_lifecycle",
    "plot_zulip_stats",
]

warnings.warn(
    "chatops.analytics.plots is deprecated: a view's plot is "
    "chatops.analytics.views.REGISTRY[<view>].plot (or result.plot()), and ReportFigure is "
    "chatops.analytics.ReportFigure",
    DeprecationWarning,
    stacklevel=2,
)
