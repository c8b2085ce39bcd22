#include "svg.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

/* The canvas and the plot area in it (user units of the viewBox). */
#define W 900.0
#define H 500.0
#define PLOT_LEFT 78.0
#define PLOT_RIGHT 790.0
/* below the plot: the rotated commit labels (20 characters of 10 px
 * monospace at most) and the legend */
#define PLOT_BOTTOM 344.0
#define LEGEND_Y 490.0

#define C_DOT "#1f77b4"
#define C_GOOD "#2ca02c"
#define C_BAD "#d62728"
#define C_CULPRIT "#e0007a"
#define C_MUTED "#777777"

/* One slot of the x axis: a measured (or skipped) commit. */
struct slot {
	const char *commit, *role, *decision;
	long position;		/* -1: not in history (a revert) */
	size_t index;		/* in the report's steps, to keep the order stable */
	double *v;		/* its finite samples, sorted */
	size_t n;
	double x;		/* centre */
};

/* How the values of the y axis are written: v / scale with 'decimals'
 * digits and a suffix, or %g when the values are too large or too small. */
struct numfmt {
	double scale;
	const char *suffix;
	int decimals;
	int general;
};

struct plot {
	struct slot *slots;
	size_t n, nhist;		/* slots; those in history come first */
	double w;			/* width of a slot */
	double top;			/* of the plot area */
	double ylo, yhi, ystep;		/* the y axis */
	struct numfmt fmt;
};

static const char *str(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : "";
}

/* A coordinate: nothing that is not a finite number reaches the file. */
static double fin(double v)
{
	return isfinite(v) ? v : 0;
}

/* Length of the UTF-8 sequence at s, or 0 when it is not valid UTF-8. */
static size_t utf8_len(const unsigned char *s)
{
	size_t n, i;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4;
	else
		return 0;
	for (i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	/* overlong forms, surrogates, beyond U+10FFFF; U+FFFE and U+FFFF
	 * are no XML characters either */
	if ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] >= 0xa0) ||
	    (s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] >= 0x90) ||
	    (s[0] == 0xef && s[1] == 0xbf && s[2] >= 0xbe))
		return 0;
	return n;
}

/*
 * Append s as XML character data or attribute value: markup characters
 * as entities, control characters (not allowed in XML 1.0) as spaces,
 * invalid UTF-8 as U+FFFD.  At most 'max' characters (0: no limit), an
 * ellipsis marks a cut.
 */
static void add_esc(struct kb_buf *b, const char *s, size_t max)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	size_t chars = 0, n;

	for (; *p; p += n ? n : 1) {
		n = utf8_len(p);
		if (max && ++chars > max) {
			kb_buf_adds(b, "\xe2\x80\xa6");
			return;
		}
		if (!n)
			kb_buf_adds(b, "\xef\xbf\xbd");
		else if (*p == '<')
			kb_buf_adds(b, "&lt;");
		else if (*p == '>')
			kb_buf_adds(b, "&gt;");
		else if (*p == '&')
			kb_buf_adds(b, "&amp;");
		else if (*p == '"')
			kb_buf_adds(b, "&quot;");
		else if (*p == '\'')
			kb_buf_adds(b, "&apos;");
		else if (*p < 0x20 || *p == 0x7f)
			kb_buf_addch(b, ' ');
		else
			kb_buf_add(b, p, n);
	}
}

/* The 12-character short form of a commit id, escaped. */
static void add_short(struct kb_buf *b, const char *hex)
{
	char id[13];

	kb_short_id(id, hex ? hex : "");
	add_esc(b, id, 0);
}

