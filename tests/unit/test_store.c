#include <fcntl.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "event.h"
#include "store.h"
#include "test.h"

static char *db_path(void)
{
	return kb_asprintf("%s/state.db", kb_test_dir());
}

TEST(test_store__create_mode_and_schema)
{
	struct kb_store *s;
	char *p = db_path();
	struct stat st;
	sqlite3 *db;
	sqlite3_stmt *q;

	CHECK(kb_store_open(&s, p, KB_STORE_CREATE) == 0);
	kb_store_close(s);
	CHECK(stat(p, &st) == 0);
	CHECK((st.st_mode & 0777) == 0600);
	CHECK(sqlite3_open(p, &db) == SQLITE_OK);
	CHECK(sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &q, NULL) == SQLITE_OK);
	CHECK(sqlite3_step(q) == SQLITE_ROW);
	CHECK(sqlite3_column_int(q, 0) == KB_STORE_SCHEMA);
	sqlite3_finalize(q);
	sqlite3_close(db);
	free(p);
}

TEST(test_store__missing_without_create)
{
	struct kb_store *s;
	char *p = db_path();

	CHECK(kb_store_open(&s, p, 0) == KB_ENOSESSION);
	CHECK(access(p, F_OK) != 0);
	free(p);
}

TEST(test_store__newer_schema_refused)
{
	struct kb_store *s;
	char *p = db_path();
	sqlite3 *db;

	CHECK(sqlite3_open(p, &db) == SQLITE_OK);
	CHECK(sqlite3_exec(db, "PRAGMA user_version = 99", NULL, NULL, NULL) == SQLITE_OK);
	sqlite3_close(db);
	CHECK(kb_store_open(&s, p, 0) == KB_EVERSION);
	CHECK(strstr(kb_error_last(), "newer"));
	free(p);
}

TEST(test_store__not_a_database)
{
	struct kb_store *s;
	char *p = db_path();

	CHECK(kb_write_file_atomic(p, "hello, this is text\n", 20, 0600) == 0);
	CHECK(kb_store_open(&s, p, 0) == KB_EINVAL);
	CHECK(strstr(kb_error_last(), "not a kbisect database"));
	free(p);
}

