/* SPDX-License-Identifier: GPL-2.0-or-later */
/* locks/locks.h - public header of locks/ (issue 6). */
#ifndef RCUVFS_LOCKS_H
#define RCUVFS_LOCKS_H
#include "vfs/vfs.h"
#endif
