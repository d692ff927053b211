use super::posting::settled_tail;
use super::*;
use crate::index::distance::similarity;
use crate::index::query::{CandidateQuery, CandidateSink};
use crate::model::key::normalize_text;
use crate::model::locale::Locale;
use crate::model::run::Run;

#[test]
fn a_key_is_one_cache_line() {
    assert_eq!(std::mem::size_of::<Doc>(), 64);
    assert_eq!(std::mem::align_of::<Doc>(), 64);
}

struct Collect {
    cutoff: f64,
    seen: Vec<(EntryId, String)>,
    max: usize,
    tie: f64,
    found: bool,
}

impl Collect {
    fn new(cutoff: f64) -> Self {
        Collect { cutoff, seen: Vec::new(), max: usize::MAX, tie: f64::INFINITY, found: true }
    }
}

impl CandidateSink for Collect {
    fn offer(&mut self, id: EntryId, _kinds: KindSet, key: &str) -> f64 {
        self.seen.push((id, key.to_owned()));
        self.cutoff
    }
    fn cutoff(&self) -> f64 {
        self.cutoff
    }
    fn max_candidates(&self) -> usize {
        self.max
    }
    fn tie_cutoff(&self) -> f64 {
        self.tie
    }
    fn found(&self) -> bool {
        self.found
    }
}

#[test]
fn past_the_limit_every_key_that_can_reach_the_tie_cutoff_is_offered() {
    // Twelve keys a substitution from the query (similarity 1 - 1/20 = 0.95, bound
    // 0.95) and a hundred sharing about half its grams.
    let query = "abcdefghijklmnopqrst";
    let mut ix = GramIndex::new();
    for i in 0..12usize {
        let mut near: Vec<char> = query.chars().collect();
        near[4 + i] = 'Z';
        ix.add(EntryId(i as i64 + 1), 0, &Keys::of(&[Run::text(near.into_iter().collect::<String>())]));
    }
    for i in 0..100usize {
        let far =
            format!("{}{}", &query[..10], "0123456789".chars().cycle().skip(i).take(10).collect::<String>());
        ix.add(EntryId(100 + i as i64), 0, &Keys::of(&[Run::text(far)]));
    }
    let en = Locale::parse("en").unwrap();
    let key = normalize_text(query);
    let q = CandidateQuery { key: &key, kinds: KindSet::ALL, source: &en, target: &en };
    let near_offered = |tie: f64| {
        let mut sink = Collect::new(0.3);
        sink.max = 5;
        sink.tie = tie;
        ix.offer(&q, &|_| true, &mut sink);
        (sink.seen.iter().filter(|(id, _)| id.0 < 100).count(), sink.seen.len())
    };
    // No tie cut-off: the limit stops the walk.
    assert_eq!(near_offered(f64::INFINITY), (5, 5));
    // A tie cut-off equal to their score: every one of them, and nothing below it.
    assert_eq!(near_offered(0.95), (12, 12));
}

#[test]
fn past_the_limit_a_commoner_gram_is_read_rather_than_offering_keys_it_rules_out() {
    // The query is two halves. 300 keys hold its first half and other text: they share
    // its rarer grams, so while the second half's grams are unread their bound is that
    // of the query itself. 600 fillers hold the second half only, making its grams the
    // commoner ones; 8 keys are a substitution from the query.
    let (a, b) = ("abcdefghijklmnopqrst", "uvwxyzABCDEFGHIJKLMN");
    let query = format!("{a}{b}");
    let mut ix = GramIndex::new();
    let mut texts = Vec::new();
    for i in 0..8usize {
        let mut near: Vec<char> = query.chars().collect();
        near[24 + i] = '#';
        texts.push(near.into_iter().collect::<String>());
    }
    for i in 0..300usize {
        texts.push(format!("{a}{:0>20}", i * 7919));
    }
    for i in 0..600usize {
        texts.push(format!("{:0>20}{b}", i * 104_729));
    }
    for (i, t) in texts.iter().enumerate() {
        ix.add(EntryId(i as i64 + 1), 0, &Keys::of(&[Run::text(t.as_str())]));
    }
    let en = Locale::parse("en").unwrap();
    let key = normalize_text(&query);
    let q = CandidateQuery { key: &key, kinds: KindSet::ALL, source: &en, target: &en };
    let mut sink = Collect::new(0.85);
    sink.max = 5;
    sink.tie = 0.85;
    ix.offer(&q, &|_| true, &mut sink);
    // Every key that can tie is offered...
    for (i, t) in texts.iter().enumerate() {
        if similarity(&key, t) + 1e-9 >= 0.85 {
            assert!(sink.seen.iter().any(|(id, _)| id.0 == i as i64 + 1), "{t} was not offered");
        }
    }
    // ...but not the keys holding the first half, once the second half's grams are read.
    let first_half = sink.seen.iter().filter(|(id, _)| (9..=308).contains(&id.0)).count();
    assert!(first_half < 30, "{first_half} keys holding only the first half were offered");
}