TEST(test_store__lock_held_by_another_process)
{
	struct kb_store *s;
	char *p = db_path();
	int pfd[2];
	pid_t pid;
	char c;

	CHECK(kb_store_open(&s, p, KB_STORE_CREATE) == 0);
	kb_store_close(s);
	CHECK(pipe(pfd) == 0);
	pid = fork();
	if (pid == 0) {
		struct kb_store *h;

		if (kb_store_open(&h, p, KB_STORE_LOCK) < 0)
			_exit(1);
		if (write(pfd[1], "x", 1)) {}
		pause();
		_exit(0);
	}
	CHECK(read(pfd[0], &c, 1) == 1);
	CHECK(kb_store_open(&s, p, KB_STORE_LOCK) == KB_ELOCKED);
	{
		char want[32];

		snprintf(want, sizeof(want), "pid %ld", (long)pid);
		CHECK(strstr(kb_error_last(), want));
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	/* the kernel dropped the lock with its holder */
	CHECK(kb_store_open(&s, p, KB_STORE_LOCK) == 0);
	kb_store_close(s);
	free(p);
}

TEST(test_store__sessions_marks_runs)
{
	struct kb_store *s;
	struct kb_session_row row;
	struct kb_mark_row *marks;
	struct kb_run_row *runs, fin;
	char *p = db_path();
	int64_t id, run;
	size_t n;

	CHECK(kb_store_open(&s, p, KB_STORE_CREATE) == 0);
	CHECK(kb_store_session_active(s, &row) == KB_ENOSESSION);
	CHECK(kb_store_session_create(s, "{\"a\":1}", &id) == 0);
	CHECK(kb_store_session_active(s, &row) == 0);
	CHECK(row.id == id && !strcmp(row.state, "active") && !strcmp(row.spec, "{\"a\":1}"));
	kb_session_row_release(&row);
	CHECK(kb_store_run_start(s, id, "abc", 1, 2, NULL, &run) == 0);
	memset(&fin, 0, sizeof(fin));
	fin.id = run;
	fin.state = KB_RUN_DONE;
	fin.exit_status = 3;
	fin.has_value = 1;
	fin.value = 1.5;
	fin.output_tail = "out";
	CHECK(kb_store_run_finish(s, &fin) == 0);
	/* a run is finished once */
	CHECK(kb_store_run_finish(s, &fin) < 0);
	CHECK(kb_store_mark_add(s, id, "abc", 'b', "test", run) == 0);
	CHECK(kb_store_marks(s, id, &marks, &n) == 0);
	CHECK(n == 1 && marks[0].mark == 'b' && marks[0].run == run &&
	      !strcmp(marks[0].sha, "abc"));
	free(marks);
	CHECK(kb_store_runs(s, id, &runs, &n) == 0);
	CHECK(n == 1 && runs[0].state == KB_RUN_DONE && runs[0].exit_status == 3 &&
	      runs[0].has_value && runs[0].value == 1.5 && runs[0].boot == 1 &&
	      runs[0].run == 2 && !strcmp(runs[0].output_tail, "out"));
	kb_run_rows_free(runs, n);
	CHECK(kb_store_session_finish(s, id, "ended", NULL) == 0);
	CHECK(kb_store_session_active(s, &row) == KB_ENOSESSION);
	CHECK(kb_store_session_latest(s, &row) == 0 && row.id == id);
	kb_session_row_release(&row);
	kb_store_close(s);
	free(p);
}

TEST(test_store__rollback_leaves_nothing)
{
	struct kb_store *s;
	struct kb_mark_row *marks;
	char *p = db_path();
	int64_t id;
	size_t n;

	CHECK(kb_store_open(&s, p, KB_STORE_CREATE) == 0);
	CHECK(kb_store_session_create(s, "{}", &id) == 0);
	CHECK(kb_store_begin(s) == 0);
	CHECK(kb_store_mark_add(s, id, "abc", 'g', "test", 0) == 0);
	kb_store_rollback(s);
	CHECK(kb_store_marks(s, id, &marks, &n) == 0 && n == 0);
	free(marks);
	kb_store_close(s);
	free(p);
}

/* A database as kbisect wrote it before runs had a machine (version 1). */
static const char schema_v1[] =
	"CREATE TABLE sessions (id INTEGER PRIMARY KEY, created REAL NOT NULL,"
	"  state TEXT NOT NULL CHECK (state IN ('active','done','ended','compare')),"
	"  spec TEXT NOT NULL, verdict TEXT);"
	"CREATE TABLE marks (id INTEGER PRIMARY KEY,"
	"  session INTEGER NOT NULL REFERENCES sessions(id), sha TEXT NOT NULL,"
	"  mark TEXT NOT NULL CHECK (mark IN ('good','bad','skip')), source TEXT NOT NULL,"
	"  created REAL NOT NULL, run INTEGER REFERENCES runs(id));"
	"CREATE TABLE runs (id INTEGER PRIMARY KEY,"
	"  session INTEGER NOT NULL REFERENCES sessions(id), sha TEXT NOT NULL,"
	"  boot INTEGER NOT NULL, run INTEGER NOT NULL, state TEXT NOT NULL"
	"    CHECK (state IN ('started','done','interrupted','aborted')),"
	"  started REAL NOT NULL, finished REAL, exit_status INTEGER, term_signal INTEGER,"
	"  timed_out INTEGER NOT NULL DEFAULT 0, value REAL, output_tail TEXT, dir TEXT);"
	"CREATE INDEX runs_by_session ON runs(session, sha);"
	"CREATE INDEX marks_by_session ON marks(session);"
	"CREATE TABLE events (id INTEGER PRIMARY KEY,"
	"  session INTEGER NOT NULL REFERENCES sessions(id), ts REAL NOT NULL,"
	"  kind TEXT NOT NULL, detail TEXT NOT NULL);"
	"INSERT INTO sessions VALUES (1, 1.0, 'active', '{}', NULL);"
	"INSERT INTO runs (session, sha, boot, run, state, started, value) VALUES"
	"  (1, '0123456789012345678901234567890123456789', 1, 1, 'done', 2.0, 4.5);"
	"PRAGMA user_version = 1;";

TEST(test_store__version_1_gets_the_machine_of_each_run)
{
	struct kb_store *s;
	struct kb_run_row *rows;
	char *p = db_path();
	size_t n;
	int64_t id;
	sqlite3 *db;

	CHECK(sqlite3_open(p, &db) == SQLITE_OK);
	CHECK(sqlite3_exec(db, schema_v1, NULL, NULL, NULL) == SQLITE_OK);
	sqlite3_close(db);
	CHECK_MSG(kb_store_open(&s, p, 0) == 0, "%s", kb_error_last());
	kb_store_set_machine(s, 3);
	CHECK(kb_store_run_start(s, 1, "0123456789012345678901234567890123456789", 2, 1, NULL,
				 &id) == 0);
	CHECK(kb_store_runs(s, 1, &rows, &n) == 0);
	CHECK(n == 2);
	/* the old run: the one target; the new one: where it ran */
	CHECK(rows[0].machine == 0 && rows[0].has_value && rows[0].value == 4.5);
	CHECK(rows[1].machine == 3 && rows[1].state == KB_RUN_STARTED);
	kb_run_rows_free(rows, n);
	kb_store_close(s);
	CHECK(sqlite3_open(p, &db) == SQLITE_OK);
	{
		sqlite3_stmt *q;

		CHECK(sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &q, NULL) == SQLITE_OK);
		CHECK(sqlite3_step(q) == SQLITE_ROW &&
		      sqlite3_column_int(q, 0) == KB_STORE_SCHEMA);
		sqlite3_finalize(q);
	}
	sqlite3_close(db);
	free(p);
}

