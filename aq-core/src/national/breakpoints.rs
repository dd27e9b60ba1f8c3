//! Sub-indices read off a breakpoint table by linear interpolation inside its row.

/// One row of a table: concentrations `c_lo..=c_hi` give sub-indices `i_lo..=i_hi`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Row {
    pub c_lo: f64,
    pub c_hi: f64,
    pub i_lo: f64,
    pub i_hi: f64,
}

/// A row from its four numbers.
pub(crate) const fn row(c_lo: f64, c_hi: f64, i_lo: f64, i_hi: f64) -> Row {
    Row {
        c_lo,
        c_hi,
        i_lo,
        i_hi,
    }
}

/// What a table says of a concentration.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Read {
    /// A sub-index inside the table.
    Index(f64),
    /// Past the table's last row.
    Beyond,
}

/// The sub-index of `c` in `rows` (ascending, each row starting at or after the last one's
/// end): the first row whose range holds `c`, interpolated; a `c` between two rows (a gap
/// of the published precision, closed by truncating first) reads the next row's start.
pub(crate) fn read(rows: &[Row], c: f64) -> Read {
    for r in rows {
        if c <= r.c_hi {
            if c <= r.c_lo {
                return Read::Index(r.i_lo);
            }
            return Read::Index(r.i_lo + (r.i_hi - r.i_lo) * (c - r.c_lo) / (r.c_hi - r.c_lo));
        }
    }
    Read::Beyond
}

/// `c` truncated to `decimals` decimal places, as the published tables are written; the
/// small epsilon keeps a value such as 0.3 (stored as 0.299…) from losing its last digit.
pub(crate) fn truncate(c: f64, decimals: i32) -> f64 {
    let scale = 10f64.powi(decimals);
    ((c * scale) + 1e-9).floor() / scale
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_interpolate_and_gaps_read_the_next_row() {
        let rows = [row(0.0, 30.0, 0.0, 50.0), row(31.0, 60.0, 51.0, 100.0)];
        assert_eq!(read(&rows, 15.0), Read::Index(25.0));
        assert_eq!(read(&rows, 30.0), Read::Index(50.0));
        assert_eq!(read(&rows, 30.5), Read::Index(51.0));
        assert_eq!(read(&rows, 60.0), Read::Index(100.0));
        assert_eq!(read(&rows, 60.1), Read::Beyond);
        assert_eq!(truncate(30.99, 0), 30.0);
        assert_eq!(truncate(0.3, 1), 0.3);
    }
}
