"""Where an organization differs from its file, in words an admin reads, grouped by object.

    drift = diff_documents(load_document("org.yaml"), export_document(client))
    for d in drift:
        print(d.words)   # "#deploys: “Who can post to this channel” is role:everyone; the file says backend"

Only what the file mentions is compared: an object missing from the file, or a field missing
from an object of the file, is left alone (``prune=True`` also reports the organization's
objects the file does not list). Objects are matched by name (people by email); lists whose
order matters (channel folders, linkifiers, custom profile fields) are compared in order.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from typing import Any

__all__ = ["Drift", "diff_documents", "drift_json"]

#: each list of the file: the kind of object, the key that names it, how a name is shown
LISTS: dict[str, tuple[str, str, str]] = {
    "channel_folders": ("channel folder", "name", "folder “{}”"),
    "channels": ("channel", "name", "#{}"),
    "user_groups": ("user group", "name", "@{}"),
    "custom_profile_fields": ("profile field", "name", "profile field “{}”"),
    "people": ("person", "email", "{}"),
}
#: setting labels by kind of object, for the words (the API name when a label is unknown)
_KINDS = {"channels": "stream", "user_groups": "group", "organization": "realm"}


@dataclass(frozen=True)
class Drift:
    """One difference: the object (``kind`` and ``name``), the field, the organization's value
    now and the file's, and the sentence that says it."""

    kind: str
    name: str
    field: str
    actual: Any
    wanted: Any
    words: str


def _shown(value: Any) -> str:
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, Mapping) and set(value) <= {"groups", "people"}:
        parts = [*value.get("groups", []), *value.get("people", [])]
        return ", ".join(str(p) for p in parts) or "nobody"
    if isinstance(value, Mapping):
        return ", ".join(f"{k}: {_shown(v)}" for k, v in value.items()) or "none"
    if isinstance(value, list):
        return ", ".join(str(v) for v in value) or "none"
    return str(value)


def _label(kind: str, field: str) -> str:
    setting = field.rsplit(".", 1)[-1]
    if field.startswith("permissions."):
        from ..widgets._words import setting_label

        return f"“{setting_label(_KINDS.get(kind, kind), setting)}”"
    return setting.replace("_", " ")


def _compare(
    kind: str, key: str, name: str, wanted: Mapping[str, Any], actual: Mapping[str, Any]
) -> Iterable[Drift]:
    for field, want in wanted.items():
        if field in ("renamed_from", key):
            continue
        have = actual.get(field)
        if isinstance(want, Mapping) and field in ("permissions", "policies"):
            for sub, sub_want in want.items():
                sub_have = (have or {}).get(sub)
                kind_of = "permissions." if field == "permissions" else ""
                if _normal(kind_of + sub, sub_have) != _normal(kind_of + sub, sub_want):
                    label = _label(kind, f"{field}.{sub}")
                    yield Drift(
                        LISTS.get(kind, (kind,))[0],
                        name,
                        f"{field}.{sub}",
                        sub_have,
                        sub_want,
                        f"{name}: {label} is {_shown(sub_have)}; the file says {_shown(sub_want)}",
                    )
            continue
        if (
            field in UNORDERED
            and isinstance(want, list)
            and _normal(field, have) != _normal(field, want)
        ):
            now = {str(v).casefold(): str(v) for v in have or ()}
            wanted_ = {str(v).casefold(): str(v) for v in want}
            parts = []
            if missing := [wanted_[k] for k in sorted(wanted_) if k not in now]:
                parts.append(f"the file adds {', '.join(missing)}")
            if extra := [now[k] for k in sorted(now) if k not in wanted_]:
                parts.append(f"the file leaves out {', '.join(extra)}")
            yield Drift(
                LISTS.get(kind, (kind,))[0],
                name,
                field,
                have,
                want,
                f"{name}: {field}: {'; '.join(parts)}",
            )
            continue
        if _normal(field, have) != _normal(field, want):
            yield Drift(
                LISTS.get(kind, (kind,))[0],
                name,
                field,
                have,
                want,
                f"{name}: {_label(kind, field)} is {_shown(have)}; the file says {_shown(want)}",
            )


#: lists whose order means nothing (a choice field's options keep theirs)
UNORDERED = ("members", "subgroups")


def who(value: Any) -> tuple[frozenset[str], frozenset[str]] | None:
    """A permission as (groups, people), names without case: one group's name is that group,
    ``role:nobody`` and an empty list are nobody; None when ``value`` is no permission."""
    if isinstance(value, str):
        named = value.casefold()
        return (frozenset() if named == "role:nobody" else frozenset({named})), frozenset()
    if isinstance(value, Mapping) and set(value) <= {"groups", "people"}:
        groups = {str(g).casefold() for g in value.get("groups") or ()} - {"role:nobody"}
        return frozenset(groups), frozenset(str(p).casefold() for p in value.get("people") or ())
    return None


def _normal(field: str, value: Any) -> Any:
    """A value as compared: a permission by who it names, a list of members or subgroups
    without regard to order or case, anything else as it is."""
    if field.startswith("permissions."):
        return who(value)
    if field in UNORDERED and isinstance(value, list):
        return sorted(str(v).casefold() for v in value)
    return value