/* History order: by position, those without one last, then as listed. */
static int cmp_slot(const void *a, const void *b)
{
	const struct slot *x = a, *y = b;
	long px = x->position < 0 ? LONG_MAX : x->position;
	long py = y->position < 0 ? LONG_MAX : y->position;

	if (px != py)
		return px < py ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

static void slots_free(struct plot *p)
{
	size_t i;

	for (i = 0; i < p->n; i++)
		free(p->slots[i].v);
	free(p->slots);
	p->slots = NULL;
	p->n = 0;
}

/* The steps of the report as slots in history order.  KB_EINVAL when no
 * step holds a finite sample. */
static int collect_slots(json_t *report, struct plot *p)
{
	json_t *steps = json_object_get(report, "steps"), *st, *v, *pos;
	size_t i, j, measured = 0;

	p->slots = kb_calloc(json_array_size(steps) + 1, sizeof(*p->slots));
	json_array_foreach(steps, i, st) {
		struct slot *s = &p->slots[p->n];
		json_t *samples = json_object_get(st, "samples");

		if (!json_is_object(st))
			continue;
		s->commit = str(st, "commit");
		s->role = str(st, "role");
		s->decision = str(st, "decision");
		pos = json_object_get(st, "position");
		s->position = json_is_integer(pos) && json_integer_value(pos) >= 0 &&
			json_integer_value(pos) < LONG_MAX ? (long)json_integer_value(pos) : -1;
		s->index = i;
		s->v = kb_calloc(json_array_size(samples) + 1, sizeof(*s->v));
		json_array_foreach(samples, j, v)
			if (json_is_number(v) && isfinite(json_number_value(v)))
				s->v[s->n++] = json_number_value(v);
		kb_sort_doubles(s->v, s->n);
		/* a step neither measured nor skipped has nothing to show */
		if (!s->n && strcmp(s->decision, "skip")) {
			free(s->v);
			continue;
		}
		measured += s->n > 0;
		p->n++;
	}
	if (!measured) {
		slots_free(p);
		return kb_error(KB_EINVAL, "no metric to plot: no commit of the report "
				"holds a measured value");
	}
	qsort(p->slots, p->n, sizeof(*p->slots), cmp_slot);
	for (p->nhist = 0; p->nhist < p->n && p->slots[p->nhist].position >= 0; p->nhist++)
		;
	return 0;
}

/* Median of the samples of every step with that role, NAN if none. */
static double level(const struct plot *p, const char *role)
{
	double *all = NULL, m;
	size_t i, n = 0, alloc = 0;

	for (i = 0; i < p->n; i++) {
		if (strcmp(p->slots[i].role, role) || !p->slots[i].n)
			continue;
		KB_ALLOC_GROW(all, n + p->slots[i].n, alloc);
		memcpy(all + n, p->slots[i].v, p->slots[i].n * sizeof(*all));
		n += p->slots[i].n;
	}
	m = n ? kb_median(all, n) : NAN;
	free(all);
	return m;
}

/* A round step (1, 2 or 5 times a power of ten) near span / ticks. */
static double nice_step(double span, int ticks)
{
	double raw = span / ticks, mag = pow(10, floor(log10(raw))), f = raw / mag;

	return (f < 1.5 ? 1 : f < 3 ? 2 : f < 7 ? 5 : 10) * mag;
}

/* The y axis: round ticks around every value, a sane span for one value. */
static int y_axis(struct plot *p)
{
	double lo = INFINITY, hi = -INFINITY, pad, m;
	size_t i;

	for (i = 0; i < p->n; i++)
		if (p->slots[i].n) {
			lo = fmin(lo, p->slots[i].v[0]);
			hi = fmax(hi, p->slots[i].v[p->slots[i].n - 1]);
		}
	pad = (hi - lo) * 0.05;
	if (!(pad > 0) || !isfinite(pad)) {
		pad = fabs(hi) * 0.05;
		if (!(pad > 0) || !isfinite(pad))
			pad = 1;
	}
	lo -= pad;
	hi += pad;
	p->ystep = nice_step(hi - lo, 5);
	if (!isfinite(hi - lo) || !isfinite(p->ystep) || !(p->ystep > 0))
		return kb_error(KB_EINVAL, "the values to plot span more than a number holds");
	p->ylo = floor(lo / p->ystep) * p->ystep;
	p->yhi = ceil(hi / p->ystep) * p->ystep;
	/* near the largest double, rounding outwards may overflow */
	if (!isfinite(p->ylo))
		p->ylo = lo;
	if (!isfinite(p->yhi))
		p->yhi = hi;
	if (!isfinite(p->yhi - p->ylo) || !(p->yhi > p->ylo))
		return kb_error(KB_EINVAL, "the values to plot span more than a number holds");

	/* tick labels: 1.25M rather than 1250000, as many decimals as the step */
	m = fmax(fabs(p->ylo), fabs(p->yhi));
	p->fmt.scale = 1;
	p->fmt.suffix = "";
	if (m >= 1e15 || m < 1e-4) {
		p->fmt.general = 1;
		return 0;
	}
	if (m >= 1e4) {
		static const char *const sfx[] = { "k", "M", "G", "T" };
		int k = (int)floor(log10(m) / 3);

		if (k > 4)
			k = 4;
		p->fmt.scale = pow(1000, k);
		p->fmt.suffix = sfx[k - 1];
	}
	p->fmt.decimals = (int)ceil(-log10(p->ystep / p->fmt.scale) - 1e-9);
	if (p->fmt.decimals < 0)
		p->fmt.decimals = 0;
	if (p->fmt.decimals > 9)
		p->fmt.decimals = 9;
	return 0;
}

/* A value as the y axis writes it, with 'extra' more decimals. */
static void add_value(struct kb_buf *b, const struct plot *p, double v, int extra)
{
	if (!isfinite(v))
		kb_buf_adds(b, "?");
	else if (v == 0)
		kb_buf_adds(b, "0");
	else if (p->fmt.general)
		kb_buf_addf(b, "%.*g", 3 + extra, v);
	else
		kb_buf_addf(b, "%.*f%s", p->fmt.decimals + extra, v / p->fmt.scale,
			    p->fmt.suffix);
}

static double y_of(const struct plot *p, double v)
{
	return fin(PLOT_BOTTOM - (v - p->ylo) / (p->yhi - p->ylo) * (PLOT_BOTTOM - p->top));
}

/* "metric (unit), lower is better" */
static void add_metric(struct kb_buf *b, json_t *metric)
{
	const char *dir = str(metric, "direction");

	add_esc(b, str(metric, "name"), 60);
	if (*str(metric, "unit")) {
		kb_buf_adds(b, " (");
		add_esc(b, str(metric, "unit"), 20);
		kb_buf_adds(b, ")");
	}
	if (!strcmp(dir, "lower") || !strcmp(dir, "higher"))
		kb_buf_addf(b, ", %s is better", dir);
}

static int blames(const char *verdict)
{
	return !strcmp(verdict, "culprit") || !strcmp(verdict, "multiple");
}

static size_t caption_lines(json_t *report)
{
	size_t n = json_array_size(json_object_get(report, "culprits"));

	if (!blames(str(report, "verdict")) || !n)
		return 1;
	return n < 4 ? n : 4;
}

/* The document's title, the white background and the heading: benchmark,
 * metric, which way is better, the range and the verdict. */
static void draw_heading(struct kb_buf *b, json_t *report)
{
	json_t *metric = json_object_get(report, "metric");
	const char *verdict = *str(report, "verdict") ? str(report, "verdict") : "unknown";

	kb_buf_adds(b, "<title>kbisect: ");
	add_esc(b, str(report, "bench"), 60);
	kb_buf_adds(b, ", ");
	add_esc(b, str(metric, "name"), 60);
	kb_buf_adds(b, " from ");
	add_short(b, str(report, "good"));
	kb_buf_adds(b, " to ");
	add_short(b, str(report, "bad"));
	kb_buf_adds(b, ": ");
	add_esc(b, verdict, 30);
	kb_buf_adds(b, "</title>\n");
	kb_buf_adds(b, "<rect id=\"background\" x=\"0\" y=\"0\" width=\"100%\" "
		    "height=\"100%\" fill=\"#fff\"/>\n");

	kb_buf_adds(b, "<text id=\"title\" x=\"16\" y=\"24\" font-size=\"16\" "
		    "font-weight=\"bold\">");
	add_esc(b, *str(report, "bench") ? str(report, "bench") : "benchmark", 50);
	kb_buf_adds(b, ": ");
	add_metric(b, metric);
	kb_buf_adds(b, "</text>\n<text id=\"subtitle\" x=\"16\" y=\"43\" font-size=\"12\">"
		    "range ");
	add_short(b, str(report, "good"));
	kb_buf_adds(b, " (good) .. ");
	add_short(b, str(report, "bad"));
	kb_buf_adds(b, " (bad)");
	if (json_is_integer(json_object_get(report, "range")))
		kb_buf_addf(b, ", %lld commits",
			    (long long)json_integer_value(json_object_get(report, "range")));
	kb_buf_adds(b, "; verdict: <tspan font-weight=\"bold\">");
	add_esc(b, verdict, 30);
	kb_buf_adds(b, "</tspan></text>\n");
}

static void draw_axes(struct kb_buf *b, const struct plot *p, json_t *metric)
{
	int i, nticks = (int)floor((p->yhi - p->ylo) / p->ystep + 1e-6);

	kb_buf_adds(b, "<g id=\"y-axis\" font-size=\"11\" text-anchor=\"end\">\n");
	for (i = 0; i <= nticks && i <= 50; i++) {
		double v = p->ylo + i * p->ystep, y;

		if (fabs(v) < p->ystep * 1e-6)
			v = 0;
		y = y_of(p, v);
		kb_buf_addf(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
			    "stroke=\"#e4e4e4\"/>", PLOT_LEFT, y, PLOT_RIGHT, y);
		kb_buf_addf(b, "<text x=\"%.1f\" y=\"%.1f\" dy=\"0.35em\">", PLOT_LEFT - 6, y);
		add_value(b, p, v, 0);
		kb_buf_adds(b, "</text>\n");
	}
	kb_buf_adds(b, "</g>\n");
	kb_buf_addf(b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
		    "fill=\"none\" stroke=\"#444\"/>\n", PLOT_LEFT, p->top,
		    PLOT_RIGHT - PLOT_LEFT, PLOT_BOTTOM - p->top);
	kb_buf_addf(b, "<text id=\"y-label\" x=\"16\" y=\"%.1f\" font-size=\"12\" "
		    "text-anchor=\"middle\" transform=\"rotate(-90 16 %.1f)\" dy=\"0.35em\">",
		    (p->top + PLOT_BOTTOM) / 2, (p->top + PLOT_BOTTOM) / 2);
	add_metric(b, metric);
	kb_buf_adds(b, "</text>\n");
}

/* Is this slot's commit one that the report blames? */
static int blamed(json_t *report, const struct slot *s)
{
	json_t *c;
	size_t i;

	if (!blames(str(report, "verdict")) || !*s->commit)
		return 0;
	json_array_foreach(json_object_get(report, "culprits"), i, c)
		if (!strcmp(str(c, "commit"), s->commit))
			return 1;
	return 0;
}

/* Does "commit-" and this id make an XML name (hex digits only)? */
static int id_safe(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!strchr("0123456789abcdefABCDEF", *s))
			return 0;
	return 1;
}

