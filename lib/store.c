#include "store.h"

#include <errno.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bisect.h"
#include "paths.h"

struct kb_store {
	sqlite3 *db;
	char *path;
	int lock_fd;
	int machine;    /* recorded with each run started */
};

#define TEXT_OF(x) #x
#define SCHEMA_TEXT_(x) TEXT_OF(x)
#define SCHEMA_TEXT SCHEMA_TEXT_(KB_STORE_SCHEMA)

/* Schema 3: the reverts made and the verification pair of each machine of
 * a pool, which schema 2 kept as events "revert" and "verify". */
#define REVERTS_AND_PAIRS \
	"CREATE TABLE reverts (" \
	"  id INTEGER PRIMARY KEY," \
	"  session INTEGER NOT NULL REFERENCES sessions(id)," \
	"  culprit TEXT NOT NULL," \
	"  sha TEXT," \
	"  created REAL NOT NULL);" \
	"CREATE TABLE pairs (" \
	"  session INTEGER NOT NULL REFERENCES sessions(id)," \
	"  machine INTEGER NOT NULL," \
	"  pair INTEGER NOT NULL," \
	"  PRIMARY KEY (session, machine));"

/* Schema 4: the values of a benchmark's secondary metrics in each run (a
 * NULL value: not in that run's output). */
#define RUN_METRICS \
	"CREATE TABLE run_metrics (" \
	"  run INTEGER NOT NULL REFERENCES runs(id)," \
	"  name TEXT NOT NULL," \
	"  value REAL," \
	"  PRIMARY KEY (run, name));"

/* Schema 5: the builds of a likely culprit and its parent with a config of
 * their own (64-byte function alignment), to tell a change of the code
 * from a change of its layout: NULL when they could not be made, and why. */
#define ALIGNED \
	"CREATE TABLE aligned (" \
	"  id INTEGER PRIMARY KEY," \
	"  session INTEGER NOT NULL REFERENCES sessions(id)," \
	"  culprit TEXT NOT NULL," \
	"  parent_sha TEXT," \
	"  sha TEXT," \
	"  why TEXT," \
	"  created REAL NOT NULL);"

/* Schema 6: GOOD and BAD built with the same config (the variants NULL
 * when they could not be made, and why). */
#define ALIGNED_ENDS \
	"CREATE TABLE aligned_ends (" \
	"  id INTEGER PRIMARY KEY," \
	"  session INTEGER NOT NULL REFERENCES sessions(id)," \
	"  good_sha TEXT NOT NULL," \
	"  bad_sha TEXT NOT NULL," \
	"  good_variant TEXT," \
	"  bad_variant TEXT," \
	"  why TEXT," \
	"  created REAL NOT NULL);"

static const char schema[] =
	"CREATE TABLE sessions ("
	"  id INTEGER PRIMARY KEY,"
	"  created REAL NOT NULL,"
	"  state TEXT NOT NULL CHECK (state IN ('active','done','ended','compare')),"
	"  spec TEXT NOT NULL,"
	"  verdict TEXT);"
	"CREATE TABLE marks ("
	"  id INTEGER PRIMARY KEY,"
	"  session INTEGER NOT NULL REFERENCES sessions(id),"
	"  sha TEXT NOT NULL,"
	"  mark TEXT NOT NULL CHECK (mark IN ('good','bad','skip')),"
	"  source TEXT NOT NULL,"
	"  created REAL NOT NULL,"
	"  run INTEGER REFERENCES runs(id));"
	"CREATE TABLE runs ("
	"  id INTEGER PRIMARY KEY,"
	"  session INTEGER NOT NULL REFERENCES sessions(id),"
	"  sha TEXT NOT NULL,"
	"  boot INTEGER NOT NULL,"
	"  run INTEGER NOT NULL,"
	"  state TEXT NOT NULL"
	"    CHECK (state IN ('started','done','interrupted','aborted')),"
	"  started REAL NOT NULL,"
	"  finished REAL,"
	"  exit_status INTEGER,"
	"  term_signal INTEGER,"
	"  timed_out INTEGER NOT NULL DEFAULT 0,"
	"  value REAL,"
	"  output_tail TEXT,"
	"  dir TEXT,"
	"  machine INTEGER NOT NULL DEFAULT 0);"
	"CREATE INDEX runs_by_session ON runs(session, sha);"
	"CREATE INDEX marks_by_session ON marks(session);"
	"CREATE TABLE events ("
	"  id INTEGER PRIMARY KEY,"
	"  session INTEGER NOT NULL REFERENCES sessions(id),"
	"  ts REAL NOT NULL,"
	"  kind TEXT NOT NULL,"
	"  detail TEXT NOT NULL);"
	REVERTS_AND_PAIRS
	RUN_METRICS
	ALIGNED
	ALIGNED_ENDS;

static int db_fail(struct kb_store *s, const char *what)
{
	int rc = sqlite3_errcode(s->db);

	if (rc == SQLITE_NOTADB || rc == SQLITE_CORRUPT)
		return kb_error(KB_EINVAL,
				"%s is not a kbisect database or is damaged (%s); "
				"move it away and start again, or give another --db",
				s->path, sqlite3_errmsg(s->db));
	if (rc == SQLITE_FULL)
		return kb_error(KB_EINFRA, "%s: disk full while %s", s->path, what);
	return kb_error(KB_ERROR, "%s: %s: %s", s->path, what, sqlite3_errmsg(s->db));
}

