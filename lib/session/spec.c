#include <stdlib.h>
#include <string.h>

#include "session.h"

void kb_spec_init(struct kb_spec *spec)
{
	memset(spec, 0, sizeof(*spec));
	spec->confidence = 0.95;
	spec->scale = 1.0;
	spec->boot_fail = 's';
	spec->build_ahead = 'a';
	spec->rebuild_check = 'y';
}

void kb_spec_release(struct kb_spec *spec)
{
	free(spec->kind);
	free(spec->repo);
	kb_strv_clear(&spec->good_specs);
	kb_strv_clear(&spec->good_shas);
	free(spec->bad_spec);
	free(spec->bad_sha);
	kb_strv_clear(&spec->paths);
	free(spec->build);
	free(spec->kconfig);
	free(spec->fragments);
	free(spec->cc_wrapper);
	json_decref(spec->machines);
	kb_bench_release(&spec->bench);
	free(spec->bench_arg);
	kb_strv_clear(&spec->target_args);
	free(spec->term_old);
	free(spec->term_new);
	memset(spec, 0, sizeof(*spec));
}

const char *kb_spec_term(const struct kb_spec *spec, char mark)
{
	if (mark == 'g')
		return spec->term_old ? spec->term_old : "good";
	if (mark == 'b')
		return spec->term_new ? spec->term_new : "bad";
	return mark == 's' ? "skip" : "?";
}

size_t kb_spec_nmachines(const struct kb_spec *spec)
{
	return json_array_size(spec->machines);
}

json_t *kb_spec_machine(const struct kb_spec *spec, size_t i)
{
	return json_array_get(spec->machines, i);
}

const char *kb_spec_target(const struct kb_spec *spec, size_t i)
{
	return json_string_value(json_object_get(kb_spec_machine(spec, i), "target"));
}

json_t *kb_spec_machine_file(const struct kb_spec *spec, size_t i)
{
	json_t *m = kb_spec_machine(spec, i);

	/* a machine file says more than its target */
	return json_object_size(m) > 1 ? m : NULL;
}

void kb_spec_add_machine(struct kb_spec *spec, json_t *m, const char *target)
{
	if (!spec->machines)
		spec->machines = json_array();
	json_array_append_new(spec->machines, m ? m : json_pack("{s:s}", "target", target));
}

void kb_spec_clear_machines(struct kb_spec *spec)
{
	json_decref(spec->machines);
	spec->machines = NULL;
}

static json_t *rev_json(const char *spec, const char *sha)
{
	return json_pack("{s:s, s:s}", "spec", spec, "sha", sha ? sha : "");
}

char *kb_spec_to_json(const struct kb_spec *spec)
{
	json_t *o = json_object(), *goods = json_array(), *paths = json_array();
	json_error_t jerr;
	char *text;
	size_t i;

	for (i = 0; i < spec->good_specs.n; i++)
		json_array_append_new(goods, rev_json(spec->good_specs.v[i],
					      i < spec->good_shas.n ? spec->good_shas.v[i] : NULL));
	for (i = 0; i < spec->paths.n; i++)
		json_array_append_new(paths, json_string(spec->paths.v[i]));
	json_object_set_new(o, "version", json_integer(1));
	json_object_set_new(o, "kind", json_string(spec->kind ? spec->kind : "bisect"));
	if (spec->compare_boots)
		json_object_set_new(o, "compare_boots", json_integer(spec->compare_boots));
	json_object_set_new(o, "repo", json_string(spec->repo));
	json_object_set_new(o, "good", goods);
	json_object_set_new(o, "bad", rev_json(spec->bad_spec, spec->bad_sha));
	json_object_set_new(o, "paths", paths);
	json_object_set_new(o, "first_parent", json_boolean(spec->first_parent));
	json_object_set_new(o, "confidence", json_real(spec->confidence));
	json_object_set_new(o, "target", json_string(kb_spec_target(spec, 0)));
	json_object_set_new(o, "build", json_string(spec->build));
	if (spec->kconfig)
		json_object_set_new(o, "kconfig", json_string(spec->kconfig));
	if (spec->fragments)
		json_object_set_new(o, "fragments", json_string(spec->fragments));
	if (spec->cc_wrapper)
		json_object_set_new(o, "cc_wrapper", json_string(spec->cc_wrapper));
	if (spec->build_jobs)
		json_object_set_new(o, "build_jobs", json_integer(spec->build_jobs));
	/* as schema 1 has them: the first machine, then the pool's */
	if (kb_spec_machine_file(spec, 0))
		json_object_set_new(o, "machine", json_deep_copy(kb_spec_machine(spec, 0)));
	if (kb_spec_nmachines(spec) > 1) {
		json_t *pool = json_array();

		for (i = 1; i < kb_spec_nmachines(spec); i++)
			json_array_append_new(pool, json_deep_copy(kb_spec_machine(spec, i)));
		json_object_set_new(o, "pool", pool);
	}
	if (spec->scale != 1.0)
		json_object_set_new(o, "scale", json_real(spec->scale));
	if (spec->build_ahead != 'a')
		json_object_set_new(o, "build_ahead", json_string(spec->build_ahead == 'y' ?
								  "on" : "off"));
	if (spec->boot_fail == 'b')
		json_object_set_new(o, "boot_failure", json_string("bad"));
	if (spec->rebuild_check == 'n')
		json_object_set_new(o, "rebuild_check", json_string("off"));
	json_object_set_new(o, "seed", json_integer((json_int_t)(spec->seed & 0x7fffffffffffffffULL)));
	json_object_set_new(o, "bench", json_loads(spec->bench.json, 0, &jerr));
	if (spec->bench_arg)
		json_object_set_new(o, "bench_arg", json_string(spec->bench_arg));
	if (spec->term_old && spec->term_new)
		json_object_set_new(o, "terms", json_pack("[s, s]", spec->term_old,
							  spec->term_new));
	if (spec->target_args.n) {
		json_t *t = json_array();

		for (i = 0; i < spec->target_args.n; i++)
			json_array_append_new(t, json_string(spec->target_args.v[i]));
		json_object_set_new(o, "target_args", t);
	}
	text = json_dumps(o, JSON_COMPACT);
	json_decref(o);
	return text;
}

