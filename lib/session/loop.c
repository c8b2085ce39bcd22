/*
 * The loop that drives a session's mode: on one machine, plan a job and
 * do it here until there is a verdict; on a pool, the pool scheduler
 * (pool.c) does the same on all its machines at once.
 */
#include <stdlib.h>

#include "mode.h"

static int one_machine(struct kb_session *s, struct kb_target *t)
{
	int ret;

	for (;;) {
		struct kb_job job;

		if (s->stop && *s->stop)
			return kb_error(KB_EINTR, "stopped; %s", s->mode->resume);
		if ((ret = kb_session_refresh(s)) < 0 || (ret = s->mode->plan(s, &job)) < 0)
			return ret;
		if (ret == KB_PLAN_FINISH)
			return kb_session_finish(s);
		if ((ret = s->mode->work(s, t, &job)) < 0)
			return ret;
	}
}

int kb_session_run(struct kb_session *s)
{
	struct kb_target *t = NULL;
	int ret;

	if (!s->mode)
		return kb_error(KB_ERROR, "the session has no mode");
	if ((ret = kb_mkdir_p(s->statedir, 0700)) < 0 ||
	    (ret = kb_session_open_slot(s, 0, &t)) < 0 ||
	    (ret = kb_target_cleanup(t)) < 0 ||
	    (ret = kb_session_recover(s, t)) < 0)
		goto out;
	ret = kb_spec_nmachines(&s->spec) > 1 && s->mode->plan_pool ? kb_pool_loop(s) : one_machine(s, t);
out:
	{
		/* what stopping the build ahead reads must not take the error's
		 * place */
		int code = kb_error_code();
		char *msg = ret < 0 ? kb_strdup(kb_error_last()) : NULL;

		kb_builder_ahead_stop(&s->builder);
		kb_target_close(t);
		if (msg)
			kb_error(code ? code : ret, "%s", msg);
		free(msg);
	}
	return ret;
}