static int exec(struct kb_store *s, const char *sql, const char *what)
{
	if (sqlite3_exec(s->db, sql, NULL, NULL, NULL) != SQLITE_OK)
		return db_fail(s, what);
	return 0;
}

/*
 * Switch to WAL (persistent in the file, so a no-op after the first time).
 * SQLite answers SQLITE_BUSY at once, without the busy handler, when
 * another connection opens the same new file at that moment (a 'status'
 * while 'start' creates the database): try again for a while.
 */
static int set_wal(struct kb_store *s)
{
	struct timespec ts = { 0, 10 * 1000 * 1000 };
	int i, rc;

	for (i = 0;; i++) {
		rc = sqlite3_exec(s->db, "PRAGMA journal_mode = WAL", NULL, NULL, NULL);
		if ((rc & 0xff) != SQLITE_BUSY || i >= 500)
			break;
		nanosleep(&ts, NULL);
	}
	return rc == SQLITE_OK ? 0 : db_fail(s, "opening");
}

static int take_lock(struct kb_store *s)
{
	struct kb_paths paths;
	char *lp;
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	char pid[32];
	int fd, n;

	kb_paths_init(&paths, s->path);
	lp = kb_strdup(paths.db_lock);
	kb_paths_release(&paths);
	fd = open(lp, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0) {
		int ret = kb_error_errno(KB_ERROR, "cannot open lock file %s", lp);

		free(lp);
		return ret;
	}
	if (fcntl(fd, F_SETLK, &fl) < 0) {
		struct flock who = { .l_type = F_WRLCK, .l_whence = SEEK_SET };

		fcntl(fd, F_GETLK, &who);
		close(fd);
		free(lp);
		return kb_error(KB_ELOCKED,
				"%s is in use by another kbisect (pid %ld); wait for it "
				"to finish or stop it first", s->path, (long)who.l_pid);
	}
	n = snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());
	if (ftruncate(fd, 0) < 0 || write(fd, pid, (size_t)n) != n) {
		/* the lock itself is what matters; the pid is a courtesy */
	}
	free(lp);
	s->lock_fd = fd;
	return 0;
}

/* The schema version; a database from a newer kbisect is refused before
 * anything (even the journal mode) is changed in it. */
static int read_version(struct kb_store *s, int *version)
{
	sqlite3_stmt *st;

	if (sqlite3_prepare_v2(s->db, "PRAGMA user_version", -1, &st, NULL) != SQLITE_OK)
		return db_fail(s, "reading the schema version");
	if (sqlite3_step(st) != SQLITE_ROW) {
		sqlite3_finalize(st);
		return db_fail(s, "reading the schema version");
	}
	*version = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	if (*version > KB_STORE_SCHEMA)
		return kb_error(KB_EVERSION,
				"%s has schema version %d, newer than this kbisect "
				"understands (%d): use a newer kbisect",
				s->path, *version, KB_STORE_SCHEMA);
	return 0;
}

static int prepare(struct kb_store *s, sqlite3_stmt **st, const char *sql);
static int step_done(struct kb_store *s, sqlite3_stmt *st, const char *what);

/* The "verify" events of schema 2, oldest first, as rows of pairs: each
 * event gave the pair of the machines it lists, in order. */
static int migrate_pairs(struct kb_store *s)
{
	sqlite3_stmt *st, *ins;
	int rc, ret;

	if ((ret = prepare(s, &st, "SELECT session, detail FROM events WHERE kind = 'verify' "
			   "ORDER BY id")) < 0)
		return ret;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *p = (const char *)sqlite3_column_text(st, 1);
		int machine;

		for (machine = 0; p && *p; machine++) {
			char *end;
			long v = strtol(p, &end, 10);

			if (end == p)
				break;
			p = end;
			if ((ret = prepare(s, &ins, "INSERT OR REPLACE INTO pairs (session, "
					   "machine, pair) VALUES (?, ?, ?)")) < 0)
				break;
			sqlite3_bind_int64(ins, 1, sqlite3_column_int64(st, 0));
			sqlite3_bind_int(ins, 2, machine);
			sqlite3_bind_int(ins, 3, v < 0 ? -1 : v > 1 ? 1 : (int)v);
			if ((ret = step_done(s, ins, "updating the schema")) < 0)
				break;
		}
		if (ret < 0)
			break;
	}
	sqlite3_finalize(st);
	if (ret == 0 && rc != SQLITE_DONE)
		ret = db_fail(s, "updating the schema");
	return ret;
}

/* Bring a database of schema 'version' to this one, inside the caller's
 * transaction. */
