//! Secrets read once at start from Secrets Manager, so that they never sit in a function's
//! plain environment: the pgvector database URL (`LORE_DATABASE_SECRET_ARN`) and the OpenAI API
//! key (`LORE_OPENAI_KEY_SECRET_ARN`). Their values are never logged.

use aws_config::SdkConfig;
use aws_sdk_secretsmanager::error::DisplayErrorContext;
use lore_app::ports::{StoreError, StoreResult};

/// The `SecretString` of secret `id` (a name or ARN), trimmed. A JSON secret with a single
/// string member (`{"url": "…"}`, as the console's key/value form stores it) yields that member.
pub async fn secret_string(sdk: &SdkConfig, id: &str) -> StoreResult<String> {
    let out = aws_sdk_secretsmanager::Client::new(sdk)
        .get_secret_value()
        .secret_id(id)
        .send()
        .await
        .map_err(|e| StoreError::Unavailable(format!("secret {id}: {}", DisplayErrorContext(e))))?;
    let raw = out.secret_string.ok_or_else(|| StoreError::Unavailable(format!("secret {id} has no SecretString")))?;
    Ok(unwrap_single_member(raw.trim()))
}

fn unwrap_single_member(raw: &str) -> String {
    if let Ok(serde_json::Value::Object(map)) = serde_json::from_str::<serde_json::Value>(raw)
        && map.len() == 1
        && let Some(serde_json::Value::String(v)) = map.values().next()
    {
        return v.trim().to_owned();
    }
    raw.to_owned()
}

#[cfg(test)]
mod tests {
    use super::unwrap_single_member;

    #[test]
    fn plain_and_single_member_json_secrets() {
        assert_eq!(unwrap_single_member("postgres://u:p@h/db"), "postgres://u:p@h/db");
        assert_eq!(unwrap_single_member(r#"{"url":" postgres://u:p@h/db "}"#), "postgres://u:p@h/db");
        let two = r#"{"user":"u","password":"p"}"#;
        assert_eq!(unwrap_single_member(two), two, "a secret with several members is passed through");
    }
}
