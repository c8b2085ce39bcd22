/*
 * The replayable log: one line per fact, words quoted as in a POSIX shell
 * (but never given to one), '#' starts a comment.
 *
 *   start --good SHA... --bad SHA [--first-parent] [--confidence P]
 *         [--target T] [--build B] [--kconfig K] [--machine JSON]
 *         [--scale F] [--boot-failure bad] [--build-ahead on|off]
 *         [--rebuild-check off]
 *         [--seed N] [--term-old WORD --term-new WORD] [-- PATH...]
 *   bench JSON
 *   run SHA BOOT RUN STATE EXIT SIGNAL TIMED_OUT VALUE|-
 *   values NAME VALUE|- [NAME VALUE|-]...   the secondary metrics of the run
 *         on the line before
 *   good|bad|skip SHA
 *   revert CULPRIT REVERT|-   the revert of a culprit on BAD, made again
 *   aligned CULPRIT PARENT SHA   its builds with 64-byte function alignment
 *   aligned CULPRIT - - WHY      (kb_build_aligned()), made again; or why not
 *   aligned-ends GOOD BAD GV BV  GOOD and BAD so built (kb_build_aligned_ends()),
 *   aligned-ends GOOD BAD - - WHY  made again; or why not
 *   signature SHA HEX         the signature of the build of a commit
 *   same SHA OF               SHA takes the samples of OF: the same build
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "session_int.h"

int kb_split_words(const char *line, struct kb_strv *out)
{
	struct kb_buf w = KB_BUF_INIT;
	const char *p = line;
	int in_word = 0;

	while (*p) {
		if (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') {
			if (in_word) {
				kb_strv_push(out, w.ptr);
				kb_buf_reset(&w);
				in_word = 0;
			}
			p++;
		} else if (*p == '#' && !in_word) {
			break;
		} else if (*p == '\'') {
			const char *end = strchr(p + 1, '\'');

			if (!end)
				goto unterminated;
			kb_buf_add(&w, p + 1, (size_t)(end - p - 1));
			p = end + 1;
			in_word = 1;
		} else if (*p == '"') {
			for (p++; *p && *p != '"'; p++) {
				if (*p == '\\' && (p[1] == '"' || p[1] == '\\'))
					p++;
				kb_buf_addch(&w, *p);
			}
			if (!*p)
				goto unterminated;
			p++;
			in_word = 1;
		} else if (*p == '\\' && p[1]) {
			kb_buf_addch(&w, p[1]);
			p += 2;
			in_word = 1;
		} else {
			kb_buf_addch(&w, *p++);
			in_word = 1;
		}
	}
	if (in_word)
		kb_strv_push(out, w.ptr);
	kb_buf_release(&w);
	return 0;
unterminated:
	kb_buf_release(&w);
	return kb_error(KB_EINVAL, "unterminated quote");
}

static void add_word(struct kb_buf *b, const char *w)
{
	kb_buf_addch(b, ' ');
	kb_buf_add_quoted(b, w, KB_QUOTE_BARE);
}

/* A value as the log writes it: the shortest text that reads back as
 * the same double. */
struct real_text { char s[32]; };

static struct real_text real_text(double v)
{
	struct real_text t;

	kb_real_text(v, t.s, sizeof(t.s));
	return t;
}

/* The values of the secondary metrics of run 'r', when it has some. */
static void log_values(struct kb_buf *b, const struct kb_run_row *r)
{
	size_t i;

	if (!r->nmetrics)
		return;
	kb_buf_adds(b, "values");
	for (i = 0; i < r->nmetrics; i++) {
		add_word(b, r->metrics[i].name);
		if (r->metrics[i].has_value)
			kb_buf_addf(b, " %s", real_text(r->metrics[i].value).s);
		else
			kb_buf_adds(b, " -");
	}
	kb_buf_addch(b, '\n');
}

/* A run, and on a pool the machine it ran on. */
static void log_run(struct kb_buf *b, const struct kb_run_row *r, int pool)
{
	kb_buf_addf(b, "run %s %d %d %s %d %d %d ", r->sha, r->boot, r->run,
		    kb_run_state_name(r->state), r->exit_status, r->term_signal,
		    r->timed_out);
	if (r->has_value)
		kb_buf_adds(b, real_text(r->value).s);
	else
		kb_buf_adds(b, "-");
	if (pool)
		kb_buf_addf(b, " %d", r->machine);
	kb_buf_addch(b, '\n');
	log_values(b, r);
}

static void log_mark(struct kb_session *s, struct kb_buf *b, const struct kb_mark_row *m)
{
	struct kb_commit_info info;
	git_oid oid;

	kb_buf_addf(b, "%s %s", kb_mark_name(m->mark), m->sha);
	if (git_oid_fromstr(&oid, m->sha) == 0 &&
	    kb_repo_commit_info(s->repo, &oid, &info) == 0) {
		char *nl;

		while ((nl = strchr(info.subject, '\n')))
			*nl = ' ';
		kb_buf_addf(b, " # %s", info.subject);
		kb_commit_info_release(&info);
	}
	kb_error_clear();
	kb_buf_addch(b, '\n');
}

