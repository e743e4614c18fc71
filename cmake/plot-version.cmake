# SPDX-License-Identifier: GPL-2.0-or-later
# cmake -DIN=script -DOUT=file -DVERSION=x.y.z -DGIT=rcuvfs_git.h -P plot-version.cmake
# Copies the rcuvfs-plot script with @RCUVFS_VERSION@ and
# @RCUVFS_GIT_COMMIT@ filled in, executable; rewrites OUT only when it
# changes.
file(READ ${GIT} git)
string(REGEX MATCH "RCUVFS_GIT_COMMIT \"([^\"]*)\"" _ "${git}")
set(RCUVFS_GIT_COMMIT ${CMAKE_MATCH_1})
set(RCUVFS_VERSION ${VERSION})
configure_file(${IN} ${OUT} @ONLY FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE
               GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