static int migrate(struct kb_store *s, int version)
{
	int ret;

	/* 1 -> 2: the machine of each run (all its runs ran on the one target) */
	if (version < 2 && (ret = exec(s, "ALTER TABLE runs ADD COLUMN machine INTEGER NOT "
				       "NULL DEFAULT 0", "updating the schema")) < 0)
		return ret;
	/* 2 -> 3: reverts and pairs out of the events, where they were kept */
	if (version < 3 &&
	    ((ret = exec(s, REVERTS_AND_PAIRS, "updating the schema")) < 0 ||
	     (ret = exec(s, "INSERT INTO reverts (session, culprit, sha, created) "
			 "SELECT session, substr(detail, 1, 40), "
			 "nullif(substr(detail, 42), '-'), ts FROM events "
			 "WHERE kind = 'revert' ORDER BY id", "updating the schema")) < 0 ||
	     (ret = migrate_pairs(s)) < 0 ||
	     (ret = exec(s, "DELETE FROM events WHERE kind IN ('revert', 'verify')",
			 "updating the schema")) < 0))
		return ret;
	/* 3 -> 4: the secondary metrics of runs; the runs before had none */
	if (version < 4 && (ret = exec(s, RUN_METRICS, "updating the schema")) < 0)
		return ret;
	/* 4 -> 5: the aligned builds; no session before asked for them */
	if (version < 5 && (ret = exec(s, ALIGNED, "updating the schema")) < 0)
		return ret;
	/* 5 -> 6: GOOD and BAD aligned; no session before asked for them */
	return exec(s, ALIGNED_ENDS, "updating the schema");
}

static int check_schema(struct kb_store *s)
{
	int version, ret;

	if ((ret = read_version(s, &version)) < 0)
		return ret;
	if (version == KB_STORE_SCHEMA)
		return 0;
	if ((ret = exec(s, "BEGIN IMMEDIATE", "creating the schema")) < 0)
		return ret;
	/* Another kbisect (a 'status' while 'start' creates the file) may
	 * have created the schema since we looked: look again, under the
	 * write lock. */
	if ((ret = read_version(s, &version)) < 0) {
		kb_store_rollback(s);
		return ret;
	}
	if (version == KB_STORE_SCHEMA)
		return exec(s, "COMMIT", "opening");
	if (!version)
		ret = exec(s, schema, "creating the schema");
	else
		ret = migrate(s, version);
	if (ret < 0 || (ret = exec(s, "PRAGMA user_version = " SCHEMA_TEXT, "creating the schema")) < 0) {
		kb_store_rollback(s);
		return ret;
	}
	return exec(s, "COMMIT", "creating the schema");
}

/* A database whose pages were damaged can still read its first tables: look
 * at all of them before anything is read or written. */
static int check_pages(struct kb_store *s)
{
	sqlite3_stmt *st = NULL;
	int ret = 0;

	if (sqlite3_prepare_v2(s->db, "PRAGMA quick_check(1)", -1, &st, NULL) != SQLITE_OK)
		return db_fail(s, "checking");
	if (sqlite3_step(st) != SQLITE_ROW) {
		ret = db_fail(s, "checking");
	} else {
		const char *r = (const char *)sqlite3_column_text(st, 0);

		if (!r || strcmp(r, "ok")) {
			char *why = kb_strdup(r ? r : "no answer to a check"), *p;

			for (p = why; *p; p++)
				if (*p == '\n')
					*p = ' ';
			ret = kb_error(KB_EINVAL, "%s is not a kbisect database or is damaged "
				       "(%s); move it away and start again, or give another "
				       "--db", s->path, why);
			free(why);
		}
	}
	sqlite3_finalize(st);
	return ret;
}

