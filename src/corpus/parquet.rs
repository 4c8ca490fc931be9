//! Parquet shards (feature `parquet`): record batches of a bounded number
//! of rows through the parquet crate's arrow reader, only the columns asked
//! for; and the filtered copy the writer makes.

use std::fs::File;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Int8Type, Int16Type, Int32Type, Int64Type, UInt8Type, UInt16Type, UInt32Type, UInt64Type,
};
use arrow_array::{Array, BooleanArray, RecordBatch, RecordBatchReader};
use arrow_schema::{DataType, SchemaRef};
use parquet::arrow::ProjectionMask;
use parquet::arrow::arrow_reader::{ParquetRecordBatchReader, ParquetRecordBatchReaderBuilder};
use parquet::file::metadata::ParquetMetaData;

use super::resolve::FileEntry;
use super::{Columns, Compression, CorpusError};

/// Rows per batch at most, however small they are.
const MAX_BATCH_ROWS: usize = 64 * 1024;

/// Runs a call into the parquet crate, turning a panic on a malformed file
/// into an error.
fn guarded<T>(file: &str, f: impl FnOnce() -> Result<T, String>) -> Result<T, CorpusError> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(r) => r.map_err(|reason| CorpusError::parquet(file, reason)),
        Err(_) => Err(CorpusError::parquet(
            file,
            "the Parquet decoder failed on malformed data (it panicked)",
        )),
    }
}

/// Record batches of one file, with the number of their first row.
pub(crate) struct BatchReader {
    name: String,
    reader: Option<ParquetRecordBatchReader>,
    schema: SchemaRef,
    metadata: Arc<ParquetMetaData>,
    rows_done: u64,
    rows_total: u64,
    size: u64,
}

impl BatchReader {
    /// Opens `entry`, reading the named top-level columns (all of them for
    /// `None`), in batches of about `block_bytes` by the row groups'
    /// uncompressed sizes.
    pub(crate) fn open(
        entry: &FileEntry,
        name: &str,
        columns: Option<&[&str]>,
        block_bytes: usize,
    ) -> Result<BatchReader, CorpusError> {
        let file = File::open(&entry.path).map_err(|e| CorpusError::io(name, "open", e))?;
        let meta = file
            .metadata()
            .map_err(|e| CorpusError::io(name, "stat", e))?;
        if !entry.unchanged(&meta) {
            return Err(CorpusError::Changed { file: name.into() });
        }
        guarded(name, || {
            let builder = ParquetRecordBatchReaderBuilder::try_new(file)
                .map_err(|e| format!("not a readable Parquet file: {e}"))?;
            let schema = builder.schema().clone();
            let roots: Vec<usize> = match columns {
                Some(cols) => cols
                    .iter()
                    .filter_map(|c| schema.index_of(c).ok())
                    .collect(),
                None => (0..schema.fields().len()).collect(),
            };
            let metadata = builder.metadata().clone();
            let per_row = bytes_per_row(&metadata, builder.parquet_schema(), &roots);
            let rows = (block_bytes as u64 / per_row.max(1)).clamp(1, MAX_BATCH_ROWS as u64);
            let rows_total = metadata
                .row_groups()
                .iter()
                .map(|rg| u64::try_from(rg.num_rows()).unwrap_or(0))
                .sum();
            let mask = ProjectionMask::roots(builder.parquet_schema(), roots.iter().copied());
            let reader = builder
                .with_projection(mask)
                .with_batch_size(rows as usize)
                .build()
                .map_err(|e| format!("cannot read the row groups: {e}"))?;
            Ok(BatchReader {
                name: name.into(),
                schema: reader.schema(),
                reader: Some(reader),
                metadata,
                rows_done: 0,
                rows_total,
                size: entry.size,
            })
        })
    }

    /// The schema of the batches.
    pub(crate) fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    /// The file's metadata.
    pub(crate) fn metadata(&self) -> &ParquetMetaData {
        &self.metadata
    }

    /// How far into the file (in its bytes) the rows read so far reach.
    fn input_position(&self) -> u64 {
        if self.rows_total == 0 {
            return self.size;
        }
        let done = self.rows_done.min(self.rows_total) as u128;
        (u128::from(self.size) * done / u128::from(self.rows_total)) as u64
    }
}

impl Iterator for BatchReader {
    /// A batch, the number of its first row, and the input position after it.
    type Item = Result<(RecordBatch, u64, u64), CorpusError>;

