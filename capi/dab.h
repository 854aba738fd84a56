/*
** dab.h: the whole public API of libdab in one include (installed as <dab.h>).
** See Copyright Notice in README.md
*/
#ifndef DAB_H
#define DAB_H

/*
** With pkg-config:  cc app.c $(pkg-config --cflags --libs dab)
** Each header below states its functions' contracts and thread safety;
** every call returns a dab_status and, when err is non-NULL, writes a
** one-line message into it (game/err.h).  Only these headers are
** installed, and libdab.so exports only the functions they declare.
**   game/err.h          status codes and the error buffer
**   game/board.h        board geometry, line sets, playing moves
**   game/postext.h      position text: RxC, RxC:DBN, RxC@m1,m2,...
**   game/analysis.h     the result of an analysis: value, move values, best
**   symmetry/sckey.h    canonical symmetry keys
**   tablebase/dabtb.h   tablebase files: open, probe, build, find, solved store
**   pdb/pdb.h           the pattern database of Strings-and-Coins components
**   oracle/oracle.h     the exact value of a position and of every move
**   players/player.h    players from spec strings ("perfect", "mcts:...")
**   capi/vec.h          many games at once, for bindings
**   capi/agent_capi.h   players behind plain arguments, for bindings
**   capi/abi.h          the struct layouts a binding mirrors
*/
#include "game/err.h"
#include "game/board.h"
#include "game/postext.h"
#include "game/analysis.h"
#include "symmetry/sckey.h"
#include "tablebase/dabtb.h"
#include "pdb/pdb.h"
#include "oracle/oracle.h"
#include "players/player.h"
#include "capi/vec.h"
#include "capi/agent_capi.h"
#include "capi/abi.h"

#endif