/* The signatures of builds (the latest of each commit) and the commits
 * that take the samples of another, in the order recorded. */
static void log_builds(struct kb_session *s, struct kb_buf *out)
{
	struct kb_event *ev;
	size_t n, i, j;

	if (kb_events_read(s->store, s->row.id, &ev, &n) < 0) {
		kb_error_clear();
		return;
	}
	for (i = 0; i < n; i++) {
		const struct kb_event *e = &ev[i];

		if (e->kind != KB_EV_SIGNATURE && e->kind != KB_EV_SAME)
			continue;
		for (j = i + 1; j < n; j++)
			if (ev[j].kind == e->kind && !strcmp(ev[j].sha, e->sha))
				break;
		if (j < n)
			continue;
		if (e->kind == KB_EV_SIGNATURE)
			kb_buf_addf(out, "signature %s %s\n", e->sha, e->signature);
		else
			kb_buf_addf(out, "same %s %s\n", e->sha, e->of);
	}
	kb_events_free(ev, n);
}

int kb_session_log(struct kb_session *s, struct kb_buf *out)
{
	size_t i, r = 0, m = 0, nmachines = kb_spec_nmachines(&s->spec);

	kb_buf_adds(out, "# kbisect log (format 1)\n"
		    "# replay it with: kbisect replay FILE\n");
	kb_buf_adds(out, "start");
	for (i = 0; i < s->spec.good_shas.n; i++) {
		add_word(out, "--good");
		add_word(out, s->spec.good_shas.v[i]);
	}
	add_word(out, "--bad");
	add_word(out, s->spec.bad_sha);
	if (s->spec.first_parent)
		add_word(out, "--first-parent");
	kb_buf_addf(out, " --confidence %g --target", s->spec.confidence);
	add_word(out, kb_spec_target(&s->spec, 0));
	add_word(out, "--build");
	add_word(out, s->spec.build);
	if (s->spec.kconfig) {
		add_word(out, "--kconfig");
		add_word(out, s->spec.kconfig);
	}
	/* the machines of a pool in order, each --target with its own
	 * --machine after it */
	for (i = 0; i < nmachines; i++) {
		if (i) {
			add_word(out, "--target");
			add_word(out, kb_spec_target(&s->spec, i));
		}
		if (kb_spec_machine_file(&s->spec, i)) {
			char *m = json_dumps(kb_spec_machine_file(&s->spec, i), JSON_COMPACT);

			add_word(out, "--machine");
			add_word(out, m);
			free(m);
		}
	}
	if (s->spec.scale != 1.0)
		kb_buf_addf(out, " --scale %s", real_text(s->spec.scale).s);
	if (s->spec.boot_fail == 'b')
		kb_buf_adds(out, " --boot-failure bad");
	if (s->spec.build_ahead != 'a')
		kb_buf_addf(out, " --build-ahead %s", s->spec.build_ahead == 'y' ? "on" : "off");
	if (s->spec.rebuild_check == 'n')
		kb_buf_adds(out, " --rebuild-check off");
	kb_buf_addf(out, " --seed %llu", s->spec.seed);
	if (s->spec.term_old && s->spec.term_new) {
		add_word(out, "--term-old");
		add_word(out, s->spec.term_old);
		add_word(out, "--term-new");
		add_word(out, s->spec.term_new);
	}
	if (s->spec.paths.n) {
		add_word(out, "--");
		for (i = 0; i < s->spec.paths.n; i++)
			add_word(out, s->spec.paths.v[i]);
	}
	kb_buf_adds(out, "\nbench");
	add_word(out, s->spec.bench.json);
	kb_buf_addch(out, '\n');
	{
		struct kb_revert_row *rv;
		size_t nrv;

		if (kb_store_reverts(s->store, s->row.id, &rv, &nrv) == 0) {
			for (i = 0; i < nrv; i++)
				kb_buf_addf(out, "revert %s %s\n", rv[i].culprit,
					    rv[i].sha[0] ? rv[i].sha : "-");
			free(rv);
		}
		kb_error_clear();
	}
	{
		struct kb_aligned_row *al;
		size_t nal;

		if (kb_store_aligned(s->store, s->row.id, &al, &nal) == 0) {
			for (i = 0; i < nal; i++) {
				kb_buf_addf(out, "aligned %s", al[i].culprit);
				if (al[i].sha[0]) {
					kb_buf_addf(out, " %s %s\n", al[i].parent_sha, al[i].sha);
					continue;
				}
				kb_buf_adds(out, " - -");
				add_word(out, al[i].why);
				kb_buf_addch(out, '\n');
			}
			free(al);
		}
		kb_error_clear();
	}
	{
		struct kb_aligned_ends_row e;

		if (kb_store_aligned_ends(s->store, s->row.id, &e) > 0) {
			kb_buf_addf(out, "aligned-ends %s %s", e.good_sha, e.bad_sha);
			if (e.good_variant[0]) {
				kb_buf_addf(out, " %s %s\n", e.good_variant, e.bad_variant);
			} else {
				kb_buf_adds(out, " - -");
				add_word(out, e.why);
				kb_buf_addch(out, '\n');
			}
		}
		kb_error_clear();
	}
	if (nmachines > 1) {
		signed char *pair = kb_session_pairs(s);

		kb_buf_adds(out, "pairs");
		for (i = 0; i < nmachines; i++)
			kb_buf_addf(out, " %d", pair[i]);
		kb_buf_addch(out, '\n');
		free(pair);
	}
	log_builds(s, out);
	/* runs and marks in the order they happened */
	while (r < s->nruns || m < s->nmark_rows) {
		if (m >= s->nmark_rows ||
		    (r < s->nruns && s->runs[r].started <= s->mark_rows[m].created))
			log_run(out, &s->runs[r++], nmachines > 1);
		else
			log_mark(s, out, &s->mark_rows[m++]);
	}
	return 0;
}

