//! Languages (docs/api.md §20): the languages Lore reads and answers in, a chatbot's or Mind's
//! `language` setting, and which language a text is written in.
//!
//! Detection is `whatlang`'s trigram model, restricted to the supported languages: pure Rust, no
//! model file, about 10 µs for a chunk. Below [`MIN_DETECT_LETTERS`] letters a text says too little
//! to tell (a heading, a table cell, "OK") and has no language.

use crate::error::DomainError;
use std::fmt;

/// How sure whatlang must be of a short question's language (0–1).
const QUESTION_CONFIDENCE: f64 = 0.3;

/// A text with fewer letters than this has no detected language.
pub const MIN_DETECT_LETTERS: usize = 20;

macro_rules! languages {
    ($($variant:ident $code:literal $name:literal $whatlang:ident,)*) => {
        /// A supported language, by its ISO 639-1 code.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Language { $($variant,)* }

        impl Language {
            /// Every supported language, in the order `GET /api/v1/languages` lists them.
            pub const ALL: &'static [Language] = &[$(Language::$variant,)*];

            /// The lowercase ISO 639-1 code.
            pub fn code(self) -> &'static str {
                match self { $(Language::$variant => $code,)* }
            }

            /// The language's name as its speakers write it (what a language picker shows).
            pub fn name(self) -> &'static str {
                match self { $(Language::$variant => $name,)* }
            }

            pub fn from_code(code: &str) -> Option<Language> {
                match code { $($code => Some(Language::$variant),)* _ => None }
            }

            fn from_whatlang(lang: whatlang::Lang) -> Option<Language> {
                match lang { $(whatlang::Lang::$whatlang => Some(Language::$variant),)* _ => None }
            }

            fn whatlang_list() -> Vec<whatlang::Lang> {
                vec![$(whatlang::Lang::$whatlang,)*]
            }
        }
    };
}

languages! {
    English "en" "English" Eng,
    French "fr" "Français" Fra,
    German "de" "Deutsch" Deu,
    Spanish "es" "Español" Spa,
    Italian "it" "Italiano" Ita,
    Portuguese "pt" "Português" Por,
    Dutch "nl" "Nederlands" Nld,
    Polish "pl" "Polski" Pol,
    Russian "ru" "Русский" Rus,
    Ukrainian "uk" "Українська" Ukr,
    Turkish "tr" "Türkçe" Tur,
    Arabic "ar" "العربية" Ara,
    Hebrew "he" "עברית" Heb,
    Persian "fa" "فارسی" Pes,
    Hindi "hi" "हिन्दी" Hin,
    Japanese "ja" "日本語" Jpn,
    Korean "ko" "한국어" Kor,
    Chinese "zh" "中文" Cmn,
    Vietnamese "vi" "Tiếng Việt" Vie,
    Indonesian "id" "Bahasa Indonesia" Ind,
    Swedish "sv" "Svenska" Swe,
    Danish "da" "Dansk" Dan,
    Norwegian "nb" "Norsk bokmål" Nob,
    Finnish "fi" "Suomi" Fin,
    Czech "cs" "Čeština" Ces,
    Romanian "ro" "Română" Ron,
    Greek "el" "Ελληνικά" Ell,
    Hungarian "hu" "Magyar" Hun,
}

impl Language {
    /// Whether the language is written in the Latin alphabet (an English model's word pieces
    /// cover much of it: names, cognates, numbers).
    pub fn latin_script(self) -> bool {
        use Language::*;
        !matches!(self, Russian | Ukrainian | Arabic | Hebrew | Persian | Hindi | Japanese | Korean | Chinese | Greek)
    }

