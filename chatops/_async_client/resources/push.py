"""Mobile push: device tokens and the test notification (spec 4.20)."""

from __future__ import annotations

from typing import Literal

from ..._base_client import NOT_GIVEN, NotGiven
from ...resources._base import AsyncResource, drop_not_given

__all__ = ["Platform", "AsyncPush"]

Platform = Literal["apns", "fcm"]
_PATHS: dict[str, str] = {
    "apns": "/users/me/apns_device_token",
    "fcm": "/users/me/android_gcm_reg_id",
}


def _path(platform: Platform) -> str:
    try:
        return _PATHS[platform]
    except KeyError:
        raise ValueError(f"platform must be 'apns' or 'fcm', not {platform!r}") from None


class AsyncPush(AsyncResource):
    """``client.push``."""

    async def register(
        self, token: str, *, platform: Platform = "fcm", app_id: str | NotGiven = NOT_GIVEN
    ) -> None:
        """Register a device's push token (``apns``: iOS, hex token and ``app_id``; ``fcm``: Android)."""
        params = drop_not_given(token=token, appid=app_id)
        await self._client._request("POST", _path(platform), params=params, idempotent=True)

    async def unregister(self, token: str, *, platform: Platform = "fcm") -> None:
        """Remove a device's push token."""
        await self._client._request("DELETE", _path(platform), params={"token": token})

    async def test_notification(self, *, token: str | NotGiven = NOT_GIVEN) -> None:
        """Spec 4.20 ``POST /mobile_push/test_notification``: to one device, or all of the user's.

        Raises ``InvalidPushDeviceToken`` for a token the server does not know and
        ``InvalidRemotePushDeviceToken`` for one the push bouncer does not know.
        """
        params = drop_not_given(token=token)
        await self._client._request("POST", "/mobile_push/test_notification", params=params)
