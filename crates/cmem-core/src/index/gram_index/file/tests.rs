use super::*;

#[test]
fn a_file_follows_the_state_it_was_written_at_and_later_ones_only() {
    let meta = FileMeta {
        seq: 5,
        eid: 40,
        key_version: crate::model::key::KEY_VERSION,
        locale: "en".into(),
        token: FileMeta::token_of("mem", 77),
    };
    assert_eq!(meta.memory(), Some("mem"));
    assert!(meta.indexes("en") && !meta.indexes("de"));
    // The state it was written at, and later ones.
    assert!(meta.follows((5, 40), 77, false));
    assert!(meta.follows((9, 60), 77, false));
    // The newest entry deleted or re-keyed since: the log says so.
    assert!(meta.follows((6, 39), 0, true));
    assert!(meta.follows((6, 40), 12, true));
    // A later log than the database's, a newest entry gone without a logged
    // deletion, or another entry under its number.
    assert!(!meta.follows((4, 40), 77, false));
    assert!(!meta.follows((5, 39), 0, false));
    assert!(!meta.follows((5, 40), 12, false));
    // A token of another form.
    let old = FileMeta { token: "mem".into(), ..meta };
    assert_eq!(old.memory(), None);
    assert!(!old.follows((5, 40), 77, false));
}
use crate::index::query::{CandidateQuery, CandidateSink};
use crate::model::key::{normalize_text, Keys};
use crate::model::run::Run;

/// File bytes aligned as a mapped file is.
struct Aligned(Vec<u64>, usize);

impl AsRef<[u8]> for Aligned {
    fn as_ref(&self) -> &[u8] {
        &bytemuck::cast_slice::<u64, u8>(&self.0)[..self.1]
    }
}

fn bytes(b: &[u8]) -> Bytes {
    let mut words = vec![0u64; b.len().div_ceil(8)];
    bytemuck::cast_slice_mut::<u64, u8>(&mut words)[..b.len()].copy_from_slice(b);
    Arc::new(Aligned(words, b.len()))
}

struct Collect(f64, usize, Vec<(EntryId, String)>);

impl CandidateSink for Collect {
    fn offer(&mut self, id: EntryId, _kinds: KindSet, key: &str) -> f64 {
        self.2.push((id, key.to_owned()));
        self.0
    }
    fn cutoff(&self) -> f64 {
        self.0
    }
    fn max_candidates(&self) -> usize {
        self.1
    }
}

fn meta() -> FileMeta {
    FileMeta { seq: 7, eid: 42, key_version: 3, locale: "en".into(), token: "t0k3n".into() }
}

const WORDS: [&str; 12] =
    ["open", "the", "file", "save", "all", "close", "window", "new", "tab", "print", "page", "Größe"];

fn text(i: usize) -> String {
    (0..2 + i % 6).map(|k| WORDS[(i * 5 + k * 7 + i / 13) % WORDS.len()]).collect::<Vec<_>>().join(" ")
}

fn offers(ix: &GramIndex, accept: &dyn Fn(u32) -> bool) -> Vec<Vec<(EntryId, String)>> {
    let en = Locale::parse("en").unwrap_or_else(|_| unreachable!());
    let mut out = Vec::new();
    for query in ["open the file tab", "save all new page print", "close window", "Größe der Seite", "x"] {
        for (cutoff, max) in [(0.3, usize::MAX), (0.5, 5), (0.7, 150)] {
            let key = normalize_text(query);
            let q = CandidateQuery { key: &key, kinds: KindSet::ALL, source: &en, target: &en };
            let mut sink = Collect(cutoff, max, Vec::new());
            ix.offer(&q, accept, &mut sink);
            out.push(sink.2);
        }
    }
    out
}

#[test]
fn a_persisted_index_offers_what_the_built_one_does_also_after_writes() {
    let mut built = GramIndex::new();
    let mut sets = LocaleSets::new();
    let en = sets.locale_id(&Locale::parse("en").unwrap_or_else(|_| unreachable!()));
    let de = sets.locale_id(&Locale::parse("de").unwrap_or_else(|_| unreachable!()));
    let groups = [sets.set_id(&[en, de]), sets.set_id(&[de, en])];
    for i in 0..3000usize {
        built.add(EntryId(i as i64 + 1), groups[i % 2], &Keys::of(&[Run::text(text(i))]));
    }
    built.remove(EntryId(17));
    built.settle();
    let file = built.to_file(&sets, &meta()).unwrap_or_default();
    let frozen = FrozenGrams::open(bytes(&file)).unwrap_or_else(|e| unreachable!("{e}"));
    assert_eq!(frozen.meta(), &meta());
    assert_eq!(frozen.docs(), 3000);
    let names: Vec<Vec<String>> = frozen
        .sets()
        .unwrap_or_default()
        .iter()
        .map(|s| s.iter().map(|l| l.as_str().to_owned()).collect())
        .collect();
    assert_eq!(names, [["en", "de"], ["de", "en"]]);
    let mut opened = GramIndex::with_base(frozen, vec![0, 1]);
    assert_eq!(opened.len(), built.len());
    let accept = |g: u32| g == 0;
    let taken = offers(&opened, &accept);
    assert_eq!(taken, offers(&built, &accept));
    // Set 0 holds the odd entries: only they are offered, and some are.
    assert!(taken.iter().flatten().all(|(e, _)| e.0 % 2 == 1));
    assert!(taken.iter().flatten().count() > 100);
    assert_eq!(offers(&opened, &|_| true), offers(&built, &|_| true));
    // Writes after opening: the same as on the built index.
    for ix in [&mut built, &mut opened] {
        for i in 3000..3400usize {
            ix.add(EntryId(i as i64 + 1), groups[i % 2], &Keys::of(&[Run::text(text(i * 3))]));
        }
        for e in [1, 2, 500, 3001, 3399] {
            ix.remove(EntryId(e));
        }
        ix.settle();
    }
    assert_eq!(opened.len(), built.len());
    assert_eq!(offers(&opened, &|_| true), offers(&built, &|_| true));
    // An opened index is not written again.
    assert!(opened.to_file(&sets, &meta()).is_err());
}

