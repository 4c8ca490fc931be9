//! Parquet input (feature `parquet`): rows through the parquet crate's
//! record API; each row becomes a document and, if kept, a JSON line.

use std::borrow::Cow;
use std::path::Path;

use parquet::file::reader::{FileReader, SerializedFileReader};
use parquet::record::Field;

use crate::error::{CliError, CliResult};
use crate::input::{Doc, Record, Skip, display_name};
use crate::jsonl::Columns;

/// One decoded row.
pub struct Row {
    id: String,
    text: String,
    json: String,
    /// Size of the row as JSON, what the progress bar and the report count.
    pub bytes: u64,
}

impl Row {
    /// The row as a document (its kept record is the row as JSON).
    pub fn doc(&self) -> Doc<'_> {
        Doc {
            id: Cow::Borrowed(&self.id),
            text: Cow::Borrowed(&self.text),
            record: Record::Json(&self.json),
            bytes: self.bytes,
        }
    }
}

/// Reads every row of `path`. Rows without a string in the text column are
/// skipped (or, with `strict`, stop the run); a decoding error ends the read.
pub fn read(path: &Path, cols: Columns<'_>, strict: bool) -> CliResult<(Vec<Row>, Vec<Skip>)> {
    let name = display_name(path);
    let file = std::fs::File::open(path).map_err(|e| CliError::read(&name, e))?;
    let reader = SerializedFileReader::new(file)
        .map_err(|e| CliError::Failed(format!("{name}: not a readable Parquet file: {e}")))?;
    let iter = reader
        .get_row_iter(None)
        .map_err(|e| CliError::Failed(format!("{name}: cannot read rows: {e}")))?;
    let mut rows = Vec::new();
    let mut skipped = Vec::new();
    for (i, row) in iter.enumerate() {
        let number = i + 1;
        let place = format!("{name}:row {number}");
        let row = match row {
            Ok(r) => r,
            Err(e) => {
                let s = Skip {
                    place,
                    reason: format!("cannot decode: {e} (the rest of the file is not read)"),
                };
                if strict {
                    return Err(CliError::Failed(s.to_string()));
                }
                skipped.push(s);
                break;
            }
        };
        let mut text = None;
        let mut id = None;
        for (col, field) in row.get_column_iter() {
            if col == cols.text {
                text = Some(match field {
                    Field::Str(s) => Ok(s.clone()),
                    Field::Null => Err(format!("column \"{}\" is null", cols.text)),
                    other => Err(format!(
                        "column \"{}\" is not a string (found {other})",
                        cols.text
                    )),
                });
            } else if col == cols.id {
                id = Some(field.to_json_value().to_string());
            }
        }
        let text = text.unwrap_or_else(|| Err(format!("no \"{}\" column", cols.text)));
        match text {
            Ok(text) => {
                let json = row.to_json_value().to_string();
                rows.push(Row {
                    id: id.unwrap_or_else(|| number.to_string()),
                    text,
                    bytes: json.len() as u64 + 1,
                    json,
                });
            }
            Err(reason) => {
                let s = Skip { place, reason };
                if strict {
                    return Err(CliError::Failed(s.to_string()));
                }
                skipped.push(s);
            }
        }
    }
    Ok((rows, skipped))
}
