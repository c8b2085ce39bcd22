#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "build.h"
#include "builder.h"
#include "repo.h"
#include "test.h"
#include "util.h"

TEST(test_builder__jobs_ahead)
{
	long cores = sysconf(_SC_NPROCESSORS_ONLN);

	CHECK(kb_build_ahead_jobs('n', 0) == 0);
	CHECK(kb_build_ahead_jobs('y', cores) == 1);
	CHECK(kb_build_ahead_jobs('y', 0) == (cores > 1 ? cores : 1));
	CHECK(kb_build_ahead_jobs('a', 0) == (cores >= 2 ? cores : 0));
	CHECK(kb_build_ahead_jobs('a', cores - 1) == 0);
}

struct told {
	struct kb_buf says;
	char sha[41], what[16], release[64];
	int ahead;
};

static void say(void *ctx, const char *msg)
{
	struct told *t = ctx;

	kb_buf_addf(&t->says, "%s\n", msg);
}

static void built_ahead(void *ctx, const char *sha, const char *what, double seconds,
			const char *release)
{
	struct told *t = ctx;

	t->ahead++;
	snprintf(t->sha, sizeof(t->sha), "%s", sha);
	snprintf(t->what, sizeof(t->what), "%s", what);
	snprintf(t->release, sizeof(t->release), "%s", release);
}

/* A commit that is no kernel: its build fails at once, ahead and here. */
TEST(test_builder__waits_for_the_child_that_builds_the_commit_needed)
{
	char *rp = kb_asprintf("%s/repo", kb_test_dir());
	char *db = kb_asprintf("%s/kbisect.db", kb_test_dir());
	git_repository *r = trepo_init(rp);
	struct told t = { KB_BUF_INIT };
	struct kb_build_result res;
	struct kb_builder b;
	struct kb_paths p;
	char sha[1][41];
	git_oid c;

	CHECK(r && trepo_commit(r, &c, NULL, 0, "README", "no kernel\n", "one") == 0);
	git_oid_tostr(sha[0], sizeof(sha[0]), &c);
	kb_paths_init(&p, db);
	CHECK(kb_mkdir_p(p.statedir, 0700) == 0);
	kb_builder_init(&b, &p);
	b.repo_path = rp;
	b.target = "local";
	b.ahead = 'y';
	b.cb.say = say;
	b.cb.built_ahead = built_ahead;
	b.cb.ctx = &t;
	kb_builder_ahead_start(&b, (const char (*)[41])sha, 1);
	CHECK(b.ahead_pid > 0 && b.ahead_n == 1);
	CHECK(kb_builder_build(&b, r, sha[0], &res) == 0);
	CHECK(b.ahead_pid == 0);
	CHECK_MSG(t.ahead == 1 && !strcmp(t.sha, sha[0]) && !strcmp(t.what, "failed") &&
		  !strcmp(t.release, "-"), "%d %s %s", t.ahead, t.what, t.release);
	/* the failure the child kept in the cache */
	CHECK(res.failed && res.cached);
	CHECK_MSG(strstr(t.says.ptr, "building ahead: ") &&
		  (strstr(t.says.ptr, "waiting for the build ahead") ||
		   !strstr(t.says.ptr, "stopping")) && strstr(t.says.ptr, "building "),
		  "%s", t.says.ptr);
	CHECK(access(p.ahead, F_OK) == 0);
	kb_builder_release(&b);
	kb_paths_release(&p);
	kb_buf_release(&t.says);
	git_repository_free(r);
	free(rp);
	free(db);
}

TEST(test_builder__a_killed_build_is_no_fault_of_its_commit)
{
	CHECK(kb_build_log_killed("  CC      fs/namei.o\n"
				  "make[2]: *** [scripts/Makefile.build:250: fs/namei.o] Terminated\n"
				  "make[1]: *** [Makefile:1992: .] Error 2\n"
				  "make: *** [Makefile:231: __sub-make] Error 2\n"));
	CHECK(kb_build_log_killed("make[3]: *** [scripts/Makefile.build:250: a.o] Killed"));
	CHECK(kb_build_log_killed("make: *** [Makefile:231: __sub-make] Interrupt\n"));
	CHECK(kb_build_log_killed("gcc: fatal error: Killed signal terminated program cc1\n"
				  "compilation terminated.\n"));
	/* the commit's own errors */
	CHECK(!kb_build_log_killed("init/main.c:12:2: error: 'X' undeclared\n"
				   "make[2]: *** [scripts/Makefile.build:250: init/main.o] Error 1\n"
				   "make: *** [Makefile:231: __sub-make] Error 2\n"));
	CHECK(!kb_build_log_killed("init/main.c: error: Terminated\n"));
	CHECK(!kb_build_log_killed("make: *** No rule to make target 'Killed'.  Stop.\n"));
	CHECK(!kb_build_log_killed(""));
}
