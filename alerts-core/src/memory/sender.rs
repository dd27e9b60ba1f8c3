//! [`RecordingSender`]: a webhook sender with scripted answers.

use std::collections::VecDeque;
use std::sync::Mutex;
use std::time::Duration;

use async_trait::async_trait;

use crate::ports::{WebhookRequest, WebhookResponse, WebhookSender};

use super::lock;

// ---------------------------------------------------------------------------------------------
// Webhooks.
// ---------------------------------------------------------------------------------------------

/// A [`WebhookSender`] that records every request and answers from a script: the scripted
/// responses in order, then 200 for ever.
#[derive(Debug, Default)]
pub struct RecordingSender {
    script: Mutex<VecDeque<WebhookResponse>>,
    sent: Mutex<Vec<WebhookRequest>>,
}

impl RecordingSender {
    /// A sender that answers 200 to everything.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// A sender that answers with these responses first.
    #[must_use]
    pub fn scripted(responses: impl IntoIterator<Item = WebhookResponse>) -> Self {
        Self {
            script: Mutex::new(responses.into_iter().collect()),
            sent: Mutex::default(),
        }
    }

    /// Adds a response to the end of the script.
    pub fn push_response(&self, response: WebhookResponse) {
        lock(&self.script).push_back(response);
    }

    /// Every request sent so far, in order.
    #[must_use]
    pub fn requests(&self) -> Vec<WebhookRequest> {
        lock(&self.sent).clone()
    }

    /// A response with HTTP `status` (error class [`crate::ports::DeliveryErrorKind::Status`]
    /// unless it is a 2xx) after 12 ms.
    #[must_use]
    pub fn status(status: u16) -> WebhookResponse {
        WebhookResponse {
            status: Some(status),
            latency: Duration::from_millis(12),
            error: (!(200..300).contains(&status))
                .then_some(crate::ports::DeliveryErrorKind::Status),
        }
    }

    /// A response for an attempt that failed without an answer.
    #[must_use]
    pub fn failure(kind: crate::ports::DeliveryErrorKind) -> WebhookResponse {
        WebhookResponse {
            status: None,
            latency: Duration::from_millis(10_000),
            error: Some(kind),
        }
    }
}

#[async_trait]
impl WebhookSender for RecordingSender {
    async fn send(&self, request: &WebhookRequest) -> WebhookResponse {
        lock(&self.sent).push(request.clone());
        lock(&self.script)
            .pop_front()
            .unwrap_or_else(|| Self::status(200))
    }
}
