//! The SQL schema of the database stores, declared once (docs/matching.md §8): tables, columns with
//! logical types, indexes and the numbered, append-only migrations, emitted as SQLite or
//! PostgreSQL DDL. No database driver here: the stores run the text this module emits.
//!
//! Migrations 1–5 follow the design note: 1 the tables, 2 the trigram index for fuzzy
//! candidates, 3 the word index for concordance search, 4 `tm_entries.point`,
//! 5 `tm_entries.unit` and its index; beyond it, 6 `tm_entries.approvals` and 7 the
//! change log with its triggers and the memory token, 8 the word models
//! (`tm_word_models`), 9 the counts the writes keep (`tm_counts`). A migration, once
//! released, is never edited; a change is a new migration.

use std::fmt::Write as _;

/// The table recording the schema version and the key version.
pub const META_TABLE: &str = "tm_meta";
/// The key under which [`META_TABLE`] holds the schema version.
pub const META_SCHEMA_VERSION: &str = "schema_version";
/// The key under which [`META_TABLE`] holds [`KEY_VERSION`](crate::model::key::KEY_VERSION).
pub const META_KEY_VERSION: &str = "key_version";
/// The key under which [`META_TABLE`] holds the memory's token (see [`Step::MemoryToken`]).
pub const META_MEMORY_TOKEN: &str = "memory_token";
/// The log of changed entries (see [`Step::ChangeLog`]).
pub const CHANGES_TABLE: &str = "tm_changes";
/// The counts the writes keep (see [`Step::Counts`]).
pub const COUNTS_TABLE: &str = "tm_counts";
/// The FTS5 table of trigrams over the three keys (SQLite).
pub const TRIGRAM_TABLE: &str = "tm_variant_trigram";
/// The FTS5 table of words over `text` (SQLite).
pub const SEARCH_TABLE: &str = "tm_variant_search";

/// A SQL dialect.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Dialect {
    /// SQLite 3.43 or newer with FTS5 (the bundled build).
    Sqlite,
    /// PostgreSQL 13 or newer with the `pg_trgm` extension.
    Postgres,
}

/// A column's logical type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ColumnType {
    /// A generated, never reused 64-bit primary key.
    Id,
    /// A generated 64-bit primary key that may be reused after deletion (row ids).
    RowId,
    /// A 64-bit integer.
    Integer,
    /// Text.
    Text,
    /// JSON text (`JSONB` where the dialect has it).
    Json,
}

/// One column.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Column {
    /// Its name.
    pub name: &'static str,
    /// Its logical type.
    pub ty: ColumnType,
    /// False when it may hold NULL.
    pub not_null: bool,
    /// The SQL default, if any (the same literal in both dialects).
    pub default: Option<&'static str>,
    /// The table whose `id` it references; rows go when that row goes.
    pub references: Option<&'static str>,
    /// True for a non-generated primary key.
    pub primary_key: bool,
}

const fn col(name: &'static str, ty: ColumnType) -> Column {
    Column { name, ty, not_null: true, default: None, references: None, primary_key: false }
}

const fn with_default(c: Column, default: &'static str) -> Column {
    Column { default: Some(default), ..c }
}

const fn refs(c: Column, table: &'static str) -> Column {
    Column { references: Some(table), ..c }
}

/// One table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Table {
    /// Its name.
    pub name: &'static str,
    /// Its columns, in order.
    pub columns: &'static [Column],
}

/// How an index is built.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum IndexKind {
    /// An ordered (B-tree) index on the columns.
    Ordered,
    /// An index for equality on possibly long text: a B-tree on all the columns in
    /// SQLite; a hash index on the first column in PostgreSQL, whose B-tree entries are
    /// capped at about 2.7 KB.
    Equality,
}

