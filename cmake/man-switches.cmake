# SPDX-License-Identifier: GPL-2.0-or-later
# cmake -DIN=page.scd -DSWITCHES=switches.scd -DDOCDIR=dir -DOUT=out.scd -P man-switches.cmake
# Copies IN to OUT with its line "%%SWITCHES%%" replaced by SWITCHES's text
# and "%%DOCDIR%%" by the directory the documentation is installed in.
file(READ ${IN} page)
file(READ ${SWITCHES} switches)
string(REPLACE "%%SWITCHES%%\n" "${switches}" page "${page}")
string(REPLACE "%%DOCDIR%%" "${DOCDIR}" page "${page}")
file(WRITE ${OUT} "${page}")
