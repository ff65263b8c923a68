-- Chatbots publish like Minds (docs/api.md §18): a published chatbot's slug is its public
-- address `/c/{slug}`, one chatbot per address across workspaces; its public settings are one
-- document (`lore_records::ChatbotPublicRecord`); `revision` refuses a write based on an older
-- read, as a Mind's does.
ALTER TABLE chatbots ADD COLUMN is_published INTEGER NOT NULL DEFAULT 0;
ALTER TABLE chatbots ADD COLUMN public_settings TEXT NOT NULL DEFAULT '{}';
ALTER TABLE chatbots ADD COLUMN revision INTEGER NOT NULL DEFAULT 0;
CREATE UNIQUE INDEX chatbots_public_slug ON chatbots (slug) WHERE is_published = 1;
