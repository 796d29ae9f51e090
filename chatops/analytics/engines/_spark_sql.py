"""The views' SQL, written once in DuckDB's dialect, in Spark's: sqlglot's translation, and the
few forms sqlglot leaves as DuckDB writes them.

sqlglot turns DuckDB's syntax into Spark's (``GROUP BY ALL``, ``FILTER``, lambdas, list
functions, ``arg_max`` as ``max_by``, list indexes from 1 to 0, ``NULLS LAST`` where the
orders differ). :func:`to_spark` adds what it does not:

- ``timezone(zone, t)`` (a UTC instant's local time in ``zone``) is
  ``CAST(from_utc_timestamp(t, zone) AS TIMESTAMP_NTZ)``, with the session's zone UTC, and
  ``date_trunc`` of a local time is a local time again;
- ``isodow(t)`` (Monday 1 to Sunday 7) is ``weekday(t) + 1``: sqlglot's own form counts from
  Sunday;
- ``epoch_us`` is ``unix_micros``, ``HUGEINT`` is ``DECIMAL(38, 0)``, ``list_position`` is
  ``array_position``;
- ``bit_count(bitstring_agg(x, low, high))`` (a topic's distinct senders in a bitmap) is
  ``count(DISTINCT x)``;
- ``array_length(list)`` is ``CAST(size(list) AS BIGINT)``, the type DuckDB gives;
- ``grouping(a, b, …)`` of several columns is ``grouping_id(a, b, …)``;
- ``unnest(list, recursive := true)`` is ``inline(list)``; ``unnest(list).field`` is
  ``explode(list.field)``; ``CAST(unnest(list) AS t)`` is ``explode(CAST(list AS ARRAY<t>))``;
- ``unnest(list) AS e, generate_subscripts(list, 1) AS i`` in one select is
  ``inline(transform(list, (x, n) -> named_struct('e', x, 'i', n + 1)))``;
- a temporary table is a temporary view, cached (``CACHE TABLE``), and dropped with its cache.

Every table name the SQL gives (``m``, ``k`` and the views' own) gets the source's prefix, so a
view's names never meet the caller's own in a shared Spark session; a table read without an
alias keeps its name as its alias, so ``k.timestamp`` still means the same column.
"""

from __future__ import annotations

import functools

import sqlglot
from sqlglot import exp

__all__ = ["to_spark"]

#: DuckDB functions renamed for Spark, with the same arguments
_RENAMED = {"epoch_us": "unix_micros", "list_position": "array_position"}


def _call(name: str, *args: exp.Expr) -> exp.Expr:
    return exp.Anonymous(this=name, expressions=list(args))


def _is_local(node: exp.Expr | None) -> bool:
    """Whether ``node`` is a cast to a local time (``TIMESTAMP_NTZ``)."""
    return isinstance(node, exp.Cast) and node.to.this == exp.DataType.Type.TIMESTAMPNTZ


def _distinct_bits(node: exp.Anonymous) -> exp.Expr | None:
    """``bit_count(bitstring_agg(x, ...) [FILTER ...])`` as ``count(DISTINCT x) [FILTER ...]``."""
    inner = node.expressions[0] if node.expressions else None
    agg = inner.this if isinstance(inner, exp.Filter) else inner
    if not (isinstance(agg, exp.Anonymous) and agg.name.lower() == "bitstring_agg"):
        return None
    count = exp.Count(this=exp.Distinct(expressions=[agg.expressions[0].copy()]))
    if isinstance(inner, exp.Filter):
        return exp.Filter(this=count, expression=inner.expression.copy())
    return count


def _function(node: exp.Expr) -> exp.Expr:
    """One node of an expression in Spark's form (the node itself when sqlglot's is right)."""
    if isinstance(node, exp.Anonymous):
        name, args = node.name.lower(), node.expressions
        if name == "timezone" and len(args) == 2:
            local = _call("from_utc_timestamp", args[1].copy(), args[0].copy())
            return exp.cast(local, exp.DataType.build("TIMESTAMP_NTZ", dialect="spark"))
        if name in _RENAMED:
            return _call(_RENAMED[name], *(a.copy() for a in args))
        if name == "bit_count":
            return _distinct_bits(node) or node
    if isinstance(node, exp.ArraySize) and not (
        isinstance(node.parent, exp.Cast) and node.parent.to.this == exp.DataType.Type.BIGINT
    ):
        # DuckDB's list lengths are BIGINT, Spark's INT
        return exp.cast(node.copy(), exp.DataType.build("BIGINT"))
    if isinstance(node, exp.TimestampTrunc) and _is_local(node.this) and not _is_local(node.parent):
        # Spark truncates a local time to an instant: back to a local time, as DuckDB gives
        return exp.cast(node.copy(), exp.DataType.build("TIMESTAMP_NTZ", dialect="spark"))
    if isinstance(node, exp.Grouping) and len(node.expressions) > 1:
        return _call("grouping_id", *(e.copy() for e in node.expressions))
    if isinstance(node, exp.DayOfWeekIso):
        return exp.paren(
            exp.Add(this=_call("weekday", node.this.copy()), expression=exp.Literal.number(1))
        )
    if isinstance(node, exp.DataType) and node.this == exp.DataType.Type.INT128:
        return exp.DataType.build("DECIMAL(38, 0)")
    if isinstance(node, exp.Explode) and node.expressions:
        # unnest(list, recursive := true): a list of structs, one column per field
        return _call("inline", node.this.copy())
    if isinstance(node, exp.Dot) and isinstance(node.this, exp.Explode):
        return exp.Explode(this=exp.Dot(this=node.this.this.copy(), expression=node.expression))
    if isinstance(node, exp.Cast) and isinstance(node.this, exp.Explode):
        element = node.to.copy()
        of = exp.DataType(this=exp.DataType.Type.ARRAY, expressions=[element], nested=True)
        return exp.Explode(this=exp.cast(node.this.this.copy(), of))
    return node


