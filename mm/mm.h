/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mm/mm.h - public header of mm/ (issue 8). */
#ifndef RCUVFS_MM_H
#define RCUVFS_MM_H
#include "vfs/vfs.h"
#endif