/// One index.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Index {
    /// Its name.
    pub name: &'static str,
    /// The table.
    pub table: &'static str,
    /// The columns.
    pub columns: &'static [&'static str],
    /// How it is built.
    pub kind: IndexKind,
    /// Only the rows where this predicate holds (a partial index), the same SQL in both
    /// dialects; `None` for every row.
    pub partial: Option<&'static str>,
}

/// One step of a migration.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Step {
    /// Creates a table.
    CreateTable(&'static Table),
    /// Adds a column to a table.
    AddColumn {
        /// The table.
        table: &'static str,
        /// The column.
        column: Column,
    },
    /// Creates an index.
    CreateIndex(&'static Index),
    /// The trigram index for fuzzy candidates over `columns` of `table`: an FTS5 table
    /// `name` with `tokenize='trigram'` (contentless, rowid = the row's id) in SQLite;
    /// `pg_trgm` GIN indexes on each column in PostgreSQL.
    TrigramIndex {
        /// The FTS5 table (SQLite) or the prefix of the index names (PostgreSQL).
        name: &'static str,
        /// The indexed table.
        table: &'static str,
        /// The indexed columns.
        columns: &'static [&'static str],
    },
    /// A log of changed entries for in-process indexes: a row in `log` (its `entry_id`)
    /// each time a row of `table` is deleted or one of `columns` updated. Inserts are
    /// not logged (entries are numbered upwards and never reused, so what is new is
    /// found by number).
    ChangeLog {
        /// The log table (created by an earlier step).
        log: &'static str,
        /// The watched table.
        table: &'static str,
        /// The watched columns.
        columns: &'static [&'static str],
    },
    /// A random token naming this memory in [`META_TABLE`] under [`META_MEMORY_TOKEN`]:
    /// files kept beside a memory (a persisted index) are used only with the memory
    /// holding their token.
    MemoryToken,
    /// What `stats` reports, counted as it is written: a table `table` of
    /// `(source, target, n)` rows, filled from the rows already stored; from then on
    /// each store adds and takes off counts ([`count_sql`], [`counted_rows`]) in the
    /// transaction that writes or deletes the rows they count, so a rolled-back or
    /// killed write leaves them as it leaves the rows. Row `('', '')` counts entries;
    /// `(L, '')` variants of locale `L`; `(L, M)` the pairs of an entry's first variant
    /// in `L` with another of its variants in `M`. A count that fell to zero stays as a
    /// row of 0.
    Counts {
        /// The table created.
        table: &'static str,
    },
    /// The word index for concordance search over `column` of `table`: an FTS5 table
    /// `name` (external content, `unicode61 remove_diacritics 2`, BM25) in SQLite; a
    /// generated `search_tsv` column with a GIN index in PostgreSQL.
    WordIndex {
        /// The FTS5 table (SQLite) or the prefix of the index name (PostgreSQL).
        name: &'static str,
        /// The indexed table.
        table: &'static str,
        /// The indexed text column.
        column: &'static str,
    },
}

/// One numbered migration.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Migration {
    /// Its number; migrations run in order, each once.
    pub version: u32,
    /// What it does.
    pub description: &'static str,
    /// Its steps.
    pub steps: &'static [Step],
}

/// The meta table: key/value pairs (schema and key versions).
pub const TM_META: Table = Table {
    name: META_TABLE,
    columns: &[Column { primary_key: true, ..col("key", ColumnType::Text) }, col("value", ColumnType::Text)],
};

/// Entries as created by migration 1 (`point` and `unit` come with 4 and 5).
pub const TM_ENTRIES: Table = Table {
    name: "tm_entries",
    columns: &[
        col("id", ColumnType::Id),
        with_default(col("project_id", ColumnType::Text), "''"),
        col("identity", ColumnType::Integer),
        with_default(col("metadata", ColumnType::Json), "'[]'"),
    ],
};

