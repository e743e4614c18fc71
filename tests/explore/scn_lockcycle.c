// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tests/explore/scn_lockcycle.c - a real POSIX deadlock cycle, and a close
 * racing an F_SETLKW of the same process.
 *
 * posix-deadlock: A holds W[5,5], B holds W[0,0]; A asks for W[0,0] and B
 * for W[5,5] (F_SETLKW), each then unlocks everything.  Whatever the order,
 * the second of the two to block closes a cycle of owners and Linux
 * (posix_locks_deadlock) answers it EDEADLK; the other is granted once the
 * loser lets go.  With nested=yes a third owner C asks for W[0,0] too, so
 * that A's request may queue behind C's (fl_blocker a request, not the
 * held lock) and the cycle is found only by following the chain to the
 * lock at its root; C is never part of a cycle.  The oracle: exactly one
 * of A and B gets EDEADLK, every other request succeeds, nothing is left,
 * and the lock lists' invariants hold between critical sections.
 *
 * close-setlkw: a process holds the file at fd 3; T0, one of its threads,
 * F_SETLKW W[0,0] through fd 3 while H holds it; T1, another thread,
 * closes fd 3 (close=close) or dup2s another file over it (close=dup2);
 * H unlocks.  Once the close is done no POSIX lock of the process may
 * remain on the file (Linux 6.10's fcntl_setlk recheck: a lock granted
 * after the close's locks_remove_posix is removed and F_SETLKW answers
 * EBADF); F_SETLKW returns 0 or EBADF.
 *
 * Locking: owners are opaque cookies or the process's files_struct; setup
 * and the checks run on the driver with no task running.
 */
#include "explore.h"

#include <string.h>

#define XOWNER(n) ((fl_owner_t)(uintptr_t)(0x20000 + (n)*64))

struct xc_priv {
	struct file *f, *g;
};

static int xc_setlk(struct file *f, unsigned int cmd, int owner, int type, int64_t start,
		    int64_t len)
{
	struct flock l = {
	    .l_type = (short)type, .l_whence = SEEK_SET, .l_start = start, .l_len = len};

	return fcntl_setlk(f, cmd, &l, XOWNER(owner), owner + 200, NULL);
}

static void xc_format(int task, int op, long v, char *buf, size_t len)
{
	if (v < 0)
		snprintf(buf, len, "-%s", v == -EDEADLK ? "EDEADLK" : strerror((int)-v));
	else
		snprintf(buf, len, "%ld", v);
}

static int xc_nothing_left(char *why, size_t len)
{
	char msg[256];
	size_t need = locks_format_proc(NULL, 0);

	if (need) {
		snprintf(why, len,
			 "locks left after every owner unlocked (%zu bytes of /proc/locks)", need);
		return 1;
	}
	if (locks_check(msg, sizeof(msg))) {
		snprintf(why, len, "locks_check: %s", msg);
		return 1;
	}
	return 0;
}

static int pd_setup(struct xs_run *r)
{
	struct xc_priv *p = r->priv;

	if (!xs_process(r, 0, "A") || !xs_process(r, 1, "B") ||
	    (r->sc->ntasks > 2 && !xs_process(r, 2, "C")))
		return -ENOMEM;
	task_attach(r->task[0]);
	if (filp_open("/xcycle", O_RDWR | O_CREAT, 0644, &p->f))
		return -EIO;
	if (xc_setlk(p->f, F_SETLK, 0, F_WRLCK, 5, 1) || xc_setlk(p->f, F_SETLK, 1, F_WRLCK, 0, 1))
		return -EIO;
	return 0;
}

static long pd_op(struct xs_run *r, int task, int op)
{
	struct xc_priv *p = r->priv;

	if (op == 1)
		return xc_setlk(p->f, F_SETLK, task, F_UNLCK, 0, 0);
	if (task == 1)
		return xc_setlk(p->f, F_SETLKW, 1, F_WRLCK, 5, 1);
	return xc_setlk(p->f, F_SETLKW, task, F_WRLCK, 0, 1); /* A, C */
}

static int pd_check(struct xs_run *r, char *why, size_t len)
{
	long a = r->result[0][0], b = r->result[1][0];

	if (!((a == -EDEADLK && b == 0) || (a == 0 && b == -EDEADLK))) {
		snprintf(why, len,
			 "A's F_SETLKW returned %ld, B's %ld: exactly one of them closes "
			 "the cycle and gets EDEADLK (Linux)",
			 a, b);
		return 1;
	}
	for (int t = 0; t < r->sc->ntasks; t++)
		if (r->result[t][1] || (t == 2 && r->result[2][0])) {
			snprintf(why, len, "T%d: %ld, %ld (0 expected)", t, r->result[t][0],
				 r->result[t][1]);
			return 1;
		}
	return xc_nothing_left(why, len);
}