    /// The language of each part of one document (the chunks of a source, in order): its own
    /// ([`Language::detect`]), else — a part too short, or too full of code or names, to tell —
    /// the language most of the document's told parts are in (ties: the first in the document).
    /// A code listing in an English manual is English: its words are then folded as English,
    /// like the questions about it. `None` only when no part can be told.
    pub fn detect_parts<'a>(parts: impl IntoIterator<Item = &'a str>) -> Vec<Option<Language>> {
        let detected: Vec<Option<Language>> = parts.into_iter().map(Language::detect).collect();
        let majority = Language::by_frequency(detected.iter().flatten().copied()).first().copied();
        detected.into_iter().map(|l| l.or(majority)).collect()
    }

    /// The distinct languages of `languages`, the most frequent first (ties: the first seen
    /// first).
    pub fn by_frequency(languages: impl IntoIterator<Item = Language>) -> Vec<Language> {
        let mut counts: Vec<(Language, usize)> = Vec::new();
        for l in languages {
            match counts.iter_mut().find(|(c, _)| *c == l) {
                Some((_, n)) => *n += 1,
                None => counts.push((l, 1)),
            }
        }
        // Stable: equal counts keep the first seen first.
        counts.sort_by_key(|c| std::cmp::Reverse(c.1));
        counts.into_iter().map(|(l, _)| l).collect()
    }

    /// The language `text` is written in, or `None` when it has under [`MIN_DETECT_LETTERS`]
    /// letters or is in none of the supported languages.
    ///
    /// Scripts decide first where they are unambiguous (kana is Japanese, Hangul Korean, Han
    /// without kana Chinese): whatlang's trigrams are unreliable on short CJK texts.
    pub fn detect(text: &str) -> Option<Language> {
        let mut letters = 0usize;
        let (mut kana, mut han, mut hangul) = (0usize, 0usize, 0usize);
        for c in text.chars().filter(|c| c.is_alphabetic()) {
            letters += 1;
            match c as u32 {
                0x3040..=0x30FF | 0x31F0..=0x31FF | 0xFF66..=0xFF9F => kana += 1,
                0x4E00..=0x9FFF | 0x3400..=0x4DBF | 0xF900..=0xFAFF | 0x20000..=0x2FA1F => han += 1,
                0xAC00..=0xD7AF | 0x1100..=0x11FF | 0x3130..=0x318F => hangul += 1,
                _ => {}
            }
        }
        // Ideographs carry a word or more each: a short CJK sentence is enough.
        let cjk = kana + han + hangul;
        if letters < MIN_DETECT_LETTERS && cjk * 4 < MIN_DETECT_LETTERS {
            return None;
        }
        if cjk * 2 >= letters {
            return Some(if hangul >= kana + han {
                Language::Korean
            } else if kana > 0 {
                Language::Japanese
            } else {
                Language::Chinese
            });
        }
        // An unreliable guess (short or mixed text) is no language: a chunk folded by the wrong
        // stemmer is found less well than one not stemmed at all.
        let detector = whatlang::Detector::with_allowlist(Language::whatlang_list());
        let guess = detector.detect(text).filter(|i| i.is_reliable()).and_then(|i| Language::from_whatlang(i.lang()));
        // Trigrams are unsure of technical text (names, commands, code, Latin loanwords) and now
        // and then sure of the wrong language; the little words of the seven languages that
        // have a list decide when they clearly name one: at least three, twice any other's.
        let counts = function_word_counts(text, 2);
        let mut ranked = counts.clone();
        ranked.sort_by_key(|c| std::cmp::Reverse(c.1));
        let of = |l: Language| counts.iter().find(|(x, _)| *x == l).map_or(0, |(_, n)| *n);
        let clear = match ranked.as_slice() {
            [(words, n), (_, second), ..] if *n >= 3 && *n >= 2 * (*second).max(1) => Some((*words, *n)),
            _ => None,
        };
        // A guess of a language without a list is overruled only by English, and only with four
        // different English words: the other languages write some listed words too (Polish "to"
        // and "do", Danish "de" and "er", Indonesian "di").
        let listed = |l: Language| FUNCTION_WORDS.iter().any(|(x, _)| *x == l);
        let overrules = |g: Language, words: Language, n: usize| {
            words != g
                && n >= 2 * of(g).max(1)
                && (listed(g) || (words == Language::English && distinct_english_words(text) >= 4))
        };
        match (guess, clear) {
            (Some(g), Some((words, n))) if overrules(g, words, n) => Some(words),
            (Some(g), _) => Some(g),
            (None, clear) => clear.map(|(words, _)| words),
        }
    }
}

