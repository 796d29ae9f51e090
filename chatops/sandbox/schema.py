"""Ordered schema migrations of the sandbox store; append, never edit a released one."""

from __future__ import annotations

MIGRATIONS: list[str] = [
    # 1: the organization, people, groups and channels
    """
    CREATE TABLE realm (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL,
        string_id TEXT NOT NULL,
        description TEXT NOT NULL DEFAULT '',
        date_created INTEGER NOT NULL,
        settings TEXT NOT NULL DEFAULT '{}'
    );
    CREATE TABLE users (
        id INTEGER PRIMARY KEY,
        delivery_email TEXT NOT NULL,
        full_name TEXT NOT NULL,
        password_hash TEXT,
        api_key TEXT NOT NULL UNIQUE,
        role INTEGER NOT NULL DEFAULT 400,
        is_active INTEGER NOT NULL DEFAULT 1,
        is_bot INTEGER NOT NULL DEFAULT 0,
        bot_type INTEGER,
        bot_owner_id INTEGER REFERENCES users(id),
        is_system_bot INTEGER NOT NULL DEFAULT 0,
        timezone TEXT NOT NULL DEFAULT '',
        date_joined INTEGER NOT NULL,
        avatar_source TEXT NOT NULL DEFAULT 'G',
        avatar_version INTEGER NOT NULL DEFAULT 1,
        email_address_visibility INTEGER NOT NULL DEFAULT 1
    );
    CREATE UNIQUE INDEX users_email ON users(lower(delivery_email));
    CREATE TABLE custom_profile_fields (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL,
        field_type INTEGER NOT NULL,
        hint TEXT NOT NULL DEFAULT '',
        field_order INTEGER NOT NULL DEFAULT 0
    );
    CREATE TABLE custom_profile_values (
        user_id INTEGER NOT NULL REFERENCES users(id),
        field_id INTEGER NOT NULL REFERENCES custom_profile_fields(id),
        value TEXT NOT NULL,
        rendered_value TEXT,
        PRIMARY KEY (user_id, field_id)
    );
    CREATE TABLE user_groups (
        id INTEGER PRIMARY KEY,
        name TEXT,
        description TEXT NOT NULL DEFAULT '',
        is_system_group INTEGER NOT NULL DEFAULT 0,
        deactivated INTEGER NOT NULL DEFAULT 0,
        creator_id INTEGER,
        date_created INTEGER NOT NULL DEFAULT 0,
        settings TEXT NOT NULL DEFAULT '{}'
    );
    CREATE TABLE group_members (
        group_id INTEGER NOT NULL REFERENCES user_groups(id),
        user_id INTEGER NOT NULL REFERENCES users(id),
        PRIMARY KEY (group_id, user_id)
    );
    CREATE TABLE group_subgroups (
        group_id INTEGER NOT NULL REFERENCES user_groups(id),
        subgroup_id INTEGER NOT NULL REFERENCES user_groups(id),
        PRIMARY KEY (group_id, subgroup_id)
    );
    CREATE TABLE streams (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL,
        description TEXT NOT NULL DEFAULT '',
        rendered_description TEXT NOT NULL DEFAULT '',
        invite_only INTEGER NOT NULL DEFAULT 0,
        is_web_public INTEGER NOT NULL DEFAULT 0,
        history_public_to_subscribers INTEGER NOT NULL DEFAULT 1,
        is_archived INTEGER NOT NULL DEFAULT 0,
        is_default INTEGER NOT NULL DEFAULT 0,
        message_retention_days INTEGER,
        topics_policy TEXT NOT NULL DEFAULT 'inherit',
        folder_id INTEGER,
        creator_id INTEGER,
        date_created INTEGER NOT NULL,
        settings TEXT NOT NULL DEFAULT '{}'
    );
    CREATE UNIQUE INDEX streams_name ON streams(lower(name));
    CREATE TABLE subscriptions (
        user_id INTEGER NOT NULL REFERENCES users(id),
        stream_id INTEGER NOT NULL REFERENCES streams(id),
        active INTEGER NOT NULL DEFAULT 1,
        first_message_id INTEGER NOT NULL DEFAULT 0,
        color TEXT NOT NULL DEFAULT '#76ce90',
        is_muted INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (user_id, stream_id)
    );
    CREATE INDEX subscriptions_stream ON subscriptions(stream_id, active);
    """,
    # 2: messages, reactions, read flags, custom emoji, uploads
    """
    CREATE TABLE recipients (
        id INTEGER PRIMARY KEY,
        stream_id INTEGER UNIQUE,
        user_set TEXT UNIQUE
    );
    CREATE TABLE messages (
        id INTEGER PRIMARY KEY,
        sender_id INTEGER NOT NULL REFERENCES users(id),
        recipient_id INTEGER NOT NULL REFERENCES recipients(id),
        stream_id INTEGER,
        topic TEXT NOT NULL DEFAULT '',
        content TEXT NOT NULL,
        rendered_content TEXT,
        client TEXT NOT NULL DEFAULT 'API',
        timestamp INTEGER NOT NULL,
        last_edit_timestamp INTEGER,
        last_moved_timestamp INTEGER,
        edit_history TEXT,
        is_me_message INTEGER NOT NULL DEFAULT 0
    );
    CREATE INDEX messages_stream_topic ON messages(stream_id, topic COLLATE NOCASE, id);
    CREATE INDEX messages_recipient ON messages(recipient_id, id);
    CREATE INDEX messages_sender ON messages(sender_id, id);
    CREATE INDEX messages_timestamp ON messages(timestamp);
    CREATE TABLE message_flags (
        user_id INTEGER NOT NULL,
        message_id INTEGER NOT NULL,
        flags INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (user_id, message_id)
    ) WITHOUT ROWID;
    CREATE INDEX message_flags_message ON message_flags(message_id);
    CREATE TABLE reactions (
        id INTEGER PRIMARY KEY,
        message_id INTEGER NOT NULL,
        user_id INTEGER NOT NULL,
        emoji_name TEXT NOT NULL,
        emoji_code TEXT NOT NULL,
        reaction_type TEXT NOT NULL,
        UNIQUE (message_id, user_id, emoji_code, reaction_type)
    );
    CREATE TABLE realm_emoji (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL,
        author_id INTEGER,
        file_name TEXT NOT NULL DEFAULT '',
        deactivated INTEGER NOT NULL DEFAULT 0
    );
    CREATE TABLE attachments (
        id INTEGER PRIMARY KEY,
        owner_id INTEGER NOT NULL REFERENCES users(id),
        path_id TEXT NOT NULL UNIQUE,
        name TEXT NOT NULL,
        size INTEGER NOT NULL,
        content_type TEXT NOT NULL DEFAULT 'application/octet-stream',
        create_time INTEGER NOT NULL
    );
    CREATE TABLE attachment_messages (
        attachment_id INTEGER NOT NULL REFERENCES attachments(id) ON DELETE CASCADE,
        message_id INTEGER NOT NULL,
        PRIMARY KEY (attachment_id, message_id)
    );
    CREATE INDEX attachment_messages_message ON attachment_messages(message_id);
    """,
    # 3: newest-first pages of one channel walk this index instead of sorting
    """
    CREATE INDEX messages_stream_id ON messages(stream_id, id);
    """,
    # channels area (issue 3): topic preferences, folders, personal tools, scheduled messages
    """
    CREATE TABLE user_topics (
        user_id INTEGER NOT NULL REFERENCES users(id),
        stream_id INTEGER NOT NULL REFERENCES streams(id),
        topic TEXT NOT NULL,
        visibility_policy INTEGER NOT NULL,
        last_updated INTEGER NOT NULL
    );
    CREATE UNIQUE INDEX user_topics_key ON user_topics(user_id, stream_id, lower(topic));
    CREATE TABLE channel_folders (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL,
        description TEXT NOT NULL DEFAULT '',
        rendered_description TEXT NOT NULL DEFAULT '',
        creator_id INTEGER,
        date_created INTEGER NOT NULL,
        is_archived INTEGER NOT NULL DEFAULT 0,
        folder_order INTEGER NOT NULL DEFAULT 0
    );
    CREATE TABLE navigation_views (
        user_id INTEGER NOT NULL REFERENCES users(id),
        fragment TEXT NOT NULL,
        is_pinned INTEGER NOT NULL,
        name TEXT,
        PRIMARY KEY (user_id, fragment)
    );
    CREATE TABLE saved_snippets (
        id INTEGER PRIMARY KEY,
        user_id INTEGER NOT NULL REFERENCES users(id),
        title TEXT NOT NULL,
        content TEXT NOT NULL,
        date_created INTEGER NOT NULL
    );
    CREATE TABLE scheduled_messages (
        id INTEGER PRIMARY KEY,
        sender_id INTEGER NOT NULL REFERENCES users(id),
        delivery_type TEXT NOT NULL DEFAULT 'send',
        type TEXT NOT NULL,
        stream_id INTEGER,
        user_ids TEXT NOT NULL DEFAULT '[]',
        topic TEXT NOT NULL DEFAULT '',
        content TEXT NOT NULL,
        scheduled_delivery_timestamp INTEGER NOT NULL,
        failed INTEGER NOT NULL DEFAULT 0,
        failure_message TEXT,
        delivered INTEGER NOT NULL DEFAULT 0,
        delivered_message_id INTEGER,
        reminder_target_message_id INTEGER,
        note TEXT
    );
    CREATE INDEX scheduled_messages_due
        ON scheduled_messages(delivered, failed, scheduled_delivery_timestamp);
    """,
    # administration (issue 4): user status, invitations, linkifiers, push devices, push bouncer
    """
    CREATE TABLE user_status (
        user_id INTEGER PRIMARY KEY REFERENCES users(id),
        status_text TEXT NOT NULL DEFAULT '',
        emoji_name TEXT NOT NULL DEFAULT '',
        emoji_code TEXT NOT NULL DEFAULT '',
        reaction_type TEXT NOT NULL DEFAULT '',
        away INTEGER NOT NULL DEFAULT 0,
        timestamp INTEGER NOT NULL
    );
    CREATE TABLE invites (
        id INTEGER PRIMARY KEY,
        is_multiuse INTEGER NOT NULL,
        email TEXT,
        invite_key TEXT NOT NULL UNIQUE,
        referrer_id INTEGER NOT NULL REFERENCES users(id),
        invited INTEGER NOT NULL,
        expiry INTEGER,
        invited_as INTEGER NOT NULL,
        stream_ids TEXT NOT NULL DEFAULT '[]',
        group_ids TEXT NOT NULL DEFAULT '[]',
        include_realm_default_subscriptions INTEGER NOT NULL DEFAULT 0,
        welcome_message_custom_text TEXT,
        notify_referrer_on_join INTEGER NOT NULL DEFAULT 1,
        status TEXT NOT NULL DEFAULT 'active',
        used_by INTEGER
    );
    CREATE TABLE email_outbox (
        id INTEGER PRIMARY KEY,
        to_address TEXT NOT NULL,
        subject TEXT NOT NULL,
        body TEXT NOT NULL,
        sent INTEGER NOT NULL
    );
    CREATE TABLE linkifiers (
        id INTEGER PRIMARY KEY,
        pattern TEXT NOT NULL,
        url_template TEXT NOT NULL,
        ord INTEGER NOT NULL DEFAULT 0,
        UNIQUE (pattern, url_template)
    );
    CREATE TABLE push_devices (
        id INTEGER PRIMARY KEY,
        user_id INTEGER NOT NULL REFERENCES users(id),
        kind TEXT NOT NULL,
        token TEXT NOT NULL,
        ios_app_id TEXT,
        date_created INTEGER NOT NULL,
        UNIQUE (user_id, kind, token)
    );
    CREATE TABLE push_bouncer_devices (
        id INTEGER PRIMARY KEY,
        user_id INTEGER NOT NULL,
        kind TEXT NOT NULL,
        token TEXT NOT NULL,
        UNIQUE (user_id, kind, token)
    );
    CREATE TABLE push_outbox (
        id INTEGER PRIMARY KEY,
        user_id INTEGER NOT NULL,
        kind TEXT NOT NULL,
        token TEXT NOT NULL,
        payload TEXT NOT NULL,
        sent INTEGER NOT NULL
    );
    """,
    # bots and events area (issue 5): outgoing-webhook services, tus resumable uploads
    """
    CREATE TABLE outgoing_webhooks (
        bot_id INTEGER PRIMARY KEY REFERENCES users(id),
        base_url TEXT NOT NULL,
        token TEXT NOT NULL,
        interface INTEGER NOT NULL DEFAULT 1
    );
    CREATE TABLE tus_uploads (
        id TEXT PRIMARY KEY,
        owner_id INTEGER NOT NULL REFERENCES users(id),
        length INTEGER NOT NULL,
        upload_offset INTEGER NOT NULL DEFAULT 0,
        filename TEXT NOT NULL,
        filetype TEXT NOT NULL,
        created INTEGER NOT NULL,
        path_id TEXT
    );
    """,
    # bots: administering bots (default channels, embedded-bot configuration) and bot storage
    """
    ALTER TABLE users ADD COLUMN default_sending_stream_id INTEGER;
    ALTER TABLE users ADD COLUMN default_events_register_stream_id INTEGER;
    ALTER TABLE users ADD COLUMN default_all_public_streams INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE outgoing_webhooks ADD COLUMN service_name TEXT NOT NULL DEFAULT '';
    CREATE TABLE bot_config (
        bot_id INTEGER NOT NULL REFERENCES users(id),
        key TEXT NOT NULL,
        value TEXT NOT NULL,
        PRIMARY KEY (bot_id, key)
    );
    CREATE TABLE bot_storage (
        bot_id INTEGER NOT NULL REFERENCES users(id),
        key TEXT NOT NULL,
        value TEXT NOT NULL,
        PRIMARY KEY (bot_id, key)
    );
    """,
    # channels and organization: subscription properties, channel email addresses, custom
    # profile field options, uploaded custom emoji
    """
    ALTER TABLE subscriptions ADD COLUMN pin_to_top INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE subscriptions ADD COLUMN desktop_notifications INTEGER;
    ALTER TABLE subscriptions ADD COLUMN audible_notifications INTEGER;
    ALTER TABLE subscriptions ADD COLUMN push_notifications INTEGER;
    ALTER TABLE subscriptions ADD COLUMN email_notifications INTEGER;
    ALTER TABLE subscriptions ADD COLUMN wildcard_mentions_notify INTEGER;
    CREATE TABLE channel_email_addresses (
        stream_id INTEGER NOT NULL REFERENCES streams(id),
        creator_id INTEGER NOT NULL REFERENCES users(id),
        sender_id INTEGER,
        email_token TEXT NOT NULL UNIQUE
    );
    CREATE UNIQUE INDEX channel_email_addresses_key
        ON channel_email_addresses(stream_id, creator_id, coalesce(sender_id, 0));
    ALTER TABLE custom_profile_fields ADD COLUMN field_data TEXT NOT NULL DEFAULT '';
    ALTER TABLE custom_profile_fields ADD COLUMN display_in_profile_summary INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE custom_profile_fields ADD COLUMN required INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE custom_profile_fields ADD COLUMN editable_by_user INTEGER NOT NULL DEFAULT 1;
    ALTER TABLE realm_emoji ADD COLUMN content_type TEXT NOT NULL DEFAULT 'image/png';
    """,
    # own account: presence, personal settings, alert words, drafts, muted users
    """
    CREATE TABLE user_presence (
        user_id INTEGER PRIMARY KEY REFERENCES users(id),
        last_active_time INTEGER,
        last_connected_time INTEGER NOT NULL,
        last_update_id INTEGER NOT NULL
    );
    CREATE TABLE user_settings (
        user_id INTEGER PRIMARY KEY REFERENCES users(id),
        settings TEXT NOT NULL DEFAULT '{}'
    );
    CREATE TABLE alert_words (
        user_id INTEGER NOT NULL REFERENCES users(id),
        word TEXT NOT NULL
    );
    CREATE UNIQUE INDEX alert_words_key ON alert_words(user_id, lower(word));
    CREATE TABLE drafts (
        id INTEGER PRIMARY KEY,
        user_id INTEGER NOT NULL REFERENCES users(id),
        type TEXT NOT NULL,
        recipient_ids TEXT NOT NULL DEFAULT '[]',
        topic TEXT NOT NULL DEFAULT '',
        content TEXT NOT NULL,
        last_edit_time INTEGER NOT NULL
    );
    CREATE TABLE muted_users (
        user_id INTEGER NOT NULL REFERENCES users(id),
        muted_user_id INTEGER NOT NULL REFERENCES users(id),
        date_muted INTEGER NOT NULL,
        PRIMARY KEY (user_id, muted_user_id)
    );
    """,
    # message ids are never reused: AUTOINCREMENT keeps the highest id ever issued in
    # sqlite_sequence, so deleting the newest message does not hand its id to the next one.
    # SQLite cannot add AUTOINCREMENT to a table, so the table is rebuilt with its indexes.
    """
    CREATE TABLE messages_new (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        sender_id INTEGER NOT NULL REFERENCES users(id),
        recipient_id INTEGER NOT NULL REFERENCES recipients(id),
        stream_id INTEGER,
        topic TEXT NOT NULL DEFAULT '',
        content TEXT NOT NULL,
        rendered_content TEXT,
        client TEXT NOT NULL DEFAULT 'API',
        timestamp INTEGER NOT NULL,
        last_edit_timestamp INTEGER,
        last_moved_timestamp INTEGER,
        edit_history TEXT,
        is_me_message INTEGER NOT NULL DEFAULT 0
    );
    INSERT INTO messages_new SELECT
        id, sender_id, recipient_id, stream_id, topic, content, rendered_content, client,
        timestamp, last_edit_timestamp, last_moved_timestamp, edit_history, is_me_message
        FROM messages;
    DROP TABLE messages;
    ALTER TABLE messages_new RENAME TO messages;
    CREATE INDEX messages_stream_topic ON messages(stream_id, topic COLLATE NOCASE, id);
    CREATE INDEX messages_recipient ON messages(recipient_id, id);
    CREATE INDEX messages_sender ON messages(sender_id, id);
    CREATE INDEX messages_timestamp ON messages(timestamp);
    CREATE INDEX messages_stream_id ON messages(stream_id, id);
    """,
    # organization data exports made through the API (RealmExport): status 1 requested,
    # 2 started, 3 succeeded, 4 failed, 5 deleted; times in seconds
    """
    CREATE TABLE realm_exports (
        id INTEGER PRIMARY KEY,
        export_type INTEGER NOT NULL,
        status INTEGER NOT NULL,
        acting_user_id INTEGER NOT NULL REFERENCES users(id),
        date_requested REAL NOT NULL,
        date_started REAL,
        date_succeeded REAL,
        date_failed REAL,
        date_deleted REAL,
        export_path TEXT,
        base_url TEXT NOT NULL
    );
    """,
    # code playgrounds, and the organization's settings for new users (stored as the values
    # that differ from the personal settings' defaults, as user_settings stores a person's)
    """
    CREATE TABLE realm_playgrounds (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL,
        pygments_language TEXT NOT NULL,
        url_template TEXT NOT NULL,
        UNIQUE (pygments_language, name)
    );
    CREATE TABLE realm_user_defaults (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        settings TEXT NOT NULL DEFAULT '{}'
    );
    """,
]
