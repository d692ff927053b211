//! [`Memories`]: one lookup over an ordered set of memories, each with a name, a role
//! (read or write), a priority and a penalty; and which of them a write goes to.
//!
//! The ranking is core's ([`cmem_core::lookup_several`]); this module names the
//! memories, opens them and chooses the one written.

use std::fmt;
use std::str::FromStr;

use cmem_core::{
    lookup_several, ContentMemory, Error, ErrorKind, LookupOptions, LookupRequest, Match, Result, SourceRank,
};

use crate::address::Address;
use crate::answer::LookupAnswer;
use crate::memory::{Memory, OpenOptions};
use crate::read;

/// What a memory of several is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Role {
    /// Looked up, never written.
    Read,
    /// Looked up and written (the default).
    #[default]
    Write,
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Role::Read => "read",
            Role::Write => "write",
        })
    }
}

/// One memory of several as a user names it:
/// `[NAME=]ADDRESS[,role=read|write][,penalty=POINTS][,priority=N]`.
///
/// The name defaults to the address's file stem (`client.db` → `client`) or database
/// name; the role to `write`; the penalty to 0 points; the priority to the memory's
/// place in the list (1 for the first). An address that itself holds `=` before any `/`
/// is written with a leading `./` (or `sqlite:`), so it is not read as a name.
///
/// ```
/// use cmem::{MemorySpec, Role};
///
/// let spec: MemorySpec = "client=shared/client.db,penalty=5,role=read".parse()?;
/// assert_eq!((spec.name.as_str(), spec.address.as_str()), ("client", "shared/client.db"));
/// assert_eq!((spec.role, spec.penalty, spec.priority), (Role::Read, 5, None));
///
/// let plain: MemorySpec = "project.db".parse()?;
/// assert_eq!((plain.name.as_str(), plain.role, plain.penalty), ("project", Role::Write, 0));
/// assert!("x.db,penalty=101".parse::<MemorySpec>().is_err());
/// # Ok::<(), cmem::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct MemorySpec {
    /// The name matches and messages give it.
    pub name: String,
    /// Its address ([`Memory::open`]).
    pub address: String,
    /// Read only, or written too.
    pub role: Role,
    /// Points each of its matches costs (0–100).
    pub penalty: u8,
    /// Between equal scores the lower priority first (`None`: its place in the list).
    pub priority: Option<u32>,
}

crate::setters!(MemorySpec { role: Role, penalty: u8 });

impl MemorySpec {
    /// The memory at `address`, named by it, writable, without a penalty.
    ///
    /// # Errors
    /// An address from which no name can be made (give one with [`name`](Self::name)).
    pub fn new(address: &str) -> Result<MemorySpec> {
        Ok(MemorySpec {
            name: default_name(address)?,
            address: address.to_owned(),
            role: Role::Write,
            penalty: 0,
            priority: None,
        })
    }

    /// Sets [`name`](Self::name).
    #[must_use]
    pub fn name(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }

    /// Sets [`priority`](Self::priority).
    #[must_use]
    pub fn priority(mut self, priority: u32) -> Self {
        self.priority = Some(priority);
        self
    }
}

/// A name: a letter or digit, then letters, digits, `_`, `-`, `.`.
fn is_name(s: &str) -> bool {
    s.chars().next().is_some_and(|c| c.is_ascii_alphanumeric())
        && s.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
}

/// The name of the memory at `address`: its file stem, or its database's name.
fn default_name(address: &str) -> Result<String> {
    let stem = match Address::parse(address)? {
        Address::Sqlite(path) => path.file_stem().map(|s| s.to_string_lossy().into_owned()),
        Address::InMemory => Some("memory".to_owned()),
        Address::Postgres(url) => {
            let path = url.split_once("://").map_or("", |(_, rest)| rest);
            let db = path.split_once('/').map_or("", |(_, db)| db);
            Some(db.split(['?', '#']).next().unwrap_or("").to_owned())
        }
    };
    match stem.filter(|s| is_name(s)) {
        Some(name) => Ok(name),
        None => Err(Error::new(
            ErrorKind::InvalidQuery,
            format!("memory {address:?}: no name can be made of it; write NAME={address}"),
        )),
    }
}

impl FromStr for MemorySpec {
    type Err = Error;

