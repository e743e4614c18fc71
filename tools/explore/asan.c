// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tools/explore/asan.c - the sanitizer build's default options for
 * rcuvfs-explore: a use of a stack frame after its function returned is
 * reported too (detect_stack_use_after_return), since requests that live
 * on a waiter's stack (F_SETLKW's file_lock, an rwsem or semaphore waiter)
 * are touched by the task that wakes them: a waker still touching one
 * after the waiter returned writes into a dead frame (setlkw-eintr).
 * ASAN_OPTIONS from the environment is applied after these and wins.
 *
 * Locking: none (read once by the sanitizer runtime at start-up).
 */
#if defined(__SANITIZE_ADDRESS__)
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "detect_stack_use_after_return=1";
}
#else
/* ISO C wants a translation unit to declare something */
typedef int rv_explore_asan_unused;
#endif