/// The stored forms of the structural and generalized keys: `None` (SQL `NULL`) where a
/// key equals the one before it (plain, then structural), in `tm_variants` and in a
/// trigram index alike, so text-only variants store and index their text once. Readers
/// resolve a `NULL` with `COALESCE(struct_key, plain)` and
/// `COALESCE(general_key, struct_key, plain)`.
pub fn stored_keys(k: &crate::model::key::Keys) -> (Option<&str>, Option<&str>) {
    let s = (k.structural != k.plain).then_some(k.structural.as_str());
    let g = (k.generalized != k.structural).then_some(k.generalized.as_str());
    (s, g)
}

/// Variants: one per locale of an entry, with its runs and the three keys.
///
/// `struct_key` is NULL when the structural key equals `plain`, and `general_key` when
/// the generalized key equals the structural one: most segments carry no codes, and
/// storing and indexing their text three times would double the database. The keys
/// are therefore `plain`, `COALESCE(struct_key, plain)` and
/// `COALESCE(general_key, struct_key, plain)`; the partial indexes hold only the keys
/// that differ.
pub const TM_VARIANTS: Table = Table {
    name: "tm_variants",
    columns: &[
        col("id", ColumnType::RowId),
        refs(col("entry_id", ColumnType::Integer), "tm_entries"),
        col("ord", ColumnType::Integer),
        col("locale", ColumnType::Text),
        col("runs", ColumnType::Json),
        col("plain", ColumnType::Text),
        Column { not_null: false, ..col("struct_key", ColumnType::Text) },
        Column { not_null: false, ..col("general_key", ColumnType::Text) },
        col("text", ColumnType::Text),
    ],
};

/// The change log: entries whose variants were deleted or re-keyed, by a number that
/// only grows (never reused).
pub const TM_CHANGES: Table = Table {
    name: CHANGES_TABLE,
    columns: &[col("seq", ColumnType::Id), col("entry_id", ColumnType::Integer)],
};

/// The table of word models (see [`TM_WORD_MODELS`]).
pub const WORD_MODELS_TABLE: &str = "tm_word_models";

/// Word models: one row per locale pair ([`crate::align::pair_key`]), the model in its
/// saved form ([`crate::align::WordModel::to_saved`]), replaced whole when trained again.
pub const TM_WORD_MODELS: Table = Table {
    name: WORD_MODELS_TABLE,
    columns: &[Column { primary_key: true, ..col("pair", ColumnType::Text) }, col("model", ColumnType::Text)],
};

/// Origins: the write events of an entry, oldest first by `seq`.
pub const TM_ORIGINS: Table = Table {
    name: "tm_origins",
    columns: &[
        col("id", ColumnType::RowId),
        refs(col("entry_id", ColumnType::Integer), "tm_entries"),
        col("seq", ColumnType::Integer),
        with_default(col("project_id", ColumnType::Text), "''"),
        with_default(col("context_fingerprint", ColumnType::Text), "''"),
        with_default(col("created_at", ColumnType::Text), "''"),
    ],
};

