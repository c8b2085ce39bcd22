/*
 * The libvirt target: each boot is a transient domain that boots the built
 * bzImage directly (<kernel>, <cmdline>), with the host's root shared
 * read-only over virtio-9p as the guest's root, the job of the boot as a
 * second 9p share, a sparse scratch disk, the console on one serial port
 * and the guest's answers on another, both captured to files.
 *
 * Domains are named "<session>-<commit>-b<boot>", so that what a crashed
 * kbisect left running is found by its prefix and destroyed by cleanup.
 *
 * KVM is used where it boots: the first boot on a host (a libvirt URI)
 * tries it with a short deadline, and the answer is remembered in
 * ~/.cache/kbisect/accel.  Where it hangs (nested KVM often does), TCG.
 *
 * A URI with a host (qemu+ssh://host/system) is a remote libvirt: nothing
 * of this machine's file system is there.  The kernel, the scratch disk
 * and the job go to volumes of a storage pool of that libvirt (uploaded
 * through the connection), the job as a shell script on a second disk that
 * the guest's /bin/sh runs as init (guests/init with the job in front of
 * it), and both serial ports are read through the connection (consoles
 * opened before the guest runs) into the same files as for a local VM.
 *
 * One thread calls libvirt, and never waits inside it for a guest: the
 * consoles of a remote guest are non-blocking streams, whose data comes in
 * with the answers to the calls that ask whether the domain still runs.
 * A libvirt that goes away in the middle of a boot is an error of the
 * infrastructure, never a verdict on the kernel: nothing is marked, and the
 * session goes on at "kbisect resume".
 */
#include <errno.h>
#include <fcntl.h>
#include <libvirt/libvirt.h>
#include <libvirt/virterror.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "machine.h"
#include "output.h"
#include "target.h"
#include "util.h"

#define KVM_PROBE_SECONDS 30.0
#define RUN_TIMEOUT_DEFAULT 3600.0
#define IDLE_TIMEOUT 120.0

enum { VOL_KERNEL, VOL_SCRATCH, VOL_JOB, NVOLS };

/* A serial port of a remote guest, copied into a local file as it comes. */
struct port_reader {
	virStreamPtr st;
	int fd;
	int ended;                 /* the stream ended, or broke */
};

struct vm_target {
	struct kb_target base;
	char *uri;                 /* NULL: the default, qemu:///system */
	virConnectPtr conn;
	int remote;                /* the URI names a host: volumes, not files (that
				    * host may be this one: see KB_TARGET_REMOTE) */
	char *pool_name;           /* remote: where volumes go */
	char *cmdline;             /* more kernel parameters, or NULL */
	virStoragePoolPtr pool;
	char *logs, *vmdir, *prefix, *guest_init;
	long memory_mib, vcpus, scratch_mib;
	double boot_timeout;
	int kvm_node_said;         /* the warning about /dev/kvm was given */

	/* the boot in progress */
	virDomainPtr dom;
	char *name, *dir, *data_path, *console_path;
	char *console_kept;        /* where the console log stays afterwards */
	char nonce[17];
	struct kb_buf data;        /* data port text not consumed yet */
	off_t data_off;
	/* how far the blocks of the data port's file (read already) and of the
	 * console's middle (cut when it is kept) were given back, and when */
	off_t data_freed, console_freed;
	double freed_at;
	int runs, next_run, done;
	double timeout, last_progress;

	/* remote: the volumes and the serial ports of the boot */
	virStorageVolPtr vol[NVOLS];
	char *vol_path[NVOLS];
	struct port_reader port[2];
};

static const char *const vol_suffix[NVOLS] = { "kernel", "scratch", "job" };

static void xml_add(struct kb_buf *b, const char *s);

static void quiet_errors(void *ctx, virErrorPtr err)
{
}

/* Do the 'len' bytes at 'line' hold 'word'? */
static int line_has(const char *line, size_t len, const char *word)
{
	size_t n = strlen(word);

	for (; len >= n; line++, len--)
		if (!memcmp(line, word, n))
			return 1;
	return 0;
}

/* libvirt's last error, cut to the line that says what went wrong (QEMU's
 * messages come with lines of deprecation warnings). */
static const char *virt_msg(void)
{
	static char buf[512];
	virErrorPtr e = virGetLastError();
	const char *m = e && e->message ? e->message : "unknown libvirt error";
	const char *line, *best = NULL;
	size_t best_len = 0;

	for (line = m; *line; ) {
		size_t len = strcspn(line, "\n");

		if (len && !line_has(line, len, "warning") && !line_has(line, len, "Please use") &&
		    (!best || line_has(line, len, "rror") || line_has(line, len, "failed"))) {
			best = line;
			best_len = len;
		}
		line += len + (line[len] == '\n');
	}
	if (!best)
		return m;
	snprintf(buf, sizeof(buf), "%.*s", (int)best_len, best);
	return buf;
}

/* A URI that names a host ("qemu+ssh://host/system") is another machine's
 * libvirt; "qemu:///system" and "qemu+unix:///system" are this one's. */
static int uri_is_remote(const char *uri)
{
	const char *p = uri ? strstr(uri, "://") : NULL;

	return p && p[3] && p[3] != '/';
}

/* The storage pool of a remote libvirt that takes the volumes of a boot. */
static int open_pool(struct vm_target *t)
{
	int active;

	t->pool = virStoragePoolLookupByName(t->conn, t->pool_name);
	if (!t->pool)
		return kb_error(KB_EINFRA, "libvirt at %s has no storage pool '%s' for the "
				"kernels and disks of the VMs: make one (virsh -c '%s' "
				"pool-define-as %s dir --target /var/lib/libvirt/images; virsh "
				"-c '%s' pool-start %s), or name another with \"pool\" in the "
				"machine file", t->uri, t->pool_name, t->uri, t->pool_name,
				t->uri, t->pool_name);
	active = virStoragePoolIsActive(t->pool);
	if (active != 1)
		return kb_error(KB_EINFRA, "the storage pool '%s' of libvirt at %s is not "
				"active: virsh -c '%s' pool-start %s", t->pool_name, t->uri,
				t->uri, t->pool_name);
	return 0;
}

/* Connect to libvirt (again: a connection that broke is dropped first). */
static int connect_libvirt(struct vm_target *t)
{
	if (t->pool)
		virStoragePoolFree(t->pool);
	if (t->conn)
		virConnectClose(t->conn);
	t->pool = NULL;
	t->conn = virConnectOpen(t->uri ? t->uri : "qemu:///system");
	if (!t->conn)
		return kb_error(KB_EINFRA, "cannot connect to libvirt at %s: %s (is libvirtd "
				"running, and may this user use it?)",
				t->uri ? t->uri : "qemu:///system", virt_msg());
	return t->remote ? open_pool(t) : 0;
}

