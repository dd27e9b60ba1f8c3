//! Reading station files in CSV: one reading a row, under a header naming the columns.

use std::collections::VecDeque;
use std::io::Read;

use aq_core::Position;

use super::{
    Builder, StationFile, StationFileConfig, StationFileError, check_value, parse_time, quantity,
};
use crate::values::Values;

const EXPECTED_COLUMNS: &str = "station_id, lon, lat, time, pm25, pm10, no2, o3, so2, co, \
                                tree_pollen, grass_pollen, weed_pollen";

/// Reads through to the csv reader, noting where lines end, so that errors name the line
/// whoever opens the file sees: the csv crate's own count is off for `\r\n` and lone `\r`
/// line ends.
struct LineEnds<R> {
    inner: R,
    /// Bytes read so far.
    read: u64,
    /// Whether the last byte read was a `\r`.
    after_cr: bool,
    /// Where the lines read past the last record asked about end (at a `\n`, or a `\r` not
    /// followed by one), in order: no more than the csv reader reads ahead.
    ends: VecDeque<u64>,
    /// How many lines end before the last record asked about.
    before: u64,
}

impl<R> LineEnds<R> {
    fn new(inner: R) -> Self {
        Self {
            inner,
            read: 0,
            after_cr: false,
            ends: VecDeque::new(),
            before: 0,
        }
    }

    /// The line, from 1, of the record at `at`. Records are asked about in the order they
    /// are read, and the csv reader has read each by then. A line end at `at` itself is
    /// before the record: after a `\r`, the csv crate places the next record at the `\n`.
    fn line(&mut self, at: &csv::Position) -> u64 {
        while self.ends.front().is_some_and(|&end| end <= at.byte()) {
            self.ends.pop_front();
            self.before += 1;
        }
        self.before + 1
    }
}

impl<R: Read> Read for LineEnds<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        for &b in &buf[..n] {
            if self.after_cr && b != b'\n' {
                self.ends.push_back(self.read - 1);
            }
            if b == b'\n' {
                self.ends.push_back(self.read);
            }
            self.after_cr = b == b'\r';
            self.read += 1;
        }
        Ok(n)
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Column {
    Id,
    Lon,
    Lat,
    Time,
    Value(usize),
    Ignored,
}