/// The sentences of an extractive answer in each language: the framing before the quotes, the
/// answer when nothing in the knowledge matches (quotes stay in their own language), and the
/// title of an answer's list of sources where a platform shows one (docs/api.md §24).
const ANSWER_SENTENCES: &[(Language, &str, &str, &str)] = &[
    (Language::English, "From what I know:", "I don't have anything in my knowledge about that yet.", "Sources"),
    (Language::French, "D'après ce que je sais :", "Je n'ai encore rien à ce sujet dans mes connaissances.", "Sources"),
    (Language::German, "Soweit ich weiß:", "Dazu habe ich noch nichts in meinem Wissen.", "Quellen"),
    (Language::Spanish, "Según lo que sé:", "Todavía no tengo nada sobre eso en mis conocimientos.", "Fuentes"),
    (Language::Italian, "Da quello che so:", "Non ho ancora nulla su questo nelle mie conoscenze.", "Fonti"),
    (Language::Portuguese, "Pelo que sei:", "Ainda não tenho nada sobre isso no meu conhecimento.", "Fontes"),
    (Language::Dutch, "Voor zover ik weet:", "Daar heb ik nog niets over in mijn kennis.", "Bronnen"),
    (Language::Polish, "Z tego, co wiem:", "Nie mam jeszcze w swojej wiedzy nic na ten temat.", "Źródła"),
    (Language::Russian, "Вот что я знаю:", "В моих знаниях пока нет ничего об этом.", "Источники"),
    (Language::Ukrainian, "Ось що я знаю:", "У моїх знаннях поки немає нічого про це.", "Джерела"),
    (Language::Turkish, "Bildiğim kadarıyla:", "Bilgilerimde henüz bununla ilgili bir şey yok.", "Kaynaklar"),
    (Language::Arabic, "بحسب ما أعرف:", "لا يوجد في معرفتي شيء عن هذا حتى الآن.", "المصادر"),
    (Language::Hebrew, "ממה שאני יודע:", "עדיין אין לי מידע על כך.", "מקורות"),
    (Language::Persian, "تا جایی که می‌دانم:", "هنوز چیزی دربارهٔ این موضوع در دانسته‌هایم ندارم.", "منابع"),
    (Language::Hindi, "मेरी जानकारी के अनुसार:", "मेरी जानकारी में अभी इसके बारे में कुछ नहीं है।", "स्रोत"),
    (Language::Japanese, "私の知る限りでは：", "その件については、まだ私の知識に情報がありません。", "出典"),
    (Language::Korean, "제가 아는 바로는:", "아직 이에 대한 정보가 제 지식에 없습니다.", "출처"),
    (Language::Chinese, "据我所知：", "我的知识库中暂时还没有这方面的内容。", "来源"),
    (Language::Vietnamese, "Theo những gì tôi biết:", "Tôi chưa có thông tin nào về điều đó.", "Nguồn"),
    (Language::Indonesian, "Sejauh yang saya tahu:", "Saya belum punya informasi tentang hal itu.", "Sumber"),
    (Language::Swedish, "Så vitt jag vet:", "Jag har inget om det i min kunskap ännu.", "Källor"),
    (Language::Danish, "Så vidt jeg ved:", "Jeg har endnu ikke noget om det i min viden.", "Kilder"),
    (Language::Norwegian, "Så vidt jeg vet:", "Jeg har ikke noe om det i kunnskapen min ennå.", "Kilder"),
    (Language::Finnish, "Tietojeni mukaan:", "Tietämyksessäni ei ole vielä mitään siitä.", "Lähteet"),
    (Language::Czech, "Pokud vím:", "Zatím o tom ve svých znalostech nic nemám.", "Zdroje"),
    (Language::Romanian, "Din câte știu:", "Încă nu am nimic despre asta în cunoștințele mele.", "Surse"),
    (Language::Greek, "Από όσα γνωρίζω:", "Δεν έχω ακόμη τίποτα σχετικά με αυτό στις γνώσεις μου.", "Πηγές"),
    (Language::Hungarian, "Amennyire tudom:", "Erről még nincs semmi a tudásomban.", "Források"),
];