def _positions(select: exp.Select) -> None:
    """``unnest(list) AS e, generate_subscripts(list, 1) AS i`` as one ``inline`` of
    ``(e, i)`` structs: Spark allows one generator per select."""
    for sub in list(select.expressions):
        call = sub.this if isinstance(sub, exp.Alias) else None
        if not (isinstance(call, exp.Anonymous) and call.name.lower() == "generate_subscripts"):
            continue
        listed = call.expressions[0]
        for each in select.expressions:
            if (
                isinstance(each, exp.Alias)
                and isinstance(each.this, exp.Explode)
                and each.this.this == listed
            ):
                pairs = sqlglot.parse_one(
                    f"inline(transform(_l, (_x, _n) -> named_struct("
                    f"'{each.alias}', _x, '{sub.alias}', _n + 1)))",
                    read="spark",
                )
                placeholder = pairs.find(exp.Column)
                assert placeholder is not None and placeholder.name == "_l"
                placeholder.replace(listed.copy())
                each.replace(pairs)
                sub.pop()
                break


def _prefixed(tree: exp.Expr, prefix: str) -> None:
    """Every table the SQL names, but its own CTEs, with ``prefix``; aliased by its old name."""
    ctes = {c.alias_or_name for c in tree.find_all(exp.CTE)}
    for table in list(tree.find_all(exp.Table)):
        name = table.name
        if table.args.get("db") or name in ctes or not name:
            continue
        if not table.alias:
            table.set("alias", exp.TableAlias(this=exp.to_identifier(name)))
        table.set("this", exp.to_identifier(prefix + name))


def _statements(tree: exp.Expr, prefix: str) -> list[str]:
    """``tree`` (one statement) as the Spark statements that do its work."""
    if isinstance(tree, exp.Create) and str(tree.args.get("kind", "")).upper() == "TABLE":
        temporary = any(
            isinstance(p, exp.TemporaryProperty)
            for p in (tree.args.get("properties") or exp.Properties(expressions=[])).expressions
        )
        if temporary:
            name = prefix + tree.this.name
            select = tree.expression
            _prefixed(select, prefix)
            return [
                f"UNCACHE TABLE IF EXISTS {name}",
                f"CREATE OR REPLACE TEMPORARY VIEW {name} AS {select.sql(dialect='spark')}",
                f"CACHE TABLE {name}",
            ]
    if isinstance(tree, exp.Drop) and str(tree.args.get("kind", "")).upper() in ("TABLE", "VIEW"):
        name = prefix + (tree.args.get("tables") or [tree.this])[0].name
        return [f"UNCACHE TABLE IF EXISTS {name}", f"DROP VIEW IF EXISTS {name}"]
    if isinstance(tree, exp.Create):
        _prefixed(tree.expression, prefix)
        tree.this.set("this", exp.to_identifier(prefix + tree.this.name))
        return [tree.sql(dialect="spark")]
    _prefixed(tree, prefix)
    return [tree.sql(dialect="spark")]


@functools.lru_cache(maxsize=256)
def _translated(sql: str) -> exp.Expr:
    """The DuckDB statement ``sql`` in Spark's forms, its tables not yet prefixed (the same
    statements come back for every view call: each is translated once)."""
    tree = sqlglot.parse_one(sql, read="duckdb")
    for select in list(tree.find_all(exp.Select)):
        _positions(select)
    # a node made anew is not visited again: pass again until nothing changes (the forms made
    # are Spark's, so a pass changes nothing it made before)
    before = None
    while before != (now := tree.sql(dialect="duckdb")):
        before = now
        tree = tree.transform(_function)
    return tree


def to_spark(sql: str, prefix: str = "") -> tuple[str, ...]:
    """The Spark statements that do what the DuckDB statement ``sql`` does.

    Args:
        sql: one statement in DuckDB's dialect, as the views write it.
        prefix: put before every table name (the source's own, see the module).
    """
    return tuple(_statements(_translated(sql).copy(), prefix))
