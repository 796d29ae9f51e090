"""Organization drift: where the organization differs from its organization file (``chatops
org export`` wrote it, an admin keeps it in a repository), for scheduled runs.

Each drifted object (a channel, a group, a person, the organization's settings, the
linkifiers, a membership rule) is one finding, in the words ``chatops org diff`` uses, with
the change that puts it back as the file says when one can be sent as it is (a plan ``chatops
audit apply`` carries out and ``chatops undo`` reverts); where putting it back creates
something first (a channel or a group the file names and the organization lacks), the action
is ``chatops org apply FILE``, which makes it stage by stage. What the server would refuse in
applying the file (a name it does not know, a setting this server lacks) is one critical
finding.

With no ``file`` nothing is compared and the audit passes (``chatops audit run --all`` runs
it); schedule it with ``chatops audit run org_drift -p file org.yaml``.

One threshold:

- ``max_drifted_objects`` (0): fail when more objects than this differ from the file;
  ``-1`` switches the check off.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import pandas as pd

from ..changes.kinds import Several
from ..org import export_document, load_document
from ..org.diff import Drift, diff_documents
from ..org.plan import Plan, make_plan
from ._common import crossed, finding
from ._common import summary as summary_of
from ._params import Param
from ._result import AuditResult, Finding

if TYPE_CHECKING:
    from .._client import Client
    from ..changes import Change

__all__ = ["Judged", "Options", "Read", "conclude", "fetch", "findings", "judge", "org_drift"]


@dataclass(frozen=True)
class Options:
    """The parameters of :func:`org_drift`, checked (ValueError naming the one out of range)."""

    file: str = ""
    prune: bool = False
    max_drifted_objects: int = 0

    def __post_init__(self) -> None:
        if self.max_drifted_objects < -1:
            raise ValueError(
                f"max_drifted_objects must be -1 or more, not {self.max_drifted_objects}"
            )


@dataclass(frozen=True)
class Read:
    """What :func:`fetch` read: the file, the organization's export, and the plan that would
    make the organization as the file says (None with no file)."""

    site: str
    wanted: dict[str, Any] | None
    actual: dict[str, Any] | None
    plan: Plan | None


@dataclass(frozen=True)
class Judged:
    """The differences found, with what they were found from."""

    read: Read
    options: Options
    generated_at: str
    drift: list[Drift]

    @property
    def objects(self) -> list[str]:
        """The drifted objects, by name."""
        return sorted({d.name for d in self.drift})

    @property
    def failed(self) -> list[str]:
        return crossed("max_drifted_objects", self.options.max_drifted_objects, len(self.objects))


def org_drift(
    client: Client,
    *,
    file: Annotated[
        str, Param("the organization file (YAML) to compare with; empty compares nothing")
    ] = "",
    prune: Annotated[
        bool, Param("also report what the organization has and the file does not list")
    ] = False,
    max_drifted_objects: Annotated[
        int, Param("fail when more objects than this differ from the file (-1: off)", low=-1)
    ] = 0,
    now: datetime | None = None,
) -> AuditResult:
    """Compare the organization with ``file``: a finding per drifted object, with the change
    that restores it.

    Tables: ``drift`` (one row per difference: object, field, the organization's value, the
    file's) and ``plan`` (the changes ``chatops org apply`` would make, by stage).
    """
    options = Options(file=file, prune=prune, max_drifted_objects=max_drifted_objects)
    generated = (now or datetime.now(UTC)).isoformat()
    return conclude(judge(fetch(client, options), options, generated_at=generated))


def fetch(client: Client, options: Options) -> Read:
    """Read the file (a mistake in it: :class:`~chatops.org.OrgFileError` with its line),
    the organization's export and the plan that would apply the file."""
    if not options.file:
        return Read(client.site, None, None, None)
    wanted = load_document(Path(options.file).expanduser())
    rules = [str(r["group"]) for r in wanted.get("membership_rules", [])]
    actual = export_document(client, rules_for=rules)
    return Read(client.site, wanted, actual, make_plan(wanted, client, prune=options.prune))


def judge(read: Read, options: Options, *, generated_at: str) -> Judged:
    """The differences between the file and the organization; no I/O."""
    if read.wanted is None or read.actual is None:
        return Judged(read, options, generated_at, [])
    drift = diff_documents(read.wanted, read.actual, prune=options.prune)
    return Judged(read, options, generated_at, drift)


def conclude(judged: Judged) -> AuditResult:
    """Findings, tables and the summary."""
    read, options = judged.read, judged.options
    compared = (
        str(options.file)
        if options.file
        else "no organization file given (file=PATH): nothing compared"
    )
    summary = summary_of(
        "org_drift",
        failed=judged.failed,
        counts={
            "files_compared": 1 if options.file else 0,
            "drifted_objects": len(judged.objects),
            "differences": len(judged.drift),
        },
        thresholds={"max_drifted_objects": options.max_drifted_objects},
        site=read.site,
        generated_at=judged.generated_at,
        subjects=sorted(set(_named(read.wanted)) | set(judged.objects)),
        compared=compared,
    )
    tables = {"drift": _drift_frame(judged.drift), "plan": _plan_frame(read.plan)}
    return AuditResult.of(findings(judged), summary, tables)


def findings(judged: Judged) -> list[Finding]:
    """A finding per drifted object, and one for a file that cannot be applied."""
    return _findings(judged.drift, judged.read.plan, judged.options.file)


def _named(doc: dict[str, Any] | None) -> list[str]:
    """Every object the file names, as the findings name them."""
    if doc is None:
        return []
    names = ["the organization"] if "organization" in doc else []
    names += ["the linkifiers"] if "linkifiers" in doc else []
    names += [f"#{c['name']}" for c in doc.get("channels") or ()]
    names += [f"@{g['name']}" for g in doc.get("user_groups") or ()]
    names += [str(p["email"]) for p in doc.get("people") or ()]
    names += [f"folder “{f['name']}”" for f in doc.get("channel_folders") or ()]
    names += [f"profile field “{f['name']}”" for f in doc.get("custom_profile_fields") or ()]
    names += [f"@{r['group']}" for r in doc.get("membership_rules") or ()]
    return names


def _findings(drift: list[Drift], plan: Plan | None, file: str) -> list[Finding]:
    by_object: dict[str, list[Drift]] = {}
    for d in drift:
        by_object.setdefault(d.name, []).append(d)
    found: list[Finding] = []
    for name, items in by_object.items():
        changes = _restoring(name, plan)
        text = "; ".join(d.words.removeprefix(f"{name}: ") for d in items)
        fix: Change | None = None
        if changes:
            fix = changes[0] if len(changes) == 1 else Several.of(changes)
            action = "Put it back as the file says (or change the file)"
        else:
            action = f"Apply the file: chatops org apply {file} (or change the file)"
        found.append(finding("warning", name, text, action, fix))
    if plan is not None and plan.problems:
        found.append(
            finding(
                "critical",
                "the organization file",
                "cannot be applied as it is: " + "; ".join(plan.problems),
                f"Correct {file}: each name and setting above is said with the closest one",
                None,
            )
        )
    return found


def _restoring(name: str, plan: Plan | None) -> list[Change]:
    """The plan's changes to the object ``name`` (none when one of them needs an object the
    plan creates first: only ``chatops org apply`` makes those in order)."""
    if plan is None or plan.problems:
        return []  # a file that cannot be applied: nothing of its plan is offered
    steps = [s for s in plan.steps if s.words.startswith(f"{name}: ")]
    if any(_provisional(s.change) for s in steps):
        return []
    return [s.change for s in steps]


def _provisional(change: Change) -> bool:
    import msgspec

    def walk(value: object) -> bool:
        if isinstance(value, int) and not isinstance(value, bool):
            return value < 0
        if isinstance(value, dict):
            return any(walk(v) for v in value.values())
        if isinstance(value, list):
            return any(walk(v) for v in value)
        return False

    return walk(msgspec.to_builtins(change))


def _drift_frame(drift: list[Drift]) -> pd.DataFrame:
    return pd.DataFrame(
        [[d.kind, d.name, d.field, str(d.actual), str(d.wanted)] for d in drift],
        columns=["kind", "object", "field", "organization", "file"],
    )


def _plan_frame(plan: Plan | None) -> pd.DataFrame:
    rows = [] if plan is None else [[s.stage, s.words] for s in plan.steps]
    return pd.DataFrame(rows, columns=["stage", "change"])
