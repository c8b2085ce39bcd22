/* The report and status objects of a session, built from the database. */
#include <stdlib.h>
#include <string.h>

#include "mail.h"
#include "metrics.h"
#include "mode.h"

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
 * those of its trailers ("people"), as the repository's .mailmap has
 * them. */
void kb_session_culprit_people(struct kb_session *s, json_t *o)
{
	const char *sha = json_string_value(json_object_get(o, "commit"));
	struct kb_commit_info info;
	struct kb_strv people = KB_STRV_INIT;
	git_mailmap *mm = NULL;
	json_t *a = json_array();
	git_oid oid;
	size_t i;

	if (sha && git_oid_fromstr(&oid, sha) == 0 &&
	    kb_repo_commit_info(s->repo, &oid, &info) == 0) {
		/* no mailmap that can be read: the names as the commit has them */
		if (git_mailmap_from_repository(&mm, s->repo) < 0)
			mm = NULL;
		kb_mail_people(info.author, info.message, mm, &people);
		git_mailmap_free(mm);
		kb_commit_info_release(&info);
	}
	git_error_clear();
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
	struct kb_event *ev;
	size_t n, i;

	if (kb_events_read(s->store, s->row.id, &ev, &n) < 0) {
		kb_error_clear();
		return;
	}
	for (i = 0; i < n; i++) {
		const struct kb_event *e = &ev[i];
		int build = e->kind == KB_EV_BUILD ||
			    (e->kind == KB_EV_HOOK && !strcmp(e->hook, "build"));

		if ((!build && e->kind != KB_EV_BOOT) || e->result != KB_EV_FAILED ||
		    e->ahead || strcmp(e->sha, sha))
			continue;
		json_object_set_new(o, build ? "build_error" : "boot_error",
				    json_string(e->text));
	}
	kb_events_free(ev, n);
}

void kb_session_target_info(struct kb_session *s, json_t *o)
{
	struct kb_event *ev;
	size_t n, i;
	char accel[16] = "";

	if (kb_events_read(s->store, s->row.id, &ev, &n) < 0) {
		kb_error_clear();
		return;
	}
	for (i = 0; i < n; i++)
		if (ev[i].kind == KB_EV_BOOT && ev[i].accel[0])
			memcpy(accel, ev[i].accel, sizeof(accel));
	/* the jobs of a lab, each as it was last heard of */
	for (i = 0; i < n; i++) {
		json_t *jobs = json_object_get(o, "lab_jobs"), *j = NULL, *e;
		size_t k;

		if (ev[i].kind != KB_EV_JOB)
			continue;
		if (!jobs)
			json_object_set_new(o, "lab_jobs", jobs = json_array());
		json_array_foreach(jobs, k, e)
			if (json_integer_value(json_object_get(e, "id")) == ev[i].job)
				j = e;
		if (!j) {
			j = json_object();
			json_array_append_new(jobs, j);
		}
		json_object_set_new(j, "commit", json_string(ev[i].sha));
		json_object_set_new(j, "boot", json_integer(ev[i].boot));
		json_object_set_new(j, "id", json_integer(ev[i].job));
		json_object_set_new(j, "url", json_string(ev[i].text ? ev[i].text : ""));
		json_object_set_new(j, "state", json_string(ev[i].state));
		if (ev[i].device[0])
			json_object_set_new(j, "device", json_string(ev[i].device));
	}
	kb_events_free(ev, n);
	if (accel[0])
		json_object_set_new(o, "accel", json_string(accel));
	if (kb_spec_machine_file(&s->spec, 0))
		json_object_set_new(o, "machine", json_deep_copy(kb_spec_machine_file(&s->spec, 0)));
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
	json_object_set_new(setup, "seed", json_integer((json_int_t)(s->spec.seed &
								    0x7fffffffffffffffULL)));
	json_object_set_new(setup, "good_shas", json_array());
	for (i = 0; i < s->spec.good_shas.n; i++)
		json_array_append_new(json_object_get(setup, "good_shas"),
				      json_string(s->spec.good_shas.v[i]));
	json_object_set_new(setup, "bad_sha", json_string(s->spec.bad_sha ? s->spec.bad_sha : ""));
	if (s->spec.bench_arg)
		json_object_set_new(setup, "bench_arg", json_string(s->spec.bench_arg));
	if (s->spec.term_old && s->spec.term_new)
		json_object_set_new(setup, "terms", json_pack("[s, s]", s->spec.term_old,
							      s->spec.term_new));
	if (s->spec.target_args.n) {
		json_t *t = json_array();

		for (i = 0; i < s->spec.target_args.n; i++)
			json_array_append_new(t, json_string(s->spec.target_args.v[i]));
		json_object_set_new(setup, "target_args", t);
	}
	if (s->spec.scale != 1.0)
		json_object_set_new(setup, "scale", json_real(s->spec.scale));
	if (s->spec.boot_fail == 'b')
		json_object_set_new(setup, "boot_failure", json_string("bad"));
	if (s->spec.rebuild_check == 'n')
		json_object_set_new(setup, "rebuild_check", json_string("off"));
	if (s->spec.bench.json && (b = json_loads(s->spec.bench.json, 0, &jerr)))
		json_object_set_new(setup, "benchmark", b);
	json_object_set_new(o, "setup", setup);
}

void kb_report_warn(json_t *warnings, const char *kind, const char *fmt, ...)
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

/* The values of secondary metric 'name' (NULL: the primary) in the runs
 * that gave the primary metric, in the order of the runs; *n how many. */
static struct kb_msample *metric_samples(struct kb_session *s, const char *name, size_t *n)
{
	struct kb_msample *v = kb_calloc(s->nruns + 1, sizeof(*v));
	size_t i, k;

	*n = 0;
	for (i = 0; i < s->nruns; i++) {
		const struct kb_run_row *r = &s->runs[i];

		if (r->state != KB_RUN_DONE || !r->has_value)
			continue;
		for (k = 0; name && k < r->nmetrics; k++)
			if (!strcmp(r->metrics[k].name, name))
				break;
		if (name && (k == r->nmetrics || !r->metrics[k].has_value))
			continue;
		v[*n].sha = r->sha;
		v[*n].boot = r->boot;
		v[*n].run = r->run;
		v[(*n)++].value = name ? r->metrics[k].value : r->value;
	}
	return v;
}

/* "a", "a and b", "a, b and c": the names of 'names' (a JSON array). */
static void add_names(struct kb_buf *b, json_t *names)
{
	size_t i, n = json_array_size(names);

	for (i = 0; i < n; i++)
		kb_buf_addf(b, "%s%s", i == 0 ? "" : i + 1 == n ? " and " : ", ",
			    json_string_value(json_array_get(names, i)));
}

void kb_report_metrics(struct kb_session *s, json_t *o, int warmup, int primary_moved)
{
	const struct kb_bench *b = &s->spec.bench;
	const char *good = s->spec.good_shas.v[0], *bad = s->spec.bad_sha;
	json_t *all = json_array(), *table = json_object_get(o, "table"), *row;
	json_t *moved = json_array(), *still = json_array();
	struct kb_buf w = KB_BUF_INIT;
	size_t i, k, n;

	if (!b->nmetrics) {
		json_decref(all);
		json_decref(moved);
		json_decref(still);
		return;
	}
	for (i = 0; i < b->nmetrics; i++) {
		const struct kb_metric *m = &b->metrics[i];
		struct kb_msample *v = metric_samples(s, m->name, &n);
		double base = kb_level_mean(v, n, good, warmup);
		json_t *rows = json_array(), *e;
		struct kb_moved mv;

		json_array_foreach(table, k, row)
			json_array_append_new(rows, kb_level_row(v, n,
				json_string_value(json_object_get(row, "label")),
				json_string_value(json_object_get(row, "commit")), warmup, base));
		kb_metric_moved(v, n, good, bad, warmup, KB_MOVED_ALPHA, &mv);
		e = json_pack("{s:s, s:s, s:s, s:o, s:b}", "name", m->name, "unit", m->unit,
			      "direction", m->direction == KB_HIGHER_IS_BETTER ? "higher" : "lower",
			      "rows", rows, "moved", mv.moved);
		if (mv.tested) {
			json_object_set_new(e, "p", json_real(mv.p));
			json_object_set_new(e, "basis", json_string(mv.basis));
			json_object_set_new(e, "change_pct", json_real(mv.change_pct));
			json_array_append_new(mv.moved ? moved : still, json_string(m->name));
		}
		json_array_append_new(all, e);
		free(v);
	}
	json_object_set_new(o, "metrics", all);
	if (primary_moved < 0) {
		struct kb_msample *v = metric_samples(s, NULL, &n);
		struct kb_moved mv;

		kb_metric_moved(v, n, good, bad, warmup, KB_MOVED_ALPHA, &mv);
		primary_moved = mv.moved;
		free(v);
	}
	if (!json_is_array(json_object_get(o, "warnings"))) {
		/* a report with no warnings (a comparison): the marks say it */
	} else if (primary_moved && json_array_size(still) && !json_array_size(moved)) {
		add_names(&w, still);
		kb_report_warn(json_object_get(o, "warnings"), "only-primary",
			       "only %s moved from GOOD to BAD: %s did not move beyond %s noise, "
			       "so the change is in %s alone", b->metric.name, w.ptr,
			       json_array_size(still) == 1 ? "its" : "their", b->metric.name);
	} else if (!primary_moved && json_array_size(moved)) {
		size_t nm = json_array_size(moved), j = 0;

		json_array_foreach(all, i, row) {
			if (!json_is_true(json_object_get(row, "moved")))
				continue;
			kb_buf_addf(&w, "%s%s (%+.1f%%, p = %.2g)", j == 0 ? "" :
				    j + 1 == nm ? " and " : ", ",
				    json_string_value(json_object_get(row, "name")),
				    json_number_value(json_object_get(row, "change_pct")),
				    json_number_value(json_object_get(row, "p")));
			j++;
		}
		kb_report_warn(json_object_get(o, "warnings"), "secondary-moved",
			       "%s moved from GOOD to BAD, but %s did not: the bisection "
			       "looks at %s only; to find where %s moved, bisect again with "
			       "--metric %s", w.ptr, b->metric.name, b->metric.name,
			       nm == 1 ? json_string_value(json_array_get(moved, 0)) : "they",
			       nm == 1 ? json_string_value(json_array_get(moved, 0)) :
			       "and one of them");
	}
	kb_buf_release(&w);
	json_decref(moved);
	json_decref(still);
}