    fn next(&mut self) -> Option<Self::Item> {
        let reader = self.reader.as_mut()?;
        let first = self.rows_done;
        let got = guarded(&self.name, || match reader.next() {
            None => Ok(None),
            Some(Ok(b)) => Ok(Some(b)),
            Some(Err(e)) => Err(format!(
                "cannot decode the rows from row {first} on: {e} (the rows before it were read)"
            )),
        });
        match got {
            Ok(Some(batch)) => {
                self.rows_done += batch.num_rows() as u64;
                Some(Ok((batch, first, self.input_position())))
            }
            Ok(None) => {
                self.reader = None;
                None
            }
            Err(e) => {
                self.reader = None;
                Some(Err(e))
            }
        }
    }
}

/// The largest uncompressed size per row of the `roots` columns over the
/// row groups.
fn bytes_per_row(
    metadata: &ParquetMetaData,
    schema: &parquet::schema::types::SchemaDescriptor,
    roots: &[usize],
) -> u64 {
    let leaves = schema.num_columns();
    let mut most = 0u64;
    for rg in metadata.row_groups() {
        let rows = u64::try_from(rg.num_rows()).unwrap_or(0).max(1);
        let bytes: u64 = rg
            .columns()
            .iter()
            .enumerate()
            .filter(|(leaf, _)| {
                *leaf < leaves && roots.contains(&schema.get_column_root_idx(*leaf))
            })
            .map(|(_, c)| u64::try_from(c.uncompressed_size()).unwrap_or(0))
            .sum();
        most = most.max(bytes / rows);
    }
    most
}

/// A batch of the text, id and extra columns.
pub(crate) struct ParquetBlock {
    pub(crate) batch: RecordBatch,
    cols: Arc<ColumnIndexes>,
    pub(crate) first_row: u64,
    pub(crate) input_position: u64,
}

/// Where the text, id and extra columns are in the projected batches.
struct ColumnIndexes {
    text: usize,
    id: Option<usize>,
    extra: Option<usize>,
}

/// The parts of one row's document.
pub(crate) struct RowParts<'a> {
    pub(crate) text: &'a str,
    pub(crate) id: Option<String>,
    pub(crate) extra: Option<&'a str>,
}

impl ParquetBlock {
    /// Rows in the block.
    pub(crate) fn len(&self) -> usize {
        self.batch.num_rows()
    }

    /// Row `i` of the block (0-based in the block), or why it is skipped.
    pub(crate) fn row(&self, i: usize) -> Result<RowParts<'_>, String> {
        let text = match value_at(self.batch.column(self.cols.text).as_ref(), i)? {
            Value::Str(s) => s,
            Value::Bytes(b) => std::str::from_utf8(b).map_err(|e| {
                format!(
                    "invalid UTF-8 at byte {} of the text value",
                    e.valid_up_to() + 1
                )
            })?,
            Value::Null => return Err("the text value is null".into()),
            Value::Int(_) => return Err("the text value is not a string".into()),
        };
        let id = match self.cols.id {
            None => None,
            Some(c) => Some(match value_at(self.batch.column(c).as_ref(), i)? {
                Value::Str(s) => json_string(s),
                Value::Bytes(b) => json_string(&String::from_utf8_lossy(b)),
                Value::Int(n) => n.to_string(),
                Value::Null => "null".into(),
            }),
        };
        let extra = match self.cols.extra {
            None => None,
            Some(c) => match value_at(self.batch.column(c).as_ref(), i)? {
                Value::Str(s) => Some(s),
                Value::Bytes(b) => std::str::from_utf8(b).ok(),
                Value::Int(_) | Value::Null => None,
            },
        };
        Ok(RowParts { text, id, extra })
    }
}

fn json_string(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_default()
}

/// Reads a Parquet shard's text, id and extra columns as [`ParquetBlock`]s.
pub(crate) struct ParquetReader {
    batches: BatchReader,
    cols: Arc<ColumnIndexes>,
}