static void pd_teardown(struct xs_run *r)
{
	struct xc_priv *p = r->priv;

	xs_exit_tasks(r);
	if (p->f)
		fput(p->f);
	p->f = NULL;
	do_unlink("/xcycle");
}

static struct xscenario posix_deadlock = {
    .name = "posix-deadlock",
    .summary = "two POSIX owners each asking for the lock the other holds: exactly one EDEADLK",
    .ntasks = 2,
    .nops = {2, 2},
    .opname = {{"setlkw(W0-0)", "unlock(all)"}, {"setlkw(W5-5)", "unlock(all)"}},
    .variants =
	{
	    {"", false},
	    {"filelock=inode", false},
	},
    .priv_size = sizeof(struct xc_priv),
    .setup = pd_setup,
    .op = pd_op,
    .midcheck = xs_locks_midcheck,
    .check = pd_check,
    .teardown = pd_teardown,
    .format = xc_format,
};
XSCENARIO(posix_deadlock)

static struct xscenario posix_deadlock_nested = {
    .name = "posix-deadlock-nested",
    .summary = "the cycle of posix-deadlock with a third owner queued on B's lock: A's request "
	       "may hang under C's, the cycle is found through the chain",
    .ntasks = 3,
    .nops = {2, 2, 2},
    .opname = {{"setlkw(W0-0)", "unlock(all)"},
	       {"setlkw(W5-5)", "unlock(all)"},
	       {"setlkw(W0-0)", "unlock(all)"}},
    .matrix_k = 1, /* three tasks */
    .variants =
	{
	    {"", false},
	},
    .priv_size = sizeof(struct xc_priv),
    .setup = pd_setup,
    .op = pd_op,
    .midcheck = xs_locks_midcheck,
    .check = pd_check,
    .teardown = pd_teardown,
    .format = xc_format,
};
XSCENARIO(posix_deadlock_nested)

/* ---- close vs F_SETLKW in the same process ---------------------------------- */

static int cs_setup(struct xs_run *r)
{
	struct xc_priv *p = r->priv;
	int fd;

	if (!xs_process(r, 0, "P") || !xs_thread_of(r, 1, 0) || !xs_process(r, 2, "H"))
		return -ENOMEM;
	task_attach(r->task[0]);
	if (filp_open("/xclose", O_RDWR | O_CREAT, 0644, &p->f) ||
	    filp_open("/xclose2", O_RDWR | O_CREAT, 0644, &p->g))
		return -EIO;
	/* fd 0 holds the other file (dup2's source), fd 1 the locked one */
	for (int k = 0; k < 2; k++) {
		fd = get_unused_fd_flags(0);
		if (fd != k)
			return -EIO;
		get_file(k ? p->f : p->g);
		fd_install((unsigned int)fd, k ? p->f : p->g);
	}
	/* H holds W[0,0] */
	return xc_setlk(p->f, F_SETLK, 2, F_WRLCK, 0, 1) ? -EIO : 0;
}

static long cs_op(struct xs_run *r, int task, int op)
{
	struct xc_priv *p = r->priv;
	struct flock l = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 1};

	switch (task) {
	case 0:
		return ksys_fcntl(1, F_SETLKW, (unsigned long)&l);
	case 1:
		if (xs_param_is(r, "close", "dup2"))
			return ksys_dup2(0, 1) == 1 ? 0 : -EIO;
		return close_fd(1);
	default:
		return xc_setlk(p->f, F_SETLK, 2, F_UNLCK, 0, 1);
	}
}

static int cs_check(struct xs_run *r, char *why, size_t len)
{
	long w = r->result[0][0];

	if (w != 0 && w != -EBADF) {
		snprintf(why, len, "F_SETLKW returned %ld (0 or EBADF expected)", w);
		return 1;
	}
	if (r->result[1][0] || r->result[2][0]) {
		snprintf(why, len, "close %ld, H's unlock %ld", r->result[1][0], r->result[2][0]);
		return 1;
	}
	/* the process closes what it still has open (the other file, whose
	 * locks go with it): every lock on the closed file must be gone too */
	task_attach(r->task[0]);
	close_fd(0);
	close_fd(1);
	return xc_nothing_left(why, len);
}

static void cs_teardown(struct xs_run *r)
{
	struct xc_priv *p = r->priv;

	xs_exit_tasks(r);
	if (p->f)
		fput(p->f);
	if (p->g)
		fput(p->g);
	p->f = p->g = NULL;
	do_unlink("/xclose");
	do_unlink("/xclose2");
}

static struct xscenario close_setlkw = {
    .name = "close-setlkw",
    .summary = "F_SETLKW through fd 1 (blocked by H) vs close(1) or dup2 over it by another "
	       "thread, then H unlocks: no lock of the process may survive the close",
    .ntasks = 3,
    .nops = {1, 1, 1},
    .opname = {{"setlkw(fd 1, W0-0)"}, {"close(1)"}, {"H unlock"}},
    .params = {{"close", {"close", "dup2"}, "close fd 1, or dup2 fd 0 over it"}},
    .matrix_k = 1,
    .variants =
	{
	    {"close=close", false},
	    {"close=dup2", false},
	},
    .priv_size = sizeof(struct xc_priv),
    .setup = cs_setup,
    .op = cs_op,
    .midcheck = xs_locks_midcheck,
    .check = cs_check,
    .teardown = cs_teardown,
    .format = xc_format,
};
XSCENARIO(close_setlkw)

/* ---- flock hand-off to a woken waiter ---------------------------------------- */

/*
 * H holds flock LOCK_EX through description A; W asks for it through B
 * (sleeps), X through C; H unlocks.  The woken W must retry its request
 * (flock_lock_inode again): X may have taken the lock meanwhile.  The
 * oracle: never two owners inside their critical sections, and nothing
 * left.
 */
struct fh_priv {
	struct file *f[3];
	int inside, bad;
};

static int fh_setup(struct xs_run *r)
{
	struct fh_priv *p = r->priv;

	for (int t = 0; t < 3; t++)
		if (!xs_process(r, t, t ? (t == 1 ? "W" : "X") : "H"))
			return -ENOMEM;
	task_attach(r->task[0]);
	for (int k = 0; k < 3; k++)
		if (filp_open("/xflock", O_RDWR | O_CREAT, 0644, &p->f[k]))
			return -EIO;
	return flock_lock_file(p->f[0], LOCK_EX, 300, NULL) ? -EIO : 0;
}

static long fh_op(struct xs_run *r, int task, int op)
{
	struct fh_priv *p = r->priv;
	int err;

	if (task == 0)
		return flock_lock_file(p->f[0], LOCK_UN, 300, NULL);
	err = flock_lock_file(p->f[task], LOCK_EX, 300 + task, NULL);
	if (err)
		return err;
	if (p->inside++)
		p->bad++;
	rv_sched_point("flock-handoff: inside");
	p->inside--;
	return flock_lock_file(p->f[task], LOCK_UN, 300 + task, NULL);
}

static int fh_check(struct xs_run *r, char *why, size_t len)
{
	struct fh_priv *p = r->priv;

	if (p->bad) {
		snprintf(why, len, "two owners of one flock LOCK_EX were inside at once");
		return 1;
	}
	for (int t = 0; t < 3; t++)
		if (r->result[t][0]) {
			snprintf(why, len, "T%d returned %ld", t, r->result[t][0]);
			return 1;
		}
	return xc_nothing_left(why, len);
}

static void fh_teardown(struct xs_run *r)
{
	struct fh_priv *p = r->priv;

	xs_exit_tasks(r);
	for (int k = 0; k < 3; k++)
		if (p->f[k])
			fput(p->f[k]);
	do_unlink("/xflock");
}

static struct xscenario flock_handoff = {
    .name = "flock-handoff",
    .summary = "H unlocks a flock LOCK_EX that W waits for while X asks for it too",
    .ntasks = 3,
    .nops = {1, 1, 1},
    .opname = {{"unlock"}, {"flock(EX), section, unlock"}, {"flock(EX), section, unlock"}},
    .matrix_k = 1,
    .variants =
	{
	    {"", false},
	    {"filelock=inode", false},
	},
    .priv_size = sizeof(struct fh_priv),
    .setup = fh_setup,
    .op = fh_op,
    .midcheck = xs_locks_midcheck,
    .check = fh_check,
    .teardown = fh_teardown,
    .format = xc_format,
};
XSCENARIO(flock_handoff)
