/*
 * The performance mode: it asks the decision code (lib/perf.c) what to
 * measure next and measures it (boots of a commit, each with several runs
 * of the benchmark), makes the revert of a likely culprit it asks for
 * (dag.c) and its builds with 64-byte function alignment (build.c), and
 * reports the verdict with its checks.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mode.h"
#include "perf.h"
#include "stats.h"

/*
 * The devices of a lab (the lava target) that a pool's boots ran on: in a
 * pool, the runs of a boot count as measured on the device LAVA reports,
 * not on the machine of the pool that submitted the job, so that each
 * device has its own baseline.  A device is numbered by its first job.
 */
struct lab_boot {
	char sha[41];
	int boot, device;
};

struct lab_devices {
	struct lab_boot *boots;
	size_t n;
};

static void lab_devices_load(struct kb_session *s, struct lab_devices *d)
{
	struct kb_event *ev;
	char (*names)[128] = NULL;
	size_t n, i, k, nnames = 0;

	memset(d, 0, sizeof(*d));
	if (kb_spec_nmachines(&s->spec) < 2 || kb_events_read(s->store, s->row.id, &ev, &n) < 0) {
		kb_error_clear();
		return;
	}
	for (i = 0; i < n; i++) {
		if (ev[i].kind != KB_EV_JOB || !ev[i].device[0])
			continue;
		for (k = 0; k < nnames && strcmp(names[k], ev[i].device); k++)
			;
		if (k == nnames) {
			names = kb_realloc(names, (nnames + 1) * sizeof(*names));
			snprintf(names[nnames++], sizeof(*names), "%s", ev[i].device);
		}
		d->boots = kb_realloc(d->boots, (d->n + 1) * sizeof(*d->boots));
		snprintf(d->boots[d->n].sha, sizeof(d->boots[d->n].sha), "%s", ev[i].sha);
		d->boots[d->n].boot = ev[i].boot;
		d->boots[d->n++].device = (int)k;
	}
	free(names);
	kb_events_free(ev, n);
}

static int lab_machine(const struct lab_devices *d, const struct kb_run_row *r)
{
	size_t i;

	for (i = 0; i < d->n; i++)
		if (d->boots[i].boot == r->boot && !strcmp(d->boots[i].sha, r->sha))
			return d->boots[i].device;
	return r->machine;
}

static void lab_devices_release(struct lab_devices *d)
{
	free(d->boots);
	memset(d, 0, sizeof(*d));
}

static const char zero_sha[41] = "0000000000000000000000000000000000000000";

/* The ids of every node and of its first parent, once per session. */
static int load_shas(struct kb_session *s)
{
	size_t i, n = s->dag.g.n;

	if (s->node_sha)
		return 0;
	s->node_sha = kb_calloc(n ? n : 1, sizeof(*s->node_sha));
	s->parent_sha = kb_calloc(n ? n : 1, sizeof(*s->parent_sha));
	for (i = 0; i < n; i++) {
		git_commit *c;

		git_oid_tostr(s->node_sha[i], 41, &s->dag.oid[i]);
		if (git_commit_lookup(&c, s->repo, &s->dag.oid[i]) < 0)
			return kb_error(KB_ERROR, "cannot read commit %s", s->node_sha[i]);
		if (git_commit_parentcount(c))
			git_oid_tostr(s->parent_sha[i], 41, git_commit_parent_id(c, 0));
		else
			memcpy(s->parent_sha[i], zero_sha, 41);
		git_commit_free(c);
	}
	return 0;
}

/* Where the latest KB_REVERTS_MAX of 'n' rows begin. */
static size_t latest_kept(size_t n)
{
	return n > KB_REVERTS_MAX ? n - KB_REVERTS_MAX : 0;
}

/* A merge's other parents whose aligned builds a rebuild check asks for,
 * at most */
#define OTHERS_MAX 8

/* A merge culprit's other parents, the second on, and their aligned
 * variants ("" where not made): made again from the history whenever
 * asked for, as the same commits come out each time. */
struct others {
	char of[OTHERS_MAX][41], sha[OTHERS_MAX][41];
	struct kb_perf_variant v[OTHERS_MAX];
	size_t n;
};

struct input {
	struct kb_perf_in in;
	struct kb_perf_obs *obs;
	size_t nobs, alloc;
	struct kb_revert_row rrow[KB_REVERTS_MAX];
	struct kb_perf_revert rev[KB_REVERTS_MAX];
	char aligned_made[KB_REVERTS_MAX][41];
	struct kb_aligned_row aligned;
	struct others others;
	struct kb_aligned_ends_row ends;
	signed char *pairs;
};

/* The culprits whose aligned builds were made, the latest ones if ever
 * there were more than the engine asks for. */
static void aligned_list(struct input *x, const struct kb_aligned_row *r, size_t n)
{
	x->in.naligned_made = 0;
	for (size_t i = latest_kept(n); i < n; i++)
		memcpy(x->aligned_made[x->in.naligned_made++], r[i].culprit, 41);
	x->in.aligned_made = (const char (*)[41])x->aligned_made;
}

/* The reverts made, oldest first (the latest KB_REVERTS_MAX): of which
 * culprit, and its id ("" if it did not apply).  Returns 0 if none was
 * made. */
static int revert_info(struct kb_session *s, struct kb_revert_row *rows, size_t *nrows)
{
	struct kb_revert_row *r;
	size_t n, i;

	*nrows = 0;
	if (kb_store_reverts(s->store, s->row.id, &r, &n) < 0) {
		kb_error_clear();
		return 0;
	}
	/* the latest ones, if ever there were more than the engine asks for */
	for (i = latest_kept(n); i < n; i++)
		rows[(*nrows)++] = r[i];
	free(r);
	return *nrows > 0;
}

/* The latest aligned builds made (the row is zeroed when none was); with
 * 'x', the culprits of all of them in its input. */
static int aligned_info(struct kb_session *s, struct input *x, struct kb_aligned_row *out)
{
	struct kb_aligned_row *r;
	size_t n;

	memset(out, 0, sizeof(*out));
	if (kb_store_aligned(s->store, s->row.id, &r, &n) < 0) {
		kb_error_clear();
		return 0;
	}
	if (n)
		*out = r[n - 1];
	if (x)
		aligned_list(x, r, n);
	free(r);
	return n > 0;
}

/* GOOD and BAD aligned, once asked for (the row is zeroed when not). */
static int aligned_ends_info(struct kb_session *s, struct kb_aligned_ends_row *out)
{
	int r = kb_store_aligned_ends(s->store, s->row.id, out);

	if (r < 0) {
		kb_error_clear();
		memset(out, 0, sizeof(*out));
		return 0;
	}
	return r;
}

/* Was 'sha' skipped: its build or its boot failed? */
static int skip_marked(const struct kb_session *s, const char *sha)
{
	size_t i;

	for (i = 0; i < s->nmark_rows; i++)
		if (s->mark_rows[i].mark == KB_MARK_SKIP && !strcmp(s->mark_rows[i].sha, sha))
			return 1;
	return 0;
}

/* Whether 'sha' is one of the variants in 'o'. */
static int other_of(const struct others *o, const char *sha)
{
	for (size_t i = 0; i < o->n; i++)
		if (o->sha[i][0] && !strcmp(o->sha[i], sha))
			return 1;
	return 0;
}

/* Whether any run of 'sha' was done. */
static int measured(const struct kb_session *s, const char *sha)
{
	for (size_t i = 0; i < s->nruns; i++)
		if (s->runs[i].state == KB_RUN_DONE && !strcmp(s->runs[i].sha, sha))
			return 1;
	return 0;
}

/* The aligned variants of the other parents of 'culprit', a merge (none
 * of a commit of one parent, nor where the history cannot be read, whose
 * failure shows where it is read next); one whose tree lacks the option,
 * or whose build failed, is "". */
