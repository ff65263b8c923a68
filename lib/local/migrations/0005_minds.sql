-- Minds (docs/api.md §8). Lists and theme/social links are JSON text. `revision` guards partial
-- updates against lost writes. The per-status source counts are kept by the Mind sources in
-- the same transaction as the sources they count. A published Mind's slug is its public
-- address `/m/{slug}`, so it is unique among published Minds of every workspace.
CREATE TABLE minds (
    id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    slug TEXT NOT NULL,
    headline TEXT,
    bio TEXT,
    avatar_url TEXT,
    system_prompt TEXT,
    welcome_message TEXT,
    suggested_questions TEXT NOT NULL,
    expertise_areas TEXT NOT NULL,
    is_published INTEGER NOT NULL,
    show_sources INTEGER NOT NULL,
    collect_email_before_chat INTEGER NOT NULL,
    temperature REAL NOT NULL,
    theme TEXT,
    social_links TEXT,
    voice_enabled INTEGER NOT NULL,
    voice_id TEXT NOT NULL,
    voice_speed REAL NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    revision INTEGER NOT NULL DEFAULT 0,
    sources_pending INTEGER NOT NULL DEFAULT 0,
    sources_processing INTEGER NOT NULL DEFAULT 0,
    sources_transcribing INTEGER NOT NULL DEFAULT 0,
    sources_ready INTEGER NOT NULL DEFAULT 0,
    sources_failed INTEGER NOT NULL DEFAULT 0,
    UNIQUE (workspace_id, slug)
);
CREATE INDEX minds_newest_first ON minds (workspace_id, created_at DESC, id DESC);
CREATE UNIQUE INDEX minds_public_slug ON minds (slug) WHERE is_published = 1;
