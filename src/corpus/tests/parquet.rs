//! Parquet shards: column types, projection, bounded batches, corrupt
//! files, and the filtered copy.

use std::fs::File;
use std::sync::Arc;

use ::parquet::arrow::ArrowWriter;
use ::parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use ::parquet::basic::Compression as Codec;
use ::parquet::file::metadata::KeyValue;
use ::parquet::file::properties::WriterProperties;
use arrow_array::types::Int32Type;
use arrow_array::{
    Array, ArrayRef, BinaryArray, BooleanArray, DictionaryArray, Int32Array, Int64Array,
    LargeStringArray, RecordBatch, StringArray, StringViewArray, UInt8Array,
};
use arrow_schema::{Field, Schema};

use super::super::parquet::ParquetReader;
use super::*;

fn batch(columns: Vec<(&str, ArrayRef)>) -> RecordBatch {
    let fields: Vec<Field> = columns
        .iter()
        .map(|(n, a)| Field::new(*n, a.data_type().clone(), true))
        .collect();
    let arrays = columns.into_iter().map(|(_, a)| a).collect();
    RecordBatch::try_new(Arc::new(Schema::new(fields)), arrays).unwrap()
}

fn write_parquet(path: &Path, b: &RecordBatch, codec: Codec, rows_per_group: usize) -> PathBuf {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).unwrap();
    }
    let props = WriterProperties::builder()
        .set_compression(codec)
        .set_max_row_group_row_count(Some(rows_per_group))
        .set_key_value_metadata(Some(vec![KeyValue::new(
            "origin".into(),
            "test".to_owned(),
        )]))
        .build();
    let mut w = ArrowWriter::try_new(File::create(path).unwrap(), b.schema(), Some(props)).unwrap();
    w.write(b).unwrap();
    w.close().unwrap();
    path.to_path_buf()
}

/// `n` rows: a string id, a text (null every 7th row from the 4th), a
/// number and a flag.
fn sample(n: usize) -> RecordBatch {
    let ids: StringArray = (0..n).map(|i| Some(format!("s{i}"))).collect();
    let texts: StringArray = (0..n)
        .map(|i| (i % 7 != 3).then(|| format!("text of row {i} ") + &"w ".repeat(i % 5)))
        .collect();
    let nums: Int32Array = (0..n as i32).map(Some).collect();
    let flags: BooleanArray = (0..n).map(|i| Some(i % 2 == 0)).collect();
    batch(vec![
        ("id", Arc::new(ids)),
        ("text", Arc::new(texts)),
        ("n", Arc::new(nums)),
        ("flag", Arc::new(flags)),
    ])
}

#[test]
fn rows_ids_and_null_texts() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("in");
    write_parquet(&root.join("a.parquet"), &sample(20), Codec::SNAPPY, 6);
    write(&root.join("b.jsonl"), b"{\"text\": \"j\"}\n");
    let corpus = resolve(&[&root]);
    let kinds: Vec<Format> = corpus.shards().iter().map(Shard::format).collect();
    assert_eq!(kinds, [Format::Parquet, Format::Jsonl]);
    let shard = &corpus.shards()[0];
    let whole = read_shard(shard, &ReadOptions::default());
    assert!(whole.error.is_none(), "{:?}", whole.error);
    assert_eq!(whole.docs.len(), 17);
    assert_eq!(whole.docs[0].key, Key { shard: 0, row: 0 });
    assert_eq!(whole.docs[0].id.as_deref(), Some("\"s0\""));
    assert_eq!(whole.docs[0].text, "text of row 0 ");
    assert!(whole.docs[0].raw.is_empty());
    let skips: Vec<String> = whole.skips.iter().map(ToString::to_string).collect();
    let name = shard.name();
    assert_eq!(
        skips,
        [
            format!("{name} row 3: the text value is null"),
            format!("{name} row 10: the text value is null"),
            format!("{name} row 17: the text value is null"),
        ]
    );
    // Small blocks: batches of a few rows, the same documents.
    let small = read_shard(shard, &ReadOptions::default().block_bytes(40));
    assert!(small.blocks >= 5, "{}", small.blocks);
    assert_eq!(small.docs, whole.docs);
}

#[test]
fn only_the_asked_columns_are_decoded() {
    let dir = tempfile::tempdir().unwrap();
    let path = write_parquet(
        &dir.path().join("a.parquet"),
        &sample(10),
        Codec::UNCOMPRESSED,
        100,
    );
    let corpus = resolve(&[&path]);
    let Source::Parquet(entry) = &corpus.shards()[0].source else {
        panic!("not a Parquet shard")
    };
    let opts = ReadOptions::default().extra_column(Some("missing"));
    let mut reader = ParquetReader::open(entry, "a", &opts.cols, 1 << 20).unwrap();
    let block = reader.next().unwrap().unwrap();
    let names: Vec<String> = block
        .batch
        .schema()
        .fields()
        .iter()
        .map(|f| f.name().clone())
        .collect();
    assert_eq!(names, ["id", "text"]);
}

