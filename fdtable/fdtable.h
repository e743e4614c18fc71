/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fdtable/fdtable.h - public header of fdtable/ (issue 3). */
#ifndef RCUVFS_FDTABLE_H
#define RCUVFS_FDTABLE_H
#include "vfs/vfs.h"
#endif
