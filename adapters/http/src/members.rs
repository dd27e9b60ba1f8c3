//! The names of a body's top-level members, judged as the body arrives: a member that neither
//! operation defines is refused when its name has been read, not after its value (which may
//! be most of a 32 MiB body) has been received, spooled and parsed.
//!
//! The scan follows strings and nesting only; it checks no other JSON syntax, and leaves every
//! body it cannot follow (not an object, a name with escapes or invalid UTF-8) to the
//! operations' readers, which see the whole body. A name it refuses is one that both readers
//! refuse too, since each refuses unknown members: the answer is the same, only sooner.

use std::cell::Cell;
use std::fmt::Write as _;
use std::sync::LazyLock;

use serde::de::{self, DeserializeOwned, Deserializer, Visitor};

/// Names longer than this are not kept whole: no member of either operation comes near it.
const MAX_NAME_BYTES: usize = 64;

/// Where the scan is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum At {
    /// Before the body's first byte that is not white space.
    Start,
    /// Inside the top-level object, where a member name may begin.
    BeforeName,
    /// Inside a top-level member's name.
    Name,
    /// After a top-level name, through its value, until the `,` or `}` that ends it.
    Value,
    /// Done: the object ended, or the body is something the scan does not judge.
    Done,
}

/// Scans a body's bytes, as they arrive, for top-level member names.
///
/// ```
/// use insights_http::members::{MemberScan, body_members};
///
/// let mut scan = MemberScan::new(body_members());
/// scan.feed(br#"{"routesSort": "desc", "rou"#).unwrap();
/// assert_eq!(scan.feed(br#"tez": []}"#), Err("routez".to_owned()));
/// ```
#[derive(Debug)]
pub struct MemberScan {
    allowed: &'static [&'static str],
    at: At,
    /// Nesting below the top-level object, while in a value.
    depth: u64,
    in_string: bool,
    escaped: bool,
    name: Vec<u8>,
    name_len: usize,
    name_escaped: bool,
}

impl MemberScan {
    /// A scan that refuses top-level names outside `allowed`.
    #[must_use]
    pub fn new(allowed: &'static [&'static str]) -> Self {
        Self {
            allowed,
            at: At::Start,
            depth: 0,
            in_string: false,
            escaped: false,
            name: Vec::new(),
            name_len: 0,
            name_escaped: false,
        }
    }

    /// Reads the next bytes of the body; the first top-level name outside the allowed ones is
    /// the error, as the exact name read (shortened when very long).
    ///
    /// # Errors
    /// That name; once refused, a scan reads no further.
    pub fn feed(&mut self, bytes: &[u8]) -> Result<(), String> {
        for &b in bytes {
            match self.at {
                At::Done => return Ok(()),
                At::Start => match b {
                    b' ' | b'\t' | b'\n' | b'\r' => {}
                    b'{' => self.at = At::BeforeName,
                    _ => self.at = At::Done,
                },
                At::BeforeName => match b {
                    b' ' | b'\t' | b'\n' | b'\r' | b',' => {}
                    b'"' => {
                        self.at = At::Name;
                        self.name.clear();
                        self.name_len = 0;
                        self.name_escaped = false;
                        self.escaped = false;
                    }
                    // The end of the object, or a syntax error the reader will name.
                    _ => self.at = At::Done,
                },
                At::Name => self.name_byte(b)?,
                At::Value => self.value_byte(b),
            }
        }
        Ok(())
    }

    fn name_byte(&mut self, b: u8) -> Result<(), String> {
        if self.escaped {
            self.escaped = false;
        } else if b == b'\\' {
            self.escaped = true;
            self.name_escaped = true;
        } else if b == b'"' {
            self.at = At::Value;
            self.depth = 0;
            self.in_string = false;
            return self.judge();
        }
        self.name_len += 1;
        if self.name.len() < MAX_NAME_BYTES {
            self.name.push(b);
        }
        Ok(())
    }

    /// Judges the name just read.
    fn judge(&self) -> Result<(), String> {
        // An escaped name may spell an allowed one; the reader decodes it.
        if self.name_escaped {
            return Ok(());
        }
        let name = match std::str::from_utf8(&self.name) {
            Ok(name) => name,
            // A long name cut inside a character: the characters before the cut are shown.
            Err(e) if e.error_len().is_none() && self.name_len > self.name.len() => {
                match std::str::from_utf8(&self.name[..e.valid_up_to()]) {
                    Ok(head) => head,
                    Err(_) => return Ok(()),
                }
            }
            Err(_) => return Ok(()),
        };
        if name.chars().any(char::is_control) {
            return Ok(());
        }
        if self.name_len <= MAX_NAME_BYTES && self.allowed.contains(&name) {
            return Ok(());
        }
        let mut shown = name.to_owned();
        if self.name_len > MAX_NAME_BYTES {
            let _ = write!(shown, "... ({} bytes)", self.name_len);
        }
        Err(shown)
    }

    fn value_byte(&mut self, b: u8) {
        if self.in_string {
            if self.escaped {
                self.escaped = false;
            } else if b == b'\\' {
                self.escaped = true;
            } else if b == b'"' {
                self.in_string = false;
            }
            return;
        }
        match b {
            b'"' => self.in_string = true,
            b'{' | b'[' => self.depth += 1,
            b'}' | b']' if self.depth > 0 => self.depth -= 1,
            b'}' => self.at = At::Done,
            b',' if self.depth == 0 => self.at = At::BeforeName,
            _ => {}
        }
    }
}

