/* The table of modes, and the opening of a session with its mode. */
#include "mode.h"

/*
 * The modes, tried in order: the first that wants a session runs it, and
 * the last is the one that wants every other.  A mode is a file that
 * defines "const struct kb_mode_ops kb_mode_NAME", and a line here.
 */
#define KB_MODES(X) \
	X(compare) \
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

int kb_session_open(struct kb_session *s, struct kb_store *store, const char *statedir,
		    int any)
{
	int ret = kb_session_load(s, store, statedir, any);

	if (ret == 0)
		s->mode = kb_mode_for(&s->spec);
	return ret;
}
