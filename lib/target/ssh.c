/*
 * ssh.c - a connection to a test host over SSH, with libssh2.
 *
 * The session is blocking, with a timeout on every step, except while a
 * command runs: then it is read without blocking, so that a command's own
 * timeout and the keepalives are kept whatever the host does.
 */
#include "ssh.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libssh2.h>
#include <libssh2_sftp.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#define KEEPALIVE_SECONDS 10

struct kb_ssh {
	LIBSSH2_SESSION *sess;
	int fd;
	char *host, *user, *name;
	int port;
	double timeout;
};

/* ---- errors: every libssh2 failure becomes a message here ---------------- */

static const char *ssh_code_text(int code)
{
	switch (code) {
	case LIBSSH2_ERROR_SOCKET_DISCONNECT:
	case LIBSSH2_ERROR_SOCKET_RECV:
	case LIBSSH2_ERROR_SOCKET_SEND:
		return "the connection was lost";
	case LIBSSH2_ERROR_TIMEOUT:
	case LIBSSH2_ERROR_SOCKET_TIMEOUT:
		return "the host did not answer in time";
	case LIBSSH2_ERROR_BANNER_RECV:
	case LIBSSH2_ERROR_BANNER_SEND:
		return "no SSH server answered (is sshd running on that port?)";
	case LIBSSH2_ERROR_KEX_FAILURE:
	case LIBSSH2_ERROR_METHOD_NONE:
		return "no key exchange or cipher in common with the server";
	case LIBSSH2_ERROR_AUTHENTICATION_FAILED:
	case LIBSSH2_ERROR_PUBLICKEY_UNVERIFIED:
		return "the server refused the key";
	case LIBSSH2_ERROR_FILE:
		return "the key file cannot be read (or needs a passphrase: use ssh-agent)";
	case LIBSSH2_ERROR_CHANNEL_FAILURE:
	case LIBSSH2_ERROR_CHANNEL_REQUEST_DENIED:
		return "the server refused to run a command";
	case LIBSSH2_ERROR_SFTP_PROTOCOL:
		return "SFTP failed (is the sftp subsystem enabled in sshd_config?)";
	case LIBSSH2_ERROR_ALLOC:
		return "out of memory";
	default:
		return NULL;
	}
}

/* KB_EINFRA, "<host>: <what>: <why>". */
static int ssh_fail(struct kb_ssh *s, const char *what)
{
	char *msg = NULL;
	int code = s->sess ? libssh2_session_last_error(s->sess, &msg, NULL, 0) : 0;
	const char *plain = ssh_code_text(code);

	if (plain && msg && *msg)
		return kb_error(KB_EINFRA, "%s: %s: %s (%s)", s->name, what, plain, msg);
	if (plain)
		return kb_error(KB_EINFRA, "%s: %s: %s", s->name, what, plain);
	return kb_error(KB_EINFRA, "%s: %s: %s", s->name, what,
			msg && *msg ? msg : "SSH error");
}

/* ---- connecting ----------------------------------------------------------- */

static int tcp_connect(struct kb_ssh *s)
{
	struct addrinfo hints = { 0 }, *res = NULL, *ai;
	char port[16];
	int rc, err = 0;

	hints.ai_socktype = SOCK_STREAM;
	hints.ai_family = AF_UNSPEC;
	snprintf(port, sizeof(port), "%d", s->port);
	rc = getaddrinfo(s->host, port, &hints, &res);
	if (rc)
		return kb_error(KB_EINFRA, "%s: cannot resolve the host name: %s", s->name,
				gai_strerror(rc));
	for (ai = res; ai; ai = ai->ai_next) {
		struct pollfd p;
		socklen_t len = sizeof(err);
		int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);

		if (fd < 0) {
			err = errno;
			continue;
		}
		fcntl(fd, F_SETFL, O_NONBLOCK);
		if (connect(fd, ai->ai_addr, ai->ai_addrlen) < 0 && errno != EINPROGRESS) {
			err = errno;
			close(fd);
			continue;
		}
		p.fd = fd;
		p.events = POLLOUT;
		rc = poll(&p, 1, (int)(s->timeout * 1000));
		if (rc <= 0) {
			err = rc == 0 ? ETIMEDOUT : errno;
			close(fd);
			continue;
		}
		if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0 || err) {
			if (!err)
				err = errno;
			close(fd);
			continue;
		}
		fcntl(fd, F_SETFL, 0);
		s->fd = fd;
		break;
	}
	freeaddrinfo(res);
	if (s->fd < 0)
		return kb_error(KB_EINFRA, "%s: cannot connect: %s", s->name, strerror(err));
	return 0;
}

