//! Helpers for the PDF tests: a hand assembler for small (and hostile) PDFs,
//! and the Debian tools (groff, ghostscript's ps2pdf, qpdf) that make real
//! ones from text. `scripts/setup-pdf.sh` installs the tools.

#![cfg(feature = "pdf")]
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

/// A PDF from object bodies: object `k + 1` is `objects[k]`, the catalog is
/// object 1. Offsets, xref table and trailer are computed.
pub fn assemble(objects: &[Vec<u8>]) -> Vec<u8> {
    let mut out = b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n".to_vec();
    let mut offsets = Vec::new();
    for (k, body) in objects.iter().enumerate() {
        offsets.push(out.len());
        out.extend_from_slice(format!("{} 0 obj\n", k + 1).as_bytes());
        out.extend_from_slice(body);
        out.extend_from_slice(b"\nendobj\n");
    }
    let xref = out.len();
    out.extend_from_slice(
        format!("xref\n0 {}\n0000000000 65535 f \n", objects.len() + 1).as_bytes(),
    );
    for o in offsets {
        out.extend_from_slice(format!("{o:010} 00000 n \n").as_bytes());
    }
    out.extend_from_slice(
        format!(
            "trailer\n<< /Size {} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n",
            objects.len() + 1
        )
        .as_bytes(),
    );
    out
}

/// A stream object body with the given dictionary entries and data.
pub fn stream(dict_extra: &str, data: &[u8]) -> Vec<u8> {
    let mut s = format!("<< /Length {} {dict_extra} >>\nstream\n", data.len()).into_bytes();
    s.extend_from_slice(data);
    s.extend_from_slice(b"\nendstream");
    s
}

/// A one-page PDF whose page content is `content` (Helvetica as /F1).
pub fn one_page(content: Vec<u8>) -> Vec<u8> {
    assemble(&[
        b"<< /Type /Catalog /Pages 2 0 R >>".to_vec(),
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_vec(),
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>".to_vec(),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>".to_vec(),
        content,
    ])
}

/// Page content showing each line of `lines` with `Tj`.
pub fn text_content(lines: &[&str]) -> Vec<u8> {
    let mut c = String::from("BT /F1 12 Tf 72 720 Td 14 TL\n");
    for l in lines {
        let esc = l
            .replace('\\', "\\\\")
            .replace('(', "\\(")
            .replace(')', "\\)");
        c.push_str(&format!("({esc}) Tj T*\n"));
    }
    c.push_str("ET");
    stream("", c.as_bytes())
}

/// The tools, or `None` with a loud notice naming what is missing.
pub fn tools() -> Option<Tools> {
    let find = |name: &str| -> Option<PathBuf> {
        std::env::var_os("PATH")?
            .to_str()?
            .split(':')
            .map(|d| Path::new(d).join(name))
            .find(|p| p.is_file())
    };
    let (groff, ps2pdf, qpdf) = (find("groff"), find("ps2pdf"), find("qpdf"));
    match (groff, ps2pdf, qpdf) {
        (Some(groff), Some(ps2pdf), Some(qpdf)) => Some(Tools {
            groff,
            ps2pdf,
            qpdf,
        }),
        (g, p, q) => {
            let missing: Vec<&str> = [
                ("groff", g.is_none()),
                ("ps2pdf", p.is_none()),
                ("qpdf", q.is_none()),
            ]
            .iter()
            .filter(|(_, m)| *m)
            .map(|(n, _)| *n)
            .collect();
            let msg = format!(
                "PDF tools missing: {} (run scripts/setup-pdf.sh): PDFs made by Debian's tools were NOT tested",
                missing.join(", ")
            );
            if std::env::var_os("TXTFP_REQUIRE_PDF_TOOLS").is_some() {
                panic!("{msg}");
            }
            eprintln!("\n*** SKIPPED: {msg} ***\n");
            None
        }
    }
}

pub struct Tools {
    pub groff: PathBuf,
    pub ps2pdf: PathBuf,
    pub qpdf: PathBuf,
}

fn run(cmd: &mut Command) {
    let out = cmd.output().unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
    assert!(
        out.status.success(),
        "{cmd:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

impl Tools {
    /// Typesets `text` (paragraphs separated by blank lines) with groff
    /// (no hyphenation, ragged right, so words stay whole) and converts the
    /// PostScript with ghostscript: a real multi-page PDF with Type 1 fonts.
    pub fn text_pdf(&self, dir: &Path, name: &str, text: &str) -> PathBuf {
        // Plain requests: groff-base ships no -ms macros.
        let mut roff = String::from(".pl 11i\n.ll 6.5i\n.po 1i\n.nh\n.ad l\n");
        for para in text.split("\n\n") {
            roff.push_str(".sp\n");
            for line in para.lines() {
                // Escape what troff would read as requests or escapes.
                let line = line.replace('\\', "\\e");
                if line.starts_with('.') || line.starts_with('\'') {
                    roff.push_str("\\&");
                }
                roff.push_str(&line);
                roff.push('\n');
            }
        }
        let src = dir.join(format!("{name}.tr"));
        let ps = dir.join(format!("{name}.ps"));
        let pdf = dir.join(format!("{name}.pdf"));
        std::fs::write(&src, roff).unwrap();
        let out = Command::new(&self.groff)
            .args(["-k", "-Tps"])
            .arg(&src)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "groff: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        std::fs::write(&ps, out.stdout).unwrap();
        run(Command::new(&self.ps2pdf).arg(&ps).arg(&pdf));
        pdf
    }

    /// `input` encrypted with AES-256; `user` may be empty (opens freely).
    pub fn encrypt(&self, input: &Path, out: &Path, user: &str, owner: &str) {
        run(Command::new(&self.qpdf)
            .arg("--encrypt")
            .arg(user)
            .arg(owner)
            .arg("256")
            .arg("--")
            .arg(input)
            .arg(out));
    }
}

/// A fresh directory under the target dir for generated files.
pub fn scratch_dir(name: &str) -> PathBuf {
    let base = option_env!("CARGO_TARGET_TMPDIR")
        .map(PathBuf::from)
        .unwrap_or_else(std::env::temp_dir);
    let d = base.join(format!("txtfp-pdf-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}