static int line_err(const char *origin, int line, const char *what)
{
	return kb_error(KB_EINVAL, "%s:%d: %s", origin, line, what);
}

/* The machines of 'start', in the order written: a --target or a
 * --machine goes to the last machine where it has none yet, else begins
 * the next (one machine: --target and --machine in either order). */
struct start_machines {
	char **target;
	json_t **machine;
	size_t n;
};

static void start_machine_add(struct start_machines *sm, char *target, json_t *machine)
{
	if (sm->n && (target ? !sm->target[sm->n - 1] : !sm->machine[sm->n - 1])) {
		if (target)
			sm->target[sm->n - 1] = target;
		else
			sm->machine[sm->n - 1] = machine;
		return;
	}
	sm->target = kb_realloc(sm->target, (sm->n + 1) * sizeof(*sm->target));
	sm->machine = kb_realloc(sm->machine, (sm->n + 1) * sizeof(*sm->machine));
	sm->target[sm->n] = target;
	sm->machine[sm->n++] = machine;
}

static void start_machines_release(struct start_machines *sm)
{
	for (size_t i = 0; i < sm->n; i++) {
		free(sm->target[i]);
		json_decref(sm->machine[i]);
	}
	free(sm->target);
	free(sm->machine);
}

static int parse_start(struct kb_spec *spec, struct kb_strv *w, const char *origin,
		       int line)
{
	struct start_machines sm = { NULL, NULL, 0 };
	size_t i;
	int ret = 0;

	for (i = 1; !ret && i < w->n; i++) {
		const char *a = w->v[i], *v = i + 1 < w->n ? w->v[i + 1] : NULL;

		if (!strcmp(a, "--")) {
			for (i++; i < w->n; i++)
				kb_strv_push(&spec->paths, w->v[i]);
			break;
		}
		if (!strcmp(a, "--first-parent")) {
			spec->first_parent = 1;
			continue;
		}
		if (!v) {
			ret = line_err(origin, line, "an option of 'start' lacks its value");
			break;
		}
		i++;
		if (!strcmp(a, "--good")) {
			kb_strv_push(&spec->good_specs, v);
		} else if (!strcmp(a, "--bad")) {
			free(spec->bad_spec);
			spec->bad_spec = kb_strdup(v);
		} else if (!strcmp(a, "--confidence")) {
			spec->confidence = strtod(v, NULL);
		} else if (!strcmp(a, "--target")) {
			start_machine_add(&sm, kb_strdup(v), NULL);
		} else if (!strcmp(a, "--build")) {
			free(spec->build);
			spec->build = kb_strdup(v);
		} else if (!strcmp(a, "--seed")) {
			spec->seed = strtoull(v, NULL, 10);
		} else if (!strcmp(a, "--term-old")) {
			free(spec->term_old);
			spec->term_old = kb_strdup(v);
		} else if (!strcmp(a, "--term-new")) {
			free(spec->term_new);
			spec->term_new = kb_strdup(v);
		} else if (!strcmp(a, "--kconfig")) {
			free(spec->kconfig);
			spec->kconfig = kb_strdup(v);
		} else if (!strcmp(a, "--machine")) {
			json_error_t jerr;
			json_t *m = json_loads(v, 0, &jerr);

			if (!json_is_object(m)) {
				json_decref(m);
				ret = line_err(origin, line, "--machine is not a JSON object");
				break;
			}
			start_machine_add(&sm, NULL, m);
		} else if (!strcmp(a, "--scale")) {
			spec->scale = strtod(v, NULL);
			if (!(spec->scale > 0))
				ret = line_err(origin, line, "--scale must be above 0");
		} else if (!strcmp(a, "--boot-failure")) {
			spec->boot_fail = !strcmp(v, "bad") ? 'b' : 's';
		} else if (!strcmp(a, "--build-ahead")) {
			spec->build_ahead = !strcmp(v, "on") ? 'y' : !strcmp(v, "off") ? 'n' : 'a';
		} else if (!strcmp(a, "--rebuild-check")) {
			if (strcmp(v, "on") && strcmp(v, "off"))
				ret = line_err(origin, line, "--rebuild-check is on or off");
			spec->rebuild_check = !strcmp(v, "off") ? 'n' : 'y';
		} else {
			ret = line_err(origin, line, "unknown option of 'start'");
		}
	}
	if (!ret && (!spec->bad_spec || !spec->good_specs.n))
		ret = line_err(origin, line, "'start' needs --good and --bad");
	if (ret) {
		start_machines_release(&sm);
		return ret;
	}
	if (!sm.n)
		start_machine_add(&sm, NULL, NULL);
	/* the target given is the machine's */
	kb_spec_clear_machines(spec);
	for (i = 0; i < sm.n; i++) {
		const char *target = sm.target[i];
		json_t *machine = sm.machine[i];

		if (machine && (target || !json_is_string(json_object_get(machine, "target"))))
			json_object_set_new(machine, "target", json_string(target ? target : "local"));
		kb_spec_add_machine(spec, machine, target ? target : "local");
		sm.machine[i] = NULL;
		/* a pool's "how to reproduce" names each machine */
		if (sm.n > 1)
			kb_strv_push(&spec->target_args, kb_spec_target(spec, i));
	}
	start_machines_release(&sm);
	if (!spec->build)
		spec->build = kb_strdup("none");
	return 0;
}