int kb_store_open(struct kb_store **out, const char *path, int flags)
{
	struct kb_store *s = kb_calloc(1, sizeof(*s));
	struct stat st;
	int ret, version;

	s->path = kb_strdup(path);
	s->lock_fd = -1;
	*out = NULL;
	if (stat(path, &st) < 0) {
		int fd;

		if (!(flags & KB_STORE_CREATE)) {
			ret = kb_error(KB_ENOSESSION,
				       "no kbisect session: %s does not exist "
				       "(start one with 'kbisect start')", path);
			goto fail;
		}
		fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		if (fd < 0 && errno != EEXIST) {
			ret = kb_error_errno(KB_ERROR, "cannot create %s", path);
			goto fail;
		}
		if (fd >= 0)
			close(fd);
	} else if (!S_ISREG(st.st_mode)) {
		ret = kb_error(KB_EINVAL, "%s is not a regular file", path);
		goto fail;
	}
	if ((flags & KB_STORE_LOCK) && (ret = take_lock(s)) < 0)
		goto fail;
	if (sqlite3_open_v2(path, &s->db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK) {
		ret = kb_error(KB_ERROR, "cannot open %s: %s", path,
			       s->db ? sqlite3_errmsg(s->db) : "out of memory");
		goto fail;
	}
	sqlite3_busy_timeout(s->db, 10000);
	if ((ret = read_version(s, &version)) < 0 ||
	    (version && (ret = check_pages(s)) < 0) ||
	    (ret = set_wal(s)) < 0 ||
	    (ret = exec(s, "PRAGMA synchronous = FULL", "opening")) < 0 ||
	    (ret = exec(s, "PRAGMA foreign_keys = ON", "opening")) < 0 ||
	    (ret = check_schema(s)) < 0)
		goto fail;
	*out = s;
	return 0;
fail:
	kb_store_close(s);
	return ret;
}

void kb_store_close(struct kb_store *s)
{
	if (!s)
		return;
	if (s->db)
		sqlite3_close(s->db);
	if (s->lock_fd >= 0)
		close(s->lock_fd);
	free(s->path);
	free(s);
}

const char *kb_store_path(const struct kb_store *s)
{
	return s->path;
}

int kb_store_begin(struct kb_store *s)
{
	return exec(s, "BEGIN IMMEDIATE", "starting a transaction");
}

int kb_store_commit(struct kb_store *s)
{
	return exec(s, "COMMIT", "committing");
}

void kb_store_rollback(struct kb_store *s)
{
	sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
}

static int prepare(struct kb_store *s, sqlite3_stmt **st, const char *sql)
{
	if (sqlite3_prepare_v2(s->db, sql, -1, st, NULL) != SQLITE_OK)
		return db_fail(s, "preparing a query");
	return 0;
}

static int step_done(struct kb_store *s, sqlite3_stmt *st, const char *what)
{
	int rc = sqlite3_step(st);

	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return db_fail(s, what);
	return 0;
}

static char *col_text(sqlite3_stmt *st, int i)
{
	const unsigned char *t = sqlite3_column_text(st, i);

	return t ? kb_strdup((const char *)t) : NULL;
}

void kb_session_row_release(struct kb_session_row *r)
{
	free(r->state);
	free(r->spec);
	free(r->verdict);
	memset(r, 0, sizeof(*r));
}

static int session_query(struct kb_store *s, const char *sql,
			 struct kb_session_row *out)
{
	sqlite3_stmt *st;
	int rc, ret;

	memset(out, 0, sizeof(*out));
	if ((ret = prepare(s, &st, sql)) < 0)
		return ret;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		out->id = sqlite3_column_int64(st, 0);
		out->created = sqlite3_column_double(st, 1);
		out->state = col_text(st, 2);
		out->spec = col_text(st, 3);
		out->verdict = col_text(st, 4);
		ret = 0;
	} else if (rc == SQLITE_DONE) {
		ret = kb_error(KB_ENOSESSION,
			       "no kbisect session in %s (start one with 'kbisect start')",
			       s->path);
	} else {
		ret = db_fail(s, "reading sessions");
	}
	sqlite3_finalize(st);
	return ret;
}

int kb_store_session_active(struct kb_store *s, struct kb_session_row *out)
{
	int ret = session_query(s,
		"SELECT id, created, state, spec, verdict FROM sessions "
		"WHERE state IN ('active','done') ORDER BY id DESC LIMIT 1", out);

	if (ret == KB_ENOSESSION)
		kb_error(KB_ENOSESSION,
			 "no kbisect session in progress in %s (start one with "
			 "'kbisect start')", s->path);
	return ret;
}

int kb_store_session_compare(struct kb_store *s, struct kb_session_row *out)
{
	return session_query(s,
		"SELECT id, created, state, spec, verdict FROM sessions "
		"WHERE state = 'compare' AND verdict IS NULL ORDER BY id DESC LIMIT 1", out);
}

int kb_store_session_latest(struct kb_store *s, struct kb_session_row *out)
{
	return session_query(s,
		"SELECT id, created, state, spec, verdict FROM sessions "
		"WHERE state != 'compare' ORDER BY id DESC LIMIT 1", out);
}

int kb_store_session_create(struct kb_store *s, const char *spec, int64_t *id)
{
	return kb_store_session_create_as(s, spec, "active", id);
}

int kb_store_session_create_as(struct kb_store *s, const char *spec, const char *state,
			       int64_t *id)
{
	sqlite3_stmt *st;
	int ret;

	if ((ret = prepare(s, &st,
			   "INSERT INTO sessions (created, state, spec) "
			   "VALUES (?, ?, ?)")) < 0)
		return ret;
	sqlite3_bind_double(st, 1, kb_now());
	sqlite3_bind_text(st, 2, state, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 3, spec, -1, SQLITE_TRANSIENT);
	if ((ret = step_done(s, st, "creating the session")) < 0)
		return ret;
	*id = sqlite3_last_insert_rowid(s->db);
	return 0;
}

int kb_store_session_set_spec(struct kb_store *s, int64_t id, const char *spec)
{
	sqlite3_stmt *st;
	int ret;

	if ((ret = prepare(s, &st, "UPDATE sessions SET spec = ? WHERE id = ?")) < 0)
		return ret;
	sqlite3_bind_text(st, 1, spec, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 2, id);
	return step_done(s, st, "updating the session");
}

int kb_store_session_finish(struct kb_store *s, int64_t id, const char *state,
			    const char *verdict)
{
	sqlite3_stmt *st;
	int ret;

	if ((ret = prepare(s, &st,
			   "UPDATE sessions SET state = ?, "
			   "verdict = coalesce(?, verdict) WHERE id = ?")) < 0)
		return ret;
	sqlite3_bind_text(st, 1, state, -1, SQLITE_TRANSIENT);
	if (verdict)
		sqlite3_bind_text(st, 2, verdict, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, 2);
	sqlite3_bind_int64(st, 3, id);
	return step_done(s, st, "updating the session");
}


