//! Files the ingest refuses, what it skips, ingesting a file twice or from two processes, serving
//! while files come in, and the purge of runs past retention.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use aq_core::{AirQualitySource, Pollutant, Position, SampleQuery};
use aq_grid::{GridSource, GridStore, Product, Quantity, ingest_file, list_files};
use object_store::ObjectStore;
use object_store::local::LocalFileSystem;

use crate::nodes::SMALL;
use chrono::{Duration, TimeZone, Utc};

use crate::reference::fixture;

fn berlin_at_run() -> SampleQuery {
    SampleQuery {
        position: Position::new(13.4, 52.5).unwrap(),
        time: Utc.with_ymd_and_hms(2026, 6, 10, 0, 30, 0).unwrap(),
    }
}

#[tokio::test]
async fn parameters_the_grid_does_not_serve_are_skipped() {
    let store = GridStore::in_memory();
    let report = ingest_file(&store, &fixture("global.grib2")).await.unwrap();
    // Six served quantities and one 2 m temperature at each of three steps.
    assert_eq!(report.messages, 21);
    assert_eq!(report.skipped, 3);
    assert_eq!(report.commit.taken, 18);
    // Six pollen species summed into three types and kept as plants (grass is its type), at
    // two steps: 6 + 3 + 5 fields per step.
    // NO, NH₃, dust, wildfire PM10 and another model's PM2.5 skipped.
    let report = ingest_file(&store, &fixture("europe.grib2")).await.unwrap();
    assert_eq!(
        (report.messages, report.skipped, report.commit.taken),
        (29, 5, 28)
    );
}

#[tokio::test]
async fn truncated_and_corrupt_files_are_refused_naming_the_file_and_held_data_keeps_serving() {
    let store = Arc::new(GridStore::in_memory());
    ingest_file(&store, &fixture("europe.grib2")).await.unwrap();
    let source = GridSource::new(store.clone());
    let before = source.sample(&[berlin_at_run()]).await.unwrap();
    assert!(before[0].is_some());

    let dir = tempfile::tempdir().unwrap();
    let bytes = std::fs::read(fixture("global.grib2")).unwrap();
    let truncated = dir.path().join("truncated.grib2");
    // Cut inside the fifteenth message (the first fourteen end at byte 21,726).
    std::fs::write(&truncated, &bytes[..21_726 + 700]).unwrap();
    // The end marker of the first message overwritten.
    let first_len = u64::from_be_bytes(bytes[8..16].try_into().unwrap()) as usize;
    let mut broken = bytes.clone();
    broken[first_len - 4..first_len].copy_from_slice(b"0000");
    let corrupt = dir.path().join("corrupt.grib2");
    std::fs::write(&corrupt, &broken).unwrap();
    let text = dir.path().join("text.grib2");
    std::fs::write(&text, "not a GRIB file").unwrap();

    for path in [&truncated, &corrupt, &text] {
        let e = ingest_file(&store, path)
            .await
            .err()
            .unwrap_or_else(|| panic!("{} was taken", path.display()));
        assert_eq!(&e.file, path);
        let shown = e.to_string();
        assert!(shown.starts_with(&path.display().to_string()), "{shown}");
        assert!(
            shown.len() > path.display().to_string().len() + 2,
            "{shown}"
        );
    }
    // Nothing of the refused files was taken: no global hour is held, Europe still answers,
    // and a replica reading the same objects finds the European batch alone.
    assert!(store.hours(Product::Global).is_empty());
    let replica = GridStore::new(store.objects().clone(), Default::default());
    assert_eq!(replica.refresh().await.unwrap(), 1);
    assert!(replica.hours(Product::Global).is_empty());
    assert_eq!(source.sample(&[berlin_at_run()]).await.unwrap(), before);
}

#[test]
fn a_directory_gives_its_grib2_files_in_name_order() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["b.grib2", "a.grib2", "notes.txt", "c.grb2"] {
        std::fs::write(dir.path().join(name), "").unwrap();
    }
    let files = list_files(&[dir.path().to_owned()]).unwrap();
    let names: Vec<_> = files
        .iter()
        .map(|p| p.file_name().unwrap().to_str().unwrap())
        .collect();
    assert_eq!(names, ["a.grib2", "b.grib2", "c.grb2"]);
    let missing = list_files(&[dir.path().join("nope.grib2")]).unwrap_err();
    assert!(missing.to_string().contains("nope.grib2"), "{missing}");
}

