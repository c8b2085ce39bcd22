/*
 * A start without revisions, as 'git bisect start' allows: the options are
 * kept in the state directory until 'kbisect bad' and 'kbisect good' have
 * given BAD and a GOOD; then the session is started with them, to be
 * marked by hand or resumed with its test.  One line a fact, words quoted
 * as in the log:
 *
 *   start WORD...    the words given to start, in their order
 *   bad REV          BAD, as an id (HEAD when none was given)
 *   good REV         a GOOD, as an id
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"

struct pending {
	struct kb_strv words, goods;
	char *bad;
};

static char *pending_path(const struct kb_ctx *c)
{
	return kb_asprintf("%s/start-pending", c->statedir);
}

int kb_pending_exists(const struct kb_ctx *c)
{
	char *p = pending_path(c);
	int ret = access(p, F_OK) == 0;

	free(p);
	return ret;
}

static void pending_release(struct pending *pd)
{
	kb_strv_clear(&pd->words);
	kb_strv_clear(&pd->goods);
	free(pd->bad);
	memset(pd, 0, sizeof(*pd));
}

static int pending_read(const struct kb_ctx *c, struct pending *pd)
{
	struct kb_buf text = KB_BUF_INIT;
	char *p = pending_path(c), *line, *save = NULL;
	int ret;

	memset(pd, 0, sizeof(*pd));
	ret = kb_read_file(p, &text, 1 << 20);
	free(p);
	if (ret < 0)
		return ret;
	for (line = strtok_r(text.ptr, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		struct kb_strv w = KB_STRV_INIT;
		size_t i;

		if (kb_split_words(line, &w) < 0) {
			kb_strv_clear(&w);
			ret = kb_error(KB_EINVAL, "the start kept in %s is damaged: 'kbisect "
				       "reset' forgets it", c->statedir);
			break;
		}
		if (w.n && !strcmp(w.v[0], "start"))
			for (i = 1; i < w.n; i++)
				kb_strv_push(&pd->words, w.v[i]);
		else if (w.n == 2 && !strcmp(w.v[0], "bad"))
			pd->bad = kb_strdup(w.v[1]);
		else if (w.n == 2 && !strcmp(w.v[0], "good"))
			kb_strv_push(&pd->goods, w.v[1]);
		kb_strv_clear(&w);
	}
	kb_buf_release(&text);
	if (ret < 0)
		pending_release(pd);
	return ret;
}

static int pending_write(const struct kb_ctx *c, const struct pending *pd)
{
	struct kb_buf b = KB_BUF_INIT;
	char *p = pending_path(c);
	size_t i;
	int ret;

	kb_buf_adds(&b, "start");
	for (i = 0; i < pd->words.n; i++) {
		kb_buf_addch(&b, ' ');
		kb_buf_add_quoted(&b, pd->words.v[i], KB_QUOTE_BARE);
	}
	kb_buf_addch(&b, '\n');
	if (pd->bad)
		kb_buf_addf(&b, "bad %s\n", pd->bad);
	for (i = 0; i < pd->goods.n; i++)
		kb_buf_addf(&b, "good %s\n", pd->goods.v[i]);
	ret = kb_mkdir_p(c->statedir, 0700);
	if (!ret)
		ret = kb_write_file_atomic(p, b.ptr, b.len, 0600);
	free(p);
	kb_buf_release(&b);
	return ret;
}

int kb_pending_start(const struct kb_ctx *c, int argc, char **argv)
{
	struct pending pd;
	int i, ret;

	memset(&pd, 0, sizeof(pd));
	for (i = 1; i < argc; i++)
		kb_strv_push(&pd.words, argv[i]);
	ret = pending_write(c, &pd);
	pending_release(&pd);
	if (ret < 0)
		return ret;
	fprintf(stderr, "kbisect: started without revisions: give BAD with 'kbisect bad "
		"[REV]' (HEAD when none) and a GOOD with 'kbisect good REV'; the session "
		"begins once it has both\n");
	return 0;
}

void kb_pending_forget(const struct kb_ctx *c)
{
	char *p = pending_path(c);

	unlink(p);
	free(p);
}

int kb_pending_status(const struct kb_ctx *c)
{
	struct pending pd;
	int ret;

	if ((ret = pending_read(c, &pd)) < 0)
		return ret;
	printf("started without revisions; BAD: %s; GOOD: %s\n", pd.bad ? pd.bad : "none yet",
	       pd.goods.n ? pd.goods.v[0] : "none yet");
	printf("next: mark %s\n", !pd.bad && !pd.goods.n ? "BAD ('kbisect bad [REV]') and a "
	       "GOOD ('kbisect good REV')" : !pd.bad ? "BAD ('kbisect bad [REV]')" :
	       "a GOOD ('kbisect good REV')");
	pending_release(&pd);
	return 0;
}

int kb_pending_mark(struct kb_ctx *c, char mark, const struct kb_strv *revs)
{
	struct pending pd;
	struct kb_strv args = KB_STRV_INIT;
	size_t i, dd;
	git_oid oid;
	char sha[GIT_OID_HEXSZ + 1];
	int ret, no_run = 0;

	if (mark != 'g' && mark != 'b')
		return kb_error(KB_EINVAL, "the session has not begun: it needs BAD ('kbisect "
				"bad [REV]') and a GOOD ('kbisect good REV') first");
	if (mark == 'b' && revs->n > 1)
		return kb_error(KB_EINVAL, "there is one BAD: 'kbisect bad' takes one REV");
	if (mark == 'g' && !revs->n)
		return kb_error(KB_EINVAL, "'kbisect good' needs a REV before the session has "
				"begun: there is no commit to test yet");
	if ((ret = pending_read(c, &pd)) < 0)
		return ret;
	if (!c->repo && (ret = kb_repo_open(&c->repo, c->repo_opt ? c->repo_opt : ".")) < 0)
		goto out;
	for (i = 0; i < (revs->n ? revs->n : 1); i++) {
		const char *rev = revs->n ? revs->v[i] : "HEAD";

		if ((ret = kb_repo_resolve(c->repo, rev, &oid)) < 0)
			goto out;
		git_oid_tostr(sha, sizeof(sha), &oid);
		if (mark == 'b') {
			free(pd.bad);
			pd.bad = kb_strdup(sha);
		} else {
			kb_strv_push(&pd.goods, sha);
		}
		printf("marked %s %s\n", sha, mark == 'b' ? "bad" : "good");
	}
	if (!pd.bad || !pd.goods.n) {
		ret = pending_write(c, &pd);
		if (!ret)
			printf("next: mark %s\n", !pd.bad ? "BAD ('kbisect bad [REV]')" :
			       "a GOOD ('kbisect good REV')");
		goto out;
	}
	/* both: the session begins, marked by hand or to resume with its
	 * test; the revisions go before "--" and its paths */
	kb_strv_push(&args, "start");
	for (i = 0; i < pd.goods.n; i++)
		kb_strv_push(&args, pd.goods.v[i]);
	for (dd = 0; dd < pd.words.n && strcmp(pd.words.v[dd], "--"); dd++) {
		kb_strv_push(&args, pd.words.v[dd]);
		no_run |= !strcmp(pd.words.v[dd], "--no-run");
	}
	kb_strv_push(&args, pd.bad);
	if (!no_run)
		kb_strv_push(&args, "--no-run");
	for (; dd < pd.words.n; dd++)
		kb_strv_push(&args, pd.words.v[dd]);
	/* start takes the lock itself */
	kb_pending_forget(c);
	kb_store_close(c->store);
	c->store = NULL;
	if ((ret = cmd_start((int)args.n, args.v)))
		/* what start said is the error; the revisions stay */
		pending_write(c, &pd);
	else
		fprintf(stderr, "kbisect: mark commits by hand, or 'kbisect resume' runs the "
			"test\n");
out:
	pending_release(&pd);
	kb_strv_clear(&args);
	return ret;
}