const IDX_IDENTITY: Index = Index {
    name: "tm_entries_identity",
    table: "tm_entries",
    columns: &["identity"],
    kind: IndexKind::Ordered,
    partial: None,
};
const IDX_VARIANT_ENTRY: Index = Index {
    name: "tm_variants_entry",
    table: "tm_variants",
    columns: &["entry_id", "ord"],
    kind: IndexKind::Ordered,
    partial: None,
};
const IDX_VARIANT_LOCALE: Index = Index {
    name: "tm_variants_locale",
    table: "tm_variants",
    columns: &["locale"],
    kind: IndexKind::Ordered,
    partial: None,
};
const IDX_PLAIN: Index = Index {
    name: "tm_variants_plain",
    table: "tm_variants",
    columns: &["plain", "locale"],
    kind: IndexKind::Equality,
    partial: None,
};
const IDX_STRUCT: Index = Index {
    name: "tm_variants_struct_key",
    table: "tm_variants",
    columns: &["struct_key", "locale"],
    kind: IndexKind::Equality,
    partial: Some("struct_key IS NOT NULL"),
};
const IDX_GENERAL: Index = Index {
    name: "tm_variants_general_key",
    table: "tm_variants",
    columns: &["general_key", "locale"],
    kind: IndexKind::Equality,
    partial: Some("general_key IS NOT NULL"),
};
const IDX_ORIGIN_ENTRY: Index = Index {
    name: "tm_origins_entry",
    table: "tm_origins",
    columns: &["entry_id", "seq"],
    kind: IndexKind::Ordered,
    partial: None,
};
/// The locales of first variants (entry sources): which source locales a memory holds,
/// read in a few index probes.
const IDX_SOURCE_LOCALE: Index = Index {
    name: "tm_variants_source_locale",
    table: "tm_variants",
    columns: &["locale"],
    kind: IndexKind::Ordered,
    partial: Some("ord = 0"),
};
const IDX_UNIT: Index = Index {
    name: "tm_entries_unit",
    table: "tm_entries",
    columns: &["unit"],
    kind: IndexKind::Ordered,
    partial: None,
};

/// Every migration, in order. Append only.
pub const MIGRATIONS: &[Migration] = &[
    Migration {
        version: 1,
        description: "entries, variants with their keys, origins, meta",
        steps: &[
            Step::CreateTable(&TM_META),
            Step::CreateTable(&TM_ENTRIES),
            Step::CreateTable(&TM_VARIANTS),
            Step::CreateTable(&TM_ORIGINS),
            Step::CreateIndex(&IDX_IDENTITY),
            Step::CreateIndex(&IDX_VARIANT_ENTRY),
            Step::CreateIndex(&IDX_VARIANT_LOCALE),
            Step::CreateIndex(&IDX_PLAIN),
            Step::CreateIndex(&IDX_STRUCT),
            Step::CreateIndex(&IDX_GENERAL),
            Step::CreateIndex(&IDX_ORIGIN_ENTRY),
        ],
    },
    Migration {
        version: 2,
        description: "trigram index on the keys for fuzzy candidates",
        steps: &[Step::TrigramIndex {
            name: TRIGRAM_TABLE,
            table: "tm_variants",
            columns: &["plain", "struct_key", "general_key"],
        }],
    },
    Migration {
        version: 3,
        description: "word index on the text for concordance search",
        steps: &[Step::WordIndex { name: SEARCH_TABLE, table: "tm_variants", column: "text" }],
    },
    Migration {
        version: 4,
        description: "tm_entries.point: where an answer was approved",
        steps: &[Step::AddColumn {
            table: "tm_entries",
            column: with_default(col("point", ColumnType::Text), "''"),
        }],
    },
    Migration {
        version: 5,
        description: "tm_entries.unit: the durable block identity, indexed for version chains",
        steps: &[
            Step::AddColumn {
                table: "tm_entries",
                column: with_default(col("unit", ColumnType::Text), "''"),
            },
            Step::CreateIndex(&IDX_UNIT),
        ],
    },
    Migration {
        version: 6,
        description: "tm_entries.approvals: how many times an answer was approved",
        steps: &[Step::AddColumn {
            table: "tm_entries",
            column: with_default(col("approvals", ColumnType::Integer), "1"),
        }],
    },
    Migration {
        version: 7,
        description: "tm_changes: deleted and re-keyed entries, so in-process indexes catch up; the memory \
                      token; an index of source locales",
        steps: &[
            Step::CreateTable(&TM_CHANGES),
            Step::ChangeLog {
                log: CHANGES_TABLE,
                table: "tm_variants",
                columns: &["locale", "plain", "struct_key", "general_key"],
            },
            Step::MemoryToken,
            Step::CreateIndex(&IDX_SOURCE_LOCALE),
        ],
    },
    Migration {
        version: 8,
        description: "tm_word_models: the word alignment models of locale pairs, for the word repair",
        steps: &[Step::CreateTable(&TM_WORD_MODELS)],
    },
    Migration {
        version: 9,
        description:
            "tm_counts: entries, variants and locale pairs counted by triggers as they are written, \
                      so stats read a few rows instead of joining every variant",
        steps: &[Step::Counts { table: COUNTS_TABLE }],
    },
];

