/* The report as a mail: who it goes to, its headers, mbox or SMTP. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd.h"
#include "mail.h"

/* The mail config: --mail-config, $KBISECT_MAIL_CONFIG, or
 * $XDG_CONFIG_HOME/kbisect/mail.json (~/.config/...) when it exists; then
 * the credentials of the environment over it. */
static int load_config(struct kb_mail_config *c, const char *path)
{
	const char *env = getenv("KBISECT_MAIL_CONFIG"), *xdg = getenv("XDG_CONFIG_HOME"),
		   *home = getenv("HOME"), *user = getenv("KBISECT_SMTP_USER"),
		   *password = getenv("KBISECT_SMTP_PASSWORD");
	char *def = NULL;
	struct stat st;
	int ret = 0;

	if (!path && env && *env)
		path = env;
	if (!path) {
		if (xdg && *xdg)
			def = kb_asprintf("%s/kbisect/mail.json", xdg);
		else if (home && *home)
			def = kb_asprintf("%s/.config/kbisect/mail.json", home);
		if (def && stat(def, &st) == 0)
			path = def;
	}
	if (path)
		ret = kb_mail_config_read(c, path);
	free(def);
	if (ret < 0)
		return ret;
	if (user && *user) {
		free(c->user);
		c->user = kb_strdup(user);
	}
	if (password && *password) {
		if (c->password)
			explicit_bzero(c->password, strlen(c->password));
		free(c->password);
		c->password = kb_strdup(password);
	}
	return 0;
}

/* Add each of 'from' to 'to' in header form; a bad one is an error. */
static int add_people(struct kb_strv *to, const struct kb_strv *from, const char *what)
{
	size_t i;

	for (i = 0; i < from->n; i++) {
		char *p = kb_mail_person(from->v[i]);

		if (!p)
			return kb_error(KB_EINVAL, "not a mail address for %s: '%s' (give "
					"'Name <address>' or 'address')", what, from->v[i]);
		kb_strv_push(to, p);
		free(p);
	}
	return 0;
}

/* The Subject: a culprit's subject and the change it made; a plain
 * statement when no commit is blamed. */
static char *subject_of(json_t *r)
{
	const char *v = kb_str(r, "verdict");
	json_t *c = json_array_get(json_object_get(r, "culprits"), 0);
	json_t *m = json_object_get(r, "metric");
	int perf = !strcmp(kb_str(r, "mode"), "performance");

	if ((!strcmp(v, "culprit") || !strcmp(v, "multiple")) && c) {
		char *what, *s;
		size_t more = json_array_size(json_object_get(r, "culprits")) - 1;

		if (!perf) {
			what = kb_asprintf("'%s' fails", kb_str(r, "bench"));
			s = kb_mail_subject(kb_str(c, "subject"), what, NAN);
		} else {
			what = kb_asprintf("%s.%s", kb_str(r, "bench"), kb_str(m, "name"));
			s = kb_mail_subject(kb_str(c, "subject"), what,
					    json_number_value(json_object_get(c, "delta_pct")));
		}
		free(what);
		if (more) {
			char *t = kb_asprintf("%s (and %zu more commit%s)", s, more,
					      more == 1 ? "" : "s");

			free(s);
			s = t;
		}
		return s;
	}
	return kb_asprintf("kbisect: %s between %.12s and %.12s, no commit blamed: %s%s%s",
			   !strcmp(v, "no-regression") ? "no regression" : "inconclusive",
			   kb_str(r, "good"), kb_str(r, "bad"), kb_str(r, "bench"), perf ? "." : "",
			   perf ? kb_str(m, "name") : "");
}

/* "<id>" from "id" or "<id>"; NULL when it is not one. */
static char *msgid(const char *text)
{
	size_t n = strlen(text);
	char *id;

	if (n >= 2 && text[0] == '<' && text[n - 1] == '>')
		id = kb_strdup(text);
	else
		id = kb_asprintf("<%s>", text);
	n = strlen(id);
	if (n < 5 || !strchr(id, '@') || strpbrk(id + 1, "<") != NULL ||
	    strchr(id, '>') != id + n - 1 || strpbrk(id, " \t\r\n\"(),;\\")) {
		free(id);
		return NULL;
	}
	return id;
}