static void draw_slot(struct kb_buf *b, const struct plot *p, size_t i, json_t *report)
{
	const struct slot *s = &p->slots[i];
	double jitter = fmin(0.3 * p->w, 14), box = fmin(0.5 * p->w, 36) / 2;
	double bar = fmin(0.7 * p->w, 48) / 2, font = fmin(10, fmax(6, 0.8 * p->w));
	double q1, q3, med, ly = PLOT_BOTTOM + 6;
	const char *tag = "";
	size_t j;
	int culprit = blamed(report, s), first = 1;

	if (!strcmp(s->decision, "skip") && !s->n) {
		double y = PLOT_BOTTOM - 14, d = fmin(5, 0.3 * p->w);

		kb_buf_addf(b, "<path d=\"M%.1f %.1fL%.1f %.1fM%.1f %.1fL%.1f %.1f\" "
			    "stroke=\"" C_MUTED "\" stroke-width=\"2\" class=\"skipped\"/>\n",
			    s->x - d, y - d, s->x + d, y + d, s->x - d, y + d, s->x + d, y - d);
		tag = "skipped";
	} else {
		kb_buf_adds(b, "<g fill=\"" C_DOT "\" fill-opacity=\"0.45\">");
		for (j = 0; j < s->n; j++) {
			/* spread evenly across the slot (golden-ratio sequence) */
			double f = fmod((double)j * 0.6180339887, 1.0) - 0.5;

			kb_buf_addf(b, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2\"/>",
				    fin(s->x + 2 * f * jitter), y_of(p, s->v[j]));
		}
		kb_buf_adds(b, "</g>\n");
		q1 = kb_quantile(s->v, s->n, 0.25);
		q3 = kb_quantile(s->v, s->n, 0.75);
		med = kb_median(s->v, s->n);
		kb_buf_addf(b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
			    "fill=\"#000\" fill-opacity=\"0.08\" stroke=\"#333\"/>\n",
			    fin(s->x - box), y_of(p, q3), fin(2 * box),
			    fmax(0, y_of(p, q1) - y_of(p, q3)));
		kb_buf_addf(b, "<line class=\"median\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
			    "y2=\"%.1f\" stroke=\"#000\" stroke-width=\"3\"/>\n",
			    fin(s->x - bar), y_of(p, med), fin(s->x + bar), y_of(p, med));
		if (!strcmp(s->role, "good"))
			tag = "GOOD";
		else if (!strcmp(s->role, "bad"))
			tag = "BAD";
		else if (s->position < 0)
			tag = *s->role ? s->role : "not in history";
	}

	/* the label: the commit id, rotated, reading upwards to the axis */
	kb_buf_adds(b, "<text");
	for (j = 0; j < i; j++)
		if (!strncmp(p->slots[j].commit, s->commit, 12))
			first = 0;
	if (first && id_safe(s->commit)) {
		kb_buf_adds(b, " id=\"commit-");
		add_short(b, s->commit);
		kb_buf_adds(b, "\"");
	}
	kb_buf_addf(b, " x=\"%.1f\" y=\"%.1f\" dy=\"0.35em\" font-size=\"%.1f\" "
		    "font-family=\"monospace\" text-anchor=\"end\" "
		    "transform=\"rotate(-90 %.1f %.1f)\"", s->x, ly, font, s->x, ly);
	if (culprit)
		kb_buf_adds(b, " fill=\"" C_CULPRIT "\" font-weight=\"bold\"");
	else if (!s->n)
		kb_buf_adds(b, " fill=\"" C_MUTED "\"");
	kb_buf_adds(b, ">");
	add_short(b, *s->commit ? s->commit : "?");
	if (*tag) {
		kb_buf_adds(b, " ");
		add_esc(b, tag, 14);
	}
	kb_buf_adds(b, "</text>\n");
}