static int parse_int(const char *s, int *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end)
		return -1;
	*out = (int)v;
	return 0;
}

static int replay_run(struct kb_store *store, git_repository *repo, int64_t session,
		      size_t nmachines, struct kb_strv *w, const char *origin, int line,
		      int64_t *run_id)
{
	static const char *const states[] = { "started", "done", "interrupted", "aborted" };
	struct kb_run_row r;
	git_oid oid;
	size_t k;
	int ret;

	memset(&r, 0, sizeof(r));
	if (w->n != 9 && w->n != 10)
		return line_err(origin, line, "'run' takes 8 fields, and on a pool the machine");
	if (w->n == 10 && (parse_int(w->v[9], &r.machine) || r.machine < 0 ||
			   (size_t)r.machine >= nmachines))
		return line_err(origin, line, "'run' names a machine that 'start' does not give");
	if (git_oid_fromstr(&oid, w->v[1]) < 0 || kb_repo_resolve(repo, w->v[1], &oid) < 0)
		return line_err(origin, line, "unknown commit");
	if (parse_int(w->v[2], &r.boot) || parse_int(w->v[3], &r.run) ||
	    parse_int(w->v[5], &r.exit_status) || parse_int(w->v[6], &r.term_signal) ||
	    parse_int(w->v[7], &r.timed_out))
		return line_err(origin, line, "'run' has a field that is not a number");
	for (k = 0; k < 4; k++)
		if (!strcmp(w->v[4], states[k]))
			r.state = (enum kb_run_state)k;
	if (k == 4 && strcmp(w->v[4], states[r.state]))
		return line_err(origin, line, "unknown run state");
	if (r.state == KB_RUN_STARTED)
		r.state = KB_RUN_INTERRUPTED;
	if (strcmp(w->v[8], "-")) {
		char *end;

		r.value = strtod(w->v[8], &end);
		if (*end)
			return line_err(origin, line, "'run' value is not a number");
		r.has_value = 1;
	}
	snprintf(r.sha, sizeof(r.sha), "%s", w->v[1]);
	kb_store_set_machine(store, r.machine);
	if ((ret = kb_store_run_start(store, session, r.sha, r.boot, r.run, NULL, &r.id)) < 0)
		return ret;
	*run_id = r.id;
	return kb_store_run_finish(store, &r);
}

/* The verification pair of each machine of a pool: -1 (none), 0 or 1. */
static int replay_pairs(struct kb_store *store, int64_t session, size_t nmachines,
			struct kb_strv *w, const char *origin, int line)
{
	signed char *pair;
	size_t i;
	int ret = 0;

	if (w->n != nmachines + 1)
		return line_err(origin, line, "'pairs' takes one pair for each machine of 'start'");
	pair = kb_calloc(nmachines, 1);
	for (i = 0; i < nmachines && !ret; i++) {
		int v = 0;

		if (parse_int(w->v[i + 1], &v) || v < -1 || v > 1)
			ret = line_err(origin, line, "a pair is -1, 0 or 1");
		pair[i] = (signed char)v;
	}
	if (!ret)
		ret = kb_store_set_pairs(store, session, pair, nmachines);
	free(pair);
	return ret;
}