/// The schema version this program writes: the last migration's number.
pub const SCHEMA_VERSION: u32 = 9;

/// The rows of [`COUNTS_TABLE`] (`source`, `target`) that an entry whose variants'
/// locales are `locales`, in order, counts once each: its variants' `(L, '')`, and its
/// first variant's pairs with the others. A store that keeps the counts itself adds one
/// to each as it writes an entry's variants and takes one off as it deletes them.
pub fn counted_rows<'a>(locales: &[&'a str]) -> Vec<(&'a str, &'a str)> {
    let mut rows: Vec<(&str, &str)> = locales.iter().map(|l| (*l, "")).collect();
    if let Some((first, rest)) = locales.split_first() {
        rows.extend(rest.iter().map(|l| (*first, *l)));
    }
    rows
}

/// The statement adding `?3` (`$3`) to the count of row (`?1`, `?2`) of [`COUNTS_TABLE`]:
/// the row `('', '')` for an entry, the rows of [`counted_rows`] for its variants.
pub fn count_sql(dialect: Dialect) -> String {
    let (a, b, c) = match dialect {
        Dialect::Sqlite => ("?1", "?2", "?3"),
        Dialect::Postgres => ("$1", "$2", "$3"),
    };
    format!(
        "INSERT INTO {COUNTS_TABLE} (source, target, n) VALUES ({a}, {b}, {c}) \
         ON CONFLICT (source, target) DO UPDATE SET n = {COUNTS_TABLE}.n + excluded.n"
    )
}

/// The statements of [`Step::Counts`].
fn counts_sql(table: &str, dialect: Dialect) -> Vec<String> {
    let integer = match dialect {
        Dialect::Sqlite => "INTEGER",
        Dialect::Postgres => "BIGINT",
    };
    vec![
        format!(
            "CREATE TABLE {table} (\n    source TEXT NOT NULL,\n    target TEXT NOT NULL,\n    n {integer} NOT NULL,\n    \
             PRIMARY KEY (source, target)\n)"
        ),
        format!("INSERT INTO {table} (source, target, n) SELECT '', '', COUNT(*) FROM tm_entries"),
        format!(
            "INSERT INTO {table} (source, target, n) SELECT locale, '', COUNT(*) FROM tm_variants GROUP BY locale"
        ),
        format!(
            "INSERT INTO {table} (source, target, n) SELECT a.locale, b.locale, COUNT(*) FROM tm_variants a \
             JOIN tm_variants b ON b.entry_id = a.entry_id AND b.ord > 0 WHERE a.ord = 0 \
             GROUP BY a.locale, b.locale"
        ),
    ]
}

fn column_sql(c: &Column, dialect: Dialect) -> String {
    let ty = match (c.ty, dialect) {
        (ColumnType::Id, Dialect::Sqlite) => "INTEGER PRIMARY KEY AUTOINCREMENT",
        (ColumnType::RowId, Dialect::Sqlite) => "INTEGER PRIMARY KEY",
        (ColumnType::Id | ColumnType::RowId, Dialect::Postgres) => {
            "BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY"
        }
        (ColumnType::Integer, Dialect::Sqlite) => "INTEGER",
        (ColumnType::Integer, Dialect::Postgres) => "BIGINT",
        (ColumnType::Text | ColumnType::Json, Dialect::Sqlite) => "TEXT",
        (ColumnType::Text, Dialect::Postgres) => "TEXT",
        (ColumnType::Json, Dialect::Postgres) => "JSONB",
    };
    let mut s = format!("{} {ty}", c.name);
    if c.primary_key {
        s.push_str(" PRIMARY KEY");
    }
    if c.not_null && !matches!(c.ty, ColumnType::Id | ColumnType::RowId) {
        s.push_str(" NOT NULL");
    }
    if let Some(d) = c.default {
        let _ = write!(s, " DEFAULT {d}");
    }
    if let Some(t) = c.references {
        let _ = write!(s, " REFERENCES {t}(id) ON DELETE CASCADE");
    }
    s
}