int kb_store_mark_add(struct kb_store *s, int64_t session, const char *sha,
		      char mark, const char *source, int64_t run)
{
	sqlite3_stmt *st;
	int ret;

	if ((ret = prepare(s, &st,
			   "INSERT INTO marks (session, sha, mark, source, created, run) "
			   "VALUES (?, ?, ?, ?, ?, ?)")) < 0)
		return ret;
	sqlite3_bind_int64(st, 1, session);
	sqlite3_bind_text(st, 2, sha, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 3, kb_mark_name(mark), -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, source, -1, SQLITE_TRANSIENT);
	sqlite3_bind_double(st, 5, kb_now());
	if (run)
		sqlite3_bind_int64(st, 6, run);
	else
		sqlite3_bind_null(st, 6);
	return step_done(s, st, "recording a mark");
}

int kb_store_marks_remove(struct kb_store *s, int64_t session, const char *sha,
			  const char *source)
{
	sqlite3_stmt *st;
	int ret;

	if ((ret = prepare(s, &st, "DELETE FROM marks WHERE session = ? AND sha = ? AND "
			   "source = ?")) < 0)
		return ret;
	sqlite3_bind_int64(st, 1, session);
	sqlite3_bind_text(st, 2, sha, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 3, source, -1, SQLITE_TRANSIENT);
	if ((ret = step_done(s, st, "removing a mark")) < 0)
		return ret;
	return sqlite3_changes(s->db);
}

int kb_store_marks(struct kb_store *s, int64_t session, struct kb_mark_row **out,
		   size_t *n)
{
	sqlite3_stmt *st;
	size_t alloc = 0;
	int rc, ret;

	*out = NULL;
	*n = 0;
	if ((ret = prepare(s, &st,
			   "SELECT id, sha, mark, source, created, coalesce(run, 0) "
			   "FROM marks WHERE session = ? ORDER BY id")) < 0)
		return ret;
	sqlite3_bind_int64(st, 1, session);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct kb_mark_row *m;

		KB_ALLOC_GROW(*out, *n + 1, alloc);
		m = &(*out)[(*n)++];
		memset(m, 0, sizeof(*m));
		m->id = sqlite3_column_int64(st, 0);
		snprintf(m->sha, sizeof(m->sha), "%s", sqlite3_column_text(st, 1));
		m->mark = (char)sqlite3_column_text(st, 2)[0];
		if (m->mark == 's')
			m->mark = 's';
		snprintf(m->source, sizeof(m->source), "%s", sqlite3_column_text(st, 3));
		m->created = sqlite3_column_double(st, 4);
		m->run = sqlite3_column_int64(st, 5);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return db_fail(s, "reading marks");
	return 0;
}

static const char *const state_names[] = {
	[KB_RUN_STARTED] = "started",
	[KB_RUN_DONE] = "done",
	[KB_RUN_INTERRUPTED] = "interrupted",
	[KB_RUN_ABORTED] = "aborted",
};

const char *kb_run_state_name(enum kb_run_state st)
{
	return state_names[st];
}

static enum kb_run_state state_parse(const char *s)
{
	size_t i;

	for (i = 0; i < sizeof(state_names) / sizeof(state_names[0]); i++)
		if (s && !strcmp(s, state_names[i]))
			return (enum kb_run_state)i;
	return KB_RUN_INTERRUPTED;
}

int kb_store_run_start(struct kb_store *s, int64_t session, const char *sha,
		       int boot, int run, const char *dir, int64_t *id)
{
	sqlite3_stmt *st;
	int ret;

	if ((ret = prepare(s, &st,
			   "INSERT INTO runs (session, sha, boot, run, state, started, dir, "
			   "machine) VALUES (?, ?, ?, ?, 'started', ?, ?, ?)")) < 0)
		return ret;
	sqlite3_bind_int(st, 7, s->machine);
	sqlite3_bind_int64(st, 1, session);
	sqlite3_bind_text(st, 2, sha, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int(st, 3, boot);
	sqlite3_bind_int(st, 4, run);
	sqlite3_bind_double(st, 5, kb_now());
	sqlite3_bind_text(st, 6, dir ? dir : "", -1, SQLITE_TRANSIENT);
	if ((ret = step_done(s, st, "recording a run")) < 0)
		return ret;
	*id = sqlite3_last_insert_rowid(s->db);
	return 0;
}

void kb_store_set_machine(struct kb_store *s, int machine)
{
	s->machine = machine;
}

int kb_store_run_finish(struct kb_store *s, const struct kb_run_row *r)
{
	sqlite3_stmt *st;
	int ret;

	if ((ret = prepare(s, &st,
			   "UPDATE runs SET state = ?, finished = ?, exit_status = ?, "
			   "term_signal = ?, timed_out = ?, value = ?, output_tail = ? "
			   "WHERE id = ? AND state = 'started'")) < 0)
		return ret;
	sqlite3_bind_text(st, 1, kb_run_state_name(r->state), -1, SQLITE_STATIC);
	sqlite3_bind_double(st, 2, r->finished ? r->finished : kb_now());
	sqlite3_bind_int(st, 3, r->exit_status);
	sqlite3_bind_int(st, 4, r->term_signal);
	sqlite3_bind_int(st, 5, r->timed_out);
	if (r->has_value)
		sqlite3_bind_double(st, 6, r->value);
	else
		sqlite3_bind_null(st, 6);
	if (r->output_tail)
		sqlite3_bind_text(st, 7, r->output_tail, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, 7);
	sqlite3_bind_int64(st, 8, r->id);
	if ((ret = step_done(s, st, "recording a result")) < 0)
		return ret;
	if (sqlite3_changes(s->db) != 1)
		return kb_error(KB_ERROR, "%s: run %lld was already finished",
				s->path, (long long)r->id);
	return kb_store_run_metrics_set(s, r->id, r->metrics, r->nmetrics);
}

int kb_store_run_metrics_set(struct kb_store *s, int64_t run,
			     const struct kb_run_metric *m, size_t n)
{
	sqlite3_stmt *st;
	size_t i;
	int ret;

	for (i = 0; i < n; i++) {
		/* an update in place keeps the metric where it was in the run's */
		if ((ret = prepare(s, &st, "INSERT INTO run_metrics (run, name, value) "
				   "VALUES (?, ?, ?) ON CONFLICT (run, name) DO UPDATE "
				   "SET value = excluded.value")) < 0)
			return ret;
		sqlite3_bind_int64(st, 1, run);
		sqlite3_bind_text(st, 2, m[i].name, -1, SQLITE_TRANSIENT);
		if (m[i].has_value)
			sqlite3_bind_double(st, 3, m[i].value);
		else
			sqlite3_bind_null(st, 3);
		if ((ret = step_done(s, st, "recording a result")) < 0)
			return ret;
	}
	return 0;
}

void kb_run_rows_free(struct kb_run_row *rows, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		size_t k;

		free(rows[i].output_tail);
		free(rows[i].dir);
		for (k = 0; k < rows[i].nmetrics; k++)
			free(rows[i].metrics[k].name);
		free(rows[i].metrics);
	}
	free(rows);
}

