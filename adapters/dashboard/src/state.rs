//! What the dashboard's handlers share: its ports, the API beside it, and its limiters.

use std::sync::Arc;

use alerts_core::pipeline::AlertPipeline;
use racs_core::Scorer;
use runtime_core::Clock;

use crate::answers::ApiAnswers;
use crate::{Dashboard, DashboardPorts};

/// The state of the dashboard's routes. Cheap to clone.
#[derive(Clone)]
pub struct DashboardState {
    inner: Arc<Dashboard>,
}

impl std::fmt::Debug for DashboardState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DashboardState")
            .field("ports", &self.inner.ports)
            .finish_non_exhaustive()
    }
}

impl DashboardState {
    /// The dashboard over `ports`, with fresh sign-in and account limiters.
    #[must_use]
    pub fn new(ports: DashboardPorts) -> Self {
        Self {
            inner: Arc::new(Dashboard::new(ports)),
        }
    }

    pub(crate) fn dashboard(&self) -> &Dashboard {
        &self.inner
    }

    pub(crate) fn api(&self) -> &dyn ApiAnswers {
        self.inner.ports.api.as_ref()
    }

    pub(crate) fn alerts(&self) -> &AlertPipeline {
        &self.inner.ports.alerts
    }

    pub(crate) fn scorer(&self) -> &Scorer {
        &self.inner.ports.scorer
    }

    pub(crate) fn clock(&self) -> &dyn Clock {
        self.inner.ports.clock.as_ref()
    }

    /// True when the API's air-quality or forecast source is synthetic demo data.
    pub(crate) fn demo_data(&self) -> bool {
        self.api().synthetic()
    }
}
