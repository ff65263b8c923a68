-- Channels (docs/api.md §24): a Mind's or chatbot's connections to Slack, Telegram and WhatsApp.
-- They go with their owner. The document is `lore_records::ChannelRecord`; it holds the
-- platform credentials (secrets, in a file only the service reads: 0600).
CREATE TABLE channels (
    id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    chatbot_id TEXT REFERENCES chatbots(id) ON DELETE CASCADE,
    mind_id TEXT REFERENCES minds(id) ON DELETE CASCADE,
    owner_id TEXT GENERATED ALWAYS AS (COALESCE(chatbot_id, mind_id)) VIRTUAL,
    details TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    CHECK ((chatbot_id IS NULL) <> (mind_id IS NULL))
);
CREATE INDEX channels_of_owner ON channels (owner_id, created_at, id);

-- The platform's deliveries heard, so a redelivery is answered once; forgotten after a day.
CREATE TABLE channel_deliveries (
    channel_id TEXT NOT NULL REFERENCES channels(id) ON DELETE CASCADE,
    delivery_id TEXT NOT NULL,
    received_at INTEGER NOT NULL,
    PRIMARY KEY (channel_id, delivery_id)
);
CREATE INDEX channel_deliveries_by_age ON channel_deliveries (received_at);

-- One conversation per Slack thread, Telegram chat or WhatsApp number.
CREATE TABLE channel_threads (
    channel_id TEXT NOT NULL REFERENCES channels(id) ON DELETE CASCADE,
    thread TEXT NOT NULL,
    conversation_id TEXT NOT NULL,
    PRIMARY KEY (channel_id, thread)
);