def diff_documents(
    wanted: Mapping[str, Any], actual: Mapping[str, Any], *, prune: bool = False
) -> list[Drift]:
    """Every difference between the file (``wanted``) and the organization's export
    (``actual``), grouped by object in the file's order."""
    found: list[Drift] = []
    if "organization" in wanted:
        org_name = "the organization"
        found += _compare(
            "organization", "", org_name, wanted["organization"], actual.get("organization", {})
        )
    for section, (kind, key, shown) in LISTS.items():
        if section not in wanted:
            continue
        have = {str(o[key]).casefold(): o for o in actual.get(section, [])}
        listed = set()
        for obj in wanted[section]:
            name = str(obj[key])
            listed.add(name.casefold())
            match = have.get(name.casefold())
            if match is None and obj.get("renamed_from"):
                match = have.get(str(obj["renamed_from"]).casefold())
                if match is not None:
                    old = shown.format(obj["renamed_from"])
                    found.append(
                        Drift(
                            kind,
                            shown.format(name),
                            key,
                            match[key],
                            name,
                            f"{old}: to be renamed {shown.format(name)}",
                        )
                    )
                    listed.add(str(obj["renamed_from"]).casefold())
            if match is None:
                found.append(
                    Drift(
                        kind,
                        shown.format(name),
                        "",
                        None,
                        obj,
                        f"{shown.format(name)}: in the file, not in the organization",
                    )
                )
                continue
            found += _compare(section, key, shown.format(name), obj, match)
        if prune:
            for folded, obj in have.items():
                if folded not in listed:
                    name = shown.format(obj[key])
                    found.append(
                        Drift(
                            kind,
                            name,
                            "",
                            obj,
                            None,
                            f"{name}: in the organization, not in the file",
                        )
                    )
        if section in ("channel_folders", "custom_profile_fields"):
            order_wanted = [str(o[key]) for o in wanted[section]]
            order_have = [
                str(o[key]) for o in actual.get(section, []) if str(o[key]).casefold() in listed
            ]
            if [n.casefold() for n in order_have] != [
                n.casefold() for n in order_wanted
            ] and sorted(n.casefold() for n in order_have) == sorted(
                n.casefold() for n in order_wanted
            ):
                found.append(
                    Drift(
                        kind,
                        f"the {kind}s",
                        "order",
                        order_have,
                        order_wanted,
                        f"the {kind}s are in the order {', '.join(order_have)}; the file says "
                        f"{', '.join(order_wanted)}",
                    )
                )
    found += _linkifier_drift(wanted, actual)
    found += _rule_drift(wanted, actual)
    return found


def drift_json(drift: Iterable[Drift]) -> list[dict[str, Any]]:
    """The differences as JSON-ready records (``chatops org diff --format json``)."""
    return [asdict(d) for d in drift]


def _linkifier_drift(wanted: Mapping[str, Any], actual: Mapping[str, Any]) -> list[Drift]:
    """The linkifiers, compared as one ordered list (an earlier one wins where two match)."""
    found: list[Drift] = []
    if "linkifiers" in wanted:
        want = [(lf["pattern"], lf["url_template"]) for lf in wanted["linkifiers"]]
        have_l = [(lf["pattern"], lf["url_template"]) for lf in actual.get("linkifiers", [])]
        if want != have_l:
            missing = [p for p, _u in want if p not in {h for h, _ in have_l}]
            extra = [p for p, _u in have_l if p not in {w for w, _ in want}]
            parts = []
            if missing:
                parts.append(f"missing {', '.join(missing)}")
            if extra:
                parts.append(f"not in the file {', '.join(extra)}")
            if not parts:
                parts.append("in another order or with other URL templates")
            found.append(
                Drift(
                    "linkifier",
                    "the linkifiers",
                    "linkifiers",
                    have_l,
                    want,
                    f"the linkifiers differ from the file: {'; '.join(parts)}",
                )
            )
    return found


def _rule_drift(wanted: Mapping[str, Any], actual: Mapping[str, Any]) -> list[Drift]:
    """Each membership rule of the file whose group has a member missing from a channel."""
    found: list[Drift] = []
    if "membership_rules" not in wanted:
        return found
    have_r = {
        r["group"].casefold(): {c.casefold() for c in r["channels"]}
        for r in actual.get("membership_rules", [])
    }
    groups = {str(g["name"]).casefold(): g for g in actual.get("user_groups", [])}
    channels = {str(c["name"]).casefold(): c for c in actual.get("channels", [])}
    for rule in wanted["membership_rules"]:
        name = f"@{rule['group']}"
        group = groups.get(str(rule["group"]).casefold())
        if group is None:
            words = f"{name}: a membership rule names a group the organization does not have"
        elif group.get("deactivated"):
            words = f"{name}: a membership rule names a deactivated group"
        else:
            unknown = [c for c in rule["channels"] if c.casefold() not in channels]
            held = have_r.get(str(rule["group"]).casefold(), set())
            short = [
                c for c in rule["channels"] if c.casefold() in channels and c.casefold() not in held
            ]
            parts = []
            if unknown:
                parts.append(f"no channel {', '.join('#' + c for c in unknown)}")
            if short:
                parts.append(
                    f"not every member is subscribed to {', '.join('#' + c for c in short)}"
                )
            if not parts:
                continue
            words = f"{name}: " + "; ".join(parts)
        found.append(Drift("membership rule", name, "channels", None, rule["channels"], words))
    return found
