//! A result table as an Apache Parquet file, written by the engine itself.
//!
//! Source: the Parquet format specification (apache/parquet-format, `README.md`,
//! `Encodings.md` and `src/main/thrift/parquet.thrift`, format 2.x) and the Thrift
//! compact protocol (the Apache Thrift compact protocol specification).
//!
//! Why here: a run's tables are already columns of plain numbers and strings, so
//! writing them needs no Arrow library; the command line then saves a run without
//! importing pandas or pyarrow (issue 26: a whole `ccsim run --out` process costs
//! its simulation plus about a tenth of a second, docs/performance.md).
//!
//! What is written, the subset every Parquet reader reads:
//! * one row group; every column `REQUIRED` (tables have no nulls: a missing
//!   number is NaN), uncompressed, in data pages (v1) of at most
//!   [`PAGE_ROWS`] values;
//! * `F64` as `DOUBLE`, `I64` as `INT64`, `PLAIN`-encoded;
//! * `Str` as `BYTE_ARRAY` annotated `STRING` (UTF-8), `PLAIN`-encoded;
//! * `Cat` dictionary-encoded: a `PLAIN` dictionary page of the labels, then data
//!   pages of codes in the RLE/bit-packing hybrid (`RLE_DICTIONARY`), as runs of
//!   equal codes. The file's key-value metadata lists these columns under
//!   [`CATEGORICAL_KEY`] (a JSON list), so that a reader can ask for them as
//!   dictionaries (pandas categoricals), as `ccsim.Results.load` does.

use super::{Column, Table};

/// Rows per data page: pages of at most about half a megabyte of numbers.
pub const PAGE_ROWS: usize = 1 << 16;

/// Key-value metadata key naming the dictionary-encoded (categorical) columns.
pub const CATEGORICAL_KEY: &str = "ccsim.categorical";

const MAGIC: &[u8; 4] = b"PAR1";

// parquet.thrift enums.
const TYPE_INT64: i32 = 2;
const TYPE_DOUBLE: i32 = 5;
const TYPE_BYTE_ARRAY: i32 = 6;
const REQUIRED: i32 = 0;
const CONVERTED_UTF8: i32 = 0;
const ENC_PLAIN: i32 = 0;
const ENC_RLE: i32 = 3;
const ENC_RLE_DICTIONARY: i32 = 8;
const PAGE_DATA: i32 = 0;
const PAGE_DICTIONARY: i32 = 2;
const CODEC_UNCOMPRESSED: i32 = 0;

// Thrift compact protocol type codes (field headers and list elements).
const T_I32: u8 = 5;
const T_I64: u8 = 6;
const T_BINARY: u8 = 8;
const T_LIST: u8 = 9;
const T_STRUCT: u8 = 12;

/// A writer of Thrift compact-protocol structs: field headers carry the delta
/// from the previous field id of the same struct (a stack, one per open struct).
struct Thrift {
    buf: Vec<u8>,
    last: Vec<i16>,
}

impl Thrift {
    /// Starts the outermost struct (written without a field header).
    fn new() -> Self {
        Thrift {
            buf: Vec::new(),
            last: vec![0],
        }
    }

    fn varint(&mut self, mut v: u64) {
        while v >= 0x80 {
            self.buf.push((v as u8 & 0x7f) | 0x80);
            v >>= 7;
        }
        self.buf.push(v as u8);
    }

    fn zigzag(&mut self, v: i64) {
        self.varint(((v << 1) ^ (v >> 63)) as u64);
    }

    fn field(&mut self, id: i16, ty: u8) {
        let last = self.last.last_mut().expect("a struct is open");
        let delta = id - *last;
        *last = id;
        if (1..=15).contains(&delta) {
            self.buf.push((delta as u8) << 4 | ty);
        } else {
            self.buf.push(ty);
            self.zigzag(id as i64);
        }
    }

    fn i32(&mut self, id: i16, v: i32) {
        self.field(id, T_I32);
        self.zigzag(v as i64);
    }

    fn i64(&mut self, id: i16, v: i64) {
        self.field(id, T_I64);
        self.zigzag(v);
    }

    fn binary(&mut self, id: i16, v: &[u8]) {
        self.field(id, T_BINARY);
        self.varint(v.len() as u64);
        self.buf.extend_from_slice(v);
    }

    fn list(&mut self, id: i16, elem: u8, n: usize) {
        self.field(id, T_LIST);
        if n < 15 {
            self.buf.push((n as u8) << 4 | elem);
        } else {
            self.buf.push(0xf0 | elem);
            self.varint(n as u64);
        }
    }

