/*
** dabtb.h: the public API of dab tablebases, one include for all of it:
**   tablebase/tb_probe.h   open a file, values of positions and moves, check
**   tablebase/tb_find.h    where files are found and written; open a board's
**   tablebase/tb_build.h   build a file: plan, build, layer slices
**   tablebase/tb_store.h   the solved store and the shapes
** Each header states its thread safety; functions return a dab_status
** and, when err is non-NULL, a one-line message.
** See Copyright Notice in README.md
*/
#ifndef DABTB_H
#define DABTB_H

#include "tablebase/tb_build.h"
#include "tablebase/tb_find.h"
#include "tablebase/tb_probe.h"
#include "tablebase/tb_store.h"

#endif