size_t kb_session_builds_total(struct kb_session *s)
{
	struct kb_event *ev;
	size_t n, i, count = 0;

	if (kb_events_read(s->store, s->row.id, &ev, &n) < 0) {
		kb_error_clear();
		return 0;
	}
	/* a cache hit runs no make; a --build command counts, run or failed */
	for (i = 0; i < n; i++)
		count += (ev[i].kind == KB_EV_BUILD && ev[i].result != KB_EV_CACHED) ||
			 (ev[i].kind == KB_EV_HOOK && !strcmp(ev[i].hook, "build"));
	kb_events_free(ev, n);
	return count;
}

int kb_session_report(struct kb_session *s, json_t **out)
{
	if (!s->mode)
		return kb_error(KB_ERROR, "the session has no mode");
	return s->mode->report(s, out);
}

/* Each machine of a pool: its target, what it does and since when
 * ("testing", "idle", or "retired" with the reason), from the events. */
static json_t *machines_json(struct kb_session *s)
{
	json_t *a = json_array();
	struct kb_event *ev;
	size_t n, i, k;

	for (k = 0; k < kb_spec_nmachines(&s->spec); k++) {
		const char *target = kb_spec_target(&s->spec, k);

		json_array_append_new(a, json_pack("{s:i, s:s, s:s}", "machine", (int)k,
						   "target", target ? target : "", "state",
						   "idle"));
	}
	if (kb_events_read(s->store, s->row.id, &ev, &n) < 0) {
		kb_error_clear();
		return a;
	}
	for (i = 0; i < n; i++) {
		const struct kb_event *e = &ev[i];
		json_t *m;

		if (e->kind != KB_EV_MACHINE || e->machine < 0 ||
		    !(m = json_array_get(a, (size_t)e->machine)))
			continue;
		if (e->result == KB_EV_TESTING && e->sha[0]) {
			json_object_set_new(m, "state", json_string("testing"));
			json_object_set_new(m, "commit", json_string(e->sha));
			json_object_set_new(m, "since", json_real(e->ts));
		} else if (e->result == KB_EV_DONE || e->result == KB_EV_FAILED) {
			json_object_set_new(m, "state", json_string("idle"));
			json_object_del(m, "commit");
			json_object_set_new(m, "since", json_real(e->ts));
		} else if (e->result == KB_EV_RETIRED) {
			json_object_set_new(m, "state", json_string("retired"));
			json_object_del(m, "commit");
			json_object_set_new(m, "since", json_real(e->ts));
			json_object_set_new(m, "reason", json_string(e->text));
		}
	}
	kb_events_free(ev, n);
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
		      "bench", s->spec.bench.name, "target", kb_spec_target(&s->spec, 0),
		      "range", (int)s->dag.g.n, "candidates", (int)next.nleft,
		      "tested", (int)s->nmark_rows);
	json_object_set_new(o, "running", running);
	if (kb_spec_nmachines(&s->spec) > 1) {
		json_object_set_new(o, "machines", machines_json(s));
		json_object_set_new(o, "rounds_left", json_integer(
			kb_bisect_rounds(next.nleft, kb_spec_nmachines(&s->spec))));
	}
	kb_session_target_info(s, o);
	kb_next_release(&next);
	if (!s->mode || (ret = s->mode->status(s, o)) < 0) {
		json_decref(o);
		return s->mode ? ret : kb_error(KB_ERROR, "the session has no mode");
	}
	*out = o;
	return 0;
}

void kb_report_common(struct kb_session *s, json_t *o, size_t runs)
{
	json_object_set_new(o, "runs_total", json_integer((json_int_t)runs));
	json_object_set_new(o, "builds_total",
			    json_integer((json_int_t)kb_session_builds_total(s)));
	json_object_set_new(o, "bench", json_string(s->spec.bench.name));
	json_object_set_new(o, "target", json_string(kb_spec_target(&s->spec, 0)));
	kb_session_target_info(s, o);
	kb_session_setup_info(s, o);
	json_object_set_new(o, "range", json_integer((json_int_t)s->dag.g.n));
	json_object_set_new(o, "state", json_string(s->row.state));
}
