//! [`Memory::fragments`]: the stretches of a segment the memory holds with a consistent
//! translation ([`cmem_core::align::Fragment`]), from the pair's word model; and the
//! lookup answer that carries them ([`Memory::answer_with_fragments`]).

use cmem_core::align::{text_of, Fragment, FragmentOptions};
use cmem_core::store::learn::PairGlossary;
use cmem_core::ContentMemoryExt;
use cmem_core::{LookupRequest, MatchView, Result};

use crate::answer::LookupAnswer;
use crate::memory::Memory;

impl Memory {
    /// The fragments of `req`'s source in the memory: none when the memory keeps no
    /// word model of the pair (an import trains one once the pair is large enough;
    /// `cmem align` does at any size). Fragments never fill a target.
    ///
    /// ```
    /// use cmem::{LookupRequest, Memory, OpenOptions};
    ///
    /// let memory = Memory::open_with("memory:", &OpenOptions::new().create(true))?;
    /// let req = LookupRequest::from_tags(vec![cmem::Run::text("the file manager")], "en", "de")?;
    /// assert!(memory.fragments(&req)?.is_empty()); // no word model yet
    /// # Ok::<(), cmem::Error>(())
    /// ```
    ///
    /// # Errors
    /// A store failure, or a saved word model that does not read.
    pub fn fragments(&self, req: &LookupRequest) -> Result<Vec<Fragment>> {
        let Some(model) = self.store().word_model(&req.source_locale, &req.target_locale)? else {
            return Ok(Vec::new());
        };
        Ok(model.fragments(&text_of(&req.source), &FragmentOptions::default()))
    }

    /// As [`answer`](Self::answer), with the query's [fragments](Self::fragments) in
    /// [`LookupAnswer::fragments`]; the time counts both.
    ///
    /// # Errors
    /// As [`answer`](Self::answer) and [`fragments`](Self::fragments).
    pub fn answer_with_fragments(&self, req: &LookupRequest) -> Result<LookupAnswer> {
        self.answer_with_evidence(req, true, false)
    }

    /// As [`answer`](Self::answer), with the query's [fragments](Self::fragments) in
    /// [`LookupAnswer::fragments`] when `fragments`, and the glossary's
    /// [terms](Self::segment_terms) it holds in [`LookupAnswer::terms`] when `terms`;
    /// the time counts all.
    ///
    /// # Errors
    /// As [`answer`](Self::answer), [`fragments`](Self::fragments) and
    /// [`segment_terms`](Self::segment_terms).
    pub fn answer_with_evidence(
        &self,
        req: &LookupRequest,
        fragments: bool,
        terms: bool,
    ) -> Result<LookupAnswer> {
        let (mut found_fragments, mut found_terms) = (Vec::new(), Vec::new());
        let mut answer = LookupAnswer::timed(req, || {
            let matches = self.lookup(req)?.iter().map(MatchView::of).collect();
            if !fragments && !terms {
                return Ok(matches);
            }
            // The pair's word model, read once for both.
            let (from, to) = (&req.source_locale, &req.target_locale);
            let model = self.store().word_model(from, to)?;
            let text = text_of(&req.source);
            if let (true, Some(model)) = (fragments, &model) {
                found_fragments = model.fragments(&text, &FragmentOptions::default());
            }
            if terms {
                found_terms = PairGlossary::with_model(self.store(), from, to, model.as_deref())?.find(&text);
            }
            Ok(matches)
        })?;
        answer.fragments = found_fragments;
        answer.terms = found_terms;
        Ok(answer)
    }
}
