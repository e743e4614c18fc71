// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * vfs/base/wait.c - wait queues and completions.
 *
 * Locking: wait_queue_head.lock (spinlock_t) protects the list of entries
 * and each entry's `woken` flag; it is never held across schedule().
 * completion.done is protected by completion.wait.lock.
 */
#include "vfs/base/base.h"

void init_waitqueue_head(struct wait_queue_head *wq)
{
	spin_lock_init(&wq->lock);
	INIT_LIST_HEAD(&wq->head);
}

static void __prepare(struct wait_queue_head *wq, struct wait_queue_entry *w, int state,
		      int exclusive)
{
	struct task_struct *t = current;

	if (w->task != t) { /* first call for this entry */
		w->task = t;
		w->woken = 0;
		INIT_LIST_HEAD(&w->entry);
	}
	w->exclusive = exclusive;
	spin_lock(&wq->lock);
	if (list_empty(&w->entry)) {
		if (exclusive)
			list_add_tail(&w->entry, &wq->head);
		else
			list_add(&w->entry, &wq->head);
	}
	set_current_state(state);
	spin_unlock(&wq->lock);
}

void prepare_to_wait(struct wait_queue_head *wq, struct wait_queue_entry *w, int state)
{
	__prepare(wq, w, state, 0);
}

void prepare_to_wait_exclusive(struct wait_queue_head *wq, struct wait_queue_entry *w, int state)
{
	__prepare(wq, w, state, 1);
}

void finish_wait(struct wait_queue_head *wq, struct wait_queue_entry *w)
{
	__set_current_state(TASK_RUNNING);
	if (w->task != current)
		return; /* never prepared */
	if (!list_empty(&w->entry)) {
		spin_lock(&wq->lock);
		list_del_init(&w->entry);
		spin_unlock(&wq->lock);
	}
	w->task = NULL;
}

void __wake_up(struct wait_queue_head *wq, int nr)
{
	struct wait_queue_entry *w, *n;

	spin_lock(&wq->lock);
	list_for_each_entry_safe(w, n, &wq->head, entry) {
		w->woken = 1;
		/* the entry stays queued until its owner calls finish_wait, so a
		 * woken waiter that finds its condition false sleeps again without
		 * missing a later wake-up (autoremove is not used) */
		wake_up_process(w->task);
		if (w->exclusive && nr > 0 && --nr == 0)
			break;
	}
	spin_unlock(&wq->lock);
}

void init_completion(struct completion *c)
{
	c->done = 0;
	init_waitqueue_head(&c->wait);
}

void complete(struct completion *c)
{
	spin_lock(&c->wait.lock);
	if (c->done != UINT32_MAX)
		c->done++;
	spin_unlock(&c->wait.lock);
	__wake_up(&c->wait, 1);
}

void complete_all(struct completion *c)
{
	spin_lock(&c->wait.lock);
	c->done = UINT32_MAX;
	spin_unlock(&c->wait.lock);
	__wake_up(&c->wait, 0);
}

bool try_wait_for_completion(struct completion *c)
{
	bool ret = false;

	spin_lock(&c->wait.lock);
	if (c->done) {
		if (c->done != UINT32_MAX)
			c->done--;
		ret = true;
	}
	spin_unlock(&c->wait.lock);
	return ret;
}

static int __wait_for_completion(struct completion *c, int state)
{
	struct wait_queue_entry w = {0};
	int ret = 0;

	for (;;) {
		prepare_to_wait_exclusive(&c->wait, &w, state);
		if (try_wait_for_completion(c))
			break;
		if (state == TASK_INTERRUPTIBLE && signal_pending(current)) {
			ret = -EINTR;
			break;
		}
		rv_wait_note(RV_XP_SLEEP, c, NULL);
		schedule();
	}
	finish_wait(&c->wait, &w);
	/* a wake-up consumed by us while we leave with -EINTR is passed on */
	if (ret == -EINTR && w.woken && !RV_MUTANT(completion_eintr_no_pass_on))
		__wake_up(&c->wait, 1);
	return ret;
}

void wait_for_completion(struct completion *c)
{
	__wait_for_completion(c, TASK_UNINTERRUPTIBLE);
}

int wait_for_completion_interruptible(struct completion *c)
{
	return __wait_for_completion(c, TASK_INTERRUPTIBLE);
}