    /// A list of i32 (enums).
    fn i32_list(&mut self, id: i16, v: &[i32]) {
        self.list(id, T_I32, v.len());
        for &x in v {
            self.zigzag(x as i64);
        }
    }

    /// A list of strings.
    fn str_list(&mut self, id: i16, v: &[&str]) {
        self.list(id, T_BINARY, v.len());
        for s in v {
            self.varint(s.len() as u64);
            self.buf.extend_from_slice(s.as_bytes());
        }
    }

    /// Opens a struct-valued field (`id`) or, with `None`, a struct element of a list.
    fn begin(&mut self, id: Option<i16>) {
        if let Some(id) = id {
            self.field(id, T_STRUCT);
        }
        self.last.push(0);
    }

    fn end(&mut self) {
        self.buf.push(0);
        self.last.pop();
    }

    /// Closes the outermost struct and returns the bytes.
    fn finish(mut self) -> Vec<u8> {
        self.end();
        debug_assert!(self.last.is_empty(), "unbalanced Thrift structs");
        self.buf
    }
}

/// What the file footer needs to know of one written column chunk.
struct Chunk<'n> {
    name: &'n str,
    ty: i32,
    string: bool,
    dictionary: bool,
    start: u64,
    data_start: u64,
    bytes: u64,
}

fn page_header(kind: i32, len: usize, values: usize, encoding: i32) -> Vec<u8> {
    let mut t = Thrift::new();
    t.i32(1, kind);
    t.i32(2, len as i32);
    t.i32(3, len as i32);
    if kind == PAGE_DICTIONARY {
        t.begin(Some(7));
        t.i32(1, values as i32);
        t.i32(2, encoding);
        t.end();
    } else {
        t.begin(Some(5));
        t.i32(1, values as i32);
        t.i32(2, encoding);
        t.i32(3, ENC_RLE);
        t.i32(4, ENC_RLE);
        t.end();
    }
    t.finish()
}

fn page(out: &mut Vec<u8>, kind: i32, values: usize, encoding: i32, body: &[u8]) {
    out.extend(page_header(kind, body.len(), values, encoding));
    out.extend_from_slice(body);
}

fn plain_strings<'s>(v: impl Iterator<Item = &'s String>) -> Vec<u8> {
    let mut b = Vec::new();
    for s in v {
        b.extend((s.len() as u32).to_le_bytes());
        b.extend_from_slice(s.as_bytes());
    }
    b
}

/// Bits per dictionary code for `n` labels (at least 1).
fn code_width(n: usize) -> u32 {
    (usize::BITS - n.saturating_sub(1).leading_zeros()).max(1)
}

/// `codes` in the RLE/bit-packing hybrid as RLE runs of equal codes, led by the
/// bit width byte of a dictionary-encoded data page.
fn rle_codes(codes: &[u32], width: u32) -> Vec<u8> {
    let mut t = Thrift::new(); // only for its varint
    t.buf.push(width as u8);
    let value_bytes = width.div_ceil(8) as usize;
    let mut i = 0;
    while i < codes.len() {
        let run = codes[i..].iter().take_while(|&&c| c == codes[i]).count();
        t.varint((run as u64) << 1);
        t.buf.extend_from_slice(&codes[i].to_le_bytes()[..value_bytes]);
        i += run;
    }
    t.buf
}