/* The values of the secondary metrics of run 'run', the one replayed on
 * the line before (0: none). */
static int replay_values(struct kb_store *store, int64_t run, struct kb_strv *w,
			 const char *origin, int line)
{
	struct kb_run_metric *m;
	size_t i, n = (w->n - 1) / 2;
	int ret = 0;

	if (!run)
		return line_err(origin, line, "'values' must follow the 'run' it is of");
	if (w->n < 3 || w->n % 2 == 0)
		return line_err(origin, line, "'values' takes pairs of a name and a value");
	m = kb_calloc(n, sizeof(*m));
	for (i = 0; i < n && !ret; i++) {
		const char *v = w->v[2 + 2 * i];

		m[i].name = w->v[1 + 2 * i];
		if (strcmp(v, "-")) {
			char *end;

			m[i].value = strtod(v, &end);
			m[i].has_value = 1;
			if (end == v || *end)
				ret = line_err(origin, line, "a 'values' value is not a number");
		}
	}
	if (!ret)
		ret = kb_store_run_metrics_set(store, run, m, n);
	free(m);
	return ret;
}

/* A signature of a build, or a commit that takes the samples of another. */
static int replay_build(struct kb_store *store, int64_t session,
			struct kb_strv *w, const char *origin, int line)
{
	struct kb_event e;
	git_oid oid;

	memset(&e, 0, sizeof(e));
	if (w->n != 3 || git_oid_fromstr(&oid, w->v[1]) < 0 || strlen(w->v[1]) != 40 ||
	    strlen(w->v[2]) != 40 || strspn(w->v[2], "0123456789abcdef") != 40)
		return line_err(origin, line, "'signature' and 'same' take a commit and 40 hex "
				"digits");
	snprintf(e.sha, sizeof(e.sha), "%s", w->v[1]);
	if (!strcmp(w->v[0], "signature")) {
		e.kind = KB_EV_SIGNATURE;
		snprintf(e.signature, sizeof(e.signature), "%s", w->v[2]);
	} else {
		e.kind = KB_EV_SAME;
		if (git_oid_fromstr(&oid, w->v[2]) < 0)
			return line_err(origin, line, "'same' takes two commits");
		snprintf(e.of, sizeof(e.of), "%s", w->v[2]);
	}
	return kb_event_add(store, session, &e);
}

/* Make the revert again: it must come out as the log says. */
static int replay_revert(struct kb_store *store, git_repository *repo, int64_t session,
			 const struct kb_spec *spec, struct kb_strv *w, const char *origin,
			 int line)
{
	git_oid culprit, bad, rev;
	char hex[GIT_OID_HEXSZ + 1] = "-";
	int applied, ret;

	if (w->n != 3 || git_oid_fromstr(&culprit, w->v[1]) < 0)
		return line_err(origin, line, "'revert' takes a commit and its revert");
	git_oid_fromstr(&bad, spec->bad_sha);
	if ((ret = kb_repo_revert(repo, &culprit, &bad, &rev, &applied)) < 0)
		return ret;
	if (applied)
		git_oid_tostr(hex, sizeof(hex), &rev);
	if (strcmp(hex, w->v[2]))
		return line_err(origin, line, "the revert does not come out as recorded");
	return kb_store_revert_add(store, session, w->v[1], applied ? hex : NULL);
}

/* Make GOOD and BAD aligned again: they must come out as the log says. */
static int replay_aligned_ends(struct kb_store *store, git_repository *repo, int64_t session,
			       struct kb_strv *w, const char *origin, int line)
{
	struct kb_aligned_ends_row row;
	git_oid g, b, gv, bv;
	int ret;

	memset(&row, 0, sizeof(row));
	if (w->n < 5 || git_oid_fromstr(&g, w->v[1]) < 0 || git_oid_fromstr(&b, w->v[2]) < 0 ||
	    (strcmp(w->v[3], "-") && w->n != 5) || (!strcmp(w->v[3], "-") && w->n != 6))
		return line_err(origin, line, "'aligned-ends' takes GOOD, BAD and their two "
				"aligned builds, or '- -' and why there are none");
	snprintf(row.good_sha, sizeof(row.good_sha), "%s", w->v[1]);
	snprintf(row.bad_sha, sizeof(row.bad_sha), "%s", w->v[2]);
	if (!strcmp(w->v[3], "-")) {
		snprintf(row.why, sizeof(row.why), "%s", w->v[5]);
		return kb_store_aligned_ends_add(store, session, &row);
	}
	if ((ret = kb_build_aligned_ends(repo, &g, &b, &gv, &bv, row.why, sizeof(row.why))) < 0)
		return ret;
	git_oid_tostr(row.good_variant, sizeof(row.good_variant), &gv);
	git_oid_tostr(row.bad_variant, sizeof(row.bad_variant), &bv);
	if (ret || strcmp(row.good_variant, w->v[3]) || strcmp(row.bad_variant, w->v[4]))
		return line_err(origin, line, "GOOD and BAD aligned do not come out as recorded");
	return kb_store_aligned_ends_add(store, session, &row);
}

