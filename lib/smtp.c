/* Sending a report over SMTP with libcurl, and the mail config file. */
#include "mail.h"

#include <curl/curl.h>
#include <fcntl.h>
#include <jansson.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

void kb_mail_config_init(struct kb_mail_config *c)
{
	memset(c, 0, sizeof(*c));
	c->link = kb_strdup("https://lore.kernel.org/r/");
	c->timeout = 120;
}

/* Wipe a secret before its memory goes back. */
static void forget(char *secret)
{
	if (secret) {
		explicit_bzero(secret, strlen(secret));
		free(secret);
	}
}

void kb_mail_config_release(struct kb_mail_config *c)
{
	free(c->smtp);
	free(c->user);
	forget(c->password);
	free(c->ca_file);
	free(c->from);
	kb_strv_clear(&c->to);
	kb_strv_clear(&c->cc);
	free(c->link);
	memset(c, 0, sizeof(*c));
}

static int set_string(char **field, json_t *v, const char *key, const char *path)
{
	if (!json_is_string(v))
		return kb_error(KB_EINVAL, "%s: '%s' must be a string", path, key);
	if (*field && !strcmp(key, "password"))
		forget(*field);
	else
		free(*field);
	*field = kb_strdup(json_string_value(v));
	return 0;
}

static int set_list(struct kb_strv *field, json_t *v, const char *key, const char *path)
{
	json_t *e;
	size_t i;

	if (json_is_string(v)) {
		kb_strv_clear(field);
		kb_strv_push(field, json_string_value(v));
		return 0;
	}
	if (!json_is_array(v))
		return kb_error(KB_EINVAL, "%s: '%s' must be an address or a list of them",
				path, key);
	json_array_foreach(v, i, e)
		if (!json_is_string(e))
			return kb_error(KB_EINVAL, "%s: '%s' must list addresses as strings",
					path, key);
	kb_strv_clear(field);
	json_array_foreach(v, i, e)
		kb_strv_push(field, json_string_value(e));
	return 0;
}

/* The keys of the mail config that are one string each. */
static const struct {
	const char *key;
	size_t offset;
} strings[] = {
	{ "smtp", offsetof(struct kb_mail_config, smtp) },
	{ "user", offsetof(struct kb_mail_config, user) },
	{ "password", offsetof(struct kb_mail_config, password) },
	{ "ca_file", offsetof(struct kb_mail_config, ca_file) },
	{ "from", offsetof(struct kb_mail_config, from) },
	{ "link", offsetof(struct kb_mail_config, link) },
};

int kb_mail_config_read(struct kb_mail_config *c, const char *path)
{
	struct kb_buf text = KB_BUF_INIT;
	json_error_t jerr;
	json_t *o, *v;
	const char *k;
	struct stat st;
	int ret = 0, fd;

	/* opened once: the mode checked is that of the file read */
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return kb_error_errno(KB_ENOTFOUND, "cannot open the mail config %s", path);
	if (fstat(fd, &st) < 0) {
		close(fd);
		return kb_error_errno(KB_ERROR, "cannot stat %s", path);
	}
	ret = kb_read_fd(fd, &text, 1 << 20, path);
	close(fd);
	if (ret < 0) {
		explicit_bzero(text.ptr, text.len);
		kb_buf_release(&text);
		return ret;
	}
	o = json_loadb(text.ptr, text.len, 0, &jerr);
	explicit_bzero(text.ptr, text.len);
	kb_buf_release(&text);
	if (!o)
		return kb_error(KB_EINVAL, "%s:%d: %s", path, jerr.line, jerr.text);
	if (!json_is_object(o)) {
		json_decref(o);
		return kb_error(KB_EINVAL, "%s: the mail config must be a JSON object", path);
	}
	if (json_object_get(o, "password") && (st.st_mode & 077)) {
		json_decref(o);
		return kb_error(KB_EINVAL, "%s holds a password and others can read it: "
				"'chmod 600 %s', or give the password in KBISECT_SMTP_PASSWORD",
				path, path);
	}
	json_object_foreach(o, k, v) {
		char **field = NULL;
		size_t i;

		for (i = 0; i < sizeof(strings) / sizeof(strings[0]); i++)
			if (!strcmp(k, strings[i].key))
				field = (char **)((char *)c + strings[i].offset);
		if (field)
			ret = set_string(field, v, k, path);
		else if (!strcmp(k, "to"))
			ret = set_list(&c->to, v, k, path);
		else if (!strcmp(k, "cc"))
			ret = set_list(&c->cc, v, k, path);
		else if (!strcmp(k, "timeout")) {
			if (!json_is_integer(v) || json_integer_value(v) < 1 ||
			    json_integer_value(v) > 3600)
				ret = kb_error(KB_EINVAL, "%s: 'timeout' must be seconds, "
					       "1 to 3600", path);
			else
				c->timeout = (int)json_integer_value(v);
		} else
			ret = kb_error(KB_EINVAL, "%s: unknown key '%s' (known: smtp, user, "
				       "password, ca_file, from, to, cc, link, timeout)", path, k);
		if (ret < 0)
			break;
	}
	/* the text of the password is in the object: wipe it there too */
	if ((v = json_object_get(o, "password")) && json_is_string(v))
		explicit_bzero((char *)json_string_value(v), json_string_length(v));
	json_decref(o);
	return ret;
}