/* The secondary metrics of the runs of 'session', onto 'rows' (in order
 * of their ids, as kb_store_runs() reads them). */
static int read_run_metrics(struct kb_store *s, int64_t session, struct kb_run_row *rows,
			    size_t n)
{
	sqlite3_stmt *st;
	size_t j = 0, *alloc = kb_calloc(n ? n : 1, sizeof(*alloc));
	int rc, ret;

	if ((ret = prepare(s, &st, "SELECT m.run, m.name, m.value FROM run_metrics m "
			   "JOIN runs r ON r.id = m.run WHERE r.session = ? "
			   "ORDER BY m.run, m.rowid")) < 0) {
		free(alloc);
		return ret;
	}
	sqlite3_bind_int64(st, 1, session);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t run = sqlite3_column_int64(st, 0);
		struct kb_run_metric *m;

		while (j < n && rows[j].id < run)
			j++;
		if (j == n || rows[j].id != run)
			continue;
		KB_ALLOC_GROW(rows[j].metrics, rows[j].nmetrics + 1, alloc[j]);
		m = &rows[j].metrics[rows[j].nmetrics++];
		m->name = col_text(st, 1);
		m->has_value = sqlite3_column_type(st, 2) != SQLITE_NULL;
		m->value = sqlite3_column_double(st, 2);
		if (!m->name)
			m->name = kb_strdup("");
	}
	sqlite3_finalize(st);
	free(alloc);
	return rc == SQLITE_DONE ? 0 : db_fail(s, "reading runs");
}

int kb_store_runs(struct kb_store *s, int64_t session, struct kb_run_row **out,
		  size_t *n)
{
	sqlite3_stmt *st;
	size_t alloc = 0;
	int rc, ret;

	*out = NULL;
	*n = 0;
	if ((ret = prepare(s, &st,
			   "SELECT id, sha, boot, run, state, started, coalesce(finished, 0), "
			   "coalesce(exit_status, -1), coalesce(term_signal, 0), timed_out, "
			   "value, output_tail, dir, machine FROM runs WHERE session = ? "
			   "ORDER BY id")) < 0)
		return ret;
	sqlite3_bind_int64(st, 1, session);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct kb_run_row *r;

		KB_ALLOC_GROW(*out, *n + 1, alloc);
		r = &(*out)[(*n)++];
		memset(r, 0, sizeof(*r));
		r->id = sqlite3_column_int64(st, 0);
		snprintf(r->sha, sizeof(r->sha), "%s", sqlite3_column_text(st, 1));
		r->boot = sqlite3_column_int(st, 2);
		r->run = sqlite3_column_int(st, 3);
		r->state = state_parse((const char *)sqlite3_column_text(st, 4));
		r->started = sqlite3_column_double(st, 5);
		r->finished = sqlite3_column_double(st, 6);
		r->exit_status = sqlite3_column_int(st, 7);
		r->term_signal = sqlite3_column_int(st, 8);
		r->timed_out = sqlite3_column_int(st, 9);
		r->has_value = sqlite3_column_type(st, 10) != SQLITE_NULL;
		r->value = sqlite3_column_double(st, 10);
		r->output_tail = col_text(st, 11);
		r->dir = col_text(st, 12);
		r->machine = sqlite3_column_int(st, 13);
	}
	sqlite3_finalize(st);
	ret = rc != SQLITE_DONE ? db_fail(s, "reading runs") :
	      read_run_metrics(s, session, *out, *n);
	if (ret < 0) {
		kb_run_rows_free(*out, *n);
		*out = NULL;
		*n = 0;
	}
	return ret;
}