impl ParquetReader {
    pub(crate) fn open(
        entry: &FileEntry,
        name: &str,
        cols: &Columns,
        block_bytes: usize,
    ) -> Result<ParquetReader, CorpusError> {
        let mut wanted = vec![cols.text.as_str()];
        wanted.extend(cols.id.as_deref());
        wanted.extend(cols.extra.as_deref());
        let batches = BatchReader::open(entry, name, Some(&wanted), block_bytes)?;
        let schema = batches.schema();
        let field = |c: &str| {
            let i = schema.index_of(c).ok()?;
            Some((i, schema.field(i).data_type().clone()))
        };
        let text = match field(&cols.text) {
            Some((i, t)) if is_text_type(&t) => i,
            Some((_, t)) => {
                return Err(CorpusError::parquet(
                    name,
                    format!("column \"{}\" is of type {t}, not a string", cols.text),
                ));
            }
            None => {
                let fields = batches.metadata().file_metadata().schema_descr();
                let names: Vec<&str> = fields
                    .root_schema()
                    .get_fields()
                    .iter()
                    .map(|f| f.name())
                    .collect();
                return Err(CorpusError::parquet(
                    name,
                    format!(
                        "no column \"{}\" (its columns: {})",
                        cols.text,
                        names.join(", ")
                    ),
                ));
            }
        };
        let id = match cols.id.as_deref().and_then(|c| Some((c, field(c)?))) {
            Some((_, (i, t))) if is_text_type(&t) || is_int_type(&t) => Some(i),
            Some((c, (_, t))) => {
                return Err(CorpusError::parquet(
                    name,
                    format!("id column \"{c}\" is of type {t}, not a string or an integer"),
                ));
            }
            None => None,
        };
        let extra = match cols.extra.as_deref().and_then(|c| Some((c, field(c)?))) {
            Some((_, (i, t))) if is_text_type(&t) => Some(i),
            Some((c, (_, t))) => {
                return Err(CorpusError::parquet(
                    name,
                    format!("column \"{c}\" is of type {t}, not a string"),
                ));
            }
            None => None,
        };
        Ok(ParquetReader {
            batches,
            cols: Arc::new(ColumnIndexes { text, id, extra }),
        })
    }
}

impl Iterator for ParquetReader {
    type Item = Result<ParquetBlock, CorpusError>;

    fn next(&mut self) -> Option<Self::Item> {
        Some(
            self.batches
                .next()?
                .map(|(batch, first_row, input_position)| ParquetBlock {
                    batch,
                    cols: self.cols.clone(),
                    first_row,
                    input_position,
                }),
        )
    }
}

/// Strings and binary (holding UTF-8), plain or dictionary-encoded.
fn is_text_type(t: &DataType) -> bool {
    match t {
        DataType::Utf8
        | DataType::LargeUtf8
        | DataType::Utf8View
        | DataType::Binary
        | DataType::LargeBinary
        | DataType::BinaryView => true,
        DataType::Dictionary(_, v) => is_text_type(v),
        _ => false,
    }
}

/// Signed and unsigned integers, plain or dictionary-encoded.
fn is_int_type(t: &DataType) -> bool {
    match t {
        DataType::Int8
        | DataType::Int16
        | DataType::Int32
        | DataType::Int64
        | DataType::UInt8
        | DataType::UInt16
        | DataType::UInt32
        | DataType::UInt64 => true,
        DataType::Dictionary(_, v) => is_int_type(v),
        _ => false,
    }
}

/// One value of a text or id column.
enum Value<'a> {
    Null,
    Str(&'a str),
    Bytes(&'a [u8]),
    Int(i128),
}

const MISMATCH: &str = "a column's values do not match its declared type";

/// Value `i` of `a`, which is of a type [`is_text_type`] or [`is_int_type`]
/// accepts.
fn value_at(a: &dyn Array, i: usize) -> Result<Value<'_>, String> {
    if i >= a.len() {
        return Err(format!("row {i} is past the column's {} values", a.len()));
    }
    if a.is_null(i) {
        return Ok(Value::Null);
    }
    macro_rules! int {
        ($t:ty) => {
            a.as_primitive_opt::<$t>()
                .map(|p| Value::Int(i128::from(p.value(i))))
        };
    }
    let v = match a.data_type() {
        DataType::Utf8 => a.as_string_opt::<i32>().map(|s| Value::Str(s.value(i))),
        DataType::LargeUtf8 => a.as_string_opt::<i64>().map(|s| Value::Str(s.value(i))),
        DataType::Utf8View => a.as_string_view_opt().map(|s| Value::Str(s.value(i))),
        DataType::Binary => a.as_binary_opt::<i32>().map(|s| Value::Bytes(s.value(i))),
        DataType::LargeBinary => a.as_binary_opt::<i64>().map(|s| Value::Bytes(s.value(i))),
        DataType::BinaryView => a.as_binary_view_opt().map(|s| Value::Bytes(s.value(i))),
        DataType::Int8 => int!(Int8Type),
        DataType::Int16 => int!(Int16Type),
        DataType::Int32 => int!(Int32Type),
        DataType::Int64 => int!(Int64Type),
        DataType::UInt8 => int!(UInt8Type),
        DataType::UInt16 => int!(UInt16Type),
        DataType::UInt32 => int!(UInt32Type),
        DataType::UInt64 => int!(UInt64Type),
        DataType::Dictionary(_, _) => {
            let d = a.as_any_dictionary_opt().ok_or(MISMATCH)?;
            let key = match value_at(d.keys(), i)? {
                Value::Int(k) => usize::try_from(k).map_err(|_| "a negative dictionary key")?,
                Value::Null => return Ok(Value::Null),
                _ => return Err(MISMATCH.into()),
            };
            return value_at(d.values().as_ref(), key);
        }
        t => return Err(format!("unsupported column type {t}")),
    };
    v.ok_or_else(|| MISMATCH.into())
}