char *kb_mail_message_id(const char *from, long long now)
{
	unsigned char r[8];
	char stamp[32], *addr = from ? kb_mail_address(from) : NULL, *id;
	const char *domain = addr ? strrchr(addr, '@') + 1 : "localhost";
	time_t t = (time_t)now;
	struct tm tm;
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	size_t i;

	if (fd < 0 || read(fd, r, sizeof(r)) != (ssize_t)sizeof(r)) {
		/* unique enough without: time, process and address of a local */
		unsigned long long x = (unsigned long long)now * 1000003u ^
			(unsigned long long)getpid() << 20 ^ (unsigned long long)(uintptr_t)&r;

		for (i = 0; i < sizeof(r); i++)
			r[i] = (unsigned char)(x >> (8 * i));
	}
	if (fd >= 0)
		close(fd);
	gmtime_r(&t, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d%H%M%S", &tm);
	id = kb_asprintf("<%s.%02x%02x%02x%02x%02x%02x%02x%02x.kbisect@%s>", stamp, r[0], r[1],
			 r[2], r[3], r[4], r[5], r[6], r[7], domain);
	free(addr);
	return id;
}

struct upload {
	const char *p;
	size_t left;
};

static size_t feed(char *buf, size_t size, size_t n, void *ctx)
{
	struct upload *u = ctx;
	size_t len = size * n < u->left ? size * n : u->left;

	memcpy(buf, u->p, len);
	u->p += len;
	u->left -= len;
	return len;
}

/* The URL as it may be shown: no credentials can be in it (refused). */
static int check_url(const char *url)
{
	const char *host, *end;

	if (!url || !*url)
		return kb_error(KB_EINVAL, "no SMTP server: give --smtp URL or 'smtp' in the "
				"mail config (smtp://HOST[:PORT] or smtps://HOST[:PORT])");
	if (strncmp(url, "smtp://", 7) && strncmp(url, "smtps://", 8))
		return kb_error(KB_EINVAL, "the SMTP URL must start with smtp:// or smtps://: "
				"%s", url);
	host = strstr(url, "://") + 3;
	end = host + strcspn(host, "/?#");
	if (memchr(host, '@', (size_t)(end - host)))
		return kb_error(KB_EINVAL, "the SMTP URL must not hold a user or password: "
				"give them in the mail config or in KBISECT_SMTP_USER and "
				"KBISECT_SMTP_PASSWORD");
	return 0;
}

int kb_smtp_send(const struct kb_mail_config *c, const char *from,
		 const char *const *rcpt, const char *message, size_t len)
{
	static int curl_ready;
	char errbuf[CURL_ERROR_SIZE] = "", *sender = from ? kb_mail_address(from) : NULL;
	struct curl_slist *to = NULL;
	struct upload u = { message, len };
	int tls = !strncmp(c->smtp ? c->smtp : "", "smtps://", 8), ret = 0;
	CURLcode rc;
	CURL *h;
	size_t i;

	if ((ret = check_url(c->smtp)) < 0) {
		free(sender);
		return ret;
	}
	if (!sender) {
		free(sender);
		return kb_error(KB_EINVAL, "no sender address in '%s'", from ? from : "");
	}
	if (!c->user != !c->password) {
		free(sender);
		return kb_error(KB_EINVAL, "an SMTP %s without a %s: give both (mail config "
				"or KBISECT_SMTP_USER and KBISECT_SMTP_PASSWORD)",
				c->user ? "user" : "password", c->user ? "password" : "user");
	}
	for (i = 0; rcpt && rcpt[i]; i++) {
		char *p = kb_mail_person(rcpt[i]), *a = p ? kb_mail_address(p) : NULL, *b;

		free(p);
		if (!a) {
			curl_slist_free_all(to);
			free(sender);
			return kb_error(KB_EINVAL, "not a mail address: %s", rcpt[i]);
		}
		b = kb_asprintf("<%s>", a);
		to = curl_slist_append(to, b);
		free(a);
		free(b);
	}
	if (!to) {
		free(sender);
		return kb_error(KB_EINVAL, "no recipient: give --to or 'to' in the mail config");
	}
	if (!curl_ready) {
		if (curl_global_init(CURL_GLOBAL_DEFAULT)) {
			curl_slist_free_all(to);
			free(sender);
			return kb_error(KB_ERROR, "libcurl did not start");
		}
		curl_ready = 1;
	}
	if (!(h = curl_easy_init())) {
		curl_slist_free_all(to);
		free(sender);
		return kb_error(KB_ERROR, "libcurl did not start");
	}
	{
		char *mail_from = kb_asprintf("<%s>", sender);

		curl_easy_setopt(h, CURLOPT_MAIL_FROM, mail_from);
		free(mail_from);
	}
	curl_easy_setopt(h, CURLOPT_URL, c->smtp);
	curl_easy_setopt(h, CURLOPT_MAIL_RCPT, to);
	curl_easy_setopt(h, CURLOPT_READFUNCTION, feed);
	curl_easy_setopt(h, CURLOPT_READDATA, &u);
	curl_easy_setopt(h, CURLOPT_UPLOAD, 1L);
	curl_easy_setopt(h, CURLOPT_INFILESIZE_LARGE, (curl_off_t)len);
	curl_easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf);
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT, 30L);
	curl_easy_setopt(h, CURLOPT_TIMEOUT, (long)c->timeout);
	curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "smtp,smtps");
	/* a password only ever goes over TLS */
	if (!tls)
		curl_easy_setopt(h, CURLOPT_USE_SSL, c->user ? (long)CURLUSESSL_ALL :
				 (long)CURLUSESSL_TRY);
	if (c->user) {
		curl_easy_setopt(h, CURLOPT_USERNAME, c->user);
		curl_easy_setopt(h, CURLOPT_PASSWORD, c->password);
	}
	if (c->ca_file)
		curl_easy_setopt(h, CURLOPT_CAINFO, c->ca_file);
	rc = curl_easy_perform(h);
	if (rc != CURLE_OK) {
		const char *why = *errbuf ? errbuf : curl_easy_strerror(rc);

		switch (rc) {
		case CURLE_LOGIN_DENIED:
			ret = kb_error(KB_EINVAL, "%s refused the login of '%s': check the "
				       "password (mail config or KBISECT_SMTP_PASSWORD)",
				       c->smtp, c->user ? c->user : "");
			break;
		case CURLE_USE_SSL_FAILED:
			ret = kb_error(KB_EINVAL, "%s does not offer STARTTLS, and a password "
				       "is only sent over TLS: use smtps:// or a server that "
				       "offers STARTTLS (%s)", c->smtp, why);
			break;
		case CURLE_PEER_FAILED_VERIFICATION:
		case CURLE_SSL_CACERT_BADFILE:
			ret = kb_error(KB_EINVAL, "the TLS certificate of %s is not trusted: %s; "
				       "give its CA in the mail config's 'ca_file'", c->smtp, why);
			break;
		case CURLE_COULDNT_RESOLVE_HOST:
		case CURLE_COULDNT_CONNECT:
		case CURLE_OPERATION_TIMEDOUT:
			ret = kb_error(KB_EINFRA, "cannot reach the SMTP server %s: %s", c->smtp,
				       why);
			break;
		default:
			ret = kb_error(KB_EINFRA, "%s did not take the mail: %s", c->smtp, why);
		}
	}
	curl_easy_cleanup(h);
	curl_slist_free_all(to);
	free(sender);
	return ret;
}
