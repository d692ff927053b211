//! Document files by their format: recycling and analyzing an XLIFF document or a
//! gettext catalog named by its path. Above [`recycle`](mod@crate::recycle),
//! [`analyze`](mod@crate::analyze) and [`po`](mod@crate::po), which share their lookups
//! and counts, so that none of them needs to know the others' formats.

use std::fs;
use std::io::Write;
use std::path::Path;

use cmem_core::ContentMemory;

use crate::analyze::{Analysis, AnalyzeOptions, Batch};
use crate::error::{Format, FormatError, FormatErrorKind};
use crate::po;
use crate::recycle::{recycle_document, RecycleOptions, RecycleReport};
use crate::xliff::XliffDocument;

/// Recycles the file `input` into `output` (which may be the same path): an XLIFF
/// document, or a gettext catalog when its name ends in `.po` or `.pot`
/// ([`recycle_po`](crate::recycle_po)).
///
/// # Errors
/// As [`XliffDocument::read`] (or the catalog's reader) and [`recycle_document`], and
/// I/O writing the output; the output is then left as it was.
pub fn recycle_file(
    input: &Path,
    output: &Path,
    store: &dyn ContentMemory,
    options: &RecycleOptions,
) -> Result<RecycleReport, FormatError> {
    let name = input.display().to_string();
    let format = if crate::import::format_of(input) == Some(Format::Po) { Format::Po } else { Format::Xliff };
    let raw = fs::read(input).map_err(|e| FormatError::io(format, "cannot read", e).in_file(&name))?;
    let (bytes, report) = if format == Format::Po {
        po::recycle_po_bytes(&raw, &name, store, options)?
    } else {
        let mut doc = XliffDocument::parse(raw, &name)?;
        let report = recycle_document(&mut doc, store, options)?;
        (doc.to_bytes(), report)
    };
    write_atomically(output, &bytes, format)?;
    Ok(report)
}

/// Writes `bytes` to `path` as an [`OutputFile`](crate::output::OutputFile): a regular
/// file is replaced atomically (its mode kept), a link written through, a device written
/// directly.
///
/// # Errors
/// I/O, or a file the user may not write; the temporary file is removed and `path` left
/// as it was.
pub fn write_atomically(path: &Path, bytes: &[u8], format: Format) -> Result<(), FormatError> {
    let result = crate::output::OutputFile::create(path).and_then(|mut out| {
        out.write_all(bytes)?;
        out.commit()
    });
    result.map_err(|e| FormatError::io(format, "cannot write", e).in_file(path.display().to_string()))
}

impl Batch {
    /// Analyzes the file at `path` (a PO or POT catalog by its extension, else XLIFF)
    /// and adds it to the batch; returns its own report.
    ///
    /// # Errors
    /// As [`analyze_file`](crate::analyze::analyze_file) and [`analyze_po`](crate::po::analyze_po).
    pub fn add_file(
        &mut self,
        path: &Path,
        store: &dyn ContentMemory,
        options: &AnalyzeOptions,
    ) -> Result<&Analysis, FormatError> {
        let name = path.display().to_string();
        let (analysis, counted) = if crate::import::format_of(path) == Some(Format::Po) {
            let file = std::fs::File::open(path)
                .map_err(|e| FormatError::io(Format::Po, "cannot read", e).in_file(&name))?;
            po::analyze_po_counted(std::io::BufReader::new(file), &name, store, options)?
        } else {
            let raw = std::fs::read(path).map_err(|e| {
                FormatError::new(Format::Xliff, FormatErrorKind::Io, format!("cannot read: {e}"))
                    .in_file(&name)
            })?;
            crate::analyze::analyze_counted(&XliffDocument::parse(raw, &name)?, store, options)?
        };
        Ok(self.add(analysis, counted, options))
    }
}
