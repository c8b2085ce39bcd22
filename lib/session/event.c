#include "event.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

static const char *text_of(const struct kb_event *e)
{
	return e->text ? e->text : "";
}

static void encode(const struct kb_event *e, const char **kind, struct kb_buf *b)
{
	switch (e->kind) {
	case KB_EV_START:
		*kind = "start";
		kb_buf_adds(b, text_of(e));
		break;
	case KB_EV_BUILD:
		*kind = "build";
		if (e->ahead)
			kb_buf_addf(b, "%s ahead %s %.1f %s", e->sha,
				    e->result == KB_EV_FAILED ? "failed" : "built", e->seconds,
				    e->result == KB_EV_FAILED ? "-" : e->release);
		else if (e->result == KB_EV_FAILED)
			kb_buf_addf(b, "%s failed %.1f\n%s", e->sha, e->seconds, text_of(e));
		else
			kb_buf_addf(b, "%s %s %.1f %s", e->sha,
				    e->result == KB_EV_CACHED ? "cached" : "built", e->seconds,
				    e->release);
		break;
	case KB_EV_HOOK:
		*kind = e->hook;
		if (e->result == KB_EV_OK)
			kb_buf_addf(b, "%s ok", e->sha);
		else
			kb_buf_addf(b, "%s failed: %s", e->sha, text_of(e));
		break;
	case KB_EV_BOOT:
		*kind = "boot";
		if (e->result == KB_EV_OK)
			kb_buf_addf(b, "%s ok %s", e->sha, e->accel);
		else
			kb_buf_addf(b, "%s failed %s\n%s", e->sha, e->accel[0] ? e->accel : "-",
				    text_of(e));
		break;
	case KB_EV_ABORT:
		*kind = "abort";
		kb_buf_addf(b, "%s: %s", e->sha, text_of(e));
		break;
	case KB_EV_INTERRUPTED:
		*kind = "interrupted";
		kb_buf_addf(b, "run %lld at %s was cut short; it runs again",
			    (long long)e->run, e->sha);
		break;
	case KB_EV_MACHINE:
		*kind = "machine";
		if (e->result == KB_EV_RETIRED)
			kb_buf_addf(b, "%d retired\n%s", e->machine, text_of(e));
		else if (e->result == KB_EV_FAILED)
			kb_buf_addf(b, "%d failed %s\n%s", e->machine, e->sha, text_of(e));
		else
			kb_buf_addf(b, "%d %s %s", e->machine,
				    e->result == KB_EV_DONE ? "done" : "testing", e->sha);
		break;
	case KB_EV_VERDICT:
		*kind = "verdict";
		kb_buf_adds(b, text_of(e));
		break;
	case KB_EV_RESET:
		*kind = "reset";
		kb_buf_adds(b, "session ended");
		break;
	case KB_EV_UNMARK:
		*kind = "unmark";
		kb_buf_adds(b, e->sha);
		break;
	case KB_EV_SIGNATURE:
		*kind = "signature";
		kb_buf_addf(b, "%s %s", e->sha, e->signature);
		break;
	case KB_EV_SAME:
		*kind = "same";
		kb_buf_addf(b, "%s takes the samples of %s", e->sha, e->of);
		break;
	case KB_EV_JOB:
		*kind = "job";
		kb_buf_addf(b, "%s %d %ld %s %s\n%s", e->sha, e->boot, e->job,
			    e->state[0] ? e->state : "-", e->device[0] ? e->device : "-",
			    text_of(e));
		break;
	case KB_EV_OTHER:
		*kind = "other";
		kb_buf_adds(b, text_of(e));
		break;
	}
}

int kb_event_add(struct kb_store *store, int64_t session, const struct kb_event *e)
{
	struct kb_buf b = KB_BUF_INIT;
	const char *kind = "other";
	int ret;

	kb_buf_adds(&b, "");
	encode(e, &kind, &b);
	ret = kb_store_event(store, session, kind, "%s", b.ptr);
	kb_buf_release(&b);
	return ret;
}

/* The first word of 'p' (up to a blank or a line end) into 'out'; the
 * rest after one blank. */
static const char *word(const char *p, char *out, size_t size)
{
	size_t len = strcspn(p, " \n");

	snprintf(out, size, "%.*s", (int)len, p);
	p += len;
	return *p == ' ' ? p + 1 : p;
}

/* What follows the first line end of 'p', or "". */
static const char *after_line(const char *p)
{
	const char *nl = strchr(p, '\n');

	return nl ? nl + 1 : "";
}

static void decode_build(struct kb_event *e, const char *kind, const char *d)
{
	char what[16] = "";
	const char *p = word(d, e->sha, sizeof(e->sha));

	if (!strncmp(p, "failed: ", 8) || !strcmp(p, "ok") || strcmp(kind, "build")) {
		/* a command of the user's: "SHA ok", "SHA failed: TAIL" */
		e->kind = KB_EV_HOOK;
		snprintf(e->hook, sizeof(e->hook), "%s", kind);
		e->result = !strcmp(p, "ok") ? KB_EV_OK : KB_EV_FAILED;
		e->text = kb_strdup(e->result == KB_EV_FAILED && strlen(p) >= 8 ? p + 8 : "");
		return;
	}
	e->kind = KB_EV_BUILD;
	p = word(p, what, sizeof(what));
	if (!strcmp(what, "ahead")) {
		e->ahead = 1;
		p = word(p, what, sizeof(what));
	}
	e->result = !strcmp(what, "failed") ? KB_EV_FAILED : !strcmp(what, "cached") ?
		    KB_EV_CACHED : KB_EV_BUILT;
	e->seconds = strtod(p, NULL);
	p = word(p, what, sizeof(what));
	if (e->result == KB_EV_FAILED && !e->ahead) {
		e->text = kb_strdup(after_line(d));
	} else {
		word(p, e->release, sizeof(e->release));
		if (!strcmp(e->release, "-"))
			e->release[0] = '\0';
	}
}