int kb_report_mail(json_t *r, git_repository *repo, const struct kb_mail_opts *o)
{
	struct kb_mail_config cfg;
	struct kb_strv to = KB_STRV_INIT, cc = KB_STRV_INIT, rcpt = KB_STRV_INIT;
	struct kb_buf msg = KB_BUF_INIT;
	struct kb_mail m = { 0 };
	char *from = NULL, *subject = NULL, *id = NULL, *reply = NULL, *link = NULL;
	char *body = NULL;
	size_t body_len = 0, i;
	FILE *f;
	int ret;

	kb_mail_config_init(&cfg);
	if ((ret = load_config(&cfg, o->config)) < 0)
		goto out;
	if (o->smtp) {
		free(cfg.smtp);
		cfg.smtp = kb_strdup(o->smtp);
	}
	/* From: --from, the config, or the repository's git identity */
	if (o->from)
		from = kb_mail_person(o->from);
	else if (cfg.from)
		from = kb_mail_person(cfg.from);
	else if (repo) {
		char *u = kb_repo_user(repo);

		from = u ? kb_mail_person(u) : NULL;
		free(u);
	}
	if (!from) {
		ret = kb_error(KB_EINVAL, "no sender for the mail: give --from 'Name "
			       "<address>', 'from' in the mail config, or set git's "
			       "user.name and user.email");
		goto out;
	}
	if ((ret = add_people(&to, o->to->n ? o->to : &cfg.to, "To")) < 0 ||
	    (ret = add_people(&cc, &cfg.cc, "Cc")) < 0 ||
	    (ret = add_people(&cc, o->cc, "Cc")) < 0)
		goto out;
	if (!to.n) {
		ret = kb_error(KB_EINVAL, "no recipient: give --to ADDRESS (a list) or 'to' "
			       "in the mail config");
		goto out;
	}
	/* the people of a culprit, unless none is blamed or --no-cc */
	if (!o->no_cc && (!strcmp(kb_str(r, "verdict"), "culprit") ||
			  !strcmp(kb_str(r, "verdict"), "multiple"))) {
		json_t *c, *p;
		size_t k;

		json_array_foreach(json_object_get(r, "culprits"), i, c)
			json_array_foreach(json_object_get(c, "people"), k, p)
				if (!kb_mail_listed(&to, json_string_value(p)) &&
				    !kb_mail_listed(&cc, json_string_value(p)))
					kb_strv_push(&cc, json_string_value(p));
	}
	if (o->in_reply_to) {
		if (!(reply = msgid(o->in_reply_to))) {
			ret = kb_error(KB_EINVAL, "--in-reply-to: not a Message-ID: '%s' (it "
				       "looks like <id@host>)", o->in_reply_to);
			goto out;
		}
		if (cfg.link && *cfg.link)
			link = kb_asprintf("%s%.*s", cfg.link, (int)strlen(reply) - 2, reply + 1);
	}
	subject = subject_of(r);
	id = kb_mail_message_id(from, (long long)kb_now());
	if (!(f = open_memstream(&body, &body_len))) {
		ret = kb_error_errno(KB_ERROR, "out of memory");
		goto out;
	}
	kb_print_report(r, f, link);
	fclose(f);
	m.from = from;
	m.to = (const char *const *)to.v;
	m.cc = cc.n ? (const char *const *)cc.v : NULL;
	m.subject = subject;
	m.message_id = id;
	m.in_reply_to = reply;
	m.date = (long long)kb_now();
	m.body = body;
	if (o->mbox) {
		if ((ret = kb_mail_format(&m, 1, &msg)) < 0 ||
		    (ret = kb_write_file_atomic(o->mbox, msg.ptr, msg.len, 0644)) < 0)
			goto out;
		fprintf(stderr, "kbisect: the report mail is in %s (Message-ID %s)\n", o->mbox,
			id);
		kb_buf_release(&msg);
	}
	if (o->send) {
		if ((ret = kb_mail_format(&m, 0, &msg)) < 0)
			goto out;
		for (i = 0; i < to.n; i++)
			kb_strv_push(&rcpt, to.v[i]);
		for (i = 0; i < cc.n; i++)
			kb_strv_push(&rcpt, cc.v[i]);
		if ((ret = kb_smtp_send(&cfg, from, (const char *const *)rcpt.v, msg.ptr,
					msg.len)) < 0)
			goto out;
		fprintf(stderr, "kbisect: the report went to %zu recipient%s through %s "
			"(Message-ID %s)\n", rcpt.n, rcpt.n == 1 ? "" : "s", cfg.smtp, id);
	}
	ret = 0;
out:
	kb_mail_config_release(&cfg);
	kb_strv_clear(&to);
	kb_strv_clear(&cc);
	kb_strv_clear(&rcpt);
	kb_buf_release(&msg);
	free(from);
	free(subject);
	free(id);
	free(reply);
	free(link);
	free(body);
	return ret;
}