int kb_store_event(struct kb_store *s, int64_t session, const char *kind,
		   const char *fmt, ...)
{
	struct kb_buf b = KB_BUF_INIT;
	sqlite3_stmt *st;
	va_list ap;
	int ret;

	va_start(ap, fmt);
	kb_buf_vaddf(&b, fmt, ap);
	va_end(ap);
	if ((ret = prepare(s, &st,
			   "INSERT INTO events (session, ts, kind, detail) "
			   "VALUES (?, ?, ?, ?)")) < 0) {
		kb_buf_release(&b);
		return ret;
	}
	sqlite3_bind_int64(st, 1, session);
	sqlite3_bind_double(st, 2, kb_now());
	sqlite3_bind_text(st, 3, kind, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 4, b.ptr, -1, SQLITE_TRANSIENT);
	kb_buf_release(&b);
	return step_done(s, st, "recording an event");
}

int kb_store_events(struct kb_store *s, int64_t session, struct kb_event_row **out,
		    size_t *n)
{
	sqlite3_stmt *st;
	size_t alloc = 0;
	int rc, ret;

	*out = NULL;
	*n = 0;
	if ((ret = prepare(s, &st,
			   "SELECT id, ts, kind, detail FROM events WHERE session = ? "
			   "ORDER BY id")) < 0)
		return ret;
	sqlite3_bind_int64(st, 1, session);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct kb_event_row *e;

		KB_ALLOC_GROW(*out, *n + 1, alloc);
		e = &(*out)[(*n)++];
		e->id = sqlite3_column_int64(st, 0);
		e->ts = sqlite3_column_double(st, 1);
		e->kind = col_text(st, 2);
		e->detail = col_text(st, 3);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return db_fail(s, "reading events");
	return 0;
}

void kb_event_rows_free(struct kb_event_row *rows, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(rows[i].kind);
		free(rows[i].detail);
	}
	free(rows);
}

int kb_store_revert_add(struct kb_store *s, int64_t session, const char *culprit,
			const char *sha)
{
	sqlite3_stmt *st;
	int ret;

	if ((ret = prepare(s, &st, "INSERT INTO reverts (session, culprit, sha, created) "
			   "VALUES (?, ?, ?, ?)")) < 0)
		return ret;
	sqlite3_bind_int64(st, 1, session);
	sqlite3_bind_text(st, 2, culprit, -1, SQLITE_TRANSIENT);
	if (sha && *sha)
		sqlite3_bind_text(st, 3, sha, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, 3);
	sqlite3_bind_double(st, 4, kb_now());
	return step_done(s, st, "recording a revert");
}

int kb_store_reverts(struct kb_store *s, int64_t session, struct kb_revert_row **out,
		     size_t *n)
{
	sqlite3_stmt *st;
	size_t alloc = 0;
	int rc, ret;

	*out = NULL;
	*n = 0;
	if ((ret = prepare(s, &st, "SELECT culprit, sha FROM reverts WHERE session = ? "
			   "ORDER BY id")) < 0)
		return ret;
	sqlite3_bind_int64(st, 1, session);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct kb_revert_row *r;
		const unsigned char *sha = sqlite3_column_text(st, 1);

		KB_ALLOC_GROW(*out, *n + 1, alloc);
		r = &(*out)[(*n)++];
		snprintf(r->culprit, sizeof(r->culprit), "%s",
			 (const char *)sqlite3_column_text(st, 0));
		snprintf(r->sha, sizeof(r->sha), "%s", sha ? (const char *)sha : "");
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		free(*out);
		*out = NULL;
		*n = 0;
		return db_fail(s, "reading reverts");
	}
	return 0;
}

int kb_store_aligned_add(struct kb_store *s, int64_t session, const char *culprit,
			 const char *parent_sha, const char *sha, const char *why)
{
	sqlite3_stmt *st;
	int ret;

	if ((ret = prepare(s, &st, "INSERT INTO aligned (session, culprit, parent_sha, sha, "
			   "why, created) VALUES (?, ?, ?, ?, ?, ?)")) < 0)
		return ret;
	sqlite3_bind_int64(st, 1, session);
	sqlite3_bind_text(st, 2, culprit, -1, SQLITE_TRANSIENT);
	if (parent_sha && *parent_sha && sha && *sha) {
		sqlite3_bind_text(st, 3, parent_sha, -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(st, 4, sha, -1, SQLITE_TRANSIENT);
	} else {
		sqlite3_bind_null(st, 3);
		sqlite3_bind_null(st, 4);
	}
	sqlite3_bind_text(st, 5, why ? why : "", -1, SQLITE_TRANSIENT);
	sqlite3_bind_double(st, 6, kb_now());
	return step_done(s, st, "recording the aligned builds");
}

int kb_store_aligned(struct kb_store *s, int64_t session, struct kb_aligned_row **out,
		     size_t *n)
{
	sqlite3_stmt *st;
	size_t alloc = 0;
	int rc, ret;

	*out = NULL;
	*n = 0;
	if ((ret = prepare(s, &st, "SELECT culprit, parent_sha, sha, why FROM aligned "
			   "WHERE session = ? ORDER BY id")) < 0)
		return ret;
	sqlite3_bind_int64(st, 1, session);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct kb_aligned_row *r;
		const unsigned char *p = sqlite3_column_text(st, 1), *c = sqlite3_column_text(st, 2);

		KB_ALLOC_GROW(*out, *n + 1, alloc);
		r = &(*out)[(*n)++];
		snprintf(r->culprit, sizeof(r->culprit), "%s",
			 (const char *)sqlite3_column_text(st, 0));
		snprintf(r->parent_sha, sizeof(r->parent_sha), "%s", p ? (const char *)p : "");
		snprintf(r->sha, sizeof(r->sha), "%s", c ? (const char *)c : "");
		p = sqlite3_column_text(st, 3);
		snprintf(r->why, sizeof(r->why), "%s", p ? (const char *)p : "");
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		free(*out);
		*out = NULL;
		*n = 0;
		return db_fail(s, "reading the aligned builds");
	}
	return 0;
}

