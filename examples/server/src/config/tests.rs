//! The settings' rules: defaults, which source wins, and what is refused.

use super::*;

#[test]
fn defaults_need_no_setting() {
    let s = Settings::merge(&GlobalArgs::default(), FileSettings::default()).unwrap();
    assert_eq!(s.listen.to_string(), "127.0.0.1:8080");
    assert_eq!(s.data_dir, PathBuf::from("insights-data"));
    assert_eq!(s.database_url, "sqlite://insights-data/insights.db");
    assert_eq!(s.public_url, None);
    assert_eq!(s.aq_source, "demo");
    assert!(!s.allow_private_webhooks);
    assert_eq!(s.connections, ConnectionLimits::default());
    assert_eq!(s.request_timeout, Duration::from_secs(30));
    assert_eq!(s.cors_origins, AllowedOrigins::None);
    assert_eq!(s.max_departure_scorings, 1000);
    assert_eq!(s.racs, racs_core::RacsConfig::default());
    assert_eq!(s.cams_cache_bytes, 512 << 20);
}

#[test]
fn the_least_departure_gain_comes_from_the_file_within_the_racs_scale() {
    let gain = |toml: &str| {
        let file: FileSettings = toml::from_str(toml).map_err(|e| e.to_string())?;
        Settings::merge(&GlobalArgs::default(), file)
            .map(|s| s.racs.min_departure_gain)
            .map_err(|e| e.to_string())
    };
    assert_eq!(gain(""), Ok(5), "the scoring core's default");
    assert_eq!(gain("min_departure_gain = 0\n"), Ok(0));
    assert_eq!(gain("min_departure_gain = 100\n"), Ok(100));
    let err = gain("min_departure_gain = 101\n").unwrap_err();
    assert!(
        err.contains("min_departure_gain is 101; it must be at most 100"),
        "{err}"
    );
    for bad in ["-1", "256", "2.5", "\"five\""] {
        let err = gain(&format!("min_departure_gain = {bad}\n")).unwrap_err();
        assert!(err.contains("min_departure_gain"), "{bad}: {err}");
    }
}

#[test]
fn the_cams_cache_is_set_in_mib_and_never_empty() {
    let file: FileSettings = toml::from_str("cams_cache_mib = 64\n").unwrap();
    let s = Settings::merge(&GlobalArgs::default(), file).unwrap();
    assert_eq!(s.cams_cache_bytes, 64 << 20);
    let file: FileSettings = toml::from_str("cams_cache_mib = 0\n").unwrap();
    let err = Settings::merge(&GlobalArgs::default(), file).unwrap_err();
    assert!(err.to_string().contains("cams_cache_mib"), "{err}");
}

#[test]
fn connection_settings_come_from_flags_or_the_file_and_are_checked() {
    let file: FileSettings = toml::from_str(
        "header_timeout_seconds = 2\nmax_connections = 5\ncors_origins = [\"https://a.example\"]\n",
    )
    .unwrap();
    let args = GlobalArgs {
        idle_timeout_seconds: Some(7),
        ..GlobalArgs::default()
    };
    let s = Settings::merge(&args, file).unwrap();
    assert_eq!(s.connections.header_read_timeout, Duration::from_secs(2));
    assert_eq!(s.connections.idle_timeout, Duration::from_secs(7));
    assert_eq!(s.connections.max_connections, 5);
    assert!(matches!(s.cors_origins, AllowedOrigins::List(ref o) if o.len() == 1));

    for (args, named) in [
        (
            GlobalArgs {
                request_timeout_seconds: Some(0),
                ..GlobalArgs::default()
            },
            "request_timeout_seconds",
        ),
        (
            GlobalArgs {
                max_connections: Some(0),
                ..GlobalArgs::default()
            },
            "max_connections",
        ),
        (
            GlobalArgs {
                header_timeout_seconds: Some(90),
                ..GlobalArgs::default()
            },
            "idle_timeout_seconds",
        ),
        (
            GlobalArgs {
                cors_origins: Some(vec!["example.org".into()]),
                ..GlobalArgs::default()
            },
            "example.org",
        ),
    ] {
        let err = Settings::merge(&args, FileSettings::default()).unwrap_err();
        assert!(err.to_string().contains(named), "{err}");
    }
}

