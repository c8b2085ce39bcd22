/* The table of modes, and the opening of a session with its mode. */
#include "mode.h"

/* Tried in order: the first that wants a session runs it. */
static const struct kb_mode_ops *const modes[] = {
	&kb_mode_compare,
	&kb_mode_perf,
	&kb_mode_passfail,
};

const struct kb_mode_ops *kb_mode_for(const struct kb_spec *spec)
{
	size_t i;

	for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
		if (modes[i]->wants(spec))
			return modes[i];
	return &kb_mode_passfail;
}

int kb_session_open(struct kb_session *s, struct kb_store *store, const char *statedir,
		    int any)
{
	int ret = kb_session_load(s, store, statedir, any);

	if (ret == 0)
		s->mode = kb_mode_for(&s->spec);
	return ret;
}