static char *home_path(const char *rel)
{
	const char *home = getenv("HOME");

	return home && *home ? kb_asprintf("%s/%s", home, rel) : NULL;
}

static void base64(struct kb_buf *b, const unsigned char *p, size_t n)
{
	static const char tab[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t i;

	for (i = 0; i + 2 < n; i += 3) {
		kb_buf_addch(b, tab[p[i] >> 2]);
		kb_buf_addch(b, tab[((p[i] & 3) << 4) | (p[i + 1] >> 4)]);
		kb_buf_addch(b, tab[((p[i + 1] & 15) << 2) | (p[i + 2] >> 6)]);
		kb_buf_addch(b, tab[p[i + 2] & 63]);
	}
	if (n - i == 1) {
		kb_buf_addch(b, tab[p[i] >> 2]);
		kb_buf_addch(b, tab[(p[i] & 3) << 4]);
	} else if (n - i == 2) {
		kb_buf_addch(b, tab[p[i] >> 2]);
		kb_buf_addch(b, tab[((p[i] & 3) << 4) | (p[i + 1] >> 4)]);
		kb_buf_addch(b, tab[(p[i + 1] & 15) << 2]);
	}
}

struct key_kind {
	int hostkey_type;
	int knownhost_bit;
	const char *name;
};

static const struct key_kind key_kinds[] = {
	{ LIBSSH2_HOSTKEY_TYPE_ED25519, LIBSSH2_KNOWNHOST_KEY_ED25519, "ssh-ed25519" },
	{ LIBSSH2_HOSTKEY_TYPE_ECDSA_256, LIBSSH2_KNOWNHOST_KEY_ECDSA_256, "ecdsa-sha2-nistp256" },
	{ LIBSSH2_HOSTKEY_TYPE_ECDSA_384, LIBSSH2_KNOWNHOST_KEY_ECDSA_384, "ecdsa-sha2-nistp384" },
	{ LIBSSH2_HOSTKEY_TYPE_ECDSA_521, LIBSSH2_KNOWNHOST_KEY_ECDSA_521, "ecdsa-sha2-nistp521" },
	{ LIBSSH2_HOSTKEY_TYPE_RSA, LIBSSH2_KNOWNHOST_KEY_SSHRSA, "ssh-rsa" },
};

/*
 * The host key against known_hosts.  Unknown: refused, or with
 * accept_new_host_key added to the file.  Changed: refused, always.
 */
static int check_host_key(struct kb_ssh *s, const struct kb_ssh_opts *o)
{
	LIBSSH2_KNOWNHOSTS *kh = NULL;
	struct libssh2_knownhost *found = NULL;
	const struct key_kind *kind = NULL;
	const unsigned char *sha;
	struct kb_buf fp = KB_BUF_INIT;
	char *path = o->known_hosts ? kb_strdup(o->known_hosts) : home_path(".ssh/known_hosts");
	const char *key;
	size_t len, i;
	int type, rc, ret = 0;

	if (!path)
		return kb_error(KB_EINFRA, "%s: no known_hosts file to check the host key "
				"against (HOME is not set; name one in the machine file)", s->name);
	key = libssh2_session_hostkey(s->sess, &len, &type);
	if (!key) {
		ret = ssh_fail(s, "no host key");
		goto out;
	}
	for (i = 0; i < sizeof(key_kinds) / sizeof(key_kinds[0]); i++)
		if (key_kinds[i].hostkey_type == type)
			kind = &key_kinds[i];
	if (!kind) {
		ret = kb_error(KB_EINFRA, "%s: the host key is of a kind kbisect does not "
			       "check", s->name);
		goto out;
	}
	kb_buf_adds(&fp, "SHA256:");
	sha = (const unsigned char *)libssh2_hostkey_hash(s->sess, LIBSSH2_HOSTKEY_HASH_SHA256);
	if (sha)
		base64(&fp, sha, 32);
	kh = libssh2_knownhost_init(s->sess);
	if (!kh) {
		ret = ssh_fail(s, "cannot check the host key");
		goto out;
	}
	if (access(path, F_OK) == 0 &&
	    libssh2_knownhost_readfile(kh, path, LIBSSH2_KNOWNHOST_FILE_OPENSSH) < 0) {
		ret = kb_error(KB_EINFRA, "%s: cannot read the known hosts in %s", s->name, path);
		goto out;
	}
	rc = libssh2_knownhost_checkp(kh, s->host, s->port, key, len,
				      LIBSSH2_KNOWNHOST_TYPE_PLAIN | LIBSSH2_KNOWNHOST_KEYENC_RAW |
				      kind->knownhost_bit, &found);
	switch (rc) {
	case LIBSSH2_KNOWNHOST_CHECK_MATCH:
		break;
	case LIBSSH2_KNOWNHOST_CHECK_MISMATCH:
		ret = kb_error(KB_EINFRA, "%s: THE HOST KEY HAS CHANGED: %s has another %s "
			       "key for this host; the host now shows %s.  Somebody may be "
			       "in between, or the host was reinstalled.  Nothing was sent.  "
			       "If you know that the key changed, remove the old one "
			       "(ssh-keygen -R '%s' -f %s) and accept the new one with "
			       "--accept-new-host-key", s->name, path, kind->name, fp.ptr,
			       s->name, path);
		break;
	case LIBSSH2_KNOWNHOST_CHECK_NOTFOUND:
		if (!o->accept_new_host_key) {
			ret = kb_error(KB_EINFRA, "%s: the host key is not known (%s, %s, not "
				       "in %s); nothing was sent.  Check that this is the "
				       "host's key (on the host: ssh-keygen -lf "
				       "/etc/ssh/ssh_host_*_key.pub), then accept it with "
				       "--accept-new-host-key", s->name, kind->name, fp.ptr,
				       path);
			break;
		}
		{
			char *slash = strrchr(path, '/');

			if (slash) {
				*slash = '\0';
				kb_mkdir_p(path, 0700);
				kb_error_clear();
				*slash = '/';
			}
		}
		if (libssh2_knownhost_addc(kh, s->name, NULL, key, len, "kbisect", 7,
					   LIBSSH2_KNOWNHOST_TYPE_PLAIN |
					   LIBSSH2_KNOWNHOST_KEYENC_RAW | kind->knownhost_bit,
					   NULL) < 0 ||
		    libssh2_knownhost_writefile(kh, path, LIBSSH2_KNOWNHOST_FILE_OPENSSH) < 0) {
			ret = kb_error(KB_EINFRA, "%s: cannot add the host key to %s", s->name,
				       path);
			break;
		}
		break;
	default:
		ret = ssh_fail(s, "cannot check the host key");
	}
out:
	if (kh)
		libssh2_knownhost_free(kh);
	kb_buf_release(&fp);
	free(path);
	return ret;
}

static int auth_agent(struct kb_ssh *s)
{
	LIBSSH2_AGENT *agent = libssh2_agent_init(s->sess);
	struct libssh2_agent_publickey *id = NULL, *prev = NULL;
	int ok = 0;

	if (!agent)
		return 0;
	if (getenv("SSH_AUTH_SOCK") && libssh2_agent_connect(agent) == 0) {
		if (libssh2_agent_list_identities(agent) == 0)
			while (!ok && libssh2_agent_get_identity(agent, &id, prev) == 0) {
				ok = libssh2_agent_userauth(agent, s->user, id) == 0;
				prev = id;
			}
		libssh2_agent_disconnect(agent);
	}
	libssh2_agent_free(agent);
	return ok;
}

static int authenticate(struct kb_ssh *s, const struct kb_ssh_opts *o)
{
	static const char *const defaults[] = { ".ssh/id_ed25519", ".ssh/id_ecdsa", ".ssh/id_rsa" };
	size_t i;

	if (o->key_file) {
		if (access(o->key_file, R_OK) < 0)
			return kb_error_errno(KB_EINFRA, "%s: cannot read the key file %s",
					      s->name, o->key_file);
		if (libssh2_userauth_publickey_fromfile_ex(s->sess, s->user, strlen(s->user),
							  NULL, o->key_file, NULL) == 0)
			return 0;
		return ssh_fail(s, "cannot log in with the key file");
	}
	if (auth_agent(s))
		return 0;
	for (i = 0; i < sizeof(defaults) / sizeof(defaults[0]); i++) {
		char *p = home_path(defaults[i]);
		int ok = p && access(p, R_OK) == 0 &&
			 libssh2_userauth_publickey_fromfile_ex(s->sess, s->user, strlen(s->user),
								NULL, p, NULL) == 0;

		free(p);
		if (ok)
			return 0;
	}
	return kb_error(KB_EINFRA, "%s: cannot log in as %s: no key of ssh-agent or "
			"~/.ssh was accepted (name a key file in the machine file)", s->name,
			s->user);
}

/*
 * The strongest kinds of host key first, so that the one checked is
 * predictable: only those this libssh2 has (libssh2 1.10 has no
 * rsa-sha2-*, and drops a name it does not know with an overlapping
 * memcpy()).
 */
static void host_key_pref(LIBSSH2_SESSION *sess)
{
	static const char *const want[] = { "ssh-ed25519", "ecdsa-sha2-nistp256",
					     "ecdsa-sha2-nistp384", "ecdsa-sha2-nistp521",
					     "rsa-sha2-512", "rsa-sha2-256", "ssh-rsa" };
	struct kb_buf pref = KB_BUF_INIT;
	const char **have = NULL;
	int n = libssh2_session_supported_algs(sess, LIBSSH2_METHOD_HOSTKEY, &have), j;
	size_t i;

	for (i = 0; n > 0 && i < sizeof(want) / sizeof(want[0]); i++)
		for (j = 0; j < n; j++)
			if (!strcmp(want[i], have[j])) {
				kb_buf_addf(&pref, "%s%s", pref.len ? "," : "", want[i]);
				break;
			}
	if (pref.len)
		libssh2_session_method_pref(sess, LIBSSH2_METHOD_HOSTKEY, pref.ptr);
	if (n > 0)
		libssh2_free(sess, have);
	kb_buf_release(&pref);
}

int kb_ssh_connect(struct kb_ssh **out, const struct kb_ssh_opts *o)
{
	static int inited;
	struct kb_ssh *s = kb_calloc(1, sizeof(*s));
	const char *user = o->user ? o->user : getenv("USER");
	int ret;

	if (!inited) {
		if (libssh2_init(0) != 0)
			return kb_error(KB_EINFRA, "cannot initialise libssh2");
		inited = 1;
	}
	s->fd = -1;
	s->host = kb_strdup(o->host);
	s->port = o->port > 0 ? o->port : 22;
	s->user = kb_strdup(user && *user ? user : "root");
	s->name = s->port == 22 ? kb_strdup(o->host) : kb_asprintf("[%s]:%d", o->host, s->port);
	s->timeout = o->timeout > 0 ? o->timeout : 30;
	if ((ret = tcp_connect(s)) < 0)
		goto fail;
	s->sess = libssh2_session_init();
	if (!s->sess) {
		ret = kb_error(KB_EINFRA, "%s: cannot start an SSH session", s->name);
		goto fail;
	}
	libssh2_session_set_blocking(s->sess, 1);
	libssh2_session_set_timeout(s->sess, (long)(s->timeout * 1000));
	host_key_pref(s->sess);
	if (libssh2_session_handshake(s->sess, s->fd) != 0) {
		ret = ssh_fail(s, "SSH handshake failed");
		goto fail;
	}
	if ((ret = check_host_key(s, o)) < 0 || (ret = authenticate(s, o)) < 0)
		goto fail;
	libssh2_keepalive_config(s->sess, 1, KEEPALIVE_SECONDS);
	*out = s;
	return 0;
fail:
	kb_ssh_close(s);
	return ret;
}

void kb_ssh_close(struct kb_ssh *s)
{
	if (!s)
		return;
	if (s->sess) {
		libssh2_session_set_timeout(s->sess, 2000);
		libssh2_session_disconnect(s->sess, "kbisect is done");
		/* A channel the other end never closed (a host that hung or
		 * switched kernels in the middle of a command) makes the free
		 * wait for its close, and give up, keeping the session: with
		 * the socket shut, the wait ends at once and all of it goes. */
		if (s->fd >= 0)
			shutdown(s->fd, SHUT_RDWR);
		libssh2_session_free(s->sess);
	}
	if (s->fd >= 0)
		close(s->fd);
	free(s->host);
	free(s->user);
	free(s->name);
	free(s);
}

const char *kb_ssh_name(const struct kb_ssh *s)
{
	return s->name;
}

/* ---- commands ------------------------------------------------------------- */

char *kb_ssh_command(const char *dir, const char *const *env, const char *const *argv)
{
	struct kb_buf b = KB_BUF_INIT;
	size_t i;

	if (dir) {
		kb_buf_adds(&b, "cd ");
		kb_buf_add_quoted(&b, dir, 0);
		kb_buf_adds(&b, " && ");
	}
	kb_buf_adds(&b, "exec");
	if (env && env[0]) {
		kb_buf_adds(&b, " env");
		for (i = 0; env[i]; i++) {
			kb_buf_addch(&b, ' ');
			kb_buf_add_quoted(&b, env[i], 0);
		}
	}
	for (i = 0; argv && argv[i]; i++) {
		kb_buf_addch(&b, ' ');
		/* a first word with '=' would be taken for a variable by env */
		if (i == 0 && env && env[0] && strchr(argv[0], '=') && argv[0][0] != '/')
			kb_buf_adds(&b, "./");
		kb_buf_add_quoted(&b, argv[i], 0);
	}
	return kb_buf_detach(&b);
}

/* Wait until the session's socket can move in the direction it waits for,
 * at most until 'deadline' and at most 1 s. */
static void wait_socket(struct kb_ssh *s, double deadline)
{
	struct pollfd p = { .fd = s->fd };
	int dir = libssh2_session_block_directions(s->sess);
	double left = deadline - kb_now();

	if (dir & LIBSSH2_SESSION_BLOCK_INBOUND)
		p.events |= POLLIN;
	if (dir & LIBSSH2_SESSION_BLOCK_OUTBOUND)
		p.events |= POLLOUT;
	if (left > 1)
		left = 1;
	if (left < 0.01)
		left = 0.01;
	poll(&p, 1, (int)(left * 1000));
}

/* kb_ssh_run(), or with 'kept' kb_ssh_run_kept(): its output to 'kept'. */
static int ssh_run(struct kb_ssh *s, const char *command, double timeout,
		   struct kb_buf *out, struct kb_buf *err, size_t max,
		   struct kb_output *kept, int *status)
{
	struct kb_buf *to_err = err ? err : out;
	LIBSSH2_CHANNEL *ch;
	double deadline = timeout > 0 ? kb_now() + timeout : 1e18;
	char buf[16384];
	int ret = 0, eof = 0, rc;

	*status = -1;
	libssh2_session_set_blocking(s->sess, 1);
	ch = libssh2_channel_open_session(s->sess);
	if (!ch)
		return ssh_fail(s, "cannot open a channel");
	if (libssh2_channel_exec(ch, command) != 0) {
		ret = ssh_fail(s, "cannot run a command");
		libssh2_channel_free(ch);
		return ret;
	}
	libssh2_session_set_blocking(s->sess, 0);
	while (!eof) {
		int got = 0, next;

		for (;;) {
			ssize_t n = libssh2_channel_read(ch, buf, sizeof(buf));

			if (n == LIBSSH2_ERROR_EAGAIN)
				break;
			if (n < 0) {
				ret = ssh_fail(s, "the command's output was lost");
				goto out;
			}
			if (n == 0)
				break;
			got = 1;
			if (kept)
				kb_output_add(kept, buf, (size_t)n);
			else if (out && out->len < max)
				kb_buf_add(out, buf, (size_t)n > max - out->len ? max - out->len : (size_t)n);
		}
		for (;;) {
			ssize_t n = libssh2_channel_read_stderr(ch, buf, sizeof(buf));

			if (n == LIBSSH2_ERROR_EAGAIN || n == 0)
				break;
			if (n < 0) {
				ret = ssh_fail(s, "the command's output was lost");
				goto out;
			}
			got = 1;
			if (kept)
				kb_output_add(kept, buf, (size_t)n);
			else if (to_err && to_err->len < max)
				kb_buf_add(to_err, buf, (size_t)n > max - to_err->len ?
					   max - to_err->len : (size_t)n);
		}
		if (libssh2_channel_eof(ch)) {
			eof = 1;
			break;
		}
		if (kb_now() > deadline) {
			ret = 1;
			goto out;
		}
		rc = libssh2_keepalive_send(s->sess, &next);
		if (rc < 0 && rc != LIBSSH2_ERROR_EAGAIN) {
			ret = ssh_fail(s, "the connection was lost while a command ran");
			goto out;
		}
		if (!got)
			wait_socket(s, deadline);
	}
	libssh2_session_set_blocking(s->sess, 1);
	if (libssh2_channel_close(ch) == 0)
		libssh2_channel_wait_closed(ch);
	{
		char *sig = NULL;

		libssh2_channel_get_exit_signal(ch, &sig, NULL, NULL, NULL, NULL, NULL);
		if (sig) {
			static const char *const names[] = { "", "HUP", "INT", "QUIT", "ILL",
							     "TRAP", "ABRT", "BUS", "FPE", "KILL",
							     "USR1", "SEGV", "USR2", "PIPE", "ALRM",
							     "TERM" };
			int i, num = 0;

			for (i = 1; i < 16; i++)
				if (!strcmp(sig, names[i]))
					num = i;
			*status = 128 + (num ? num : 1);
			free(sig);
		} else {
			*status = libssh2_channel_get_exit_status(ch);
		}
	}
out:
	libssh2_session_set_blocking(s->sess, 1);
	if (ret != 0) {
		/* a command past its timeout: ask for its end, do not wait long */
		libssh2_session_set_timeout(s->sess, 2000);
		libssh2_channel_close(ch);
		libssh2_session_set_timeout(s->sess, (long)(s->timeout * 1000));
	}
	libssh2_channel_free(ch);
	return ret;
}

int kb_ssh_run(struct kb_ssh *s, const char *command, double timeout,
	       struct kb_buf *out, struct kb_buf *err, size_t max, int *status)
{
	return ssh_run(s, command, timeout, out, err, max, NULL, status);
}

int kb_ssh_run_kept(struct kb_ssh *s, const char *command, double timeout,
		    struct kb_output *kept, int *status)
{
	return ssh_run(s, command, timeout, NULL, NULL, 0, kept, status);
}

/* Write one file over an open SFTP session. */
static int sftp_put(struct kb_ssh *s, LIBSSH2_SFTP *sftp, const char *path, const void *data,
		    size_t len, int mode)
{
	LIBSSH2_SFTP_HANDLE *h;
	const char *p = data;
	int ret = 0;

	h = libssh2_sftp_open(sftp, path, LIBSSH2_FXF_WRITE | LIBSSH2_FXF_CREAT | LIBSSH2_FXF_TRUNC,
			      mode);
	if (!h) {
		unsigned long e = libssh2_sftp_last_error(sftp);

		return e == LIBSSH2_FX_NO_SUCH_FILE || e == LIBSSH2_FX_PERMISSION_DENIED ?
		       kb_error(KB_EINFRA, "%s: cannot write %s on the host: %s", s->name, path,
				e == LIBSSH2_FX_NO_SUCH_FILE ? "no such directory" :
				"permission denied") :
		       ssh_fail(s, "cannot upload");
	}
	while (len > 0) {
		ssize_t n = libssh2_sftp_write(h, p, len);

		if (n < 0) {
			ret = ssh_fail(s, "upload failed");
			break;
		}
		p += n;
		len -= (size_t)n;
	}
	if (libssh2_sftp_close(h) != 0 && ret == 0)
		ret = ssh_fail(s, "upload failed");
	return ret;
}

int kb_ssh_upload(struct kb_ssh *s, const char *path, const void *data, size_t len, int mode)
{
	LIBSSH2_SFTP *sftp;
	int ret;

	libssh2_session_set_blocking(s->sess, 1);
	sftp = libssh2_sftp_init(s->sess);
	if (!sftp)
		return ssh_fail(s, "cannot start SFTP");
	ret = sftp_put(s, sftp, path, data, len, mode);
	libssh2_sftp_shutdown(sftp);
	return ret;
}

/* Copy the directory 'local' to 'remote' (made when missing). */
static int put_tree(struct kb_ssh *s, LIBSSH2_SFTP *sftp, const char *local, const char *remote,
		    struct kb_ssh_tree *n)
{
	DIR *d;
	struct dirent *e;
	int ret = 0;

	if (libssh2_sftp_mkdir(sftp, remote, 0755) != 0) {
		LIBSSH2_SFTP_ATTRIBUTES a;

		/* there already (SFTP servers answer "failure" for that) */
		if (libssh2_sftp_stat(sftp, remote, &a) != 0 || !LIBSSH2_SFTP_S_ISDIR(a.permissions))
			return kb_error(KB_EINFRA, "%s: cannot make the directory %s on the host",
					s->name, remote);
	}
	if (!(d = opendir(local)))
		return kb_error_errno(KB_EINFRA, "cannot read %s", local);
	while (!ret && (e = readdir(d))) {
		char *from, *to;
		struct stat st;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		from = kb_asprintf("%s/%s", local, e->d_name);
		to = kb_asprintf("%s/%s", remote, e->d_name);
		if (lstat(from, &st) < 0) {
			ret = kb_error_errno(KB_EINFRA, "cannot read %s", from);
		} else if (S_ISDIR(st.st_mode)) {
			ret = put_tree(s, sftp, from, to, n);
		} else if (S_ISREG(st.st_mode)) {
			struct kb_buf b = KB_BUF_INIT;

			if ((ret = kb_read_file(from, &b, (size_t)1 << 30)) == 0 &&
			    (ret = sftp_put(s, sftp, to, b.ptr, b.len, (int)(st.st_mode & 0777))) == 0) {
				n->files++;
				n->bytes += b.len;
			}
			kb_buf_release(&b);
		}
		/* a symbolic link (build, source) points into this machine: left out */
		free(from);
		free(to);
	}
	closedir(d);
	return ret;
}

int kb_ssh_upload_tree(struct kb_ssh *s, const char *local, const char *remote,
		       struct kb_ssh_tree *n)
{
	LIBSSH2_SFTP *sftp;
	int ret;

	memset(n, 0, sizeof(*n));
	libssh2_session_set_blocking(s->sess, 1);
	sftp = libssh2_sftp_init(s->sess);
	if (!sftp)
		return ssh_fail(s, "cannot start SFTP");
	ret = put_tree(s, sftp, local, remote, n);
	libssh2_sftp_shutdown(sftp);
	return ret;
}