/* Make the aligned builds again: they must come out as the log says. */
static int replay_aligned(struct kb_store *store, git_repository *repo, int64_t session,
			  struct kb_strv *w, const char *origin, int line)
{
	git_oid culprit, pv, cv;
	char ph[GIT_OID_HEXSZ + 1], ch[GIT_OID_HEXSZ + 1], why[256];
	int ret;

	if (w->n < 4 || git_oid_fromstr(&culprit, w->v[1]) < 0 ||
	    (strcmp(w->v[2], "-") && w->n != 4) || (!strcmp(w->v[2], "-") && w->n != 5))
		return line_err(origin, line, "'aligned' takes a commit and its two aligned "
				"builds, or '- -' and why there are none");
	if (!strcmp(w->v[2], "-"))
		return kb_store_aligned_add(store, session, w->v[1], NULL, NULL, w->v[4]);
	if ((ret = kb_build_aligned(repo, &culprit, &pv, &cv, why, sizeof(why))) < 0)
		return ret;
	git_oid_tostr(ph, sizeof(ph), &pv);
	git_oid_tostr(ch, sizeof(ch), &cv);
	if (ret || strcmp(ph, w->v[2]) || strcmp(ch, w->v[3]))
		return line_err(origin, line, "the aligned builds do not come out as recorded");
	return kb_store_aligned_add(store, session, w->v[1], ph, ch, NULL);
}

/* A comment of a git bisect log: "# TERM: [SHA] SUBJECT". */
static void git_comment(struct kb_session *s, struct kb_buf *out, const char *term,
			const char *sha)
{
	char *subject = kb_session_subject(s, sha), *nl;

	while ((nl = strpbrk(subject, "\r\n")))
		*nl = ' ';
	kb_buf_addf(out, "# %s: [%s] %s\n", term, sha, subject);
	free(subject);
}

int kb_session_log_git(struct kb_session *s, struct kb_buf *out)
{
	struct kb_next next;
	size_t i;

	/* 'git bisect replay' reads every word in single quotes */
	kb_buf_adds(out, "git bisect start");
	if (s->spec.first_parent)
		kb_buf_adds(out, " '--first-parent'");
	kb_buf_addch(out, ' ');
	kb_buf_add_quoted(out, s->spec.bad_sha, 0);
	for (i = 0; i < s->spec.good_shas.n; i++) {
		kb_buf_addch(out, ' ');
		kb_buf_add_quoted(out, s->spec.good_shas.v[i], 0);
	}
	if (s->spec.paths.n)
		kb_buf_adds(out, " '--'");
	for (i = 0; i < s->spec.paths.n; i++) {
		kb_buf_addch(out, ' ');
		kb_buf_add_quoted(out, s->spec.paths.v[i], 0);
	}
	kb_buf_addch(out, '\n');
	for (i = 0; i < s->nmark_rows; i++) {
		const char *term = kb_mark_name(s->mark_rows[i].mark);

		git_comment(s, out, term, s->mark_rows[i].sha);
		kb_buf_addf(out, "git bisect %s %s\n", term, s->mark_rows[i].sha);
	}
	if (kb_session_next(s, &next) == 0 && next.kind == KB_NEXT_FOUND) {
		char hex[GIT_OID_HEXSZ + 1];

		git_oid_tostr(hex, sizeof(hex), &s->dag.oid[next.commit]);
		git_comment(s, out, "first bad commit", hex);
	}
	kb_next_release(&next);
	kb_error_clear();
	return 0;
}

/* The words of a line of a git bisect log after "git bisect" (or
 * "git-bisect"), or 0 when it is not such a line. */
static int git_words(const char *line, struct kb_strv *w)
{
	const char *p = line + strspn(line, " \t");

	if (!strncmp(p, "git bisect", 10))
		p += 10;
	else if (!strncmp(p, "git-bisect", 10))
		p += 10;
	else
		return 0;
	if (*p && *p != ' ' && *p != '\t')
		return 0;
	return kb_split_words(p, w) == 0 && w->n ? 1 : -1;
}

/* The mark a word of a git bisect log stands for (its terms, or git's
 * default ones), or 0. */
