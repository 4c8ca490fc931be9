//! The built-in stop-word lists of `simhash-doc-v1`: short lists of the
//! most frequent function words (articles, pronouns, prepositions,
//! conjunctions, auxiliaries), chosen for this crate. They are printed in
//! `docs/simhash-doc-v1.md`; changing one changes the config hash of every
//! fingerprint made with it, so they are append-never, edit-never.

/// English.
const EN: &[&str] = &[
    "a", "about", "after", "all", "also", "am", "an", "and", "any", "are", "as", "at", "be",
    "been", "but", "by", "can", "could", "did", "do", "does", "for", "from", "had", "has", "have",
    "he", "her", "him", "his", "how", "i", "if", "in", "into", "is", "it", "its", "me", "my", "no",
    "not", "of", "on", "or", "our", "out", "she", "so", "than", "that", "the", "their", "them",
    "then", "there", "these", "they", "this", "those", "to", "up", "us", "was", "we", "were",
    "what", "when", "which", "who", "will", "with", "would", "you", "your",
];

/// French.
const FR: &[&str] = &[
    "à", "au", "aux", "avec", "ce", "ces", "cette", "dans", "de", "des", "du", "elle", "elles",
    "en", "est", "et", "été", "être", "eux", "il", "ils", "je", "la", "le", "les", "leur", "leurs",
    "lui", "mais", "me", "même", "mes", "moi", "mon", "ne", "nos", "notre", "nous", "on", "ont",
    "ou", "où", "par", "pas", "plus", "pour", "qu", "que", "qui", "sa", "se", "ses", "son", "sont",
    "sur", "ta", "te", "tes", "toi", "ton", "tu", "un", "une", "vos", "votre", "vous",
];

/// German.
const DE: &[&str] = &[
    "aber", "als", "am", "an", "auch", "auf", "aus", "bei", "bin", "bis", "da", "damit", "dann",
    "das", "dass", "dem", "den", "der", "des", "die", "dies", "diese", "dieser", "doch", "du",
    "durch", "ein", "eine", "einem", "einen", "einer", "eines", "er", "es", "für", "hat", "hatte",
    "ich", "ihr", "ihre", "im", "in", "ist", "ja", "kann", "mit", "nach", "nicht", "noch", "nur",
    "ob", "oder", "sich", "sie", "sind", "so", "um", "und", "uns", "unter", "vom", "von", "vor",
    "war", "wenn", "wie", "wir", "wird", "zu", "zum", "zur",
];

/// Spanish.
const ES: &[&str] = &[
    "a", "al", "algo", "como", "con", "de", "del", "el", "él", "ella", "ellas", "ellos", "en",
    "era", "es", "esa", "ese", "esta", "este", "fue", "ha", "hay", "la", "las", "le", "les", "lo",
    "los", "más", "me", "mi", "muy", "no", "nos", "o", "para", "pero", "por", "que", "se", "si",
    "sí", "sin", "sobre", "su", "sus", "también", "te", "tu", "un", "una", "uno", "y", "ya", "yo",
];

/// The list for an ISO 639-1 code, if built in.
pub(crate) fn list(lang: &str) -> Option<&'static [&'static str]> {
    match lang {
        "en" => Some(EN),
        "fr" => Some(FR),
        "de" => Some(DE),
        "es" => Some(ES),
        _ => None,
    }
}
