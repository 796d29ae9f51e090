"""Navigation views (spec 4.12): a blank fragment is refused even with a name."""

from __future__ import annotations

from chatops.sandbox import Sandbox
from tests.conftest import unchanged
from tests.sandbox.helpers import assert_error, raw


# -- 4.12: a blank fragment is refused even with a name ------------------------------------------
def test_blank_fragment_with_a_name_is_refused(sandbox: Sandbox) -> None:
    with unchanged(sandbox.store):
        for blank in ("", "   "):
            assert_error(
                raw(
                    sandbox,
                    "member",
                    "POST",
                    "/navigation_views",
                    fragment=blank,
                    is_pinned="true",
                    name="Blank view",
                ),
                "BAD_REQUEST",
            )