    fn from_str(text: &str) -> Result<MemorySpec> {
        let invalid = |why: String| Error::new(ErrorKind::InvalidQuery, format!("memory {text:?}: {why}"));
        // The settings are the trailing `,KEY=VALUE` parts whose key is a setting; what
        // is left is the address (which may hold commas and `=` of its own).
        let mut head = text;
        let mut settings = Vec::new();
        while let Some((rest, last)) = head.rsplit_once(',') {
            match last.split_once('=') {
                Some((key, value)) if matches!(key.trim(), "role" | "penalty" | "priority") => {
                    settings.push((key.trim(), value.trim()));
                    head = rest;
                }
                _ => break,
            }
        }
        let (name, address) = match head.split_once('=') {
            Some((name, address)) if is_name(name) && !name.contains('/') => (Some(name), address),
            _ => (None, head),
        };
        if address.is_empty() {
            return Err(invalid("no address".to_owned()));
        }
        Address::parse(address)?;
        let mut spec = match name {
            Some(n) => MemorySpec {
                name: n.to_owned(),
                address: address.to_owned(),
                role: Role::Write,
                penalty: 0,
                priority: None,
            },
            None => MemorySpec::new(address)?,
        };
        for (key, value) in settings.into_iter().rev() {
            match key {
                "role" => {
                    spec.role = match value {
                        "read" => Role::Read,
                        "write" => Role::Write,
                        other => return Err(invalid(format!("role {other:?} is not read or write"))),
                    }
                }
                "penalty" => {
                    spec.penalty = value
                        .parse::<u8>()
                        .ok()
                        .filter(|p| *p <= 100)
                        .ok_or_else(|| invalid(format!("penalty {value:?} is not 0–100 points")))?;
                }
                _ => {
                    spec.priority = Some(value.parse::<u32>().ok().filter(|p| *p > 0).ok_or_else(|| {
                        invalid(format!("priority {value:?} is not a whole number of 1 or more"))
                    })?);
                }
            }
        }
        Ok(spec)
    }
}

/// A memory of [`Memories`]: its spec and the memory opened.
#[derive(Debug)]
#[non_exhaustive]
pub struct Member {
    /// How the user named and ranked it (its priority settled).
    pub spec: MemorySpec,
    /// The memory.
    pub memory: Memory,
}

/// An ordered set of named memories looked up as one: matches of all are merged by
/// score after each memory's penalty, then priority, then the evidence rules, and each
/// names its memory. Writes go to the one write memory, or the one the caller chose.
///
/// ```
/// use cmem::{Memories, Memory, MemorySpec, OpenOptions, Role};
///
/// let open = |tm: &'static str| -> Result<Memory, Box<dyn std::error::Error>> {
///     let m = Memory::open_with("memory:", &OpenOptions::new().create(true))?;
///     m.import_reader("tm.jsonl", tm.as_bytes())?;
///     Ok(m)
/// };
/// let project = open(r#"{"source":"Save","target":"Speichern","source_locale":"en","target_locale":"de"}"#)?;
/// let client = open(r#"{"source":"Save","target":"Sichern","source_locale":"en","target_locale":"de"}"#)?;
/// let memories = Memories::new(vec![
///     (MemorySpec::new("memory:")?.name("project"), project),
///     (MemorySpec::new("memory:")?.name("client").role(Role::Read).penalty(5), client),
/// ])?;
/// let found = memories.lookup_text("Save", "en", "de")?;
/// assert_eq!((found[0].0, found[0].1.adapted_text().as_str()), ("project", "Speichern"));
/// assert_eq!((found[1].0, found[1].1.adapted_text().as_str()), ("client", "Sichern"));
/// assert_eq!(memories.writer(None)?.spec.name, "project");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct Memories {
    members: Vec<Member>,
}

impl Memories {
    /// The memories `members`, in order; a member without a priority gets its place
    /// (1 for the first).
    ///
    /// # Errors
    /// No member, or two with one name.
    pub fn new(members: Vec<(MemorySpec, Memory)>) -> Result<Memories> {
        if members.is_empty() {
            return Err(Error::new(ErrorKind::InvalidQuery, "no memory given"));
        }
        let mut out: Vec<Member> = Vec::with_capacity(members.len());
        for (place, (mut spec, memory)) in members.into_iter().enumerate() {
            if out.iter().any(|m| m.spec.name == spec.name) {
                return Err(Error::new(
                    ErrorKind::InvalidQuery,
                    format!("two memories are named {:?}; name one of them NAME=ADDRESS", spec.name),
                ));
            }
            spec.priority = Some(spec.priority.unwrap_or(u32::try_from(place + 1).unwrap_or(u32::MAX)));
            out.push(Member { spec, memory });
        }
        Ok(Memories { members: out })
    }

    /// Opens every memory of `specs` with `options`, those of role `read` read-only.
    ///
    /// # Errors
    /// As [`Memory::open_with`] (the first that fails), and as [`new`](Self::new).
    pub fn open(specs: &[MemorySpec], options: &OpenOptions) -> Result<Memories> {
        let mut members = Vec::with_capacity(specs.len());
        for spec in specs {
            let options =
                if spec.role == Role::Read { options.clone().read_only(true) } else { options.clone() };
            members.push((spec.clone(), Memory::open_with(&spec.address, &options)?));
        }
        Memories::new(members)
    }