impl StationFile {
    /// Loads a CSV station file (see the [module documentation](super)).
    ///
    /// # Errors
    /// [`StationFileError`] naming the line and column of the first problem.
    pub fn from_csv_reader(
        reader: impl Read,
        config: StationFileConfig,
    ) -> Result<Self, StationFileError> {
        let mut csv = csv::ReaderBuilder::new()
            .trim(csv::Trim::All)
            .comment(Some(b'#'))
            .from_reader(LineEnds::new(reader));
        let header = csv
            .headers()
            .map_err(|e| StationFileError::CsvHeader(e.to_string()))?
            .clone();
        let mut columns = Vec::with_capacity(header.len());
        for name in &header {
            let lower = name.to_ascii_lowercase();
            let column = match lower.as_str() {
                "station_id" => Column::Id,
                "lon" | "longitude" => Column::Lon,
                "lat" | "latitude" => Column::Lat,
                "time" => Column::Time,
                _ if lower.starts_with('_') => Column::Ignored,
                _ => match quantity(&lower) {
                    Some(i) => Column::Value(i),
                    None => {
                        return Err(StationFileError::CsvHeader(format!(
                            "unknown column `{name}`; expected {EXPECTED_COLUMNS} (prefix a \
                             column with `_` to have it ignored)"
                        )));
                    }
                },
            };
            if column != Column::Ignored && columns.contains(&column) {
                return Err(StationFileError::CsvHeader(format!(
                    "column `{name}` appears twice"
                )));
            }
            columns.push(column);
        }
        for (needed, name) in [
            (Column::Id, "station_id"),
            (Column::Lon, "lon"),
            (Column::Lat, "lat"),
            (Column::Time, "time"),
        ] {
            if !columns.contains(&needed) {
                return Err(StationFileError::CsvHeader(format!(
                    "missing column `{name}`; expected {EXPECTED_COLUMNS}"
                )));
            }
        }

        let mut b = Builder::default();
        let mut record = csv::StringRecord::new();
        loop {
            match csv.read_record(&mut record) {
                Ok(false) => break,
                Ok(true) => {}
                Err(e) => {
                    let line = e.position().map_or(0, |at| csv.get_mut().line(at));
                    return Err(StationFileError::Csv {
                        line,
                        message: e.to_string(),
                    });
                }
            }
            let line = record.position().map_or(0, |at| csv.get_mut().line(at));
            let field_err = |col: usize, message: String| StationFileError::CsvField {
                line,
                column: header.get(col).unwrap_or_default().to_owned(),
                message,
            };
            let (mut id, mut lon, mut lat, mut time) = (None, None, None, None);
            let mut values = Values::MISSING;
            for (col, cell) in record.iter().enumerate() {
                let number = || {
                    cell.parse::<f64>()
                        .map_err(|_| field_err(col, format!("`{cell}` is not a number")))
                };
                match columns[col] {
                    Column::Id if cell.is_empty() => {
                        return Err(field_err(col, "the station id is empty".to_owned()));
                    }
                    Column::Id => id = Some(cell),
                    Column::Lon => lon = Some(number()?),
                    Column::Lat => lat = Some(number()?),
                    Column::Time => time = Some(parse_time(cell).map_err(|m| field_err(col, m))?),
                    Column::Value(_) if cell.is_empty() => {}
                    Column::Value(i) => {
                        values.0[i] = check_value(i, number()?).map_err(|m| field_err(col, m))?;
                    }
                    Column::Ignored => {}
                }
            }
            let col_of = |c: Column| columns.iter().position(|&x| x == c).unwrap_or(0);
            let (Some(id), Some(lon), Some(lat), Some(time)) = (id, lon, lat, time) else {
                return Err(StationFileError::Csv {
                    line,
                    message: "the row is missing station_id, lon, lat or time".to_owned(),
                });
            };
            let position = Position::new(lon, lat).map_err(|e| {
                let col = if lon.is_finite() && (-180.0..=180.0).contains(&lon) {
                    col_of(Column::Lat)
                } else {
                    col_of(Column::Lon)
                };
                field_err(col, e.to_string())
            })?;
            b.add(id, position, time, values, || format!("CSV line {line}"))?;
        }
        b.finish(config)
    }

    /// [`StationFile::from_csv_reader`] on a string.
    ///
    /// # Errors
    /// As [`StationFile::from_csv_reader`].
    pub fn from_csv_str(csv: &str, config: StationFileConfig) -> Result<Self, StationFileError> {
        Self::from_csv_reader(csv.as_bytes(), config)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Found by fuzzing: in a file with `\r` line ends every error named line 1, and with
    /// `\r\n` line ends the line before its own.
    #[test]
    fn errors_name_the_line_whatever_ends_the_lines() {
        for end in ["\n", "\r\n", "\r"] {
            let csv = [
                "station_id,lon,lat,time",
                "a,1,2,2026-05-04T08:00:00Z",
                "b,x,2,t",
                "",
            ]
            .join(end);
            let e = StationFile::from_csv_str(&csv, StationFileConfig::default()).unwrap_err();
            assert!(
                e.to_string()
                    .starts_with("station CSV line 3, column `lon`"),
                "{end:?}: {e}"
            );
            let ragged = csv.replace("b,x,2,t", "b,1");
            let e = StationFile::from_csv_str(&ragged, StationFileConfig::default()).unwrap_err();
            assert!(
                e.to_string().starts_with("station CSV line 3:"),
                "{end:?}: {e}"
            );
        }
    }
}
