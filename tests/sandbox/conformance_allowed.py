"""Where the real server's code and its API schema disagree, the sandbox follows the server.

Each entry is keyed by operation and check and names the exact failure kinds tolerated there
(``tests.sandbox.conformance.kinds``), each with its reason: the real server's behaviour and
where it is in its code or in ``zulip-api-facts.md``. A kind not listed for that operation
and check is a violation. The sandbox answers at feature level 416; the schema is 10.2's.
"""

from __future__ import annotations

#: the schema lists no 400 for the operation, but every refusal the real server makes is a
#: JsonableError, HTTP 400 unless its class says otherwise (zerver/lib/exceptions.py, facts 1.1)
R400 = "refusals are JsonableError: HTTP 400 (zerver/lib/exceptions.py; facts 1.1)"
#: a path segment its URL pattern does not accept (``<int:...>`` routes in zproject/urls.py)
#: matches no route, and a missing resource is a ResourceNotFoundError: 404 on the real server
R404 = "no route for the segment, or ResourceNotFoundError: HTTP 404 (facts 1.1)"
#: a file the requester may not read (zerver/views/upload.py; facts, uploads)
R403_UPLOAD = "'You are not authorized to view this file.': HTTP 403 (zerver/views/upload.py)"
#: wrong credentials (zerver/views/auth.py api_fetch_api_key; facts 2.6)
R401_FETCH = "AUTHENTICATION_FAILED is HTTP 401 (zerver/views/auth.py; facts 2.6)"
#: RequestVariableMissingError's data_fields add ``var_name`` (zerver/lib/exceptions.py); the
#: operation's error schemas forbid extra properties or do not list that error
RVAR = "REQUEST_VARIABLE_MISSING carries var_name (RequestVariableMissingError.data_fields)"
#: the operation's error schemas are oneOf alternatives of one shape {result, msg, code}: a
#: body valid under one is valid under all, so oneOf cannot hold for any real answer
RONEOF = "oneOf of error schemas with the same shape: a schema defect no answer can satisfy"
#: STREAM_DOES_NOT_EXIST names the channel in ``stream`` (facts 1.1)
RSTREAM = "STREAM_DOES_NOT_EXIST carries stream (StreamDoesNotExistError.data_fields)"


def newer(level: str) -> str:
    """A field the server sends at the sandbox's feature level, added after the 10.2 schema."""
    return f"added at feature level {level} (facts), after the 10.2 schema; the sandbox is at 416"


#: /users/{email} (GET, PATCH) takes every segment that is not an integer, as zproject/urls.py
#: routes it; a DELETE there is a method that path does not allow
R405_EMAIL = "a non-integer segment is /users/{email}, which has GET and PATCH only: HTTP 405"