static int bad_spec(const char *what)
{
	return kb_error(KB_EINVAL, "the session in the database is damaged (%s)", what);
}

static char *str_field(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	return json_is_string(v) ? kb_strdup(json_string_value(v)) : NULL;
}

int kb_spec_from_json(struct kb_spec *spec, const char *text)
{
	json_error_t jerr;
	json_t *o = json_loads(text, 0, &jerr), *v, *e;
	char *bench;
	size_t i;
	int ret = 0;

	kb_spec_init(spec);
	if (!o || !json_is_object(o)) {
		json_decref(o);
		return bad_spec("not a JSON object");
	}
	if (json_integer_value(json_object_get(o, "version")) > 1) {
		json_decref(o);
		return kb_error(KB_EVERSION, "the session was written by a newer kbisect");
	}
	spec->kind = str_field(o, "kind");
	if (!spec->kind)
		spec->kind = kb_strdup("bisect");
	spec->compare_boots = (int)json_integer_value(json_object_get(o, "compare_boots"));
	spec->repo = str_field(o, "repo");
	spec->build = str_field(o, "build");
	spec->kconfig = str_field(o, "kconfig");
	spec->fragments = str_field(o, "fragments");
	spec->cc_wrapper = str_field(o, "cc_wrapper");
	spec->build_jobs = (int)json_integer_value(json_object_get(o, "build_jobs"));
	if (json_is_string(json_object_get(o, "target")))
		kb_spec_add_machine(spec, json_is_object(json_object_get(o, "machine")) ?
				    json_deep_copy(json_object_get(o, "machine")) : NULL,
				    json_string_value(json_object_get(o, "target")));
	json_array_foreach(json_object_get(o, "pool"), i, e) {
		if (!json_is_string(json_object_get(e, "target"))) {
			json_decref(o);
			kb_spec_release(spec);
			return bad_spec("a machine of the pool has no target");
		}
		kb_spec_add_machine(spec, json_deep_copy(e), NULL);
	}
	if ((v = json_object_get(o, "scale")) && json_is_number(v))
		spec->scale = json_number_value(v);
	if ((v = json_object_get(o, "build_ahead")) && json_is_string(v))
		spec->build_ahead = !strcmp(json_string_value(v), "on") ? 'y' : 'n';
	if ((v = json_object_get(o, "rebuild_check")) && json_is_string(v) &&
	    !strcmp(json_string_value(v), "off"))
		spec->rebuild_check = 'n';
	if ((v = json_object_get(o, "boot_failure")) && json_is_string(v) &&
	    !strcmp(json_string_value(v), "bad"))
		spec->boot_fail = 'b';
	json_array_foreach(json_object_get(o, "good"), i, e) {
		kb_strv_push(&spec->good_specs, json_string_value(json_object_get(e, "spec")));
		kb_strv_push(&spec->good_shas, json_string_value(json_object_get(e, "sha")));
	}
	v = json_object_get(o, "bad");
	spec->bad_spec = str_field(v, "spec");
	spec->bad_sha = str_field(v, "sha");
	json_array_foreach(json_object_get(o, "paths"), i, e)
		kb_strv_push(&spec->paths, json_string_value(e));
	spec->first_parent = json_is_true(json_object_get(o, "first_parent"));
	if ((v = json_object_get(o, "confidence")) && json_is_number(v))
		spec->confidence = json_number_value(v);
	spec->seed = (unsigned long long)json_integer_value(json_object_get(o, "seed"));
	spec->bench_arg = str_field(o, "bench_arg");
	if (json_array_size(json_object_get(o, "terms")) == 2 &&
	    json_is_string(json_array_get(json_object_get(o, "terms"), 0)) &&
	    json_is_string(json_array_get(json_object_get(o, "terms"), 1))) {
		spec->term_old = kb_strdup(json_string_value(json_array_get(json_object_get(o,
									     "terms"), 0)));
		spec->term_new = kb_strdup(json_string_value(json_array_get(json_object_get(o,
									     "terms"), 1)));
	}
	json_array_foreach(json_object_get(o, "target_args"), i, e)
		if (json_is_string(e))
			kb_strv_push(&spec->target_args, json_string_value(e));
	if (!spec->repo || !kb_spec_nmachines(spec) || !spec->build || !spec->bad_sha ||
	    !spec->good_shas.n || !json_is_object(json_object_get(o, "bench"))) {
		json_decref(o);
		kb_spec_release(spec);
		return bad_spec("a field is missing");
	}
	bench = json_dumps(json_object_get(o, "bench"), JSON_COMPACT);
	ret = kb_bench_parse(&spec->bench, bench, "(stored in the session)");
	free(bench);
	json_decref(o);
	if (ret)
		kb_spec_release(spec);
	return ret;
}
