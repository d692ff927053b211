//! Document files by their format: recycling and analyzing a document (an XLIFF
//! document, a gettext catalog, …) named by its path, in the format the
//! [`registry`](crate::registry) gives its name ([`document_format`](crate::registry::document_format)).
//! Above the registry and the formats it lists, which share their lookups and counts
//! ([`recycle`](mod@crate::recycle), [`analyze`](mod@crate::analyze)), so that none of
//! them needs to know the others' formats.

use std::fs;
use std::io::Write;
use std::path::Path;

use cmem_core::ContentMemory;

use crate::analyze::{Analysis, AnalyzeOptions, Batch};
use crate::error::{Format, FormatError};
use crate::recycle::{RecycleOptions, RecycleReport};

/// Recycles the file `input` into `output` (which may be the same path), in the format
/// [`document_format`](crate::registry::document_format) gives its name: XLIFF
/// ([`recycle_document`](crate::recycle_document)) unless its extension names another
/// format that recycles (`.po` and `.pot`: [`recycle_po`](crate::recycle_po)). A
/// format whose file names say their language takes the target from `output`'s name
/// when the options give none.
///
/// # Errors
/// As the document's reader and its recycle, and I/O writing the output; the output
/// is then left as it was.
pub fn recycle_file(
    input: &Path,
    output: &Path,
    store: &dyn ContentMemory,
    options: &RecycleOptions,
) -> Result<RecycleReport, FormatError> {
    let name = input.display().to_string();
    let spec = crate::registry::document_format(input);
    let raw = fs::read(input).map_err(|e| FormatError::io(spec.format, "cannot read", e).in_file(&name))?;
    // A format whose file names say their language takes the target from the output's
    // name when the options give none.
    let named = options.target_locale.is_none().then(|| spec.locale_of_file(output)).flatten();
    let with_target;
    let options = match named {
        Some(target) => {
            with_target = RecycleOptions { target_locale: Some(target), ..options.clone() };
            &with_target
        }
        None => options,
    };
    let (bytes, report) = spec.recycle(raw, &name, store, options)?;
    write_atomically(output, &bytes, spec.format)?;
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
    /// Analyzes the file at `path` (in the format
    /// [`document_format`](crate::registry::document_format) gives its name: a PO or POT
    /// catalog by its extension, …, else XLIFF) and adds it to the batch; returns its own
    /// report.
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
        let spec = crate::registry::document_format(path);
        let raw =
            fs::read(path).map_err(|e| FormatError::io(spec.format, "cannot read", e).in_file(&name))?;
        let (analysis, counted) = spec.analyze(raw, &name, store, options)?;
        Ok(self.add(analysis, counted, options))
    }
}