/// Writes one column chunk at the end of `out`.
fn column<'n>(out: &mut Vec<u8>, name: &'n str, col: &Column) -> Chunk<'n> {
    let start = out.len() as u64;
    let mut data_start = start;
    let (ty, string, dictionary) = match col {
        Column::F64(v) => {
            for p in v.chunks(PAGE_ROWS) {
                let body: Vec<u8> = p.iter().flat_map(|x| x.to_le_bytes()).collect();
                page(out, PAGE_DATA, p.len(), ENC_PLAIN, &body);
            }
            (TYPE_DOUBLE, false, false)
        }
        Column::I64(v) => {
            for p in v.chunks(PAGE_ROWS) {
                let body: Vec<u8> = p.iter().flat_map(|x| x.to_le_bytes()).collect();
                page(out, PAGE_DATA, p.len(), ENC_PLAIN, &body);
            }
            (TYPE_INT64, false, false)
        }
        Column::Str(v) => {
            for p in v.chunks(PAGE_ROWS) {
                page(out, PAGE_DATA, p.len(), ENC_PLAIN, &plain_strings(p.iter()));
            }
            (TYPE_BYTE_ARRAY, true, false)
        }
        Column::Cat(codes, labels) => {
            page(
                out,
                PAGE_DICTIONARY,
                labels.len(),
                ENC_PLAIN,
                &plain_strings(labels.iter()),
            );
            data_start = out.len() as u64;
            let width = code_width(labels.len());
            for p in codes.chunks(PAGE_ROWS) {
                page(out, PAGE_DATA, p.len(), ENC_RLE_DICTIONARY, &rle_codes(p, width));
            }
            (TYPE_BYTE_ARRAY, true, true)
        }
    };
    if col.is_empty() {
        // A column of no rows still has one (empty) data page.
        data_start = out.len() as u64;
        let enc = if dictionary { ENC_RLE_DICTIONARY } else { ENC_PLAIN };
        let body = if dictionary {
            vec![code_width(0) as u8]
        } else {
            Vec::new()
        };
        page(out, PAGE_DATA, 0, enc, &body);
    }
    Chunk {
        name,
        ty,
        string,
        dictionary,
        start,
        data_start,
        bytes: out.len() as u64 - start,
    }
}

/// The footer: `FileMetaData` (schema, the row group's column chunks, metadata).
fn footer(chunks: &[Chunk], rows: usize, metadata: &[(&str, &str)]) -> Vec<u8> {
    let mut t = Thrift::new();
    t.i32(1, 1); // version
    t.list(2, T_STRUCT, chunks.len() + 1);
    t.begin(None);
    t.binary(4, b"schema");
    t.i32(5, chunks.len() as i32);
    t.end();
    for c in chunks {
        t.begin(None);
        t.i32(1, c.ty);
        t.i32(3, REQUIRED);
        t.binary(4, c.name.as_bytes());
        if c.string {
            t.i32(6, CONVERTED_UTF8);
            t.begin(Some(10)); // LogicalType union: STRING
            t.begin(Some(1));
            t.end();
            t.end();
        }
        t.end();
    }
    t.i64(3, rows as i64);
    let total: u64 = chunks.iter().map(|c| c.bytes).sum();
    t.list(4, T_STRUCT, 1);
    t.begin(None);
    t.list(1, T_STRUCT, chunks.len());
    for c in chunks {
        t.begin(None);
        t.i64(2, c.start as i64);
        t.begin(Some(3));
        t.i32(1, c.ty);
        if c.dictionary {
            t.i32_list(2, &[ENC_PLAIN, ENC_RLE, ENC_RLE_DICTIONARY]);
        } else {
            t.i32_list(2, &[ENC_PLAIN, ENC_RLE]);
        }
        t.str_list(3, &[c.name]);
        t.i32(4, CODEC_UNCOMPRESSED);
        t.i64(5, rows as i64);
        t.i64(6, c.bytes as i64);
        t.i64(7, c.bytes as i64);
        t.i64(9, c.data_start as i64);
        if c.dictionary {
            t.i64(11, c.start as i64);
        }
        t.end();
        t.end();
    }
    t.i64(2, total as i64);
    t.i64(3, rows as i64);
    if let Some(c) = chunks.first() {
        t.i64(5, c.start as i64);
    }
    t.i64(6, total as i64);
    t.end();
    if !metadata.is_empty() {
        t.list(5, T_STRUCT, metadata.len());
        for (k, v) in metadata {
            t.begin(None);
            t.binary(1, k.as_bytes());
            t.binary(2, v.as_bytes());
            t.end();
        }
    }
    t.binary(6, format!("ccsim version {}", crate::VERSION).as_bytes());
    t.finish()
}

/// `table` as the bytes of a Parquet file, with `metadata` (and, if the table has
/// categorical columns, [`CATEGORICAL_KEY`]) as its key-value metadata.
///
/// # Panics
/// If the columns differ in length (a bug of the model that built the table).
pub fn to_parquet(table: &Table, metadata: &[(&str, &str)]) -> Vec<u8> {
    let (names, cols): (Vec<&str>, Vec<&Column>) = table.columns.iter().map(|(n, c)| (*n, c)).unzip();
    write(&names, &cols, metadata)
}