impl Language {
    fn sentences(self) -> (&'static str, &'static str, &'static str) {
        ANSWER_SENTENCES
            .iter()
            .find(|(l, _, _, _)| *l == self)
            .or_else(|| ANSWER_SENTENCES.first())
            .map_or(("", "", ""), |(_, framing, nothing, sources)| (*framing, *nothing, *sources))
    }

    /// What an extractive answer opens with before its quotes.
    pub fn answer_framing(self) -> &'static str {
        self.sentences().0
    }

    /// The answer when nothing in the knowledge matches the question.
    pub fn nothing_found(self) -> &'static str {
        self.sentences().1
    }

    /// The title of an answer's list of sources.
    pub fn sources_title(self) -> &'static str {
        self.sentences().2
    }
}

impl fmt::Display for Language {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

/// A supported language's code as given by a client: the search `language` filter.
pub fn parse_language(field: &str, raw: &str) -> Result<Language, DomainError> {
    Language::from_code(raw).ok_or_else(|| DomainError::field(field, unsupported(raw)))
}

fn unsupported(raw: &str) -> String {
    let shown: String = raw.chars().take(20).collect();
    format!("must be a supported language code (GET /api/v1/languages) or \"auto\" (got {shown:?})")
}

/// A chatbot's or Mind's `language`: `auto` (answer in the visitor's language, show the page in
/// the browser's) or one fixed language.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LanguageSetting {
    #[default]
    Auto,
    Fixed(Language),
}

impl LanguageSetting {
    pub fn parse(field: &str, raw: &str) -> Result<Self, DomainError> {
        if raw == "auto" {
            return Ok(Self::Auto);
        }
        Language::from_code(raw).map(Self::Fixed).ok_or_else(|| DomainError::field(field, unsupported(raw)))
    }

    /// As stored and shown: `"auto"` or the code.
    pub fn as_str(&self) -> &'static str {
        match self {
            Self::Auto => "auto",
            Self::Fixed(l) => l.code(),
        }
    }

    /// The language of an answer to `message`: the fixed one, else the message's own, else
    /// English.
    pub fn answer_language(&self, message: &str) -> Language {
        match self {
            Self::Fixed(l) => *l,
            Self::Auto => Language::detect_question(message).unwrap_or(Language::English),
        }
    }
}