/* The GOOD and BAD levels across the plot, labelled in the right margin. */
/* One level across the plot, dashed, with its label (at 'label_y') in
 * the right margin; nothing when it is not known. */
static void draw_level(struct kb_buf *b, const struct plot *p, const char *id,
		       const char *colour, const char *label, double value, double label_y)
{
	if (!isfinite(value))
		return;
	kb_buf_addf(b, "<g id=\"%s-level\"><line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
		    "y2=\"%.1f\" stroke=\"%s\" stroke-width=\"1.5\" stroke-dasharray=\"6 4\"/>",
		    id, PLOT_LEFT, y_of(p, value), PLOT_RIGHT, y_of(p, value), colour);
	kb_buf_addf(b, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" fill=\"%s\" "
		    "dy=\"0.35em\">%s ", PLOT_RIGHT + 5, label_y, colour, label);
	add_value(b, p, value, 1);
	kb_buf_adds(b, "</text></g>\n");
}

static void draw_levels(struct kb_buf *b, const struct plot *p)
{
	double good = level(p, "good"), bad = level(p, "bad");
	double yg = y_of(p, good), yb = y_of(p, bad);

	/* labels apart by a line at least */
	if (isfinite(good) && isfinite(bad) && fabs(yg - yb) < 14) {
		double mid = (yg + yb) / 2, d = good > bad ? 7 : -7;

		/* the higher value is above, on screen */
		yg = mid - d;
		yb = mid + d;
	}
	draw_level(b, p, "good", C_GOOD, "GOOD", good, yg);
	draw_level(b, p, "bad", C_BAD, "BAD", bad, yb);
}