#[test]
fn offers_every_key_above_the_cutoff_and_forgets_removed_ones() {
    let texts = ["Open the file", "Open the files", "Close the file", "x", "Save all", "Open file"];
    let mut ix = GramIndex::new();
    for (i, t) in texts.iter().enumerate() {
        ix.add(EntryId(i as i64 + 1), (i % 2) as u32, &Keys::of(&[Run::text(*t)]));
    }
    assert_eq!(ix.len(), texts.len());
    let en = Locale::parse("en").unwrap();
    let key = normalize_text("Open the file");
    let q = CandidateQuery { key: &key, kinds: KindSet::ALL, source: &en, target: &en };
    let mut sink = Collect::new(0.6);
    ix.offer(&q, &|_| true, &mut sink);
    for (i, t) in texts.iter().enumerate() {
        let offered = sink.seen.iter().any(|(id, _)| id.0 == i as i64 + 1);
        if similarity(&key, t) >= 0.6 {
            assert!(offered, "{t} was not offered");
        }
    }
    ix.remove(EntryId(2));
    assert_eq!(ix.len(), texts.len() - 1);
    let mut sink = Collect::new(0.6);
    ix.offer(&q, &|_| true, &mut sink);
    assert!(sink.seen.iter().all(|(id, _)| id.0 != 2));
    let mut sink = Collect::new(0.6);
    ix.offer(&q, &|group| group != 0, &mut sink);
    assert!(!sink.seen.is_empty() && sink.seen.iter().all(|(id, _)| id.0 % 2 == 0));
}

#[test]
fn built_in_parts_equals_added_one_by_one() {
    let words = ["open", "the", "file", "save", "all", "close", "window", "new", "tab", "print"];
    let variants: Vec<(EntryId, u32, Keys)> = (0..60)
        .map(|i| {
            let text: Vec<&str> = (0..1 + i % 5).map(|k| words[(i * 7 + k * 3) % words.len()]).collect();
            (EntryId(i as i64 + 1), (i % 3) as u32, Keys::of(&[Run::text(text.join(" "))]))
        })
        .collect();
    let mut one_by_one = GramIndex::new();
    for (entry, group, keys) in &variants {
        one_by_one.add(*entry, *group, keys);
    }
    let en = Locale::parse("en").unwrap();
    for chunk in [1, 7, 25, 60] {
        let built = GramIndex::build_in_parts(&variants, chunk);
        assert_eq!(built.len(), one_by_one.len());
        for query in ["open the file", "save all tab", "print", "new window close"] {
            let key = normalize_text(query);
            let q = CandidateQuery { key: &key, kinds: KindSet::ALL, source: &en, target: &en };
            let offers = |ix: &GramIndex| {
                let mut sink = Collect::new(0.5);
                ix.offer(&q, &|group| group != 1, &mut sink);
                sink.seen
            };
            assert_eq!(offers(&built), offers(&one_by_one), "chunk {chunk}, query {query}");
        }
    }
    assert_eq!(GramIndex::build(&variants).len(), variants.len());
}

#[test]
fn a_candidate_limit_offers_the_head_of_the_unlimited_order() {
    let words = ["open", "the", "file", "save", "all", "close", "window", "new", "tab", "print", "page"];
    let mut ix = GramIndex::new();
    for i in 0..1500usize {
        let text: Vec<&str> = (0..3 + i % 4).map(|k| words[(i * 5 + k * 7 + i / 11) % words.len()]).collect();
        ix.add(EntryId(i as i64 + 1), u32::from(i % 3 != 0), &Keys::of(&[Run::text(text.join(" "))]));
    }
    let en = Locale::parse("en").unwrap();
    for query in ["open the file tab", "save all new page print", "close window"] {
        let key = normalize_text(query);
        let q = CandidateQuery { key: &key, kinds: KindSet::ALL, source: &en, target: &en };
        // Group 1, two keys in three, is refused: the walk passes over those keys
        // without counting them, so a limited walk must reach past what it picked.
        let mut all = Collect::new(0.3);
        ix.offer(&q, &|group| group == 0, &mut all);
        for max in [1, 5, 40, 150] {
            // An index of a million keys or fewer stops at the limit whether or not the
            // sink found anything (past that, see `empty_limit`).
            for found in [true, false] {
                let mut limited = Collect::new(0.3);
                limited.max = max;
                limited.found = found;
                ix.offer(&q, &|group| group == 0, &mut limited);
                let expected = &all.seen[..max.min(all.seen.len())];
                assert_eq!(limited.seen, expected, "max {max}, query {query}, found {found}");
            }
        }
    }
}

#[test]
fn past_a_million_keys_a_sink_that_found_nothing_is_offered_twice_the_limit() {
    use super::walk::{candidate_limit, empty_limit};
    for keys in [0, 363_692, 1_000_000] {
        assert_eq!(empty_limit(150, keys), 150, "{keys} keys");
    }
    for keys in [1_055_578, 2_000_000, 10_000_000] {
        assert_eq!(empty_limit(150, keys), 2 * candidate_limit(150, keys), "{keys} keys");
    }
    assert_eq!(empty_limit(usize::MAX, 40_000_000), usize::MAX);
    // The walk asks the sink: over an index just past a million keys, one that found
    // nothing is offered the doubled limit, the head of the same order.
    let mut ix = GramIndex::new();
    for i in 0..=1_000_000u32 {
        ix.add(EntryId(i64::from(i) + 1), 0, &Keys::of(&[Run::text(format!("{i:07}"))]));
    }
    let en = Locale::parse("en").unwrap();
    let key = normalize_text("0012345");
    let q = CandidateQuery { key: &key, kinds: KindSet::ALL, source: &en, target: &en };
    let offers = |found: bool| {
        let mut sink = Collect::new(0.3);
        sink.max = 5;
        sink.found = found;
        ix.offer(&q, &|_| true, &mut sink);
        sink.seen
    };
    let limit = candidate_limit(5, 1_000_001);
    let (found, nothing) = (offers(true), offers(false));
    assert_eq!(found.len(), limit);
    assert_eq!(nothing.len(), 2 * limit);
    assert_eq!(nothing[..limit], found[..]);
}

#[test]
fn a_limit_outnumbered_reads_the_common_grams_only_when_the_walk_needs_them() {
    // The query's last six grams are its most common: forty keys share those alone,
    // which bounds them at 1 - 7/24 ≈ 0.708, just over the 0.70 cut-off. Thirty keys
    // a substitution away share nearly every gram; their locale set may be refused.
    let query = "abcdefghijklmnopqrstuvwx";
    let mut ix = GramIndex::new();
    for i in 0..30usize {
        let mut near: Vec<char> = query.chars().collect();
        near[i % 12] = char::from(b'0' + (i % 10) as u8);
        let near: String = near.into_iter().collect();
        ix.add(EntryId(i as i64 + 1), 1, &Keys::of(&[Run::text(near)]));
    }
    for i in 0..40usize {
        let common = format!("{}stuvwx", "Y".repeat(18));
        ix.add(EntryId(100 + i as i64), 0, &Keys::of(&[Run::text(common)]));
    }
    let en = Locale::parse("en").unwrap();
    let key = normalize_text(query);
    let q = CandidateQuery { key: &key, kinds: KindSet::ALL, source: &en, target: &en };
    let offered = |max: usize, near_too: bool| {
        let mut sink = Collect::new(0.70);
        sink.max = max;
        ix.offer(&q, &|group| group == 0 || near_too, &mut sink);
        let common = sink.seen.iter().filter(|(id, _)| id.0 >= 100).count();
        (sink.seen.len() - common, common)
    };
    // Unlimited: exact, so every key whose bound reaches the cut-off is offered.
    assert_eq!(offered(usize::MAX, false), (0, 40));
    // More keys seen than 5 may be offered, and the near keys fill the walk: the
    // common grams are left unread.
    assert_eq!(offered(5, true), (5, 0));
    // The near keys refused, the walk runs out before the limit: the common grams
    // are read after all, and the keys sharing only them offered up to it.
    assert_eq!(offered(5, false), (0, 5));
    // A limit the keys seen never outnumber reads them, and the walk offers to it.
    assert_eq!(offered(1000, false), (0, 40));
}

#[test]
fn queries_of_more_than_255_grams_still_find_their_keys() {
    // Counts saturate at 255: a query of 400 distinct grams must still reach a key
    // sharing nearly all of them, at a low cut-off (every list read) and a high one.
    let mut x = 12345u32;
    let long: String = (0..400)
        .map(|_| {
            x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
            char::from(b'a' + ((x >> 16) % 26) as u8)
        })
        .collect();
    let edited = format!("{}XY{}", &long[..200], &long[202..]);
    let mut ix = GramIndex::new();
    ix.add(EntryId(1), 0, &Keys::of(&[Run::text(edited.as_str())]));
    ix.add(EntryId(2), 0, &Keys::of(&[Run::text("something else entirely")]));
    let en = Locale::parse("en").unwrap();
    let key = normalize_text(&long);
    assert!(padded_grams(&key).len() > 255);
    let q = CandidateQuery { key: &key, kinds: KindSet::ALL, source: &en, target: &en };
    for cutoff in [0.3, 0.95] {
        let mut sink = Collect::new(cutoff);
        ix.offer(&q, &|_| true, &mut sink);
        assert_eq!(sink.seen.first().map(|(id, _)| id.0), Some(1), "cut-off {cutoff}");
    }
}

#[test]
fn settling_shortens_tails_and_changes_no_answer() {
    let words = ["open", "the", "file", "save", "all", "close", "window", "new", "tab", "print"];
    let mut ix = GramIndex::new();
    for i in 0..3000usize {
        let text: Vec<&str> = (0..2 + i % 5).map(|k| words[(i * 3 + k * 7 + i / 13) % words.len()]).collect();
        // Numbered, so every key has a text of its own and is listed.
        ix.add(EntryId(i as i64 + 1), 0, &Keys::of(&[Run::text(format!("{} {i}", text.join(" ")))]));
    }
    let en = Locale::parse("en").unwrap();
    let offers = |ix: &GramIndex| {
        ["open the file", "save all tab", "close new window print"]
            .iter()
            .map(|query| {
                let key = normalize_text(query);
                let q = CandidateQuery { key: &key, kinds: KindSet::ALL, source: &en, target: &en };
                let mut sink = Collect::new(0.5);
                ix.offer(&q, &|_| true, &mut sink);
                sink.seen
            })
            .collect::<Vec<_>>()
    };
    let tail = |p: &Posting| p.ids.len() - p.sorted;
    assert!(ix.postings.values().any(|p| tail(p) > settled_tail(p.sorted)), "unsettled before");
    let before = offers(&ix);
    ix.settle();
    assert!(ix.postings.values().all(|p| tail(p) <= settled_tail(p.sorted)));
    assert!(ix.unsettled.is_empty());
    assert_eq!(offers(&ix), before);
}

#[test]
fn posting_windows_hold_exactly_the_keys_in_range() {
    let mut p = Posting::default();
    let mut all: Vec<(u32, u16)> = Vec::new();
    let mut x = 7u32;
    for d in 0..5000u32 {
        x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
        // Lengths past the directory's end too.
        let len = ((x >> 16) % 900) as u16;
        p.push(d, len);
        all.push((d, len));
    }
    assert!(!p.starts.is_empty(), "a long list has a directory");
    for (lo, hi) in [
        (0, 0),
        (0, 299),
        (10, 20),
        (150, 150),
        (299, 400),
        (301, 500),
        (20, 10),
        (500, 700),
        (511, 513),
        (700, 5000),
        (899, 899),
        (900, 1000),
    ] {
        let (ids, lens, tail, tail_lens) = p.window(lo, hi);
        assert!(lens.iter().all(|&l| (lo..=hi).contains(&usize::from(l))));
        let mut got: Vec<u32> = ids.to_vec();
        got.extend(
            tail.iter()
                .zip(tail_lens)
                .filter(|&(_, &l)| (lo..=hi).contains(&usize::from(l)))
                .map(|(&d, _)| d),
        );
        got.sort_unstable();
        let want: Vec<u32> =
            all.iter().filter(|&&(_, l)| (lo..=hi).contains(&usize::from(l))).map(|&(d, _)| d).collect();
        assert_eq!(got, want, "window {lo}..={hi}");
    }
}

#[test]
fn many_keys_of_one_bound_are_offered_by_key_number() {
    // A thousand keys one substitution from the query at the same place (one bound),
    // numbered among keys of two substitutions (a lower bound): enough of one bound,
    // dense enough among the key numbers, for the walk to order them through its bitmap.
    let query = "abcdefghijklmnopqrst";
    let with = |at: &[usize], c: char| -> String {
        query.chars().enumerate().map(|(i, q)| if at.contains(&i) { c } else { q }).collect()
    };
    let mut ix = GramIndex::new();
    let mut near = Vec::new();
    for i in 0..3000u32 {
        let c = char::from_u32(0x4E00 + i).unwrap();
        let (text, is_near) = if i % 3 == 1 { (with(&[5, 12], c), false) } else { (with(&[9], c), true) };
        ix.add(EntryId(i64::from(i) + 1), 0, &Keys::of(&[Run::text(text)]));
        if is_near {
            near.push(EntryId(i64::from(i) + 1));
        }
    }
    let en = Locale::parse("en").unwrap();
    let offers = |query: &str, max: usize| {
        let key = normalize_text(query);
        let q = CandidateQuery { key: &key, kinds: KindSet::ALL, source: &en, target: &en };
        let mut sink = Collect::new(0.5);
        sink.max = max;
        ix.offer(&q, &|_| true, &mut sink);
        sink.seen.into_iter().map(|(id, _)| id).collect::<Vec<_>>()
    };
    let all = offers(query, usize::MAX);
    assert_eq!(all.len(), 3000);
    assert_eq!(all[..near.len()], near[..], "the keys of the best bound, by number");
    let mut far: Vec<EntryId> = all[near.len()..].to_vec();
    far.sort_unstable();
    assert_eq!(all[near.len()..], far[..], "then the next bound's, by number");
    for max in [300, 1999, 2500] {
        assert_eq!(offers(query, max), all[..max], "max {max}");
    }
    // A walk stopped inside a bound leaves nothing behind for the next query on the
    // thread (whose best bound is the other keys'): it offers what a fresh thread does.
    let other = with(&[5, 12], 'x');
    let fresh = std::thread::scope(|s| s.spawn(|| offers(&other, usize::MAX)).join().unwrap());
    assert_eq!(offers(query, 300).len(), 300);
    assert_eq!(offers(&other, usize::MAX), fresh);
}

#[test]
fn a_query_repeating_its_grams_does_not_offer_keys_that_share_none() {
    // Seven distinct grams over 23 positions: counted by distinct grams, a key sharing
    // none could reach 0.86 and every key of the window was offered; it must lack all 23
    // positions, at least 8 edits, 0.62 at best.
    let query = "xyz".repeat(7);
    let mut ix = GramIndex::new();
    let near = format!("{}xya", "xyz".repeat(6));
    ix.add(EntryId(1), 0, &Keys::of(&[Run::text(near.as_str())]));
    for i in 0..50usize {
        let far: String = "abcdefghijklmnopqrstuvw".chars().cycle().skip(i % 23).take(21).collect();
        ix.add(EntryId(100 + i as i64), 0, &Keys::of(&[Run::text(far)]));
    }
    let en = Locale::parse("en").unwrap();
    let key = normalize_text(&query);
    let q = CandidateQuery { key: &key, kinds: KindSet::ALL, source: &en, target: &en };
    let mut sink = Collect::new(0.7);
    ix.offer(&q, &|_| true, &mut sink);
    assert_eq!(sink.seen, vec![(EntryId(1), near.clone())]);
    // Lower, where such a key could reach, it is offered.
    let mut sink = Collect::new(0.5);
    ix.offer(&q, &|_| true, &mut sink);
    assert_eq!(sink.seen.len(), 51);
}

