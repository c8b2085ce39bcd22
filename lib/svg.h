/*
 * svg.h - the plot of a performance bisection, as a standalone SVG file.
 *
 * Input is the report object of kb_session_report(): every measured commit
 * (its "steps", each with "samples" and, when it is in history, a
 * "position": 0 for GOOD, 1 .. range for the range, oldest first) drawn in
 * history order with its median and spread, the GOOD and BAD levels as
 * lines across, the culprit (or culprits) marked and named, and the revert
 * of the culprit beside BAD.  Readable without the text report: the title
 * names the benchmark, the metric, its unit and which way is better.
 */
#ifndef KB_SVG_H
#define KB_SVG_H

#include <jansson.h>

#include "util.h"

/* Append the SVG document to 'out'.  KB_EINVAL when the report has no
 * metric (a pass/fail bisection) or no measured commit. */
int kb_svg_report(json_t *report, struct kb_buf *out);

#endif