/// Columns `cols` named `names`, as [`to_parquet`] writes a table.
///
/// # Panics
/// If the columns differ in length or `names` and `cols` in number.
pub fn write<C: std::borrow::Borrow<Column>>(
    names: &[impl AsRef<str>],
    cols: &[C],
    metadata: &[(&str, &str)],
) -> Vec<u8> {
    assert_eq!(names.len(), cols.len(), "a name per column");
    let rows = cols.first().map_or(0, |c| c.borrow().len());
    for (name, c) in names.iter().zip(cols) {
        assert_eq!(c.borrow().len(), rows, "column {} has another length", name.as_ref());
    }
    let mut out = MAGIC.to_vec();
    let chunks: Vec<Chunk> = names
        .iter()
        .zip(cols)
        .map(|(n, c)| column(&mut out, n.as_ref(), c.borrow()))
        .collect();
    let cats: Vec<&str> = chunks.iter().filter(|c| c.dictionary).map(|c| c.name).collect();
    let cat_list = serde_json::to_string(&cats).expect("names serialize");
    let mut meta = metadata.to_vec();
    if !cats.is_empty() {
        meta.push((CATEGORICAL_KEY, &cat_list));
    }
    let f = footer(&chunks, rows, &meta);
    out.extend_from_slice(&f);
    out.extend((f.len() as u32).to_le_bytes());
    out.extend_from_slice(MAGIC);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compact_protocol_by_hand() {
        // Field 1 (i32 = 3): delta 1, type 5, zigzag(3) = 6. Field 20 (i64 = -1):
        // delta 19 > 15, so type byte then zigzag(20) = 40, then zigzag(-1) = 1.
        // A 20-element list of i32: 0xf5, varint 20. Stop byte.
        let mut t = Thrift::new();
        t.i32(1, 3);
        t.i64(20, -1);
        t.i32_list(21, &[0; 20]);
        let b = t.finish();
        let mut want = vec![0x15, 6, 0x06, 40, 1, 0x19, 0xf5, 20];
        want.extend([0; 20]);
        want.push(0);
        assert_eq!(b, want);
        // 300 as a varint: 0b1_0010_1100 -> 0xac 0x02.
        let mut t = Thrift::new();
        t.varint(300);
        assert_eq!(t.buf, [0xac, 0x02]);
    }

    #[test]
    fn dictionary_codes_as_runs() {
        assert_eq!(code_width(0), 1);
        assert_eq!(code_width(1), 1);
        assert_eq!(code_width(2), 1);
        assert_eq!(code_width(3), 2);
        assert_eq!(code_width(256), 8);
        assert_eq!(code_width(257), 9);
        // Width 2: runs (3 × 1), (1 × 0), (2 × 2): headers 6, 2, 4, one value byte each.
        assert_eq!(rle_codes(&[1, 1, 1, 0, 2, 2], 2), [2, 6, 1, 2, 0, 4, 2]);
        // Width 9 takes two value bytes.
        assert_eq!(rle_codes(&[300], 9), [9, 2, 0x2c, 0x01]);
    }

    #[test]
    fn file_layout() {
        let t = Table {
            name: "t",
            columns: vec![
                ("x", Column::F64(vec![1.0, 2.5])),
                ("n", Column::I64(vec![-1, 7])),
                ("s", Column::Str(vec!["a".into(), "bc".into()])),
                ("c", Column::Cat(vec![1, 0], vec!["u".into(), "v".into()])),
            ],
        };
        let b = to_parquet(&t, &[("k", "v")]);
        assert_eq!(&b[..4], MAGIC);
        assert_eq!(&b[b.len() - 4..], MAGIC);
        let flen = u32::from_le_bytes(b[b.len() - 8..b.len() - 4].try_into().unwrap()) as usize;
        assert!(flen < b.len() - 12);
        // The doubles' page body follows the first page header: 1.0 then 2.5.
        let body = [1.0f64.to_le_bytes(), 2.5f64.to_le_bytes()].concat();
        let at = b
            .windows(16)
            .position(|w| w == body.as_slice())
            .expect("doubles written");
        assert!(at > 4 && at < 40);
        let footer = &b[b.len() - 8 - flen..b.len() - 8];
        let text = String::from_utf8_lossy(footer);
        assert!(text.contains(CATEGORICAL_KEY) && text.contains("[\"c\"]"));
    }

    #[test]
    #[should_panic(expected = "another length")]
    fn unequal_columns_are_a_bug() {
        let t = Table {
            name: "t",
            columns: vec![("x", Column::F64(vec![1.0])), ("n", Column::I64(vec![]))],
        };
        to_parquet(&t, &[]);
    }
}