#[test]
fn flags_win_over_the_file_and_the_file_over_defaults() {
    let file: FileSettings = toml::from_str(
        "listen = \"0.0.0.0:9000\"\naq_source = \"open-meteo\"\nmax_points = 5\n\
         max_departure_scorings = 0\n",
    )
    .unwrap();
    let args = GlobalArgs {
        aq_source: Some("demo".into()),
        ..GlobalArgs::default()
    };
    let s = Settings::merge(&args, file).unwrap();
    assert_eq!(s.listen.to_string(), "0.0.0.0:9000");
    assert_eq!(s.aq_source, "demo");
    assert_eq!(s.max_points, 5);
    assert_eq!(
        s.max_departure_scorings, 0,
        "0 refuses every departure window"
    );
    assert_eq!(s.public_url, None);
}

#[test]
fn the_fusion_is_set_in_its_own_table_and_checked() {
    let file: FileSettings = toml::from_str(
        "fuse_stations = \"stations:a.csv\"\n[fusion]\nneighbours = 8\nrelaxation_hours = 12.0\n",
    )
    .unwrap();
    let s = Settings::merge(&GlobalArgs::default(), file).unwrap();
    assert_eq!(s.fuse_stations.as_deref(), Some("stations:a.csv"));
    assert_eq!((s.fusion.neighbours, s.fusion.relaxation_hours), (8, 12.0));
    assert_eq!(s.fusion.max_stations, 400, "the rest keep their defaults");
    let file: FileSettings = toml::from_str(
        "[fusion]
neighbours = 0
",
    )
    .unwrap();
    let err = Settings::merge(&GlobalArgs::default(), file).unwrap_err();
    assert!(err.to_string().contains("`neighbours`"), "{err}");
    let err = toml::from_str::<FileSettings>(
        "[fusion]
neighbors = 3
",
    )
    .unwrap_err();
    assert!(err.to_string().contains("neighbors"), "{err}");
}

#[test]
fn the_alert_rules_defaults_are_set_in_their_own_table_and_checked() {
    let file: FileSettings =
        toml::from_str("[alerts]\naq_min_hours = 3\naq_hysteresis = 1\nconfidence = 1.5\n")
            .unwrap();
    let s = Settings::merge(&GlobalArgs::default(), file).unwrap();
    let t = s.thresholds;
    assert_eq!((t.aq_min_hours, t.aq_hysteresis, t.confidence), (3, 1, 1.5));
    assert_eq!(
        (t.aq_medium, t.pollen_min_days),
        (10.0, 1),
        "the rest keep their defaults"
    );
    let file: FileSettings = toml::from_str("[alerts]\npollen_min_days = 4\n").unwrap();
    let err = Settings::merge(&GlobalArgs::default(), file).unwrap_err();
    assert!(
        err.to_string()
            .contains("[alerts] pollen_min_days: 4 is outside 1 to 3 days"),
        "{err}"
    );
    let err = toml::from_str::<FileSettings>("[alerts]\nmin_hours = 3\n").unwrap_err();
    assert!(err.to_string().contains("min_hours"), "{err}");
}

