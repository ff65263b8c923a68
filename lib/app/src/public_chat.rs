//! Public chat (docs/api.md §17, "Public chat"): visitors of a published Mind's page talk to it
//! without a key. A conversation opened here is `public` and answers only to the visitor token
//! handed out when it was opened; budgets count per client address and per Mind.

use crate::conversations::{PendingTurn, Transcript};
use crate::ports::{RateBucket, RateDecision};
use crate::{App, AppError};
use lore_domain::conversation::{Channel, MessageContent, Visitor, VisitorToken};
use lore_domain::id::ConversationId;
use lore_domain::mind::Mind;
use lore_domain::source::SourceOwner;
use lore_domain::{DomainError, ErrorCode, Timestamp};
use std::net::IpAddr;

/// A public conversation just opened: the Mind, the transcript, and the visitor's token (shown
/// once).
pub struct PublicStart {
    pub mind: Mind,
    pub transcript: Transcript,
    pub token: VisitorToken,
}

fn email_required() -> AppError {
    let mut e = DomainError::new(ErrorCode::EmailRequired, "this Mind asks for your e-mail address before a chat");
    e.fields.insert("visitor.email".into(), "is required by this Mind".into());
    AppError::Rejected(e)
}

impl App {
    /// Counts one public request against the client address's and the Mind's budgets.
    pub(crate) async fn admit_public(&self, mind: &Mind, client: Option<IpAddr>) -> Result<(), AppError> {
        let now = Timestamp::now();
        let mut buckets = vec![(RateBucket::ChatMind(mind.id.clone()), self.config.public_chat_per_mind_per_minute)];
        // Without a known address (a request that reached the router by another way than a
        // socket or a Lambda event) only the Mind's budget applies.
        if let Some(ip) = client {
            buckets.insert(0, (RateBucket::ChatAddress(ip), self.config.public_chat_per_minute));
        }
        for (bucket, limit) in buckets {
            if let RateDecision::Limited { retry_after_secs } = self.ports.rate_limiter.hit(&bucket, limit, now).await?
            {
                let what = match bucket {
                    RateBucket::ChatAddress(_) => "too many messages from this address",
                    _ => "this Mind receives too many messages",
                };
                return Err(AppError::Busy { what: what.into(), retry_after_secs });
            }
        }
        Ok(())
    }

    /// Counts one read of a public page (or the API document) against the client address's
    /// budget; without a known address nothing is counted.
    pub async fn admit_page_read(&self, client: Option<IpAddr>) -> Result<(), AppError> {
        let Some(ip) = client else { return Ok(()) };
        let bucket = RateBucket::PageAddress(ip);
        match self.ports.rate_limiter.hit(&bucket, self.config.public_pages_per_minute, Timestamp::now()).await? {
            RateDecision::Limited { retry_after_secs } => {
                Err(AppError::Busy { what: "too many requests from this address".into(), retry_after_secs })
            }
            RateDecision::Allowed => Ok(()),
        }
    }

    /// Opens a public conversation with the published Mind at `/m/{slug}`.
    pub async fn start_public_conversation(
        &self,
        slug: &str,
        visitor: Option<Visitor>,
        client: Option<IpAddr>,
    ) -> Result<PublicStart, AppError> {
        let mind = self.published_mind(slug).await?;
        if mind.collect_email_before_chat && visitor.as_ref().is_none_or(|v| v.email.is_none()) {
            return Err(email_required());
        }
        self.admit_public(&mind, client).await?;
        let lead = mind.collect_email_before_chat;
        let token = VisitorToken::generate();
        let owner = SourceOwner::Mind(mind.id.clone());
        let transcript = self
            .open_conversation(&mind.workspace_id, &owner, Channel::Public, visitor, Some(token.hash()), lead)
            .await?;
        Ok(PublicStart { mind, transcript, token })
    }

    /// The first step of a visitor's turn: the Mind is published, the token opens this
    /// conversation (else `not_found`, like an absent one), the budgets allow it.
    pub async fn begin_public_turn(
        &self,
        slug: &str,
        id: &ConversationId,
        token: Option<&VisitorToken>,
        content: MessageContent,
        client: Option<IpAddr>,
    ) -> Result<(Mind, PendingTurn), AppError> {
        let mind = self.visitor_access(slug, id, token, client).await?;
        let owner = SourceOwner::Mind(mind.id.clone());
        let turn = self.begin_turn(&mind.workspace_id, &owner, id, content).await?;
        Ok((mind, turn))
    }

    /// A visitor's request about conversation `id`: the Mind at `slug` is published, the token
    /// opens this conversation (else `not_found`, like an absent one), and the budgets allow it.
    pub(crate) async fn visitor_access(
        &self,
        slug: &str,
        id: &ConversationId,
        token: Option<&VisitorToken>,
        client: Option<IpAddr>,
    ) -> Result<Mind, AppError> {
        let mind = self.published_mind(slug).await?;
        let owner = SourceOwner::Mind(mind.id.clone());
        let conversation = self.find_conversation(&mind.workspace_id, &owner, id).await?;
        let opens = matches!((token, &conversation.visitor_token), (Some(t), Some(stored)) if t.hash() == *stored);
        if !opens {
            return Err(AppError::NotFound("conversation"));
        }
        self.admit_public(&mind, client).await?;
        Ok(mind)
    }
}
