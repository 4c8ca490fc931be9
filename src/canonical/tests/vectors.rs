//! Raw observations of txtfp 0.3.2: the canonicalization vectors observed on
//! the published crate, transcribed: one table per
//! configuration (`tests.rs` names the configurations).

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

/// `== nfc config_string=nfc-cf-simple-bidi-fmt ==`
pub(in super::super::super) const NFC: &[(&str, &str)] = &[
    ("Hello\u{200B}W\u{200E}o\u{202E}rld", "helloworld"),
    (
        "\u{FF21}\u{FF22}\u{FF23} \u{FB01}",
        "\u{FF41}\u{FF42}\u{FF43} fi",
    ),
    ("Stra\u{DF}e", "strasse"),
    ("\u{130}", "i\u{307}"),
    (
        "paypal \u{440}\u{430}\u{443}\u{440}\u{430}l",
        "paypal \u{440}\u{430}\u{443}\u{440}\u{430}l",
    ),
    ("m 0 1 I l O", "m 0 1 i l o"),
    ("caf\u{E9}", "caf\u{E9}"),
    ("\u{AD}x", "\u{AD}x"),
    (
        "\u{3A3}\u{39F}\u{3A6}\u{39F}\u{3A3}",
        "\u{3C3}\u{3BF}\u{3C6}\u{3BF}\u{3C3}",
    ),
];

/// `== none config_string=none-cf-simple-bidi-fmt ==`
pub(in super::super::super) const NONE: &[(&str, &str)] = &[
    ("Hello\u{200B}W\u{200E}o\u{202E}rld", "helloworld"),
    (
        "\u{FF21}\u{FF22}\u{FF23} \u{FB01}",
        "\u{FF41}\u{FF42}\u{FF43} fi",
    ),
    ("Stra\u{DF}e", "strasse"),
    ("\u{130}", "i\u{307}"),
    (
        "paypal \u{440}\u{430}\u{443}\u{440}\u{430}l",
        "paypal \u{440}\u{430}\u{443}\u{440}\u{430}l",
    ),
    ("m 0 1 I l O", "m 0 1 i l o"),
    ("caf\u{E9}", "caf\u{E9}"),
    ("\u{AD}x", "\u{AD}x"),
    (
        "\u{3A3}\u{39F}\u{3A6}\u{39F}\u{3A3}",
        "\u{3C3}\u{3BF}\u{3C6}\u{3BF}\u{3C3}",
    ),
];

/// `== nfkc-nocf config_string=nfkc-cf-none-bidi-fmt ==`
pub(in super::super::super) const NFKC_NOCF: &[(&str, &str)] = &[
    ("Hello\u{200B}W\u{200E}o\u{202E}rld", "HelloWorld"),
    ("\u{FF21}\u{FF22}\u{FF23} \u{FB01}", "ABC fi"),
    ("Stra\u{DF}e", "Stra\u{DF}e"),
    ("\u{130}", "\u{130}"),
    (
        "paypal \u{440}\u{430}\u{443}\u{440}\u{430}l",
        "paypal \u{440}\u{430}\u{443}\u{440}\u{430}l",
    ),
    ("m 0 1 I l O", "m 0 1 I l O"),
    ("caf\u{E9}", "caf\u{E9}"),
    ("\u{AD}x", "\u{AD}x"),
    (
        "\u{3A3}\u{39F}\u{3A6}\u{39F}\u{3A3}",
        "\u{3A3}\u{39F}\u{3A6}\u{39F}\u{3A3}",
    ),
];

/// `== nobidi config_string=nfkc-cf-simple-fmt ==`
pub(in super::super::super) const NOBIDI: &[(&str, &str)] = &[
    ("Hello\u{200B}W\u{200E}o\u{202E}rld", "helloworld"),
    ("\u{FF21}\u{FF22}\u{FF23} \u{FB01}", "abc fi"),
    ("Stra\u{DF}e", "strasse"),
    ("\u{130}", "i\u{307}"),
    (
        "paypal \u{440}\u{430}\u{443}\u{440}\u{430}l",
        "paypal \u{440}\u{430}\u{443}\u{440}\u{430}l",
    ),
    ("m 0 1 I l O", "m 0 1 i l o"),
    ("caf\u{E9}", "caf\u{E9}"),
    ("\u{AD}x", "\u{AD}x"),
    (
        "\u{3A3}\u{39F}\u{3A6}\u{39F}\u{3A3}",
        "\u{3C3}\u{3BF}\u{3C6}\u{3BF}\u{3C3}",
    ),
];

