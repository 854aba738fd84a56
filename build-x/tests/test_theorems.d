build-x/tests/test_theorems: tests/test_theorems.c game/postext.h \
 game/board.h game/dabconf.h game/err.h tests/testhelp.h solver/retro.h \
 game/board.h game/progress.h solver/analysis.h theorems/compsolve.h \
 game/err.h theorems/sle.h game/board.h theorems/graphsolve.h \
 verify/thm_check.h game/progress.h
game/postext.h:
game/board.h:
game/dabconf.h:
game/err.h:
tests/testhelp.h:
solver/retro.h:
game/board.h:
game/progress.h:
solver/analysis.h:
theorems/compsolve.h:
game/err.h:
theorems/sle.h:
game/board.h:
theorems/graphsolve.h:
verify/thm_check.h:
game/progress.h:
