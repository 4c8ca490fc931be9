//! Text of one PDF page from glyph positions.
//!
//! lopdf's own `extract_text` concatenates the strings of the content
//! stream. Typesetters (groff, TeX, ghostscript) position words and even
//! letters with moves and character spacing instead of space characters, so
//! that loses word gaps and splits words. Here every glyph is placed with the
//! text state (PDF 32000-1 §9.4): font size, character and word spacing,
//! horizontal scaling, text and line matrices, the CTM, and the font's
//! advance widths; a space is inserted where the gap before a glyph exceeds
//! 0.15 em, a newline where the baseline moves by more than half an em.

use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec::Vec;

use lopdf::Encoding;
use lopdf::content::Content;
use lopdf::{Dictionary, Document, Object, ObjectId};

/// Width used for glyphs whose font has no width table (thousandths of em).
const DEFAULT_WIDTH: f64 = 500.0;
/// Gap (in em) above which two glyphs are separate words.
const WORD_GAP: f64 = 0.15;
/// `q` nesting kept; deeper saves are ignored (hostile content).
const MAX_SAVES: usize = 64;

type Matrix = [f64; 6];
const IDENTITY: Matrix = [1.0, 0.0, 0.0, 1.0, 0.0, 0.0];

/// `a × b` for PDF row-vector matrices.
fn mul(a: &Matrix, b: &Matrix) -> Matrix {
    [
        a[0] * b[0] + a[1] * b[2],
        a[0] * b[1] + a[1] * b[3],
        a[2] * b[0] + a[3] * b[2],
        a[2] * b[1] + a[3] * b[3],
        a[4] * b[0] + a[5] * b[2] + b[4],
        a[4] * b[1] + a[5] * b[3] + b[5],
    ]
}

fn num(o: &Object) -> f64 {
    match o {
        Object::Integer(i) => *i as f64,
        Object::Real(r) => f64::from(*r),
        _ => 0.0,
    }
    .clamp(-1e9, 1e9)
}

fn nums<const N: usize>(ops: &[Object]) -> [f64; N] {
    let mut out = [0.0; N];
    for (o, v) in out.iter_mut().zip(ops) {
        *o = num(v);
    }
    out
}

/// What text showing needs from a font.
struct Font<'a> {
    encoding: Option<Encoding<'a>>,
    /// Bytes per character code: 2 for composite (Type0) fonts.
    code_len: usize,
    widths: BTreeMap<u32, f64>,
    default_width: f64,
}

fn deref<'a>(doc: &'a Document, o: &'a Object) -> &'a Object {
    doc.dereference(o).map_or(o, |(_, o)| o)
}

impl<'a> Font<'a> {
    fn new(doc: &'a Document, dict: &'a Dictionary, limit: usize) -> Self {
        let encoding = dict.get_font_encoding_with_limit(doc, limit).ok();
        let composite = dict.get(b"Subtype").and_then(Object::as_name).ok() == Some(b"Type0");
        let mut widths = BTreeMap::new();
        let mut default_width = DEFAULT_WIDTH;
        if composite {
            default_width = 1000.0;
            let desc = dict
                .get(b"DescendantFonts")
                .ok()
                .map(|o| deref(doc, o))
                .and_then(|o| o.as_array().ok())
                .and_then(|a| a.first())
                .map(|o| deref(doc, o))
                .and_then(|o| o.as_dict().ok());
            if let Some(desc) = desc {
                if let Ok(dw) = desc.get(b"DW") {
                    default_width = num(deref(doc, dw));
                }
                if let Some(w) = desc
                    .get(b"W")
                    .ok()
                    .map(|o| deref(doc, o))
                    .and_then(|o| o.as_array().ok())
                {
                    cid_widths(doc, w, &mut widths);
                }
            }
        } else if let Some(w) = dict
            .get(b"Widths")
            .ok()
            .map(|o| deref(doc, o))
            .and_then(|o| o.as_array().ok())
        {
            let first = dict
                .get(b"FirstChar")
                .map(|o| num(deref(doc, o)))
                .unwrap_or(0.0) as u32;
            for (k, v) in w.iter().take(65_536).enumerate() {
                widths.insert(first.saturating_add(k as u32), num(deref(doc, v)));
            }
        }
        Font {
            encoding,
            code_len: if composite { 2 } else { 1 },
            widths,
            default_width,
        }
    }

    fn width(&self, code: u32) -> f64 {
        self.widths
            .get(&code)
            .copied()
            .unwrap_or(self.default_width)
            / 1000.0
    }

    fn decode(&self, bytes: &[u8]) -> String {
        match &self.encoding {
            Some(e) => e.bytes_to_string(bytes).unwrap_or_default(),
            None => bytes.iter().map(|&b| char::from(b)).collect(),
        }
    }
}

/// `/W` of a CID font: `c [w1 w2 ...]` and `c_first c_last w` entries.
fn cid_widths(doc: &Document, w: &[Object], out: &mut BTreeMap<u32, f64>) {
    let mut i = 0;
    while i + 1 < w.len() && out.len() < 65_536 {
        let first = num(deref(doc, &w[i])) as u32;
        match deref(doc, &w[i + 1]) {
            Object::Array(list) => {
                for (k, v) in list.iter().take(65_536).enumerate() {
                    out.insert(first.saturating_add(k as u32), num(deref(doc, v)));
                }
                i += 2;
            }
            last => {
                let last = (num(last) as u32).min(first.saturating_add(65_535));
                let v = w.get(i + 2).map_or(0.0, |v| num(deref(doc, v)));
                for c in first..=last {
                    out.insert(c, v);
                }
                i += 3;
            }
        }
    }
}

/// Text state and the text being built.
struct Page<'a, 'f> {
    fonts: &'f BTreeMap<Vec<u8>, Font<'a>>,
    font: Option<&'f Font<'a>>,
    fs: f64,
    tc: f64,
    tw: f64,
    th: f64,
    tl: f64,
    rise: f64,
    tm: Matrix,
    tlm: Matrix,
    ctm: Matrix,
    saves: Vec<Matrix>,
    /// Where the last glyph ended (user space), its baseline and em size.
    last: Option<(f64, f64, f64)>,
    out: String,
}

impl Page<'_, '_> {
    fn newline(&mut self) {
        if !self.out.is_empty() && !self.out.ends_with('\n') {
            self.out.push('\n');
        }
    }

    fn move_line(&mut self, tx: f64, ty: f64) {
        self.tlm = mul(&[1.0, 0.0, 0.0, 1.0, tx, ty], &self.tlm);
        self.tm = self.tlm;
    }

    fn show(&mut self, bytes: &[u8]) {
        let Some(font) = self.font else {
            return;
        };
        for code_bytes in bytes.chunks(font.code_len) {
            let code = code_bytes
                .iter()
                .fold(0u32, |c, &b| (c << 8) | u32::from(b));
            let w = font.width(code);
            let trm = mul(
                &[self.fs * self.th, 0.0, 0.0, self.fs, 0.0, self.rise],
                &mul(&self.tm, &self.ctm),
            );
            let (x, y) = (trm[4], trm[5]);
            let em = (trm[2] * trm[2] + trm[3] * trm[3]).sqrt();
            let text = font.decode(code_bytes);
            if let Some((end, base, last_em)) = self.last {
                let size = em.max(last_em);
                if (y - base).abs() > 0.5 * size {
                    self.newline();
                } else if x - end > WORD_GAP * size && !self.out.ends_with(char::is_whitespace) {
                    self.out.push(' ');
                }
            }
            self.out.push_str(&text);
            let visual = w * (trm[0] * trm[0] + trm[1] * trm[1]).sqrt();
            self.last = Some((x + visual, y, em));
            let space = if font.code_len == 1 && code == 32 {
                self.tw
            } else {
                0.0
            };
            let advance = (w * self.fs + self.tc + space) * self.th;
            self.tm = mul(&[1.0, 0.0, 0.0, 1.0, advance, 0.0], &self.tm);
        }
    }