static void vm_close(struct kb_target *base);

/* What a target holds apart from libvirt's objects, and the target. */
static void free_target(struct vm_target *t)
{
	free(t->pool_name);
	free(t->cmdline);
	free(t->uri);
	free(t->logs);
	free(t->vmdir);
	free(t->prefix);
	free(t->guest_init);
	free(t->base.spec);
	free(t);
}

static int vm_open(struct kb_target **out, const char *spec, const struct kb_target_env *env,
		   json_t *m)
{
	struct vm_target *t;
	const char *uri = NULL;

	if (!strncmp(spec, "libvirt:", 8))
		uri = spec + 8;
	else if (strcmp(spec, "libvirt"))
		return kb_error(KB_EINVAL, "bad libvirt target '%s': libvirt or libvirt:URI", spec);
	if (!env->guest_init || strpbrk(env->guest_init, " \t\n\"'"))
		return kb_error(KB_EINVAL, "the guest init of kbisect (guests/init) is missing "
				"or its path has blanks or quotes: %s",
				env->guest_init ? env->guest_init : "not found");
	t = kb_calloc(1, sizeof(*t));
	kb_target_init(&t->base, &kb_target_libvirt, spec, env);
	t->uri = uri && *uri ? kb_strdup(uri) : NULL;
	t->logs = kb_strdup(env->paths->logs);
	t->vmdir = kb_strdup(env->paths->vm);
	t->prefix = kb_asprintf("%s-", env->session_name);
	t->guest_init = kb_strdup(env->guest_init);
	t->memory_mib = kb_machine_int(m, "memory_mib", 1024);
	t->vcpus = kb_machine_int(m, "vcpus", 2);
	t->scratch_mib = kb_machine_int(m, "scratch_mib", 4096);
	t->boot_timeout = (double)kb_machine_int(m, "boot_timeout", 180);
	{
		json_t *cl = m ? json_object_get(m, "cmdline") : NULL;

		t->cmdline = json_is_string(cl) ? kb_strdup(json_string_value(cl)) : NULL;
	}
	t->remote = uri_is_remote(t->uri);
	if (t->remote && !kb_uri_host_is_here(t->uri))
		t->base.flags |= KB_TARGET_REMOTE;
	t->port[0].fd = t->port[1].fd = -1;
	if (t->remote) {
		json_t *pool = m ? json_object_get(m, "pool") : NULL;

		t->pool_name = kb_strdup(json_is_string(pool) ? json_string_value(pool) : "default");
	}
	if (t->memory_mib < 64 || t->vcpus < 1 || t->scratch_mib < 16 || t->boot_timeout < 5) {
		free_target(t);
		return kb_error(KB_EINVAL, "bad machine description: memory_mib >= 64, "
				"vcpus >= 1, scratch_mib >= 16, boot_timeout >= 5");
	}
	virSetErrorFunc(NULL, quiet_errors);
	if (connect_libvirt(t) < 0) {
		int code = kb_error_code();
		char *msg = kb_strdup(kb_error_last());

		vm_close(&t->base);
		kb_error(code, "%s", msg);
		free(msg);
		return -1;
	}
	*out = &t->base;
	return 0;
}

/* Destroy (transient domains: and so remove) a domain; NULL is fine. */
static void destroy(virDomainPtr dom)
{
	if (!dom)
		return;
	if (virDomainIsActive(dom) == 1)
		virDomainDestroy(dom);
	virDomainFree(dom);
}

/* ---- remote: volumes and serial ports ------------------------------------ */

static void delete_volume(virStorageVolPtr vol)
{
	if (!vol)
		return;
	virStorageVolDelete(vol, 0);
	virStorageVolFree(vol);
}

/*
 * A raw volume "<name>.<suffix>" of 'size' bytes in the pool, with 'data'
 * uploaded to its start (none when 'data' is NULL: a sparse disk).  A
 * volume of that name left by an earlier kbisect is replaced.
 */
static int make_volume(struct vm_target *t, int which, unsigned long long size,
		       const char *data, size_t len)
{
	struct kb_buf xml = KB_BUF_INIT;
	char *vname = kb_asprintf("%s.%s", t->name, vol_suffix[which]);
	virStorageVolPtr old = virStorageVolLookupByName(t->pool, vname);
	virStreamPtr st = NULL;
	int ret = 0;

	delete_volume(old);
	kb_buf_adds(&xml, "<volume><name>");
	xml_add(&xml, vname);
	kb_buf_addf(&xml, "</name><capacity unit='bytes'>%llu</capacity><allocation "
		    "unit='bytes'>0</allocation><target><format type='raw'/></target></volume>",
		    size);
	t->vol[which] = virStorageVolCreateXML(t->pool, xml.ptr, 0);
	if (!t->vol[which]) {
		ret = kb_error(KB_EINFRA, "cannot make the volume %s in the pool '%s' of %s: %s",
			       vname, t->pool_name, t->uri, virt_msg());
		goto out;
	}
	if (!(t->vol_path[which] = virStorageVolGetPath(t->vol[which]))) {
		ret = kb_error(KB_EINFRA, "no path for the volume %s: %s", vname, virt_msg());
		goto out;
	}
	if (data && len) {
		size_t off = 0;

		st = virStreamNew(t->conn, 0);
		if (!st || virStorageVolUpload(t->vol[which], st, 0, len, 0) < 0) {
			ret = kb_error(KB_EINFRA, "cannot upload to the volume %s: %s", vname,
				       virt_msg());
			goto out;
		}
		while (off < len) {
			int n = virStreamSend(st, data + off, len - off > 262144 ? 262144 : len - off);

			if (n < 0) {
				ret = kb_error(KB_EINFRA, "upload to the volume %s failed: %s",
					       vname, virt_msg());
				virStreamAbort(st);
				goto out;
			}
			off += (size_t)n;
		}
		if (virStreamFinish(st) < 0)
			ret = kb_error(KB_EINFRA, "upload to the volume %s failed: %s", vname,
				       virt_msg());
	}
out:
	if (st)
		virStreamFree(st);
	kb_buf_release(&xml);
	free(vname);
	return ret;
}

/* Copy what port 'r' has received so far into its file; bytes copied. */
static int pump_port(struct port_reader *r)
{
	char buf[16384];
	int n, got = 0;

	while (r->st && !r->ended) {
		const char *p = buf;

		n = virStreamRecv(r->st, buf, sizeof(buf));
		if (n == -2)
			break;          /* nothing more yet */
		if (n <= 0) {
			r->ended = 1;   /* the end, or the connection broke */
			break;
		}
		got += n;
		while (n > 0) {
			ssize_t w = write(r->fd, p, (size_t)n);

			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0)
				break;
			p += w;
			n -= (int)w;
		}
	}
	return got;
}