static void culprit_id(char *out, size_t size, size_t k)
{
	if (k)
		snprintf(out, size, "culprit-%zu", k + 1);
	else
		snprintf(out, size, "culprit");
}

/* Each culprit: a band over its slot, behind the data, and its line in
 * the caption.  Without a slot (not among the steps) the line holds the id. */
static void draw_culprits(struct kb_buf *b, const struct plot *p, json_t *report)
{
	json_t *c, *d;
	char id[32];
	size_t i, k;

	json_array_foreach(json_object_get(report, "culprits"), k, c) {
		const struct slot *s = NULL;
		double half = fmin(0.45 * p->w, 30);

		if (k >= 4)
			break;
		culprit_id(id, sizeof(id), k);
		for (i = 0; i < p->n && !s; i++)
			if (*str(c, "commit") && !strcmp(p->slots[i].commit, str(c, "commit")))
				s = &p->slots[i];
		if (s) {
			kb_buf_addf(b, "<g id=\"%s\" class=\"culprit\">"
				    "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
				    "fill=\"" C_CULPRIT "\" fill-opacity=\"0.15\" stroke=\""
				    C_CULPRIT "\" stroke-width=\"2\"/>", id, fin(s->x - half),
				    p->top, fin(2 * half), PLOT_BOTTOM - p->top);
			kb_buf_addf(b, "<path d=\"M%.1f %.1fL%.1f %.1fL%.1f %.1fZ\" fill=\""
				    C_CULPRIT "\"/></g>\n", fin(s->x - 6), p->top,
				    fin(s->x + 6), p->top, s->x, p->top + 9);
		}
		kb_buf_adds(b, "<text");
		if (s)
			kb_buf_addf(b, " id=\"%s-label\"", id);
		else
			kb_buf_addf(b, " id=\"%s\"", id);
		kb_buf_addf(b, " x=\"16\" y=\"%.1f\" font-size=\"13\" fill=\"" C_CULPRIT
			    "\"><tspan font-weight=\"bold\">culprit <tspan "
			    "font-family=\"monospace\">", 64 + 15.0 * (double)k);
		add_short(b, str(c, "commit"));
		kb_buf_adds(b, "</tspan></tspan> ");
		add_esc(b, str(c, "subject"), 80);
		d = json_object_get(c, "delta_pct");
		if (json_is_number(d) && isfinite(json_number_value(d)))
			kb_buf_addf(b, " %+.1f%%", json_number_value(d));
		kb_buf_adds(b, "</text>\n");
	}
}

