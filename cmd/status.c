#include <stdio.h>
#include <string.h>

#include "cmd.h"

static const struct kb_cmd_help help = {
	"status", "[--json] [options]",
	"Show where the session stands and what runs now.",
	NULL
};

static void print_text(json_t *st)
{
	json_t *next = json_object_get(st, "next"), *running = json_object_get(st, "running");
	json_t *r;
	size_t i;

	printf("session %lld: %s\n", (long long)json_integer_value(json_object_get(st, "session")),
	       json_string_value(json_object_get(st, "state")));
	printf("range: %lld commits, %lld candidate%s left, %lld tested\n",
	       (long long)json_integer_value(json_object_get(st, "range")),
	       (long long)json_integer_value(json_object_get(st, "candidates")),
	       json_integer_value(json_object_get(st, "candidates")) == 1 ? "" : "s",
	       (long long)json_integer_value(json_object_get(st, "tested")));
	printf("benchmark: %s   target: %s%s%s\n",
	       json_string_value(json_object_get(st, "bench")),
	       json_string_value(json_object_get(st, "target")),
	       json_object_get(st, "accel") ? "   accel: " : "",
	       json_object_get(st, "accel") ?
	       json_string_value(json_object_get(st, "accel")) : "");
	json_array_foreach(json_object_get(st, "machines"), i, r) {
		const char *state = json_string_value(json_object_get(r, "state"));
		double since = json_number_value(json_object_get(r, "since"));

		printf("machine %lld: %s, %s", (long long)json_integer_value(json_object_get(r,
			"machine")), json_string_value(json_object_get(r, "target")), state);
		if (json_object_get(r, "commit"))
			printf(" %.12s", json_string_value(json_object_get(r, "commit")));
		if (since > 0)
			printf(" for %.0f s", kb_now() - since);
		if (json_object_get(r, "reason"))
			printf(": %s", json_string_value(json_object_get(r, "reason")));
		printf("\n");
	}
	json_array_foreach(json_object_get(st, "lab_jobs"), i, r) {
		const char *dev = json_string_value(json_object_get(r, "device"));

		printf("LAVA job %lld: %.12s boot %lld, %s%s%s, %s\n",
		       (long long)json_integer_value(json_object_get(r, "id")),
		       json_string_value(json_object_get(r, "commit")),
		       (long long)json_integer_value(json_object_get(r, "boot")),
		       json_string_value(json_object_get(r, "state")), dev ? " on " : "",
		       dev ? dev : "", json_string_value(json_object_get(r, "url")));
	}
	json_array_foreach(running, i, r)
	{
		printf("running: run %lld at %.12s",
		       (long long)json_integer_value(json_object_get(r, "run")),
		       json_string_value(json_object_get(r, "commit")));
		if (json_object_get(st, "machines"))
			printf(" on machine %lld",
			       (long long)json_integer_value(json_object_get(r, "machine")));
		printf(" for %.0f s\n", json_number_value(json_object_get(r, "seconds")));
	}
	if (json_is_object(next) && json_object_get(next, "why"))
		printf("next: %s (%s: %s)\n",
		       json_string_value(json_object_get(next, "commit")),
		       json_string_value(json_object_get(next, "role")),
		       json_string_value(json_object_get(next, "why")));
	else if (json_is_object(next) && json_object_get(st, "machines"))
		printf("roughly %lld round%s left\n",
		       (long long)json_integer_value(json_object_get(st, "rounds_left")),
		       json_integer_value(json_object_get(st, "rounds_left")) == 1 ? "" : "s");
	else if (json_is_object(next))
		printf("next: %s %s (roughly %lld step%s left)\n",
		       json_string_value(json_object_get(next, "commit")),
		       json_string_value(json_object_get(next, "subject")),
		       (long long)json_integer_value(json_object_get(st, "steps_left")),
		       json_integer_value(json_object_get(st, "steps_left")) == 1 ? "" : "s");
	if (json_is_object(json_object_get(st, "likeliest")))
		printf("likeliest culprit: %s (%.0f%%)\n",
		       json_string_value(json_object_get(json_object_get(st, "likeliest"), "commit")),
		       100 * json_number_value(json_object_get(json_object_get(st, "likeliest"),
							       "probability")));
	if (json_object_get(st, "verdict"))
		printf("verdict: %s%s%s\n",
		       json_string_value(json_object_get(st, "verdict")),
		       json_object_get(st, "culprit") ? " " : "",
		       json_object_get(st, "culprit") ?
		       json_string_value(json_object_get(st, "culprit")) : "");
}

int cmd_status(int argc, char **argv)
{
	struct kb_ctx c = { 0 };
	int as_json = 0, ret;
	struct kb_opt opts[] = {
		{ "json", OPT_FLAG, &as_json, NULL, "print one JSON object" },
		KB_CTX_OPTS(&c), { 0 }
	};
	struct kb_session s;
	json_t *st;

	if ((ret = kb_parse_opts(&help, opts, argc, argv, NULL, NULL)))
		return ret == 1 ? 0 : ret;
	if (!as_json && kb_ctx_open(&c, 0) == 0 && kb_pending_exists(&c)) {
		ret = kb_pending_status(&c) < 0 ? kb_fail("status") : 0;
		kb_ctx_release(&c);
		return ret;
	}
	kb_ctx_release(&c);
	kb_error_clear();
	if ((ret = kb_open_session(&c, &s, 0, 1, "status")))
		return ret;
	if (kb_session_status(&s, &st) < 0) {
		ret = kb_fail("status");
	} else {
		json_t *next = json_object_get(st, "next");

		if (as_json) {
			kb_print_json(st);
		} else {
			print_text(st);
			fflush(stdout);
			if (json_is_string(json_object_get(next, "commit")) &&
			    kb_print_next_kernel(&s, json_string_value(json_object_get(next, "commit")),
						 stdout) < 0)
				ret = kb_fail("status");
		}
		json_decref(st);
	}
	kb_session_release(&s);
	kb_ctx_release(&c);
	return ret;
}