/// The parquet codec of a chosen output compression.
pub(crate) fn codec(c: Compression) -> parquet::basic::Compression {
    use parquet::basic::{GzipLevel, ZstdLevel};
    match c {
        Compression::None => parquet::basic::Compression::UNCOMPRESSED,
        Compression::Gzip => parquet::basic::Compression::GZIP(GzipLevel::default()),
        Compression::Zstd => parquet::basic::Compression::ZSTD(ZstdLevel::default()),
    }
}

/// Row groups of the output are cut at about this size, so that the
/// writer holds at most about this much.
const OUT_ROW_GROUP_BYTES: usize = 128 << 20;

/// Copies the rows of `entry` that `keep` keeps into `out` (all columns, the
/// same schema and key-value metadata), compressed with `chosen` or else
/// the input's first column's codec. Returns (rows read, rows written).
pub(crate) fn write_filtered(
    entry: &FileEntry,
    name: &str,
    out: &File,
    out_name: &str,
    chosen: Option<Compression>,
    block_bytes: usize,
    keep: &mut dyn FnMut(u64) -> bool,
) -> Result<(u64, u64), CorpusError> {
    use parquet::arrow::ArrowWriter;
    use parquet::file::properties::WriterProperties;

    let batches = BatchReader::open(entry, name, None, block_bytes)?;
    let meta = batches.metadata();
    let codec = match chosen {
        Some(c) => codec(c),
        None => meta
            .row_groups()
            .first()
            .and_then(|rg| rg.columns().first())
            .map_or(parquet::basic::Compression::UNCOMPRESSED, |c| {
                c.compression()
            }),
    };
    let kv: Vec<_> = meta
        .file_metadata()
        .key_value_metadata()
        .into_iter()
        .flatten()
        .filter(|kv| kv.key != "ARROW:schema")
        .cloned()
        .collect();
    let props = WriterProperties::builder()
        .set_compression(codec)
        .set_max_row_group_bytes(Some(OUT_ROW_GROUP_BYTES))
        .set_key_value_metadata((!kv.is_empty()).then_some(kv))
        .build();
    let write_err = |e: parquet::errors::ParquetError| match e {
        parquet::errors::ParquetError::External(inner) => {
            match inner.downcast::<std::io::Error>() {
                Ok(io) => CorpusError::io(out_name, "write", *io),
                Err(other) => CorpusError::parquet(out_name, format!("cannot write: {other}")),
            }
        }
        other => CorpusError::parquet(out_name, format!("cannot write: {other}")),
    };
    let mut writer = ArrowWriter::try_new(out, batches.schema(), Some(props)).map_err(write_err)?;
    let (mut read, mut written) = (0u64, 0u64);
    for item in batches {
        let (batch, first, _) = item?;
        let mask: BooleanArray = (0..batch.num_rows() as u64)
            .map(|r| Some(keep(first + r)))
            .collect();
        read += batch.num_rows() as u64;
        let kept = arrow_select::filter::filter_record_batch(&batch, &mask)
            .map_err(|e| CorpusError::parquet(name, format!("cannot filter rows: {e}")))?;
        written += kept.num_rows() as u64;
        if kept.num_rows() > 0 {
            writer.write(&kept).map_err(write_err)?;
        }
    }
    writer.close().map_err(write_err)?;
    Ok((read, written))
}
