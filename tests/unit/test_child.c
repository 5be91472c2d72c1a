/* sampler/child.c: how the command is started. The cgroup a real run
 * places it in is covered end to end by the bench scripts; here, the join
 * by a write to cgroup.procs, which is what runs when the kernel will not
 * create the child inside the cgroup. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/err.h"
#include "sampler/child.h"

/* Runs /bin/true with dir_fd and a regular file standing in for
 * cgroup.procs; returns what the child wrote there. */
static void run_true(int dir_fd, char *got, size_t cap)
{
	char path[] = "/tmp/fak-test-procs-XXXXXX";
	char arg0[] = "true", *argv[] = { arg0, NULL };
	struct child ch;
	struct err e;
	sigset_t none;
	int procs = mkstemp(path), status;
	ssize_t n;

	cr_assert(procs >= 0);
	unlink(path);
	sigemptyset(&none);
	cr_assert_eq(child_spawn(&ch, "/bin/true", argv, &none, &CHILD_STDIO_DEFAULT, dir_fd, procs,
				 NULL, 0, &e),
		     0, "%s", e.msg);
	cr_assert_eq(waitpid(ch.pid, &status, 0), ch.pid);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	n = pread(procs, got, cap - 1, 0);
	cr_assert(n >= 0);
	got[n] = '\0';
	close(procs);
}

Test(child, joins_by_writing_cgroup_procs_without_a_cgroup_folder)
{
	char got[16];

	run_true(-1, got, sizeof(got));
	cr_assert_str_eq(got, "0");
}

Test(child, joins_by_writing_cgroup_procs_when_clone3_refuses_the_folder)
{
	/* an ordinary folder is no cgroup: clone3 refuses it, and the child
	 * is forked and joins by the write instead of running outside */
	int dir = open("/tmp", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	char got[16];

	cr_assert(dir >= 0);
	run_true(dir, got, sizeof(got));
	close(dir);
	cr_assert_str_eq(got, "0");
}
