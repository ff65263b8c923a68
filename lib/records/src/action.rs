//! The stored shape of an owner's action (docs/api.md §23). Keys, owners and times are the
//! backends' own; the header values and the signing secret are secrets, kept as the other
//! secrets are (in the record, on storage only the service reads).

use crate::RecordError;
use lore_domain::Timestamp;
use lore_domain::action::{Action, ActionHeader, ActionMethod, ActionName, ActionSpec, Parameters};
use lore_domain::hook::WebhookSecret;
use lore_domain::id::{ActionId, WorkspaceId};
use lore_domain::source::SourceOwner;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ActionRecord {
    pub name: String,
    pub description: String,
    pub url: String,
    pub method: String,
    /// The JSON Schema as JSON text: any JSON, which not every backend's map attribute can hold.
    pub parameters: String,
    #[serde(default)]
    pub headers: Vec<HeaderRecord>,
    pub enabled: bool,
    pub signing_secret: String,
}

#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HeaderRecord {
    pub name: String,
    pub value: String,
}

impl std::fmt::Debug for HeaderRecord {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "HeaderRecord({}: <redacted>)", self.name)
    }
}

/// What the backends keep beside an [`ActionRecord`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ActionKeys {
    pub id: ActionId,
    pub workspace_id: WorkspaceId,
    pub owner: SourceOwner,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

impl ActionKeys {
    pub fn of(a: &Action) -> Self {
        Self {
            id: a.id.clone(),
            workspace_id: a.workspace_id.clone(),
            owner: a.owner.clone(),
            created_at: a.created_at,
            updated_at: a.updated_at,
        }
    }
}

impl ActionRecord {
    pub fn of(a: &Action) -> Self {
        let s = &a.spec;
        Self {
            name: s.name.as_str().to_owned(),
            description: s.description.clone(),
            url: s.url.clone(),
            method: s.method.as_str().to_owned(),
            parameters: s.parameters.as_value().to_string(),
            headers: s.headers.iter().map(|h| HeaderRecord { name: h.name.clone(), value: h.value.clone() }).collect(),
            enabled: s.enabled,
            signing_secret: a.signing_secret.expose().to_owned(),
        }
    }

    pub fn into_action(self, keys: ActionKeys) -> Result<Action, RecordError> {
        let parameters = serde_json::from_str(&self.parameters).map_err(|_| RecordError::of("action parameters"))?;
        Ok(Action {
            id: keys.id,
            workspace_id: keys.workspace_id,
            owner: keys.owner,
            spec: ActionSpec {
                name: ActionName::from_stored(self.name),
                description: self.description,
                url: self.url,
                method: ActionMethod::parse(&self.method).ok_or_else(|| RecordError::of("action method"))?,
                parameters: Parameters::from_stored(parameters),
                headers: self.headers.into_iter().map(|h| ActionHeader { name: h.name, value: h.value }).collect(),
                enabled: self.enabled,
            },
            signing_secret: WebhookSecret::from_stored(self.signing_secret),
            created_at: keys.created_at,
            updated_at: keys.updated_at,
        })
    }
}