/* Schema 2 kept the reverts and the verification pairs as events. */
static const char schema_v2_events[] =
	"INSERT INTO events (session, ts, kind, detail) VALUES"
	"  (1, 1.0, 'revert', '0123456789012345678901234567890123456789 -'),"
	"  (1, 2.0, 'verify', '0 1 0'),"
	"  (1, 3.0, 'build', '0123456789012345678901234567890123456789 built 2.5 6.1.0-kb'),"
	"  (1, 4.0, 'revert', 'abcdefabcdefabcdefabcdefabcdefabcdefabcd "
	"1111111111111111111111111111111111111111'),"
	"  (1, 5.0, 'verify', '1 -1');"
	"PRAGMA user_version = 2;";

TEST(test_store__version_2_reverts_and_pairs_become_tables)
{
	struct kb_store *s;
	struct kb_revert_row *rv;
	struct kb_event *ev;
	signed char pairs[4] = { 9, 9, 9, 9 };
	char *p = db_path();
	size_t n;
	sqlite3 *db;

	CHECK(sqlite3_open(p, &db) == SQLITE_OK);
	CHECK(sqlite3_exec(db, schema_v1, NULL, NULL, NULL) == SQLITE_OK);
	CHECK(sqlite3_exec(db, "ALTER TABLE runs ADD COLUMN machine INTEGER NOT NULL DEFAULT 0",
			   NULL, NULL, NULL) == SQLITE_OK);
	CHECK(sqlite3_exec(db, schema_v2_events, NULL, NULL, NULL) == SQLITE_OK);
	sqlite3_close(db);
	CHECK_MSG(kb_store_open(&s, p, 0) == 0, "%s", kb_error_last());
	CHECK(kb_store_reverts(s, 1, &rv, &n) == 0);
	CHECK(n == 2);
	CHECK(!strcmp(rv[0].culprit, "0123456789012345678901234567890123456789") &&
	      !rv[0].sha[0]);
	CHECK(!strcmp(rv[1].culprit, "abcdefabcdefabcdefabcdefabcdefabcdefabcd") &&
	      !strcmp(rv[1].sha, "1111111111111111111111111111111111111111"));
	free(rv);
	/* the later event changed the first two machines; the third kept its pair */
	CHECK(kb_store_pairs(s, 1, pairs, 4) == 0);
	CHECK(pairs[0] == 1 && pairs[1] == -1 && pairs[2] == 0 && pairs[3] == 9);
	/* the events left are the others, read as they were */
	CHECK(kb_events_read(s, 1, &ev, &n) == 0);
	CHECK(n == 1 && ev[0].kind == KB_EV_BUILD && ev[0].result == KB_EV_BUILT &&
	      ev[0].seconds == 2.5 && !strcmp(ev[0].release, "6.1.0-kb"));
	kb_events_free(ev, n);
	/* pairs are set together and read back */
	pairs[0] = 0;
	pairs[1] = 1;
	CHECK(kb_store_set_pairs(s, 1, pairs, 2) == 0);
	memset(pairs, 9, sizeof(pairs));
	CHECK(kb_store_pairs(s, 1, pairs, 4) == 0);
	CHECK(pairs[0] == 0 && pairs[1] == 1 && pairs[2] == 0 && pairs[3] == 9);
	kb_store_close(s);
	free(p);
}

/* The runs of session 1 hold the metrics 'want'
 * ("name=value" or "name=-" for a value missing, space-separated, for each
 * run; runs separated by '|'). */
static int metrics_are(struct kb_store *s, const char *want)
{
	struct kb_run_row *rows;
	struct kb_buf got = KB_BUF_INIT;
	size_t n, i, k;
	int ok;

	if (kb_store_runs(s, 1, &rows, &n) < 0)
		return 0;
	for (i = 0; i < n; i++) {
		kb_buf_adds(&got, i ? "|" : "");
		for (k = 0; k < rows[i].nmetrics; k++) {
			const struct kb_run_metric *m = &rows[i].metrics[k];

			if (m->has_value)
				kb_buf_addf(&got, "%s%s=%g", k ? " " : "", m->name, m->value);
			else
				kb_buf_addf(&got, "%s%s=-", k ? " " : "", m->name);
		}
	}
	ok = !strcmp(got.ptr ? got.ptr : "", want);
	if (!ok)
		fprintf(stderr, "# runs' metrics: '%s', not '%s'\n", got.ptr, want);
	kb_buf_release(&got);
	kb_run_rows_free(rows, n);
	return ok;
}

static const char sha1[] = "0123456789012345678901234567890123456789";
static const char sha2[] = "1123456789012345678901234567890123456789";
static const char sha3[] = "2123456789012345678901234567890123456789";

/* Each run's secondary metrics go in with its outcome, in one
 * transaction with it, and come back with the runs, missing ones too. */
TEST(test_store__secondary_metrics_of_runs)
{
	struct kb_store *s;
	struct kb_run_row fin;
	struct kb_run_metric m[3] = {
		{ "p50", 1, 50.5 }, { "iops", 0, 0 }, { "bw", 1, -2 },
	};
	char *p = db_path();
	int64_t sess, id[3];

	CHECK(kb_store_open(&s, p, KB_STORE_CREATE) == 0);
	CHECK(kb_store_session_create(s, "{}", &sess) == 0 && sess == 1);
	CHECK(kb_store_run_start(s, 1, sha1, 1, 1, NULL, &id[0]) == 0);
	CHECK(kb_store_run_start(s, 1, sha1, 1, 2, NULL, &id[1]) == 0);
	CHECK(kb_store_run_start(s, 1, sha1, 1, 3, NULL, &id[2]) == 0);
	CHECK(metrics_are(s, "||"));
	memset(&fin, 0, sizeof(fin));
	fin.id = id[1];
	fin.state = KB_RUN_DONE;
	fin.has_value = 1;
	fin.value = 7;
	fin.metrics = m;
	fin.nmetrics = 3;
	CHECK(kb_store_run_finish(s, &fin) == 0);
	CHECK(metrics_are(s, "|p50=50.5 iops=- bw=-2|"));
	/* a run whose result is rolled back leaves no metric behind */
	fin.id = id[2];
	fin.nmetrics = 1;
	CHECK(kb_store_begin(s) == 0);
	CHECK(kb_store_run_finish(s, &fin) == 0);
	kb_store_rollback(s);
	CHECK(metrics_are(s, "|p50=50.5 iops=- bw=-2|"));
	/* added to later (a replay), a metric recorded gets the new value */
	m[1].has_value = 1;
	m[1].value = 3;
	CHECK(kb_store_run_metrics_set(s, id[0], m, 2) == 0);
	CHECK(kb_store_run_metrics_set(s, id[1], &m[1], 1) == 0);
	CHECK(metrics_are(s, "p50=50.5 iops=3|p50=50.5 iops=3 bw=-2|"));
	/* only the runs of the session asked for */
	{
		struct kb_run_row *rows;
		size_t n;

		CHECK(kb_store_session_create_as(s, "{}", "compare", &sess) == 0);
		CHECK(kb_store_run_start(s, sess, sha1, 1, 1, NULL, &id[0]) == 0);
		CHECK(kb_store_run_metrics_set(s, id[0], m, 1) == 0);
		CHECK(kb_store_runs(s, sess, &rows, &n) == 0 && n == 1 && rows[0].nmetrics == 1);
		kb_run_rows_free(rows, n);
	}
	CHECK(metrics_are(s, "p50=50.5 iops=3|p50=50.5 iops=3 bw=-2|"));
	kb_store_close(s);
	free(p);
}

/* Schema 3, as kbisect wrote it before runs had secondary metrics. */
static const char schema_v3[] =
	"ALTER TABLE runs ADD COLUMN machine INTEGER NOT NULL DEFAULT 0;"
	"CREATE TABLE reverts (id INTEGER PRIMARY KEY,"
	"  session INTEGER NOT NULL REFERENCES sessions(id), culprit TEXT NOT NULL,"
	"  sha TEXT, created REAL NOT NULL);"
	"CREATE TABLE pairs (session INTEGER NOT NULL REFERENCES sessions(id),"
	"  machine INTEGER NOT NULL, pair INTEGER NOT NULL,"
	"  PRIMARY KEY (session, machine));"
	"INSERT INTO reverts (session, culprit, sha, created) VALUES"
	"  (1, '0123456789012345678901234567890123456789', NULL, 3.0);"
	"INSERT INTO pairs VALUES (1, 0, 1);"
	"INSERT INTO events (session, ts, kind, detail) VALUES"
	"  (1, 3.0, 'build', '0123456789012345678901234567890123456789 built 2.5 6.1.0-kb');"
	"PRAGMA user_version = 3;";