/// The run's hour (octet 17 of section 1) moved forward in every message of `bytes`.
fn shift_run(bytes: &[u8], hours: u8) -> Vec<u8> {
    let mut out = bytes.to_vec();
    let mut at = 0;
    while at + 16 <= out.len() {
        let len = u64::from_be_bytes(out[at + 8..at + 16].try_into().unwrap()) as usize;
        // Section 1 follows the 16 octets of section 0; its octet 17 is the hour.
        out[at + 16 + 16] += hours;
        at += len;
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_newer_run_takes_its_hours_while_readers_keep_being_answered() {
    let dir = tempfile::tempdir().unwrap();
    let objects: Arc<dyn ObjectStore> =
        Arc::new(LocalFileSystem::new_with_prefix(dir.path()).unwrap());
    let writer = Arc::new(GridStore::new(objects.clone(), SMALL));
    ingest_file(&writer, &fixture("global.grib2"))
        .await
        .unwrap();
    // The reader is another replica: it sees what the writer wrote once it refreshes.
    let store = Arc::new(GridStore::new(objects.clone(), SMALL));
    store.refresh().await.unwrap();
    let source = GridSource::new(store.clone());
    let files = tempfile::tempdir().unwrap();
    let newer = files.path().join("newer.grib2");
    std::fs::write(
        &newer,
        shift_run(&std::fs::read(fixture("global.grib2")).unwrap(), 1),
    )
    .unwrap();
    let corrupt = files.path().join("corrupt.grib2");
    std::fs::write(&corrupt, b"GRIB\0\0\0\x02\0\0\0\0\0\0\0\x40").unwrap();

    let stop = Arc::new(AtomicBool::new(false));
    let reader = {
        let (source, store, stop) = (source.clone(), store.clone(), stop.clone());
        tokio::spawn(async move {
            let mut answered = 0u64;
            while !stop.load(Ordering::Relaxed) {
                store.refresh().await.unwrap();
                let a = source.sample(&[berlin_at_run()]).await.unwrap();
                assert!(a[0].is_some(), "the held hour stopped answering");
                answered += 1;
                tokio::task::yield_now().await;
            }
            answered
        })
    };
    for _ in 0..5 {
        ingest_file(&writer, &corrupt).await.unwrap_err();
        ingest_file(&writer, &newer).await.unwrap();
        ingest_file(&writer, &fixture("global.grib2"))
            .await
            .unwrap();
    }
    stop.store(true, Ordering::Relaxed);
    assert!(reader.await.unwrap() > 0);
    store.refresh().await.unwrap();

    let pm = Quantity::Pollutant(Pollutant::Pm25);
    let run = |h| Utc.with_ymd_and_hms(2026, 6, 10, h, 0, 0).unwrap();
    // 00:00 only the first run has; 01:00 and 02:00 the newer run took, and the older file
    // ingested after it did not take them back; 03:00 only the newer run has.
    assert_eq!(store.run_of(Product::Global, pm, run(0)), Some(run(0)));
    assert_eq!(store.run_of(Product::Global, pm, run(1)), Some(run(1)));
    assert_eq!(store.run_of(Product::Global, pm, run(2)), Some(run(1)));
    assert_eq!(store.run_of(Product::Global, pm, run(3)), Some(run(1)));
    assert_eq!(store.hours(Product::Global).len(), 4);
    // Retention: the first run goes once 00:00, the one hour it alone answered, is past; the
    // newer run stays, as its later hours are still to come.
    assert_eq!(
        writer.purge(run(0) + Duration::minutes(30)).await.unwrap(),
        0
    );
    assert_eq!(writer.purge(run(1)).await.unwrap(), 1);
    store.refresh().await.unwrap();
    assert_eq!(store.hours(Product::Global), vec![run(1), run(2), run(3)]);
    let batches = store.manifests();
    assert_eq!(batches.len(), 1);
    assert_eq!(batches[0].run, run(1));
    // Nothing of the purged run is left in the directory.
    let left: Vec<_> = walk(dir.path())
        .into_iter()
        .filter(|p| p.contains("20260610T000000Z"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

/// Every file under `dir`, as paths relative to it.
fn walk(dir: &std::path::Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_owned()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                todo.push(p);
            } else {
                out.push(p.strip_prefix(dir).unwrap().display().to_string());
            }
        }
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_file_ingested_twice_or_by_two_processes_at_once_is_written_once_and_alike() {
    let dir = tempfile::tempdir().unwrap();
    let objects: Arc<dyn ObjectStore> =
        Arc::new(LocalFileSystem::new_with_prefix(dir.path()).unwrap());
    let a = Arc::new(GridStore::new(objects.clone(), SMALL));
    let b = Arc::new(GridStore::new(objects.clone(), SMALL));
    let file = fixture("europe.grib2");
    let (ra, rb) = tokio::join!(ingest_file(&a, &file), ingest_file(&b, &file));
    let (ra, rb) = (ra.unwrap(), rb.unwrap());
    assert_eq!((ra.commit.taken, rb.commit.taken), (28, 28));
    let files = walk(dir.path());
    let again = ingest_file(&a, &fixture("europe.grib2")).await.unwrap();
    assert_eq!(again.written, 0, "the batch is in the store already");
    assert_eq!(walk(dir.path()).len(), files.len());
    assert_eq!(
        files.iter().filter(|f| f.starts_with("manifests")).count(),
        1
    );
    let replica = GridStore::new(objects, SMALL);
    assert_eq!(replica.refresh().await.unwrap(), 1);
    assert_eq!(
        replica.hours(Product::Europe),
        a.hours(Product::Europe),
        "both processes wrote one and the same batch"
    );
}

#[tokio::test]
async fn chunks_no_manifest_names_go_with_their_run_once_it_is_past_retention() {
    use object_store::path::Path;
    use object_store::{ObjectStoreExt, PutPayload};

    let store = GridStore::in_memory();
    // What an ingest that failed half-way leaves: chunks, no manifest.
    let old = Path::from("chunks/global/20260601T000000Z/00000000000000ff/pm25/0/0-0");
    // A run within retention may still be being written: its chunks stay.
    let recent = Path::from("chunks/global/20260611T000000Z/00000000000000ff/pm25/0/0-0");
    for path in [&old, &recent] {
        store
            .objects()
            .put(path, PutPayload::from_static(b"AQG1"))
            .await
            .unwrap();
    }
    let cutoff = Utc.with_ymd_and_hms(2026, 6, 10, 0, 0, 0).unwrap();
    // Just written: an ingest may still be at work on the old run, so its chunks stay.
    assert_eq!(store.purge(cutoff).await.unwrap(), 0);
    assert!(store.objects().head(&old).await.is_ok());
    // Once their grace has passed they go.
    let later = Utc::now() + Duration::hours(2);
    assert_eq!(
        store.purge_orphans_before(cutoff, later).await.unwrap(),
        0,
        "no batch had a manifest"
    );
    assert!(matches!(
        store.objects().head(&old).await,
        Err(object_store::Error::NotFound { .. })
    ));
    assert!(store.objects().head(&recent).await.is_ok());
}
