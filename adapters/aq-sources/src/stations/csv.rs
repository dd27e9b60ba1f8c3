//! Reading station files in CSV: one reading a row, under a header naming the columns.

use std::io::Read;

use aq_core::Position;

use super::{
    Builder, StationFile, StationFileConfig, StationFileError, check_value, parse_time, quantity,
};
use crate::values::Values;

const EXPECTED_COLUMNS: &str = "station_id, lon, lat, time, pm25, pm10, no2, o3, so2, co, \
                                tree_pollen, grass_pollen, weed_pollen";

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
            .from_reader(reader);
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
                    let line = e.position().map_or(0, csv::Position::line);
                    return Err(StationFileError::Csv {
                        line,
                        message: e.to_string(),
                    });
                }
            }
            let line = record.position().map_or(0, csv::Position::line);
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