/// The names a body's top level may have: the members of a route-scoring request, and those
/// of an alert request.
pub fn body_members() -> &'static [&'static str] {
    static MEMBERS: LazyLock<Vec<&'static str>> = LazyLock::new(|| {
        let mut members = struct_members::<racs_core::ScoreRequest>().to_vec();
        members.extend_from_slice(alerts_core::request::BODY_MEMBERS);
        for member in struct_members::<racs_core::journey_request::JourneyRequest>() {
            if !members.contains(member) {
                members.push(member);
            }
        }
        members
    });
    &MEMBERS
}

/// The member names that serde's derive gives the struct `T`, as its deserializer is told
/// them: the reader's own list, so that the scan can never disagree with it.
pub fn struct_members<T: DeserializeOwned>() -> &'static [&'static str] {
    let fields = Cell::new(&[][..]);
    let _ = T::deserialize(Probe(&fields));
    fields.get()
}

/// A deserializer that records the member names a struct asks it for, and reads nothing.
struct Probe<'a>(&'a Cell<&'static [&'static str]>);

impl<'de> Deserializer<'de> for Probe<'_> {
    type Error = serde::de::value::Error;

    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Self::Error> {
        Err(de::Error::custom("only a struct's member names are probed"))
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        fields: &'static [&'static str],
        _: V,
    ) -> Result<V::Value, Self::Error> {
        self.0.set(fields);
        Err(de::Error::custom("probed"))
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map enum identifier
        ignored_any
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    const ALLOWED: &[&str] = &["routes", "routesSort", "points"];

    fn scan(body: &[u8]) -> Result<(), String> {
        MemberScan::new(ALLOWED).feed(body)
    }

    #[test]
    fn an_unknown_top_level_name_is_refused_as_soon_as_it_is_read() {
        let mut scan = MemberScan::new(ALLOWED);
        scan.feed(br#"{"routesSort": "desc", "routes": [{"id": "a", "x": {"y": 1}}], "#)
            .unwrap();
        assert_eq!(scan.feed(br#""x""#), Err("x".to_owned()));
    }

    #[test]
    fn names_inside_values_and_strings_are_not_top_level() {
        for body in [
            br#"{"routes": [{"x": 1, "y": [{"z": "\"}, \"w\": 1"}]}], "routesSort": "asc"}"#
                .as_slice(),
            br#"{"points": [{"custom_data": {"a,b": "}", "c": [1, {"d": 2}]}}]}"#,
            br#"  {"points": []} {"x": 1}"#,
        ] {
            assert_eq!(scan(body), Ok(()), "{}", String::from_utf8_lossy(body));
        }
    }

    #[test]
    fn what_the_scan_cannot_follow_is_left_to_the_reader() {
        for body in [
            br#"["x"]"#.as_slice(),
            br#"{"\u0078": 1}"#,
            b"{\"\xff\": 1}",
            b"{\"a\x01\": 1}",
            br#"{"points": [] "x": 1}"#,
        ] {
            assert_eq!(scan(body), Ok(()), "{}", String::from_utf8_lossy(body));
        }
    }

    #[test]
    fn a_very_long_name_is_refused_shortened() {
        let name = "n".repeat(10_000);
        let refused = scan(format!(r#"{{"{name}": 1}}"#).as_bytes()).unwrap_err();
        assert!(refused.ends_with("... (10000 bytes)"), "{refused}");
        assert!(refused.len() < 100);
        // An allowed name followed by more is another name.
        assert!(scan(br#"{"routesSortX": 1}"#).is_err());
    }

    /// Found by fuzzing: a long name whose shortened form ended inside a character was taken
    /// for invalid UTF-8 and let through.
    #[test]
    fn a_long_name_cut_inside_a_character_is_refused() {
        let name = format!("{}é{}", "n".repeat(MAX_NAME_BYTES - 1), "n".repeat(10));
        let refused = scan(format!(r#"{{"{name}": 1}}"#).as_bytes()).unwrap_err();
        let head = "n".repeat(MAX_NAME_BYTES - 1);
        assert_eq!(refused, format!("{head}... ({} bytes)", name.len()));
    }

    #[test]
    fn the_members_of_a_struct_are_those_its_reader_names() {
        let members = struct_members::<racs_core::ScoreRequest>();
        assert!(members.contains(&"routes") && members.contains(&"routesSort"));
        let refused = racs_core::ScoreRequest::from_json_slice(
            br#"{"nope": 1}"#,
            &racs_core::Limits::default(),
        )
        .unwrap_err()
        .to_string();
        for member in members {
            assert!(
                refused.contains(&format!("`{member}`")),
                "{member}: {refused}"
            );
        }
    }

    proptest! {
        /// However the body is cut into frames, the verdict is the same as in one piece.
        #[test]
        fn frames_do_not_change_the_verdict(cuts in proptest::collection::vec(0usize..200, 0..8)) {
            let bodies: [&[u8]; 3] = [
                br#"{"routes": [{"id": "a\"b", "p": [[1, 2]]}], "routesSort": "desc", "x": [0, 0]}"#,
                br#"{"points": [{"custom_data": {"k": "}\\"}}], "routesSort": 1}"#,
                br#" { "routes" : { } , "zz" : 1 }"#,
            ];
            for body in bodies {
                let whole = scan(body);
                let mut cuts: Vec<usize> = cuts.iter().map(|c| c % (body.len() + 1)).collect();
                cuts.sort_unstable();
                let mut scan = MemberScan::new(ALLOWED);
                let mut from = 0;
                let mut verdict = Ok(());
                for cut in cuts.into_iter().chain([body.len()]) {
                    if verdict.is_ok() {
                        verdict = scan.feed(&body[from..cut]);
                    }
                    from = cut;
                }
                prop_assert_eq!(verdict, whole);
            }
        }
    }
}