impl Step {
    /// The statements of this step in `dialect`, each without a trailing `;`.
    pub fn sql(&self, dialect: Dialect) -> Vec<String> {
        match *self {
            Step::CreateTable(t) => {
                let cols: Vec<String> = t.columns.iter().map(|c| column_sql(c, dialect)).collect();
                vec![format!("CREATE TABLE {} (\n    {}\n)", t.name, cols.join(",\n    "))]
            }
            Step::AddColumn { table, column } => {
                vec![format!("ALTER TABLE {table} ADD COLUMN {}", column_sql(&column, dialect))]
            }
            Step::CreateIndex(ix) => {
                let mut sql = match (ix.kind, dialect) {
                    (IndexKind::Equality, Dialect::Postgres) => format!(
                        "CREATE INDEX {} ON {} USING hash ({})",
                        ix.name,
                        ix.table,
                        ix.columns.first().copied().unwrap_or("id")
                    ),
                    _ => format!("CREATE INDEX {} ON {} ({})", ix.name, ix.table, ix.columns.join(", ")),
                };
                if let Some(p) = ix.partial {
                    let _ = write!(sql, " WHERE {p}");
                }
                vec![sql]
            }
            Step::TrigramIndex { name, table, columns } => match dialect {
                Dialect::Sqlite => vec![format!(
                    "CREATE VIRTUAL TABLE {name} USING fts5({}, tokenize='trigram', content='', \
                     contentless_delete=1)",
                    columns.join(", ")
                )],
                Dialect::Postgres => {
                    let mut v = vec!["CREATE EXTENSION IF NOT EXISTS pg_trgm".to_owned()];
                    for c in columns {
                        v.push(format!("CREATE INDEX {name}_{c} ON {table} USING gin ({c} gin_trgm_ops)"));
                    }
                    v
                }
            },
            Step::ChangeLog { log, table, columns } => {
                let cols = columns.join(", ");
                match dialect {
                    Dialect::Sqlite => vec![
                        format!(
                            "CREATE TRIGGER {table}_deleted AFTER DELETE ON {table} BEGIN \
                             INSERT INTO {log} (entry_id) VALUES (OLD.entry_id); END"
                        ),
                        format!(
                            "CREATE TRIGGER {table}_changed AFTER UPDATE OF {cols} ON {table} BEGIN \
                             INSERT INTO {log} (entry_id) VALUES (OLD.entry_id); END"
                        ),
                    ],
                    Dialect::Postgres => vec![
                        format!(
                            "CREATE FUNCTION {log}_note() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN \
                             INSERT INTO {log} (entry_id) VALUES (OLD.entry_id); RETURN NULL; END $$"
                        ),
                        format!(
                            "CREATE TRIGGER {table}_deleted AFTER DELETE ON {table} FOR EACH ROW \
                             EXECUTE FUNCTION {log}_note()"
                        ),
                        format!(
                            "CREATE TRIGGER {table}_changed AFTER UPDATE OF {cols} ON {table} FOR EACH ROW \
                             EXECUTE FUNCTION {log}_note()"
                        ),
                    ],
                }
            }
            Step::MemoryToken => {
                let token = match dialect {
                    Dialect::Sqlite => "lower(hex(randomblob(16)))",
                    Dialect::Postgres => "md5(random()::text || clock_timestamp()::text)",
                };
                vec![format!("INSERT INTO {META_TABLE} (key, value) VALUES ('{META_MEMORY_TOKEN}', {token})")]
            }
            Step::Counts { table } => counts_sql(table, dialect),
            Step::WordIndex { name, table, column } => match dialect {
                Dialect::Sqlite => vec![format!(
                    "CREATE VIRTUAL TABLE {name} USING fts5({column}, content='{table}', content_rowid='id', \
                     tokenize='unicode61 remove_diacritics 2')"
                )],
                Dialect::Postgres => vec![
                    format!(
                        "ALTER TABLE {table} ADD COLUMN search_tsv tsvector GENERATED ALWAYS AS \
                         (to_tsvector('simple', {column})) STORED"
                    ),
                    format!("CREATE INDEX {name}_tsv ON {table} USING gin (search_tsv)"),
                ],
            },
        }
    }
}