/* Open the guest's serial port 'dev' ("serial0") to be copied into 'path'. */
static int open_port(struct vm_target *t, struct port_reader *r, const char *dev,
		     const char *path)
{
	r->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
	if (r->fd < 0)
		return kb_error(KB_EINFRA, "cannot write %s: %s", path, strerror(errno));
	r->ended = 0;
	r->st = virStreamNew(t->conn, VIR_STREAM_NONBLOCK);
	if (!r->st || virDomainOpenConsole(t->dom, dev, r->st, VIR_DOMAIN_CONSOLE_FORCE) < 0)
		return kb_error(KB_EINFRA, "cannot read the %s of the VM %s: %s", dev, t->name,
				virt_msg());
	return 0;
}

/* After the domain is gone: keep what the port still had, and close it. */
static void close_port(struct port_reader *r)
{
	if (r->st) {
		pump_port(r);
		if (r->ended)
			virStreamFinish(r->st);
		else
			virStreamAbort(r->st);
		virStreamFree(r->st);
		r->st = NULL;
	}
	if (r->fd >= 0)
		close(r->fd);
	r->fd = -1;
	r->ended = 0;
}

static void end_boot(struct vm_target *t, int keep_files)
{
	int i;

	destroy(t->dom);
	t->dom = NULL;
	for (i = 0; i < 2; i++)
		close_port(&t->port[i]);
	for (i = 0; i < NVOLS; i++) {
		delete_volume(t->vol[i]);
		t->vol[i] = NULL;
		free(t->vol_path[i]);
		t->vol_path[i] = NULL;
	}
	if (t->dir && !keep_files) {
		/* the console log is kept for the report; the scratch disk is not */
		char *logs = kb_strdup(t->logs);

		int code = kb_error_code();
		char *msg = kb_strdup(kb_error_last());

		/* best effort, and never in place of the error being returned */
		if (kb_mkdir_p(logs, 0700) == 0)
			kb_output_keep_file(t->console_path, t->console_kept);
		kb_remove_tree(t->dir);
		kb_error_clear();
		if (code)
			kb_error(code, "%s", msg);
		free(msg);
		free(logs);
	}
	free(t->name);
	free(t->dir);
	free(t->data_path);
	free(t->console_path);
	free(t->console_kept);
	t->name = t->dir = t->data_path = t->console_path = t->console_kept = NULL;
	kb_buf_release(&t->data);
	t->data_off = t->data_freed = t->console_freed = 0;
	t->done = 0;
}

static int vm_cleanup(struct kb_target *base)
{
	struct vm_target *t = (struct vm_target *)base;
	virDomainPtr *doms = NULL;
	int i, n;

	n = virConnectListAllDomains(t->conn, &doms, VIR_CONNECT_LIST_DOMAINS_ACTIVE);
	if (n < 0)
		return kb_error(KB_EINFRA, "cannot list the VMs of libvirt: %s", virt_msg());
	for (i = 0; i < n; i++) {
		const char *name = virDomainGetName(doms[i]);

		if (name && !strncmp(name, t->prefix, strlen(t->prefix))) {
			kb_target_say(&t->base, "destroying VM %s, left behind by an earlier "
				      "kbisect", name);
			if (virDomainDestroy(doms[i]) < 0 && virDomainIsActive(doms[i]) == 1)
				kb_target_say(&t->base, "could not destroy VM %s: %s", name,
					      virt_msg());
		}
		virDomainFree(doms[i]);
	}
	free(doms);
	if (t->remote) {
		virStorageVolPtr *vols = NULL;

		virStoragePoolRefresh(t->pool, 0);
		n = virStoragePoolListAllVolumes(t->pool, &vols, 0);
		for (i = 0; i < n; i++) {
			const char *name = virStorageVolGetName(vols[i]);

			if (name && !strncmp(name, t->prefix, strlen(t->prefix))) {
				kb_target_say(&t->base, "deleting volume %s, left behind by an "
					      "earlier kbisect", name);
				virStorageVolDelete(vols[i], 0);
			}
			virStorageVolFree(vols[i]);
		}
		free(vols);
	}
	return kb_remove_tree(t->vmdir);
}

static void vm_close(struct kb_target *base)
{
	struct vm_target *t = (struct vm_target *)base;

	end_boot(t, 1);
	if (t->pool)
		virStoragePoolFree(t->pool);
	if (t->conn)
		virConnectClose(t->conn);
	free_target(t);
}

/* ---- the accelerator ---------------------------------------------------- */

static char *accel_file(void)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");

	if (xdg && *xdg)
		return kb_asprintf("%s/kbisect/accel", xdg);
	if (home && *home)
		return kb_asprintf("%s/.cache/kbisect/accel", home);
	return NULL;
}

/* What is remembered for this URI: "kvm", "tcg", or "" (probe). */
static void accel_recall(struct vm_target *t, char out[16])
{
	char *path = accel_file(), *line, *save = NULL;
	const char *uri = t->uri ? t->uri : "qemu:///system";
	struct kb_buf b = KB_BUF_INIT;

	out[0] = '\0';
	if (path && kb_read_file(path, &b, 1 << 16) == 0) {
		for (line = strtok_r(b.ptr, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
			char u[1024], a[16];

			if (sscanf(line, "%1023s %15s", u, a) == 2 && !strcmp(u, uri) &&
			    (!strcmp(a, "kvm") || !strcmp(a, "tcg")))
				snprintf(out, 16, "%s", a);
		}
	}
	kb_error_clear();
	kb_buf_release(&b);
	free(path);
}

static void accel_remember(struct vm_target *t, const char *accel)
{
	char *path = accel_file(), *dir, *slash;
	const char *uri = t->uri ? t->uri : "qemu:///system";
	struct kb_buf b = KB_BUF_INIT, out = KB_BUF_INIT;
	char *line, *save = NULL;

	if (!path)
		return;
	dir = kb_strdup(path);
	slash = strrchr(dir, '/');
	*slash = '\0';
	if (kb_read_file(path, &b, 1 << 16) == 0) {
		for (line = strtok_r(b.ptr, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
			size_t len = strcspn(line, " ");

			if (len != strlen(uri) || strncmp(line, uri, len))
				kb_buf_addf(&out, "%s\n", line);
		}
	}
	kb_buf_addf(&out, "%s %s %lld\n", uri, accel, (long long)time(NULL));
	if (kb_mkdir_p(dir, 0700) == 0)
		kb_write_file_atomic(path, out.ptr, out.len, 0644);
	kb_error_clear();
	kb_buf_release(&b);
	kb_buf_release(&out);
	free(dir);
	free(path);
}

/*
 * A /dev/kvm that only its owner may open, where the VMs run on this
 * machine: libvirt's QEMU (not root) cannot use it, and libvirt then takes
 * its own probe of QEMU, which saw KVM, for stale, and probes QEMU again
 * before every VM start.  What to do, or NULL when /dev/kvm is fine.
 */
static char *kvm_node_problem(const struct vm_target *t)
{
	struct stat st;

	if (kb_target_is_remote(&t->base) || stat("/dev/kvm", &st) < 0 || !S_ISCHR(st.st_mode) ||
	    (st.st_mode & 0060) == 0060 || (st.st_mode & 0006) == 0006)
		return NULL;
	return kb_asprintf("/dev/kvm has mode %03o: libvirt's QEMU cannot open it, so VMs "
			   "run without KVM and libvirt probes QEMU again before every VM "
			   "start (up to a minute each); as root, 'chgrp kvm /dev/kvm && "
			   "chmod 660 /dev/kvm' (what udev does on most systems)",
			   (unsigned)(st.st_mode & 0777));
}

/* "kvm", "tcg" or "" (KVM to be tried) for this host. */
static void accel_choose(struct vm_target *t, char out[16])
{
	const char *env = getenv("KBISECT_ACCEL");
	char *caps;

	if (env && (!strcmp(env, "kvm") || !strcmp(env, "tcg"))) {
		snprintf(out, 16, "%s", env);
		return;
	}
	accel_recall(t, out);
	if (out[0])
		return;
	caps = virConnectGetDomainCapabilities(t->conn, NULL, "x86_64", NULL, "kvm", 0);
	if (!caps) {
		/* no usable /dev/kvm: nothing to probe */
		snprintf(out, 16, "tcg");
		accel_remember(t, "tcg");
		return;
	}
	free(caps);
}

/* ---- the domain --------------------------------------------------------- */

static void xml_add(struct kb_buf *b, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&': kb_buf_adds(b, "&amp;"); break;
		case '<': kb_buf_adds(b, "&lt;"); break;
		case '>': kb_buf_adds(b, "&gt;"); break;
		case '\'': kb_buf_adds(b, "&apos;"); break;
		case '"': kb_buf_adds(b, "&quot;"); break;
		default: kb_buf_addch(b, *s);
		}
	}
}

static char *domain_xml(struct vm_target *t, const char *accel)
{
	struct kb_buf b = KB_BUF_INIT;
	char *kernel = t->remote ? kb_strdup(t->vol_path[VOL_KERNEL]) :
		       kb_asprintf("%s/bzImage", t->base.kernel_dir);
	char *scratch = t->remote ? kb_strdup(t->vol_path[VOL_SCRATCH]) :
			kb_asprintf("%s/scratch.img", t->dir);
	char *job = t->remote ? kb_strdup(t->vol_path[VOL_JOB]) : kb_asprintf("%s/job", t->dir);

	kb_buf_addf(&b, "<domain type='%s'>\n  <name>", !strcmp(accel, "kvm") ? "kvm" : "qemu");
	xml_add(&b, t->name);
	kb_buf_addf(&b, "</name>\n  <memory unit='MiB'>%ld</memory>\n  <vcpu>%ld</vcpu>\n",
		    t->memory_mib, t->vcpus);
	kb_buf_adds(&b, "  <os>\n    <type arch='x86_64'>hvm</type>\n    <kernel>");
	xml_add(&b, kernel);
	kb_buf_adds(&b, "</kernel>\n    <cmdline>console=ttyS0 root=kbroot rootfstype=9p "
		    "rootflags=trans=virtio,version=9p2000.L,msize=262144 ro ");
	kb_buf_adds(&b, "panic=-1 oops=panic loglevel=5 tsc=reliable ");
	if (t->cmdline) {
		xml_add(&b, t->cmdline);
		kb_buf_adds(&b, " ");
	}
	if (t->remote) {
		/* the job disk is a script: guests/init with the job in front */
		kb_buf_adds(&b, "init=/bin/sh -- /dev/vdb");
	} else {
		kb_buf_adds(&b, "init=");
		xml_add(&b, t->guest_init);
	}
	kb_buf_adds(&b, "</cmdline>\n  </os>\n");
	kb_buf_adds(&b, "  <on_poweroff>destroy</on_poweroff>\n  <on_reboot>destroy</on_reboot>\n"
		    "  <on_crash>destroy</on_crash>\n");
	/* QEMU runs as the user running kbisect, who can read the kernel,
	 * the job and the host's root, and nothing is relabelled; on a remote
	 * host, as root, who can read the volumes */
	kb_buf_addf(&b, "  <seclabel type='static' model='dac' relabel='no'>"
		    "<label>+%u:+%u</label></seclabel>\n", t->remote ? 0 : (unsigned)getuid(),
		    t->remote ? 0 : (unsigned)getgid());
	kb_buf_adds(&b, "  <devices>\n    <disk type='file' device='disk'><driver name='qemu' "
		    "type='raw' cache='unsafe'/><source file='");
	xml_add(&b, scratch);
	kb_buf_adds(&b, "'/><target dev='vda' bus='virtio'/></disk>\n");
	if (t->remote) {
		kb_buf_adds(&b, "    <disk type='file' device='disk'><driver name='qemu' "
			    "type='raw'/><source file='");
		xml_add(&b, job);
		kb_buf_adds(&b, "'/><target dev='vdb' bus='virtio'/><readonly/></disk>\n");
	}
	kb_buf_adds(&b, "    <filesystem type='mount' accessmode='passthrough' multidevs='remap'>"
		    "<source dir='/'/><target dir='kbroot'/><readonly/></filesystem>\n");
	if (t->remote) {
		kb_buf_adds(&b, "    <serial type='pty'><target port='0'/></serial>\n"
			    "    <serial type='pty'><target port='1'/></serial>\n");
	} else {
		kb_buf_adds(&b, "    <filesystem type='mount' accessmode='passthrough'><source dir='");
		xml_add(&b, job);
		kb_buf_adds(&b, "'/><target dir='kbjob'/><readonly/></filesystem>\n"
			    "    <serial type='file'><source path='");
		xml_add(&b, t->console_path);
		kb_buf_adds(&b, "'/><target port='0'/></serial>\n    <serial type='file'><source path='");
		xml_add(&b, t->data_path);
		kb_buf_adds(&b, "'/><target port='1'/></serial>\n");
	}
	/* entropy from the host: a kernel's random pool is ready at once, and
	 * nothing in the guest waits for it (getrandom blocks until then) */
	kb_buf_adds(&b, "    <rng model='virtio'><backend model='random'>/dev/urandom</backend>"
		    "</rng>\n");
	kb_buf_adds(&b, "    <memballoon model='none'/>\n  </devices>\n</domain>\n");
	free(kernel);
	free(scratch);
	free(job);
	return kb_buf_detach(&b);
}

