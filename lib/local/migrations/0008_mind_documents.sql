-- One stored shape per document (lore-records): a Mind's settings move from one column each
-- into one JSON document; a source spec's file size and audio format take the names the
-- AWS backend always used.
ALTER TABLE minds ADD COLUMN settings TEXT NOT NULL DEFAULT '{}';
UPDATE minds SET settings = json_object(
    'name', name, 'headline', headline, 'bio', bio, 'avatarUrl', avatar_url, 'systemPrompt', system_prompt,
    'welcomeMessage', welcome_message, 'suggestedQuestions', json(suggested_questions),
    'expertiseAreas', json(expertise_areas),
    'showSources', json(CASE WHEN show_sources THEN 'true' ELSE 'false' END),
    'collectEmail', json(CASE WHEN collect_email_before_chat THEN 'true' ELSE 'false' END),
    'temperature', temperature, 'theme', json(COALESCE(theme, '{}')), 'socialLinks', json(COALESCE(social_links, '{}')),
    'voiceEnabled', json(CASE WHEN voice_enabled THEN 'true' ELSE 'false' END),
    'voiceId', voice_id, 'voiceSpeed', voice_speed);
ALTER TABLE minds DROP COLUMN name;
ALTER TABLE minds DROP COLUMN headline;
ALTER TABLE minds DROP COLUMN bio;
ALTER TABLE minds DROP COLUMN avatar_url;
ALTER TABLE minds DROP COLUMN system_prompt;
ALTER TABLE minds DROP COLUMN welcome_message;
ALTER TABLE minds DROP COLUMN suggested_questions;
ALTER TABLE minds DROP COLUMN expertise_areas;
ALTER TABLE minds DROP COLUMN show_sources;
ALTER TABLE minds DROP COLUMN collect_email_before_chat;
ALTER TABLE minds DROP COLUMN temperature;
ALTER TABLE minds DROP COLUMN theme;
ALTER TABLE minds DROP COLUMN social_links;
ALTER TABLE minds DROP COLUMN voice_enabled;
ALTER TABLE minds DROP COLUMN voice_id;
ALTER TABLE minds DROP COLUMN voice_speed;
UPDATE sources SET spec = json_remove(json_set(spec, '$.fileSize', json_extract(spec, '$.sizeBytes')), '$.sizeBytes')
    WHERE json_type(spec, '$.sizeBytes') IS NOT NULL;
UPDATE sources SET spec = json_remove(json_set(spec, '$.audioFormat', json_extract(spec, '$.format')), '$.format')
    WHERE json_type(spec, '$.format') IS NOT NULL;
UPDATE sources SET spec = json_remove(spec, '$.lastRefreshedAt') WHERE json_type(spec, '$.lastRefreshedAt') = 'null';
