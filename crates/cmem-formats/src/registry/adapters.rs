//! The registry's functions of the formats that came before it: their readers with the
//! ingest's options, their writers, and XLIFF's and PO's documents (recycle, analyze,
//! context input). A format written since provides its own, in its module.

use std::io::Write;

use cmem_core::{ContentMemory, NewEntry};

use super::{DocSegment, FormatWriter, ItemReader, ReadContext, SegmentSource};
use crate::analyze::{Analysis, AnalyzeOptions, Counted};
use crate::error::{Format, FormatError, FormatErrorKind};
use crate::import::{EntrySink, ExportOptions};
use crate::item::{BoxedInput, Item};
use crate::po::MessageRunner;
use crate::recycle::{RecycleOptions, RecycleReport};
use crate::{jsonl, po, tmx, weblate, xliff, xliff_in};

// The readers of the formats that read one stream, with the ingest's options.

pub(super) fn open_tmx<'h>(input: BoxedInput, cx: ReadContext<'h>) -> Result<ItemReader<'h>, FormatError> {
    let options = tmx::TmxOptions { strict: cx.strict, file_name: cx.name, ..tmx::TmxOptions::default() };
    let reader = tmx::TmxReader::new(input, options)?;
    // A TMX entry whose segments are all plain text gets its codes recognized, by its
    // PO format flags when it has any (see `Ingest`).
    let mut runner = MessageRunner::new(cx.hook, true);
    Ok(Box::new(reader.map(move |item| match item {
        Ok(Item::Entry(entry)) => Ok(Item::Entry(recognize_level1(entry, &mut runner))),
        other => other,
    })))
}

#[cfg(feature = "gzip")]
pub(super) fn open_kmb<'h>(input: BoxedInput, cx: ReadContext<'h>) -> Result<ItemReader<'h>, FormatError> {
    Ok(Box::new(crate::kmb::KmbReader::new(input, &cx.name)?))
}

// A bundle is gzip-compressed (docs/kmb.md).
#[cfg(not(feature = "gzip"))]
pub(super) fn open_kmb<'h>(_: BoxedInput, cx: ReadContext<'h>) -> Result<ItemReader<'h>, FormatError> {
    Err(FormatError::new(
        Format::Kmb,
        FormatErrorKind::Unsupported,
        "reading a .kmb bundle needs the `gzip` feature of cmem (or cmem-formats)",
    )
    .in_file(cx.name))
}

pub(super) fn open_jsonl<'h>(input: BoxedInput, cx: ReadContext<'h>) -> Result<ItemReader<'h>, FormatError> {
    let options = jsonl::JsonlOptions {
        source_locale: cx.source_locale,
        target_locale: cx.target_locale,
        strict: cx.strict,
        file_name: cx.name,
        ..jsonl::JsonlOptions::default()
    };
    Ok(Box::new(jsonl::JsonlReader::new(input, options, cx.hook)))
}

pub(super) fn open_po<'h>(input: BoxedInput, cx: ReadContext<'h>) -> Result<ItemReader<'h>, FormatError> {
    let options = po::PoOptions {
        source_locale: cx.source_locale,
        target_locale: cx.target_locale,
        strict: cx.strict,
        file_name: cx.name,
        ..po::PoOptions::default()
    };
    Ok(Box::new(po::PoReader::new(input, options, cx.hook)?))
}

pub(super) fn open_weblate<'h>(
    input: BoxedInput,
    cx: ReadContext<'h>,
) -> Result<ItemReader<'h>, FormatError> {
    let options = weblate::WeblateOptions {
        source_locale: cx.source_locale,
        target_locale: cx.target_locale,
        strict: cx.strict,
        file_name: cx.name,
        ..weblate::WeblateOptions::default()
    };
    Ok(Box::new(weblate::WeblateReader::new(input, options, cx.hook)?))
}

pub(super) fn open_xliff<'h>(input: BoxedInput, cx: ReadContext<'h>) -> Result<ItemReader<'h>, FormatError> {
    let options = xliff_in::XliffInOptions {
        source_locale: cx.source_locale,
        target_locale: cx.target_locale,
        file_name: cx.name,
        ..xliff_in::XliffInOptions::default()
    };
    Ok(Box::new(xliff_in::XliffReader::new(input, options, cx.hook)?))
}

/// A TMX entry whose segments are all plain text gets its inline codes recognized, by
/// its PO format flags when it has any; see [`Ingest`](crate::Ingest).
fn recognize_level1(mut entry: NewEntry, runner: &mut MessageRunner<'_>) -> NewEntry {
    let texts = entry.variants.iter().map(|v| cmem_core::model::run::text_only(&v.runs));
    let Some(texts) = texts.collect::<Option<Vec<String>>>() else {
        return entry;
    };
    let flags: Vec<String> = entry
        .metadata
        .iter()
        .filter(|(k, _)| k == "po:flags")
        .flat_map(|(_, v)| v.lines().map(str::to_owned))
        .collect();
    let Some((source, targets)) = texts.split_first() else { return entry };
    for (i, target) in targets.iter().enumerate() {
        let (s, t) = runner.pair(&flags, source, target);
        if i == 0 {
            entry.variants[0].runs = s;
        }
        entry.variants[i + 1].runs = t;
    }
    entry
}

// The writers, each ended by its own `finish`.

macro_rules! format_writer {
    ($($writer:ty),*) => {$(
        impl<W: Write> FormatWriter for $writer {
            fn sink(&mut self) -> &mut dyn EntrySink {
                self
            }
            fn finish(self: Box<Self>) -> Result<(), FormatError> {
                <$writer>::finish(*self).map(drop)
            }
        }
    )*};
}