TEST(test_store__version_3_gets_the_metrics_of_runs_and_the_aligned_builds_and_ends)
{
	struct kb_store *s;
	struct kb_run_row *rows, fin;
	struct kb_revert_row *rv;
	struct kb_aligned_row *al;
	struct kb_event *ev;
	struct kb_run_metric m = { "p50", 1, 12 };
	signed char pairs[2] = { 9, 9 };
	char *p = db_path();
	size_t n;
	int64_t id;
	sqlite3 *db;

	CHECK(sqlite3_open(p, &db) == SQLITE_OK);
	CHECK(sqlite3_exec(db, schema_v1, NULL, NULL, NULL) == SQLITE_OK);
	CHECK(sqlite3_exec(db, schema_v3, NULL, NULL, NULL) == SQLITE_OK);
	sqlite3_close(db);
	CHECK_MSG(kb_store_open(&s, p, 0) == 0, "%s", kb_error_last());
	/* what schema 3 held is as it was: the old run has no metrics */
	CHECK(kb_store_runs(s, 1, &rows, &n) == 0);
	CHECK(n == 1 && rows[0].has_value && rows[0].value == 4.5 && rows[0].nmetrics == 0);
	kb_run_rows_free(rows, n);
	CHECK(kb_store_reverts(s, 1, &rv, &n) == 0 && n == 1 && !rv[0].sha[0]);
	free(rv);
	CHECK(kb_store_pairs(s, 1, pairs, 2) == 0 && pairs[0] == 1 && pairs[1] == 9);
	CHECK(kb_events_read(s, 1, &ev, &n) == 0 && n == 1 && ev[0].kind == KB_EV_BUILD);
	kb_events_free(ev, n);
	/* no aligned builds before schema 5; new ones are kept, oldest first,
	 * one that could not be made as "" */
	CHECK(kb_store_aligned(s, 1, &al, &n) == 0 && n == 0);
	CHECK(kb_store_aligned_add(s, 1, sha1, sha2, sha3, NULL) == 0);
	CHECK(kb_store_aligned_add(s, 1, sha2, NULL, NULL, "no option") == 0);
	CHECK(kb_store_aligned(s, 1, &al, &n) == 0 && n == 2);
	CHECK(!strcmp(al[0].culprit, sha1) && !strcmp(al[0].parent_sha, sha2) &&
	      !strcmp(al[0].sha, sha3));
	CHECK(!strcmp(al[1].culprit, sha2) && !al[1].parent_sha[0] && !al[1].sha[0] &&
	      !strcmp(al[1].why, "no option") && !al[0].why[0]);
	free(al);
	/* nor GOOD and BAD aligned before schema 6; the latest is the one */
	{
		struct kb_aligned_ends_row e, got;

		CHECK(kb_store_aligned_ends(s, 1, &got) == 0 && !got.good_sha[0]);
		memset(&e, 0, sizeof(e));
		memcpy(e.good_sha, sha1, 41);
		memcpy(e.bad_sha, sha2, 41);
		snprintf(e.why, sizeof(e.why), "the tree of GOOD has no option");
		CHECK(kb_store_aligned_ends_add(s, 1, &e) == 0);
		CHECK(kb_store_aligned_ends(s, 1, &got) == 1 && !strcmp(got.good_sha, sha1) &&
		      !strcmp(got.bad_sha, sha2) && !got.good_variant[0] &&
		      !got.bad_variant[0] && !strcmp(got.why, e.why));
		memcpy(e.good_variant, sha3, 41);
		memcpy(e.bad_variant, sha1, 41);
		CHECK(kb_store_aligned_ends_add(s, 1, &e) == 0);
		CHECK(kb_store_aligned_ends(s, 1, &got) == 1 &&
		      !strcmp(got.good_variant, sha3) && !strcmp(got.bad_variant, sha1) &&
		      !got.why[0]);
		/* one a variant of which is missing is not made */
		e.bad_variant[0] = '\0';
		CHECK(kb_store_aligned_ends_add(s, 1, &e) == 0);
		CHECK(kb_store_aligned_ends(s, 1, &got) == 1 && !got.good_variant[0] &&
		      !strcmp(got.why, e.why));
		CHECK(kb_store_aligned_ends(s, 2, &got) == 0);
	}
	/* and a new run records its metrics */
	CHECK(kb_store_run_start(s, 1, sha1, 2, 1, NULL, &id) == 0);
	memset(&fin, 0, sizeof(fin));
	fin.id = id;
	fin.state = KB_RUN_DONE;
	fin.metrics = &m;
	fin.nmetrics = 1;
	CHECK(kb_store_run_finish(s, &fin) == 0);
	CHECK(metrics_are(s, "|p50=12"));
	kb_store_close(s);
	CHECK(sqlite3_open(p, &db) == SQLITE_OK);
	{
		sqlite3_stmt *q;

		CHECK(sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &q, NULL) == SQLITE_OK);
		CHECK(sqlite3_step(q) == SQLITE_ROW &&
		      sqlite3_column_int(q, 0) == KB_STORE_SCHEMA && KB_STORE_SCHEMA == 6);
		sqlite3_finalize(q);
	}
	sqlite3_close(db);
	free(p);
}
