build-x/tests/test_symmetry: tests/test_symmetry.c solver/retro.h \
 game/board.h game/dabconf.h game/err.h game/progress.h solver/analysis.h \
 symmetry/sym.h tests/testhelp.h
solver/retro.h:
game/board.h:
game/dabconf.h:
game/err.h:
game/progress.h:
solver/analysis.h:
symmetry/sym.h:
tests/testhelp.h:
