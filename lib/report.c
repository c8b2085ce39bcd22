/* The report and status objects of a session, built from the database. */
#include <stdlib.h>
#include <string.h>

#include "mail.h"
#include "session_int.h"

json_t *kb_session_commit_json(struct kb_session *s, const git_oid *oid)
{
	struct kb_commit_info info;
	char hex[GIT_OID_HEXSZ + 1];
	json_t *o;

	git_oid_tostr(hex, sizeof(hex), oid);
	o = json_pack("{s:s}", "commit", hex);
	if (kb_repo_commit_info(s->repo, oid, &info) == 0) {
		json_object_set_new(o, "subject", json_string(info.subject));
		json_object_set_new(o, "author", json_string(info.author));
		json_object_set_new(o, "date", json_integer(info.time));
		kb_commit_info_release(&info);
	}
	kb_error_clear();
	return o;
}

/* The people a report about the culprit 'o' goes to: its author and
 * those of its trailers ("people"). */
void kb_session_culprit_people(struct kb_session *s, json_t *o)
{
	const char *sha = json_string_value(json_object_get(o, "commit"));
	struct kb_commit_info info;
	struct kb_strv people = KB_STRV_INIT;
	json_t *a = json_array();
	git_oid oid;
	size_t i;

	if (sha && git_oid_fromstr(&oid, sha) == 0 &&
	    kb_repo_commit_info(s->repo, &oid, &info) == 0) {
		kb_mail_people(info.author, info.message, &people);
		kb_commit_info_release(&info);
	}
	kb_error_clear();
	for (i = 0; i < people.n; i++)
		json_array_append_new(a, json_string(people.v[i]));
	kb_strv_clear(&people);
	json_object_set_new(o, "people", a);
}

/* Why a skipped commit was skipped: the error lines of its failed kernel
 * build ("build_error") or of its failed boot ("boot_error"), from the
 * events. */
void kb_session_build_error(struct kb_session *s, const char *sha, json_t *o)
{
	struct kb_event_row *ev;
	size_t n, i, len = strlen(sha);

	if (kb_store_events(s->store, s->row.id, &ev, &n) < 0) {
		kb_error_clear();
		return;
	}
	for (i = 0; i < n; i++) {
		const char *nl;

		if ((strcmp(ev[i].kind, "build") && strcmp(ev[i].kind, "boot")) ||
		    strncmp(ev[i].detail, sha, len) ||
		    strncmp(ev[i].detail + len, " failed", 7) || !(nl = strchr(ev[i].detail, '\n')))
			continue;
		json_object_set_new(o, !strcmp(ev[i].kind, "build") ? "build_error" : "boot_error",
				    json_string(nl + 1));
	}
	kb_event_rows_free(ev, n);
}

void kb_session_target_info(struct kb_session *s, json_t *o)
{
	struct kb_event_row *ev;
	size_t n, i;
	char accel[16] = "";

	if (kb_store_events(s->store, s->row.id, &ev, &n) < 0) {
		kb_error_clear();
		return;
	}
	for (i = 0; i < n; i++) {
		char sha[64], what[16], a[16];

		if (!strcmp(ev[i].kind, "boot") &&
		    sscanf(ev[i].detail, "%63s %15s %15s", sha, what, a) == 3 && strcmp(a, "-"))
			snprintf(accel, sizeof(accel), "%s", a);
	}
	kb_event_rows_free(ev, n);
	if (accel[0])
		json_object_set_new(o, "accel", json_string(accel));
	if (s->spec.machine) {
		json_error_t jerr;
		json_t *m = json_loads(s->spec.machine, 0, &jerr);

		if (m)
			json_object_set_new(o, "machine", m);
	}
}

/* How the session was started, for the report's "test setup" and "how to
 * reproduce": revisions as given, range options, build, benchmark. */