    /// The memories, in the order given.
    pub fn members(&self) -> &[Member] {
        &self.members
    }

    /// The memory named `name`.
    pub fn get(&self, name: &str) -> Option<&Member> {
        self.members.iter().find(|m| m.spec.name == name)
    }

    /// The memory a write goes to: `chosen` when the caller named one, else the one
    /// memory of role `write` ([`choose_writer`]).
    ///
    /// # Errors
    /// As [`choose_writer`].
    pub fn writer(&self, chosen: Option<&str>) -> Result<&Member> {
        let specs: Vec<&MemorySpec> = self.members.iter().map(|m| &m.spec).collect();
        let name = choose_writer(&specs, chosen)?.name.clone();
        self.get(&name)
            .ok_or_else(|| Error::new(ErrorKind::InvalidQuery, format!("no memory is named {name:?}")))
    }

    /// Looks `req` up in every memory and merges the matches
    /// ([`cmem_core::lookup_several`]), each with the name of its memory.
    ///
    /// # Errors
    /// As [`Memory::lookup`], from the first memory that fails.
    pub fn lookup(&self, req: &LookupRequest) -> Result<Vec<(&str, Match)>> {
        let all: Vec<usize> = (0..self.members.len()).collect();
        self.lookup_among(&all, req)
    }

    /// Looks `req` up in the members at positions `selection` only (a server's request
    /// that names some of its memories), ranked as [`lookup`](Self::lookup) ranks all.
    ///
    /// # Errors
    /// A position out of range, or as [`lookup`](Self::lookup).
    pub fn lookup_among(&self, selection: &[usize], req: &LookupRequest) -> Result<Vec<(&str, Match)>> {
        let mut sources: Vec<(&dyn ContentMemory, SourceRank)> = Vec::with_capacity(selection.len());
        for &i in selection {
            let m = self.members.get(i).ok_or_else(|| {
                Error::new(
                    ErrorKind::InvalidQuery,
                    format!("no memory at position {i} of {}", self.members.len()),
                )
            })?;
            sources.push((m.memory.store(), rank(&m.spec)));
        }
        Ok(lookup_several(&sources, req)?
            .into_iter()
            .map(|(k, m)| (self.members[selection[k]].spec.name.as_str(), m))
            .collect())
    }

    /// Looks up plain text from locale `from` to `to`, recognized as the first memory's
    /// imports were ([`Memory::lookup_text`]).
    ///
    /// # Errors
    /// An invalid locale tag, or as [`lookup`](Self::lookup).
    pub fn lookup_text(&self, text: &str, from: &str, to: &str) -> Result<Vec<(&str, Match)>> {
        read::lookup_text(self, text, (from, to), LookupOptions::default())
    }

    /// Looks `req` up and returns the [`LookupAnswer`], each match naming its memory.
    ///
    /// # Errors
    /// As [`lookup`](Self::lookup).
    pub fn answer(&self, req: &LookupRequest) -> Result<LookupAnswer> {
        read::answer(self, req)
    }

    /// Answers many lookups, lazily and in order, as [`Memory::lookup_batch`] does for
    /// one memory: every memory's candidate index of a source locale is brought up to
    /// date before its first lookup.
    ///
    /// # Errors
    /// Per item: the caller's error, or as [`answer`](Self::answer) and
    /// [`warm`](Self::warm).
    pub fn lookup_batch<'m, I, E>(
        &'m self,
        requests: I,
    ) -> impl Iterator<Item = std::result::Result<LookupAnswer, E>> + 'm
    where
        I: IntoIterator<Item = std::result::Result<LookupRequest, E>>,
        I::IntoIter: 'm,
        E: From<Error>,
    {
        read::lookup_batch(self, requests)
    }

    /// Brings every memory's candidate index of `source` up to date
    /// ([`Memory::warm`]).
    ///
    /// # Errors
    /// As [`Memory::warm`], from the first memory that fails.
    pub fn warm(&self, source: &cmem_core::Locale) -> Result<()> {
        self.members.iter().try_for_each(|m| m.memory.warm(source))
    }
}

/// The memory of `specs` a write goes to: `chosen` when the caller named one, else the
/// one of role `write`. The memories need not be open: a program that writes opens
/// only this one.
///
/// ```
/// use cmem::{choose_writer, MemorySpec, Role};
///
/// let (a, b) = (MemorySpec::new("a.db")?, MemorySpec::new("b.db")?);
/// let err = choose_writer(&[&a, &b], None).unwrap_err();
/// assert!(err.message().contains("2 memories may be written (a, b) and none was chosen"), "{err}");
/// assert_eq!(choose_writer(&[&a, &b], Some("b"))?.name, "b");
/// let read = b.clone().role(Role::Read);
/// assert_eq!(choose_writer(&[&a, &read], None)?.name, "a");
/// assert!(choose_writer(&[&a, &read], Some("b")).is_err());
/// # Ok::<(), cmem::Error>(())
/// ```
///
/// # Errors
/// `chosen` names no memory or one of role `read`; none was chosen and no memory, or
/// more than one, is of role `write`. Each message names the memories.
pub fn choose_writer<'s>(specs: &[&'s MemorySpec], chosen: Option<&str>) -> Result<&'s MemorySpec> {
    let refuse = |why: String| Error::new(ErrorKind::InvalidQuery, why);
    let names = |role: Option<Role>| {
        let names: Vec<&str> =
            specs.iter().filter(|s| role.is_none_or(|r| s.role == r)).map(|s| s.name.as_str()).collect();
        names.join(", ")
    };
    if let Some(name) = chosen {
        let spec = specs
            .iter()
            .find(|s| s.name == name)
            .ok_or_else(|| refuse(format!("no memory is named {name:?} (the memories: {})", names(None))))?;
        if spec.role == Role::Read {
            return Err(refuse(format!("memory {name:?} is read-only (role=read); it cannot be written")));
        }
        return Ok(spec);
    }
    let writers: Vec<&'s MemorySpec> = specs.iter().copied().filter(|s| s.role == Role::Write).collect();
    match writers.as_slice() {
        [one] => Ok(one),
        [] => Err(refuse(format!(
            "none of the memories ({}) may be written: give the one to write role=write",
            names(None)
        ))),
        many => Err(refuse(format!(
            "{} memories may be written ({}) and none was chosen: choose one, or give the others role=read",
            many.len(),
            names(Some(Role::Write))
        ))),
    }
}

fn rank(spec: &MemorySpec) -> SourceRank {
    SourceRank::new(spec.priority.unwrap_or(u32::MAX)).penalty(spec.penalty)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_keep_addresses_with_their_own_commas_and_equals() {
        let spec: MemorySpec = "postgres://tm@db.example/shared?sslmode=require,penalty=3".parse().unwrap();
        assert_eq!(
            (spec.name.as_str(), spec.address.as_str(), spec.penalty),
            ("shared", "postgres://tm@db.example/shared?sslmode=require", 3)
        );
        let spec: MemorySpec = "ref=sqlite:a,b.db,role=read,priority=2".parse().unwrap();
        assert_eq!((spec.name.as_str(), spec.address.as_str()), ("ref", "sqlite:a,b.db"));
        assert_eq!((spec.role, spec.priority), (Role::Read, Some(2)));
        // A path holding `=` is an address when written with a directory; a name that
        // cannot be made of its stem is asked for.
        let err = "./a=b.db".parse::<MemorySpec>().unwrap_err().to_string();
        assert!(err.contains("no name can be made of it; write NAME=./a=b.db"), "{err}");
        let spec: MemorySpec = "ab=./a=b.db".parse().unwrap();
        assert_eq!((spec.name.as_str(), spec.address.as_str()), ("ab", "./a=b.db"));
    }

    #[test]
    fn bad_specs_say_what_is_wrong() {
        for (text, says) in [
            ("x.db,role=admin", "role \"admin\" is not read or write"),
            ("x.db,penalty=-1", "penalty \"-1\" is not 0–100 points"),
            ("x.db,priority=0", "priority \"0\" is not a whole number of 1 or more"),
            ("name=", "no address"),
        ] {
            let err = text.parse::<MemorySpec>().unwrap_err().to_string();
            assert!(err.contains(says), "{text}: {err}");
        }
    }

    #[test]
    fn memories_refuse_two_of_one_name() {
        let open = || Memory::open_with("memory:", &OpenOptions::new().create(true)).unwrap();
        let spec = || MemorySpec::new("memory:").unwrap();
        let err = Memories::new(vec![(spec(), open()), (spec(), open())]).unwrap_err();
        assert!(err.to_string().contains("two memories are named \"memory\""), "{err}");
        assert!(Memories::new(Vec::new()).is_err());
        let both = Memories::new(vec![(spec(), open()), (spec().name("other").priority(7), open())]).unwrap();
        let priorities: Vec<Option<u32>> = both.members().iter().map(|m| m.spec.priority).collect();
        assert_eq!(priorities, [Some(1), Some(7)]);
        assert!(both.writer(None).is_err() && both.writer(Some("other")).is_ok());
    }
}
