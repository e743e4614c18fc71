/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vfs/base/wait.h - wait queues, wait_event*, completion.
 *
 * Locking: wait_queue_head.lock (spinlock_t) protects the queue and each
 * entry's `woken`; completion.done is under its queue's lock.  Waiters sleep
 * through schedule(), so a task holding the BKL releases it while it waits.
 *
 * Included through vfs/base/base.h, the folder's public header; code outside
 * vfs/base includes only that.
 */
#ifndef RCUVFS_VFS_BASE_WAIT_H
#define RCUVFS_VFS_BASE_WAIT_H

#include "vfs/base/sched.h"
#include "vfs/base/spinlock.h"
#include <errno.h>

struct wait_queue_entry {
	struct task_struct *task;
	struct list_head entry; /* on wait_queue_head.head, under its lock */
	int exclusive;
	int woken; /* set by the waker under the queue lock */
};
struct wait_queue_head {
	spinlock_t lock;
	struct list_head head;
};
void init_waitqueue_head(struct wait_queue_head *wq);
void prepare_to_wait(struct wait_queue_head *wq, struct wait_queue_entry *w, int state);
void prepare_to_wait_exclusive(struct wait_queue_head *wq, struct wait_queue_entry *w, int state);
void finish_wait(struct wait_queue_head *wq, struct wait_queue_entry *w);
/* Wake all non-exclusive waiters and up to nr exclusive ones (nr<=0: all). */
void __wake_up(struct wait_queue_head *wq, int nr);
#define wake_up(wq)	__wake_up((wq), 1)
#define wake_up_all(wq) __wake_up((wq), 0)

#define wait_event(wq, cond)                                                                       \
	do {                                                                                       \
		struct wait_queue_entry __w = {0};                                                 \
		for (;;) {                                                                         \
			prepare_to_wait((wq), &__w, TASK_UNINTERRUPTIBLE);                         \
			if (cond)                                                                  \
				break;                                                             \
			rv_wait_note(RV_XP_SLEEP, (wq), NULL);                                     \
			schedule();                                                                \
		}                                                                                  \
		finish_wait((wq), &__w);                                                           \
	} while (0)
/* Evaluates to 0 when cond became true, -EINTR on a pending signal. */
#define wait_event_interruptible(wq, cond)                                                         \
	({                                                                                         \
		struct wait_queue_entry __w = {0};                                                 \
		int __ret = 0;                                                                     \
		for (;;) {                                                                         \
			prepare_to_wait((wq), &__w, TASK_INTERRUPTIBLE);                           \
			if (cond)                                                                  \
				break;                                                             \
			if (signal_pending(current)) {                                             \
				__ret = -EINTR;                                                    \
				break;                                                             \
			}                                                                          \
			rv_wait_note(RV_XP_SLEEP, (wq), NULL);                                     \
			schedule();                                                                \
		}                                                                                  \
		finish_wait((wq), &__w);                                                           \
		__ret;                                                                             \
	})

struct completion {
	unsigned int done; /* under wait.lock */
	struct wait_queue_head wait;
};
void init_completion(struct completion *c);
void complete(struct completion *c);
void complete_all(struct completion *c);
void wait_for_completion(struct completion *c);
int wait_for_completion_interruptible(struct completion *c);
bool try_wait_for_completion(struct completion *c);

#endif /* RCUVFS_VFS_BASE_WAIT_H */