void kb_session_setup_info(struct kb_session *s, json_t *o)
{
	json_t *setup = json_object(), *goods = json_array(), *paths = json_array(), *b;
	json_error_t jerr;
	size_t i;

	for (i = 0; i < s->spec.good_specs.n; i++)
		json_array_append_new(goods, json_string(s->spec.good_specs.v[i]));
	for (i = 0; i < s->spec.paths.n; i++)
		json_array_append_new(paths, json_string(s->spec.paths.v[i]));
	json_object_set_new(setup, "good_specs", goods);
	json_object_set_new(setup, "bad_spec", json_string(s->spec.bad_spec ?
							   s->spec.bad_spec : ""));
	json_object_set_new(setup, "paths", paths);
	json_object_set_new(setup, "first_parent", json_boolean(s->spec.first_parent));
	json_object_set_new(setup, "build", json_string(s->spec.build ? s->spec.build : ""));
	if (s->spec.kconfig)
		json_object_set_new(setup, "kconfig", json_string(s->spec.kconfig));
	if (s->spec.fragments)
		json_object_set_new(setup, "fragments", json_string(s->spec.fragments));
	json_object_set_new(setup, "confidence", json_real(s->spec.confidence));
	if (s->spec.bench.json && (b = json_loads(s->spec.bench.json, 0, &jerr)))
		json_object_set_new(setup, "benchmark", b);
	json_object_set_new(o, "setup", setup);
}

static json_t *step_json(struct kb_session *s, const struct kb_mark_row *m)
{
	json_t *o, *samples = json_array();
	git_oid oid;
	int boots = 0, last_boot = -1, exit_status = -1;
	size_t i;

	git_oid_fromstr(&oid, m->sha);
	o = kb_session_commit_json(s, &oid);
	for (i = 0; i < s->nruns; i++) {
		const struct kb_run_row *r = &s->runs[i];

		if (strcmp(r->sha, m->sha) || r->state != KB_RUN_DONE)
			continue;
		if (r->boot != last_boot) {
			boots++;
			last_boot = r->boot;
		}
		if (r->has_value)
			json_array_append_new(samples, json_real(r->value));
		if (r->id == m->run)
			exit_status = r->exit_status;
	}
	json_object_set_new(o, "decision", json_string(
		m->mark == KB_MARK_GOOD ? "good" : m->mark == KB_MARK_BAD ? "bad" : "skip"));
	json_object_set_new(o, "source", json_string(m->source));
	json_object_set_new(o, "samples", samples);
	json_object_set_new(o, "boots", json_integer(boots));
	if (exit_status >= 0)
		json_object_set_new(o, "exit_status", json_integer(exit_status));
	if (m->mark == KB_MARK_SKIP)
		kb_session_build_error(s, m->sha, o);
	return o;
}