static int write_text(const char *path, const char *text)
{
	return kb_write_file_atomic(path, text, strlen(text), 0644);
}

/* The files of the job the guest reads (see guests/init): names relative
 * to the job directory, and their texts. */
static void job_files(struct vm_target *t, const struct kb_boot_job *job,
		      struct kb_strv *names, struct kb_strv *texts)
{
	static const char *const fixed[] = { "KBISECT_NONCE", "KBISECT_RUNS",
					     "KBISECT_SCRATCH", "KBISECT_SCRATCH_DEV" };
	char runs[16];
	size_t i;

	for (i = 0; job->env && job->env[i]; i++) {
		const char *eq = strchr(job->env[i], '='), *c;
		int ok = eq && eq != job->env[i] && !(job->env[i][0] >= '0' && job->env[i][0] <= '9');

		/* a name the guest's shell can export, nothing else */
		for (c = job->env[i]; ok && c < eq; c++)
			ok = (*c >= 'A' && *c <= 'Z') || (*c >= 'a' && *c <= 'z') ||
			     (*c >= '0' && *c <= '9') || *c == '_';
		if (!ok)
			continue;
		kb_strv_pushf(names, "env/%.*s", (int)(eq - job->env[i]), job->env[i]);
		kb_strv_push(texts, eq + 1);
	}
	snprintf(runs, sizeof(runs), "%d", job->runs);
	for (i = 0; i < 4; i++)
		kb_strv_pushf(names, "env/%s", fixed[i]);
	kb_strv_push(texts, t->nonce);
	kb_strv_push(texts, runs);
	kb_strv_push(texts, "/run/kbisect/scratch");
	kb_strv_push(texts, "/dev/vda");
	for (i = 0; job->setup && job->setup[i]; i++) {
		kb_strv_pushf(names, "setup.%zu", i + 1);
		kb_strv_push(texts, job->setup[i]);
	}
	for (i = 0; job->argv && job->argv[i]; i++) {
		kb_strv_pushf(names, "argv.%zu", i);
		kb_strv_push(texts, job->argv[i]);
	}
}

/*
 * The job as the script a remote guest runs as init: a function that
 * writes the job's files (every text single-quoted, so nothing in it is
 * evaluated), then guests/init itself, padded with newlines to whole
 * sectors of the disk it goes on.
 */
static int job_script(struct vm_target *t, struct kb_strv *names, struct kb_strv *texts,
		      struct kb_buf *out)
{
	struct kb_buf init = KB_BUF_INIT;
	size_t i;
	int ret;

	if ((ret = kb_read_file(t->guest_init, &init, 1 << 20)) < 0)
		return ret;
	kb_buf_adds(out, "#!/bin/sh\n# the job of the VM ");
	kb_buf_adds(out, t->name);
	kb_buf_adds(out, ", run as init by the guest's /bin/sh\nKBISECT_JOB_INLINE=1\n"
		    "kbisect_job() {\n\tmkdir -p \"$1/env\" || return\n");
	for (i = 0; i < names->n; i++) {
		kb_buf_adds(out, "\tprintf %s ");
		kb_buf_add_quoted(out, texts->v[i], KB_QUOTE_BARE);
		kb_buf_addf(out, " >\"$1/%s\" || return\n", names->v[i]);
	}
	kb_buf_adds(out, "}\n");
	kb_buf_add(out, init.ptr, init.len);
	kb_buf_adds(out, "\nexit 0\n");
	while (out->len % 512)
		kb_buf_addch(out, '\n');
	kb_buf_release(&init);
	return 0;
}

/* The job directory the guest reads, or for a remote guest its disk. */
static int write_job(struct vm_target *t, const struct kb_boot_job *job)
{
	struct kb_strv names = KB_STRV_INIT, texts = KB_STRV_INIT;
	char *edir = kb_asprintf("%s/job/env", t->dir);
	size_t i;
	int ret = 0;

	job_files(t, job, &names, &texts);
	if (t->remote) {
		struct kb_buf script = KB_BUF_INIT;

		if ((ret = job_script(t, &names, &texts, &script)) == 0)
			ret = make_volume(t, VOL_JOB, script.len, script.ptr, script.len);
		kb_buf_release(&script);
		goto out;
	}
	if ((ret = kb_mkdir_p(edir, 0755)) < 0)
		goto out;
	for (i = 0; i < names.n && ret == 0; i++) {
		char *p = kb_asprintf("%s/job/%s", t->dir, names.v[i]);

		ret = write_text(p, texts.v[i]);
		free(p);
	}
out:
	kb_strv_clear(&names);
	kb_strv_clear(&texts);
	free(edir);
	return ret;
}

static void make_nonce(char out[17])
{
	unsigned char r[8];
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC), i;

	if (fd < 0 || read(fd, r, sizeof(r)) != (ssize_t)sizeof(r)) {
		unsigned long long x = (unsigned long long)time(NULL) ^ ((unsigned long long)getpid() << 32);

		memcpy(r, &x, sizeof(r));
	}
	if (fd >= 0)
		close(fd);
	for (i = 0; i < 8; i++)
		sprintf(out + 2 * i, "%02x", r[i]);
}

