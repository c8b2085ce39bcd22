#include <stdlib.h>
#include <string.h>

#include "event.h"
#include "store.h"
#include "test.h"
#include "util.h"

#define SHA "0123456789012345678901234567890123456789"

/* Every kind of event, and the text its row has had since schema 1. */
static const struct {
	struct kb_event e;
	const char *kind, *detail;
} cases[] = {
	{ { .kind = KB_EV_START, .text = "v1..v2" }, "start", "v1..v2" },
	{ { .kind = KB_EV_BUILD, .result = KB_EV_BUILT, .sha = SHA, .seconds = 12.25,
	    .release = "6.1.0-kb0123" }, "build", SHA " built 12.2 6.1.0-kb0123" },
	{ { .kind = KB_EV_BUILD, .result = KB_EV_CACHED, .sha = SHA, .release = "6.1.0" },
	  "build", SHA " cached 0.0 6.1.0" },
	{ { .kind = KB_EV_BUILD, .result = KB_EV_FAILED, .sha = SHA, .seconds = 3,
	    .text = "error: a\nerror: b" }, "build", SHA " failed 3.0\nerror: a\nerror: b" },
	{ { .kind = KB_EV_BUILD, .result = KB_EV_BUILT, .ahead = 1, .sha = SHA, .seconds = 1,
	    .release = "6.1.0" }, "build", SHA " ahead built 1.0 6.1.0" },
	{ { .kind = KB_EV_BUILD, .result = KB_EV_FAILED, .ahead = 1, .sha = SHA, .seconds = 2 },
	  "build", SHA " ahead failed 2.0 -" },
	{ { .kind = KB_EV_HOOK, .result = KB_EV_OK, .hook = "build", .sha = SHA },
	  "build", SHA " ok" },
	{ { .kind = KB_EV_HOOK, .result = KB_EV_FAILED, .hook = "setup", .sha = SHA,
	    .text = "mkfs: no\nsecond line" }, "setup", SHA " failed: mkfs: no\nsecond line" },
	{ { .kind = KB_EV_BOOT, .result = KB_EV_OK, .sha = SHA, .accel = "tcg" },
	  "boot", SHA " ok tcg" },
	{ { .kind = KB_EV_BOOT, .result = KB_EV_FAILED, .sha = SHA, .accel = "kvm",
	    .text = "Kernel panic" }, "boot", SHA " failed kvm\nKernel panic" },
	{ { .kind = KB_EV_BOOT, .result = KB_EV_FAILED, .sha = SHA, .text = "hung" },
	  "boot", SHA " failed -\nhung" },
	{ { .kind = KB_EV_ABORT, .sha = SHA, .text = "the test exited with 127: x" },
	  "abort", SHA ": the test exited with 127: x" },
	{ { .kind = KB_EV_INTERRUPTED, .sha = SHA, .run = 42 },
	  "interrupted", "run 42 at " SHA " was cut short; it runs again" },
	{ { .kind = KB_EV_MACHINE, .result = KB_EV_TESTING, .machine = 2, .sha = SHA },
	  "machine", "2 testing " SHA },
	{ { .kind = KB_EV_MACHINE, .result = KB_EV_DONE, .machine = 0, .sha = SHA },
	  "machine", "0 done " SHA },
	{ { .kind = KB_EV_MACHINE, .result = KB_EV_FAILED, .machine = 1, .sha = SHA,
	    .text = "lost the host" }, "machine", "1 failed " SHA "\nlost the host" },
	{ { .kind = KB_EV_MACHINE, .result = KB_EV_RETIRED, .machine = 3,
	    .text = "killed (signal 9)" }, "machine", "3 retired\nkilled (signal 9)" },
	{ { .kind = KB_EV_VERDICT, .text = "{\"verdict\":\"culprit\"}" },
	  "verdict", "{\"verdict\":\"culprit\"}" },
	{ { .kind = KB_EV_RESET }, "reset", "session ended" },
	{ { .kind = KB_EV_SIGNATURE, .sha = SHA,
	    .signature = "9876543210987654321098765432109876543210" },
	  "signature", SHA " 9876543210987654321098765432109876543210" },
	{ { .kind = KB_EV_SAME, .sha = SHA, .of = "9876543210987654321098765432109876543210" },
	  "same", SHA " takes the samples of 9876543210987654321098765432109876543210" },
};
#define NCASES (sizeof(cases) / sizeof(cases[0]))

static int same(const struct kb_event *a, const struct kb_event *b)
{
	return a->kind == b->kind && a->result == b->result && !strcmp(a->sha, b->sha) &&
	       !strcmp(a->hook, b->hook) && a->ahead == b->ahead && a->machine == b->machine &&
	       a->run == b->run && !strcmp(a->accel, b->accel) &&
	       !strcmp(a->signature, b->signature) && !strcmp(a->of, b->of) &&
	       (a->kind != KB_EV_BUILD || !strcmp(a->release, b->release)) &&
	       !strcmp(a->text ? a->text : "", b->text ? b->text : "");
}

TEST(test_event__every_kind_as_its_row_and_back)
{
	struct kb_store *s;
	struct kb_event_row *rows;
	struct kb_event *ev;
	char *p = kb_asprintf("%s/state.db", kb_test_dir());
	size_t n, i;
	int64_t id;

	CHECK_MSG(kb_store_open(&s, p, KB_STORE_CREATE) == 0, "%s", kb_error_last());
	CHECK(kb_store_session_create(s, "{}", &id) == 0);
	for (i = 0; i < NCASES; i++)
		CHECK(kb_event_add(s, id, &cases[i].e) == 0);
	CHECK(kb_store_events(s, id, &rows, &n) == 0);
	CHECK(n == NCASES);
	for (i = 0; i < n; i++)
		CHECK_MSG(!strcmp(rows[i].kind, cases[i].kind) &&
			  !strcmp(rows[i].detail, cases[i].detail),
			  "case %zu: %s \"%s\"", i, rows[i].kind, rows[i].detail);
	kb_event_rows_free(rows, n);
	CHECK(kb_events_read(s, id, &ev, &n) == 0);
	CHECK(n == NCASES);
	for (i = 0; i < n; i++) {
		CHECK_MSG(same(&ev[i], &cases[i].e), "case %zu (%s) reads back otherwise", i,
			  cases[i].detail);
		CHECK(ev[i].ts > 0 && ev[i].id > 0);
	}
	CHECK(ev[1].seconds == 12.2 && ev[3].seconds == 3.0);
	kb_events_free(ev, n);
	kb_store_close(s);
	free(p);
}

TEST(test_event__a_row_of_an_unknown_kind_is_other)
{
	struct kb_store *s;
	struct kb_event *ev;
	char *p = kb_asprintf("%s/state.db", kb_test_dir());
	size_t n;
	int64_t id;

	CHECK_MSG(kb_store_open(&s, p, KB_STORE_CREATE) == 0, "%s", kb_error_last());
	CHECK(kb_store_session_create(s, "{}", &id) == 0);
	CHECK(kb_store_event(s, id, "later", "%s", "from a newer kbisect") == 0);
	CHECK(kb_events_read(s, id, &ev, &n) == 0);
	CHECK(n == 1 && ev[0].kind == KB_EV_OTHER && !strcmp(ev[0].text, "from a newer kbisect"));
	kb_events_free(ev, n);
	kb_store_close(s);
	free(p);
}