/// `== nofmt config_string=nfkc-cf-simple-bidi ==`
pub(in super::super::super) const NOFMT: &[(&str, &str)] = &[
    ("Hello\u{200B}W\u{200E}o\u{202E}rld", "hello\u{200B}world"),
    ("\u{FF21}\u{FF22}\u{FF23} \u{FB01}", "abc fi"),
    ("Stra\u{DF}e", "strasse"),
    ("\u{130}", "i\u{307}"),
    (
        "paypal \u{440}\u{430}\u{443}\u{440}\u{430}l",
        "paypal \u{440}\u{430}\u{443}\u{440}\u{430}l",
    ),
    ("m 0 1 I l O", "m 0 1 i l o"),
    ("caf\u{E9}", "caf\u{E9}"),
    ("\u{AD}x", "\u{AD}x"),
    (
        "\u{3A3}\u{39F}\u{3A6}\u{39F}\u{3A3}",
        "\u{3C3}\u{3BF}\u{3C6}\u{3BF}\u{3C3}",
    ),
];

/// `== nothing config_string=nfkc-cf-simple ==`
pub(in super::super::super) const NOTHING: &[(&str, &str)] = &[
    (
        "Hello\u{200B}W\u{200E}o\u{202E}rld",
        "hello\u{200B}w\u{200E}o\u{202E}rld",
    ),
    ("\u{FF21}\u{FF22}\u{FF23} \u{FB01}", "abc fi"),
    ("Stra\u{DF}e", "strasse"),
    ("\u{130}", "i\u{307}"),
    (
        "paypal \u{440}\u{430}\u{443}\u{440}\u{430}l",
        "paypal \u{440}\u{430}\u{443}\u{440}\u{430}l",
    ),
    ("m 0 1 I l O", "m 0 1 i l o"),
    ("caf\u{E9}", "caf\u{E9}"),
    ("\u{AD}x", "\u{AD}x"),
    (
        "\u{3A3}\u{39F}\u{3A6}\u{39F}\u{3A3}",
        "\u{3C3}\u{3BF}\u{3C6}\u{3BF}\u{3C3}",
    ),
];

/// `== conf config_string=nfkc-cf-simple-bidi-fmt-conf ==`
pub(in super::super::super) const CONF: &[(&str, &str)] = &[
    ("Hello\u{200B}W\u{200E}o\u{202E}rld", "helloworld"),
    ("\u{FF21}\u{FF22}\u{FF23} \u{FB01}", "abc fi"),
    ("Stra\u{DF}e", "strasse"),
    ("\u{130}", "i\u{307}"),
    (
        "paypal \u{440}\u{430}\u{443}\u{440}\u{430}l",
        "paypal paypal",
    ),
    ("m 0 1 I l O", "rn O l i l o"),
    ("caf\u{E9}", "cafe\u{301}"),
    ("\u{AD}x", "x"),
    ("\u{3A3}\u{39F}\u{3A6}\u{39F}\u{3A3}", "oo\u{278}oo"),
];

/// `== allnone config_string=none-cf-none ==`
pub(in super::super::super) const ALLNONE: &[(&str, &str)] = &[
    (
        "Hello\u{200B}W\u{200E}o\u{202E}rld",
        "Hello\u{200B}W\u{200E}o\u{202E}rld",
    ),
    (
        "\u{FF21}\u{FF22}\u{FF23} \u{FB01}",
        "\u{FF21}\u{FF22}\u{FF23} \u{FB01}",
    ),
    ("Stra\u{DF}e", "Stra\u{DF}e"),
    ("\u{130}", "\u{130}"),
    (
        "paypal \u{440}\u{430}\u{443}\u{440}\u{430}l",
        "paypal \u{440}\u{430}\u{443}\u{440}\u{430}l",
    ),
    ("m 0 1 I l O", "m 0 1 I l O"),
    ("caf\u{E9}", "caf\u{E9}"),
    ("\u{AD}x", "\u{AD}x"),
    (
        "\u{3A3}\u{39F}\u{3A6}\u{39F}\u{3A3}",
        "\u{3A3}\u{39F}\u{3A6}\u{39F}\u{3A3}",
    ),
];

/// `== allnone+conf config_string=none-cf-none-conf ==`
pub(in super::super::super) const ALLNONE_CONF: &[(&str, &str)] = &[
    ("Hello\u{200B}W\u{200E}o\u{202E}rld", "HelloWorld"),
    ("\u{FF21}\u{FF22}\u{FF23} \u{FB01}", "ABC fi"),
    ("Stra\u{DF}e", "Stra\u{DF}e"),
    ("\u{130}", "l\u{307}"),
    (
        "paypal \u{440}\u{430}\u{443}\u{440}\u{430}l",
        "paypal paypal",
    ),
    ("m 0 1 I l O", "rn O l l l O"),
    ("caf\u{E9}", "cafe\u{301}"),
    ("\u{AD}x", "x"),
    (
        "\u{3A3}\u{39F}\u{3A6}\u{39F}\u{3A3}",
        "\u{1A9}O\u{3A6}O\u{1A9}",
    ),
];