/* Read what the guest wrote since last time onto t->data. */
static int read_data(struct vm_target *t)
{
	char buf[65536];
	ssize_t n;
	int fd, got = 0;

	if (t->remote) {
		pump_port(&t->port[0]);
		pump_port(&t->port[1]);
	}
	if ((fd = open(t->data_path, O_RDWR | O_CLOEXEC)) < 0 &&
	    (fd = open(t->data_path, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	while ((n = pread(fd, buf, sizeof(buf), t->data_off)) > 0) {
		kb_buf_add(&t->data, buf, (size_t)n);
		t->data_off += n;
		got = 1;
	}
	/* what was read takes no room on the disk; nor does the middle of a
	 * long console, which is cut (output.h) */
	kb_output_punch_read(fd, t->data_off, &t->data_freed);
	close(fd);
	if (kb_now() - t->freed_at >= 1) {
		t->freed_at = kb_now();
		if ((fd = open(t->console_path, O_RDWR | O_CLOEXEC)) >= 0) {
			kb_output_punch_middle(fd, KB_OUTPUT_HEAD, KB_OUTPUT_TAIL, &t->console_freed);
			close(fd);
		}
	}
	return got;
}

/* 1: the domain runs; 0: it ended; -1: libvirt is gone (error set). */
static int alive(struct vm_target *t)
{
	char *why;
	int a, ret;

	if (!t->dom)
		return 0;
	if ((a = virDomainIsActive(t->dom)) >= 0)
		return a;
	why = kb_strdup(virt_msg());
	if (virConnectIsAlive(t->conn) == 1) {
		free(why);
		return 0;       /* a transient domain that is gone */
	}
	ret = kb_error(KB_EINFRA, "lost the connection to libvirt at %s during the boot of %s "
		       "(%s): nothing is marked; once libvirtd runs again, \"kbisect resume\" "
		       "goes on", t->uri ? t->uri : "qemu:///system", t->name, why);
	free(why);
	return ret;
}

/* The first line of the console that says why the kernel died, or NULL. */
static char *console_fault(struct vm_target *t)
{
	struct kb_buf b = KB_BUF_INIT;
	char *found;

	if (kb_read_tail(t->console_path, &b, 1 << 20) < 0) {
		kb_error_clear();
		return NULL;
	}
	found = kb_console_fault(b.ptr);
	kb_buf_release(&b);
	return found;
}

/* Say in t->base.fault why the guest stopped answering: died or hung. */
static void set_fault(struct vm_target *t, const char *when, int hung, double seconds)
{
	char *why = console_fault(t);

	if (why)
		snprintf(t->base.fault, sizeof(t->base.fault), "the kernel failed %s: %s "
			 "(console: %s)", when, why, t->console_kept);
	else if (hung)
		snprintf(t->base.fault, sizeof(t->base.fault), "the guest hung %s: no answer "
			 "in %.0f s (console: %s)", when, seconds, t->console_kept);
	else
		snprintf(t->base.fault, sizeof(t->base.fault), "the VM ended %s without a "
			 "sign of a panic (console: %s)", when, t->console_kept);
	free(why);
}

/* What the guest printed of a command: its head and tail (output.h),
 * its \r\n made \n. */
struct guest_out {
	struct kb_output kept;
	int cr;                    /* a \r came last: a \n may follow */
};

static void guest_out_init(struct guest_out *o)
{
	kb_output_init(&o->kept, 0, 0);
	o->cr = 0;
}

static void guest_out_add(struct guest_out *o, const char *p, size_t len)
{
	size_t i, from = 0;

	if (!o || !len)
		return;
	if (o->cr && p[0] != '\n')
		kb_output_add(&o->kept, "\r", 1);
	o->cr = 0;
	for (i = 0; i < len; i++) {
		if (p[i] != '\r')
			continue;
		if (i + 1 == len || p[i + 1] == '\n') {
			kb_output_add(&o->kept, p + from, i - from);
			from = i + 1;
			o->cr = i + 1 == len;
		}
	}
	kb_output_add(&o->kept, p + from, len - from);
}

/* The end of the command's text: a \r left over is its own. */
static void guest_out_end(struct guest_out *o)
{
	if (o->cr)
		kb_output_add(&o->kept, "\r", 1);
	o->cr = 0;
}

/* Take the first 'n' bytes of t->data off it, to 'out' (may be NULL). */
static void data_take(struct vm_target *t, struct guest_out *out, size_t n)
{
	guest_out_add(out, t->data.ptr, n);
	memmove(t->data.ptr, t->data.ptr + n, t->data.len - n);
	t->data.len -= n;
	t->data.ptr[t->data.len] = '\0';
}

/*
 * Take the next line of ours ("KBISECT-<nonce> WORDS") off t->data.  The
 * text before it goes to 'out' (may be NULL), and so does the text that
 * cannot be the start of one as it comes: t->data stays short however
 * much a command prints.  1 when a line was taken.
 */
static int next_line(struct vm_target *t, struct guest_out *out, char *line, size_t len)
{
	char mark[32];
	char *p, *eol;
	size_t mlen;

	snprintf(mark, sizeof(mark), "\nKBISECT-%s ", t->nonce);
	mlen = strlen(mark);
	if (!t->data.len)
		return 0;
	/* the guest starts each line of ours with a newline of its own */
	p = memmem(t->data.ptr, t->data.len, mark, mlen);
	if (!p) {
		/* all but what may be the start of a mark */
		if (t->data.len >= mlen)
			data_take(t, out, t->data.len - (mlen - 1));
		return 0;
	}
	eol = memchr(p + mlen, '\n', t->data.len - (size_t)(p + mlen - t->data.ptr));
	if (!eol) {
		data_take(t, out, (size_t)(p - t->data.ptr));
		return 0;
	}
	if (out && p > t->data.ptr)
		guest_out_add(out, t->data.ptr, (size_t)(p - t->data.ptr));
	snprintf(line, len, "%.*s", (int)(eol - (p + mlen)), p + mlen);
	line[strcspn(line, "\r")] = '\0';
	{
		size_t used = (size_t)(eol + 1 - t->data.ptr);

		memmove(t->data.ptr, eol + 1, t->data.len - used);
		t->data.len -= used;
		t->data.ptr[t->data.len] = '\0';
	}
	return 1;
}

/* W_LOST: libvirt went away (the error is set) */
enum wait_result { W_LINE, W_ENDED, W_TIMEOUT, W_LOST };

/* Wait for the next line of ours, up to 'timeout' seconds without one. */
static enum wait_result wait_line(struct vm_target *t, struct guest_out *out, char *line,
				  size_t len, double timeout)
{
	double start = kb_now();
	useconds_t nap = 20000;

	for (;;) {
		int got = read_data(t);

		if (next_line(t, out, line, len))
			return W_LINE;
		if (!got) {
			int a = alive(t);

			if (a < 0)
				return W_LOST;
			if (!a) {
				/* a remote guest's last words may still be on their way:
				 * they come in with the answers to calls */
				double until = kb_now() + 5;
				unsigned long ver;

				while (t->remote && t->port[1].st && !t->port[1].ended &&
				       kb_now() < until && virConnectGetLibVersion(t->conn, &ver) == 0) {
					read_data(t);
					usleep(20000);
				}
				read_data(t);
				if (next_line(t, out, line, len))
					return W_LINE;
				return W_ENDED;
			}
			if (kb_now() - start > timeout)
				return W_TIMEOUT;
			usleep(nap);
			if (nap < 200000)
				nap *= 2;
		} else {
			nap = 20000;
		}
	}
}

/* A remote domain starts paused; it runs once both serial ports are read. */
static int connect_ports(struct vm_target *t)
{
	int ret;

	if ((ret = open_port(t, &t->port[0], "serial0", t->console_path)) < 0 ||
	    (ret = open_port(t, &t->port[1], "serial1", t->data_path)) < 0)
		return ret;
	if (virDomainResume(t->dom) < 0)
		return kb_error(KB_EINFRA, "cannot resume the VM %s: %s", t->name, virt_msg());
	return 0;
}

static int start_domain(struct vm_target *t, const char *accel, int attempts)
{
	char *xml = domain_xml(t, accel);
	int attempt, ret = 0;

	close_port(&t->port[0]);
	close_port(&t->port[1]);
	unlink(t->data_path);
	unlink(t->console_path);
	kb_buf_release(&t->data);
	t->data_off = t->data_freed = t->console_freed = 0;
	for (attempt = 1; attempt <= attempts; attempt++) {
		t->dom = virDomainCreateXML(t->conn, xml, t->remote ? VIR_DOMAIN_START_PAUSED : 0);
		if (t->dom)
			break;
		if (attempt < attempts) {
			kb_target_say(&t->base, "the VM %s did not start (%s); trying again",
				      t->name, virt_msg());
			sleep((unsigned)attempt);
		}
	}
	if (!t->dom)
		ret = kb_error(KB_EINFRA, "cannot start the VM %s: %s", t->name, virt_msg());
	else if (t->remote && (ret = connect_ports(t)) < 0) {
		destroy(t->dom);
		t->dom = NULL;
	}
	free(xml);
	return ret;
}

/* Boot and wait for the guest's identity: 0, 1 (kernel's fault), or <0.
 * A probe of KVM gives 2 when QEMU would not even start with it. */
static int boot_once(struct vm_target *t, const char *accel, double timeout, const char *want,
		     int probe)
{
	char line[512];
	enum wait_result w;
	int ret;

	if ((ret = start_domain(t, accel, probe ? 1 : 3)) < 0) {
		if (!probe)
			return ret;
		kb_target_say(&t->base, "KVM does not start here (%s)", virt_msg());
		kb_error_clear();
		return 2;
	}
	w = wait_line(t, NULL, line, sizeof(line), timeout);
	if (w == W_LOST)
		return -1;
	if (w != W_LINE) {
		set_fault(t, "at boot", w == W_TIMEOUT, timeout);
		destroy(t->dom);
		t->dom = NULL;
		return 1;
	}
	if (strncmp(line, "IDENTITY ", 9)) {
		destroy(t->dom);
		t->dom = NULL;
		return kb_error(KB_EINFRA, "the guest of %s said '%s' before its identity",
				t->name, line);
	}
	if (strcmp(line + 9, want)) {
		destroy(t->dom);
		t->dom = NULL;
		return kb_error(KB_EINFRA, "VM %s booted kernel %s, not the %s that was built: "
				"the wrong kernel ran, nothing is marked", t->name, line + 9, want);
	}
	return 0;
}

static int vm_boot(struct kb_target *base, const struct kb_boot_job *job)
{
	struct vm_target *t = (struct vm_target *)base;
	struct kb_buf rel = KB_BUF_INIT;
	struct guest_out out;
	char accel[16], line[512];
	double started;
	int ret, n;

	end_boot(t, 0);
	base->fault[0] = '\0';
	base->fault_setup = 0;
	guest_out_init(&out);
	if (virConnectIsAlive(t->conn) != 1) {
		kb_target_say(&t->base, "the connection to libvirt at %s broke: connecting "
			      "again", t->uri ? t->uri : "qemu:///system");
		if ((ret = connect_libvirt(t)) < 0)
			return ret;
	}
	if (!base->kernel_dir)
		return kb_error(KB_EINVAL, "the libvirt target boots a kernel: use "
				"'--build kernel' in a kernel tree");
	if ((ret = kb_target_release(base->kernel_dir, &rel)) < 0)
		return ret;
	t->name = kb_asprintf("%s%.12s-b%d", t->prefix, job->sha, job->boot);
	t->dir = kb_asprintf("%s/%s", t->vmdir, t->name);
	t->data_path = kb_asprintf("%s/data.log", t->dir);
	t->console_path = kb_asprintf("%s/console.log", t->dir);
	t->console_kept = kb_asprintf("%s/console-%s.log", t->logs, t->name);
	make_nonce(t->nonce);
	t->runs = job->runs;
	t->next_run = 1;
	t->timeout = job->timeout > 0 ? job->timeout : RUN_TIMEOUT_DEFAULT;
	if ((ret = kb_remove_tree(t->dir)) < 0 || (ret = kb_mkdir_p(t->dir, 0755)) < 0 ||
	    (ret = write_job(t, job)) < 0)
		goto out;
	if (t->remote) {
		struct kb_buf img = KB_BUF_INIT;
		char *p = kb_asprintf("%s/bzImage", base->kernel_dir);

		ret = kb_read_file(p, &img, 256 << 20);
		free(p);
		if (ret == 0)
			ret = make_volume(t, VOL_KERNEL, img.len, img.ptr, img.len);
		kb_buf_release(&img);
		if (ret < 0 || (ret = make_volume(t, VOL_SCRATCH,
						  (unsigned long long)t->scratch_mib << 20,
						  NULL, 0)) < 0)
			goto out;
	} else {
		char *img = kb_asprintf("%s/scratch.img", t->dir);
		int fd = open(img, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

		if (fd < 0 || ftruncate(fd, (off_t)t->scratch_mib << 20) < 0)
			ret = kb_error(KB_EINFRA, "cannot make the scratch disk %s: %s", img,
				       strerror(errno));
		if (fd >= 0)
			close(fd);
		free(img);
		if (ret < 0)
			goto out;
	}
	if (!t->kvm_node_said) {
		char *why = kvm_node_problem(t);

		if (why)
			kb_target_say(&t->base, "warning: %s", why);
		free(why);
		t->kvm_node_said = 1;
	}
	accel_choose(t, accel);
	started = kb_now();
	if (!accel[0]) {
		kb_target_say(&t->base, "trying KVM on this host (once; the answer is "
			      "kept)");
		ret = boot_once(t, "kvm", KVM_PROBE_SECONDS, rel.ptr, 1);
		if (ret == 0) {
			accel_remember(t, "kvm");
			snprintf(accel, sizeof(accel), "kvm");
		} else if (ret > 0) {
			int kvm_failed = ret;

			ret = boot_once(t, "tcg", t->boot_timeout, rel.ptr, 0);
			if (ret == 0) {
				if (kvm_failed == 1)
					kb_target_say(&t->base, "KVM did not boot in %.0f s "
						      "here: using TCG, from now on",
						      KVM_PROBE_SECONDS);
				else
					kb_target_say(&t->base, "using TCG on this host from now on");
				accel_remember(t, "tcg");
			}
			snprintf(accel, sizeof(accel), "tcg");
		}
	} else {
		ret = boot_once(t, accel, t->boot_timeout, rel.ptr, 0);
	}
	snprintf(base->accel, sizeof(base->accel), "%s", accel);
	if (ret != 0)
		goto out;
	kb_target_say(&t->base, "VM %s booted %s in %.1f s (%s)", t->name, rel.ptr,
		      kb_now() - started, !strcmp(accel, "kvm") ? "KVM" : "TCG");
	for (n = 1; job->setup && job->setup[n - 1]; n++) {
		enum wait_result w;
		int st = -1;

		kb_output_release(&out.kept);
		guest_out_init(&out);
		w = wait_line(t, &out, line, sizeof(line), t->timeout);
		if (w == W_LINE && sscanf(line, "SETUP-BEGIN %d", &st) == 1)
			w = wait_line(t, &out, line, sizeof(line), t->timeout);
		if (w == W_LOST) {
			ret = -1;
			goto out;
		}
		if (w != W_LINE) {
			set_fault(t, "during the benchmark's setup", w == W_TIMEOUT, t->timeout);
			ret = 1;
			goto out;
		}
		if (sscanf(line, "SETUP-END %*d %d", &st) != 1 || st != 0) {
			struct kb_buf o = KB_BUF_INIT;

			kb_output_last(&out.kept, 600, &o);
			snprintf(base->fault, sizeof(base->fault), "setup command %d failed in "
				 "the guest (exit %d): %s", n, st, o.ptr);
			base->fault_setup = 1;
			kb_buf_release(&o);
			ret = 1;
			goto out;
		}
	}
out:
	if (ret != 0)
		end_boot(t, 0);
	kb_buf_release(&rel);
	kb_output_release(&out.kept);
	return ret;
}

static int vm_run_start(struct kb_target *base, const struct kb_run_spec *spec,
			const char *rundir, pid_t *pid)
{
	struct vm_target *t = (struct vm_target *)base;

	*pid = 0;
	if (!t->name || t->next_run > t->runs)
		return kb_error(KB_ERROR, "no booted VM has a run left to follow");
	if (spec->timeout > 0)
		t->timeout = spec->timeout;
	return kb_mkdir_p(rundir, 0700);
}

static int write_output(const char *rundir, struct guest_out *out)
{
	char *p = kb_asprintf("%s/output", rundir);
	int ret;

	guest_out_end(out);
	/* a newline the guest put before our line is not the benchmark's */
	kb_output_chop(&out->kept, '\n');
	ret = kb_output_write(&out->kept, p);
	free(p);
	return ret;
}

static int vm_run_wait(struct kb_target *base, const char *rundir,
		       struct kb_run_result *res, int *found)
{
	struct vm_target *t = (struct vm_target *)base;
	struct guest_out out;
	char line[512], when[64];
	enum wait_result w;
	double start = kb_now();
	int k = 0, st, ret, begun = 0;

	memset(res, 0, sizeof(*res));
	*found = 1;
	guest_out_init(&out);
	snprintf(when, sizeof(when), "in run %d", t->next_run);
	w = wait_line(t, NULL, line, sizeof(line), IDLE_TIMEOUT);
	if (w == W_LINE && (sscanf(line, "RUN-BEGIN %d", &k) != 1 || k != t->next_run)) {
		ret = kb_error(KB_EINFRA, "the guest of %s said '%s', not the start of run %d",
			       t->name, line, t->next_run);
		goto out;
	}
	if (w == W_LINE) {
		begun = 1;
		w = wait_line(t, &out, line, sizeof(line), t->timeout);
	}
	if (w == W_LOST) {
		ret = -1;
		goto out;
	}
	if (w == W_LINE && (sscanf(line, "RUN-END %d %d", &k, &st) != 2 || k != t->next_run)) {
		ret = kb_error(KB_EINFRA, "the guest of %s said '%s', not the end of run %d",
			       t->name, line, t->next_run);
		goto out;
	}
	res->seconds = kb_now() - start;
	if ((ret = write_output(rundir, &out)) < 0)
		goto out;
	if (w != W_LINE) {
		set_fault(t, when, w == W_TIMEOUT, !begun ? IDLE_TIMEOUT : t->timeout);
		res->outcome = KB_RUN_CRASHED;
		snprintf(res->message, sizeof(res->message), "%s", base->fault);
		end_boot(t, 0);
		goto out;
	}
	res->outcome = KB_RUN_EXITED;
	res->exit_status = st;
	if (++t->next_run > t->runs) {
		/* the last run of the boot: let the guest end, then clean up */
		if (wait_line(t, NULL, line, sizeof(line), 30) == W_LINE && !strcmp(line, "DONE")) {
			double until = kb_now() + 30;

			while (alive(t) == 1 && kb_now() < until)
				usleep(50000);
		}
		end_boot(t, 0);
	}
out:
	kb_output_release(&out.kept);
	return ret;
}

static int vm_describe(struct kb_target *base, struct kb_buf *out)
{
	struct vm_target *t = (struct vm_target *)base;
	unsigned long ver = 0;
	char accel[16], *why;

	virConnectGetLibVersion(t->conn, &ver);
	accel_recall(t, accel);
	kb_buf_addf(out, "libvirt %lu.%lu.%lu at %s%s\n", ver / 1000000, ver / 1000 % 1000,
		    ver % 1000, t->uri ? t->uri : "qemu:///system",
		    t->remote ? " (remote)" : "");
	if (t->remote)
		kb_buf_addf(out, "storage pool %s\n", t->pool_name);
	kb_buf_addf(out, "accelerator %s\n", accel[0] ? accel : "not known yet (KVM is "
		    "tried at the first boot)");
	if ((why = kvm_node_problem(t))) {
		kb_buf_addf(out, "warning: %s\n", why);
		free(why);
	}
	return 0;
}

const struct kb_target_ops kb_target_libvirt = {
	.name = "libvirt",
	.flags = KB_TARGET_GUEST,
	.keys = kb_target_libvirt_keys,
	.open = vm_open,
	.boot = vm_boot,
	.run_start = vm_run_start,
	.run_wait = vm_run_wait,
	.cleanup = vm_cleanup,
	.close = vm_close,
	.describe = vm_describe,
};
