package parkindex

// schemaVersion is the schema's number, kept as the database's
// user_version: an index of a number migrations lead from is migrated,
// one of another number is built again.
const schemaVersion = 3

// migrations are the steps that bring an index of one version to the
// next, keeping its rows: migrations[v] takes version v to v+1. An index
// of a version with no way to schemaVersion is built again from the logs.
//
// 2 to 3: an index of approval_id alone, which Find asks by (with
// call_id, which has its own); calls_approval leads with the session.
var migrations = map[int]string{
	2: `CREATE INDEX IF NOT EXISTS calls_approval_id ON calls (approval_id);`,
}

// schema is the index's tables.
//
// logs: how far each session log was read (its bytes up to the end of
// the last whole line), and what tells a log changed behind the index:
// its device and inode, its modification time, and the bytes just before
// where reading stopped.
//
// calls: one row a parked call, in the order logged (id). decision is ""
// while it waits.
//
// meta: one row: gen counts the catch-ups that changed anything, and
// every row of calls a catch-up adds or changes carries its gen
// (changed); reset is the last gen that removed calls (a log gone, or
// read again whole). A reader that keeps the waiting calls (Live) reads
// only the rows changed since it last read.
//
// why: the permission event that put a call to a person, until its
// approval_parked line comes (they are logged one after the other, but a
// catch-up may stop between them).
const schema = `
CREATE TABLE IF NOT EXISTS logs (
	session TEXT PRIMARY KEY,
	dev INTEGER NOT NULL, ino INTEGER NOT NULL,
	size INTEGER NOT NULL, mtime INTEGER NOT NULL,
	tail BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS calls (
	id INTEGER PRIMARY KEY,
	session TEXT NOT NULL, approval_id TEXT NOT NULL, call_id TEXT NOT NULL,
	client TEXT NOT NULL, caller TEXT NOT NULL, caller_verified INTEGER NOT NULL,
	tool TEXT NOT NULL, server TEXT NOT NULL, digest TEXT NOT NULL, description TEXT NOT NULL,
	arguments TEXT NOT NULL, parked INTEGER NOT NULL, expires INTEGER NOT NULL,
	mode TEXT NOT NULL, rule TEXT NOT NULL,
	decision TEXT NOT NULL DEFAULT '', decided_by TEXT NOT NULL DEFAULT '', reason TEXT NOT NULL DEFAULT '',
	started INTEGER NOT NULL DEFAULT 0, ran INTEGER NOT NULL DEFAULT 0,
	is_error INTEGER NOT NULL DEFAULT 0, error TEXT NOT NULL DEFAULT '', refused TEXT NOT NULL DEFAULT '',
	changed INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS calls_changed ON calls (changed);
CREATE TABLE IF NOT EXISTS meta (gen INTEGER NOT NULL, reset INTEGER NOT NULL);
INSERT INTO meta (gen, reset) SELECT 0, 0 WHERE NOT EXISTS (SELECT 1 FROM meta);
CREATE INDEX IF NOT EXISTS calls_waiting ON calls (parked, call_id) WHERE decision = '';
CREATE INDEX IF NOT EXISTS calls_call ON calls (call_id);
CREATE INDEX IF NOT EXISTS calls_approval ON calls (session, approval_id);
CREATE INDEX IF NOT EXISTS calls_session_call ON calls (session, call_id);
CREATE INDEX IF NOT EXISTS calls_approval_id ON calls (approval_id);
CREATE TABLE IF NOT EXISTS why (
	session TEXT NOT NULL, call_id TEXT NOT NULL, mode TEXT NOT NULL, rule TEXT NOT NULL,
	PRIMARY KEY (session, call_id)
);
`
