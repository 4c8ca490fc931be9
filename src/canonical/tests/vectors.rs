//! Raw observations of txtfp 0.3.2: the canonicalization vectors observed on
//! the published crate, transcribed: one table per configuration (`tests.rs`
//! names the configurations). The default configuration was observed on its
//! own inputs; every other one on the same [`PROBES`], so its table holds
//! only the outputs.

/// `== canonicalize (default) ==`
pub(in super::super::super) const DEFAULT: &[(&str, &str)] = &[
    ("Hello World", "hello world"),
    ("Hello\u{200B}World", "helloworld"),
    ("\u{FEFF}BOM", "bom"),
    ("\u{FF21}\u{FF22}\u{FF23}", "abc"),
    ("\u{FB01}le", "file"),
    ("Stra\u{DF}e", "strasse"),
    ("\u{1E9E}", "ss"),
    ("\u{130}", "i\u{307}"),
    ("\u{130}\u{329}", "i\u{329}\u{307}"),
    (
        "\u{3A3}\u{39F}\u{3A6}\u{39F}\u{3A3}",
        "\u{3C3}\u{3BF}\u{3C6}\u{3BF}\u{3C3}",
    ),
    ("\u{3C2}", "\u{3C3}"),
    ("soft\u{AD}hyphen", "soft\u{AD}hyphen"),
    ("cgj\u{34F}x", "cgj\u{34F}x"),
    ("a\u{FE0F}b", "ab"),
    ("x\u{E0061}y", "xy"),
    ("\u{2065}", "\u{2065}"),
    ("\u{FFF9}a\u{FFFB}", "\u{FFF9}a\u{FFFB}"),
    ("\u{600}1", "\u{600}1"),
    ("\u{1D173}", "\u{1D173}"),
    ("\u{180E}", ""),
    ("\u{200D}", ""),
    ("\u{2460}\u{2461}", "12"),
    ("\u{338F}", "kg"),
    ("\u{1C4}", "d\u{17E}"),
    ("\u{1C5}", "d\u{17E}"),
    ("\u{B5}", "\u{3BC}"),
    ("K", "k"),
    ("\u{C5}", "\u{E5}"),
    ("e\u{301}", "\u{E9}"),
    ("\u{1F88}", "\u{1F00}\u{3B9}"),
    ("\u{345}", "\u{3B9}"),
    ("\u{AB70}", "\u{13A0}"),
    ("\u{13A0}", "\u{13A0}"),
    ("\u{FB05}", "st"),
    ("\u{FB01}\u{301}", "f\u{ED}"),
    ("\u{3000}x\u{3000}", " x "),
    ("\u{A0}nbsp", " nbsp"),
    ("tab\u{9}nl\u{A}", "tab\u{9}nl\u{A}"),
    ("\u{202E}rlo", "rlo"),
    ("\u{200E}lrm", "lrm"),
    ("\u{61C}alm", "alm"),
    ("\u{2060}wj", "wj"),
    ("\u{2061}", ""),
    ("\u{1160}", "\u{1160}"),
    ("\u{115F}", "\u{115F}"),
    ("\u{3164}", "\u{1160}"),
    ("\u{FFA0}", "\u{1160}"),
    ("\u{E0100}vs", "vs"),
    ("\u{E0001}", ""),
    ("\u{216B}", "xii"),
    ("\u{BD}", "1\u{2044}2"),
    ("\u{210C}", "h"),
    ("\u{FF8A}\u{FF9F}", "\u{30D1}"),
    ("\u{FF76}\u{FF9E}", "\u{30AC}"),
    ("\u{AC00}", "\u{AC00}"),
    ("\u{1100}\u{1161}", "\u{AC00}"),
    ("\u{FF21}\u{200B}\u{FF22}", "ab"),
];

/// The inputs every configuration but the default was observed on; each
/// table below lists what they became, in this order.
pub(in super::super::super) const PROBES: [&str; 9] = [
    "Hello\u{200B}W\u{200E}o\u{202E}rld",
    "\u{FF21}\u{FF22}\u{FF23} \u{FB01}",
    "Stra\u{DF}e",
    "\u{130}",
    "paypal \u{440}\u{430}\u{443}\u{440}\u{430}l",
    "m 0 1 I l O",
    "caf\u{E9}",
    "\u{AD}x",
    "\u{3A3}\u{39F}\u{3A6}\u{39F}\u{3A3}",
];