#[test]
fn text_and_id_column_types() {
    let dir = tempfile::tempdir().unwrap();
    let keys = Int32Array::from(vec![Some(1), Some(0), None, Some(1)]);
    let values = StringArray::from(vec!["zero", "one"]);
    let dict: DictionaryArray<Int32Type> =
        DictionaryArray::try_new(keys, Arc::new(values)).unwrap();
    let texts: Vec<(&str, ArrayRef)> = vec![
        (
            "large",
            Arc::new(LargeStringArray::from(vec!["a", "b", "c", "d"])),
        ),
        (
            "view",
            Arc::new(StringViewArray::from(vec!["a", "b", "c", "d"])),
        ),
        (
            "binary",
            Arc::new(BinaryArray::from(vec![
                &b"a"[..],
                &b"b"[..],
                &b"\xffc"[..],
                &b"d"[..],
            ])),
        ),
        ("dict", Arc::new(dict)),
    ];
    let ids: Vec<(&str, ArrayRef, [&str; 4])> = vec![
        (
            "i64",
            Arc::new(Int64Array::from(vec![-1, 2, 3, 4])),
            ["-1", "2", "3", "4"],
        ),
        (
            "u8",
            Arc::new(UInt8Array::from(vec![Some(255), None, Some(0), Some(1)])),
            ["255", "null", "0", "1"],
        ),
        (
            "str",
            Arc::new(StringArray::from(vec!["a\"q", "b", "c", "d"])),
            ["\"a\\\"q\"", "\"b\"", "\"c\"", "\"d\""],
        ),
    ];
    for (tname, text) in &texts {
        for (iname, id, want_ids) in &ids {
            let b = batch(vec![("text", text.clone()), ("id", id.clone())]);
            let path = write_parquet(
                &dir.path().join(format!("{tname}-{iname}.parquet")),
                &b,
                Codec::SNAPPY,
                3,
            );
            let got = read_shard(&resolve(&[&path]).shards()[0], &ReadOptions::default());
            assert!(got.error.is_none(), "{tname}/{iname}: {:?}", got.error);
            let rows: Vec<(u64, &str, &str)> = got
                .docs
                .iter()
                .map(|d| (d.key.row, d.id.as_deref().unwrap(), d.text.as_str()))
                .collect();
            let want: Vec<(u64, &str, &str)> = match *tname {
                "dict" => vec![
                    (0, want_ids[0], "one"),
                    (1, want_ids[1], "zero"),
                    (3, want_ids[3], "one"),
                ],
                "binary" => vec![
                    (0, want_ids[0], "a"),
                    (1, want_ids[1], "b"),
                    (3, want_ids[3], "d"),
                ],
                _ => vec![
                    (0, want_ids[0], "a"),
                    (1, want_ids[1], "b"),
                    (2, want_ids[2], "c"),
                    (3, want_ids[3], "d"),
                ],
            };
            assert_eq!(rows, want, "{tname}/{iname}");
            if *tname == "binary" {
                assert_eq!(
                    got.skips[0].reason,
                    "invalid UTF-8 at byte 1 of the text value"
                );
            }
        }
    }
}

#[test]
fn missing_or_mistyped_columns_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    let path = write_parquet(&dir.path().join("a.parquet"), &sample(3), Codec::SNAPPY, 10);
    let corpus = resolve(&[&path]);
    let shard = &corpus.shards()[0];
    let err = shard
        .blocks(&ReadOptions::default().text_column("body"))
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "{}: no column \"body\" (its columns: id, text, n, flag)",
            path.display()
        )
    );
    let err = shard
        .blocks(&ReadOptions::default().text_column("n"))
        .unwrap_err();
    assert!(
        err.to_string()
            .ends_with("column \"n\" is of type Int32, not a string"),
        "{err}"
    );
    let err = shard
        .blocks(&ReadOptions::default().id_column(Some("flag")))
        .unwrap_err();
    assert!(
        err.to_string().contains("not a string or an integer"),
        "{err}"
    );
}