impl Language {
    /// A visitor's message is often shorter than [`MIN_DETECT_LETTERS`]: its script decides when
    /// it is unambiguous, and a short Latin-script question is English unless whatlang is sure.
    pub fn detect_question(text: &str) -> Option<Language> {
        if let Some(l) = Language::detect(text) {
            return Some(l);
        }
        let letters: Vec<char> = text.chars().filter(|c| c.is_alphabetic()).collect();
        if letters.len() < 3 {
            return None;
        }
        // Scripts that name one supported language on their own.
        let script_language = |c: char| match c as u32 {
            0x3040..=0x30FF => Some(Language::Japanese),
            0xAC00..=0xD7AF => Some(Language::Korean),
            0x4E00..=0x9FFF => Some(Language::Chinese),
            0x0590..=0x05FF => Some(Language::Hebrew),
            0x0370..=0x03FF => Some(Language::Greek),
            0x0900..=0x097F => Some(Language::Hindi),
            _ => None,
        };
        if let Some(l) = letters.iter().find_map(|&c| script_language(c)) {
            return Some(l);
        }
        // Scripts shared by two supported languages: told apart by the letters only one has.
        let has = |set: &[char]| letters.iter().any(|c| set.contains(c));
        if letters.iter().any(|&c| matches!(c as u32, 0x0600..=0x06FF)) {
            return Some(if has(&['پ', 'چ', 'ژ', 'گ', 'ی', 'ک']) { Language::Persian } else { Language::Arabic });
        }
        if letters.iter().any(|&c| matches!(c as u32, 0x0400..=0x04FF)) {
            return Some(if has(&['і', 'ї', 'є', 'ґ', 'І', 'Ї', 'Є', 'Ґ']) {
                Language::Ukrainian
            } else {
                Language::Russian
            });
        }
        // Short Latin-script questions: trigrams guess poorly ("Do you ship to Italy?" reads as
        // Portuguese to whatlang), the little words of each language do better.
        if let Some(l) = by_function_words(text) {
            return Some(l);
        }
        let detector = whatlang::Detector::with_allowlist(Language::whatlang_list());
        let info = detector.detect(text).filter(|i| letters.len() >= 12 && i.confidence() >= QUESTION_CONFIDENCE)?;
        Language::from_whatlang(info.lang())
    }
}

/// Words short questions are made of, per language, that the other languages here rarely write.
const FUNCTION_WORDS: &[(Language, &[&str])] = &[
    (
        Language::English,
        &[
            "the", "you", "your", "do", "does", "is", "are", "what", "how", "can", "to", "of", "and", "my", "i",
            "with", "for", "when", "where", "which", "who", "why", "it", "have", "there",
        ],
    ),
    (
        Language::French,
        &[
            "le", "la", "les", "vous", "votre", "est", "que", "quel", "quelle", "comment", "pour", "avec", "je", "des",
            "du", "et", "en", "une", "pourquoi", "où", "quand", "combien",
        ],
    ),
    (
        Language::German,
        &[
            "der", "die", "das", "sie", "ihr", "ist", "und", "wie", "was", "wann", "wo", "ich", "mit", "für", "ein",
            "eine", "kann", "nicht", "warum", "welche", "gibt", "es",
        ],
    ),
    (
        Language::Spanish,
        &[
            "el", "los", "las", "usted", "es", "qué", "cómo", "cuánto", "cuándo", "dónde", "para", "con", "y", "mi",
            "un", "una", "puedo", "por", "hay", "del",
        ],
    ),
    (
        Language::Italian,
        &[
            "il", "lo", "gli", "che", "è", "come", "quanto", "quando", "dove", "per", "con", "e", "mio", "un", "una",
            "posso", "perché", "della", "del", "di", "si",
        ],
    ),
    (
        Language::Portuguese,
        &[
            "o", "os", "as", "você", "é", "que", "como", "quanto", "quando", "onde", "para", "com", "meu", "um", "uma",
            "posso", "não", "do", "da", "em",
        ],
    ),
    (
        Language::Dutch,
        &[
            "de", "het", "een", "u", "is", "wat", "hoe", "hoeveel", "wanneer", "waar", "voor", "met", "en", "ik",
            "mijn", "kan", "niet", "van", "er", "jullie",
        ],
    ),
];

/// Whether `word` (lower case) is one of the little words questions are made of in a language
/// the detection knows by them ([`FUNCTION_WORDS`]): it names nothing a question is about.
pub fn is_function_word(word: &str) -> bool {
    FUNCTION_WORDS.iter().any(|(_, list)| list.contains(&word))
}

