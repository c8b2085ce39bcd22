/* The table of modes, and the opening of a session with its mode. */
#include <stdlib.h>
#include <string.h>

#include "mode.h"

/*
 * The modes, tried in order: the first that wants a session runs it, and
 * the last is the one that wants every other.  A mode is a file that
 * defines "const struct kb_mode_ops kb_mode_NAME", and a line here.
 */
#define KB_MODES(X) \
	X(compare) \
	X(flaky) \
	X(perf) \
	X(passfail)

#define DECLARE(name) extern const struct kb_mode_ops kb_mode_##name;
KB_MODES(DECLARE)
#define ENTRY(name) &kb_mode_##name,
static const struct kb_mode_ops *const modes[] = { KB_MODES(ENTRY) };
#define NMODES (sizeof(modes) / sizeof(modes[0]))

const struct kb_mode_ops *kb_mode_for(const struct kb_spec *spec)
{
	size_t i;

	for (i = 0; i < NMODES - 1; i++)
		if (modes[i]->wants(spec))
			return modes[i];
	return modes[NMODES - 1];
}

int kb_session_set_test(struct kb_session *s, struct kb_bench *bench)
{
	struct kb_bench manual;
	char *spec;
	int ret, by_hand;

	if ((ret = kb_bench_from_command(&manual, KB_MANUAL_COMMAND)) < 0)
		return ret;
	by_hand = !strcmp(manual.json, s->spec.bench.json);
	kb_bench_release(&manual);
	if (!by_hand && s->nruns)
		return kb_error(KB_EINVAL, "the session has its test already ('%s'): "
				"'kbisect resume' runs it", s->spec.bench.name);
	kb_bench_release(&s->spec.bench);
	s->spec.bench = *bench;
	memset(bench, 0, sizeof(*bench));
	spec = kb_spec_to_json(&s->spec);
	ret = kb_store_session_set_spec(s->store, s->row.id, spec);
	free(spec);
	if (ret == 0)
		s->mode = kb_mode_for(&s->spec);
	return ret;
}

int kb_session_open(struct kb_session *s, struct kb_store *store, const char *statedir,
		    int any)
{
	int ret = kb_session_load(s, store, statedir, any);

	if (ret == 0)
		s->mode = kb_mode_for(&s->spec);
	return ret;
}