ALLOWED: dict[tuple[str, str], dict[str, str]] = {
    ("GET /users/{email}", "status_code_conformance"): {"status 400": R400},
    ("GET /user_groups/{user_group_id}/members", "status_code_conformance"): {
        "status 400": R400,
        "status 404": R404,
    },
    ("GET /user_groups/{user_group_id}/subgroups", "status_code_conformance"): {
        "status 400": R400,
        "status 404": R404,
    },
    ("GET /user_groups/{user_group_id}/members/{user_id}", "status_code_conformance"): {
        "status 400": R400,
        "status 404": R404,
    },
    ("POST /users/me/android_gcm_reg_id", "response_schema_conformance"): {
        "extra field: var_name": RVAR,
    },
    ("DELETE /events", "response_schema_conformance"): {
        "extra field: var_name": RVAR,
    },
    ("DELETE /attachments/{attachment_id}", "status_code_conformance"): {
        "status 404": R404,
    },
    ("DELETE /default_streams", "response_schema_conformance"): {
        "extra field: var_name": RVAR,
    },
    ("DELETE /drafts/{draft_id}", "status_code_conformance"): {
        "status 400": R400,
    },
    ("DELETE /invites/multiuse/{invite_id}", "response_schema_conformance"): {
        "oneOf overlap": RONEOF,
    },
    ("DELETE /invites/multiuse/{invite_id}", "status_code_conformance"): {
        "status 404": R404,
    },
    ("DELETE /invites/{invite_id}", "status_code_conformance"): {
        "status 404": R404,
    },
    ("DELETE /messages/{message_id}", "response_schema_conformance"): {
        "oneOf overlap": RONEOF,
    },
    ("DELETE /messages/{message_id}", "status_code_conformance"): {
        "status 404": R404,
    },
    ("DELETE /messages/{message_id}/reactions", "response_schema_conformance"): {
        "oneOf overlap": RONEOF,
    },
    ("DELETE /messages/{message_id}/reactions", "status_code_conformance"): {
        "status 404": R404,
    },
    ("DELETE /realm/filters/{filter_id}", "status_code_conformance"): {
        "status 400": R400,
        "status 404": R404,
    },
    ("DELETE /saved_snippets/{saved_snippet_id}", "status_code_conformance"): {
        "status 400": R400,
    },
    ("DELETE /scheduled_messages/{scheduled_message_id}", "status_code_conformance"): {
        "status 400": R400,
    },
    ("DELETE /streams/{stream_id}", "status_code_conformance"): {
        "status 404": R404,
    },
    ("DELETE /users/me/alert_words", "status_code_conformance"): {
        "status 400": R400,
    },
    ("DELETE /users/me/android_gcm_reg_id", "response_schema_conformance"): {
        "oneOf none: REQUEST_VARIABLE_MISSING": RVAR,
        "oneOf overlap": RONEOF,
    },
    ("DELETE /users/me/apns_device_token", "response_schema_conformance"): {
        "oneOf none: REQUEST_VARIABLE_MISSING": RVAR,
        "oneOf overlap": RONEOF,
    },
    ("DELETE /users/me/muted_users/{muted_user_id}", "response_schema_conformance"): {
        "oneOf overlap": RONEOF,
    },
    ("DELETE /users/me/muted_users/{muted_user_id}", "status_code_conformance"): {
        "status 404": R404,
    },
    ("DELETE /users/me/subscriptions", "response_schema_conformance"): {
        "extra field: var_name": RVAR,
    },
    ("DELETE /users/{user_id}", "status_code_conformance"): {
        "status 404": R404,
        "status 405": R405_EMAIL,
    },
    ("GET /get_stream_id", "response_schema_conformance"): {
        "extra field: stream": RSTREAM,
        "extra field: var_name": RVAR,
    },
    ("GET /messages", "status_code_conformance"): {
        "status 400": R400,
    },
    ("GET /messages/matches_narrow", "status_code_conformance"): {
        "status 400": R400,
    },
    ("GET /messages/{message_id}", "status_code_conformance"): {
        "status 404": R404,
    },
    ("GET /messages/{message_id}/history", "status_code_conformance"): {
        "status 404": R404,
    },
    ("GET /streams", "response_schema_conformance"): {
        "extra field: can_delete_any_message_group": newer(407),
        "extra field: can_delete_own_message_group": newer(407),
        "extra field: can_move_messages_out_of_channel_group": newer(396),
        "extra field: can_move_messages_within_channel_group": newer(396),
        "extra field: can_resolve_topics_group": newer(402),
        "extra field: folder_id": newer(389),
        "extra field: subscriber_count": newer(394),
        "extra field: topics_policy": newer(392),
    },
    ("GET /streams", "status_code_conformance"): {
        "status 400": R400,
    },
    ("GET /streams/{stream_id}", "response_schema_conformance"): {
        "extra field: can_delete_any_message_group": newer(407),
        "extra field: can_delete_own_message_group": newer(407),
        "extra field: can_move_messages_out_of_channel_group": newer(396),
        "extra field: can_move_messages_within_channel_group": newer(396),
        "extra field: can_resolve_topics_group": newer(402),
        "extra field: folder_id": newer(389),
        "extra field: subscriber_count": newer(394),
        "extra field: topics_policy": newer(392),
    },
    ("GET /streams/{stream_id}", "status_code_conformance"): {
        "status 404": R404,
    },
    ("GET /streams/{stream_id}/email_address", "status_code_conformance"): {
        "status 404": R404,
    },
    ("GET /streams/{stream_id}/members", "status_code_conformance"): {
        "status 404": R404,
    },
    ("GET /user_uploads/{realm_id_str}/{filename}", "status_code_conformance"): {
        "status 400": R400,
        "status 403": R403_UPLOAD,
        "status 404": R404,
    },
    ("GET /users", "status_code_conformance"): {
        "status 400": R400,
    },
    ("GET /users/me/subscriptions", "response_schema_conformance"): {
        "extra field: can_delete_any_message_group": newer(407),
        "extra field: can_delete_own_message_group": newer(407),
        "extra field: can_move_messages_out_of_channel_group": newer(396),
        "extra field: can_move_messages_within_channel_group": newer(396),
        "extra field: can_resolve_topics_group": newer(402),
        "extra field: folder_id": newer(389),
        "extra field: subscriber_count": newer(394),
        "extra field: topics_policy": newer(392),
    },
    ("GET /users/me/subscriptions", "status_code_conformance"): {
        "status 400": R400,
    },
    ("GET /users/me/{stream_id}/topics", "status_code_conformance"): {
        "status 404": R404,
    },
    ("GET /users/{user_id_or_email}/presence", "status_code_conformance"): {
        "status 400": R400,
    },
    ("GET /users/{user_id}", "status_code_conformance"): {
        "status 400": R400,
        "status 404": R404,
    },
    ("GET /users/{user_id}/status", "status_code_conformance"): {
        "status 404": R404,
    },
    ("GET /users/{user_id}/subscriptions/{stream_id}", "status_code_conformance"): {
        "status 400": R400,
        "status 404": R404,
    },
    ("PATCH /drafts/{draft_id}", "status_code_conformance"): {
        "status 400": R400,
    },
    ("PATCH /messages/{message_id}", "response_schema_conformance"): {
        "oneOf overlap": RONEOF,
    },
    ("PATCH /messages/{message_id}", "status_code_conformance"): {
        "status 404": R404,
    },
    ("PATCH /realm/filters/{filter_id}", "status_code_conformance"): {
        "status 400": R400,
        "status 404": R404,
    },
    ("PATCH /realm/linkifiers", "status_code_conformance"): {
        "status 400": R400,
    },
    ("PATCH /realm/profile_fields", "status_code_conformance"): {
        "status 400": R400,
    },
    ("PATCH /saved_snippets/{saved_snippet_id}", "status_code_conformance"): {
        "status 400": R400,
    },
    ("PATCH /scheduled_messages/{scheduled_message_id}", "response_schema_conformance"): {
        "oneOf overlap": RONEOF,
    },
    ("PATCH /settings", "status_code_conformance"): {
        "status 400": R400,
    },
    ("PATCH /streams/{stream_id}", "response_schema_conformance"): {
        "oneOf overlap": RONEOF,
    },
    ("PATCH /streams/{stream_id}", "status_code_conformance"): {
        "status 404": R404,
    },
    ("PATCH /user_groups/{user_group_id}", "status_code_conformance"): {
        "status 404": R404,
    },
    ("PATCH /users/me/subscriptions/muted_topics", "status_code_conformance"): {
        "status 400": R400,
    },
    ("PATCH /users/{user_id}", "status_code_conformance"): {
        "status 404": R404,
    },
    ("POST /default_streams", "response_schema_conformance"): {
        "oneOf none: REQUEST_VARIABLE_MISSING": RVAR,
        "oneOf overlap": RONEOF,
    },
    ("POST /fetch_api_key", "status_code_conformance"): {
        "status 400": R400,
        "status 401": R401_FETCH,
    },
    ("POST /invites", "response_schema_conformance"): {
        "oneOf none: REQUEST_VARIABLE_MISSING": RVAR,
        "oneOf overlap": RONEOF,
    },
    ("POST /invites/multiuse", "response_schema_conformance"): {
        "oneOf overlap": RONEOF,
    },
    ("POST /invites/{invite_id}/resend", "status_code_conformance"): {
        "status 404": R404,
    },
    ("POST /mark_stream_as_read", "status_code_conformance"): {
        "status 400": R400,
    },
    ("POST /mark_topic_as_read", "status_code_conformance"): {
        "status 400": R400,
    },
    ("POST /messages", "response_schema_conformance"): {
        "oneOf none: REQUEST_VARIABLE_MISSING": RVAR,
        "oneOf overlap": RONEOF,
    },
    ("POST /messages/flags", "status_code_conformance"): {
        "status 400": R400,
    },
    ("POST /messages/flags/narrow", "status_code_conformance"): {
        "status 400": R400,
    },
    ("POST /messages/render", "status_code_conformance"): {
        "status 400": R400,
    },
    ("POST /messages/{message_id}/reactions", "response_schema_conformance"): {
        "oneOf none: REQUEST_VARIABLE_MISSING": RVAR,
        "oneOf overlap": RONEOF,
    },
    ("POST /messages/{message_id}/reactions", "status_code_conformance"): {
        "status 404": R404,
    },
    ("POST /messages/{message_id}/typing", "status_code_conformance"): {
        "status 400": R400,
        "status 404": R404,
    },
    ("POST /mobile_push/test_notification", "response_schema_conformance"): {
        "oneOf overlap": RONEOF,
    },
    ("POST /realm/emoji/{emoji_name}", "status_code_conformance"): {
        "status 400": R400,
    },
    ("POST /realm/filters", "status_code_conformance"): {
        "status 400": R400,
    },
    ("POST /realm/profile_fields", "status_code_conformance"): {
        "status 400": R400,
    },
    ("POST /register", "response_schema_conformance"): {
        "extra field: can_delete_any_message_group": newer(407),
        "extra field: can_delete_own_message_group": newer(407),
        "extra field: can_move_messages_out_of_channel_group": newer(396),
        "extra field: can_move_messages_within_channel_group": newer(396),
        "extra field: can_resolve_topics_group": newer(402),
        "extra field: channel_folders": newer(389),
        "extra field: folder_id": newer(389),
        "extra field: max_bulk_new_subscription_messages": newer(397),
        "extra field: max_channel_folder_description_length": newer(410),
        "extra field: max_channel_folder_name_length": newer(410),
        "extra field: max_reminder_note_length": newer(381),
        "extra field: navigation_views": newer(390),
        "extra field: realm_topics_policy": newer(392),
        "extra field: reminders": newer(399),
        "extra field: subscriber_count": newer(394),
        "extra field: topics_policy": newer(392),
    },
    ("POST /register", "status_code_conformance"): {
        "status 400": R400,
    },
    ("POST /saved_snippets", "response_schema_conformance"): {
        "extra field: var_name": RVAR,
    },
    ("POST /scheduled_messages", "response_schema_conformance"): {
        "oneOf none: REQUEST_VARIABLE_MISSING": RVAR,
        "oneOf overlap": RONEOF,
    },
    ("POST /typing", "response_schema_conformance"): {
        "extra field: var_name": RVAR,
    },
    ("POST /user_groups/create", "response_schema_conformance"): {
        "extra field: var_name": RVAR,
    },
    ("POST /user_groups/{user_group_id}/deactivate", "response_schema_conformance"): {
        "oneOf overlap": RONEOF,
    },
    ("POST /user_groups/{user_group_id}/deactivate", "status_code_conformance"): {
        "status 404": R404,
    },
    ("POST /user_groups/{user_group_id}/members", "status_code_conformance"): {
        "status 400": R400,
        "status 404": R404,
    },
    ("POST /user_groups/{user_group_id}/subgroups", "status_code_conformance"): {
        "status 400": R400,
        "status 404": R404,
    },
    ("POST /user_topics", "status_code_conformance"): {
        "status 400": R400,
    },
    ("POST /user_uploads", "status_code_conformance"): {
        "status 400": R400,
    },
    ("POST /users", "response_schema_conformance"): {
        "extra field: var_name": RVAR,
    },
    ("POST /users/me/alert_words", "response_schema_conformance"): {
        "extra field: var_name": RVAR,
    },
    ("POST /users/me/apns_device_token", "response_schema_conformance"): {
        "oneOf none: REQUEST_VARIABLE_MISSING": RVAR,
        "oneOf overlap": RONEOF,
    },
    ("POST /users/me/muted_users/{muted_user_id}", "response_schema_conformance"): {
        "oneOf overlap": RONEOF,
    },
    ("POST /users/me/muted_users/{muted_user_id}", "status_code_conformance"): {
        "status 404": R404,
    },
    ("POST /users/me/presence", "status_code_conformance"): {
        "status 400": R400,
    },
    ("POST /users/me/status", "response_schema_conformance"): {
        "oneOf overlap": RONEOF,
    },
    ("POST /users/me/subscriptions", "response_schema_conformance"): {
        "extra field: var_name": RVAR,
    },
    ("POST /users/me/subscriptions/properties", "status_code_conformance"): {
        "status 400": R400,
    },
    ("POST /users/{user_id}/reactivate", "status_code_conformance"): {
        "status 400": R400,
        "status 404": R404,
    },
    ("DELETE /realm/playgrounds/{playground_id}", "status_code_conformance"): {
        "status 400": R400,
        "status 404": R404,
    },
    ("GET /calls/bigbluebutton/create", "status_code_conformance"): {
        "status 400": R400,
    },
    ("GET /messages/{message_id}/read_receipts", "status_code_conformance"): {
        "status 404": R404,
    },
    ("PATCH /realm/user_settings_defaults", "status_code_conformance"): {
        "status 400": R400,
    },
    ("PATCH /users/me/subscriptions", "status_code_conformance"): {
        "status 400": R400,
    },
    ("POST /realm/playgrounds", "status_code_conformance"): {
        "status 400": R400,
    },
    ("POST /streams/{stream_id}/delete_topic", "response_schema_conformance"): {
        "extra field: var_name": RVAR,
    },
    ("POST /streams/{stream_id}/delete_topic", "status_code_conformance"): {
        "status 404": R404,
    },
}
