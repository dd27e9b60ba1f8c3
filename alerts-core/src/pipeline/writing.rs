//! A job's file: its points read a page at a time, the source asked about the pages ahead of
//! the one being evaluated, and the alerts written in the points' order.

use chrono::{DateTime, Utc};
use futures::stream::BoxStream;
use futures::{StreamExt, TryStreamExt};

#[cfg(doc)]
use super::PipelineConfig;
use super::{AlertJob, AlertPipeline, PipelineError};
use crate::evaluate::ChunkForecast;
use crate::ids::Token;
use crate::ndjson::NdjsonEncoder;
use crate::ports::FileWriter;
use crate::repeat::OnceFilter;
use crate::request::AlertPoint;
use crate::rule::{AlertRule, Repeat};

/// One page of a job's points and their forecast.
#[derive(Clone, Copy)]
struct Page<'a> {
    points: &'a [AlertPoint],
    forecast: &'a ChunkForecast,
}

impl AlertPipeline {
    /// Writes the file with `writer`; its lines, and whether the job told a once-per-change
    /// alert.
    pub(super) async fn write_file(
        &self,
        mut writer: Box<dyn FileWriter>,
        job: &AlertJob,
        rules: &[AlertRule],
        now: DateTime<Utc>,
    ) -> Result<(u64, bool), PipelineError> {
        match self.stream(writer.as_mut(), job, rules, now).await {
            Ok(written) => {
                writer.finish().await?;
                Ok(written)
            }
            Err(e) => {
                // The original error is the one worth reporting; an abort failure leaves at
                // most an invisible partial upload for the store to clean up.
                let _ = writer.abort().await;
                Err(e)
            }
        }
    }

    /// Evaluates the request's points one page of `points_chunk` at a time, so that the
    /// worker's memory does not depend on the request's size. Alerts of once-per-change rules
    /// are left out when their point id was told the same change ([`crate::repeat`]); what
    /// this job tells is recorded page by page, and counts once the file is written. Its
    /// lines, and whether it told anything.
    ///
    /// The source is asked about the pages ahead ([`PipelineConfig::pages_ahead`]) while a
    /// page is evaluated and written: a source that answers from memory keeps the processor's
    /// cores busy with them meanwhile (and the end of one page's work overlaps the start of the
    /// next), a remote one has them in flight. The worker holds at most that many pages with
    /// their forecasts and the page being written, and one chunk of the file.
    async fn stream(
        &self,
        writer: &mut dyn FileWriter,
        job: &AlertJob,
        rules: &[AlertRule],
        now: DateTime<Utc>,
    ) -> Result<(u64, bool), PipelineError> {
        let page_size = self.config.points_chunk.max(1);
        let token = job.token;
        let pages = futures::stream::try_unfold(Some(0_u64), move |from| {
            self.page_from(token, from, page_size)
        });
        let forecasts = pages
            .map_ok(move |page| self.with_forecast(rules, page, now))
            .try_buffered(self.config.pages_ahead.max(1));
        // Boxed, the stream is `Send` for the lifetimes of this call alone, which the compiler
        // cannot show for the closures' futures otherwise.
        let mut forecasts: BoxStream<'_, Result<_, PipelineError>> = forecasts.boxed();
        let mut encoder = NdjsonEncoder::with_chunk_bytes(self.config.file_chunk_bytes);
        let mut told = false;
        while let Some((points, forecast)) = forecasts.try_next().await? {
            let page = Page {
                points: &points,
                forecast: &forecast,
            };
            told |= self
                .settle_page(job, rules, page, now, &mut encoder, writer)
                .await?;
        }
        let alerts = encoder.lines();
        let rest = encoder.finish();
        if !rest.is_empty() {
            writer.write(rest).await?;
        }
        Ok((alerts, told))
    }

    /// The page of `token`'s points from `from`, and where the next starts (`None` after the
    /// last page); `None` past the end.
    async fn page_from(
        &self,
        token: Token,
        from: Option<u64>,
        size: usize,
    ) -> Result<Option<(Vec<AlertPoint>, Option<u64>)>, PipelineError> {
        let Some(from) = from else {
            return Ok(None);
        };
        let page = self.ports.jobs.points_page(token, from, size).await?;
        // A short page is the last: asking again would only confirm it.
        let next = (page.len() == size).then(|| from + page.len() as u64);
        Ok((!page.is_empty()).then_some((page, next)))
    }

    /// `page` with the source's forecast for `rules` at its points.
    async fn with_forecast(
        &self,
        rules: &[AlertRule],
        page: Vec<AlertPoint>,
        now: DateTime<Utc>,
    ) -> Result<(Vec<AlertPoint>, ChunkForecast), PipelineError> {
        let source = self.ports.forecast.as_ref();
        let forecast = self
            .config
            .evaluator
            .fetch(source, rules, &page, now)
            .await?;
        Ok((page, forecast))
    }

    /// Evaluates one page with its forecast into `encoder`, records what it told and writes
    /// the file's chunk when one is full; whether it told anything.
    async fn settle_page(
        &self,
        job: &AlertJob,
        rules: &[AlertRule],
        page: Page<'_>,
        now: DateTime<Utc>,
        encoder: &mut NdjsonEncoder,
        writer: &mut dyn FileWriter,
    ) -> Result<bool, PipelineError> {
        let once = rules
            .iter()
            .any(|r| r.enabled && r.spec.repeat() == Repeat::Once);
        let mut filter = if once {
            let ids: Vec<&str> = page.points.iter().map(|p| p.id.as_str()).collect();
            OnceFilter::new(self.ports.sent.sent_changes(job.key_id, &ids, now).await?)
        } else {
            OnceFilter::default()
        };
        let mut failure = None;
        self.config
            .evaluator
            .evaluate_chunk(rules, page.points, page.forecast, |alert| {
                if failure.is_none() && filter.admit(alert) {
                    failure = encoder.encode(&alert.line()).err();
                }
            });
        if let Some(e) = failure {
            return Err(e.into());
        }
        let told = !filter.told().is_empty();
        if told {
            self.ports
                .sent
                .record_sent(job.token, job.key_id, filter.told())
                .await?;
        }
        if let Some(bytes) = encoder.take_chunk() {
            writer.write(bytes).await?;
        }
        Ok(told)
    }
}