static void warn(json_t *warnings, const char *kind, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void warn(json_t *warnings, const char *kind, const char *fmt, ...)
{
	struct kb_buf b = KB_BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	kb_buf_vaddf(&b, fmt, ap);
	va_end(ap);
	json_array_append_new(warnings, json_pack("{s:s, s:s}", "kind", kind,
						  "message", b.ptr));
	kb_buf_release(&b);
}

size_t kb_session_builds_total(struct kb_session *s)
{
	struct kb_event_row *ev;
	size_t n, i, count = 0;

	if (kb_store_events(s->store, s->row.id, &ev, &n) < 0) {
		kb_error_clear();
		return 0;
	}
	for (i = 0; i < n; i++)
		count += !strcmp(ev[i].kind, "build") && !strstr(ev[i].detail, " cached ");
	kb_event_rows_free(ev, n);
	return count;
}

int kb_session_report(struct kb_session *s, json_t **out)
{
	struct kb_next next;
	json_t *o, *culprits = json_array(), *warnings = json_array(),
	       *steps = json_array(), *goods = json_array();
	size_t i, nskip = 0, runs = 0;
	int ret;

	if (s->spec.bench.has_metric || !strcmp(s->spec.kind, "compare")) {
		json_decref(culprits);
		json_decref(warnings);
		json_decref(steps);
		json_decref(goods);
		return !strcmp(s->spec.kind, "compare") ? kb_compare_report(s, out) :
			kb_perf_report(s, out);
	}
	if ((ret = kb_session_next(s, &next)) < 0) {
		json_decref(culprits);
		json_decref(warnings);
		json_decref(steps);
		json_decref(goods);
		return ret;
	}
	for (i = 0; i < s->spec.good_shas.n; i++)
		json_array_append_new(goods, json_string(s->spec.good_shas.v[i]));
	for (i = 0; i < s->nmark_rows; i++) {
		json_array_append_new(steps, step_json(s, &s->mark_rows[i]));
		nskip += s->mark_rows[i].mark == KB_MARK_SKIP;
	}
	for (i = 0; i < s->nruns; i++)
		runs += s->runs[i].state == KB_RUN_DONE;
	o = json_pack("{s:i, s:s, s:s, s:s, s:o, s:n}",
		      "version", 1, "mode", "pass-fail",
		      "good", s->spec.good_shas.v[0], "bad", s->spec.bad_sha,
		      "goods", goods, "metric");
	if (next.kind == KB_NEXT_FOUND) {
		json_t *c = kb_session_commit_json(s, &s->dag.oid[next.commit]);

		json_object_set_new(c, "probability", json_real(1.0));
		json_object_set_new(c, "checks", json_object());
		kb_session_culprit_people(s, c);
		json_array_append_new(culprits, c);
		json_object_set_new(o, "verdict", json_string("culprit"));
	} else if (next.kind == KB_NEXT_SUSPECTS) {
		json_t *sus = json_array();

		for (i = 0; i < next.nsuspects; i++)
			json_array_append_new(sus, kb_session_commit_json(s, &s->dag.oid[next.suspects[i]]));
		json_object_set_new(o, "suspects", sus);
		json_object_set_new(o, "verdict", json_string("inconclusive"));
		warn(warnings, "skipped", "only skipped commits are left to test: "
		     "the first bad commit could be any of %zu commits", next.nsuspects);
	} else {
		json_object_set_new(o, "verdict", json_string("inconclusive"));
		warn(warnings, "unfinished", "the bisection has not finished: %zu "
		     "candidates left, roughly %d steps", next.nleft,
		     next.steps_left + 1);
	}
	if (nskip && next.kind != KB_NEXT_SUSPECTS)
		warn(warnings, "skipped", "%zu commit%s could not be tested and %s skipped",
		     nskip, nskip == 1 ? "" : "s", nskip == 1 ? "was" : "were");
	json_object_set_new(o, "culprits", culprits);
	json_object_set_new(o, "warnings", warnings);
	json_object_set_new(o, "steps", steps);
	json_object_set_new(o, "runs_total", json_integer((json_int_t)runs));
	json_object_set_new(o, "builds_total", json_integer((json_int_t)kb_session_builds_total(s)));
	json_object_set_new(o, "bench", json_string(s->spec.bench.name));
	json_object_set_new(o, "target", json_string(s->spec.target));
	kb_session_target_info(s, o);
	kb_session_setup_info(s, o);
	json_object_set_new(o, "range", json_integer((json_int_t)s->dag.g.n));
	json_object_set_new(o, "state", json_string(s->row.state));
	kb_next_release(&next);
	*out = o;
	return 0;
}

/* Each machine of a pool: its target, what it does and since when
 * ("testing", "idle", or "retired" with the reason), from the events. */
static json_t *machines_json(struct kb_session *s)
{
	json_t *a = json_array();
	struct kb_event_row *ev;
	size_t n, i, k;

	for (k = 0; k <= s->spec.pool.n; k++) {
		const char *target = s->spec.target;
		json_error_t jerr;
		json_t *m = NULL;

		if (k) {
			m = json_loads(s->spec.pool.v[k - 1], 0, &jerr);
			target = json_string_value(json_object_get(m, "target"));
		}
		json_array_append_new(a, json_pack("{s:i, s:s, s:s}", "machine", (int)k,
						   "target", target ? target : "", "state",
						   "idle"));
		json_decref(m);
	}
	if (kb_store_events(s->store, s->row.id, &ev, &n) < 0) {
		kb_error_clear();
		return a;
	}
	for (i = 0; i < n; i++) {
		char what[16], sha[64];
		int slot, len = 0;
		json_t *m;

		if (strcmp(ev[i].kind, "machine") ||
		    sscanf(ev[i].detail, "%d %15s %n", &slot, what, &len) < 2 ||
		    !(m = json_array_get(a, (size_t)slot)))
			continue;
		if (!strcmp(what, "testing") && sscanf(ev[i].detail + len, "%63s", sha) == 1) {
			json_object_set_new(m, "state", json_string("testing"));
			json_object_set_new(m, "commit", json_string(sha));
			json_object_set_new(m, "since", json_real(ev[i].ts));
		} else if (!strcmp(what, "done") || !strcmp(what, "failed")) {
			json_object_set_new(m, "state", json_string("idle"));
			json_object_del(m, "commit");
			json_object_set_new(m, "since", json_real(ev[i].ts));
		} else if (!strcmp(what, "retired")) {
			const char *nl = strchr(ev[i].detail, '\n');

			json_object_set_new(m, "state", json_string("retired"));
			json_object_del(m, "commit");
			json_object_set_new(m, "since", json_real(ev[i].ts));
			json_object_set_new(m, "reason", json_string(nl ? nl + 1 : ""));
		}
	}
	kb_event_rows_free(ev, n);
	return a;
}

int kb_session_status(struct kb_session *s, json_t **out)
{
	struct kb_next next;
	json_t *o, *goods = json_array(), *running = json_array();
	size_t i;
	int ret;

	if ((ret = kb_session_next(s, &next)) < 0) {
		json_decref(goods);
		json_decref(running);
		return ret;
	}
	for (i = 0; i < s->spec.good_specs.n; i++)
		json_array_append_new(goods, json_pack("{s:s, s:s}",
			"spec", s->spec.good_specs.v[i], "sha", s->spec.good_shas.v[i]));
	for (i = 0; i < s->nruns; i++) {
		const struct kb_run_row *r = &s->runs[i];

		if (r->state != KB_RUN_STARTED)
			continue;
		json_array_append_new(running, json_pack("{s:I, s:s, s:i, s:i, s:f, s:i}",
			"run", (json_int_t)r->id, "commit", r->sha, "boot", r->boot,
			"run_in_boot", r->run, "seconds", kb_now() - r->started,
			"machine", r->machine));
	}
	o = json_pack("{s:i, s:I, s:s, s:s, s:o, s:{s:s, s:s}, s:s, s:s, s:i, s:i, s:i}",
		      "version", 1, "session", (json_int_t)s->row.id,
		      "state", s->row.state, "repo", s->spec.repo, "good", goods,
		      "bad", "spec", s->spec.bad_spec, "sha", s->spec.bad_sha,
		      "bench", s->spec.bench.name, "target", s->spec.target,
		      "range", (int)s->dag.g.n, "candidates", (int)next.nleft,
		      "tested", (int)s->nmark_rows);
	json_object_set_new(o, "running", running);
	if (s->spec.pool.n) {
		json_object_set_new(o, "machines", machines_json(s));
		json_object_set_new(o, "rounds_left", json_integer(
			kb_bisect_rounds(next.nleft, s->spec.pool.n + 1)));
	}
	kb_session_target_info(s, o);
	if (s->spec.bench.has_metric) {
		kb_next_release(&next);
		ret = kb_perf_status(s, o);
		if (ret < 0) {
			json_decref(o);
			return ret;
		}
		*out = o;
		return 0;
	}
	if (next.kind == KB_NEXT_TEST) {
		json_t *c = kb_session_commit_json(s, &s->dag.oid[next.commit]);

		json_object_set_new(o, "next", c);
		json_object_set_new(o, "steps_left", json_integer(next.steps_left + 1));
	} else {
		json_object_set_new(o, "next", json_null());
		json_object_set_new(o, "steps_left", json_integer(0));
		json_object_set_new(o, "verdict", json_string(
			next.kind == KB_NEXT_FOUND ? "culprit" : "inconclusive"));
		if (next.kind == KB_NEXT_FOUND) {
			char hex[GIT_OID_HEXSZ + 1];

			git_oid_tostr(hex, sizeof(hex), &s->dag.oid[next.commit]);
			json_object_set_new(o, "culprit", json_string(hex));
		}
	}
	kb_next_release(&next);
	*out = o;
	return 0;
}
