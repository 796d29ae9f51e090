"""HTTP handlers of the push area. Push notifications: devices and the test notification (spec 4.20)."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.routing import Route

from .. import (
    push,
)
from ..params import (
    P,
    Params,
)
from ..state import SandboxState
from ..store import Row
from ._http import API, endpoint
from ._http import base_url as _base_url
from ._http import me as _me


@endpoint({"token": P()})
def test_push_notification(
    request: Request, state: SandboxState, user: Row | None, p: Params
) -> dict[str, Any]:
    push.send_test_notification(
        state.store,
        _me(user),
        token=p.optional("token"),
        base_url=_base_url(request, state),
        feature_level=state.feature_level,
    )
    return {}


def _device_handlers(kind: str) -> tuple[Any, Any]:
    @endpoint({"token": P(required=True), "appid": P()})
    def add_device(
        request: Request, state: SandboxState, user: Row | None, p: Params
    ) -> dict[str, Any]:
        push.register_device(
            state.store, _me(user), kind, p["token"], ios_app_id=p.optional("appid")
        )
        return {}

    @endpoint({"token": P(required=True)})
    def remove_device(
        request: Request, state: SandboxState, user: Row | None, p: Params
    ) -> dict[str, Any]:
        push.remove_device(state.store, _me(user), kind, p["token"])
        return {}

    return add_device, remove_device


add_apns, remove_apns = _device_handlers(push.APNS)


add_fcm, remove_fcm = _device_handlers(push.FCM)


ROUTES: list[Route] = [
    Route(f"{API}/mobile_push/test_notification", test_push_notification, methods=["POST"]),
    Route(f"{API}/users/me/apns_device_token", add_apns, methods=["POST"]),
    Route(f"{API}/users/me/apns_device_token", remove_apns, methods=["DELETE"]),
    Route(f"{API}/users/me/android_gcm_reg_id", add_fcm, methods=["POST"]),
    Route(f"{API}/users/me/android_gcm_reg_id", remove_fcm, methods=["DELETE"]),
]
