/*
 * machine.h - machine files: what a target is, read from JSON.
 *
 * A machine is a JSON object with a "target" ("local", "libvirt",
 * "libvirt:URI" or "ssh://[user@]host[:port]") and the keys of its
 * backend (memory_mib, vcpus, key_file, power_cycle, ...; see kbisect(1)).
 * Unknown keys and values of the wrong type are errors.  "type" is
 * another name of "target" (a lava machine's "type": "lava"): the check
 * makes it "target".  The keys of
 * every machine are name, description and target; each backend declares
 * its own (struct kb_target_ops.keys).  A key of another backend than the
 * machine's is checked for its type and left alone, as it always was; the
 * message about an unknown key names those of the machine's backend.
 *
 * A machines file is {"machines": [...]}: one key, a non-empty list whose
 * entries are target strings or machine objects.  It makes a pool.
 */
#ifndef KB_MACHINE_H
#define KB_MACHINE_H

#include <jansson.h>

#include "util.h"

/*
 * Check one machine object; 'origin' follows "machine " in messages
 * ("file configs/machines/vm.json", "2 of lab.json").  KB_EINVAL with a
 * message naming the key that is wrong.
 */
int kb_machine_check(json_t *m, const char *origin);

/* The integer 'key' of the machine 'm' (may be NULL), or 'def' when it
 * has none. */
long kb_machine_int(json_t *m, const char *key, long def);

/*
 * Parse the text of the machine file 'path' (which names it in messages).
 * A machine is checked and returned with *list = 0; a machines file is
 * checked for its shape only and returned with *list = 1 (its entries are
 * checked by kb_machine_check_list()).  The caller owns *out (json_decref);
 * on error *out is NULL and the message says what is wrong, with the line
 * of a JSON syntax error.
 */
int kb_machine_parse(const char *text, const char *path, json_t **out, int *list);

/*
 * Check every machine object of a machines file returned by
 * kb_machine_parse(): the first bad one is named "N of NAME", N from 1,
 * NAME the file as the user gave it.  Target strings are left for the
 * caller to resolve.
 */
int kb_machine_check_list(json_t *list, const char *name);

#endif
