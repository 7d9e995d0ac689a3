// Package parkindex is the index of parked calls: every call parked in
// the session logs of a state folder, and what became of it, in an
// SQLite database beside the logs (parked.db), so that latch approvals,
// latch approve and the inbox cost the same at any backlog.
//
// The session logs stay the truth. The index is a cache of them: each
// reader catches it up from the logs' tails before it asks (CatchUp reads
// only what a log gained since; a log truncated, replaced or edited
// behind the index is read again whole), a missing index is built again
// from the logs, and a corrupt one is set aside and built again. Nothing
// else writes to it, and no gateway waits on it: the gateway stays the
// only writer of its session log, and decisions still go through its
// inbox (session.SendDecision).
//
// Several processes may catch it up at once: the database is in WAL mode,
// each catch-up is one immediate transaction that reads again, inside it,
// how far each log was read, and a busy one waits (busy_timeout).
//
// It may import latch/session and its subpackages, and the SQLite driver
// (modernc.org/sqlite, pure Go); nothing of the user interface.
package parkindex