#[test]
fn the_candidate_limit_grows_with_the_square_root_of_a_large_index() {
    use super::walk::candidate_limit;
    // Up to a million keys, the caller's limit; exhaustive stays exhaustive.
    assert_eq!(candidate_limit(150, 363_692), 150);
    assert_eq!(candidate_limit(150, 1_000_000), 150);
    assert_eq!(candidate_limit(usize::MAX, 40_000_000), usize::MAX);
    // Past it, the square root of the index's size in millions.
    assert_eq!(candidate_limit(150, 4_000_000), 300);
    assert_eq!(candidate_limit(150, 2_000_000), 213);
    assert_eq!(candidate_limit(150, 10_000_000), 475);
    assert_eq!(candidate_limit(0, 9_000_000), 0);
}

proptest::proptest! {
    #[test]
    fn every_key_that_reaches_the_cutoff_is_offered(
        keys in proptest::collection::vec("(ab|ba|abc| a|x){1,12}", 1..40),
        query in "(ab|ba|abc| a|x){1,12}",
        cutoff in proptest::sample::select(vec![0.4, 0.6, 0.7, 0.85]),
    ) {
        // Texts of a few repeated pieces: grams repeat within the query and the keys.
        let mut ix = GramIndex::new();
        for (i, t) in keys.iter().enumerate() {
            ix.add(EntryId(i as i64 + 1), 0, &Keys::of(&[Run::text(t.as_str())]));
        }
        let en = Locale::parse("en").unwrap();
        let key = normalize_text(&query);
        let q = CandidateQuery { key: &key, kinds: KindSet::ALL, source: &en, target: &en };
        let mut sink = Collect::new(cutoff);
        ix.offer(&q, &|_| true, &mut sink);
        for (i, t) in keys.iter().enumerate() {
            let id = EntryId(i as i64 + 1);
            if similarity(&key, &normalize_text(t)) + 1e-9 >= cutoff {
                proptest::prop_assert!(sink.seen.iter().any(|(s, _)| *s == id), "{t:?} not offered for {key:?}");
            }
        }
    }
}

#[test]
fn a_streamed_build_writes_the_file_of_the_index_built_in_memory() {
    use crate::index::locale_set::LocaleSets;
    use crate::model::run::Code;
    let words = ["open", "the", "file", "save", "all", "close", "window", "é", "日本語", "tab", "%s"];
    let mut seed = 7u64;
    let mut next = move |n: usize| {
        seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        (seed >> 33) as usize % n
    };
    // Enough keys for lists with a length directory, texts repeated (chains), keys of
    // several kinds, locale sets past the hints' 255, and entries out of order at the end.
    let mut variants: Vec<(EntryId, u32, Keys)> = (0..3_000)
        .map(|i| {
            let n = 1 + next(8);
            let text: Vec<&str> = (0..n).map(|_| words[next(words.len())]).collect();
            let mut runs = vec![Run::text(text.join(" "))];
            if next(4) == 0 {
                runs.push(Run::Ph(Code::new("1").equiv("{0}").kind("x-ph")));
            }
            let group = if next(50) == 0 { 300 } else { next(4) as u32 };
            (EntryId(i as i64 + 1), group, Keys::of(&runs))
        })
        .collect();
    variants.push((EntryId(2), 1, Keys::of(&[Run::text("save the file again")])));
    variants.push((EntryId(1), 0, Keys::of(&[Run::text("open the file")])));
    let mut sets = LocaleSets::default();
    let en = Locale::parse("en").unwrap();
    let id = sets.locale_id(&en);
    sets.set_id(&[id]);
    let meta = FileMeta { seq: 3, eid: 3_000, key_version: 1, locale: "en".into(), token: "m#9".into() };
    let dir = std::env::temp_dir().join(format!("cmem-stream-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let expected = GramIndex::build_in_parts(&variants, 700).to_file(&sets, &meta).unwrap();
    assert_eq!(expected, GramIndex::build_in_parts(&variants, 0).to_file(&sets, &meta).unwrap());
    // One run in memory, a few runs, and a run per key.
    for run in [usize::MAX, 10_000, 1] {
        let mut stream = StreamBuild::with_run_size(&dir.join("index"), run).unwrap();
        for (entry, group, keys) in &variants {
            stream.add(*entry, *group, keys).unwrap();
        }
        let mut out = std::io::Cursor::new(Vec::new());
        stream.finish(&sets, &meta, &mut out).unwrap();
        let out = out.into_inner();
        assert_eq!(out.len(), expected.len(), "run size {run}");
        assert!(out == expected, "run size {run}: the files differ");
    }
    // The scratch files are gone.
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
    std::fs::remove_dir_all(&dir).unwrap();
}