#[test]
fn limits_follow_the_database_unless_a_limits_url_says_otherwise() {
    use identity_core::limiter::WhenUnavailable;
    let resolve = |args: GlobalArgs, toml: &str| {
        let file: FileSettings = toml::from_str(toml).unwrap();
        Settings::merge(&args, file).map_err(|e| e.to_string())
    };
    let s = resolve(GlobalArgs::default(), "").unwrap();
    assert_eq!(s.limits, LimitsAt::Memory, "SQLite: one process");
    assert_eq!(s.limits_unavailable, WhenUnavailable::Open);
    assert_eq!(s.limits_prefix, DEFAULT_LIMITS_PREFIX);
    let pg = GlobalArgs {
        database_url: Some("postgres://db/insights".into()),
        ..GlobalArgs::default()
    };
    assert_eq!(resolve(pg.clone(), "").unwrap().limits, LimitsAt::Database);
    assert_eq!(
        resolve(pg.clone(), "limits_url = \"memory\"\n")
            .unwrap()
            .limits,
        LimitsAt::Memory
    );
    let redis = GlobalArgs {
        limits_url: Some("redis://cache:6379".into()),
        limits_unavailable: Some("closed".into()),
        ..pg
    };
    let s = resolve(redis, "limits_url = \"memory\"\n").unwrap();
    assert_eq!(s.limits, LimitsAt::Redis("redis://cache:6379".into()));
    assert_eq!(s.limits_unavailable, WhenUnavailable::Closed);
    let err = resolve(GlobalArgs::default(), "limits_url = \"http://x\"\n").unwrap_err();
    assert!(err.contains("limits_url"), "{err}");
    let err = resolve(GlobalArgs::default(), "limits_unavailable = \"ajar\"\n").unwrap_err();
    assert!(
        err.contains("limits_unavailable") && err.contains("ajar"),
        "{err}"
    );
}

#[test]
fn body_budgets_are_set_in_mib_and_zero_is_refused() {
    let file: FileSettings =
        toml::from_str("key_body_mib_per_second = 2\nnetwork_body_burst_mib = 512\n").unwrap();
    let s = Settings::merge(&GlobalArgs::default(), file).unwrap();
    assert_eq!(s.body_budgets.per_key.per_second, 2 << 20);
    assert_eq!(
        s.body_budgets.per_key.burst,
        BodyBudgets::default().per_key.burst
    );
    assert_eq!(s.body_budgets.per_network.burst, 512 << 20);
    for zero in ["key_body_burst_mib = 0", "network_body_mib_per_second = 0"] {
        let file: FileSettings = toml::from_str(zero).unwrap();
        let err = Settings::merge(&GlobalArgs::default(), file).unwrap_err();
        let name = zero.split(' ').next().unwrap();
        assert!(err.to_string().contains(name), "{err}");
    }
}

#[test]
fn unknown_file_keys_are_named() {
    let err = toml::from_str::<FileSettings>("listn = \"x\"").unwrap_err();
    assert!(err.to_string().contains("listn"), "{err}");
}

#[test]
fn a_public_url_must_be_http() {
    let args = GlobalArgs {
        public_url: Some("ftp://x".into()),
        ..GlobalArgs::default()
    };
    assert!(Settings::merge(&args, FileSettings::default()).is_err());
}

#[test]
fn the_queue_target_is_seconds_with_a_fraction_and_must_be_positive() {
    let resolve = |toml: &str| {
        let file: FileSettings = toml::from_str(toml).map_err(|e| e.to_string())?;
        Settings::merge(&GlobalArgs::default(), file).map_err(|e| e.to_string())
    };
    let s = resolve("").unwrap();
    assert_eq!(s.backpressure.target_queue_delay, Duration::from_secs(1));
    assert_eq!(s.workers, 32);
    assert_eq!(s.per_key_jobs, 16, "half the workers");
    let s = resolve("target_queue_delay_seconds = 0.25\n").unwrap();
    assert_eq!(
        s.backpressure.target_queue_delay,
        Duration::from_millis(250)
    );
    for bad in ["0", "-1.0", "0.0"] {
        let err = resolve(&format!("target_queue_delay_seconds = {bad}\n")).unwrap_err();
        assert!(
            err.contains("target_queue_delay_seconds must be a number of seconds over 0"),
            "{bad}: {err}"
        );
    }
}