/* Nobody blamed: say so plainly, with the report's reason. */
static void draw_caption(struct kb_buf *b, json_t *report)
{
	const char *verdict = str(report, "verdict"), *reason = str(report, "reason");

	kb_buf_adds(b, "<text id=\"caption\" x=\"16\" y=\"64\" font-size=\"13\">"
		    "<tspan font-weight=\"bold\">");
	if (!strcmp(verdict, "no-regression"))
		kb_buf_adds(b, "no regression");
	else if (blames(verdict))
		kb_buf_adds(b, "no culprit named in the report");
	else
		kb_buf_adds(b, "inconclusive: no commit blamed");
	kb_buf_adds(b, "</tspan>");
	if (*reason) {
		kb_buf_adds(b, ": ");
		add_esc(b, reason, 110);
	}
	kb_buf_adds(b, "</text>\n");
}

static void draw_legend(struct kb_buf *b, int culprit, int skipped)
{
	double x = 16, y = LEGEND_Y;

	kb_buf_adds(b, "<g id=\"legend\" font-size=\"11\">\n");
	kb_buf_addf(b, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\" fill=\"" C_DOT "\" "
		    "fill-opacity=\"0.6\"/><text x=\"%.1f\" y=\"%.1f\">one run</text>\n",
		    x + 4, y - 4, x + 12, y);
	x += 70;
	kb_buf_addf(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#000\" "
		    "stroke-width=\"3\"/><text x=\"%.1f\" y=\"%.1f\">median</text>\n",
		    x, y - 4, x + 14, y - 4, x + 19, y);
	x += 68;
	kb_buf_addf(b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"10\" height=\"10\" fill=\"#000\" "
		    "fill-opacity=\"0.08\" stroke=\"#333\"/><text x=\"%.1f\" y=\"%.1f\">"
		    "box: interquartile range (25%%..75%%)</text>\n", x, y - 9, x + 15, y);
	x += 225;
	kb_buf_addf(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\""
		    C_GOOD "\" stroke-width=\"1.5\" stroke-dasharray=\"6 4\"/><text x=\"%.1f\" "
		    "y=\"%.1f\">GOOD level (median)</text>\n", x, y - 4, x + 20, y - 4, x + 25, y);
	x += 150;
	kb_buf_addf(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\""
		    C_BAD "\" stroke-width=\"1.5\" stroke-dasharray=\"6 4\"/><text x=\"%.1f\" "
		    "y=\"%.1f\">BAD level (median)</text>\n", x, y - 4, x + 20, y - 4, x + 25, y);
	x += 145;
	if (culprit) {
		kb_buf_addf(b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"10\" height=\"10\" fill=\""
			    C_CULPRIT "\" fill-opacity=\"0.15\" stroke=\"" C_CULPRIT "\"/>"
			    "<text x=\"%.1f\" y=\"%.1f\">culprit</text>\n", x, y - 9, x + 15, y);
		x += 70;
	}
	if (skipped)
		kb_buf_addf(b, "<path d=\"M%.1f %.1fL%.1f %.1fM%.1f %.1fL%.1f %.1f\" stroke=\""
			    C_MUTED "\" stroke-width=\"2\"/><text x=\"%.1f\" y=\"%.1f\">"
			    "skipped (not measured)</text>\n", x, y - 9, x + 8, y - 1,
			    x, y - 1, x + 8, y - 9, x + 13, y);
	kb_buf_adds(b, "</g>\n");
}