static void aligned_others(struct kb_session *s, const char *culprit, struct others *o)
{
	git_commit *c;
	git_oid oid, v;
	char why[256];
	unsigned int k, np;
	int ret = 0;

	o->n = 0;
	if (git_oid_fromstr(&oid, culprit) < 0 || git_commit_lookup(&c, s->repo, &oid) < 0) {
		git_error_clear();
		return;
	}
	np = git_commit_parentcount(c);
	for (k = 1; k < np && o->n < OTHERS_MAX && ret >= 0; k++) {
		size_t i = o->n++;

		git_oid_tostr(o->of[i], sizeof(o->of[i]), git_commit_parent_id(c, k));
		o->sha[i][0] = '\0';
		ret = kb_build_aligned_one(s->repo, git_commit_parent_id(c, k), "its parent",
					   &v, why, sizeof(why));
		if (ret == 0)
			git_oid_tostr(o->sha[i], sizeof(o->sha[i]), &v);
		if (ret == 1 || skip_marked(s, o->sha[i]))
			o->sha[i][0] = '\0';
		o->v[i].of = o->of[i];
		o->v[i].sha = o->sha[i];
	}
	git_commit_free(c);
	if (ret < 0) {
		kb_error_clear();
		o->n = 0;
	}
}

/*
 * Why no session of this spec makes the rebuild check ("" when it may):
 * the builds are not kernels, the check is turned off, or the base config
 * aligns every build already.
 */
static void align_never(const struct kb_session *s, char *why, size_t n)
{
	struct kb_buf cfg = KB_BUF_INIT;

	*why = '\0';
	if (!s->spec.build || !strcmp(s->spec.build, "none"))
		snprintf(why, n, "nothing is built (--build none)");
	else if (strcmp(s->spec.build, "kernel"))
		snprintf(why, n, "the build is a command (--build): kbisect cannot set %s "
			 "in its config", KB_ALIGN_OPTION);
	else if (s->spec.rebuild_check == 'n')
		snprintf(why, n, "turned off (--rebuild-check off)");
	else if (s->spec.kconfig && strchr(s->spec.kconfig, '/') &&
		 kb_read_file(s->spec.kconfig, &cfg, 64 << 20) == 0 &&
		 strstr(cfg.ptr, KB_ALIGN_OPTION "=y"))
		snprintf(why, n, "the base config sets %s: every build is aligned",
			 KB_ALIGN_OPTION);
	kb_error_clear();
	kb_buf_release(&cfg);
}

/* The key of a run: the id of the first run of its boot, then the run. */
struct run_key {
	int64_t boot_start;
	int run;
	size_t i;
};

static struct kb_session *sort_session;

