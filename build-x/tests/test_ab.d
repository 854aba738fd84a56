build-x/tests/test_ab: tests/test_ab.c solver/ab.h game/board.h \
 game/dabconf.h game/err.h game/progress.h solver/analysis.h solver/tt.h \
 game/err.h symmetry/sym.h solver/retro.h tests/testhelp.h
solver/ab.h:
game/board.h:
game/dabconf.h:
game/err.h:
game/progress.h:
solver/analysis.h:
solver/tt.h:
game/err.h:
symmetry/sym.h:
solver/retro.h:
tests/testhelp.h:
