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
from collections.abc import Callable, Iterable, Sequence

import pandas as pd

from chatops import ApiError, ChatopsError, Client, InvitationFailed, RateLimited, ServerError
from chatops.changes.kinds import CreateInviteLink, SendInvitations
from chatops.types import Invite, User

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
from .invitations_list import Handled, InvitationFilter, InvitationList
from .invitations_options import InviteChoices

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


class InvitationsModel:
    """Invitations as one account may make them, and the list of those made
    (:attr:`invitations`, an :class:`~chatops.widgets.invitations_list.InvitationList`).

    ``status`` receives each outcome in words and ``progress`` counts addresses sent (and
    carries Cancel). A panel hears what changed through ``previewed`` (the candidates),
    ``results_changed`` (the outcomes), ``invitations_changed`` (the server's invitations) and
    ``handled`` (the results of a bulk revoke or resend). ``sleep`` is how sending waits when
    pacing itself by the rate limit (tests count the calls).
    """

    def __init__(
        self,
        client: Client | Session,
        *,
        batch_size: int = DEFAULT_BATCH_SIZE,
        sleep: Callable[[float], None] = time.sleep,
        status: Reporter | None = None,
        progress: Tracker | None = None,
        previewed: Callable[[], None] | None = None,
        results_changed: Callable[[], None] | None = None,
        invitations_changed: Callable[[], None] | None = None,
        handled: Callable[[], None] | None = None,
    ) -> None:
        if batch_size < 1:
            raise ValueError("batch_size must be at least 1")
        self.session = client if isinstance(client, Session) else Session(client)
        self.client = self.session.client
        self.status: Reporter = status if status is not None else Said()
        self.progress: Tracker = progress if progress is not None else Counter()
        self._previewed: Callable[[], None] = previewed or _nothing
        self._results_changed: Callable[[], None] = results_changed or _nothing
        self.invitations = InvitationList(
            self.client,
            status=self.status,
            progress=self.progress,
            changed=invitations_changed,
            handled=handled,
            changes=self.session.changes,
            guest=lambda: self.session.role >= 600,
        )
        self.batch_size = batch_size
        self.sleep = sleep
        self.candidates: list[Candidate] = []
        self.outcomes: dict[int, Outcome] = {}
        self.requests_sent = 0
        self.sent_options: InviteOptions | None = None
        self.link_url = ""
        #: what the account may do, and the roles, channels and groups it may give
        self.choices = InviteChoices(self.session)

    # -- what the account may do and choose (the choices', here too) -------------------------
    @property
    def may_send(self) -> bool:
        """Whether the account may send email invitations (``can_invite_users_group``)."""
        return self.choices.may_send

    @property
    def may_create_links(self) -> bool:
        """Whether it may create reusable links (``create_multiuse_invite_group``)."""
        return self.choices.may_create_links

    @property
    def channel_names(self) -> dict[int, str]:
        """The channels new users may join, by ID, as last fetched."""
        return self.choices.channel_names

    @property
    def group_names(self) -> dict[int, str]:
        """The user groups new users may join, by ID, as last fetched."""
        return self.choices.group_names

    def forget_permissions(self) -> None:
        """Ask the server again next time (after the organization's settings changed)."""
        self.choices.forget_permissions()

    def missing_permission(self) -> str | None:
        """Why the account may invite nobody, or None when it may."""
        return self.choices.missing_permission()

    def allowed_roles(self) -> list[int]:
        """Roles the acting account may give: its own and less powerful ones (as the server)."""
        return self.choices.allowed_roles()

    def allowed_channels(self) -> dict[int, str]:
        """Channels the acting account may subscribe new users to, by ID, with their names."""
        return self.choices.allowed_channels()

    def allowed_groups(self) -> dict[int, str]:
        """User groups the acting account may add new users to, by ID, with their names."""
        return self.choices.allowed_groups()

    def role_options(self) -> list[tuple[str, int]]:
        """(label, role) of the roles the account may give, for a picker."""
        return self.choices.role_options()

    def default_role(self) -> int:
        """The role a new invitation gives unless told otherwise: member, when allowed."""
        return self.choices.default_role()

    def check_options(self, options: InviteOptions) -> InviteOptions:
        """Refuse, before sending, choices the server would refuse; returns ``options``."""
        return self.choices.check_options(options)

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

    # -- the invitations made (the list's, here too) -----------------------------------------
    @property
    def invites(self) -> list[Invite]:
        """The active invitations, as last fetched."""
        return self.invitations.invites

    @property
    def invitations_filter(self) -> InvitationFilter:
        """Which invitations :meth:`invitations_frame` lets through."""
        return self.invitations.invitations_filter

    @invitations_filter.setter
    def invitations_filter(self, chosen: InvitationFilter) -> None:
        self.invitations.invitations_filter = chosen

    @property
    def handled(self) -> list[Handled]:
        """One result per invitation of the last bulk revoke or resend."""
        return self.invitations.handled

    @property
    def ledger(self) -> dict[int, tuple[str, Invite]]:
        """What was done here to an invitation: its state and the invitation as it was."""
        return self.invitations.ledger

    @property
    def clock(self) -> Callable[[], float]:
        """What time it is, for the expiry filter."""
        return self.invitations.clock

    def fetch_invitations(self, *, track: bool = False) -> list[Invite]:
        """Fetch the active invitations (and the inviters' names when one is new)."""
        return self.invitations.fetch_invitations(track=track)

    def inviters(self) -> dict[int, str]:
        """The people who made the invitations listed, by user ID, with their names."""
        return self.invitations.inviters()

    def invitations_frame(self, only: InvitationFilter | None = None) -> pd.DataFrame:
        """The invitations fetched last that pass ``only`` (default: the filter), newest first."""
        return self.invitations.invitations_frame(only)

    def load_invitations(self) -> pd.DataFrame:
        """Fetch the invitations again (counting the steps) and return the filtered list."""
        return self.invitations.load_invitations()

    def revoke_invitations(self, invitation_ids: Iterable[int]) -> list[Handled]:
        """Revoke each invitation or link, one request each; one result per invitation."""
        return self.invitations.revoke_invitations(invitation_ids)

    def resend_invitations(self, invitation_ids: Iterable[int]) -> list[Handled]:
        """Send each email invitation again (links cannot be resent); one result each."""
        return self.invitations.resend_invitations(invitation_ids)

    def handled_frame(self) -> pd.DataFrame:
        """The results of the last bulk revoke or resend, in the order asked."""
        return self.invitations.handled_frame()

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
        names = self.invitations.user_names = {u.user_id: u.full_name for u in users}
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
        self._previewed()
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
    def describe_send(self, text: str, options: InviteOptions) -> tuple[str, list[str]]:
        """What Send will do with ``text`` and ``options``, previewing them (nothing is sent):
        the question to confirm (how many, as what, with which channels and groups, and
        whether those were kept from the last batch) and the addresses, one per item."""
        opts = self.check_options(options)
        valid = [c.email for c in self.classify(text) if c.valid]
        if not valid:
            raise FieldError("addresses", "No row is a valid new address: see the preview.")
        channels = ", ".join(f"#{self.channel_names.get(i, i)}" for i in opts.stream_ids)
        groups = ", ".join(f"@{self.group_names.get(i, i)}" for i in opts.group_ids)
        kept = self.results and self.sent_options is not None
        parts = [
            f"Send {_plural(len(valid), 'invitation')} as "
            f"{ROLE_NAMES.get(opts.invite_as, opts.invite_as)}",
            f"joining {channels}" if channels else "joining no channel of your choice",
        ]
        if kept and self.sent_options and self.sent_options.stream_ids == opts.stream_ids:
            parts[-1] += " (still chosen from the last batch)"
        if groups:
            parts.append(f"in {groups}")
        if opts.include_realm_default_subscriptions:
            parts.append("and the default channels")
        expiry = opts.expires_in_days
        parts.append(
            "never expiring" if expiry is None else f"expiring in {_plural(expiry, 'day')}"
        )
        return ", ".join(parts) + "?", valid

    def send(self, text: str, options: InviteOptions) -> list[Outcome]:
        """Invite the valid rows of ``text``, batched; one outcome per row. Rows that are not
        valid are ``skipped`` with their classification."""
        if not self.may_send:
            raise NotAllowed(self.choices.missing("can_invite_users_group", "email"))
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
            self._results_changed()
            self.status.info("Nothing to send: no row is a valid new address. See the preview.")
            return self.results
        self._deliver(valid, opts)
        return self.results

    def retry_failed(self) -> list[Outcome]:
        """Send again only the rows that failed, with the options of the first Send."""
        if not self.may_send:
            raise NotAllowed(self.choices.missing("can_invite_users_group", "email"))
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
            self._results_changed()
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
        self._results_changed()
        self._summarise(candidates)
        self.invitations.changed()

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
                self.session.changes.make(
                    SendInvitations(emails=[c.email for c in pending], options=opts.request()),
                    {"subject": f"{len(pending)} addresses"},
                )
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
            raise NotAllowed(self.choices.missing("create_multiuse_invite_group", "link"))
        opts = self.check_options(options)
        made = self.session.changes.make(
            CreateInviteLink(options=opts.request()), {"subject": "invitation link"}
        )
        url = str(made["invite_link"])
        self.link_url = url
        role = ROLE_NAMES.get(opts.invite_as, str(opts.invite_as))
        expiry = (
            "never expires"
            if opts.expires_in_days is None
            else f"expires in {_plural(opts.expires_in_days, 'day')}"
        )
        self.status.ok(f"Created a reusable invitation link for new {role}s; it {expiry}.")
        self.invitations.changed()
        return url


def _nothing() -> None:
    """What the model tells when no panel listens."""