/* By commit, boot and id: each boot's runs together, its first run first. */
static int cmp_by_boot(const void *a, const void *b)
{
	const struct kb_run_row *x = &sort_session->runs[*(const size_t *)a],
		*y = &sort_session->runs[*(const size_t *)b];
	int c = strcmp(x->sha, y->sha);

	if (c)
		return c;
	if (x->boot != y->boot)
		return x->boot < y->boot ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

static int cmp_run_key(const void *a, const void *b)
{
	const struct run_key *x = a, *y = b;

	if (x->boot_start != y->boot_start)
		return x->boot_start < y->boot_start ? -1 : 1;
	if (x->run != y->run)
		return x->run < y->run ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

/* s->run_order: the runs in order of their boots' first runs, each boot's
 * runs together (the machines of a pool boot the same commit at once). */
static void order_runs(struct kb_session *s)
{
	size_t n = s->nruns, i, *byboot = kb_calloc(n ? n : 1, sizeof(*byboot));
	struct run_key *k = kb_calloc(n ? n : 1, sizeof(*k));
	int64_t start = 0;

	for (i = 0; i < n; i++)
		byboot[i] = i;
	sort_session = s;
	qsort(byboot, n, sizeof(*byboot), cmp_by_boot);
	for (i = 0; i < n; i++) {
		const struct kb_run_row *r = &s->runs[byboot[i]];

		if (!i || strcmp(s->runs[byboot[i - 1]].sha, r->sha) ||
		    s->runs[byboot[i - 1]].boot != r->boot)
			start = r->id;
		k[i].boot_start = start;
		k[i].run = r->run;
		k[i].i = byboot[i];
	}
	qsort(k, n, sizeof(*k), cmp_run_key);
	free(s->run_order);
	s->run_order = kb_calloc(n ? n : 1, sizeof(*s->run_order));
	for (i = 0; i < n; i++)
		s->run_order[i] = k[i].i;
	free(k);
	free(byboot);
}

signed char *kb_session_pairs(struct kb_session *s)
{
	size_t n = kb_spec_nmachines(&s->spec), i;
	signed char *pair = kb_calloc(n, 1);

	for (i = 0; i < n; i++)
		pair[i] = (signed char)(i % 2);
	if (kb_store_pairs(s->store, s->row.id, pair, n) < 0)
		kb_error_clear();
	return pair;
}

/*
 * What a run and a boot cost, from the runs recorded: a run, the median of
 * the runs' own times; a boot, the median of the gaps before the first run
 * of each boot after the last of the boot before on its machine (the boot
 * and the setup).  0 when not known yet.
 */
static void costs(struct kb_session *s, double *boot, double *run)
{
	double *r = kb_calloc(s->nruns + 1, sizeof(*r)), *b = kb_calloc(s->nruns + 1, sizeof(*b));
	size_t nr = 0, nb = 0, i, j;

	*boot = *run = 0;
	for (i = 0; i < s->nruns; i++) {
		const struct kb_run_row *x = &s->runs[s->run_order[i]];

		if (x->state != KB_RUN_DONE || !(x->finished > x->started))
			continue;
		r[nr++] = x->finished - x->started;
		for (j = i; j-- > 0;) {
			const struct kb_run_row *y = &s->runs[s->run_order[j]];

			if (y->machine != x->machine)
				continue;
			if (y->boot != x->boot && y->state == KB_RUN_DONE &&
			    x->started > y->finished && x->run == 1)
				b[nb++] = x->started - y->finished;
			break;
		}
	}
	if (nr) {
		kb_sort_doubles(r, nr);
		*run = r[nr / 2];
	}
	if (nb) {
		kb_sort_doubles(b, nb);
		*boot = b[nb / 2];
	}
	free(r);
	free(b);
}

/* The builds of a session's commits, from its events: the signature of
 * each build (the latest of a commit counts), and the commits that take
 * the samples of another, whose build is the same. */
struct pair {
	char sha[41], v[41];
};
struct builds {
	struct pair *sig, *same;
	size_t nsig, nsame, asig, asame;
};

static void builds_load(struct kb_session *s, struct builds *b)
{
	struct kb_event *ev;
	size_t n, i;

	memset(b, 0, sizeof(*b));
	if (kb_events_read(s->store, s->row.id, &ev, &n) < 0) {
		kb_error_clear();
		return;
	}
	for (i = 0; i < n; i++) {
		struct pair *p;

		if (ev[i].kind == KB_EV_SIGNATURE && ev[i].signature[0]) {
			KB_ALLOC_GROW(b->sig, b->nsig + 1, b->asig);
			p = &b->sig[b->nsig++];
			memcpy(p->v, ev[i].signature, 41);
		} else if (ev[i].kind == KB_EV_SAME && ev[i].of[0]) {
			KB_ALLOC_GROW(b->same, b->nsame + 1, b->asame);
			p = &b->same[b->nsame++];
			memcpy(p->v, ev[i].of, 41);
		} else {
			continue;
		}
		memcpy(p->sha, ev[i].sha, 41);
	}
	kb_events_free(ev, n);
}

static void builds_release(struct builds *b)
{
	free(b->sig);
	free(b->same);
	memset(b, 0, sizeof(*b));
}

/* The latest value of 'sha' among 'p', or NULL. */
static const char *latest(const struct pair *p, size_t n, const char *sha)
{
	while (n--)
		if (!strcmp(p[n].sha, sha))
			return p[n].v;
	return NULL;
}

/* The samples 'sha' has of its own. */
static size_t own_samples(struct kb_session *s, const char *sha)
{
	size_t i, n = 0;

	for (i = 0; i < s->nruns; i++)
		n += s->runs[i].state == KB_RUN_DONE && s->runs[i].has_value &&
		     !strcmp(s->runs[i].sha, sha);
	return n;
}

/* The commit whose samples 'sha' takes now, or NULL: one was recorded,
 * and 'sha' has none of its own yet. */
static const char *same_as(struct kb_session *s, const struct builds *b, const char *sha)
{
	const char *of = latest(b->same, b->nsame, sha);

	return of && !own_samples(s, sha) && own_samples(s, of) ? of : NULL;
}

/* A commit whose build is the same as that of a commit measured already
 * takes that commit's samples, as its own, until it is measured itself
 * (in the order taken, with that commit's boots and runs). */
static void add_same_samples(struct kb_session *s, struct input *x)
{
	struct builds b;
	size_t i, k, order;

	builds_load(s, &b);
	for (i = 0; i < b.nsame; i++) {
		const char *sha = b.same[i].sha, *of = same_as(s, &b, sha);
		struct kb_perf_obs *o;
		git_oid oid;
		long node = -1;

		/* once for each commit, at its latest */
		if (!of || latest(b.same, b.nsame, sha) != b.same[i].v)
			continue;
		if (git_oid_fromstr(&oid, sha) == 0)
			node = kb_dag_find(&s->dag, &oid);
		o = kb_perf_obs_get(&x->obs, &x->nobs, &x->alloc, sha, node);
		for (k = 0, order = 0; k < s->nruns; k++) {
			const struct kb_run_row *r = &s->runs[s->run_order[k]];

			if (r->state != KB_RUN_DONE || !r->has_value)
				continue;
			if (!strcmp(r->sha, of))
				kb_perf_obs_add_on(o, r->machine, r->boot, r->run, r->value, order);
			order++;
		}
	}
	builds_release(&b);
}

/* "kernel", or "build" for a --build command. */
static const char *built_thing(struct kb_session *s)
{
	return !strcmp(s->spec.build, "kernel") ? "kernel" : "build";
}

/*
 * A probe whose build is the same as that of a commit measured already
 * (their signatures are equal) takes that commit's samples instead of a
 * boot: built here, compared, recorded.  1 when it took them (nothing to
 * boot) or its build failed (a skip), 0 when it is to be booted, negative
 * on an error.  A commit that took samples once and is asked for again is
 * measured itself.
 */
static int take_same_samples(struct kb_session *s, struct kb_target *t, const struct kb_job *job)
{
	struct kb_event e = { .kind = KB_EV_SAME };
	struct builds b;
	const char *of = NULL, *sig;
	char built[41];
	size_t i, best = 0;
	int ret;

	if (strcmp(job->role, "probe") || !strcmp(s->spec.build, "none") ||
	    own_samples(s, job->sha))
		return 0;
	builds_load(s, &b);
	ret = latest(b.same, b.nsame, job->sha) != NULL;
	builds_release(&b);
	if (ret)
		return 0;
	if ((ret = kb_session_build_commit(s, t, job->sha, job->runs, built)) != 0 || !*built)
		return ret;
	builds_load(s, &b);
	for (i = 0; i < b.nsig; i++) {
		size_t n;

		if (!strcmp(b.sig[i].sha, job->sha) ||
		    !(sig = latest(b.sig, b.nsig, b.sig[i].sha)) || sig != b.sig[i].v ||
		    strcmp(sig, built))
			continue;
		if ((n = own_samples(s, b.sig[i].sha)) > best) {
			best = n;
			of = b.sig[i].sha;
		}
	}
	if (of) {
		memcpy(e.sha, job->sha, 41);
		memcpy(e.of, of, 41);
		if ((ret = kb_event_add(s->store, s->row.id, &e)) == 0) {
			kb_session_say(s, KB_SAY_INFO, "%.12s: its %s is the same as that of %.12s "
				       "(apart from version strings): it takes that commit's %zu "
				       "samples instead of a boot", job->sha, built_thing(s), of,
				       best);
			ret = 1;
		}
		s->built_on = NULL;
	}
	builds_release(&b);
	return ret;
}

static int build_input(struct kb_session *s, struct input *x)
{
	struct lab_devices devs;
	size_t i, order = 0;
	int ret;

	memset(x, 0, sizeof(*x));
	if ((ret = load_shas(s)) < 0)
		return ret;
	x->in.g = &s->dag.g;
	x->in.bad = s->dag.bad;
	x->in.node_sha = (const char (*)[41])s->node_sha;
	x->in.parent_sha = (const char (*)[41])s->parent_sha;
	x->in.good_sha = s->spec.good_shas.v[0];
	x->in.marks = s->marks;
	kb_perf_params_default(&x->in.p);
	x->in.p.higher_is_better = s->spec.bench.metric.direction == KB_HIGHER_IS_BETTER;
	x->in.p.warmup = s->spec.bench.warmup;
	x->in.p.runs_per_boot = s->spec.bench.runs_per_boot;
	x->in.p.confidence = s->spec.confidence;
	x->in.p.seed = s->spec.seed ? s->spec.seed : 1;
	if (s->spec.bench.min_effect > 0)
		x->in.p.min_effect = s->spec.bench.min_effect / 100;
	x->in.metric = s->spec.bench.metric.name;
	x->in.p.either = s->spec.term_old != NULL;
	x->in.machines = kb_spec_nmachines(&s->spec) > 1 ? (int)kb_spec_nmachines(&s->spec) : 0;
	x->in.machine = -1;
	if (kb_spec_nmachines(&s->spec) > 1)
		x->in.pair_of = x->pairs = kb_session_pairs(s);
	order_runs(s);
	lab_devices_load(s, &devs);
	for (i = 0; i < s->nruns; i++) {
		const struct kb_run_row *r = &s->runs[s->run_order[i]];
		struct kb_perf_obs *o;
		git_oid oid;
		long node = -1;

		if (r->state != KB_RUN_DONE || !r->has_value)
			continue;
		if (git_oid_fromstr(&oid, r->sha) == 0)
			node = kb_dag_find(&s->dag, &oid);
		o = kb_perf_obs_get(&x->obs, &x->nobs, &x->alloc, r->sha, node);
		kb_perf_obs_add_on(o, lab_machine(&devs, r), r->boot, r->run, r->value, order++);
	}
	lab_devices_release(&devs);
	add_same_samples(s, x);
	x->in.obs = x->obs;
	x->in.nobs = x->nobs;
	x->in.p.runs_fixed = s->spec.bench.runs_per_boot_set;
	costs(s, &x->in.p.boot_cost, &x->in.p.run_cost);
	if (revert_info(s, x->rrow, &x->in.nreverts)) {
		for (size_t i = 0; i < x->in.nreverts; i++) {
			/* a revert that does not build: no revert check */
			if (skip_marked(s, x->rrow[i].sha))
				x->rrow[i].sha[0] = '\0';
			x->rev[i].of = x->rrow[i].culprit;
			x->rev[i].sha = x->rrow[i].sha;
		}
		x->in.reverts = x->rev;
		x->in.revert_of = x->rev[x->in.nreverts - 1].of;
		x->in.revert_sha = x->rev[x->in.nreverts - 1].sha;
	}
	{
		char why[256];

		align_never(s, why, sizeof(why));
		x->in.align = !*why;
	}
	if (x->in.align && aligned_info(s, x, &x->aligned)) {
		x->in.align_of = x->aligned.culprit;
		/* an aligned build that fails: no rebuild check */
		if (skip_marked(s, x->aligned.parent_sha) || skip_marked(s, x->aligned.sha))
			x->aligned.parent_sha[0] = x->aligned.sha[0] = '\0';
		x->in.align_parent_sha = x->aligned.parent_sha;
		x->in.align_sha = x->aligned.sha;
		/* a merge's other parents */
		if (x->aligned.sha[0])
			aligned_others(s, x->aligned.culprit, &x->others);
		x->in.align_others = x->others.v;
		x->in.nalign_others = x->others.n;
	}
	x->in.align_ends = x->in.align;
	if (x->in.align && aligned_ends_info(s, &x->ends)) {
		/* one that fails to build: none */
		if (skip_marked(s, x->ends.good_variant) || skip_marked(s, x->ends.bad_variant))
			x->ends.good_variant[0] = x->ends.bad_variant[0] = '\0';
		x->in.align_good_sha = x->ends.good_variant;
		x->in.align_bad_sha = x->ends.bad_variant;
	}
	return 0;
}

/* What machine 'machine' of a pool measures next (-1: the whole), with
 * 'busy' under way elsewhere and the verification pair of each machine in
 * 'pairs'. */
static int decide_on(struct kb_session *s, int machine, const struct kb_perf_job *busy,
		     size_t nbusy, const signed char *pairs, struct kb_perf_out *out)
{
	struct input x;
	int ret;

	if ((ret = build_input(s, &x)) < 0)
		return ret;
	x.in.machine = machine;
	x.in.busy = busy;
	x.in.nbusy = nbusy;
	if (pairs)
		x.in.pair_of = pairs;
	ret = kb_perf_decide(&x.in, out);
	kb_perf_obs_free(x.obs, x.nobs);
	free(x.pairs);
	return ret;
}

static int decide(struct kb_session *s, struct kb_perf_out *out, int summary)
{
	struct input x;
	int ret;

	if ((ret = build_input(s, &x)) < 0)
		return ret;
	x.in.summary = summary;
	ret = kb_perf_decide(&x.in, out);
	kb_perf_obs_free(x.obs, x.nobs);
	free(x.pairs);
	return ret;
}

static int is_node(struct kb_session *s, const char *sha, long *node)
{
	git_oid oid;

	*node = -1;
	if (git_oid_fromstr(&oid, sha) == 0)
		*node = kb_dag_find(&s->dag, &oid);
	return *node >= 0 && (size_t)*node != s->dag.bad;
}

/* The benchmark's secondary metrics in a run's output, into r->metrics
 * (their names borrowed from the benchmark): one that is not there is
 * recorded as missing, for only the primary metric decides the run. */
static void extract_secondary(struct kb_session *s, const char *head, const char *tail,
			      struct kb_run_row *r)
{
	const struct kb_bench *b = &s->spec.bench;
	size_t i;

	r->metrics = NULL;
	r->nmetrics = 0;
	if (!b->nmetrics)
		return;
	r->metrics = kb_calloc(b->nmetrics, sizeof(*r->metrics));
	for (i = 0; i < b->nmetrics; i++) {
		struct kb_run_metric *m = &r->metrics[i];

		m->name = b->metrics[i].name;
		m->has_value = kb_metric_extract_kept(b, &b->metrics[i], head, tail,
						      &m->value) == 0;
	}
	r->nmetrics = b->nmetrics;
	kb_error_clear();
}

int kb_perf_record_run(struct kb_session *s, const struct kb_run_row *started,
		       const struct kb_run_result *res)
{
	struct kb_run_row r = *started;
	struct kb_buf head = KB_BUF_INIT, tail = KB_BUF_INIT;
	char *dir = kb_session_run_dir(s, started->id), *path = kb_asprintf("%s/output", dir);
	char why[1400] = "", *last;
	long node;
	int ret, skip = 0;

	/* the metrics come from the head of the output, or its tail */
	kb_output_read(path, &head, &tail);
	kb_error_clear();
	last = kb_session_output_last(&head, &tail);
	kb_session_run_outcome(&r, res);
	r.state = KB_RUN_DONE;
	r.output_tail = last;
	r.metrics = NULL;
	r.nmetrics = 0;
	if (res->outcome == KB_RUN_EXITED && res->exit_status == 0) {
		extract_secondary(s, head.ptr, tail.ptr, &r);
		if (kb_metric_extract_kept(&s->spec.bench, NULL, head.ptr, tail.ptr,
					   &r.value) < 0) {
			snprintf(why, sizeof(why), "%s", kb_error_last());
			r.state = KB_RUN_ABORTED;
		} else {
			r.has_value = 1;
		}
	} else if (kb_session_cannot_run(res, why, sizeof(why))) {
		r.state = KB_RUN_ABORTED;
	} else if (res->outcome == KB_RUN_EXITED && res->exit_status < 126) {
		/* the benchmark could not run on this commit */
		skip = 1;
	} else if (res->outcome == KB_RUN_CRASHED) {
		/* the kernel under test died or hung */
		skip = 1;
	} else if (res->outcome == KB_RUN_EXITED) {
		snprintf(why, sizeof(why), "benchmark %s: exited with %d", s->spec.bench.name,
			 res->exit_status);
		r.state = KB_RUN_ABORTED;
	} else if (res->outcome == KB_RUN_SIGNALED) {
		snprintf(why, sizeof(why), "benchmark %s: killed by signal %d",
			 s->spec.bench.name, res->term_signal);
		r.state = KB_RUN_ABORTED;
	} else {
		snprintf(why, sizeof(why), "benchmark %s: %s", s->spec.bench.name, res->message);
		r.state = KB_RUN_ABORTED;
	}
	if (skip && !is_node(s, r.sha, &node) && res->outcome == KB_RUN_CRASHED) {
		snprintf(why, sizeof(why), "%s, at %s, which every comparison needs",
			 res->message, !strcmp(r.sha, s->spec.good_shas.v[0]) ? "GOOD" :
			 !strcmp(r.sha, s->spec.bad_sha) ? "BAD" : "a reference commit");
		r.state = KB_RUN_ABORTED;
		skip = 0;
	} else if (skip && !is_node(s, r.sha, &node)) {
		snprintf(why, sizeof(why), "the benchmark failed (exit %d) at %s, which "
			 "every comparison needs", res->exit_status,
			 !strcmp(r.sha, s->spec.good_shas.v[0]) ? "GOOD" :
			 !strcmp(r.sha, s->spec.bad_sha) ? "BAD" : "a reference commit");
		r.state = KB_RUN_ABORTED;
		skip = 0;
	}
	if ((ret = kb_session_record_run(s, &r, res, skip ? KB_MARK_SKIP : 0,
					 *why ? why : NULL)) < 0)
		goto out;
	if (skip && res->outcome == KB_RUN_CRASHED)
		kb_session_say(s, KB_SAY_WARN, "%.12s: %s: skipping it", r.sha, res->message);
	else if (skip)
		kb_session_say(s, KB_SAY_WARN, "the benchmark failed (exit %d) at %.12s: "
			       "skipping it (output: %s)", res->exit_status, r.sha, path);
	if (*why)
		ret = kb_error(KB_EABORT, "%s at commit %.12s; see %s, fix it and run "
			       "'kbisect resume'", why, r.sha, path);
	else
		ret = skip;
	kb_session_run_tidy(s, &r, *why || (skip && res->outcome != KB_RUN_CRASHED));
out:
	kb_buf_release(&head);
	kb_buf_release(&tail);
	free(last);
	free(r.metrics);
	free(dir);
	free(path);
	return ret;
}

/* Build, boot, set up and run one boot of 'sha'.  A commit that fails to
 * build or set up is skipped; at an endpoint that is an error. */
int kb_perf_measure_boot(struct kb_session *s, struct kb_target *t, const char *sha,
			 int runs)
{
	long node;
	int boot = 0, ret, run;

	ret = kb_session_boot(s, t, sha, runs, &boot);
	if (ret > 0 && !is_node(s, sha, &node))
		return kb_error(KB_EINVAL, "the build or setup fails at %s %.12s, which "
				"every comparison needs: see the logs in %s",
				!strcmp(sha, s->spec.good_shas.v[0]) ?
				(strcmp(s->spec.kind, "compare") ? "GOOD" : "A") :
				!strcmp(sha, s->spec.bad_sha) ?
				(strcmp(s->spec.kind, "compare") ? "BAD" : "B") :
				"the parent or the revert of the likely culprit,", sha,
				s->paths.logs);
	if (ret)
		return ret < 0 ? ret : 0;
	for (run = 1; run <= runs; run++)
		if ((ret = kb_session_run_once(s, t, sha, boot, run)) != 0)
			break;
	return ret < 0 ? ret : 0;
}

/* Revert 'culprit' on top of BAD into a commit object (no ref, no work
 * tree, no index of the user's is touched) and record it. */
int kb_perf_make_revert(struct kb_session *s, const char *culprit)
{
	git_oid oid, rev;
	char hex[GIT_OID_HEXSZ + 1] = "-";
	int applied, ret;

	git_oid_fromstr(&oid, culprit);
	if ((ret = kb_repo_revert(s->repo, &oid, &s->dag.oid[s->dag.bad], &rev, &applied)) < 0)
		return ret;
	if (applied) {
		git_oid_tostr(hex, sizeof(hex), &rev);
		kb_session_say(s, KB_SAY_INFO, "reverted %.12s on top of BAD as %.12s",
			       culprit, hex);
	} else {
		kb_session_say(s, KB_SAY_INFO, "the revert of %.12s does not apply on BAD: "
			       "no revert check", culprit);
	}
	return kb_store_revert_add(s->store, s->row.id, culprit, applied ? hex : NULL);
}

/* The builds of 'culprit' and its parent with 64-byte function alignment,
 * as variants of their own (no ref is touched), recorded; or why not. */
static int make_aligned(struct kb_session *s, const char *culprit)
{
	git_oid oid, pv, cv;
	char why[256] = "", ph[GIT_OID_HEXSZ + 1] = "", ch[GIT_OID_HEXSZ + 1] = "";
	int ret;

	git_oid_fromstr(&oid, culprit);
	if ((ret = kb_build_aligned(s->repo, &oid, &pv, &cv, why, sizeof(why))) < 0)
		return ret;
	if (ret == 0) {
		git_oid_tostr(ph, sizeof(ph), &pv);
		git_oid_tostr(ch, sizeof(ch), &cv);
		struct others o;

		kb_session_say(s, KB_SAY_INFO, "%.12s and its parent with %s=y, for the "
			       "rebuild check: %.12s and %.12s", culprit, KB_ALIGN_OPTION, ch, ph);
		aligned_others(s, culprit, &o);
		for (size_t i = 0; i < o.n; i++)
			if (o.sha[i][0])
				kb_session_say(s, KB_SAY_INFO, "%.12s is a merge: its parent "
					       "%.12s too, %.12s", culprit, o.of[i], o.sha[i]);
			else
				kb_session_say(s, KB_SAY_INFO, "%.12s is a merge: its parent "
					       "%.12s is not built aligned (its tree has no %s)",
					       culprit, o.of[i], KB_ALIGN_OPTION);
	} else {
		kb_session_say(s, KB_SAY_INFO, "no rebuild check of %.12s: %s", culprit, why);
	}
	return kb_store_aligned_add(s->store, s->row.id, culprit, ph, ch, ret ? why : NULL);
}

/* GOOD and BAD ('bad') with 64-byte function alignment, as variants of
 * their own, recorded; or why not. */
static int make_aligned_ends(struct kb_session *s, const char *bad)
{
	struct kb_aligned_ends_row row;
	git_oid g, b, gv, bv;
	int ret;

	memset(&row, 0, sizeof(row));
	snprintf(row.good_sha, sizeof(row.good_sha), "%s", s->spec.good_shas.v[0]);
	snprintf(row.bad_sha, sizeof(row.bad_sha), "%s", bad);
	git_oid_fromstr(&g, row.good_sha);
	git_oid_fromstr(&b, row.bad_sha);
	if ((ret = kb_build_aligned_ends(s->repo, &g, &b, &gv, &bv, row.why,
					 sizeof(row.why))) < 0)
		return ret;
	if (ret == 0) {
		git_oid_tostr(row.good_variant, sizeof(row.good_variant), &gv);
		git_oid_tostr(row.bad_variant, sizeof(row.bad_variant), &bv);
		kb_session_say(s, KB_SAY_INFO, "GOOD and BAD with %s=y, to tell their change "
			       "from the code layout of their builds: %.12s and %.12s",
			       KB_ALIGN_OPTION, row.good_variant, row.bad_variant);
	} else {
		kb_session_say(s, KB_SAY_INFO, "GOOD and BAD are not built aligned: %s", row.why);
	}
	return kb_store_aligned_ends_add(s->store, s->row.id, &row);
}

/* Make what the decision code asks for before it can say what to
 * measure: a revert, aligned builds.  1 when it asked for one. */
static int make_asked(struct kb_session *s, const struct kb_perf_out *out, int *ret)
{
	if (out->kind == KB_PERF_REVERT)
		*ret = kb_perf_make_revert(s, out->sha);
	else if (out->kind == KB_PERF_ALIGN)
		*ret = make_aligned(s, out->sha);
	else if (out->kind == KB_PERF_ALIGN_ENDS)
		*ret = make_aligned_ends(s, out->sha);
	else
		return 0;
	if (*ret == 0)
		*ret = kb_session_refresh(s);
	return 1;
}

/* The probe's next commit if its samples come out at 'value'. */
static void next_if(struct kb_session *s, const char *sha, double value)
{
	struct input x;
	struct kb_perf_out out;
	struct kb_perf_obs *o;
	long node;
	int i;

	if (s->n_next >= KB_AHEAD_MAX || build_input(s, &x) < 0) {
		kb_error_clear();
		return;
	}
	is_node(s, sha, &node);
	o = kb_perf_obs_get(&x.obs, &x.nobs, &x.alloc, sha, node);
	/* boots of one run each, as many as a probe may take: no spread
	 * within a boot, for the noise estimates to see */
	for (i = 0; i < x.in.p.max_probe; i++)
		kb_perf_obs_add(o, 100000 + i, 1000, value, 1000000 + (size_t)i);
	x.in.obs = x.obs;
	x.in.nobs = x.nobs;
	if (kb_perf_decide(&x.in, &out) == 0) {
		if (out.kind == KB_PERF_RUN && strcmp(out.sha, sha))
			memcpy(s->next_shas[s->n_next++], out.sha, 41);
		json_decref(out.verdict);
		json_decref(out.summary);
	}
	kb_error_clear();
	kb_perf_obs_free(x.obs, x.nobs);
	free(x.pairs);
}

/* The median of the samples of 'sha' (0 when there are none). */
static double median_of(struct kb_session *s, const char *sha)
{
	double *v = kb_calloc(s->nruns ? s->nruns : 1, sizeof(*v)), m;
	size_t i, n = 0;

	for (i = 0; i < s->nruns; i++)
		if (s->runs[i].has_value && !strcmp(s->runs[i].sha, sha))
			v[n++] = s->runs[i].value;
	m = n ? kb_median(v, n) : 0;
	free(v);
	return m;
}

/* The aligned builds (of a likely culprit and its parent, of a merge's
 * other parents, of GOOD and BAD), once asked for, as long as they have
 * not been measured: built ahead while the verification runs. */
static void next_aligned(struct kb_session *s)
{
	struct kb_aligned_row a;
	struct kb_aligned_ends_row e;
	struct others o;
	const char *v[4 + OTHERS_MAX];
	size_t i, k, n = 0;

	if (aligned_info(s, NULL, &a) && a.sha[0]) {
		v[n++] = a.parent_sha;
		v[n++] = a.sha;
		/* a merge's other parents in the range */
		aligned_others(s, a.culprit, &o);
		for (i = 0; i < o.n; i++) {
			git_oid oid;

			if (o.sha[i][0] && git_oid_fromstr(&oid, o.of[i]) == 0 &&
			    kb_dag_find(&s->dag, &oid) >= 0)
				v[n++] = o.sha[i];
		}
	}
	if (aligned_ends_info(s, &e) && e.good_variant[0]) {
		v[n++] = e.good_variant;
		v[n++] = e.bad_variant;
	}
	for (k = 0; k < n && s->n_next < KB_AHEAD_MAX; k++) {
		int seen = skip_marked(s, v[k]);

		for (i = 0; i < s->nruns && !seen; i++)
			seen = !strcmp(s->runs[i].sha, v[k]);
		for (i = 0; i < s->n_next && !seen; i++)
			seen = !strcmp(s->next_shas[i], v[k]);
		if (!seen)
			memcpy(s->next_shas[s->n_next++], v[k], 41);
	}
}

static void next_candidates(struct kb_session *s, const char *sha, const char *role)
{
	s->n_next = 0;
	if (!strcmp(role, "good") || !strcmp(role, "bad")) {
		struct kb_next next;

		/* calibration: the first probe splits the range */
		if (kb_session_next(s, &next) == 0 && next.kind == KB_NEXT_TEST)
			git_oid_tostr(s->next_shas[s->n_next++], 41, &s->dag.oid[next.commit]);
		kb_error_clear();
		kb_next_release(&next);
	} else if (!strcmp(role, "skipped")) {
		struct kb_perf_out out;

		/* 'sha' did not build: the next thing to measure is known */
		if (decide(s, &out, 0) == 0) {
			if (out.kind == KB_PERF_RUN)
				memcpy(s->next_shas[s->n_next++], out.sha, 41);
			json_decref(out.verdict);
		}
		kb_error_clear();
	} else if (!strcmp(role, "probe")) {
		double g = median_of(s, s->spec.good_shas.v[0]), b = median_of(s, s->spec.bad_sha);

		if (g > 0 && b > 0) {
			next_if(s, sha, b);
			next_if(s, sha, g);
		}
	}
	next_aligned(s);
}

/* A guess at the commits still to measure after this one: halving the
 * candidates the posterior still spreads over, then the culprit's parent
 * and the revert. */
static int steps_after(const struct kb_perf_out *out)
{
	int n = out->candidates > 1 ? (int)ceil(log2(out->candidates)) : 0;

	if (!strcmp(out->role, "good") || !strcmp(out->role, "bad"))
		return n + 2;
	if (!strcmp(out->role, "revert"))
		return 0;
	if (!strcmp(out->role, "parent") || !strcmp(out->role, "culprit"))
		return 1;
	return n ? n - 1 + 2 : 2;
}

/* One machine: what the decision code asks for, with the reverts it asks
 * for made on the way. */
static int plan_one(struct kb_session *s, struct kb_job *job)
{
	struct kb_perf_out out;
	int ret;

	for (;;) {
		if ((ret = decide(s, &out, 0)) < 0)
			return ret;
		if (out.kind == KB_PERF_DONE) {
			json_decref(out.verdict);
			return KB_PLAN_FINISH;
		}
		if (!make_asked(s, &out, &ret))
			break;
		if (ret < 0)
			return ret;
	}
	{
		char last[96] = "";
		size_t i;

		/* the value measured last, so that a long bisection shows what
		 * it sees */
		for (i = s->nruns; i-- > 0;)
			if (s->runs[i].state == KB_RUN_DONE && s->runs[i].has_value) {
				const char *u = s->spec.bench.metric.unit;

				double v = s->runs[i].value;

				/* 641600 ns, not 6.416e+05 ns */
				snprintf(last, sizeof(last), fabs(v) >= 1e4 && fabs(v) < 1e15 ?
					 "; last value %.0f%s%s at %.12s" :
					 "; last value %.4g%s%s at %.12s", v,
					 u && *u ? " " : "", u ? u : "", s->runs[i].sha);
				break;
			}
		if (out.best_node >= 0)
			kb_session_say(s, KB_SAY_STEP, "[%.12s] %s: %s (likeliest culprit "
				       "%.12s, %.0f%%%s)", out.sha, out.role, out.note,
				       s->node_sha[out.best_node], 100 * out.best_prob, last);
		else
			kb_session_say(s, KB_SAY_STEP, "[%.12s] %s: %s (likeliest culprit "
				       "%.0f%%%s)", out.sha, out.role, out.note,
				       100 * out.best_prob, last);
	}
	s->steps_after = steps_after(&out);
	memset(job, 0, sizeof(*job));
	memcpy(job->sha, out.sha, 41);
	job->runs = out.runs;
	snprintf(job->role, sizeof(job->role), "%s", out.role);
	return KB_PLAN_WORK;
}

/* A pool: for each free machine, the boot the decision code gives it
 * beside the boots under way. */
static int plan_pool(struct kb_session *s, const struct kb_plan_in *in, struct kb_job *jobs,
		     size_t *nout)
{
	int n = (int)kb_spec_nmachines(&s->spec), i, k, ret;
	struct kb_perf_job *busy = kb_calloc((size_t)n + in->nfree, sizeof(*busy));
	struct kb_perf_out out;
	size_t nbusy = 0, f;
	signed char *pairs = kb_session_pairs(s), *was = kb_calloc((size_t)n, 1);
	unsigned char *retired = kb_calloc((size_t)n, 1);

	*nout = 0;

	for (f = 0; f < in->nbusy; f++) {
		memcpy(busy[nbusy].sha, in->busy[f].sha, 41);
		busy[nbusy++].machine = in->busy[f].machine;
	}
	/* the machines out of service: neither at work nor free */
	memset(retired, 1, (size_t)n);
	for (f = 0; f < in->nbusy; f++)
		retired[in->busy[f].machine] = 0;
	for (f = 0; f < in->nfree; f++)
		retired[in->free[f]] = 0;
	/* the pairs of the verification: the machines in service take
	 * turns, the first parent and culprit, the second BAD and its revert */
	memcpy(was, pairs, (size_t)n);
	for (i = 0, k = 0; i < n; i++)
		pairs[i] = retired[i] ? -1 : (signed char)(k++ % 2);
	if (memcmp(was, pairs, (size_t)n) && (ret = kb_store_set_pairs(s->store, s->row.id, pairs, (size_t)n)) < 0)
		goto out;
	/* the whole first: finished, or a revert to make */
	for (;;) {
		if ((ret = decide_on(s, -1, busy, nbusy, pairs, &out)) < 0)
			goto out;
		if (!make_asked(s, &out, &ret))
			break;
		if (ret < 0)
			goto out;
	}
	if (out.kind == KB_PERF_DONE) {
		json_decref(out.verdict);
		ret = nbusy ? KB_PLAN_WORK : KB_PLAN_FINISH;
		goto out;
	}
	if (s->stop && *s->stop) {
		ret = nbusy ? KB_PLAN_WORK : KB_PLAN_STOP;
		goto out;
	}
	s->steps_after = out.kind == KB_PERF_RUN ? steps_after(&out) : -1;
	for (f = 0; f < in->nfree; f++) {
		i = in->free[f];
		if ((ret = decide_on(s, i, busy, nbusy, pairs, &out)) < 0)
			goto out;
		if (make_asked(s, &out, &ret)) {
			if (ret < 0)
				goto out;
			f--;
			continue;
		}
		if (out.kind == KB_PERF_DONE)
			json_decref(out.verdict);
		if (out.kind != KB_PERF_RUN)
			continue;
		kb_session_say(s, KB_SAY_STEP, "[machine %d] [%.12s] %s: %s (likeliest "
			       "culprit %.0f%%)", i, out.sha, out.role, out.note,
			       100 * out.best_prob);
		memset(&jobs[*nout], 0, sizeof(jobs[*nout]));
		memcpy(jobs[*nout].sha, out.sha, 41);
		jobs[*nout].runs = out.runs;
		jobs[*nout].machine = i;
		snprintf(jobs[*nout].role, sizeof(jobs[*nout].role), "%s", out.role);
		(*nout)++;
		memcpy(busy[nbusy].sha, out.sha, 41);
		busy[nbusy++].machine = i;
	}
	ret = KB_PLAN_WORK;
out:
	free(busy);
	free(pairs);
	free(was);
	free(retired);
	return ret;
}

static int work(struct kb_session *s, struct kb_target *t, const struct kb_job *job)
{
	int ret;

	/* one machine builds ahead what comes next (a pool builds on its
	 * machines' turns instead) */
	if (kb_spec_nmachines(&s->spec) == 1 && kb_session_ahead_jobs(s, t))
		next_candidates(s, job->sha, job->role);
	if ((ret = take_same_samples(s, t, job)) != 0)
		return ret < 0 ? ret : 0;
	return kb_perf_measure_boot(s, t, job->sha, job->runs);
}

static void skipped(struct kb_session *s, const char *sha)
{
	next_candidates(s, sha, "skipped");
}

static void add_commit_info(struct kb_session *s, json_t *o)
{
	const char *sha = json_string_value(json_object_get(o, "commit"));
	json_t *c;
	git_oid oid;

	if (!sha || git_oid_fromstr(&oid, sha) < 0)
		return;
	c = kb_session_commit_json(s, &oid);
	json_object_update_missing(o, c);
	json_decref(c);
}

/* Where a measured commit stands in history: 0 for a GOOD, 1 for the
 * oldest commit of the range up to the range's size for BAD (the order is
 * topological, parents first).  A revert is not in history: no position. */
static void add_position(struct kb_session *s, json_t *o)
{
	const char *sha = json_string_value(json_object_get(o, "commit"));
	git_oid oid;
	long node;
	size_t i;

	if (!sha || git_oid_fromstr(&oid, sha) < 0)
		return;
	for (i = 0; i < s->spec.good_shas.n; i++)
		if (!strcmp(sha, s->spec.good_shas.v[i])) {
			json_object_set_new(o, "position", json_integer(0));
			return;
		}
	if ((node = kb_dag_find(&s->dag, &oid)) >= 0)
		json_object_set_new(o, "position",
				    json_integer((json_int_t)(s->dag.g.n - (size_t)node)));
}

/* The secondary metrics of report 'o' (report.c), the primary metric
 * taken as moved when the verdict blames a commit and as still when it
 * finds no regression. */
static void add_metrics(struct kb_session *s, json_t *o, int warmup)
{
	const char *v = json_string_value(json_object_get(o, "verdict"));

	/* too noisy to tell: the primary metric is not seen to move */
	int noisy = json_is_true(json_object_get(json_object_get(o, "calibration"), "too_noisy"));

	kb_report_metrics(s, o, warmup, !v ? -1 : !strcmp(v, "culprit") ||
			  !strcmp(v, "multiple") ? 1 : !strcmp(v, "no-regression") || noisy ? 0 : -1);
}

/*
 * The no-op check of each culprit: its build and its parent's have the
 * same signature ("warning"), differ ("pass"), or one of them has none
 * ("n/a"); no check when nothing is built.  A culprit built as its parent
 * is cannot have moved the benchmark: the verdict is inconclusive.  The
 * steps of the commits that take another's samples say whose.
 */
static void check_no_op(struct kb_session *s, json_t *o)
{
	const char *verdict = json_string_value(json_object_get(o, "verdict"));
	json_t *e, *warnings = json_object_get(o, "warnings");
	struct builds b;
	size_t i;
	int same = 0;

	if (!strcmp(s->spec.build, "none"))
		return;
	builds_load(s, &b);
	json_array_foreach(json_object_get(o, "culprits"), i, e) {
		const char *c = json_string_value(json_object_get(e, "commit")),
			*p = json_string_value(json_object_get(e, "parent"));
		const char *sc = c ? latest(b.sig, b.nsig, c) : NULL,
			*sp = p ? latest(b.sig, b.nsig, p) : NULL;
		const char *check = !sc || !sp ? "n/a" : strcmp(sc, sp) ? "pass" : "warning";
		json_t *checks = json_object_get(e, "checks");

		if (json_is_object(checks))
			json_object_set_new(checks, "no_op", json_string(check));
		if (strcmp(check, "warning"))
			continue;
		same++;
		if (json_is_array(warnings))
			kb_report_warn(warnings, "no-op", "%.12s: the culprit's %s is identical to "
				       "its parent's apart from version strings: the change cannot "
				       "have moved the benchmark", c, built_thing(s));
	}
	if (same && verdict && (!strcmp(verdict, "culprit") || !strcmp(verdict, "multiple"))) {
		json_object_set_new(o, "verdict", json_string("inconclusive"));
		json_object_set_new(o, "reason", json_sprintf("the culprit's %s is identical to "
			"its parent's apart from version strings", built_thing(s)));
	}
	json_array_foreach(json_object_get(o, "steps"), i, e) {
		const char *c = json_string_value(json_object_get(e, "commit")),
			*of = c ? same_as(s, &b, c) : NULL;

		if (of)
			json_object_set_new(e, "same_as", json_string(of));
	}
	builds_release(&b);
}

/*
 * The rebuild check of the first culprit, as the report gives it: why it
 * was not made, and what it cost (its builds' time, its boots and runs).
 */
static void add_rebuild(struct kb_session *s, json_t *o)
{
	json_t *cu = json_array_get(json_object_get(o, "culprits"), 0), *r;
	const char *check;
	struct kb_aligned_row a;
	struct kb_event *ev;
	char why[256] = "";
	double secs = 0;
	size_t i, n, runs = 0, boots = 0;
	int have;

	if (!cu)
		return;
	check = json_string_value(json_object_get(json_object_get(cu, "checks"), "rebuild"));
	have = aligned_info(s, NULL, &a) && !strcmp(a.culprit,
		json_string_value(json_object_get(cu, "commit")) ?
		json_string_value(json_object_get(cu, "commit")) : "");
	r = json_pack("{s:s, s:s}", "check", check ? check : "n/a", "option", KB_ALIGN_OPTION);
	align_never(s, why, sizeof(why));
	if (!*why && have && !a.sha[0])
		snprintf(why, sizeof(why), "%s", a.why);
	else if (!*why && have && (skip_marked(s, a.sha) || skip_marked(s, a.parent_sha)))
		snprintf(why, sizeof(why), "an aligned build failed (%.12s or %.12s)",
			 a.parent_sha, a.sha);
	else if (!*why && check && !strcmp(check, "n/a"))
		snprintf(why, sizeof(why), "the checks before it did not pass");
	if (check && !strcmp(check, "n/a") && *why)
		json_object_set_new(r, "why", json_string(why));
	if (have && a.sha[0]) {
		struct others o;
		json_t *commits = json_pack("[s, s]", a.parent_sha, a.sha);

		/* a merge's other parents, built aligned where measured */
		aligned_others(s, a.culprit, &o);
		for (i = 0; i < o.n; i++)
			if (o.sha[i][0] && !measured(s, o.sha[i]))
				o.sha[i][0] = '\0';
			else if (o.sha[i][0])
				json_array_append_new(commits, json_string(o.sha[i]));
		json_object_set_new(r, "commits", commits);
		if (kb_events_read(s->store, s->row.id, &ev, &n) == 0) {
			for (i = 0; i < n; i++)
				if (ev[i].kind == KB_EV_BUILD && ev[i].result != KB_EV_CACHED &&
				    (!strcmp(ev[i].sha, a.sha) || !strcmp(ev[i].sha, a.parent_sha) ||
				     other_of(&o, ev[i].sha)))
					secs += ev[i].seconds;
			kb_events_free(ev, n);
		}
		kb_error_clear();
		for (i = 0; i < s->nruns; i++) {
			const struct kb_run_row *x = &s->runs[i];

			if (x->state != KB_RUN_DONE || (strcmp(x->sha, a.sha) &&
							strcmp(x->sha, a.parent_sha) &&
							!other_of(&o, x->sha)))
				continue;
			runs++;
			boots += x->run == 1;
		}
		json_object_set_new(r, "build_seconds", json_real(secs));
		json_object_set_new(r, "boots", json_integer((json_int_t)boots));
		json_object_set_new(r, "runs", json_integer((json_int_t)runs));
	}
	json_object_set_new(cu, "rebuild", r);
}

static int report(struct kb_session *s, json_t **out)
{
	struct kb_perf_out po;
	json_t *o = NULL, *v, *e, *goods = json_array();
	size_t i, runs = 0;
	int ret;

	/* a session that ended keeps the verdict it ended with: the same
	 * samples read by a later kbisect, whose engine may weigh them
	 * otherwise, do not change what was reported and mailed.  What the
	 * report adds to the engine's verdict (the commits' people, through
	 * today's .mailmap; the secondary metrics) is added again. */
	if (!strcmp(s->row.state, "done") && s->row.verdict &&
	    (o = json_loads(s->row.verdict, 0, NULL)) &&
	    json_is_string(json_object_get(o, "verdict"))) {
		json_t *w = json_object_get(o, "warnings"), *keep = json_array(), *x;

		json_array_foreach(w, i, x) {
			const char *k = json_string_value(json_object_get(x, "kind"));

			if (!k || (strcmp(k, "only-primary") && strcmp(k, "secondary-moved") &&
				   strcmp(k, "no-op")))
				json_array_append(keep, x);
		}
		json_object_set_new(o, "warnings", keep);
		json_object_del(o, "metrics");
		memset(&po, 0, sizeof(po));
		po.kind = KB_PERF_DONE;
		po.verdict = o;
		po.best_node = -1;
		po.warmup_used = (int)json_integer_value(json_object_get(o, "warmup_used"));
	} else {
		json_decref(o);
		o = NULL;
		if ((ret = decide(s, &po, 1)) < 0) {
			json_decref(goods);
			return ret;
		}
	}
	if (po.kind == KB_PERF_DONE) {
		o = po.verdict;
		json_decref(po.summary);
	} else {
		o = po.summary;
		json_object_set_new(o, "verdict", json_string("inconclusive"));
		json_object_set_new(o, "culprits", json_array());
		json_array_append_new(json_object_get(o, "warnings"), json_pack(
			"{s:s, s:s}", "kind", "unfinished", "message",
			"the bisection has not finished"));
		if (po.best_node >= 0)
			json_object_set_new(o, "likeliest", json_pack("{s:s, s:f}", "commit",
				s->node_sha[po.best_node], "probability", po.best_prob));
	}
	for (i = 0; i < s->spec.good_shas.n; i++)
		json_array_append_new(goods, json_string(s->spec.good_shas.v[i]));
	for (i = 0; i < s->nruns; i++)
		runs += s->runs[i].state == KB_RUN_DONE;
	json_object_set_new(o, "version", json_integer(1));
	json_object_set_new(o, "mode", json_string("performance"));
	json_object_set_new(o, "good", json_string(s->spec.good_shas.v[0]));
	json_object_set_new(o, "bad", json_string(s->spec.bad_sha));
	json_object_set_new(o, "goods", goods);
	json_object_set_new(o, "metric", json_pack("{s:s, s:s, s:s}",
		"name", s->spec.bench.metric.name, "unit", s->spec.bench.metric.unit,
		"direction", s->spec.bench.metric.direction == KB_HIGHER_IS_BETTER ?
		"higher" : "lower"));
	json_object_set_new(o, "confidence", json_real(s->spec.confidence));
	kb_report_common(s, o, runs);
	json_array_foreach(json_object_get(o, "culprits"), i, e) {
		add_commit_info(s, e);
		kb_session_culprit_people(s, e);
	}
	json_array_foreach(json_object_get(o, "steps"), i, e) {
		add_commit_info(s, e);
		add_position(s, e);
		if (!strcmp(json_string_value(json_object_get(e, "decision")), "skip"))
			kb_session_build_error(s, json_string_value(json_object_get(e, "commit")), e);
	}
	if ((v = json_object_get(o, "likeliest")))
		add_commit_info(s, v);
	check_no_op(s, o);
	add_metrics(s, o, po.warmup_used);
	add_rebuild(s, o);
	*out = o;
	return 0;
}

/* How many commits of the range (BAD's not counted, as in the range's
 * size) have a run with a value. */
static size_t commits_tested(struct kb_session *s)
{
	unsigned char *seen = kb_calloc(s->dag.g.n ? s->dag.g.n : 1, 1);
	size_t i, n = 0;
	long node;

	for (i = 0; i < s->nruns; i++)
		if (s->runs[i].state == KB_RUN_DONE && s->runs[i].has_value &&
		    is_node(s, s->runs[i].sha, &node) && !seen[node]) {
			seen[node] = 1;
			n++;
		}
	free(seen);
	return n;
}

int kb_perf_status(struct kb_session *s, json_t *st)
{
	struct kb_perf_out po;
	json_t *done;
	int ret;

	/* the commits measured, not marked: a performance bisection marks
	 * none */
	json_object_set_new(st, "tested", json_integer((json_int_t)commits_tested(s)));

	/* a session that ended: the verdict it ended with (see report()) */
	if (!strcmp(s->row.state, "done") && s->row.verdict &&
	    (done = json_loads(s->row.verdict, 0, NULL))) {
		json_t *v = json_object_get(done, "verdict"), *c;

		c = json_array_get(json_object_get(done, "culprits"), 0);
		if (json_is_string(v)) {
			json_object_set(st, "verdict", v);
			if (c && (!strcmp(json_string_value(v), "culprit") ||
				  !strcmp(json_string_value(v), "multiple")))
				json_object_set(st, "culprit", json_object_get(c, "commit"));
			json_object_set_new(st, "next", json_null());
			json_object_set_new(st, "likeliest", c ? json_pack("{s:O, s:O}",
				"commit", json_object_get(c, "commit"), "probability",
				json_object_get(c, "probability")) : json_null());
			json_object_set_new(st, "warmup_used", json_integer(
				json_integer_value(json_object_get(done, "warmup_used"))));
			json_object_set_new(st, "candidates", json_integer((json_int_t)
				json_array_size(json_object_get(done, "culprits"))));
			json_decref(done);
			return 0;
		}
		json_decref(done);
	}
	if ((ret = decide(s, &po, 0)) < 0)
		return ret;
	if (po.kind == KB_PERF_DONE) {
		json_t *c = json_array_get(json_object_get(po.verdict, "culprits"), 0);

		check_no_op(s, po.verdict);
		json_object_set(st, "verdict", json_object_get(po.verdict, "verdict"));
		if (c && (!strcmp(json_string_value(json_object_get(po.verdict, "verdict")),
				  "culprit") ||
			  !strcmp(json_string_value(json_object_get(po.verdict, "verdict")),
				  "multiple")))
			json_object_set(st, "culprit", json_object_get(c, "commit"));
		json_object_set_new(st, "next", json_null());
		json_decref(po.verdict);
	} else {
		json_object_set_new(st, "next", po.kind == KB_PERF_RUN ?
			json_pack("{s:s, s:s, s:s}", "commit", po.sha, "role", po.role,
				  "why", po.note) : json_null());
	}
	json_object_set_new(st, "likeliest", po.best_node >= 0 ?
		json_pack("{s:s, s:f}", "commit", s->node_sha[po.best_node],
			  "probability", po.best_prob) : json_null());
	json_object_set_new(st, "warmup_used", json_integer(po.warmup_used));
	/* the commits the posterior spreads over (exp of its entropy) */
	if (po.candidates >= 1)
		json_object_set_new(st, "candidates", json_integer((json_int_t)
			floor(po.candidates + 0.5)));
	return 0;
}

static int wants(const struct kb_spec *spec)
{
	return spec->bench.has_metric;
}

const struct kb_mode_ops kb_mode_perf = {
	.name = "performance",
	.resume = "continue with 'kbisect resume'",
	.wants = wants,
	.plan = plan_one,
	.plan_pool = plan_pool,
	.work = work,
	.record_run = kb_perf_record_run,
	.skipped = skipped,
	.report = report,
	.status = kb_perf_status,
};