/// `== nfc config_string=nfc-cf-simple-bidi-fmt ==`
pub(in super::super::super) const NFC: [&str; 9] = [
    "helloworld",
    "\u{FF41}\u{FF42}\u{FF43} fi",
    "strasse",
    "i\u{307}",
    "paypal \u{440}\u{430}\u{443}\u{440}\u{430}l",
    "m 0 1 i l o",
    "caf\u{E9}",
    "\u{AD}x",
    "\u{3C3}\u{3BF}\u{3C6}\u{3BF}\u{3C3}",
];

/// `== none config_string=none-cf-simple-bidi-fmt ==`
/// (0.3.2 gave the same as `NFC` on every probe.)
pub(in super::super::super) const NONE: [&str; 9] = NFC;

/// `== nfkc-nocf config_string=nfkc-cf-none-bidi-fmt ==`
pub(in super::super::super) const NFKC_NOCF: [&str; 9] = [
    "HelloWorld",
    "ABC fi",
    "Stra\u{DF}e",
    "\u{130}",
    "paypal \u{440}\u{430}\u{443}\u{440}\u{430}l",
    "m 0 1 I l O",
    "caf\u{E9}",
    "\u{AD}x",
    "\u{3A3}\u{39F}\u{3A6}\u{39F}\u{3A3}",
];

/// `== nobidi config_string=nfkc-cf-simple-fmt ==`
pub(in super::super::super) const NOBIDI: [&str; 9] = [
    "helloworld",
    "abc fi",
    "strasse",
    "i\u{307}",
    "paypal \u{440}\u{430}\u{443}\u{440}\u{430}l",
    "m 0 1 i l o",
    "caf\u{E9}",
    "\u{AD}x",
    "\u{3C3}\u{3BF}\u{3C6}\u{3BF}\u{3C3}",
];

/// `== nofmt config_string=nfkc-cf-simple-bidi ==`
pub(in super::super::super) const NOFMT: [&str; 9] = [
    "hello\u{200B}world",
    "abc fi",
    "strasse",
    "i\u{307}",
    "paypal \u{440}\u{430}\u{443}\u{440}\u{430}l",
    "m 0 1 i l o",
    "caf\u{E9}",
    "\u{AD}x",
    "\u{3C3}\u{3BF}\u{3C6}\u{3BF}\u{3C3}",
];

/// `== nothing config_string=nfkc-cf-simple ==`
pub(in super::super::super) const NOTHING: [&str; 9] = [
    "hello\u{200B}w\u{200E}o\u{202E}rld",
    "abc fi",
    "strasse",
    "i\u{307}",
    "paypal \u{440}\u{430}\u{443}\u{440}\u{430}l",
    "m 0 1 i l o",
    "caf\u{E9}",
    "\u{AD}x",
    "\u{3C3}\u{3BF}\u{3C6}\u{3BF}\u{3C3}",
];

/// `== conf config_string=nfkc-cf-simple-bidi-fmt-conf ==`
pub(in super::super::super) const CONF: [&str; 9] = [
    "helloworld",
    "abc fi",
    "strasse",
    "i\u{307}",
    "paypal paypal",
    "rn O l i l o",
    "cafe\u{301}",
    "x",
    "oo\u{278}oo",
];

/// `== allnone config_string=none-cf-none ==`
/// (With every step off, 0.3.2 left each probe as it was.)
pub(in super::super::super) const ALLNONE: [&str; 9] = PROBES;

/// `== allnone+conf config_string=none-cf-none-conf ==`
pub(in super::super::super) const ALLNONE_CONF: [&str; 9] = [
    "HelloWorld",
    "ABC fi",
    "Stra\u{DF}e",
    "l\u{307}",
    "paypal paypal",
    "rn O l l l O",
    "cafe\u{301}",
    "x",
    "\u{1A9}O\u{3A6}O\u{1A9}",
];
