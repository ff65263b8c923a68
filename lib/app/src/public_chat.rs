//! Public chat (docs/api.md §17 "Public chat", §18): visitors of a published Mind's page
//! (`/m/{slug}`) or chatbot's page (`/c/{slug}`), on our site or embedded in another, talk to it
//! without a key. A conversation opened here is `public` and answers only to the visitor token
//! handed out when it was opened; budgets count per client address and per Mind or chatbot.
//! Everything here is written once for both kinds of owner ([`Published`]).

use crate::conversations::{PendingTurn, Transcript};
use crate::ports::{RateBucket, RateDecision};
use crate::{App, AppError};
use lore_domain::conversation::{Channel, MessageContent, Visitor, VisitorToken};
use lore_domain::embed::{IdentityClaim, PublicKind, Published};
use lore_domain::id::ConversationId;
use lore_domain::{DomainError, ErrorCode, Timestamp};
use std::net::IpAddr;

/// A public conversation just opened: its owner, the transcript, and the visitor's token (shown
/// once).
pub struct PublicStart {
    pub published: Published,
    pub transcript: Transcript,
    pub token: VisitorToken,
}

fn email_required(kind: PublicKind) -> AppError {
    let mut e = DomainError::new(
        ErrorCode::EmailRequired,
        format!("this {} asks for your e-mail address before a chat", display(kind)),
    );
    e.fields.insert("visitor.email".into(), format!("is required by this {}", display(kind)));
    AppError::Rejected(e)
}

fn identity_invalid() -> AppError {
    AppError::Rejected(DomainError::new(
        ErrorCode::IdentityInvalid,
        "this chat verifies its visitors: visitor.userId and visitor.userHash (the HMAC-SHA256 of the user id with \
         the identity secret, lowercase hex) are missing or do not match",
    ))
}

fn display(kind: PublicKind) -> &'static str {
    match kind {
        PublicKind::Mind => "Mind",
        PublicKind::Chatbot => "chatbot",
    }
}

impl App {
    /// The published Mind or chatbot at `/{m|c}/{slug}`; `not_found` when there is none.
    pub async fn published(&self, kind: PublicKind, slug: &str) -> Result<Published, AppError> {
        Ok(match kind {
            PublicKind::Mind => Published::Mind(Box::new(self.published_mind(slug).await?)),
            PublicKind::Chatbot => Published::Chatbot(Box::new(self.published_chatbot(slug).await?)),
        })
    }

    /// Counts one public request against the client address's and the owner's budgets.
    pub(crate) async fn admit_public(&self, published: &Published, client: Option<IpAddr>) -> Result<(), AppError> {
        let now = Timestamp::now();
        let mut buckets = vec![(RateBucket::ChatOwner(published.owner()), self.config.public_chat_per_mind_per_minute)];
        // Without a known address (a request that reached the router by another way than a
        // socket or a Lambda event) only the owner's budget applies.
        if let Some(ip) = client {
            buckets.insert(0, (RateBucket::ChatAddress(ip), self.config.public_chat_per_minute));
        }
        for (bucket, limit) in buckets {
            if let RateDecision::Limited { retry_after_secs } =
                self.ports.storage.rate_limiter.hit(&bucket, limit, now).await?
            {
                let what = match bucket {
                    RateBucket::ChatAddress(_) => "too many messages from this address".to_owned(),
                    _ => format!("this {} receives too many messages", display(published.kind())),
                };
                return Err(AppError::Busy { what, retry_after_secs });
            }
        }
        Ok(())
    }

    /// Counts one read of a public page (or the API document, or the widget) against the client
    /// address's budget; without a known address nothing is counted.
    pub async fn admit_page_read(&self, client: Option<IpAddr>) -> Result<(), AppError> {
        let Some(ip) = client else { return Ok(()) };
        let bucket = RateBucket::PageAddress(ip);
        match self
            .ports
            .storage
            .rate_limiter
            .hit(&bucket, self.config.public_pages_per_minute, Timestamp::now())
            .await?
        {
            RateDecision::Limited { retry_after_secs } => {
                Err(AppError::Busy { what: "too many requests from this address".into(), retry_after_secs })
            }
            RateDecision::Allowed => Ok(()),
        }
    }