#[test]
fn a_corrupt_footer_is_an_error_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = write_parquet(
        &dir.path().join("a.parquet"),
        &sample(50),
        Codec::SNAPPY,
        10,
    );
    let good = std::fs::read(&path).unwrap();
    let n = good.len();
    let mut garbled = good.clone();
    // The footer's length field claims more than the file holds.
    garbled[n - 8..n - 4].copy_from_slice(&u32::MAX.to_le_bytes());
    let mut flipped = good.clone();
    for b in &mut flipped[n - 60..n - 8] {
        *b = !*b;
    }
    for (name, bytes) in [
        ("cut.parquet", &good[..n - 3]),
        ("garbled.parquet", &garbled[..]),
        ("flipped.parquet", &flipped[..]),
        ("text.parquet", b"{\"text\": \"not parquet\"}\n"),
    ] {
        let p = write(&dir.path().join(name), bytes);
        let corpus = resolve(&[&p]);
        let shard = &corpus.shards()[0];
        let got = read_shard(shard, &ReadOptions::default());
        let err = got.error.expect("an error");
        assert!(
            matches!(err, CorpusError::Parquet { .. }),
            "{name}: {err:?}"
        );
        assert!(
            err.to_string().starts_with(&format!("{}: ", p.display())),
            "{err}"
        );
    }
}

#[test]
fn a_corrupt_page_ends_the_shard_after_the_rows_before_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = write_parquet(
        &dir.path().join("a.parquet"),
        &sample(400),
        Codec::UNCOMPRESSED,
        100,
    );
    let mut bytes = std::fs::read(&path).unwrap();
    // Garble the data of the last row groups (the footer stays intact).
    let meta = ParquetRecordBatchReaderBuilder::try_new(File::open(&path).unwrap())
        .unwrap()
        .metadata()
        .clone();
    let rg = &meta.row_groups()[2];
    let (start, len) = rg.columns()[1].byte_range();
    for b in &mut bytes[start as usize..(start + len) as usize] {
        *b = 0xee;
    }
    write(&path, &bytes);
    let got = read_shard(
        &resolve(&[&path]).shards()[0],
        &ReadOptions::default().block_bytes(100),
    );
    let err = got.error.expect("an error");
    assert!(
        err.to_string().contains("the rows before it were read"),
        "{err}"
    );
    let last = got.docs.last().map(|d| d.key.row);
    assert!(
        matches!(last, Some(r) if (150..200).contains(&r)),
        "{last:?}"
    );
}

/// Every column of a file, one batch.
fn read_back(path: &Path) -> (RecordBatch, Codec, Option<String>) {
    let builder = ParquetRecordBatchReaderBuilder::try_new(File::open(path).unwrap()).unwrap();
    let meta = builder.metadata().clone();
    let schema = builder.schema().clone();
    let batches: Vec<RecordBatch> = builder.build().unwrap().map(Result::unwrap).collect();
    let all = arrow_select::concat::concat_batches(&schema, &batches).unwrap();
    let origin = meta
        .file_metadata()
        .key_value_metadata()
        .and_then(|kv| kv.iter().find(|k| k.key == "origin"))
        .and_then(|k| k.value.clone());
    (all, meta.row_group(0).column(0).compression(), origin)
}

#[test]
fn the_writer_keeps_every_column_of_the_kept_rows() {
    let dir = tempfile::tempdir().unwrap();
    let input = sample(45);
    let path = write_parquet(&dir.path().join("in/p.parquet"), &input, Codec::SNAPPY, 10);
    let corpus = resolve(&[dir.path().join("in")]);
    let keep: BooleanArray = (0..45).map(|r| Some(r % 2 == 0)).collect();
    let want = arrow_select::filter::filter_record_batch(&input, &keep).unwrap();
    for (chosen, codec) in [
        (None, Codec::SNAPPY),
        (Some(Compression::None), Codec::UNCOMPRESSED),
        (Some(Compression::Gzip), Codec::GZIP(Default::default())),
        (Some(Compression::Zstd), Codec::ZSTD(Default::default())),
    ] {
        let out = dir.path().join(format!("out-{chosen:?}"));
        let writer =
            Writer::new(&corpus, &out, &WriteOptions::default().compression(chosen)).unwrap();
        let opts = ReadOptions::default().block_bytes(64);
        let s = writer
            .write_shard(&corpus.shards()[0], &opts, |r| r % 2 == 0)
            .unwrap();
        assert_eq!((s.rows_read, s.rows_written), (45, 23));
        assert_eq!(s.output, out.join("p.parquet"));
        let (got, got_codec, origin) = read_back(&s.output);
        assert_eq!(got.schema().fields(), want.schema().fields());
        assert_eq!(got.columns(), want.columns(), "{chosen:?}");
        assert_eq!(got_codec, codec);
        assert_eq!(origin.as_deref(), Some("test"));
        // And the corpus reader reads the kept rows under their new numbers.
        let back = read_shard(&resolve(&[&s.output]).shards()[0], &ReadOptions::default());
        let texts: Vec<&str> = back.docs.iter().map(|d| d.text.as_str()).collect();
        let orig = read_shard(&resolve(&[&path]).shards()[0], &ReadOptions::default());
        let kept: Vec<&str> = orig
            .docs
            .iter()
            .filter(|d| d.key.row % 2 == 0)
            .map(|d| d.text.as_str())
            .collect();
        assert_eq!(texts, kept);
    }
}