int kb_store_aligned_ends_add(struct kb_store *s, int64_t session,
			      const struct kb_aligned_ends_row *row)
{
	sqlite3_stmt *st;
	int ret, made = row->good_variant[0] && row->bad_variant[0];

	if ((ret = prepare(s, &st, "INSERT INTO aligned_ends (session, good_sha, bad_sha, "
			   "good_variant, bad_variant, why, created) VALUES (?, ?, ?, ?, ?, ?, ?)")) < 0)
		return ret;
	sqlite3_bind_int64(st, 1, session);
	sqlite3_bind_text(st, 2, row->good_sha, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 3, row->bad_sha, -1, SQLITE_TRANSIENT);
	if (made) {
		sqlite3_bind_text(st, 4, row->good_variant, -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(st, 5, row->bad_variant, -1, SQLITE_TRANSIENT);
	} else {
		sqlite3_bind_null(st, 4);
		sqlite3_bind_null(st, 5);
	}
	sqlite3_bind_text(st, 6, made ? "" : row->why, -1, SQLITE_TRANSIENT);
	sqlite3_bind_double(st, 7, kb_now());
	return step_done(s, st, "recording GOOD and BAD aligned");
}

int kb_store_aligned_ends(struct kb_store *s, int64_t session, struct kb_aligned_ends_row *out)
{
	sqlite3_stmt *st;
	int rc, ret, have = 0;

	memset(out, 0, sizeof(*out));
	if ((ret = prepare(s, &st, "SELECT good_sha, bad_sha, good_variant, bad_variant, why "
			   "FROM aligned_ends WHERE session = ? ORDER BY id DESC LIMIT 1")) < 0)
		return ret;
	sqlite3_bind_int64(st, 1, session);
	if ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		char *f[5] = { out->good_sha, out->bad_sha, out->good_variant, out->bad_variant,
			       out->why };
		size_t sz[5] = { sizeof(out->good_sha), sizeof(out->bad_sha),
				 sizeof(out->good_variant), sizeof(out->bad_variant),
				 sizeof(out->why) };

		for (int i = 0; i < 5; i++) {
			const unsigned char *t = sqlite3_column_text(st, i);

			snprintf(f[i], sz[i], "%s", t ? (const char *)t : "");
		}
		have = 1;
		rc = sqlite3_step(st);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return db_fail(s, "reading GOOD and BAD aligned");
	return have;
}

int kb_store_set_pairs(struct kb_store *s, int64_t session, const signed char *pairs,
		       size_t n)
{
	struct kb_buf sql = KB_BUF_INIT;
	sqlite3_stmt *st;
	size_t i;
	int ret;

	if (!n)
		return 0;
	/* one statement: all the pairs change at once, or none */
	kb_buf_adds(&sql, "INSERT OR REPLACE INTO pairs (session, machine, pair) VALUES ");
	for (i = 0; i < n; i++)
		kb_buf_adds(&sql, i ? ", (?, ?, ?)" : "(?, ?, ?)");
	ret = prepare(s, &st, sql.ptr);
	kb_buf_release(&sql);
	if (ret < 0)
		return ret;
	for (i = 0; i < n; i++) {
		sqlite3_bind_int64(st, (int)(3 * i + 1), session);
		sqlite3_bind_int(st, (int)(3 * i + 2), (int)i);
		sqlite3_bind_int(st, (int)(3 * i + 3), pairs[i]);
	}
	return step_done(s, st, "recording the verification pairs");
}

int kb_store_pairs(struct kb_store *s, int64_t session, signed char *pairs, size_t n)
{
	sqlite3_stmt *st;
	int rc, ret;

	if ((ret = prepare(s, &st, "SELECT machine, pair FROM pairs WHERE session = ?")) < 0)
		return ret;
	sqlite3_bind_int64(st, 1, session);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int m = sqlite3_column_int(st, 0);

		if (m >= 0 && (size_t)m < n)
			pairs[m] = (signed char)sqlite3_column_int(st, 1);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return db_fail(s, "reading the verification pairs");
	return 0;
}