int kb_svg_report(json_t *report, struct kb_buf *out)
{
	struct kb_buf b = KB_BUF_INIT;
	struct plot p = { 0 };
	json_t *metric = json_object_get(report, "metric");
	size_t i, skipped = 0;
	int ret, culprit;

	if (!json_is_object(metric) || !json_is_string(json_object_get(metric, "name")))
		return kb_error(KB_EINVAL, "no metric to plot: the report is of a pass/fail "
				"bisection (only a performance bisection has values)");
	if ((ret = collect_slots(report, &p)) < 0)
		return ret;
	p.top = 61 + 15.0 * (double)caption_lines(report);
	if ((ret = y_axis(&p)) < 0) {
		slots_free(&p);
		return ret;
	}
	/* one slot per commit, those not in history beyond a gap on the right */
	p.w = (PLOT_RIGHT - PLOT_LEFT) /
		((double)p.n + (p.n > p.nhist ? 0.6 : 0));
	for (i = 0; i < p.n; i++) {
		p.slots[i].x = PLOT_LEFT + ((double)i + 0.5 + (i >= p.nhist ? 0.6 : 0)) * p.w;
		skipped += !p.slots[i].n;
	}
	culprit = blames(str(report, "verdict")) &&
		json_array_size(json_object_get(report, "culprits")) > 0;

	kb_buf_addf(&b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		    "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" "
		    "width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
		    "font-family=\"sans-serif\" fill=\"#222\">\n", W, H, W, H);
	draw_heading(&b, report);
	draw_axes(&b, &p, metric);
	if (culprit)
		draw_culprits(&b, &p, report);
	else
		draw_caption(&b, report);
	if (p.n > p.nhist) {
		double x = PLOT_LEFT + ((double)p.nhist + 0.3) * p.w;

		kb_buf_addf(&b, "<line id=\"history-end\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
			    "y2=\"%.1f\" stroke=\"#444\" stroke-dasharray=\"2 3\"/>\n",
			    x, p.top, x, PLOT_BOTTOM);
	}
	draw_levels(&b, &p);
	for (i = 0; i < p.n; i++)
		draw_slot(&b, &p, i, report);
	draw_legend(&b, culprit, skipped > 0);
	kb_buf_adds(&b, "</svg>\n");

	kb_buf_add(out, b.ptr, b.len);
	kb_buf_release(&b);
	slots_free(&p);
	return 0;
}
