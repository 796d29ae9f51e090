"""The invitations already made, without widgets: the list of email invitations and reusable
links filtered by inviter, role, kind, expiry and state, and revoked or resent in bulk with one
result per invitation. :class:`~chatops.widgets.invitations_model.InvitationsModel` holds one
(``model.invitations``) and offers its methods too.

    model = InvitationsModel(chatops.Client.from_zuliprc("~/.zuliprc"))
    model.invitations_filter = InvitationFilter(role=400, expiry=WITHIN_A_WEEK)
    frame = model.load_invitations()                 # the members' invitations ending this week
    model.revoke_invitations(frame["invitation ID"])  # one Handled per invitation
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

import pandas as pd

from chatops import ApiError, ChatopsError, Client
from chatops.changes import Change
from chatops.changes.kinds import ResendInvitation, RevokeInvitation
from chatops.changes.log import ChangeLog
from chatops.types import Invite

from ._model import ROLE_NAMES, Reporter, Tracker, frame
from ._model import plural as _plural
from .invitations_data import error_code, when

__all__ = [
    "EXPIRIES",
    "STATES",
    "Handled",
    "InvitationFilter",
    "InvitationList",
]

# Kinds of invitation.
EMAIL = "email"
LINK = "link"
KINDS = (EMAIL, LINK)

# States of an invitation in the list: on the server, resent from this panel, revoked from it
# (the server lists active invitations only; a revoked one stays in the list, marked, until the
# panel is made again, so the admin sees what was done).
ACTIVE = "active"
RESENT = "resent"
REVOKED = "revoked"
STATES = (ACTIVE, RESENT, REVOKED)

# Expiry choices of the filter.
ANY_EXPIRY = "any"
WITHIN_A_DAY = "within a day"
WITHIN_A_WEEK = "within a week"
LATER = "in more than a week"
NEVER = "never"
EXPIRIES = (ANY_EXPIRY, WITHIN_A_DAY, WITHIN_A_WEEK, LATER, NEVER)
_DAY = 86_400

# Actions and their results, one per invitation.
REVOKE = "revoke"
RESEND = "resend"
DONE = "done"
FAILED = "failed"
SKIPPED = "skipped"
NOT_DONE = "not done"

LIST_COLUMNS = [
    "kind",
    "email or link",
    "role",
    "invited by",
    "invited (UTC)",
    "expires (UTC)",
    "state",
    "invitation ID",
    "about",
]
#: kept in the frame and Export CSV, not drawn: the list's column beside JupyterLab's file
#: browser holds five columns without cutting a word; what these say is the address's tooltip
LIST_HIDDEN = ("kind", "invited by", "invited (UTC)", "invitation ID", "about")
LIST_TIPS = {"email or link": "about"}
HANDLED_COLUMNS = ["invitation ID", "email or link", "action", "result", "detail", "code"]


@dataclass(frozen=True)
class InvitationFilter:
    """Which invitations the list shows; ``None`` (or ``"any"``) lets every value through.

    ``inviter`` is a user ID, ``role`` a role number (400 member ...), ``kind`` ``"email"`` or
    ``"link"``, ``expiry`` one of :data:`EXPIRIES`, ``state`` one of :data:`STATES`.
    """

    inviter: int | None = None
    role: int | None = None
    kind: str | None = None
    expiry: str = ANY_EXPIRY
    state: str | None = None

    def __post_init__(self) -> None:
        if self.role is not None and self.role not in ROLE_NAMES:
            known = ", ".join(str(r) for r in ROLE_NAMES)
            raise ValueError(f"role must be one of {known}, not {self.role!r}")
        if self.kind is not None and self.kind not in KINDS:
            raise ValueError(f"kind must be 'email' or 'link', not {self.kind!r}")
        if self.expiry not in EXPIRIES:
            raise ValueError(f"expiry must be one of {', '.join(EXPIRIES)}; not {self.expiry!r}")
        if self.state is not None and self.state not in STATES:
            raise ValueError(f"state must be one of {', '.join(STATES)}; not {self.state!r}")

    def admits(self, invite: Invite, state: str, at: int) -> bool:
        """Whether ``invite`` (in ``state``) passes the filter at time ``at``."""
        if self.inviter is not None and invite.invited_by_user_id != self.inviter:
            return False
        if self.role is not None and invite.invited_as != self.role:
            return False
        if self.kind is not None and (LINK if invite.is_multiuse else EMAIL) != self.kind:
            return False
        if self.state is not None and state != self.state:
            return False
        expiry = invite.expiry_date
        if self.expiry == NEVER:
            return expiry is None
        if self.expiry == WITHIN_A_DAY:
            return expiry is not None and expiry <= at + _DAY
        if self.expiry == WITHIN_A_WEEK:
            return expiry is not None and expiry <= at + 7 * _DAY
        if self.expiry == LATER:
            return expiry is None or expiry > at + 7 * _DAY
        return True


@dataclass(frozen=True)
class Handled:
    """What became of one invitation in a bulk revoke or resend."""

    invitation_id: int
    what: str  # the address, or the link's URL
    action: str
    result: str  # done, failed, skipped or not done (cancelled)
    detail: str = ""
    code: str = ""


class InvitationList:
    """The invitations made so far, filtered, revoked and resent in bulk.

    ``status`` and ``progress`` receive outcomes and counts; ``changed`` runs after the
    server's invitations changed (a panel fetches and shows them again) and ``handled`` after
    a bulk revoke or resend has a result per invitation. ``clock`` says what time it is for the
    expiry filter. ``guest`` says whether the account is a guest, whose list is empty without
    asking.
    """

    def __init__(
        self,
        client: Client,
        *,
        status: Reporter,
        progress: Tracker,
        changed: Callable[[], None] | None = None,
        handled: Callable[[], None] | None = None,
        clock: Callable[[], float] = time.time,
        changes: ChangeLog | None = None,
        guest: Callable[[], bool] | None = None,
    ) -> None:
        self.client = client
        #: whether the account is a guest, asked when the list is fetched: a guest has no
        #: invitations and may not list them (``GET /invites`` refuses guests)
        self.guest: Callable[[], bool] = guest if guest is not None else _false
        #: where revocations and resends are made and journalled
        self.changes = changes if changes is not None else ChangeLog(client)
        self.status = status
        self.progress = progress
        self.changed: Callable[[], None] = changed if changed is not None else _nothing
        self._handled: Callable[[], None] = handled if handled is not None else _nothing
        self.clock = clock
        self.invites: list[Invite] = []
        #: what this panel did to an invitation: its state and the invitation as it was
        self.ledger: dict[int, tuple[str, Invite]] = {}
        self.invitations_filter = InvitationFilter()
        self.handled: list[Handled] = []
        #: full names by user ID, of the inviters and of anyone the model fetched
        self.user_names: dict[int, str] = {}

    def _names(self, user_ids: Iterable[int]) -> dict[int, str]:
        """Full names by user ID, fetched again only when one is not known yet."""
        if not set(user_ids) <= self.user_names.keys():
            self.user_names = {u.user_id: u.full_name for u in self.client.users.list()}
        return self.user_names

    # -- the list ------------------------------------------------------------------------------
    def fetch_invitations(self, *, track: bool = False) -> list[Invite]:
        """Fetch the active invitations (and the inviters' names when one is new); with
        ``track``, counts the two steps on the progress bar."""
        if track:
            self.progress.start(2, "lists fetched (invitations, inviters' names)")
        self.invites = [] if self.guest() else self.client.invitations.list()
        if track:
            self.progress.advance()
        self._names([i.invited_by_user_id for i in self.invites])
        if track:
            self.progress.advance()
            self.progress.finish()
        return self.invites

    def _rows(self) -> list[tuple[Invite, str]]:
        """Every invitation with its state: those fetched (as this panel left them), then the
        ones revoked here that the server no longer lists."""
        rows = [(i, self.ledger.get(i.id, (ACTIVE,))[0]) for i in self.invites]
        listed = {i.id for i in self.invites}
        rows += [
            (inv, REVOKED)
            for key, (state, inv) in self.ledger.items()
            if state == REVOKED and key not in listed
        ]
        return rows

    def inviters(self) -> dict[int, str]:
        """The people who made the invitations listed, by user ID, with their names."""
        names = self.user_names
        ids = {i.invited_by_user_id for i, _s in self._rows()}
        return dict(
            sorted(
                ((uid, names.get(uid, f"user {uid}")) for uid in ids),
                key=lambda kv: kv[1].casefold(),
            )
        )

    def invitations_frame(self, only: InvitationFilter | None = None) -> pd.DataFrame:
        """The invitations fetched last that pass ``only`` (default: the list's filter),
        newest first."""
        chosen = only if only is not None else self.invitations_filter
        at = int(self.clock())
        names = self.user_names
        rows = sorted(
            ((i, s) for i, s in self._rows() if chosen.admits(i, s, at)),
            key=lambda r: (-r[0].invited, -r[0].id),
        )
        return frame(
            (
                {
                    "kind": LINK if i.is_multiuse else EMAIL,
                    "email or link": i.link_url if i.is_multiuse else i.email,
                    "role": ROLE_NAMES.get(i.invited_as, str(i.invited_as)),
                    "invited by": names.get(i.invited_by_user_id, f"user {i.invited_by_user_id}"),
                    "invited (UTC)": when(i.invited),
                    "expires (UTC)": when(i.expiry_date),
                    "state": state,
                    "invitation ID": i.id,
                    "about": (
                        f"{'Link' if i.is_multiuse else 'Email invitation'} {i.id}, made by "
                        f"{names.get(i.invited_by_user_id, f'user {i.invited_by_user_id}')} "
                        f"on {when(i.invited)} UTC"
                    ),
                }
                for i, state in rows
            ),
            LIST_COLUMNS,
        )

    def load_invitations(self) -> pd.DataFrame:
        """Fetch the invitations again (counting the steps) and return the filtered list."""
        self.fetch_invitations(track=True)
        return self.invitations_frame()

    # -- bulk actions --------------------------------------------------------------------------
    def revoke_invitations(self, invitation_ids: Iterable[int]) -> list[Handled]:
        """Revoke each invitation or link, one request each; one result per invitation."""
        return self._bulk(REVOKE, invitation_ids)

    def resend_invitations(self, invitation_ids: Iterable[int]) -> list[Handled]:
        """Send each email invitation again (links cannot be resent); one result each."""
        return self._bulk(RESEND, invitation_ids)

    def handled_frame(self) -> pd.DataFrame:
        """The results of the last bulk revoke or resend, in the order asked."""
        return frame(
            (
                {
                    "invitation ID": h.invitation_id,
                    "email or link": h.what,
                    "action": h.action,
                    "result": h.result,
                    "detail": h.detail,
                    "code": h.code,
                }
                for h in self.handled
            ),
            HANDLED_COLUMNS,
        )

    def _bulk(self, action: str, invitation_ids: Iterable[int]) -> list[Handled]:
        ids = list(dict.fromkeys(int(i) for i in invitation_ids))
        if not ids:
            raise ValueError(f"Select at least one invitation to {action}.")
        known: Mapping[int, Invite] = {i.id: i for i in self.invites}
        known = {**{k: inv for k, (_s, inv) in self.ledger.items()}, **known}
        verb = "revoked" if action == REVOKE else "resent"
        self.handled = []
        self.progress.start(len(ids), f"invitations {verb}")
        for invitation_id in ids:
            invite = known.get(invitation_id)
            what = "" if invite is None else str(invite.link_url or invite.email or "")
            if self.progress.cancelled:
                self.handled.append(
                    Handled(invitation_id, what, action, NOT_DONE, "cancelled before its turn")
                )
                continue
            handled = self._one(action, invitation_id, invite, what)
            self.handled.append(handled)
            self.progress.advance(failed=int(handled.result != DONE))
        self._handled()
        self.changed()
        self._summarise_bulk(action, verb)
        return self.handled

    def _one(self, action: str, invitation_id: int, invite: Invite | None, what: str) -> Handled:
        if invite is None:
            return Handled(
                invitation_id, what, action, SKIPPED, "Not among the invitations listed."
            )
        if self.ledger.get(invitation_id, ("",))[0] == REVOKED:
            return Handled(invitation_id, what, action, SKIPPED, "Already revoked.")
        if action == RESEND and invite.is_multiuse:
            return Handled(
                invitation_id,
                what,
                action,
                SKIPPED,
                "A reusable link is not sent to anyone, so it cannot be resent.",
            )
        try:
            change: Change = (
                ResendInvitation(invite_id=invitation_id)
                if action == RESEND
                else RevokeInvitation(invite_id=invitation_id, multiuse=invite.is_multiuse)
            )
            self.changes.make(change, {"subject": what})
        except ApiError as exc:
            return Handled(invitation_id, what, action, FAILED, exc.msg, error_code(exc))
        except ChatopsError as exc:
            return Handled(invitation_id, what, action, FAILED, str(exc), error_code(exc))
        self.ledger[invitation_id] = (REVOKED if action == REVOKE else RESENT, invite)
        detail = "Revoked." if action == REVOKE else "Sent again; its validity starts again."
        return Handled(invitation_id, what, action, DONE, detail)

    def _summarise_bulk(self, action: str, verb: str) -> None:
        n = {k: sum(h.result == k for h in self.handled) for k in (DONE, FAILED, SKIPPED, NOT_DONE)}
        text = f"{verb.capitalize()} {n[DONE]:,} of {_plural(len(self.handled), 'invitation')}"
        parts = [f"{n[k]:,} {k}" for k in (FAILED, SKIPPED, NOT_DONE) if n[k]]
        text += ("; " + ", ".join(parts) if parts else "") + ". One result per invitation below."
        if n[FAILED]:
            self.status.error(text)
        elif n[SKIPPED] or n[NOT_DONE]:
            self.status.info(text)
        else:
            self.status.ok(text)


def _nothing() -> None:
    """What the list tells when no panel listens."""


def _false() -> bool:
    """The account is not a guest, unless the model says otherwise."""
    return False