    fn show_array(&mut self, items: &[Object]) {
        for item in items {
            match item {
                Object::String(s, _) => self.show(s),
                o => {
                    let shift = -num(o) / 1000.0 * self.fs * self.th;
                    self.tm = mul(&[1.0, 0.0, 0.0, 1.0, shift, 0.0], &self.tm);
                }
            }
        }
    }

    fn apply(&mut self, op: &str, ops: &[Object]) {
        match op {
            "BT" => {
                self.tm = IDENTITY;
                self.tlm = IDENTITY;
            }
            "q" if self.saves.len() < MAX_SAVES => self.saves.push(self.ctm),
            "Q" => self.ctm = self.saves.pop().unwrap_or(self.ctm),
            "cm" => self.ctm = mul(&nums::<6>(ops), &self.ctm),
            "Tf" => {
                self.font = ops
                    .first()
                    .and_then(|o| o.as_name().ok())
                    .and_then(|n| self.fonts.get(n));
                self.fs = ops.get(1).map_or(0.0, num);
            }
            "Tc" => self.tc = ops.first().map_or(0.0, num),
            "Tw" => self.tw = ops.first().map_or(0.0, num),
            "Tz" => self.th = ops.first().map_or(100.0, num) / 100.0,
            "TL" => self.tl = ops.first().map_or(0.0, num),
            "Ts" => self.rise = ops.first().map_or(0.0, num),
            "Td" => {
                let [tx, ty] = nums::<2>(ops);
                self.move_line(tx, ty);
            }
            "TD" => {
                let [tx, ty] = nums::<2>(ops);
                self.tl = -ty;
                self.move_line(tx, ty);
            }
            "Tm" => {
                self.tlm = nums::<6>(ops);
                self.tm = self.tlm;
            }
            "T*" => self.move_line(0.0, -self.tl),
            "Tj" => {
                if let Some(Object::String(s, _)) = ops.first() {
                    self.show(s);
                }
            }
            "TJ" => {
                if let Some(Object::Array(a)) = ops.first() {
                    self.show_array(a);
                }
            }
            "'" => {
                self.move_line(0.0, -self.tl);
                if let Some(Object::String(s, _)) = ops.first() {
                    self.show(s);
                }
            }
            "\"" => {
                let [aw, ac] = nums::<2>(ops);
                self.tw = aw;
                self.tc = ac;
                self.move_line(0.0, -self.tl);
                if let Some(Object::String(s, _)) = ops.get(2) {
                    self.show(s);
                }
            }
            _ => {}
        }
    }
}

/// The text of one page; `limit` bounds each decompressed stream.
pub(crate) fn page_text(doc: &Document, page: ObjectId, limit: usize) -> lopdf::Result<String> {
    let fonts: BTreeMap<Vec<u8>, Font<'_>> = doc
        .get_page_fonts(page)?
        .into_iter()
        .map(|(name, dict)| (name, Font::new(doc, dict, limit)))
        .collect();
    let content = Content::decode(&doc.get_page_content_with_limit(page, limit)?)?;
    let mut p = Page {
        fonts: &fonts,
        font: None,
        fs: 0.0,
        tc: 0.0,
        tw: 0.0,
        th: 1.0,
        tl: 0.0,
        rise: 0.0,
        tm: IDENTITY,
        tlm: IDENTITY,
        ctm: IDENTITY,
        saves: Vec::new(),
        last: None,
        out: String::new(),
    };
    for op in &content.operations {
        p.apply(&op.operator, &op.operands);
    }
    p.newline();
    Ok(p.out)
}