static void decode(struct kb_event *e, const char *kind, const char *d)
{
	char what[16] = "";
	const char *p;

	if (!strcmp(kind, "start") || !strcmp(kind, "verdict")) {
		e->kind = kind[0] == 's' ? KB_EV_START : KB_EV_VERDICT;
		e->text = kb_strdup(d);
	} else if (!strcmp(kind, "build") || !strcmp(kind, "setup")) {
		decode_build(e, kind, d);
	} else if (!strcmp(kind, "boot")) {
		e->kind = KB_EV_BOOT;
		p = word(d, e->sha, sizeof(e->sha));
		p = word(p, what, sizeof(what));
		e->result = !strcmp(what, "ok") ? KB_EV_OK : KB_EV_FAILED;
		word(p, e->accel, sizeof(e->accel));
		if (!strcmp(e->accel, "-"))
			e->accel[0] = '\0';
		if (e->result == KB_EV_FAILED)
			e->text = kb_strdup(after_line(d));
	} else if (!strcmp(kind, "abort")) {
		size_t len = strcspn(d, ":");

		e->kind = KB_EV_ABORT;
		snprintf(e->sha, sizeof(e->sha), "%.*s", (int)(len < 40 ? len : 40), d);
		e->text = kb_strdup(d[len] ? d + len + 1 + (d[len + 1] == ' ') : "");
	} else if (!strcmp(kind, "interrupted")) {
		long long run = 0;
		char sha[41] = "";

		e->kind = KB_EV_INTERRUPTED;
		if (sscanf(d, "run %lld at %40s", &run, sha) == 2) {
			e->run = run;
			memcpy(e->sha, sha, sizeof(sha));
		}
	} else if (!strcmp(kind, "machine")) {
		e->kind = KB_EV_MACHINE;
		e->machine = (int)strtol(d, NULL, 10);
		p = word(d, what, sizeof(what));
		p = word(p, what, sizeof(what));
		e->result = !strcmp(what, "testing") ? KB_EV_TESTING : !strcmp(what, "done") ?
			    KB_EV_DONE : !strcmp(what, "failed") ? KB_EV_FAILED : KB_EV_RETIRED;
		if (e->result != KB_EV_RETIRED)
			word(p, e->sha, sizeof(e->sha));
		if (e->result == KB_EV_FAILED || e->result == KB_EV_RETIRED)
			e->text = kb_strdup(after_line(d));
	} else if (!strcmp(kind, "reset")) {
		e->kind = KB_EV_RESET;
	} else if (!strcmp(kind, "unmark")) {
		e->kind = KB_EV_UNMARK;
		word(d, e->sha, sizeof(e->sha));
	} else if (!strcmp(kind, "signature")) {
		e->kind = KB_EV_SIGNATURE;
		p = word(d, e->sha, sizeof(e->sha));
		word(p, e->signature, sizeof(e->signature));
	} else if (!strcmp(kind, "same")) {
		char sha[41] = "", of[41] = "";

		e->kind = KB_EV_SAME;
		if (sscanf(d, "%40s takes the samples of %40s", sha, of) == 2) {
			memcpy(e->sha, sha, sizeof(sha));
			memcpy(e->of, of, sizeof(of));
		}
	} else if (!strcmp(kind, "job")) {
		char sha[41] = "", state[16] = "", device[128] = "";
		long job = 0;
		int boot = 0;

		e->kind = KB_EV_JOB;
		if (sscanf(d, "%40s %d %ld %15s %127s", sha, &boot, &job, state, device) == 5) {
			memcpy(e->sha, sha, sizeof(sha));
			e->boot = boot;
			e->job = job;
			snprintf(e->state, sizeof(e->state), "%s", strcmp(state, "-") ? state : "");
			snprintf(e->device, sizeof(e->device), "%s",
				 strcmp(device, "-") ? device : "");
		}
		e->text = kb_strdup(after_line(d));
	} else {
		e->kind = KB_EV_OTHER;
		e->text = kb_strdup(d);
	}
}

int kb_events_read(struct kb_store *store, int64_t session, struct kb_event **out,
		   size_t *n)
{
	struct kb_event_row *rows;
	size_t nrows, i;
	int ret;

	*out = NULL;
	*n = 0;
	if ((ret = kb_store_events(store, session, &rows, &nrows)) < 0)
		return ret;
	*out = kb_calloc(nrows ? nrows : 1, sizeof(**out));
	for (i = 0; i < nrows; i++) {
		struct kb_event *e = &(*out)[i];

		e->id = rows[i].id;
		e->ts = rows[i].ts;
		decode(e, rows[i].kind, rows[i].detail);
	}
	*n = nrows;
	kb_event_rows_free(rows, nrows);
	return 0;
}

void kb_events_free(struct kb_event *ev, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free((char *)ev[i].text);
	free(ev);
}