format_writer!(tmx::TmxWriter<W>, jsonl::JsonlWriter<W>, po::PoWriter<W>, weblate::WeblateWriter<W>);
#[cfg(feature = "gzip")]
format_writer!(crate::kmb::KmbWriter<W>);

pub(super) fn write_tmx<'w>(
    out: &'w mut dyn Write,
    options: &ExportOptions,
    level: crate::Level,
) -> Result<Box<dyn FormatWriter + 'w>, FormatError> {
    let o = tmx::TmxWriteOptions {
        level,
        source_locale: options.source_locale.clone(),
        ..tmx::TmxWriteOptions::default()
    };
    Ok(Box::new(tmx::TmxWriter::new(out, o)?))
}

pub(super) fn write_tmx2<'w>(
    out: &'w mut dyn Write,
    options: &ExportOptions,
) -> Result<Box<dyn FormatWriter + 'w>, FormatError> {
    write_tmx(out, options, crate::Level::Two)
}

pub(super) fn write_tmx1<'w>(
    out: &'w mut dyn Write,
    options: &ExportOptions,
) -> Result<Box<dyn FormatWriter + 'w>, FormatError> {
    write_tmx(out, options, crate::Level::One)
}

#[cfg(feature = "gzip")]
pub(super) fn write_kmb<'w>(
    out: &'w mut dyn Write,
    _: &ExportOptions,
) -> Result<Box<dyn FormatWriter + 'w>, FormatError> {
    Ok(Box::new(crate::kmb::KmbWriter::new(out, None)?))
}

#[cfg(not(feature = "gzip"))]
pub(super) fn write_kmb<'w>(
    _: &'w mut dyn Write,
    _: &ExportOptions,
) -> Result<Box<dyn FormatWriter + 'w>, FormatError> {
    Err(FormatError::new(
        Format::Kmb,
        FormatErrorKind::Unsupported,
        "writing a .kmb bundle needs the `gzip` feature of cmem (or cmem-formats)",
    ))
}

pub(super) fn write_jsonl<'w>(
    out: &'w mut dyn Write,
    _: &ExportOptions,
) -> Result<Box<dyn FormatWriter + 'w>, FormatError> {
    let o = jsonl::JsonlOptions { mode: jsonl::JsonlMode::Full, ..jsonl::JsonlOptions::default() };
    Ok(Box::new(jsonl::JsonlWriter::new(out, o)))
}

pub(super) fn write_po<'w>(
    out: &'w mut dyn Write,
    options: &ExportOptions,
) -> Result<Box<dyn FormatWriter + 'w>, FormatError> {
    match (&options.source_locale, &options.target_locale) {
        (Some(from), Some(to)) => Ok(Box::new(po::PoWriter::new(out, from.clone(), to.clone())?)),
        // `FormatSpec::writer` checked the pair.
        _ => Err(FormatError::new(
            Format::Po,
            FormatErrorKind::InvalidLocale,
            "give the source and target locales",
        )),
    }
}

pub(super) fn write_weblate<'w>(
    out: &'w mut dyn Write,
    options: &ExportOptions,
) -> Result<Box<dyn FormatWriter + 'w>, FormatError> {
    let mut o = weblate::WeblateOptions::default();
    o.source_locale.clone_from(&options.source_locale);
    o.target_locale.clone_from(&options.target_locale);
    Ok(Box::new(weblate::WeblateWriter::new(out, o)?))
}

// Documents: XLIFF and PO.

pub(super) fn xliff_recycle(
    raw: Vec<u8>,
    name: &str,
    store: &dyn ContentMemory,
    options: &RecycleOptions,
) -> Result<(Vec<u8>, RecycleReport), FormatError> {
    let mut doc = xliff::XliffDocument::parse(raw, name)?;
    let report = crate::recycle::recycle_document(&mut doc, store, options)?;
    Ok((doc.to_bytes(), report))
}

pub(super) fn xliff_analyze(
    raw: Vec<u8>,
    name: &str,
    store: &dyn ContentMemory,
    options: &AnalyzeOptions,
) -> Result<(Analysis, Vec<Counted>), FormatError> {
    crate::analyze::analyze_counted(&xliff::XliffDocument::parse(raw, name)?, store, options)
}

pub(super) fn xliff_segments(raw: Vec<u8>, name: &str) -> Result<Vec<DocSegment>, FormatError> {
    let doc = xliff::XliffDocument::parse(raw, name)?;
    Ok(doc
        .segments()
        .iter()
        .filter(|s| s.translatable && !s.approved)
        .map(|s| DocSegment {
            line: s.line,
            unit: s.context_key().to_owned(),
            source: SegmentSource::Runs(s.source.clone()),
        })
        .collect())
}

pub(super) fn po_recycle(
    raw: Vec<u8>,
    name: &str,
    store: &dyn ContentMemory,
    options: &RecycleOptions,
) -> Result<(Vec<u8>, RecycleReport), FormatError> {
    po::recycle_po_bytes(&raw, name, store, options)
}

pub(super) fn po_analyze(
    raw: Vec<u8>,
    name: &str,
    store: &dyn ContentMemory,
    options: &AnalyzeOptions,
) -> Result<(Analysis, Vec<Counted>), FormatError> {
    po::analyze_po_counted(raw.as_slice(), name, store, options)
}

pub(super) fn po_segments(raw: Vec<u8>, name: &str) -> Result<Vec<DocSegment>, FormatError> {
    let catalog = po::read_catalog(raw.as_slice(), name)?;
    Ok(catalog
        .messages
        .iter()
        .filter(|m| !m.is_header() && !m.obsolete && m.untranslated())
        .map(|m| DocSegment {
            line: m.line,
            unit: m.context.clone().unwrap_or_default(),
            source: SegmentSource::Text(m.id.clone()),
        })
        .collect())
}