#[test]
fn keys_of_one_text_are_offered_as_lists_of_every_key_offer_them() {
    // Few texts, each many times over (two locale sets, as a multilingual memory has
    // them), built in parts whose chains are joined: the file keeps the chains, and
    // offers what the built index does, under limits and ties.
    let mut sets = LocaleSets::new();
    let en = sets.locale_id(&Locale::parse("en").unwrap_or_else(|_| unreachable!()));
    let de = sets.locale_id(&Locale::parse("de").unwrap_or_else(|_| unreachable!()));
    let groups = [sets.set_id(&[en, de]), sets.set_id(&[de, en])];
    let variants: Vec<(EntryId, u32, Keys)> = (0..2400usize)
        .map(|i| (EntryId(i as i64 + 1), groups[i % 2], Keys::of(&[Run::text(text(i % 700))])))
        .collect();
    for chunk in [2400, 500] {
        let mut built = GramIndex::build_in_parts(&variants, chunk);
        assert!(built.same.chained > 1000, "chunk {chunk}: {} chained", built.same.chained);
        // A removed first key keeps its chain offered.
        built.remove(EntryId(1));
        built.remove(EntryId(702));
        let file = built.to_file(&sets, &meta()).unwrap_or_default();
        let frozen = FrozenGrams::open(bytes(&file)).unwrap_or_else(|e| unreachable!("{e}"));
        // The file keeps the chains: its lists hold the first keys only.
        assert_eq!(frozen.chained(), built.same.chained, "chunk {chunk}");
        let opened = GramIndex::with_base(frozen, vec![0, 1]);
        assert_eq!(opened.len(), built.len());
        let accepts: [&dyn Fn(u32) -> bool; 2] = [&|g| g == 0, &|_| true];
        for accept in accepts {
            assert_eq!(offers(&opened, accept), offers(&built, accept), "chunk {chunk}");
            // Keys sharing no gram with the query, reached by length: a chained key
            // of a text seen is not among them.
            let en = Locale::parse("en").unwrap_or_else(|_| unreachable!());
            let unshared = |ix: &GramIndex| {
                let q = CandidateQuery { key: "filez", kinds: KindSet::ALL, source: &en, target: &en };
                let mut sink = Collect(0.0, 400, Vec::new());
                ix.offer(&q, accept, &mut sink);
                sink.2
            };
            assert_eq!(unshared(&opened), unshared(&built), "chunk {chunk}");
        }
    }
}

#[test]
fn keys_of_sets_past_what_a_hint_names_are_filtered_by_their_records() {
    // 300 locale sets: a set hint names the first 255, the record the others.
    let mut built = GramIndex::new();
    for i in 0..1200usize {
        built.add(EntryId(i as i64 + 1), (i % 300) as u32, &Keys::of(&[Run::text(text(i % 40))]));
    }
    built.settle();
    let file = built.to_file(&LocaleSets::new(), &meta()).unwrap_or_default();
    let frozen = FrozenGrams::open(bytes(&file)).unwrap_or_else(|e| unreachable!("{e}"));
    let opened = GramIndex::with_base(frozen, (0..300).collect());
    let accept = |g: u32| g == 3 || g == 280;
    let en = Locale::parse("en").unwrap_or_else(|_| unreachable!());
    let key = normalize_text("open the file tab");
    let q = CandidateQuery { key: &key, kinds: KindSet::ALL, source: &en, target: &en };
    for ix in [&built, &opened] {
        // Without a limit every key that can reach is offered: those of the two sets
        // among all keys offered.
        let offered = |accept: &dyn Fn(u32) -> bool| {
            let mut sink = Collect(0.3, usize::MAX, Vec::new());
            ix.offer(&q, accept, &mut sink);
            let mut ids: Vec<i64> = sink.2.iter().map(|(e, _)| e.0 - 1).collect();
            ids.sort_unstable();
            ids
        };
        let all = offered(&|_| true);
        let taken = offered(&accept);
        assert_eq!(taken, all.into_iter().filter(|i| i % 300 == 3 || i % 300 == 280).collect::<Vec<_>>());
        assert!(taken.iter().any(|i| i % 300 == 3) && taken.iter().any(|i| i % 300 == 280));
    }
    assert_eq!(offers(&opened, &accept), offers(&built, &accept));
}