static char git_mark(const char *word, const char *term_old, const char *term_new)
{
	if (!strcmp(word, term_new) || !strcmp(word, "bad") || !strcmp(word, "new"))
		return KB_MARK_BAD;
	if (!strcmp(word, term_old) || !strcmp(word, "good") || !strcmp(word, "old"))
		return KB_MARK_GOOD;
	if (!strcmp(word, "skip"))
		return KB_MARK_SKIP;
	return 0;
}

/*
 * A log of 'git bisect log': its start and marks become a session to mark
 * by hand (no test).  The range is the start's revisions, or else the
 * first bad commit and the good ones marked before the range was known;
 * the marks after that are recorded as marks.
 */
static int replay_git(struct kb_store *store, git_repository *repo, const char *repo_path,
		      const char *text, const char *origin, int64_t *id)
{
	struct kb_spec spec;
	struct kb_strv marks = KB_STRV_INIT; /* "M SHA", in order */
	const char *p = text;
	char term_old[64] = "good", term_new[64] = "bad";
	int line = 0, ret = 0, started = 0;
	size_t i, j;

	kb_spec_init(&spec);
	spec.repo = kb_strdup(repo_path);
	while (*p && !ret) {
		size_t len = strcspn(p, "\n");
		char *l = kb_strndup(p, len);
		struct kb_strv w = KB_STRV_INIT;
		int k;

		line++;
		p += len + (p[len] == '\n');
		k = l[strspn(l, " \t")] == '#' ? 0 : git_words(l, &w);
		if (k < 0) {
			ret = line_err(origin, line, "not a line of a git bisect log");
		} else if (!k) {
			if (l[strspn(l, " \t")] && l[strspn(l, " \t")] != '#')
				ret = line_err(origin, line, "not a line of a git bisect log");
		} else if (!strcmp(w.v[0], "start")) {
			int dashes = 0;

			if (started)
				ret = line_err(origin, line, "a second 'git bisect start'");
			started = 1;
			for (i = 1; !ret && i < w.n; i++) {
				const char *a = w.v[i];

				if (dashes)
					kb_strv_push(&spec.paths, a);
				else if (!strcmp(a, "--"))
					dashes = 1;
				else if (!strcmp(a, "--first-parent"))
					spec.first_parent = 1;
				else if (!strcmp(a, "--no-checkout"))
					;
				else if (!strncmp(a, "--term-old=", 11) || !strncmp(a, "--term-good=", 12))
					snprintf(term_old, sizeof(term_old), "%s", strchr(a, '=') + 1);
				else if (!strncmp(a, "--term-new=", 11) || !strncmp(a, "--term-bad=", 11))
					snprintf(term_new, sizeof(term_new), "%s", strchr(a, '=') + 1);
				else if (a[0] == '-')
					ret = line_err(origin, line, "an option of 'git bisect start' "
						       "kbisect does not know");
				else if (!spec.bad_spec)
					spec.bad_spec = kb_strdup(a);
				else
					kb_strv_push(&spec.good_specs, a);
			}
		} else if (!strcmp(w.v[0], "terms") || !strcmp(w.v[0], "log") ||
			   !strcmp(w.v[0], "visualize") || !strcmp(w.v[0], "view")) {
			;
		} else if (!started) {
			ret = line_err(origin, line, "'git bisect start' must come first");
		} else if (!git_mark(w.v[0], term_old, term_new)) {
			ret = line_err(origin, line, "a command of git bisect that kbisect cannot "
				       "replay");
		} else {
			char m = git_mark(w.v[0], term_old, term_new);

			if (w.n < 2)
				ret = line_err(origin, line, "a mark needs a commit");
			for (i = 1; !ret && i < w.n; i++) {
				git_oid oid;
				char hex[GIT_OID_HEXSZ + 1];

				if (kb_repo_resolve(repo, w.v[i], &oid) < 0) {
					ret = line_err(origin, line, "a mark of an unknown commit");
					break;
				}
				git_oid_tostr(hex, sizeof(hex), &oid);
				/* the range, while the start did not give it */
				if (m == KB_MARK_BAD && !spec.bad_spec)
					spec.bad_spec = kb_strdup(hex);
				else if (m == KB_MARK_GOOD && (!spec.bad_spec || !spec.good_specs.n) &&
					 !marks.n)
					kb_strv_push(&spec.good_specs, hex);
				else
					kb_strv_pushf(&marks, "%c %s", m, hex);
			}
		}
		kb_strv_clear(&w);
		free(l);
	}
	if (!ret && (!spec.bad_spec || !spec.good_specs.n))
		ret = kb_error(KB_EINVAL, "%s: the log knows no bad and good commit: nothing "
			       "to replay", origin);
	if (!ret)
		ret = kb_bench_from_command(&spec.bench, KB_MANUAL_COMMAND);
	kb_spec_add_machine(&spec, NULL, "local");
	spec.build = kb_strdup("none");
	if (!ret && (ret = kb_spec_check(&spec, repo)) == 0 &&
	    (ret = kb_store_begin(store)) == 0) {
		ret = kb_session_insert(store, &spec, id);
		for (j = 0; !ret && j < marks.n; j++)
			ret = kb_store_mark_add(store, *id, marks.v[j] + 2, marks.v[j][0], "replay",
						0);
		if (!ret)
			ret = kb_store_commit(store);
		if (ret)
			kb_store_rollback(store);
	}
	kb_strv_clear(&marks);
	kb_spec_release(&spec);
	return ret;
}