impl Migration {
    /// The statements of this migration in `dialect`, each without a trailing `;`.
    pub fn sql(&self, dialect: Dialect) -> Vec<String> {
        self.steps.iter().flat_map(|s| s.sql(dialect)).collect()
    }
}

/// The statements that create the schema at `version` (migrations 1 to `version`).
pub fn statements(dialect: Dialect, version: u32) -> Vec<String> {
    MIGRATIONS.iter().filter(|m| m.version <= version).flat_map(|m| m.sql(dialect)).collect()
}

fn script(dialect: Dialect) -> String {
    let mut out = String::new();
    for m in MIGRATIONS {
        let _ = writeln!(out, "-- migration {}: {}", m.version, m.description);
        for s in m.sql(dialect) {
            out.push_str(&s);
            out.push_str(";\n");
        }
    }
    out
}

/// The whole current schema as a SQLite script.
pub fn sqlite_ddl() -> String {
    script(Dialect::Sqlite)
}

/// The whole current schema as a PostgreSQL script.
pub fn postgres_ddl() -> String {
    script(Dialect::Postgres)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn migrations_are_numbered_one_by_one() {
        for (i, m) in MIGRATIONS.iter().enumerate() {
            assert_eq!(m.version as usize, i + 1);
        }
        assert_eq!(MIGRATIONS.last().map(|m| m.version), Some(SCHEMA_VERSION));
    }

    /// Splits a script into statements, skipping comments, checking quotes close.
    fn statements_of(script: &str) -> Vec<String> {
        let body: String =
            script.lines().filter(|l| !l.trim_start().starts_with("--")).collect::<Vec<_>>().join("\n");
        let mut out = Vec::new();
        let mut cur = String::new();
        let mut quoted = false;
        let mut dollar = false;
        let mut prev = ' ';
        for c in body.chars() {
            if c == '\'' {
                quoted = !quoted;
            }
            if c == '$' && prev == '$' {
                dollar = !dollar;
            }
            prev = c;
            // A trigger's body holds statements of its own, up to its END.
            let in_trigger = cur.trim_start().starts_with("CREATE TRIGGER")
                && cur.contains(" BEGIN ")
                && !cur.trim_end().ends_with("END");
            if c == ';' && !quoted && !dollar && !in_trigger {
                out.push(cur.trim().to_owned());
                cur.clear();
            } else {
                cur.push(c);
            }
        }
        assert!(!quoted, "unclosed quote");
        assert!(cur.trim().is_empty(), "statement without ';': {cur}");
        out
    }

    fn columns_of(dialect: Dialect) -> Vec<(String, String)> {
        let mut cols = Vec::new();
        for m in MIGRATIONS {
            for s in m.steps {
                match s {
                    Step::CreateTable(t) => {
                        cols.extend(t.columns.iter().map(|c| (t.name.to_owned(), c.name.to_owned())));
                    }
                    Step::AddColumn { table, column } => {
                        cols.push(((*table).to_owned(), column.name.to_owned()))
                    }
                    Step::WordIndex { table, .. } if dialect == Dialect::Postgres => {
                        cols.push(((*table).to_owned(), "search_tsv".to_owned()));
                    }
                    _ => {}
                }
            }
        }
        cols
    }

    #[test]
    fn postgres_text_is_well_formed() {
        let ddl = postgres_ddl();
        let stmts = statements_of(&ddl);
        assert!(stmts.len() > 10);
        let cols = columns_of(Dialect::Postgres);
        for s in &stmts {
            let open = s.matches('(').count();
            assert_eq!(open, s.matches(')').count(), "unbalanced parentheses: {s}");
            assert!(
                [
                    "CREATE TABLE ",
                    "CREATE INDEX ",
                    "ALTER TABLE ",
                    "CREATE EXTENSION ",
                    "CREATE FUNCTION ",
                    "CREATE TRIGGER ",
                    "INSERT INTO tm_meta ",
                    "INSERT INTO tm_counts "
                ]
                .iter()
                .any(|p| s.starts_with(p)),
                "unexpected statement: {s}"
            );
            for sqlite_only in ["AUTOINCREMENT", "VIRTUAL", "fts5", "INTEGER PRIMARY KEY", "rowid"] {
                assert!(!s.contains(sqlite_only), "SQLite-only {sqlite_only} in: {s}");
            }
            // Every index names columns that exist by then.
            if let Some(rest) = s.strip_prefix("CREATE INDEX ") {
                let on = rest.split(" ON ").nth(1).unwrap();
                let table = on.split_whitespace().next().unwrap();
                let inner = on[on.find('(').unwrap() + 1..on.rfind(')').unwrap()].to_owned();
                for c in inner.split(',') {
                    let name = c.split_whitespace().next().unwrap();
                    assert!(
                        cols.iter().any(|(t, n)| t == table && n == name),
                        "unknown column {table}.{name}"
                    );
                }
            }
        }
        assert!(ddl.contains("CREATE EXTENSION IF NOT EXISTS pg_trgm;"));
        for c in ["plain", "struct_key", "general_key"] {
            assert!(ddl.contains(&format!("USING gin ({c} gin_trgm_ops)")), "{c}");
        }
        assert!(ddl.contains("search_tsv tsvector GENERATED ALWAYS AS (to_tsvector('simple', text)) STORED"));
        assert!(ddl.contains("USING gin (search_tsv)"));
        assert!(ddl.contains("metadata JSONB NOT NULL DEFAULT '[]'"));
        assert!(ddl.contains("entry_id BIGINT NOT NULL REFERENCES tm_entries(id) ON DELETE CASCADE"));
        // The extension exists before the first trigram index uses its operator class.
        let ext = stmts.iter().position(|s| s.starts_with("CREATE EXTENSION")).unwrap();
        let first_gin = stmts.iter().position(|s| s.contains("gin_trgm_ops")).unwrap();
        assert!(ext < first_gin);
    }

    #[test]
    fn sqlite_text_has_the_fts_tables() {
        let ddl = sqlite_ddl();
        assert_eq!(statements_of(&ddl).len(), statements(Dialect::Sqlite, SCHEMA_VERSION).len());
        assert!(ddl.contains("CREATE VIRTUAL TABLE tm_variant_trigram USING fts5(plain, struct_key, general_key, tokenize='trigram'"));
        assert!(ddl.contains("tokenize='unicode61 remove_diacritics 2'"));
        assert!(ddl.contains("ALTER TABLE tm_entries ADD COLUMN point TEXT NOT NULL DEFAULT ''"));
        assert!(ddl.contains("CREATE INDEX tm_entries_unit ON tm_entries (unit)"));
        assert!(ddl.contains(
            "CREATE INDEX tm_variants_struct_key ON tm_variants (struct_key, locale) WHERE struct_key IS NOT NULL"
        ));
        assert!(ddl.contains("    struct_key TEXT,\n"));
        assert!(statements(Dialect::Sqlite, 3).iter().all(|s| !s.contains("point") && !s.contains("unit")));
    }
}
