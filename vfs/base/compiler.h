/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vfs/base/compiler.h - compiler helpers: READ_ONCE/WRITE_ONCE, barriers, likely, container_of,
 * cpu_relax.
 *
 * Locking: none.  READ_ONCE/WRITE_ONCE are volatile accesses (no ordering);
 * smp_* are the C11 fences the kernel's barriers map to on the hosts rcuvfs
 * runs on (x86-64, arm64).
 *
 * Included through vfs/base/base.h, the folder's public header; code outside
 * vfs/base includes only that.
 */
#ifndef RCUVFS_VFS_BASE_COMPILER_H
#define RCUVFS_VFS_BASE_COMPILER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vfs/base/explore.h"

#ifndef likely
#define likely(x)   __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
#endif
#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif
#define __noinline __attribute__((noinline))
/*
 * For the thread variables the hot paths read (current, the counters): the
 * model is linked into executables only, where the local-exec TLS model
 * reaches a variable of another file with one %fs-relative access instead
 * of loading its offset first (initial-exec).  A shared-library build
 * (-fPIC without -fPIE) keeps the compiler's default.
 */
#if defined(__PIC__) && !defined(__PIE__)
#define __tls_hot
#else
#define __tls_hot __attribute__((tls_model("local-exec")))
#endif
#define __cacheline_aligned	__attribute__((aligned(64)))
#define READ_ONCE(x)		(*(const volatile __typeof__(x) *)&(x))
#define WRITE_ONCE(x, v)	(*(volatile __typeof__(x) *)&(x) = (v))
#define barrier()		__asm__ __volatile__("" ::: "memory")
#define smp_mb()		__atomic_thread_fence(__ATOMIC_SEQ_CST)
#define smp_rmb()		__atomic_thread_fence(__ATOMIC_ACQUIRE)
#define smp_wmb()		__atomic_thread_fence(__ATOMIC_RELEASE)
#define smp_load_acquire(p)	__atomic_load_n((p), __ATOMIC_ACQUIRE)
#define smp_store_release(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)
/* Hide a value from the optimizer so later uses depend on this load. */
#define OPTIMIZER_HIDE_VAR(var) __asm__("" : "=r"(var) : "0"(var))
#ifndef container_of
#define container_of(ptr, type, member) ((type *)((char *)(ptr)-offsetof(type, member)))
#endif
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define BUILD_BUG_ON(c) _Static_assert(!(c), #c)

/* In a spin loop: PAUSE; an explored task parks until another one moves. */
static __always_inline void cpu_relax(void)
{
	if (RV_XACTIVE()) {
		rv_xrelax();
		return;
	}
#if defined(__x86_64__) || defined(__i386__)
	__asm__ __volatile__("pause" ::: "memory");
#elif defined(__aarch64__)
	__asm__ __volatile__("yield" ::: "memory");
#else
	barrier();
#endif
}

#endif /* RCUVFS_VFS_BASE_COMPILER_H */