/* Is 'text' a git bisect log (its first line that is no comment)? */
static int is_git_log(const char *text)
{
	const char *p = text;

	while (*p) {
		const char *q = p + strspn(p, " \t");
		size_t len = strcspn(p, "\n");

		if (*q != '#' && *q != '\n' && *q)
			return !strncmp(q, "git bisect", 10) || !strncmp(q, "git-bisect", 10);
		p += len + (p[len] == '\n');
	}
	return 0;
}

int kb_session_replay(struct kb_store *store, git_repository *repo,
		      const char *repo_path, const char *text, const char *origin,
		      int64_t *id)
{
	struct kb_spec spec;
	const char *p = text;
	int line = 0, ret = 0, started = 0, have_bench = 0;
	int64_t last_run = 0, run = 0;

	if (is_git_log(text))
		return replay_git(store, repo, repo_path, text, origin, id);
	kb_spec_init(&spec);
	spec.repo = kb_strdup(repo_path);
	if ((ret = kb_store_begin(store)) < 0)
		goto out;
	while (*p && !ret) {
		size_t len = strcspn(p, "\n");
		char *l = kb_strndup(p, len);
		struct kb_strv w = KB_STRV_INIT;

		line++;
		p += len + (p[len] == '\n');
		last_run = run;
		run = 0;
		if (kb_split_words(l, &w) < 0) {
			ret = line_err(origin, line, kb_error_last());
		} else if (!w.n) {
			;
		} else if (!strcmp(w.v[0], "start")) {
			if (started)
				ret = line_err(origin, line, "a second 'start'");
			else
				ret = parse_start(&spec, &w, origin, line);
			started = 1;
		} else if (!strcmp(w.v[0], "bench")) {
			if (!started || have_bench || w.n != 2)
				ret = line_err(origin, line, "'bench' must follow 'start', once, "
					       "with one JSON word");
			else if ((ret = kb_bench_parse(&spec.bench, w.v[1], origin)) == 0 &&
				 (ret = kb_spec_check(&spec, repo)) == 0)
				ret = kb_session_insert(store, &spec, id);
			have_bench = 1;
		} else if (!have_bench) {
			ret = line_err(origin, line, "'start' and 'bench' must come first");
		} else if (!strcmp(w.v[0], "revert")) {
			ret = replay_revert(store, repo, *id, &spec, &w, origin, line);
		} else if (!strcmp(w.v[0], "aligned")) {
			ret = replay_aligned(store, repo, *id, &w, origin, line);
		} else if (!strcmp(w.v[0], "aligned-ends")) {
			ret = replay_aligned_ends(store, repo, *id, &w, origin, line);
		} else if (!strcmp(w.v[0], "run")) {
			ret = replay_run(store, repo, *id, kb_spec_nmachines(&spec), &w, origin,
					 line, &run);
		} else if (!strcmp(w.v[0], "pairs")) {
			ret = replay_pairs(store, *id, kb_spec_nmachines(&spec), &w, origin, line);
		} else if (!strcmp(w.v[0], "values")) {
			ret = replay_values(store, last_run, &w, origin, line);
		} else if (!strcmp(w.v[0], "signature") || !strcmp(w.v[0], "same")) {
			ret = replay_build(store, *id, &w, origin, line);
		} else if (!strcmp(w.v[0], "good") || !strcmp(w.v[0], "bad") ||
			   !strcmp(w.v[0], "skip")) {
			git_oid oid;
			char hex[GIT_OID_HEXSZ + 1];

			if (w.n != 2 || kb_repo_resolve(repo, w.v[1], &oid) < 0) {
				ret = line_err(origin, line, "a mark needs one known commit");
			} else {
				git_oid_tostr(hex, sizeof(hex), &oid);
				ret = kb_store_mark_add(store, *id, hex, w.v[0][0] == 's' ? 's' :
							w.v[0][0], "replay", 0);
			}
		} else {
			ret = line_err(origin, line, "unknown line");
		}
		kb_strv_clear(&w);
		free(l);
	}
	if (!ret && !have_bench)
		ret = kb_error(KB_EINVAL, "%s: no 'start' and 'bench' lines: not a kbisect log",
			       origin);
	if (ret) {
		kb_store_rollback(store);
		goto out;
	}
	if ((ret = kb_store_commit(store)) < 0)
		kb_store_rollback(store);
out:
	kb_spec_release(&spec);
	return ret;
}
