"""What one account may do and choose when it invites people, without widgets (spec 4.8): send
email invitations and create links (the organization's settings say who), and the roles,
channels and user groups it may give new users, checked before anything is sent.
:class:`~chatops.widgets.invitations_model.InvitationsModel` holds one (``model.choices``).

    choices = InviteChoices(Session(chatops.Client.from_zuliprc("~/.zuliprc")))
    choices.may_send, choices.allowed_roles()          # True, [200, 300, 400, 600]
    choices.check_options(InviteOptions(invite_as=100))  # FieldError: not as an administrator
"""

from __future__ import annotations

from chatops.types import UserGroup

from ._model import ROLE_NAMES, FieldError, Session
from ._words import setting_label
from .invitations_data import MAX_EXPIRY_DAYS, MAX_WELCOME_TEXT, InviteOptions

__all__ = ["InviteChoices"]


class InviteChoices:
    """What the acting account of ``session`` may do and give when inviting; what the server
    says of its permissions is asked once (:meth:`forget_permissions` to ask again)."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.client = session.client
        #: the channels and groups new users may join, by ID, as last fetched
        self.channel_names: dict[int, str] = {}
        self.group_names: dict[int, str] = {}
        self._may: dict[str, bool] = {}

    # -- what the account may do ------------------------------------------------------------
    def _permits(self, setting: str) -> bool:
        if setting not in self._may:
            self._may[setting] = self.session.role < 600 and self.session.permits(setting)
        return self._may[setting]

    @property
    def may_send(self) -> bool:
        """Whether the account may send email invitations (``can_invite_users_group``)."""
        return self._permits("can_invite_users_group")

    @property
    def may_create_links(self) -> bool:
        """Whether it may create reusable links (``create_multiuse_invite_group``)."""
        return self._permits("create_multiuse_invite_group")

    def forget_permissions(self) -> None:
        """Ask the server again next time (after the organization's settings changed)."""
        self._may.clear()

    def missing_permission(self) -> str | None:
        """Why the account may invite nobody, or None when it may."""
        if self.session.role >= 600:
            return "Guests cannot invite anyone to the organization; you are a guest."
        if self.may_send or self.may_create_links:
            return None
        return (
            f"{self.missing('can_invite_users_group', 'email')} "
            f"{self.missing('create_multiuse_invite_group', 'link')}"
        )

    # -- permissions in words ------------------------------------------------------------------
    def _setting_holders(self, setting: str) -> str:
        value = self.session.realm.get(f"realm_{setting}")
        if isinstance(value, int):
            group = next((g for g in self.session.groups if g.id == value), None)
            if group is None:
                return "a user group"
            name = group.name.removeprefix("role:")
            return {"fullmembers": "full members", "everyone": "everyone"}.get(name, name)
        return "selected users and groups"

    def missing(self, setting: str, kind: str) -> str:
        """Why the account may not send email invitations (``kind`` email) or create links
        (``link``): who ``setting`` allows, in words."""
        what = "Sending email invitations" if kind == "email" else "Creating invitation links"
        role = self.session.role_name
        article = "an" if role[:1] in "aeiou" else "a"
        return (
            f"{what} is allowed to {self._setting_holders(setting)} "
            f"(the organization's “{setting_label('realm', setting)}”); you are {article} {role} "
            "and not among them."
        )

    # -- options -------------------------------------------------------------------------------
    def allowed_roles(self) -> list[int]:
        """Roles the acting account may give: its own and less powerful ones (as the server)."""
        return [role for role in ROLE_NAMES if role >= self.session.role]

    def role_options(self) -> list[tuple[str, int]]:
        """(label, role) of the roles the account may give, for a picker."""
        return [(ROLE_NAMES[r].capitalize(), r) for r in self.allowed_roles()]

    def default_role(self) -> int:
        """The role a new invitation gives unless told otherwise: member, when allowed."""
        roles = self.allowed_roles()
        return 400 if 400 in roles else roles[-1]

    def allowed_channels(self) -> dict[int, str]:
        """Channels the acting account may subscribe new users to, by ID, with their names.

        The server's rule: the channel must be readable (subscribed, or public for a
        non-guest); when the account may not subscribe others at all, none; otherwise a
        default channel, or one where the account is an administrator, in the channel's
        ``can_add_subscribers_group`` or ``can_administer_channel_group``, or (not being a
        private channel it is not subscribed to) in the organization's setting.
        """
        session = self.session
        me = session.me.user_id
        if not (session.is_admin or session.permits("can_add_subscribers_group")):
            return {}
        subscribed = {s.stream_id for s in self.client.channels.subscriptions()}
        allowed: dict[int, str] = {}
        for ch in self.client.channels.list(include_default=True):
            member = ch.stream_id in subscribed
            if ch.is_archived or not (member or not ch.invite_only):
                continue
            if (
                ch.is_default
                or session.is_admin
                or me in session.group_members(ch.can_add_subscribers_group)
                or me in session.group_members(ch.can_administer_channel_group)
                or not (ch.invite_only and not member)
            ):
                label = ch.name + (" (default)" if ch.is_default else "")
                allowed[ch.stream_id] = label + (" (private)" if ch.invite_only else "")
        return dict(sorted(allowed.items(), key=lambda kv: kv[1].casefold()))

    def allowed_groups(self) -> dict[int, str]:
        """User groups the acting account may add new users to, by ID, with their names."""
        session = self.session
        if session.role >= 600:
            return {}
        me = session.me.user_id
        manage_all = session.permits("can_manage_all_groups")
        allowed: dict[int, str] = {}
        group: UserGroup
        for group in session.groups:
            if group.is_system_group or group.deactivated:
                continue
            if (
                manage_all
                or me in session.group_members(group.can_manage_group)
                or me in session.group_members(group.can_add_members_group)
            ):
                allowed[group.id] = group.name
        return dict(sorted(allowed.items(), key=lambda kv: kv[1].casefold()))

    def load(self) -> None:
        """Fetch the channels and user groups the account may give new users."""
        self.channel_names = self.allowed_channels()
        self.group_names = self.allowed_groups()

    def check_options(self, options: InviteOptions) -> InviteOptions:
        """Refuse, before sending, choices the server would refuse; returns ``options``."""
        roles = self.allowed_roles()
        if options.invite_as not in roles:
            mine = self.session.role_name
            names = ", ".join(ROLE_NAMES[r] + "s" for r in roles)
            raise FieldError(
                "invite_as",
                f"As {'an' if mine[:1] in 'aeiou' else 'a'} {mine} you can invite {names} only.",
            )
        if not self.channel_names and options.stream_ids:
            self.channel_names = self.allowed_channels()
        for sid in options.stream_ids:
            if sid not in self.channel_names:
                raise FieldError(
                    "stream_ids", f"You may not add new users to channel #{sid}; pick another."
                )
        if not self.group_names and options.group_ids:
            self.group_names = self.allowed_groups()
        for gid in options.group_ids:
            if gid not in self.group_names:
                raise FieldError(
                    "group_ids", f"You may not add people to user group #{gid}; pick another."
                )
        days = options.expires_in_days
        if days is not None and not 1 <= days <= MAX_EXPIRY_DAYS:
            raise FieldError(
                "expires_in_days",
                f"Enter 1 to {MAX_EXPIRY_DAYS:,} days, or tick “never”.",
            )
        text = options.welcome_message_custom_text
        if text is not None:
            if not self.session.is_admin:
                raise FieldError(
                    "welcome_message_custom_text",
                    "Only organization administrators can write a custom welcome message.",
                )
            if len(text) > MAX_WELCOME_TEXT:
                raise FieldError(
                    "welcome_message_custom_text",
                    f"The welcome message is {len(text):,} characters long; at most "
                    f"{MAX_WELCOME_TEXT:,} are allowed.",
                )
        return options
