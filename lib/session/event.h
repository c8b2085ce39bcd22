/*
 * event.h - what happened in a session besides its runs and marks: builds,
 * boots, the commands of the user's, runs cut short or stopping the
 * session, the machines of a pool, the verdict.  One typed struct for all
 * of them; this file's functions are the only ones that write an event row
 * of the store or read one back (the text of a row is theirs alone, and
 * stays readable in every database written since schema 1).
 */
#ifndef KB_EVENT_H
#define KB_EVENT_H

#include <stdint.h>

#include "store.h"

enum kb_event_kind {
	KB_EV_START,       /* the session began: 'text' is GOOD..BAD as given */
	KB_EV_BUILD,       /* a kernel build of 'sha': built, cached or failed */
	KB_EV_HOOK,        /* a command of the user's ('hook': "build" or
			    * "setup") at 'sha': ok or failed */
	KB_EV_BOOT,        /* a boot of 'sha': ok or failed, with 'accel' */
	KB_EV_ABORT,       /* a run at 'sha' stopped the session: 'text' says why */
	KB_EV_INTERRUPTED, /* run 'run' at 'sha' was cut short by a crash */
	KB_EV_MACHINE,     /* machine 'machine' of a pool: testing, done,
			    * failed or retired */
	KB_EV_VERDICT,     /* the verdict: 'text' is the report's JSON */
	KB_EV_RESET,       /* the session was ended */
	KB_EV_UNMARK,      /* the manual marks of 'sha' were taken back */
	KB_EV_SIGNATURE,   /* the build of 'sha' has the signature 'signature'
			    * (signature.h): builds of the same code have
			    * the same one */
	KB_EV_SAME,        /* performance: 'sha', whose build is the same as
			    * that of 'of', takes the samples of 'of' until
			    * it is measured itself */
	KB_EV_JOB,         /* a job of a lab for boot 'boot' of 'sha': its id
			    * 'job', 'state', 'device', its page in 'text' */
	KB_EV_OTHER,       /* a row of a kind this kbisect does not know */
};

enum kb_event_result {
	KB_EV_NONE,
	KB_EV_OK,
	KB_EV_FAILED,
	KB_EV_BUILT,
	KB_EV_CACHED,
	KB_EV_TESTING,
	KB_EV_DONE,
	KB_EV_RETIRED,
};

struct kb_event {
	int64_t id;
	double ts;
	enum kb_event_kind kind;
	enum kb_event_result result;
	char sha[41];
	char hook[16];         /* HOOK: which command */
	int ahead;             /* BUILD: by the child that builds ahead */
	int machine;           /* MACHINE */
	int64_t run;           /* INTERRUPTED */
	double seconds;        /* BUILD */
	char release[256];     /* BUILD built or cached: the kernel's 'uname -r' */
	char accel[16];        /* BOOT: "kvm", "tcg", or "" when not known */
	char signature[41];    /* SIGNATURE */
	char of[41];           /* SAME: the commit whose samples 'sha' takes */
	int boot;              /* JOB */
	long job;              /* JOB: the lab's id of it */
	char state[16];        /* JOB: "submitted", "complete", ... */
	char device[128];      /* JOB: "" while not known */
	const char *text;      /* START, VERDICT; ABORT: why; the error lines of a
				* failed BUILD, HOOK or BOOT; the message of a
				* failed or retired MACHINE; the URL of a JOB.  Borrowed when
				* written, owned by the array when read. */
};

/* Write one event of 'session' (a row of its own, in the caller's
 * transaction if there is one). */
int kb_event_add(struct kb_store *store, int64_t session, const struct kb_event *e);

/* Every event of 'session', oldest first; free with kb_events_free(). */
int kb_events_read(struct kb_store *store, int64_t session, struct kb_event **out,
		   size_t *n);
void kb_events_free(struct kb_event *ev, size_t n);

#endif