/// How many of each language's [`FUNCTION_WORDS`] of at least `min_chars` characters `text`
/// holds, in the list's order. A chunk's words of one letter are not counted (code is full of
/// `a`, `e`, `i`, `y`); a short question's are ("Quanto custa o envio?").
fn function_word_counts(text: &str, min_chars: usize) -> Vec<(Language, usize)> {
    let words: Vec<String> = text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.chars().count() >= min_chars)
        .map(str::to_lowercase)
        .collect();
    FUNCTION_WORDS
        .iter()
        .map(|(language, list)| (*language, words.iter().filter(|w| list.contains(&w.as_str())).count()))
        .collect()
}

/// How many different English [`FUNCTION_WORDS`] of two letters or more `text` holds.
fn distinct_english_words(text: &str) -> usize {
    let Some((_, list)) = FUNCTION_WORDS.iter().find(|(l, _)| *l == Language::English) else { return 0 };
    let mut seen: Vec<String> = Vec::new();
    for w in text.split(|c: char| !c.is_alphanumeric()).filter(|w| w.chars().count() >= 2) {
        let w = w.to_lowercase();
        if list.contains(&w.as_str()) && !seen.contains(&w) {
            seen.push(w);
        }
    }
    seen.len()
}

/// The language whose function words a short text has most of, when one has more than any other.
fn by_function_words(text: &str) -> Option<Language> {
    let mut best: Option<(Language, usize)> = None;
    let mut tie = false;
    for (language, n) in function_word_counts(text, 1) {
        match best {
            Some((_, b)) if n == b => tie = true,
            Some((_, b)) if n < b => {}
            _ if n > 0 => {
                best = Some((language, n));
                tie = false;
            }
            _ => {}
        }
    }
    if tie { None } else { best.map(|(l, _)| l) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scripts() {
        assert!(
            Language::English.latin_script() && Language::Polish.latin_script() && Language::Turkish.latin_script()
        );
        assert!(
            !Language::Japanese.latin_script() && !Language::Russian.latin_script() && !Language::Arabic.latin_script()
        );
    }

    #[test]
    fn the_little_words_never_overrule_a_language_without_a_list() {
        let polish = "Do sklepu idziemy jutro rano, to jest bardzo ważne, bo to ostatni dzień promocji w tym miesiącu.";
        assert_eq!(Language::detect(polish), Some(Language::Polish));
    }

    #[test]
    fn technical_english_is_told_by_its_little_words() {
        // whatlang alone is unsure (no language).
        let text = "Cargo downloads your package's dependencies and compiles your packages.";
        assert_eq!(Language::detect(text), Some(Language::English));
        let french = "Cargo télécharge les dépendances de votre paquet et compile vos paquets pour vous.";
        assert_eq!(Language::detect(french), Some(Language::French));
    }

    #[test]
    fn a_part_too_short_to_tell_takes_its_document_s_language() {
        let en = "We walked along the river until the evening, and then we went back home for dinner.";
        let en2 = "The weather was lovely yesterday, so the children played in the garden all afternoon.";
        let fr = "Nous avons marché le long de la rivière jusqu'au soir, puis nous sommes rentrés dîner.";
        let code = "cargo build --release";
        assert_eq!(Language::detect(code), None);
        use Language::{English, French};
        assert_eq!(
            Language::detect_parts([en, code, fr, en2]),
            vec![Some(English), Some(English), Some(French), Some(English)]
        );
        assert_eq!(
            Language::detect_parts([fr, code, en]),
            vec![Some(French), Some(French), Some(English)],
            "a tie: the first told"
        );
        assert_eq!(Language::detect_parts([code, "ok"]), vec![None, None]);
        assert!(Language::detect_parts([]).is_empty());
    }

    #[test]
    fn every_language_has_its_answer_sentences() {
        for l in Language::ALL {
            assert_eq!(ANSWER_SENTENCES.iter().filter(|(x, _, _, _)| x == l).count(), 1, "{l}");
            assert!(!l.answer_framing().is_empty() && !l.nothing_found().is_empty());
        }
        assert_eq!(Language::English.nothing_found(), crate::conversation::NOTHING_FOUND);
        assert_eq!(Language::French.answer_framing(), "D'après ce que je sais :");
    }

    #[test]
    fn every_listed_language_round_trips_by_its_code() {
        assert!(Language::ALL.len() >= 28);
        for l in Language::ALL {
            assert_eq!(Language::from_code(l.code()), Some(*l));
            assert_eq!(l.code().len(), 2);
            assert!(!l.name().is_empty());
        }
        assert_eq!(LanguageSetting::parse("language", "auto").unwrap(), LanguageSetting::Auto);
        assert_eq!(LanguageSetting::parse("language", "fr").unwrap().as_str(), "fr");
        for bad in ["FR", "fr-FR", "xx", "", "english"] {
            let e = LanguageSetting::parse("language", bad).unwrap_err();
            assert!(e.fields.contains_key("language"), "{bad}");
        }
    }

    #[test]
    fn texts_are_detected_by_their_language_and_short_ones_are_not() {
        let cases = [
            ("The kettle ships to Germany, France and Spain within three working days.", Language::English),
            ("La bouilloire est livrée en Allemagne, en France et en Espagne sous trois jours.", Language::French),
            ("Der Wasserkocher wird innerhalb von drei Werktagen nach Deutschland geliefert.", Language::German),
            ("El hervidor se envía a Alemania, Francia y España en tres días laborables.", Language::Spanish),
            ("Чайник доставляется в Германию, Францию и Испанию в течение трёх рабочих дней.", Language::Russian),
            ("يتم شحن الغلاية إلى ألمانيا وفرنسا وإسبانيا خلال ثلاثة أيام عمل.", Language::Arabic),
            ("ケトルは三営業日以内にドイツ、フランス、スペインへ発送されます。", Language::Japanese),
            ("水壶在三个工作日内发往德国、法国和西班牙。", Language::Chinese),
            ("주전자는 영업일 기준 3일 이내에 독일로 배송됩니다.", Language::Korean),
        ];
        for (text, want) in cases {
            assert_eq!(Language::detect(text), Some(want), "{text}");
        }
        assert_eq!(Language::detect("OK"), None);
        assert_eq!(Language::detect("Table 3"), None);
        assert_eq!(Language::detect("12345 67890 !!!"), None);
        assert_ne!(Language::detect("Submarine tours leave at noon"), Some(Language::French), "unsure: none");
    }

    #[test]
    fn an_answer_is_in_the_fixed_language_else_the_message_s_else_english() {
        let auto = LanguageSetting::Auto;
        assert_eq!(
            auto.answer_language("Livrez-vous en Italie ? Je voudrais commander une bouilloire."),
            Language::French
        );
        assert_eq!(auto.answer_language("イタリアに発送しますか？"), Language::Japanese);
        assert_eq!(auto.answer_language("Do you ship to Italy?"), Language::English);
        let short = [
            ("What is your refund policy?", Language::English),
            ("Can I return a kettle?", Language::English),
            ("Livrez-vous en Italie ?", Language::French),
            ("Wie lange dauert der Versand?", Language::German),
            ("¿Cuánto cuesta el envío?", Language::Spanish),
            ("Quanto costa la spedizione?", Language::Italian),
            ("Hoeveel kost verzending?", Language::Dutch),
            ("Quanto custa o envio?", Language::Portuguese),
            ("Сколько стоит доставка?", Language::Russian),
            ("كم تكلفة الشحن؟", Language::Arabic),
            ("كم يستغرق شحن الغلايات؟", Language::Arabic),
            ("ارسال چقدر طول می‌کشد؟", Language::Persian),
            ("Скільки коштує доставка?", Language::Ukrainian),
        ];
        for (q, want) in short {
            assert_eq!(auto.answer_language(q), want, "{q}");
        }
        assert_eq!(auto.answer_language("?"), Language::English);
        assert_eq!(LanguageSetting::Fixed(Language::German).answer_language("Do you ship?"), Language::German);
    }
}
