"""Invitations without widgets (spec 4.8): addresses read and classified, options checked
against the server's rules, invitations sent in batches with one outcome per address, reusable
links. :class:`~chatops.widgets.invitations.InvitationsPanel` lays it out.

    model = InvitationsModel(chatops.Client.from_zuliprc("~/.zuliprc"))
    model.classify("Ann <ann@example.org>, bob@example.org")   # one Candidate per row
    model.send("ann@example.org", InviteOptions(invite_as=400))  # one Outcome per row
    model.status.text                                            # "Invited 1 of 1 address ..."
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

import pandas as pd

from chatops import ApiError, ChatopsError, Client, InvitationFailed, RateLimited, ServerError
from chatops.types import Invite, User, UserGroup

from ._model import (
    ROLE_NAMES,
    Counter,
    FieldError,
    Reporter,
    Said,
    Session,
    Tracker,
    describe_error,
    frame,
)
from ._model import plural as _plural
from ._words import setting_label
from .invitations_data import (
    ALREADY_INVITED,
    ALREADY_USER,
    CLASSIFICATIONS,
    DEFAULT_BATCH_SIZE,
    DUPLICATE,
    FAILED,
    INVALID,
    INVITED,
    LOW_RATE_LIMIT,
    MAX_EXPIRY_DAYS,
    MAX_WELCOME_TEXT,
    NOT_SENT,
    PACE_SECONDS,
    PREVIEW_COLUMNS,
    REFUSED,
    RESULT_COLUMNS,
    RESULTS,
    SKIPPED,
    VALID,
    Candidate,
    InviteOptions,
    NotAllowed,
    Outcome,
    Stop,
    address_problem,
    error_code,
    split_addresses,
    when,
)
from .invitations_list import InvitationFilter, InvitationList

__all__ = [
    "Candidate",
    "InvitationsModel",
    "InvitationFilter",
    "InviteOptions",
    "NotAllowed",
    "Outcome",
    "address_problem",
    "split_addresses",
]


class InvitationsModel(InvitationList):
    """Invitations as one account may make them. ``status`` receives each outcome in words and
    ``progress`` counts addresses sent (and carries Cancel); the ``_shown_*`` methods are where a
    panel shows what changed."""

    def __init__(
        self,
        client: Client | Session,
        *,
        batch_size: int = DEFAULT_BATCH_SIZE,
        sleep: Callable[[float], None] = time.sleep,
        status: Reporter | None = None,
        progress: Tracker | None = None,
    ) -> None:
        self.session = client if isinstance(client, Session) else Session(client)
        self.client = self.session.client
        self.status: Reporter = status if status is not None else Said()
        self.progress: Tracker = progress if progress is not None else Counter()
        self._setup(batch_size, sleep)

    def _setup(self, batch_size: int, sleep: Callable[[float], None]) -> None:
        if batch_size < 1:
            raise ValueError("batch_size must be at least 1")
        self.batch_size = batch_size
        #: how sending waits when pacing itself by the rate limit (tests count the calls)
        self.sleep = sleep
        self.candidates: list[Candidate] = []
        self.outcomes: dict[int, Outcome] = {}
        self.requests_sent = 0
        self.sent_options: InviteOptions | None = None
        self.channel_names: dict[int, str] = {}
        self.group_names: dict[int, str] = {}
        self._user_names: dict[int, str] = {}
        self.link_url = ""
        self._may: dict[str, bool] = {}
        self._setup_list()

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
        if self.session.role >= 600:
            return "Guests cannot invite anyone to the organization; you are a guest."
        if self.may_send or self.may_create_links:
            return None
        return (
            f"{self._missing('can_invite_users_group', 'email')} "
            f"{self._missing('create_multiuse_invite_group', 'link')}"
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

    def _missing(self, setting: str, kind: str) -> str:
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

    def _role_options(self) -> list[tuple[str, int]]:
        return [(ROLE_NAMES[r].capitalize(), r) for r in self.allowed_roles()]

    def _default_role(self) -> int:
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

    # -- where a panel shows what changed (nothing to show without one) ------------------------
    def _shown_preview(self) -> None:
        """The candidates changed."""

    def _shown_results(self) -> None:
        """The outcomes changed."""

    # -- frames --------------------------------------------------------------------------------
    def preview_frame(self) -> pd.DataFrame:
        """The last classification, one row per address typed."""
        return frame(
            (
                {
                    "row": c.row,
                    "as typed": c.typed,
                    "address": c.email,
                    "classification": c.classification,
                    "detail": c.detail,
                }
                for c in self.candidates
            ),
            PREVIEW_COLUMNS,
        )

    def results_frame(self) -> pd.DataFrame:
        """The outcomes of the last Send (or Retry), in row order."""
        return frame(
            (
                {
                    "row": o.row,
                    "address": o.email,
                    "result": o.result,
                    "detail": o.detail,
                    "code": o.code,
                }
                for o in self.results
            ),
            RESULT_COLUMNS,
        )

    @property
    def results(self) -> list[Outcome]:
        """One outcome per row of the last Send, in row order."""
        return [self.outcomes[k] for k in sorted(self.outcomes)]

    # -- preview -------------------------------------------------------------------------------
    def classify(self, text: str) -> list[Candidate]:
        """Classify every row of ``text``.

        A row is an invalid address, a duplicate of an earlier row (ignoring case), already a
        user (active or deactivated), already invited (an active email invitation), or valid.
        """
        parsed = split_addresses(text)
        if not parsed:
            raise FieldError("addresses", "Paste at least one address, or upload a file.")
        users = self.client.users.list()
        known: dict[str, User] = {}
        hidden = 0
        for u in users:
            if u.delivery_email:
                known[u.delivery_email.lower()] = u
            elif not u.is_bot:
                hidden += 1
        invites: dict[str, Invite] = {
            i.email.lower(): i
            for i in self.client.invitations.list()
            if i.email and not i.is_multiuse
        }
        names = self._user_names = {u.user_id: u.full_name for u in users}
        seen: dict[str, int] = {}
        found: list[Candidate] = []
        for row, (typed, email) in enumerate(parsed, start=1):
            key = email.lower()
            problem = address_problem(email)
            if problem is not None:
                kind, detail = INVALID, problem
            elif key in seen:
                kind, detail = DUPLICATE, f"Same address as row {seen[key]}."
            elif key in known:
                user = known[key]
                state = "an active" if user.is_active else "a deactivated"
                kind = ALREADY_USER
                detail = f"{user.full_name} has {state} account" + (
                    "." if user.is_active else "; reactivate it instead of inviting."
                )
            elif key in invites:
                inv = invites[key]
                by = names.get(inv.invited_by_user_id, f"user {inv.invited_by_user_id}")
                kind = ALREADY_INVITED
                detail = (
                    f"Invited {when(inv.invited)} UTC by {by} as "
                    f"{ROLE_NAMES.get(inv.invited_as, str(inv.invited_as))}; expires "
                    f"{when(inv.expiry_date)}{'' if inv.expiry_date is None else ' UTC'}."
                )
            else:
                kind, detail = VALID, ""
            if problem is None:
                seen.setdefault(key, row)
            found.append(Candidate(row, typed, email, kind, detail))
        self.candidates = found
        self._shown_preview()
        counts = {k: sum(c.classification == k for c in found) for k in CLASSIFICATIONS}
        summary = ", ".join(f"{n:,} {k}" for k, n in counts.items() if n)
        extra = ""
        if hidden:
            extra = (
                f" {_plural(hidden, 'account')} hide their email address from you; the server "
                "refuses any of those when sending."
            )
        if not self.session.is_admin:
            extra += " You see only your own invitations."
        self.status.info(f"{_plural(len(found), 'row')}: {summary}.{extra}")
        return found

    # -- sending -------------------------------------------------------------------------------
    def send(self, text: str, options: InviteOptions) -> list[Outcome]:
        """Invite the valid rows of ``text``, batched; one outcome per row. Rows that are not
        valid are ``skipped`` with their classification."""
        if not self.may_send:
            raise NotAllowed(self._missing("can_invite_users_group", "email"))
        opts = self.check_options(options)
        candidates = self.classify(text)
        self.outcomes = {
            c.row: Outcome(c.row, c.email, SKIPPED, f"{c.classification}: {c.detail}".strip(" :"))
            for c in candidates
            if not c.valid
        }
        self.sent_options = opts
        valid = [c for c in candidates if c.valid]
        if not valid:
            self._shown_results()
            self.status.info("Nothing to send: no row is a valid new address. See the preview.")
            return self.results
        self._deliver(valid, opts)
        return self.results

    def retry_failed(self) -> list[Outcome]:
        """Send again only the rows that failed, with the options of the first Send."""
        if not self.may_send:
            raise NotAllowed(self._missing("can_invite_users_group", "email"))
        failed = [o for o in self.results if o.result == FAILED]
        if not failed or self.sent_options is None:
            self.status.info("Nothing failed, so there is nothing to retry.")
            return self.results
        # A request that failed on the way back may have invited its addresses after all.
        invited = {
            i.email.lower() for i in self.client.invitations.list() if i.email and not i.is_multiuse
        }
        users = {u.delivery_email.lower() for u in self.client.users.list() if u.delivery_email}
        again: list[Candidate] = []
        for o in failed:
            key = o.email.lower()
            if key in invited:
                self.outcomes[o.row] = Outcome(
                    o.row, o.email, INVITED, "Found among the active invitations on retry."
                )
            elif key in users:
                self.outcomes[o.row] = Outcome(
                    o.row, o.email, SKIPPED, "already a user: has an account now."
                )
            else:
                again.append(Candidate(o.row, o.email, o.email, VALID))
        if again:
            self._deliver(again, self.sent_options)
        else:
            self._shown_results()
            self.status.ok("Every failed address turned out to be invited or a user already.")
        return self.results

    def _deliver(self, candidates: Sequence[Candidate], opts: InviteOptions) -> None:
        """Send ``candidates`` in batches, recording an outcome for each; shows the results."""
        batches = [
            list(candidates[i : i + self.batch_size])
            for i in range(0, len(candidates), self.batch_size)
        ]
        self.requests_sent = 0
        self.progress.start(len(candidates), "addresses sent")
        stop: Stop | None = None
        for index, batch in enumerate(batches):
            if stop is not None:
                for c in batch:
                    self._record(
                        c, FAILED, f"Not sent after an earlier batch failed: {stop}", stop.error
                    )
                continue
            if self.progress.cancelled:
                for c in batch:
                    self._record(c, NOT_SENT, "cancelled")
                continue
            if index:
                self._pace()
            try:
                self._send_batch(batch, opts)
            except Stop as exc:
                stop = exc
            not_invited = sum(self.outcomes[c.row].result != INVITED for c in batch)
            self.progress.advance(len(batch), failed=not_invited)
        self._shown_results()
        self._summarise(candidates)
        self._shown_invitations()

    def _pace(self) -> None:
        """Slow down when the server's rate limit is nearly used up (429s are the client's)."""
        left = self.client.rate_limit_remaining
        if left is not None and left < LOW_RATE_LIMIT:
            self.sleep(PACE_SECONDS)

    def _record(
        self, c: Candidate, result: str, detail: str = "", error: BaseException | None = None
    ) -> None:
        code = error_code(error) if error is not None else ""
        self.outcomes[c.row] = Outcome(c.row, c.email, result, detail, code)

    def _send_batch(self, batch: list[Candidate], opts: InviteOptions) -> None:
        """One ``POST /invites`` for the batch (again for the rest when the server refused only
        some addresses and invited none); raises ``Stop`` when later batches would fail too."""
        pending = batch
        while pending:
            self.requests_sent += 1
            try:
                self.client.invitations.send([c.email for c in pending], **opts.request())
            except InvitationFailed as exc:
                refused = {
                    str(e[0]).lower(): str(e[1]) for e in (getattr(exc, "errors", None) or [])
                }
                sent = bool(getattr(exc, "sent_invitations", False))
                for c in pending:
                    reason = refused.get(c.email.lower())
                    if reason is not None:
                        self._record(c, REFUSED, reason, exc)
                    elif sent:
                        self._record(c, INVITED)
                rest = [c for c in pending if c.row not in self.outcomes]
                limited = bool(getattr(exc, "daily_limit_reached", False)) or bool(
                    getattr(exc, "license_limit_reached", False)
                )
                if rest and (limited or len(rest) == len(pending)):
                    for c in rest:
                        self._record(c, FAILED, describe_error(exc), exc)
                    if limited:
                        raise Stop(exc) from None
                    return
                # The server refused some addresses and so invited nobody: send the others.
                pending = rest
            except (RateLimited, ServerError) as exc:
                for c in pending:
                    self._record(c, FAILED, describe_error(exc), exc)
                if isinstance(exc, RateLimited):
                    raise Stop(exc) from None
                return
            except ApiError as exc:
                # Refused as a whole (permission, a channel, a group): so would every batch be.
                for c in pending:
                    self._record(c, FAILED, describe_error(exc), exc)
                raise Stop(exc) from None
            except ChatopsError as exc:
                for c in pending:
                    self._record(c, FAILED, describe_error(exc), exc)
                return
            else:
                for c in pending:
                    self._record(c, INVITED)
                return

    def _summarise(self, candidates: Sequence[Candidate]) -> None:
        rows = [self.outcomes[c.row] for c in candidates]
        n = {k: sum(o.result == k for o in rows) for k in RESULTS}
        skipped = sum(o.result == SKIPPED for o in self.outcomes.values())
        text = (
            f"Invited {n[INVITED]:,} of {_plural(len(rows), 'address', 'addresses')} in "
            f"{_plural(self.requests_sent, 'request')}"
        )
        parts = [f"{n[k]:,} {k}" for k in (REFUSED, FAILED, NOT_SENT) if n[k]]
        if skipped:
            parts.append(f"{skipped:,} skipped after the preview")
        text += ("; " + ", ".join(parts) if parts else "") + "."
        if self.progress.cancelled:
            text += " Cancelled: the rest were not sent."
        if n[FAILED]:
            self.status.error(text + " Use “Retry failed” to send the failed ones again.")
        elif n[REFUSED] or n[NOT_SENT]:
            self.status.info(text)
        else:
            self.status.ok(text)

    # -- links ---------------------------------------------------------------------------------
    def create_link(self, options: InviteOptions) -> str:
        """Create a reusable invitation link with ``options``; returns its URL."""
        if not self.may_create_links:
            raise NotAllowed(self._missing("create_multiuse_invite_group", "link"))
        opts = self.check_options(options)
        url = self.client.invitations.create_link(**opts.request())
        self.link_url = url
        role = ROLE_NAMES.get(opts.invite_as, str(opts.invite_as))
        expiry = (
            "never expires"
            if opts.expires_in_days is None
            else f"expires in {_plural(opts.expires_in_days, 'day')}"
        )
        self.status.ok(f"Created a reusable invitation link for new {role}s; it {expiry}.")
        self._shown_invitations()
        return url
