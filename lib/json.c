/* JSON text with short reals (json.h). */
#include "json.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

void kb_real_text(double v, char *out, size_t len)
{
	int p;

	/* the fewest digits that read back the same, written out where a
	 * person would ("30", not "3e+01": it goes on command lines) */
	for (p = 1; p <= 17; p++) {
		snprintf(out, len, "%.*g", p, v);
		if (strtod(out, NULL) == v &&
		    (!strchr(out, 'e') || fabs(v) >= 1e17 || fabs(v) < 1e-4))
			break;
	}
}

static void short_real(double v, char *out, size_t len)
{
	kb_real_text(v, out, len);
	/* a real stays one: "1" would read back as an integer */
	if (!strpbrk(out, ".eEn"))
		snprintf(out + strlen(out), len - strlen(out), ".0");
}

char *kb_json_dumps(const json_t *o, size_t flags)
{
	char *text = json_dumps(o, flags);
	struct kb_buf b = KB_BUF_INIT;
	const char *p;
	int in_string = 0;

	if (!text)
		return NULL;
	for (p = text; *p;) {
		if (in_string) {
			if (*p == '\\' && p[1]) {
				kb_buf_add(&b, p, 2);
				p += 2;
				continue;
			}
			in_string = *p != '"';
			kb_buf_add(&b, p++, 1);
		} else if (*p == '"') {
			in_string = 1;
			kb_buf_add(&b, p++, 1);
		} else if (*p == '-' || (*p >= '0' && *p <= '9')) {
			size_t n = strspn(p, "-+0123456789.eE");

			if (memchr(p, '.', n) || memchr(p, 'e', n) || memchr(p, 'E', n)) {
				char num[40], *tok = kb_strndup(p, n);

				short_real(strtod(tok, NULL), num, sizeof(num));
				kb_buf_adds(&b, num);
				free(tok);
			} else {
				kb_buf_add(&b, p, n);
			}
			p += n;
		} else {
			kb_buf_add(&b, p++, 1);
		}
	}
	free(text);
	return kb_buf_detach(&b);
}

int kb_json_dumpf(const json_t *o, FILE *f, size_t flags)
{
	char *text = kb_json_dumps(o, flags);
	int ret = text && fputs(text, f) >= 0 ? 0 : -1;

	free(text);
	return ret;
}
