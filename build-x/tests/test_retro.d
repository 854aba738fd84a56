build-x/tests/test_retro: tests/test_retro.c solver/retro.h game/board.h \
 game/dabconf.h game/err.h game/progress.h solver/analysis.h \
 tests/testhelp.h
solver/retro.h:
game/board.h:
game/dabconf.h:
game/err.h:
game/progress.h:
solver/analysis.h:
tests/testhelp.h:
