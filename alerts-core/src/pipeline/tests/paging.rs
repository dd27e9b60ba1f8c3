//! Points read a page at a time and evaluated a chunk at a time: the calls made, the file
//! independent of the page size, and a page that fails to load.

use super::*;

#[tokio::test]
async fn points_are_fetched_in_chunks_with_one_call_per_data_type() {
    let h = Harness::new().await;
    h.add_rule(DataType::Pollen, Forecast::Days(2), Sensitivity::High)
        .await;
    type Calls = Arc<Mutex<Vec<(&'static str, usize, u32)>>>;
    let calls: Calls = Arc::default();
    let (aq_calls, pollen_calls) = (calls.clone(), calls.clone());
    let mut forecast = MockForecast::new();
    forecast
        .expect_info()
        .returning(|| SourceInfo::demo("mock"));
    forecast
        .expect_hourly_ci()
        .returning(move |positions, start, hours| {
            aq_calls
                .lock()
                .unwrap()
                .push(("aq", positions.len(), hours));
            Ok(positions
                .iter()
                .map(|_| HourlyCi::covered(start, vec![ci(72.0), ci(40.0), ci(40.0)]))
                .collect())
        });
    forecast
        .expect_daily_pollen()
        .returning(move |positions, _, days| {
            pollen_calls
                .lock()
                .unwrap()
                .push(("pollen", positions.len(), days));
            Ok(vec![None; positions.len()])
        });
    let pipeline = AlertPipeline::new(
        PipelinePorts {
            forecast: Arc::new(forecast),
            ..h.ports()
        },
        PipelineConfig {
            points_chunk: 4,
            file_chunk_bytes: 256,
            ..PipelineConfig::default()
        },
    );
    let points = (0..10)
        .map(|i| AlertPoint {
            position: Position::new(f64::from(i), 10.0).unwrap(),
            id: format!("p{i}"),
            custom_data: "{}".into(),
        })
        .collect();
    let token = pipeline
        .accept(h.key_id, AlertRequest { points })
        .await
        .unwrap();
    pipeline.run_once(1).await.unwrap();
    // Seven hours for a six-hour rule: one past the horizon shows whether a change that starts
    // at the sixth hour lasts the two hours a change must.
    assert_eq!(
        *calls.lock().unwrap(),
        vec![
            ("aq", 4, 7),
            ("pollen", 4, 2),
            ("aq", 4, 7),
            ("pollen", 4, 2),
            ("aq", 2, 7),
            ("pollen", 2, 2)
        ]
    );
    assert_eq!(file_ids(&h, token).await, ids_of(10));
}

/// `n` of [`paris_points`] accepted for the harness's key.
async fn accept_paris(pipeline: &AlertPipeline, h: &Harness, n: usize) -> Token {
    pipeline
        .accept(
            h.key_id,
            AlertRequest {
                points: paris_points(n),
            },
        )
        .await
        .unwrap()
}

/// The point ids of `token`'s file, in its order.
async fn file_ids(h: &Harness, token: Token) -> Vec<String> {
    let lines = decode_all(&h.files.read(&FileKey::for_token(token)).await.unwrap()).unwrap();
    lines.into_iter().map(|l| l.id).collect()
}

/// The ids of the first `n` of [`paris_points`], in order.
fn ids_of(n: usize) -> Vec<String> {
    (0..n).map(|i| format!("p{i}")).collect()
}

/// Points for the paging tests: all where the harness's forecast has data, so that every one
/// yields a line, with ids and custom data that tell them apart.
fn paris_points(n: usize) -> Vec<AlertPoint> {
    (0..n)
        .map(|i| AlertPoint {
            position: paris(),
            id: format!("p{i}"),
            custom_data: format!(r#"{{"n": {i},  "k":"\u00e9"}}"#),
        })
        .collect()
}

#[tokio::test]
async fn the_worker_reads_one_page_of_points_chunk_points_at_a_time() {
    for (n, pages) in [
        (10, vec![(0, 4, 4), (4, 4, 4), (8, 4, 2)]),
        // A last page that is full: one more read finds the end.
        (8, vec![(0, 4, 4), (4, 4, 4), (8, 4, 0)]),
        (3, vec![(0, 4, 3)]),
    ] {
        let h = Harness::new().await;
        let queue = Arc::new(FlakyQueue::new(h.store.clone()));
        let pipeline = AlertPipeline::new(
            PipelinePorts {
                jobs: queue.clone(),
                ..h.ports()
            },
            PipelineConfig {
                points_chunk: 4,
                ..PipelineConfig::default()
            },
        );
        let token = accept_paris(&pipeline, &h, n).await;
        pipeline.run_once(1).await.unwrap();
        assert_eq!(*queue.pages.lock().unwrap(), pages, "{n} points");
        assert_eq!(file_ids(&h, token).await, ids_of(n), "{n} points");
    }
}

#[tokio::test]
async fn the_file_is_the_same_whatever_the_page_size() {
    let mut files = Vec::new();
    for points_chunk in [1, 3, 7, 1000] {
        let h = Harness::new().await;
        let pipeline = AlertPipeline::new(
            h.ports(),
            PipelineConfig {
                points_chunk,
                file_chunk_bytes: 100,
                ..PipelineConfig::default()
            },
        );
        let token = accept_paris(&pipeline, &h, 23).await;
        pipeline.run_once(1).await.unwrap();
        files.push(h.files.read(&FileKey::for_token(token)).await.unwrap());
    }
    assert_eq!(decode_all(&files[0]).unwrap().len(), 23);
    for file in &files[1..] {
        assert_eq!(file, &files[0], "the same bytes in the same order");
    }
}

#[tokio::test]
async fn a_page_that_fails_to_load_leaves_no_file_and_the_job_leased() {
    let h = Harness::new().await;
    let queue = Arc::new(FlakyQueue {
        fail_pages_from: Some(4),
        ..FlakyQueue::new(h.store.clone())
    });
    let pipeline = AlertPipeline::new(
        PipelinePorts {
            jobs: queue.clone(),
            ..h.ports()
        },
        PipelineConfig {
            points_chunk: 4,
            ..PipelineConfig::default()
        },
    );
    let token = accept_paris(&pipeline, &h, 10).await;
    let report = pipeline.run_once(1).await.unwrap();
    assert!(
        matches!(
            report.failed.as_slice(),
            [(t, PipelineError::Store(StoreError::Unavailable(_)))] if *t == token
        ),
        "{report:?}"
    );
    assert!(
        !h.files.exists(&FileKey::for_token(token)).await.unwrap(),
        "a file cut short is never made visible"
    );
    let state = h.store.job_state(token).unwrap();
    assert_eq!(state.stage, JobStage::Evaluate);
    assert!(
        state.leased_until.is_some(),
        "the job is retried when its lease ends"
    );
}

/// A source whose first answer waits until it is asked again: a worker that asks about one page
/// at a time never hears from it.
struct AnswersOnceAskedAgain {
    inner: Arc<MemoryForecast>,
    calls: AtomicUsize,
    asked_again: tokio::sync::Notify,
}

#[async_trait]
impl ForecastSource for AnswersOnceAskedAgain {
    fn info(&self) -> SourceInfo {
        self.inner.info()
    }

    async fn hourly_ci(
        &self,
        positions: &[Position],
        start: DateTime<Utc>,
        hours: u32,
    ) -> Result<Vec<Option<HourlyCi>>, SourceError> {
        if self.calls.fetch_add(1, Ordering::SeqCst) == 0 {
            tokio::time::timeout(Duration::from_secs(10), self.asked_again.notified())
                .await
                .map_err(|_| SourceError::Unavailable("not asked about a second page".into()))?;
        } else {
            self.asked_again.notify_one();
        }
        self.inner.hourly_ci(positions, start, hours).await
    }

    async fn daily_pollen(
        &self,
        positions: &[Position],
        at: DateTime<Utc>,
        days: u32,
    ) -> Result<Vec<Option<PollenOutlook>>, SourceError> {
        self.inner.daily_pollen(positions, at, days).await
    }
}

#[tokio::test]
async fn the_next_page_is_asked_about_before_the_first_is_answered_and_the_file_keeps_its_order() {
    let h = Harness::new().await;
    let source = AnswersOnceAskedAgain {
        inner: h.forecast.clone(),
        calls: AtomicUsize::new(0),
        asked_again: tokio::sync::Notify::new(),
    };
    let pipeline = AlertPipeline::new(
        PipelinePorts {
            forecast: Arc::new(source),
            ..h.ports()
        },
        PipelineConfig {
            points_chunk: 4,
            file_chunk_bytes: 100,
            ..PipelineConfig::default()
        },
    );
    let token = accept_paris(&pipeline, &h, 10).await;
    let report = pipeline.run_once(1).await.unwrap();
    assert!(report.failed.is_empty(), "{report:?}");
    assert_eq!(file_ids(&h, token).await, ids_of(10));
}
