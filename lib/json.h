/*
 * json.h - JSON as kbisect writes it: jansson's text, with every real in
 * the shortest form that reads back as the same double (0.95, not
 * 0.94999999999999996), and still a real (1.0, not 1).
 */
#ifndef KB_JSON_H
#define KB_JSON_H

#include <stdio.h>

#include <jansson.h>

/* The shortest "%.*g" of 'v' that reads back as 'v' (0.95, 97.656, 3),
 * in 'out'; 'len' of 32 is always enough. */
void kb_real_text(double v, char *out, size_t len);
/* json_dumps() with the reals made short; NULL when jansson fails. */
char *kb_json_dumps(const json_t *o, size_t flags);
/* The same to 'f'; 0, or -1 when it cannot be written. */
int kb_json_dumpf(const json_t *o, FILE *f, size_t flags);

#endif
