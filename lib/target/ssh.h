/*
 * ssh.h - a connection to a test host over SSH.
 *
 * One connection runs commands (each in a channel of its own) and uploads
 * files by SFTP.  The host's key is checked against a known_hosts file
 * before anything is sent: an unknown key is refused unless the caller
 * asks to accept a new one (and then written to the file), a changed key
 * is always refused.  Authentication is by key: a key file, or the keys of
 * ssh-agent, or ~/.ssh/id_ed25519, id_ecdsa, id_rsa.
 *
 * Commands go to the host as one string, which the host's shell splits:
 * kb_ssh_command() quotes every word (kb_buf_add_quoted()), so that no value
 * (a commit subject, a config value, a path) is ever run as shell syntax.
 *
 * Every failure is KB_EINFRA with a message that names the host and says
 * what failed (all libssh2 errors are turned into messages in one place).
 */
#ifndef KB_SSH_H
#define KB_SSH_H

#include "output.h"
#include "util.h"

struct kb_ssh_opts {
	const char *host;
	int port;                 /* 0: 22 */
	const char *user;         /* NULL: $USER */
	const char *key_file;     /* NULL: ssh-agent, then ~/.ssh/id_* */
	const char *known_hosts;  /* NULL: ~/.ssh/known_hosts */
	int accept_new_host_key;  /* add an unknown host key to known_hosts */
	double timeout;           /* seconds for connecting and each step; 0: 30 */
};

struct kb_ssh;

/* Connect, check the host key, authenticate. */
int kb_ssh_connect(struct kb_ssh **out, const struct kb_ssh_opts *o);
void kb_ssh_close(struct kb_ssh *s);

/* "[host]:port" or "host": how the host is named in known_hosts. */
const char *kb_ssh_name(const struct kb_ssh *s);

/*
 * Run 'command' (a shell command line for the host: build it with
 * kb_ssh_command) and wait for it, at most 'timeout' seconds (0: no
 * limit).  Its standard output goes to 'out' (may be NULL), its standard
 * error to 'err', or to 'out' as well when 'err' is NULL; at most 'max'
 * bytes each (the rest is read and dropped).  Returns 0 with *status the
 * exit status (or 128 + signal), 1 when the timeout passed, or KB_EINFRA
 * when the connection failed.
 */
int kb_ssh_run(struct kb_ssh *s, const char *command, double timeout,
	       struct kb_buf *out, struct kb_buf *err, size_t max, int *status);
/* The same, its standard output and error both to 'kept' (its head and
 * tail: output.h), however long. */
int kb_ssh_run_kept(struct kb_ssh *s, const char *command, double timeout,
		    struct kb_output *kept, int *status);

/* Upload 'len' bytes to the file 'path' on the host (mode 'mode'). */
int kb_ssh_upload(struct kb_ssh *s, const char *path, const void *data, size_t len,
		  int mode);

/* Upload the directory 'local' with everything under it to 'remote' on
 * the host: directories are made, regular files keep their mode bits,
 * symbolic links are left out.  'n' counts what was sent. */
struct kb_ssh_tree {
	unsigned files;
	size_t bytes;
};
int kb_ssh_upload_tree(struct kb_ssh *s, const char *local, const char *remote,
		       struct kb_ssh_tree *n);

/* The command line "cd DIR && exec env NAME=VALUE... ARGV..." with every
 * word quoted; 'dir' and 'env' may be NULL. */
char *kb_ssh_command(const char *dir, const char *const *env, const char *const *argv);

#endif
