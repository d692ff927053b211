//! Keeping a memory's word models current without a separate step: an import (and a
//! server after writes) asks [`Memory::realign`], which trains a language pair's model
//! when the pair has enough entries and has none, or when it grew by a fraction since
//! its model was trained.
//!
//! EM is not incremental (every count moves when a pair comes in), so "updating" is
//! training again over the whole pair; what keeps it proportionate is *when*: a pair of
//! fewer than [`MIN_PAIRS`] entries gets no model (EM's evidence would be one or two
//! sightings per word; such a memory trains with `cmem align`, whose options suit it), and a model is trained again only once the pair has
//! [`GROWTH`] more entries than the model was trained on. A stale or missing model costs
//! repairs, never a lookup: lookups without one skip the word repair.

use cmem_core::align::{pair_key, AlignOptions, TrainReport};
use cmem_core::ContentMemoryExt;
use cmem_core::{Locale, Result};

use crate::memory::Memory;

/// The fewest entries of a pair for which an import trains a word model unasked.
pub const MIN_PAIRS: u64 = 1_000;

/// How much a pair must grow (a fraction of the entries its model was trained on)
/// before an import trains its model again unasked.
pub const GROWTH: f64 = 0.10;

/// When [`Memory::realign`] trains.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum AlignMode {
    /// Never (`--no-align`).
    Off,
    /// When the pair has no model and at least [`MIN_PAIRS`] entries, or grew by
    /// [`GROWTH`] since its model was trained (the default).
    #[default]
    WhenStale,
    /// Always, whatever the pair's size (`--align`, `cmem align`).
    Always,
}

/// What [`Memory::realign`] did for one language pair.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Realigned {
    /// The source language.
    pub from: Locale,
    /// The target language.
    pub to: Locale,
    /// The pair's entries in the memory (every region of the two languages).
    pub entries: u64,
    /// What was done.
    pub outcome: RealignOutcome,
}

/// What became of one pair's word model.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum RealignOutcome {
    /// Trained (again) and saved.
    Trained(TrainReport),
    /// Kept: trained on this many pairs, and the pair has not grown enough since.
    Current {
        /// The sentence pairs the kept model was trained on (and left out).
        trained_on: u64,
    },
    /// No model: the pair has fewer than [`MIN_PAIRS`] entries.
    TooFew,
    /// Training or saving failed; the memory's entries are untouched.
    Failed(String),
}

impl Memory {
    /// Brings the word models of the memory's language pairs up to date as `mode` says
    /// (see [`AlignMode`], [`MIN_PAIRS`] and [`GROWTH`]): of the pair `only` (regions ignored), else of
    /// every pair the memory holds. A failure of one pair is reported in its outcome;
    /// the others go on.
    ///
    /// ```
    /// use cmem::{AlignMode, Locale, Memory, NewEntry, OpenOptions, RealignOutcome, Run, Variant};
    ///
    /// let memory = Memory::open_with("memory:", &OpenOptions::new().create(true))?;
    /// let (en, de) = (Locale::parse("en")?, Locale::parse("de")?);
    /// memory.write(&[NewEntry::pair(
    ///     Variant::new(en.clone(), vec![Run::text("Open the file")]),
    ///     Variant::new(de.clone(), vec![Run::text("Öffne die Datei")]),
    /// )])?;
    /// // One entry is too few to learn from, unless asked.
    /// let done = memory.realign(Some((&en, &de)), cmem::AlignMode::WhenStale)?;
    /// assert_eq!(done[0].outcome, RealignOutcome::TooFew);
    /// let done = memory.realign(Some((&en, &de)), cmem::AlignMode::Always)?;
    /// assert!(matches!(done[0].outcome, RealignOutcome::Trained(_)));
    /// # Ok::<(), cmem::Error>(())
    /// ```
    ///
    /// # Errors
    /// Reading the memory's counts failed.
    pub fn realign(&self, only: Option<(&Locale, &Locale)>, mode: AlignMode) -> Result<Vec<Realigned>> {
        if mode == AlignMode::Off {
            return Ok(Vec::new());
        }
        // Entries per language pair, regions summed: the model's key ignores them.
        let mut pairs: Vec<(Locale, Locale, u64)> = Vec::new();
        for p in self.stats()?.pairs {
            let (from, to) = (Locale::parse(p.source.language())?, Locale::parse(p.target.language())?);
            if only.is_some_and(|(f, t)| pair_key(f, t) != pair_key(&from, &to)) {
                continue;
            }
            match pairs.iter_mut().find(|(f, t, _)| *f == from && *t == to) {
                Some(known) => known.2 += p.entries,
                None => pairs.push((from, to, p.entries)),
            }
        }
        if let (Some((f, t)), true) = (only, pairs.is_empty()) {
            pairs.push((Locale::parse(f.language())?, Locale::parse(t.language())?, 0));
        }
        let mut out = Vec::with_capacity(pairs.len());
        for (from, to, entries) in pairs {
            let outcome = self.realign_pair(&from, &to, entries, mode);
            out.push(Realigned { from, to, entries, outcome });
        }
        Ok(out)
    }

    fn realign_pair(&self, from: &Locale, to: &Locale, entries: u64, mode: AlignMode) -> RealignOutcome {
        if mode == AlignMode::WhenStale {
            // A model that does not read is replaced by training, as `cmem align` would.
            let kept = self.store().word_model(from, to).ok().flatten();
            match kept {
                Some(model) => {
                    let r = model.report();
                    let trained_on = (r.pairs + r.skipped) as u64;
                    if (entries as f64) < trained_on as f64 * (1.0 + GROWTH) {
                        return RealignOutcome::Current { trained_on };
                    }
                }
                None if entries < MIN_PAIRS => return RealignOutcome::TooFew,
                None => {}
            }
        }
        match self.train_word_model(from, to, &AlignOptions::default()) {
            Ok(report) => RealignOutcome::Trained(report),
            Err(e) => RealignOutcome::Failed(e.message_and_causes()),
        }
    }
}