#[test]
fn torn_or_foreign_files_are_refused() {
    let mut ix = GramIndex::new();
    for i in 0..50usize {
        ix.add(EntryId(i as i64 + 1), 0, &Keys::of(&[Run::text(text(i))]));
    }
    let file = ix.to_file(&LocaleSets::new(), &meta()).unwrap_or_default();
    assert!(FrozenGrams::open(bytes(&file)).is_ok());
    for cut in [0, 7, 100, file.len() / 2, file.len() - 1] {
        assert!(FrozenGrams::open(bytes(&file[..cut])).is_err(), "cut at {cut}");
    }
    let mut flipped = file.clone();
    flipped[70] ^= 1;
    assert!(FrozenGrams::open(bytes(&flipped)).unwrap_err().contains("checksum"));
    assert!(
        FrozenGrams::open(bytes(b"SQLite format 3\0 and more bytes than a header needs, surely")).is_err()
    );
}

#[test]
fn a_file_is_caught_up_by_at_most_the_limit_of_changes_at_this_size() {
    let mut ix = GramIndex::new();
    for i in 0..300usize {
        ix.add(EntryId(i as i64 + 1), 0, &Keys::of(&[Run::text(text(i))]));
    }
    let file = ix.to_file(&LocaleSets::new(), &meta()).unwrap_or_default();
    let frozen = FrozenGrams::open(bytes(&file)).unwrap_or_else(|e| unreachable!("{e}"));
    // A quarter of 300 keys is under the limit, so the limit decides.
    assert!(frozen.worth_catching_up(0));
    assert!(frozen.worth_catching_up(CATCH_UP_MOST));
    assert!(!frozen.worth_catching_up(CATCH_UP_MOST + 1));
}

#[test]
fn a_streamed_file_is_the_bytes_and_a_failed_stream_leaves_none() {
    let mut ix = GramIndex::new();
    for i in 0..1500usize {
        ix.add(EntryId(i as i64 + 1), 0, &Keys::of(&[Run::text(text(i % 400))]));
    }
    ix.remove(EntryId(9));
    ix.settle();
    let dir = std::env::temp_dir().join(format!("cmem-gix-stream-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| unreachable!("{e}"));
    let path = dir.join("m.db-gix-en");
    let sets = LocaleSets::new();
    ix.persist(&path, &sets, &meta()).unwrap_or_else(|e| unreachable!("{e}"));
    let written = std::fs::read(&path).unwrap_or_default();
    assert_eq!(written, ix.to_file(&sets, &meta()).unwrap_or_default());
    assert!(FrozenGrams::open(bytes(&written)).is_ok());
    // A stream that fails half way: the file before it stays, and no temporary is left.
    let failed = crate::atomic_file::replace_with(&path, |file| {
        file_write_half(file)?;
        Err(std::io::Error::other("disk full"))
    });
    assert!(failed.is_err());
    assert_eq!(std::fs::read(&path).unwrap_or_default(), written);
    let names: Vec<_> = std::fs::read_dir(&dir)
        .map(|d| d.flatten().map(|e| e.file_name().to_string_lossy().into_owned()).collect())
        .unwrap_or_default();
    assert_eq!(names, ["m.db-gix-en"]);
    let _ = std::fs::remove_dir_all(&dir);
}

fn file_write_half(file: &mut crate::atomic_file::AtomicFile) -> std::io::Result<()> {
    file.write_all(&[7; 3 << 20])
}

#[test]
fn damaged_sections_never_panic() {
    let mut ix = GramIndex::new();
    for i in 0..400usize {
        ix.add(EntryId(i as i64 + 1), 0, &Keys::of(&[Run::text(text(i % 150))]));
    }
    let file = ix.to_file(&LocaleSets::new(), &meta()).unwrap_or_default();
    let frozen = FrozenGrams::open(bytes(&file)).unwrap_or_else(|e| unreachable!("{e}"));
    let head = frozen.sections[RECORDS].start;
    // Overwrite the keys, lists and chains (not the header and directories, which
    // opening checks) with noise: offers may be wrong, but must not panic or loop.
    let mut x = 1u32;
    let mut noisy = file.clone();
    let chains = frozen.sections[MORE].clone();
    for range in [head..frozen.sections[STARTS].end, chains] {
        for b in &mut noisy[range] {
            x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
            *b = (x >> 16) as u8;
        }
    }
    let frozen = FrozenGrams::open(bytes(&noisy)).unwrap_or_else(|e| unreachable!("{e}"));
    let opened = GramIndex::with_base(frozen, vec![0]);
    let _ = offers(&opened, &|_| true);
}