    /// Opens a public conversation with the published Mind or chatbot at `/{m|c}/{slug}`. With
    /// identity verification on, the claim must be signed with the owner's identity secret
    /// (`identity_invalid` otherwise) and the conversation keeps the verified user id.
    pub async fn start_public_conversation(
        &self,
        kind: PublicKind,
        slug: &str,
        visitor: Option<Visitor>,
        claim: IdentityClaim,
        client: Option<IpAddr>,
    ) -> Result<PublicStart, AppError> {
        let published = self.published(kind, slug).await?;
        let user_id = claim.verify(&published.settings().embed).map_err(|()| identity_invalid())?;
        if published.settings().collect_email_before_chat && visitor.as_ref().is_none_or(|v| v.email.is_none()) {
            return Err(email_required(kind));
        }
        self.admit_public(&published, client).await?;
        let visitor = match (visitor, user_id) {
            (v, None) => v,
            (Some(v), Some(u)) => Some(Visitor { user_id: Some(u), ..v }),
            (None, Some(u)) => Some(Visitor { email: None, name: None, user_id: Some(u) }),
        };
        let lead = published.settings().collect_email_before_chat;
        let token = VisitorToken::generate();
        let transcript = self
            .open_conversation(
                published.workspace_id(),
                &published.owner(),
                Channel::Public,
                visitor,
                Some(token.hash()),
                lead,
                None,
            )
            .await?;
        Ok(PublicStart { published, transcript, token })
    }

    /// The first step of a visitor's turn: the owner is published, the token opens this
    /// conversation (else `not_found`, like an absent one), the budgets allow it.
    pub async fn begin_public_turn(
        &self,
        kind: PublicKind,
        slug: &str,
        id: &ConversationId,
        token: Option<&VisitorToken>,
        content: MessageContent,
        client: Option<IpAddr>,
    ) -> Result<(Published, PendingTurn), AppError> {
        let published = self.visitor_access(kind, slug, id, token, client).await?;
        let turn = self.begin_turn(published.workspace_id(), &published.owner(), id, content).await?;
        Ok((published, turn))
    }

    /// The visitor's read of their conversation (a reload of the page, docs/api.md §18).
    pub async fn read_public_conversation(
        &self,
        kind: PublicKind,
        slug: &str,
        id: &ConversationId,
        token: Option<&VisitorToken>,
        client: Option<IpAddr>,
    ) -> Result<(Published, Transcript), AppError> {
        let published = self.visitor_access(kind, slug, id, token, client).await?;
        let (ws, owner) = (published.workspace_id(), published.owner());
        let conversation = self.find_conversation(ws, &owner, id).await?;
        let messages = self.ports.storage.conversations.list_messages(ws, id).await?;
        Ok((published, Transcript { conversation, messages }))
    }

    /// A visitor's request about conversation `id`: the owner at `slug` is published, the token
    /// opens this conversation (else `not_found`, like an absent one), and the budgets allow it.
    pub(crate) async fn visitor_access(
        &self,
        kind: PublicKind,
        slug: &str,
        id: &ConversationId,
        token: Option<&VisitorToken>,
        client: Option<IpAddr>,
    ) -> Result<Published, AppError> {
        let published = self.published(kind, slug).await?;
        let conversation = self.find_conversation(published.workspace_id(), &published.owner(), id).await?;
        let opens = matches!((token, &conversation.visitor_token), (Some(t), Some(stored)) if t.hash() == *stored);
        if !opens {
            return Err(AppError::NotFound("conversation"));
        }
        self.admit_public(&published, client).await?;
        Ok(published)
    }
}
