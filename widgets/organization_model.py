"""The organization's permission settings without widgets: who each names now (by the words
of Zulip's “Organization permissions” page), whether it includes you, and changing one, with
the change that would take away your own permission named first.

    model = OrganizationModel(Session(chatops.Client.from_zuliprc("~/.zuliprc")))
    model.fetch()
    model.settings_frame()                                   # one row per permission
    model.lockout("can_manage_all_groups", model.group_id("role:owners"))  # "" or why
    model.set_permission("can_create_groups", {"direct_members": [8], "direct_subgroups": [11]})
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pandas as pd

from chatops import User
from chatops.changes.kinds import UpdateRealm

from ._model import FieldError, Reporter, Said, Session, frame, wire
from ._who import Pick, WhoChoices, same_value
from ._words import setting_label

__all__ = ["ORGANIZATION_COLUMNS", "SECTIONS", "OrganizationModel"]

#: The permissions as Zulip's “Organization permissions” page groups them, in its order.
SECTIONS: dict[str, tuple[str, ...]] = {
    "Joining the organization": ("can_invite_users_group", "create_multiuse_invite_group"),
    "Channel permissions": (
        "can_create_public_channel_group",
        "can_create_web_public_channel_group",
        "can_create_private_channel_group",
        "can_add_subscribers_group",
        "can_set_topics_policy_group",
    ),
    "Group permissions": ("can_manage_all_groups", "can_create_groups"),
    "Direct message permissions": (
        "direct_message_permission_group",
        "direct_message_initiator_group",
    ),
    "Moving messages": (
        "can_move_messages_between_topics_group",
        "can_move_messages_between_channels_group",
        "can_resolve_topics_group",
    ),
    "Message deletion": ("can_delete_any_message_group", "can_delete_own_message_group"),
    "Other permissions": (
        "can_access_all_users_group",
        "can_add_custom_emoji_group",
        "can_mention_many_users_group",
        "can_summarize_topics_group",
        "can_create_write_only_bots_group",
        "can_create_bots_group",
        "can_manage_billing_group",
    ),
}
ORGANIZATION_COLUMNS = ("Section", "Setting", "Who now", "Includes you")
YOU_IN, YOU_OUT = "✓ yes", "no"


class OrganizationModel:
    """The organization's permission settings as the account of ``session`` sees them;
    ``status`` receives each outcome in words."""

    def __init__(
        self,
        session: Session,
        *,
        status: Reporter | None = None,
        changed: Callable[[], None] | None = None,
    ) -> None:
        self.session = session
        self.client = session.client
        self.status: Reporter = status or Said()
        #: runs after the server changed something (fetch again, and show it)
        self.changed = changed or self.fetch
        self.users: list[User] = []
        self.who = WhoChoices(session, [])

    def fetch(self) -> None:
        """Fetch the organization's settings, groups and people again."""
        self.session.refresh()
        self.users = list(self.client.users.list())
        self.who = WhoChoices(self.session, self.users)

    # -- what there is ------------------------------------------------------------------------
    def missing_permission(self) -> str | None:
        if not self.session.is_admin:
            return (
                "Only organization administrators can change the organization's permissions; "
                f"you are {'an' if self.session.role_name[0] in 'aeiou' else 'a'} "
                f"{self.session.role_name}."
            )
        return None

    def settings(self) -> list[str]:
        """The permission settings the server reports, in the settings page's order."""
        realm = self.session.realm
        supported = (realm.get("server_supported_permission_settings") or {}).get("realm") or {}
        known = [s for names in SECTIONS.values() for s in names]
        return [
            s
            for s in known + sorted(set(supported) - set(known))
            if f"realm_{s}" in realm and (not supported or s in supported)
        ]

    def section(self, setting: str) -> str:
        return next((t for t, names in SECTIONS.items() if setting in names), "Other permissions")

    def current(self, setting: str) -> Any:
        """The setting's value now (a group id, or people and groups)."""
        return self.session.realm.get(f"realm_{setting}")

    def includes_you(self, value: Any) -> bool:
        return self.session.me.user_id in self.session.group_members(value)

    def settings_frame(self) -> pd.DataFrame:
        """One row per permission: its section, Zulip's label (API name as tooltip), who it
        names now and whether that includes you."""
        rows = [
            {
                "Section": self.section(s),
                "Setting": setting_label("realm", s),
                "Who now": self.who.words(self.current(s)),
                "Includes you": YOU_IN if self.includes_you(self.current(s)) else YOU_OUT,
            }
            for s in self.settings()
        ]
        return frame(rows, ORGANIZATION_COLUMNS)

    def setting_options(self) -> list[tuple[str, str]]:
        return [(str(setting_label("realm", s)), s) for s in self.settings()]

    def options(self, setting: str) -> list[tuple[str, Pick]]:
        """What ``setting`` may name, its current value among them."""
        return self.who.options("realm", setting, keep=self.who.picks(self.current(setting)))

    def group_id(self, name: str) -> int:
        for g in self.session.groups:
            if g.name == name:
                return g.id
        raise FieldError("setting_value", f"There is no group called {name!r}.")

    # -- a change --------------------------------------------------------------------------
    def _checked(self, setting: str, value: Any) -> tuple[str, Any]:
        if setting not in self.settings():
            raise FieldError("setting", f"{setting!r} is not an organization permission setting.")
        if isinstance(value, (list, tuple)):
            value = self.who.value(value, kind="realm", setting=setting)
        old = self.current(setting)
        if same_value(old, value):
            raise FieldError(
                "setting_value",
                f"“{setting_label('realm', setting)}” already names {self.who.words(value)}.",
            )
        return setting, value

    def describe(self, setting: str, value: Any) -> str:
        """The change :meth:`set_permission` makes, in words: “Setting”: old → new."""
        setting, value = self._checked(setting, value)
        return (
            f"“{setting_label('realm', setting)}”: {self.who.words(self.current(setting))} → "
            f"{self.who.words(value)}"
        )

    def lockout(self, setting: str, value: Any) -> str:
        """What the acting account would lose by setting ``setting`` to ``value``, in words,
        or "" when it would keep what it has."""
        if isinstance(value, (list, tuple)):
            value = self.who.value(value, kind="realm", setting=setting)
        if not self.includes_you(self.current(setting)) or self.includes_you(value):
            return ""
        label = setting_label("realm", setting)
        why = f"You would no longer be in “{label}”: it would name {self.who.words(value)}"
        if setting == "can_manage_all_groups":
            return why + (
                ", so you could administer only the groups whose own “Who can administer this "
                "group” includes you."
            )
        return why + ", which does not include you."

    def set_permission(self, setting: str, value: Any, *, lose_access: bool = False) -> None:
        """Set one organization permission to a group, or to people and groups (``value`` as
        the API takes it, or the picker's choices). The server refuses if someone changed it
        since the last fetch. A change that takes a permission away from you is refused unless
        ``lose_access``."""
        if why := self.missing_permission():
            raise FieldError("setting", why)
        setting, value = self._checked(setting, value)
        if (why := self.lockout(setting, value)) and not lose_access:
            raise FieldError("setting_value", why)
        old = self.current(setting)
        label = setting_label("realm", setting)
        self.session.changes.make(
            UpdateRealm(settings={setting: {"new": wire(value), "old": wire(old)}}),
            {"subject": str(label)},
        )
        self.changed()
        self.status.ok(f"“{label}” now names {self.who.words(value)} (was {self.who.words(old)}).")
